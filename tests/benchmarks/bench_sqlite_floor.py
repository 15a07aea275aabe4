"""Benchmark: what SQLite itself costs to store a big game graph in explorer's schema.

This is a floor under issue 3's goal (100,000 states/s end to end for a build of at least 1M
states and 5M edges). The schema keeps a row per edge, an index to find a state's predecessors
(edges by destination), a unique key per state, and updates each state's values in place once
it is solved. Here only SQLite's own work is timed: every parameter and JSON text is prepared
before the clock starts, and rows go in through sqlite3 in transactions sized like the
builder's (50,000 states, about 300,000 edges), each step in a fresh file:

    a  insert the states, values NULL, with the unique (game_id, key) index (executemany and
       multi-row VALUES statements compared)      b  the same without that index
    c  update every state's values in place       d  insert the edges, primary key only
    e  the same with the destination index        f  the same into a plain rowid table

States / (a + c + e) is then the best end-to-end rate any build could reach with the required
schema, even if generating the graph took no time at all.

    python tests/benchmarks/bench_sqlite_floor.py            # 1,004,731 states, about 6M edges
    python tests/benchmarks/bench_sqlite_floor.py --quick    # a smaller graph, for a smoke run

Measured: about 12.5 s per million states, mostly the predecessors' index, the unique position key,
and the values written once the end of the game is reached. Figures vary with the machine's load
(printed at the top and the end); each step keeps its best of ``--rounds``, every run in a fresh
database file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from explorer import open_database
from explorer.storage.backends.bulk import STATE_COLUMNS
from explorer.storage.backends.engine import SQLITE_PRAGMAS

#: Subtraction game S = {1, 2} on three heaps of 180: every multiset of three heaps <= 180.
SPEC, POSITION = "subtraction:1,2", "180,180,180"
QUICK_POSITION = "60,60,60"
STATES_PER_TRANSACTION = 50_000
EDGES_PER_TRANSACTION = 300_000
ROUNDS = 2

#: Columns a build fills in once a state is solved; NULL when the state is first inserted.
VALUE_COLUMNS = ("grundy", "outcome", "remoteness", "height", "value_build_id")
#: Tables the foreign keys of ``states`` point to, created and filled in every fresh file.
PARENT_TABLES = ("games", "builds")
DST_INDEX = "ix_edges_game_id_dst_src"
#: SQLite's compiled-in parameter limit since 3.32; builds may raise it (Python's often do),
#: and a longer statement text is not always faster, so both sizes are tried.
DEFAULT_MAX_VARIABLES = 32_766

INSERT_STATE = f"INSERT INTO states ({', '.join(STATE_COLUMNS)}) VALUES "
ONE_STATE = "(" + ", ".join("?" * len(STATE_COLUMNS)) + ")"
UPDATE_VALUES = (
    "UPDATE states SET grundy = ?, outcome = ?, remoteness = ?, height = ?, "
    "value_build_id = ?, expanded = 1 WHERE game_id = ? AND id = ?"
)
INSERT_EDGES = (
    "INSERT INTO edges (game_id, src, dst) "
    "SELECT ?, value >> 32, value & 4294967295 FROM json_each(?)"
)
PLAIN_EDGES = (
    "CREATE TABLE edges (game_id INTEGER NOT NULL, src INTEGER NOT NULL, dst INTEGER NOT NULL)"
)


@dataclass(frozen=True)
class Rows:
    """Everything a build writes: new state rows, their values, and packed edges."""

    game_id: int
    states: list[tuple[Any, ...]]  # STATE_COLUMNS order, values NULL
    values: list[tuple[Any, ...]]  # UPDATE_VALUES parameters
    packed: np.ndarray  # src << 32 | dst, ordered by src, dst


@dataclass(frozen=True)
class Schema:
    """DDL of the migrated database, and the parent rows the foreign keys need."""

    parents: list[tuple[str, str, list[tuple[Any, ...]]]]  # (table, DDL, rows)
    states: str
    edges: str
    indexes: dict[str, str]  # index name -> DDL, on states and edges

    def states_without_key(self) -> str:
        ddl, count = re.subn(r",\s*CONSTRAINT\s+\w+\s+UNIQUE\s*\([^)]*\)", "", self.states)
        assert count == 1, f"expected one UNIQUE constraint in {self.states!r}"
        return ddl


@dataclass(frozen=True)
class Statement:
    """One prepared statement: executed once, or with `many` once per parameter row."""

    sql: str
    params: Sequence[Any]
    many: bool = False


Transaction = list[Statement]


def megabytes(path: Path) -> float:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*")) / 2**20


def remove(path: Path) -> None:
    for file in path.parent.glob(path.name + "*"):
        file.unlink()


def build(path: Path, position: str) -> float:
    started = time.perf_counter()
    with open_database(str(path)) as db:
        report = db.game(SPEC).build(position)
    assert report.status == "complete" and report.grundy is not None
    return time.perf_counter() - started


def read_schema(conn: sqlite3.Connection) -> Schema:
    found = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master "
        "WHERE sql IS NOT NULL AND type IN ('table', 'index')"
    ).fetchall()
    tables = {name: sql for kind, name, _, sql in found if kind == "table"}
    indexes = {
        name: sql
        for kind, name, table, sql in found
        if kind == "index" and table in ("states", "edges")
    }
    parents = [
        (table, tables[table], conn.execute(f"SELECT * FROM {table}").fetchall())
        for table in PARENT_TABLES
    ]
    return Schema(parents, tables["states"], tables["edges"], indexes)


def read_rows(conn: sqlite3.Connection) -> Rows:
    stored = conn.execute(f"SELECT {', '.join(STATE_COLUMNS)} FROM states ORDER BY id").fetchall()
    nulls = {STATE_COLUMNS.index(c) for c in VALUE_COLUMNS}
    states = [tuple(None if i in nulls else v for i, v in enumerate(row)) for row in stored]
    picks = [STATE_COLUMNS.index(c) for c in (*VALUE_COLUMNS, "game_id", "id")]
    values = [tuple(row[i] for i in picks) for row in stored]
    cursor = conn.execute("SELECT src << 32 | dst FROM edges ORDER BY game_id, src, dst")
    packed = np.fromiter((v for (v,) in cursor), dtype=np.int64)
    (game_id,) = {row[0] for row in stored}
    return Rows(game_id, states, values, packed)


def parts(rows: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def states_executemany(rows: Rows) -> list[Transaction]:
    sql = INSERT_STATE + ONE_STATE
    return [
        [Statement(sql, part, many=True)] for part in parts(rows.states, STATES_PER_TRANSACTION)
    ]


def states_multirow(rows: Rows, per: int) -> list[Transaction]:
    """Multi-row ``INSERT ... VALUES (...), (...)`` statements of `per` rows each."""
    texts: dict[int, str] = {}  # one text per length, so sqlite3's statement cache finds it
    transactions = []
    for batch in parts(rows.states, STATES_PER_TRANSACTION):
        statements = []
        for chunk in parts(batch, per):
            if len(chunk) not in texts:
                texts[len(chunk)] = INSERT_STATE + ", ".join([ONE_STATE] * len(chunk))
            statements.append(Statement(texts[len(chunk)], tuple(chain.from_iterable(chunk))))
        transactions.append(statements)
    return transactions


def value_updates(rows: Rows) -> list[Transaction]:
    return [
        [Statement(UPDATE_VALUES, part, many=True)]
        for part in parts(rows.values, STATES_PER_TRANSACTION)
    ]


def edge_inserts(rows: Rows) -> list[Transaction]:
    return [
        [Statement(INSERT_EDGES, (rows.game_id, json.dumps(part.tolist())))]
        for part in parts(rows.packed, EDGES_PER_TRANSACTION)
    ]


def connect(path: Path, schema: Schema, ddl: Sequence[str]) -> sqlite3.Connection:
    """A fresh database file with explorer's pragmas, the parent rows, and the given tables."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    for pragma in SQLITE_PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    conn.execute("BEGIN")
    for table, create, parent_rows in schema.parents:
        conn.execute(create)
        marks = ", ".join("?" * len(parent_rows[0]))
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", parent_rows)
    for statement in ddl:
        conn.execute(statement)
    conn.execute("COMMIT")
    return conn


