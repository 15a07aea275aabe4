"""Bulk reads and writes of states: driver executemany on SQLite, COPY on PostgreSQL (the
moves, packed in the states' rows, are `explorer.storage.rows.moves`').

The ORM is kept for small tables; rows by the million go straight to the driver, with ids the
builder assigned itself, so nothing is ever fetched back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, repeat
from typing import NamedTuple

import numpy as np
import sqlalchemy as sa

from explorer.solver import outcome
from explorer.storage.tables import states as states_table

#: Parameters per multi-row statement at most, whatever the library allows: a statement text
#: grows with its rows, and SQLite parses each new length once.
MAX_PARAMETERS = 32_766

#: Rows a statement at most of what is left of a multi-row insert after its largest statements.
#: The driver keeps each statement it prepares (128 a connection), and one of thousands of rows
#: takes megabytes prepared: a remainder of another length every batch held 148 MB of a 1M-state
#: build (4 MB a statement); a few sizes keep a few statements.
ROWS_LEFT = (512, 16, 1)

#: Per-statement options that stream a large result in partitions on every dialect.
STREAM = {"yield_per": 100_000}


class StateRow(NamedTuple):
    """A new state row, in the order the writers take its columns."""

    game_id: int
    id: int
    key: str
    depth: int
    expanded: bool
    grundy: int | None
    outcome: str | None
    remoteness: int | None
    height: int | None
    build_id: int
    value_build_id: int | None


#: Columns of a new state row, in the order the writers take them.
STATE_COLUMNS = StateRow._fields

#: A row as the writers take it: a `StateRow`, or a plain tuple of the same fields
#: in the same order. Rows by the million are plain tuples: making a NamedTuple costs about six
#: times as much, and the writers read rows by position only.
Row = tuple[object, ...]

#: Value rows made at a time. The values of a whole graph often come at once (a build's last
#: batch may solve every state): they are kept as columns and written this many rows at a time,
#: so a million values never stand as a million Python tuples.
VALUE_CHUNK = 50_000


@dataclass(frozen=True)
class ValueColumns:
    """New values of stored states, as columns (`value_columns` makes them); the SQLite writer
    takes them as rows, `VALUE_CHUNK` at a time."""

    ids: np.ndarray
    grundy: np.ndarray
    remoteness: np.ndarray
    height: np.ndarray
    build_id: int
    game_id: int

    def __len__(self) -> int:
        return len(self.ids)

    def rows(self) -> Iterator[list[tuple[int, int, int, int]]]:
        """Rows (grundy, remoteness, height, id) in lists of at most `VALUE_CHUNK`."""
        size = VALUE_CHUNK
        for first in range(0, len(self.ids), size):
            part = slice(first, first + size)
            yield list(
                zip(
                    self.grundy[part].tolist(),
                    self.remoteness[part].tolist(),
                    self.height[part].tolist(),
                    self.ids[part].tolist(),
                    strict=True,
                )
            )


@dataclass(frozen=True)
class NewStates:
    """New state rows as columns, as a build makes them: the states `ids`, their `keys`,
    `depth` and `expanded` flags, and their values where known (`grundy` -1 where not: the
    value columns are then NULL); every row of one game and one build."""

    game_id: int
    build_id: int
    ids: np.ndarray
    keys: list[str]
    depth: np.ndarray
    expanded: np.ndarray
    grundy: np.ndarray
    remoteness: np.ndarray
    height: np.ndarray
    #: Every state's moves packed (`explorer.storage.rows.moves.packed_runs`), when the rows
    #: are written whole: those of solved states only.
    successors: list[bytes | None] | None = None
    predecessors: list[bytes | None] | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def rows(self) -> list[Row]:
        """The rows, in `STATE_COLUMNS` order.

        Examples
        --------
        >>> new = NewStates(3, 7, np.array([5, 6]), ["1", "2"], np.array([1, 1]),
        ...                 np.array([False, True]), np.array([-1, 0]), np.array([-1, 0]),
        ...                 np.array([-1, 0]))
        >>> unsolved, solved = new.rows()
        >>> unsolved
        (3, 5, '1', 1, False, None, None, None, None, 7, None)
        >>> solved
        (3, 6, '2', 1, True, 0, 'P', 0, 0, 7, 7)
        """
        g = self.grundy
        unsolved = g < 0
        return list(
            zip(
                repeat(self.game_id),
                self.ids.tolist(),
                self.keys,
                self.depth.tolist(),
                self.expanded.tolist(),
                _with_nulls(g, unsolved),
                _with_nulls(outcome(g), unsolved),
                _with_nulls(self.remoteness, unsolved),
                _with_nulls(self.height, unsolved),
                repeat(self.build_id),
                _with_nulls(np.full(len(g), self.build_id, dtype=np.int64), unsolved),
                strict=False,
            )
        )


def _with_nulls(values: np.ndarray, missing: np.ndarray) -> list[object]:
    """``values`` as Python objects, None where ``missing``."""
    column = values.astype(object)
    column[missing] = None
    return column.tolist()  # type: ignore[no-any-return]


def interleaved(columns: Sequence[Sequence[object] | np.ndarray]) -> list[object]:
    """The columns' values row after row, as one flat list of Python objects (the parameters
    of a multi-row statement), made by numpy rather than a tuple per row.

    Examples
    --------
    >>> interleaved([np.array([1, 2]), ["a", "b"]])
    [1, 'a', 2, 'b']
    """
    width = len(columns)
    flat = np.empty(width * len(columns[0]), dtype=object)
    for i, column in enumerate(columns):
        flat[i::width] = column.tolist() if isinstance(column, np.ndarray) else column
    return flat.tolist()


def value_columns(
    ids: np.ndarray,
    grundy: np.ndarray,
    remoteness: np.ndarray,
    height: np.ndarray,
    *,
    build_id: int,
    game_id: int,
) -> ValueColumns:
    """Updates for the states `ids`, their values taken now from arrays indexed by id.

    Examples
    --------
    >>> values = value_columns(np.array([1]), np.array([2, 0]), np.array([1, 0]),
    ...                        np.array([1, 0]), build_id=7, game_id=3)
    >>> list(values.rows())
    [[(0, 0, 0, 1)]]
    """
    return ValueColumns(ids, grundy[ids], remoteness[ids], height[ids], build_id, game_id)


class BulkWriter:
    """Writes one batch inside the caller's transaction, the fastest way the dialect allows."""

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection

    def insert_states(self, rows: Sequence[Row]) -> None:
        """Insert new state rows (`STATE_COLUMNS` order)."""
        raise NotImplementedError

    def insert_new_states(self, states: NewStates) -> None:
        """Insert a build's new states (as rows, unless the dialect does better)."""
        self.insert_states(states.rows())

    def update_values(self, values: ValueColumns, depth: np.ndarray | None = None) -> None:
        """Set the values of stored states (and their `depth`, one a state, when given); also
        marks them expanded."""
        raise NotImplementedError

    def mark_expanded(self, game_id: int, runs: Sequence[tuple[int, int]]) -> None:
        """Flag the states with ids in each inclusive run ``(first, last)`` as expanded."""
        if runs:
            self.connection.execute(
                states_table.MARK_EXPANDED,
                [{"yes": True, "g": game_id, "first": a, "last": b} for a, b in runs],
            )


