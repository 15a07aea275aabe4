"""Reads of one stored game: its rows checked as read (`damage`), a position's neighbourhood,
subgraphs and exports, and the web app's bounded reads (`browsing`)."""