def run(conn: sqlite3.Connection, transactions: Sequence[Transaction]) -> float:
    """Seconds SQLite takes for the prepared statements, one transaction per batch."""
    started = time.perf_counter()
    for statements in transactions:
        conn.execute("BEGIN")
        for s in statements:
            if s.many:
                conn.executemany(s.sql, s.params)
            else:
                conn.execute(s.sql, s.params)
        conn.execute("COMMIT")
    return time.perf_counter() - started


def count(conn: sqlite3.Connection, sql: str) -> int:
    return int(conn.execute(sql).fetchone()[0])


class Bench:
    """Runs each step in a fresh file and keeps the best time of each."""

    def __init__(self, folder: Path, schema: Schema, rows: Rows) -> None:
        self.path = folder / "floor.db"
        self.schema = schema
        self.rows = rows
        self.best: dict[str, float] = {}
        with closing(sqlite3.connect(":memory:")) as conn:
            limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        self.inserts = {"executemany": states_executemany(rows)}
        for parameters in sorted({min(limit, DEFAULT_MAX_VARIABLES), limit}):
            per = parameters // len(STATE_COLUMNS)
            self.inserts[f"multi-row, {per:,} rows/stmt"] = states_multirow(rows, per)
        self.updates = value_updates(rows)
        self.edges = edge_inserts(rows)

    def keep(self, step: str, seconds: float) -> None:
        self.best[step] = min(seconds, self.best.get(step, float("inf")))

    def fastest_insert(self) -> str:
        return min(self.inserts, key=lambda method: self.best[f"a {method}"])

    def in_fresh_file(self, ddl: Sequence[str], work: Callable[[sqlite3.Connection], None]) -> None:
        with closing(connect(self.path, self.schema, ddl)) as conn:
            work(conn)
        remove(self.path)

    def indexes(self, drop: str = "") -> list[str]:
        return [sql for name, sql in self.schema.indexes.items() if name != drop]

    def insert_states(self, step: str, method: str) -> Callable[[sqlite3.Connection], None]:
        def work(conn: sqlite3.Connection) -> None:
            self.keep(step, run(conn, self.inserts[method]))
            assert count(conn, "SELECT COUNT(*) FROM states") == len(self.rows.states)

        return work

    def insert_edges(self, step: str) -> Callable[[sqlite3.Connection], None]:
        def work(conn: sqlite3.Connection) -> None:
            self.keep(step, run(conn, self.edges))
            assert count(conn, "SELECT COUNT(*) FROM edges") == len(self.rows.packed)

        return work

    def required(self, method: str) -> None:
        """a, c and e in one file, in a build's order: insert states, update them, add edges."""
        insert, edges = self.insert_states(f"a {method}", method), self.insert_edges("e")

        def work(conn: sqlite3.Connection) -> None:
            insert(conn)
            self.keep("c", run(conn, self.updates))
            assert count(conn, "SELECT COUNT(grundy) FROM states") == len(self.rows.states)
            edges(conn)

        self.in_fresh_file([self.schema.states, self.schema.edges, *self.indexes()], work)

    def round(self) -> None:
        for method in self.inserts:
            self.in_fresh_file([self.schema.states], self.insert_states(f"a {method}", method))
        fastest = self.fastest_insert()
        self.required(fastest)
        keyless = [self.schema.states_without_key()]
        self.in_fresh_file(keyless, self.insert_states("b", fastest))
        self.in_fresh_file(
            [self.schema.edges, *self.indexes(drop=DST_INDEX)], self.insert_edges("d")
        )
        self.in_fresh_file([PLAIN_EDGES], self.insert_edges("f"))


