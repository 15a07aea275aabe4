"""Shards: files of new states' rows that worker processes write beside an SQLite database,
each in a file of its own, and the database takes in whole, one statement a file.

SQLite has one writer at a time, and a row inserted from Python costs its parameters and its
statement's share; a worker writes a shard's rows in parallel with the others, and the
database takes them with ``INSERT ... SELECT`` from the attached file, with no Python per
row: 1M rows of a build took 1.6 s of CPU to write into a shard, and 0.6 s to take in.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa

from explorer.storage.backends.bulk import NewStates, SQLiteWriter
from explorer.storage.tables import states as states_table


def write_shard(path: Path, states: NewStates) -> None:
    """Write the rows `states` (solved, whole) into a new shard file at `path`. The file is
    scratch: no journal, no waiting for the disk.

    Examples
    --------
    >>> import tempfile, numpy as np
    >>> path = Path(tempfile.mkdtemp()) / "shard.db"
    >>> one = np.array([1, 0])
    >>> write_shard(path, NewStates(1, 1, np.array([5, 6]), ["1", "0"], one, one, one, one,
    ...                             one, [b"\\x81", None], [None, b"\\x7f"]))
    >>> read = states_table.by_id("id", "key", "outcome")  # the shard holds game 1's rows
    >>> sqlite3.connect(path).execute(read, {"g": 1}).fetchall()
    [(5, '1', 'N'), (6, '0', 'P')]
    """
    engine = sa.create_engine(f"sqlite:///{path}", poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("PRAGMA journal_mode = OFF")
            conn.exec_driver_sql("PRAGMA synchronous = OFF")
            conn.exec_driver_sql(states_table.CREATE_SHARD)
            SQLiteWriter(conn).insert_new_states(states)
    finally:
        engine.dispose()


@contextmanager
def attached(conn: sa.Connection, path: Path) -> Iterator[None]:
    """The shard at `path` attached to `conn` as ``shard`` (SQLite attaches a file outside a
    transaction only: call before the connection begins one)."""
    raw = conn.connection.driver_connection
    assert isinstance(raw, sqlite3.Connection), "shards fold into an SQLite database"
    raw.execute("ATTACH DATABASE ? AS shard", (str(path),))
    try:
        yield
    finally:
        raw.execute("DETACH DATABASE shard")


def fold_shard(conn: sa.Connection) -> None:
    """Take every row of the attached shard into the states table."""
    conn.exec_driver_sql(states_table.FOLD_SHARD)
