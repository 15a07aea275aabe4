"""Limits every front end applies alike: the integers a database can store (the CLI's options
and the web app's query parameters are held to the same range), and the bounds of computations
whose defaults the CLI shows without loading them."""

from __future__ import annotations

#: Upper bound of integers that select stored rows (values, depths, offsets): the 64-bit range
#: the databases store.
MAX_STORED_INT = 2**63 - 1

#: Most elements a misère quotient may have before the computation stops (``--max-size``).
QUOTIENT_MAX_SIZE = 1_024
#: Most positions and (element, option set) pairs a quotient's computation may hold
#: (``--max-states``).
QUOTIENT_MAX_STATES = 500_000

#: Seconds a command may run before it stops with an error naming ``--max-seconds`` (0: no
#: bound). Every command but ``serve`` takes the option; a build or a stored sequence stopped
#: by it keeps what it wrote and continues from there when run again.
DEFAULT_MAX_SECONDS = 600
