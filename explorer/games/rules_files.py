"""The files of games written in Python, read once while a game loads or a build runs (see
`files_read_once`): a build of a ``py:`` game reads and hashes its file once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: The rules files read so far while a game loads (see `files_read_once`), by resolved path.
_READ: ContextVar[dict[str, bytes] | None] = ContextVar("explorer_rules_read", default=None)


@contextmanager
def files_read_once() -> Iterator[None]:
    """While it lasts, each rules file is read once: its fingerprint, its game's names and its
    lines are all taken from the bytes of that read (the import reads it once more, and a
    game loaded again is not imported again). Loading a ``py:`` game and a build each read
    within one. Also a decorator.

    Examples
    --------
    >>> with files_read_once():
    ...     read_rules_file("data/stones.py") is read_rules_file("data/stones.py")
    True
    """
    if _READ.get() is not None:  # within another: its reads are kept
        yield
        return
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def read_rules_file(path: str) -> bytes:
    """The bytes of a rules file (read once while `files_read_once` lasts).

    Raises
    ------
    OSError
        When the file cannot be read.
    """
    read = _READ.get()
    key = os.path.realpath(path)
    if read is not None and key in read:
        return read[key]
    with open(path, "rb") as source:
        data = source.read()
    if read is not None:
        read[key] = data
    return data