def report(bench: Bench, rounds: int) -> None:
    states, edges = len(bench.rows.states), len(bench.rows.packed)
    best, fastest = bench.best, bench.fastest_insert()
    lines = [(f"a {method}", f"states, key index, {method}", states) for method in bench.inserts]
    lines += [
        ("b", f"states, no key index, {fastest}", states),
        ("c", "update values of every state, executemany", states),
        ("d", "edges, primary key only, json_each", edges),
        ("e", "edges, primary key + destination index", edges),
        ("f", "edges, plain rowid table, no key (floor)", edges),
    ]
    print(f"\nSQLite's own time, best of {rounds} (SQLite {sqlite3.sqlite_version})")
    print(f"  {'step':<54} {'rows':>10} {'s':>7} {'µs/row':>7}")
    for step, label, rows in lines:
        mark = "  <- fastest" if step == f"a {fastest}" else ""
        seconds = best[step]
        per_row = 1e6 * seconds / rows
        print(f"  {step[0]}  {label:<51} {rows:>10,} {seconds:>7.2f} {per_row:>7.2f}{mark}")
    a, b, c, d, e, f = (best[s] for s in (f"a {fastest}", "b", "c", "d", "e", "f"))
    total = a + c + e
    print(f"  key index costs (a - b)          {a - b:>6.2f} s")
    print(f"  destination index costs (e - d)  {e - d:>6.2f} s")
    print(f"  edge primary key costs (d - f)   {d - f:>6.2f} s")
    print(
        f"  a + c + e (required schema)      {total:>6.2f} s   {1e6 * total / states:.2f} µs/state"
    )
    print(f"  ceiling states / (a + c + e)     {states / total:>10,.0f} states/s   (goal 100,000)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"build {QUICK_POSITION} instead")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="runs of each step")
    args = parser.parse_args()
    position = QUICK_POSITION if args.quick else POSITION
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "built.db"
        seconds = build(built, position)
        with closing(sqlite3.connect(built)) as conn:
            schema, rows = read_schema(conn), read_rows(conn)
        print(
            f"built {SPEC} {position} with explorer in {seconds:.1f} s: "
            f"{len(rows.states):,} states, {len(rows.packed):,} edges, {megabytes(built):.0f} MiB"
        )
        print(
            f"transactions of {STATES_PER_TRANSACTION:,} states, "
            f"{EDGES_PER_TRANSACTION:,} edges; pragmas journal_mode = WAL, "
            + ", ".join(SQLITE_PRAGMAS)
        )
        remove(built)
        bench = Bench(Path(tmp), schema, rows)
        for _ in range(args.rounds):
            bench.round()
        report(bench, args.rounds)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
