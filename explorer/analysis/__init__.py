"""Analysis: what the solved values say about positions and games (solve and explain a
position, misère play, value sequences and their periods, variants compared)."""
