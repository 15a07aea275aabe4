"""Limits every front end applies alike: the integers a database can store (the CLI's options
and the web app's query parameters are held to the same range)."""

from __future__ import annotations

#: Upper bound of integers that select stored rows (values, depths, offsets): the 64-bit range
#: the databases store.
MAX_STORED_INT = 2**63 - 1