class SQLiteWriter(BulkWriter):
    """Few statements per batch on the sqlite3 driver, each doing thousands of rows.

    States go in as multi-row ``INSERT ... VALUES (...), (...)`` statements, as many rows as
    the library allows parameters: 1.7x executemany, and the driver leaves the GIL while
    SQLite works, so a build generates its next batch meanwhile.
    """

    def _rows_per_statement(self, columns: int) -> int:
        raw = self.connection.connection.driver_connection
        limit: int = raw.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)  # type: ignore[union-attr]
        return max(1, min(limit, MAX_PARAMETERS) // columns)

    def insert_states(self, rows: Sequence[Row]) -> None:
        self._insert_rows(STATE_COLUMNS, "(" + ", ".join("?" * len(STATE_COLUMNS)) + ")", rows)

    def insert_new_states(self, states: NewStates) -> None:
        """Insert a build's new states with as few parameters as their rows need: the game and
        the build are written into the statement, and a state without a value gets only its
        id, key, depth and expanded flag (its value columns are NULL by default). A 1M-state
        build's states went in in 0.9 s so, against 2.9 s with every column a parameter."""
        game, build = int(states.game_id), int(states.build_id)
        solved = states.grundy >= 0
        mixed = solved.any() and not solved.all()
        keys = np.array(states.keys, dtype=object) if mixed else states.keys
        if not solved.all():
            part = np.flatnonzero(~solved)
            columns = [states.ids[part], keys[part] if mixed else keys]
            columns += [states.depth[part], states.expanded[part]]
            self._insert_rows(
                ("game_id", "build_id", "id", "key", "depth", "expanded"),
                f"({game}, {build}, ?, ?, ?, ?)",
                interleaved(columns),
                width=len(columns),
            )
        if solved.any():
            part = np.flatnonzero(solved)
            g = states.grundy[part]
            values: list[Sequence[object] | np.ndarray] = [
                states.ids[part],
                keys[part] if mixed else keys,
                states.depth[part],
                g,
                outcome(g),
                states.remoteness[part],
                states.height[part],
            ]
            names: tuple[str, ...] = ("id", "key", "depth", "grundy", "outcome", "remoteness")
            names += ("height",)
            if states.successors is not None and states.predecessors is not None:
                assert not mixed, "rows written whole are every one solved"
                values += [states.successors, states.predecessors]
                names = (*names, "successors", "predecessors")
            self._insert_rows(
                ("game_id", "build_id", "value_build_id", "expanded", *names),
                f"({game}, {build}, {build}, 1, {', '.join('?' * len(names))})",
                interleaved(values),
                width=len(values),
            )

    def _insert_rows(
        self,
        columns: Sequence[str],
        one: str,
        rows: Sequence[Row] | list[object],
        width: int | None = None,
    ) -> None:
        """Multi-row inserts of `rows` (or of a flat list of parameters, `width` a row) into
        `columns`, `one` the values of one row, as many rows a statement as the library
        allows parameters; what is left after the largest statements goes in statements of
        `ROWS_LEFT` sizes (see there)."""
        per = self._rows_per_statement(width or len(columns))
        head = states_table.insert_head(columns)
        flat = [*chain.from_iterable(rows)] if width is None else rows  # type: ignore[arg-type]
        width = width or len(columns)
        start, total = 0, len(flat) // width
        for size in (per, *ROWS_LEFT):
            sql = head + ", ".join(repeat(one, size))
            while total - start >= size:
                self.connection.exec_driver_sql(
                    sql, tuple(flat[start * width : (start + size) * width])
                )
                start += size

    def update_values(self, values: ValueColumns, depth: np.ndarray | None = None) -> None:
        # the build and the game written into the statement, the outcome found from the
        # value: four parameters a row rather than seven
        sql = states_table.set_values_sqlite(values.game_id, values.build_id, depth is not None)
        depths = None if depth is None else depth.tolist()
        at = 0
        for rows in values.rows():
            if depths is None:
                self.connection.exec_driver_sql(sql, rows)
                continue
            part = depths[at : at + len(rows)]
            at += len(rows)
            self.connection.exec_driver_sql(
                sql, [(*row, d) for row, d in zip(rows, part, strict=True)]
            )


#: PostgreSQL's binary COPY: the signature, flags and header extension, then the rows, then -1.
COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
COPY_TRAILER = b"\xff\xff"


def binary_copy(columns: Sequence[np.ndarray]) -> bytes:
    """Rows of integer `columns` as the body of a PostgreSQL binary COPY (every field a
    big-endian 32-bit integer, no NULL), made by numpy without a Python object per row.

    Examples
    --------
    >>> body = binary_copy([np.array([7]), np.array([-1])])
    >>> body[19:].hex()
    '0002000000040000000700000004ffffffffffff'
    """
    fields: list[tuple[str, str]] = [("count", ">i2")]
    for i in range(len(columns)):
        fields += [(f"size{i}", ">i4"), (f"value{i}", ">i4")]
    rows = np.empty(len(columns[0]), dtype=np.dtype(fields))
    rows["count"] = len(columns)
    for i, column in enumerate(columns):
        rows[f"size{i}"] = 4
        rows[f"value{i}"] = column
    return COPY_HEADER + rows.tobytes() + COPY_TRAILER


class PostgresWriter(BulkWriter):
    """COPY FROM STDIN through psycopg 3 (4x executemany): states row by row, values in binary
    made by numpy, through a temporary table.
    """

    def _copy(self, sql: str, rows: Iterator[Sequence[object]]) -> None:
        raw = self.connection.connection.driver_connection
        with raw.cursor() as cursor:  # type: ignore[union-attr]
            with cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(row)

    def _copy_binary(self, sql: str, body: bytes) -> None:
        raw = self.connection.connection.driver_connection
        with raw.cursor() as cursor:  # type: ignore[union-attr]
            with cursor.copy(sql) as copy:
                copy.write(body)

    def insert_states(self, rows: Sequence[Row]) -> None:
        if rows:
            self._copy(states_table.copy_in(STATE_COLUMNS), iter(rows))

    def insert_new_states(self, states: NewStates) -> None:
        if states.successors is None or states.predecessors is None:
            self.insert_states(states.rows())
        elif len(states):
            rows = zip(states.rows(), states.successors, states.predecessors, strict=True)
            columns = (*STATE_COLUMNS, "successors", "predecessors")
            self._copy(states_table.copy_in(columns), ((*row, s, p) for row, s, p in rows))

    def update_values(self, values: ValueColumns, depth: np.ndarray | None = None) -> None:
        if not len(values):
            return
        self.connection.exec_driver_sql(states_table.CREATE_NEW_VALUES)
        columns = [values.ids, values.grundy, values.remoteness, values.height]
        names = ["id", "grundy", "remoteness", "height"]
        if depth is not None:
            columns.append(depth)
            names.append("depth")
        self._copy_binary(states_table.copy_values(names), binary_copy(columns))
        self.connection.exec_driver_sql(
            states_table.set_values_from(depth is not None),
            {"build": values.build_id, "game": values.game_id},
        )
        self.connection.exec_driver_sql(f"TRUNCATE {states_table.NEW_VALUES}")


def writer_class(dialect: str) -> type[BulkWriter]:
    """The bulk writer for a dialect (``sqlite`` or ``postgresql``)."""
    return PostgresWriter if dialect == "postgresql" else SQLiteWriter


def writer_for(connection: sa.Connection) -> BulkWriter:
    """The bulk writer for the connection's dialect."""
    return writer_class(connection.dialect.name)(connection)


def partitions(
    connection: sa.Connection, sql: str, params: dict[str, object]
) -> Iterator[Sequence[Sequence[object]]]:
    """The rows of a query in lists of `STREAM` size, streamed on every dialect."""
    size = STREAM["yield_per"]
    if connection.dialect.name != "sqlite":
        yield from connection.execute(sa.text(sql), params, execution_options=STREAM).partitions(
            size
        )
        return
    # the driver's cursor behind a statement that opens the caller's transaction (a bare
    # driver cursor would read outside it): SQLAlchemy's rows cost 1 µs each
    result = connection.exec_driver_sql(sql, params)
    try:
        while rows := result.cursor.fetchmany(size):
            yield rows
    finally:
        result.close()


def read_int_columns(
    connection: sa.Connection, sql: str, params: dict[str, object], columns: int
) -> list[np.ndarray]:
    """Stream an all-integer query into one int64 array per column (NULL becomes -1).

    Rows are fetched in partitions (``yield_per``), so the same code streams on PostgreSQL.
    The option is given to this statement only: ``Connection.execution_options`` would switch
    the caller's connection itself to server-side cursors, and PostgreSQL then refuses its
    next write ("DECLARE CURSOR ... FOR INSERT").

    Examples
    --------
    >>> engine = sa.create_engine("sqlite://")
    >>> with engine.connect() as conn:
    ...     read_int_columns(conn, "SELECT 1, NULL UNION ALL SELECT 2, 5", {}, 2)[1].tolist()
    [-1, 5]
    """
    chunks: list[np.ndarray] = []
    for partition in partitions(connection, sql, params):
        count = len(partition) * columns
        try:
            flat = np.fromiter(chain.from_iterable(partition), dtype=np.int64, count=count)
        except TypeError:  # a NULL in this partition
            values = chain.from_iterable(partition)
            flat = np.fromiter((-1 if v is None else v for v in values), np.int64, count)
        chunks.append(flat.reshape(-1, columns))
    table = np.concatenate(chunks) if chunks else np.empty((0, columns), dtype=np.int64)
    return [np.ascontiguousarray(table[:, i]) for i in range(columns)]
