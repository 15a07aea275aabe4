"""Benchmark: what each candidate storage layout costs SQLite, and what the rest of a build costs.

Issue 12 asks for builds 2.5x faster than today's with at most 400 bytes of memory per state,
and allows any layout that keeps positions findable by text, neighbours in <= 1 ms, views for
the sqlite3 shell, incremental edits and resume. This script measures the layouts on the real
graph (``subtraction:1,2`` on 180,180,180: 1,004,731 states, 5,913,089 moves), built once with
explorer and then held as numpy arrays. Every layout is written with plain sqlite3 into a fresh
file with explorer's pragmas, in transactions sized like a build's (50,000 states, 300,000
moves), rows as multi-row ``INSERT ... VALUES`` statements (explorer's fastest way). Making the
parameters is timed apart ("prep", Python work a build does on its main thread); "SQLite" is
the time inside sqlite3 only.

    A   today's schema: states inserted as found (values NULL, unique text key index), their
        values updated in place once solved, an edge row per move with a destination index.
    B   values written once with the state, when it is solved (no UPDATE pass); the unique
        text key index as today; edge rows as today.
    B2  state rows as found (as today) and values in a table of their own, inserted once when
        solved (a view joins them): no UPDATE, and the state row exists from the start.
    C   B, but the unique key index created after the bulk load. Until it exists a reader
        finds a position by text only by scanning, and nothing refuses a duplicate key; a build
        killed before the end leaves a file without the index (the next open must create it).
    D1  an integer position code as the unique key (for heap games the sorted heaps in mixed
        radix, as expansion.HeapIndex ranks them); the text kept as a plain unindexed column.
    D2  D1 with the text dropped: a reader computes it from the code (games that rank only).
    D3  the code itself as the primary key (no separate id, no second index); moves by codes.
    E   successor lists packed per state, as text "3,17,42", in the state row (written once
        with the values), no edge rows; predecessor lists built in one sorted pass (numpy
        argsort by destination) and written once at the end into a table of their own. The
        views that unpack them for the sqlite3 shell use json_each (SQLite >= 3.38; PostgreSQL
        would use unnest(string_to_array(...))).
    Eb  E with the lists as BLOBs of little-endian int32 ids (no SQL view can unpack them).
    Eu  E with the predecessor lists written by an UPDATE of the state rows at the end.
    F1  C + E: values once, text key indexed after the load, packed successor/predecessor lists.
    F2  D2 + E: values once, integer code key, no text, packed lists.
    F3  D3 + E: the code as the primary key, packed lists of codes.
    G   B2 + E: a state row written once when the state is expanded (its successor list is
        known then), in id order; values inserted into their own table once solved;
        predecessor lists at the end. Unlike B..F, nothing waits for the solve (most states
        of this graph are first solvable in the build's last batches).
    G2  G with the key index created after the load.

On the last round the files of A and F1 are kept for reads: one state's successors and
predecessors found by text (mean over random states, must be <= 1 ms), a depth-3
neighbourhood in both directions, and every move read through the ``moves`` view.

The non-SQLite part of today's build is timed in a child process (so its peak memory is its
own): explorer's GraphBuilder with its writer replaced by one that writes nothing, with the
generation (``_expand_batch``), solving (``_solve``) and row making (``_rows``) timed inside.

    python tests/benchmarks/bench_storage_designs.py            # 1,004,731 states, best of 3
    python tests/benchmarks/bench_storage_designs.py --quick    # a smaller graph, for a smoke run

Figures vary with the machine's load (printed at the start and the end of each round); each
step keeps its best of ``--rounds``, every run in a fresh database file.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import numpy as np
from bench_sqlite_floor import (
    EDGES_PER_TRANSACTION,
    POSITION,
    QUICK_POSITION,
    SPEC,
    STATES_PER_TRANSACTION,
    Schema,
    Statement,
    Transaction,
    build,
    connect,
    megabytes,
    parts,
    read_schema,
    remove,
    run,
)

from explorer import open_database
from explorer.build.one_process import GraphBuilder
from explorer.build.plans import BATCH_MOVES
from explorer.games import load_game

ROUNDS = 3
#: The goals of issue 12 against d3cd961's build of the full graph: 2.5x faster, at most 400 B
#: of peak memory per state, a file no larger than its 232 MB (221 MiB).
SPEEDUP, GOAL_BYTES_PER_STATE, BASE_DB_MIB = 2.5, 400, 221
MAX_PARAMETERS = 32_766
LOOKUPS = 2_000
NEIGHBOURHOOD_DEPTH = 3

COMMON = (
    "depth INTEGER NOT NULL, expanded BOOLEAN NOT NULL, grundy INTEGER, outcome VARCHAR(1), "
    "remoteness INTEGER, height INTEGER, build_id INTEGER NOT NULL REFERENCES builds (id), "
    "value_build_id INTEGER REFERENCES builds (id), escapes TEXT"
)
GAME = "game_id INTEGER NOT NULL REFERENCES games (id)"
VALUE_NAMES = (
    "depth",
    "expanded",
    "grundy",
    "outcome",
    "remoteness",
    "height",
    "build_id",
    "value_build_id",
)
EDGES = (
    "CREATE TABLE edges (game_id INTEGER NOT NULL, src INTEGER NOT NULL, dst INTEGER NOT NULL, "
    "PRIMARY KEY (game_id, src, dst)) WITHOUT ROWID",
    "CREATE INDEX ix_edges_dst ON edges (game_id, dst, src)",
)
PREDECESSORS = (
    "CREATE TABLE predecessors (game_id INTEGER NOT NULL, id INTEGER NOT NULL, "
    "list {kind} NOT NULL, PRIMARY KEY (game_id, id)) WITHOUT ROWID"
)
INSERT_EDGES = (
    "INSERT INTO edges (game_id, src, dst) "
    "SELECT ?, value >> 32, value & 4294967295 FROM json_each(?)"
)
UPDATE_VALUES = (
    "UPDATE states SET grundy = ?, outcome = ?, remoteness = ?, height = ?, "
    "value_build_id = ?, expanded = 1 WHERE game_id = ? AND id = ?"
)
#: The moves view of the packed layouts: every move as two position texts. CROSS JOIN fixes
#: the join order: left to itself, SQLite 3.40 scans the key index for every list entry.
PACKED_MOVES_VIEW = (
    "CREATE VIEW moves AS SELECT g.spec AS game, a.key AS position, b.key AS move_to, "
    "b.grundy AS move_to_grundy, b.outcome AS move_to_outcome, g.convention "
    "FROM states AS a CROSS JOIN json_each('[' || a.succ || ']') AS j "
    "CROSS JOIN states AS b JOIN games AS g ON g.id = a.game_id "
    "WHERE b.game_id = a.game_id AND b.id = j.value"
)


@dataclass
class Graph:
    """The built graph as arrays indexed by state id (ids are 0 .. n - 1)."""

    game_id: int
    build_id: int
    keys: list[str]
    depth: np.ndarray
    grundy: np.ndarray
    outcome: list[str]
    remote: np.ndarray
    height: np.ndarray
    src: np.ndarray  # sorted by (src, dst)
    dst: np.ndarray
    code: np.ndarray  # the sorted heaps in mixed radix
    batch: np.ndarray = field(init=False)  # the build batch that expands each state
    solved_in: np.ndarray = field(init=False)  # the build batch that solves each state
    solve_order: np.ndarray = field(init=False)  # ids in the order a build solves them

    def __post_init__(self) -> None:
        self.batch, self.solved_in = simulate_batches(self.src, self.dst, self.height)
        self.solve_order = np.lexsort((np.arange(len(self.keys)), self.height, self.solved_in))

    @property
    def states(self) -> int:
        return len(self.keys)


def simulate_batches(
    src: np.ndarray, dst: np.ndarray, height: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The batch that expands each state (ids in order, a batch ending at 50,000 states or
    `BATCH_MOVES` moves, as the builder's) and the batch whose commit first holds its value
    (the latest of its own and its successors')."""
    n = len(height)
    degree = np.bincount(src, minlength=n)
    batch = np.empty(n, dtype=np.int64)
    start, number = 0, 0
    moves = np.concatenate([[0], np.cumsum(degree)])
    while start < n:
        by_moves = int(np.searchsorted(moves, moves[start] + BATCH_MOVES, "left"))
        end = min(n, start + STATES_PER_TRANSACTION, max(start + 1, by_moves))
        batch[start:end] = number
        start, number = end, number + 1
    solved = batch.copy()
    by_height = np.argsort(height[src], kind="stable")
    level_of = height[src][by_height]
    bounds = np.flatnonzero(np.diff(level_of)) + 1
    for chunk in np.split(by_height, bounds):
        np.maximum.at(solved, src[chunk], solved[dst[chunk]])
    return batch, solved


def read_graph(path: Path) -> Graph:
    with closing(sqlite3.connect(path)) as conn:
        rows = conn.execute(
            "SELECT game_id, build_id, id, key, depth, grundy, outcome, remoteness, height "
            "FROM states ORDER BY id"
        ).fetchall()
        edges = conn.execute("SELECT src << 32 | dst FROM edges ORDER BY src, dst").fetchall()
    game_id, build_id = rows[0][0], rows[0][1]
    ids = np.array([r[2] for r in rows])
    assert (ids == np.arange(len(rows))).all(), "ids are 0 .. n - 1"
    packed = np.fromiter((v for (v,) in edges), dtype=np.int64, count=len(edges))
    keys = [r[3] for r in rows]
    heaps = [[int(h) for h in k.split(",")] for k in keys]
    width = max(len(h) for h in heaps)
    table = np.array([[0] * (width - len(h)) + h for h in heaps], dtype=np.int64)
    radix = int(table.max()) + 1
    code = np.zeros(len(keys), dtype=np.int64)
    for digit in range(width):  # sorted heaps, largest digit first
        code = code * radix + table[:, digit]
    assert len(np.unique(code)) == len(code), "the code ranks positions"

    def column(i: int) -> np.ndarray:
        return np.array([r[i] for r in rows], dtype=np.int64)

    return Graph(
        game_id,
        build_id,
        keys,
        column(4),
        column(5),
        [r[6] for r in rows],
        column(7),
        column(8),
        packed >> 32,
        packed & 0xFFFFFFFF,
        code,
    )


# -- making rows ----------------------------------------------------------------------------
def inserts(
    table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]], per_transaction: int
) -> list[Transaction]:
    """Multi-row INSERT statements, as many rows each as `MAX_PARAMETERS` allows."""
    per = max(1, MAX_PARAMETERS // len(columns))
    one = "(" + ", ".join("?" * len(columns)) + ")"
    head = f"INSERT INTO {table} ({', '.join(columns)}) VALUES "
    texts: dict[int, str] = {}
    transactions = []
    for batch in parts(rows, per_transaction):
        statements = []
        for chunk in parts(batch, per):
            if len(chunk) not in texts:
                texts[len(chunk)] = head + ", ".join([one] * len(chunk))
            statements.append(Statement(texts[len(chunk)], tuple(chain.from_iterable(chunk))))
        transactions.append(statements)
    return transactions


def by_solve_batch(graph: Graph, rows: Sequence[tuple[Any, ...]]) -> list[list[tuple[Any, ...]]]:
    """`rows` (in solve order) cut where a build's batches end, then into 50,000-row parts."""
    ends = np.flatnonzero(np.diff(graph.solved_in[graph.solve_order])) + 1
    cut = [0, *ends.tolist(), len(rows)]
    return [
        list(part)
        for a, b in zip(cut, cut[1:], strict=False)
        for part in parts(rows[a:b], STATES_PER_TRANSACTION)
    ]


def batched_inserts(
    graph: Graph, table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]
) -> list[Transaction]:
    return [
        statements
        for part in by_solve_batch(graph, rows)
        for statements in inserts(table, columns, part, len(part))
    ]


def packed_lists(ids: np.ndarray, owners: np.ndarray, n: int, blob: bool) -> list[Any]:
    """Per state s, the `ids` whose `owners` entry is s (owners sorted), packed as text
    "3,17,42" or as a BLOB of little-endian int32."""
    counts = np.bincount(owners, minlength=n)
    ends = np.cumsum(counts)
    starts = ends - counts
    if blob:
        data = ids.astype("<i4").tobytes()
        return [data[4 * a : 4 * b] for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
    digits = np.ones(len(ids), dtype=np.int64)
    for power in range(1, 19):
        digits += ids >= 10**power
    offsets = np.concatenate([[0], np.cumsum(digits + 1)])  # each number and its comma
    text = ",".join(map(str, ids.tolist()))
    first = offsets[starts]
    last = np.maximum(first, offsets[ends] - 1)  # an empty list: not text[0:-1]
    return [text[a:b] for a, b in zip(first.tolist(), last.tolist(), strict=True)]


def value_columns(graph: Graph, order: np.ndarray, solved: bool) -> list[Any]:
    """The columns of `VALUE_NAMES` for the states `order`, NULL values unless `solved`."""
    n = len(order)
    if not solved:
        nulls = [repeat(None, n) for _ in range(4)]
        return [graph.depth[order].tolist(), repeat(0, n), *nulls]
    return [
        graph.depth[order].tolist(),
        repeat(1, n),
        graph.grundy[order].tolist(),
        [graph.outcome[i] for i in order.tolist()],
        graph.remote[order].tolist(),
        graph.height[order].tolist(),
    ]


def state_rows(
    graph: Graph,
    order: np.ndarray,
    *,
    solved: bool,
    key: str | None = "key",
    ident: str | None = "id",
    extra: dict[str, Sequence[Any]] | None = None,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Columns and rows of the states `order`: game, the id and/or code, the text key, values."""
    n = len(order)
    names = ["game_id"]
    columns: list[Any] = [repeat(graph.game_id, n)]
    if ident is not None:
        names.append(ident)
        columns.append((order if ident == "id" else graph.code[order]).tolist())
    if key is not None:
        names.append("key")
        columns.append([graph.keys[i] for i in order.tolist()])
    names += list(VALUE_NAMES)
    columns += value_columns(graph, order, solved)
    columns += [repeat(graph.build_id, n), repeat(graph.build_id if solved else None, n)]
    for name, values in (extra or {}).items():
        names.append(name)
        columns.append([values[i] for i in order.tolist()])
    return names, list(zip(*columns, strict=False))


def edge_transactions(graph: Graph, src: np.ndarray, dst: np.ndarray) -> list[Transaction]:
    packed = src.astype(np.int64) << 32 | dst
    return [
        [Statement(INSERT_EDGES, (graph.game_id, json.dumps(np.asarray(part).tolist())))]
        for part in parts(packed, EDGES_PER_TRANSACTION)
    ]


# -- the layouts ----------------------------------------------------------------------------
Steps = list[tuple[str, list[Transaction]]]


@dataclass(frozen=True)
class Design:
    name: str
    label: str
    ddl: Callable[[Schema], list[str]]
    steps: Callable[[Graph], Steps]
    finish: tuple[str, ...] = ()  # DDL run after the load, timed as the step "index"
    reads: bool = False  # keep the file of the last round for the read checks
    #: States written once solved: in this graph every state is first solvable in the last
    #: batch (all play ends in the one position found last), so they wait for the end.
    at_end: bool = True

    def phase(self, step: str) -> str:
        """``during`` generation (a writer thread may overlap it), or at the ``end``."""
        if step == "moves" or (step == "states" and not self.at_end):
            return "during"
        return "end"


def ids(graph: Graph) -> np.ndarray:
    return np.arange(graph.states, dtype=np.int64)


def today(graph: Graph) -> Steps:
    names, rows = state_rows(graph, ids(graph), solved=False)
    states = inserts("states", names, rows, STATES_PER_TRANSACTION)
    order = graph.solve_order
    updates = []
    for part in by_solve_batch(graph, order.tolist()):
        solved = np.sort(np.array(part, dtype=np.int64))  # a build updates in id order
        g = graph.grundy[solved]
        params = zip(
            g.tolist(),
            [graph.outcome[i] for i in solved.tolist()],
            graph.remote[solved].tolist(),
            graph.height[solved].tolist(),
            repeat(graph.build_id),
            repeat(graph.game_id),
            solved.tolist(),
            strict=False,
        )
        updates.append([Statement(UPDATE_VALUES, list(params), many=True)])
    return [
        ("states", states),
        ("values", updates),
        ("moves", edge_transactions(graph, graph.src, graph.dst)),
    ]


def values_once(graph: Graph, **options: Any) -> tuple[str, list[Transaction]]:
    names, rows = state_rows(graph, graph.solve_order, solved=True, **options)
    return "states", batched_inserts(graph, "states", names, rows)


def once_with_edges(graph: Graph) -> Steps:
    return [values_once(graph), ("moves", edge_transactions(graph, graph.src, graph.dst))]


SOLVED = (
    "CREATE TABLE solved (game_id INTEGER NOT NULL, id INTEGER NOT NULL, grundy INTEGER, "
    "outcome VARCHAR(1), remoteness INTEGER, height INTEGER, value_build_id INTEGER, "
    "PRIMARY KEY (game_id, id)) WITHOUT ROWID"
)


def split_values(graph: Graph, lists: bool = False) -> Steps:
    """State rows in id order (as found, or with `lists` as expanded, with their successor
    list), values inserted into their own table once solved."""
    order = graph.solve_order
    value_rows = list(
        zip(
            repeat(graph.game_id),
            order.tolist(),
            graph.grundy[order].tolist(),
            [graph.outcome[i] for i in order.tolist()],
            graph.remote[order].tolist(),
            graph.height[order].tolist(),
            repeat(graph.build_id),
            strict=False,
        )
    )
    columns = ("game_id", "id", "grundy", "outcome", "remoteness", "height", "value_build_id")
    if not lists:
        names, rows = state_rows(graph, ids(graph), solved=False)
        moves = ("moves", edge_transactions(graph, graph.src, graph.dst))
    else:
        n = graph.states
        succ = packed_lists(graph.dst, graph.src, n, False)
        by_dst = np.argsort(graph.dst, kind="stable")
        pred = packed_lists(graph.src[by_dst], graph.dst[by_dst], n, False)
        names, rows = state_rows(graph, ids(graph), solved=False, extra={"succ": succ})
        pred_rows = list(zip(repeat(graph.game_id), range(n), pred, strict=False))
        last = inserts("predecessors", ("game_id", "id", "list"), pred_rows, STATES_PER_TRANSACTION)
        moves = ("predecessors", last)
    return [
        ("states", inserts("states", names, rows, STATES_PER_TRANSACTION)),
        ("values", batched_inserts(graph, "solved", columns, value_rows)),
        moves,
    ]


def code_key(keep_text: bool) -> Callable[[Graph], Steps]:
    def steps(graph: Graph) -> Steps:
        extra = {"code": graph.code.tolist()}
        key = "key" if keep_text else None
        return [
            values_once(graph, key=key, extra=extra),
            ("moves", edge_transactions(graph, graph.src, graph.dst)),
        ]

    return steps


def code_primary(graph: Graph) -> Steps:
    src, dst = graph.code[graph.src], graph.code[graph.dst]
    order = np.lexsort((dst, src))
    return [
        values_once(graph, key=None, ident="code"),
        ("moves", edge_transactions(graph, src[order], dst[order])),
    ]


def packed(
    *,
    blob: bool = False,
    update: bool = False,
    text: bool = True,
    code: bool = False,
    by_code: bool = False,
) -> Callable[[Graph], Steps]:
    """Steps of a packed layout: successor lists in the state rows, predecessor lists last.

    The lists hold ids, or codes when the code is the primary key (`by_code`).
    """

    def steps(graph: Graph) -> Steps:
        n = graph.states
        names = graph.code if by_code else np.arange(n, dtype=np.int64)
        succ = packed_lists(names[graph.dst], graph.src, n, blob)
        by_dst = np.argsort(graph.dst, kind="stable")  # one sorted pass: src ascending per dst
        pred = packed_lists(names[graph.src[by_dst]], graph.dst[by_dst], n, blob)
        extra: dict[str, Sequence[Any]] = {"succ": succ}
        if code:
            extra = {"code": graph.code.tolist(), "succ": succ}
        key = "key" if text else None
        ident = "code" if by_code else "id"
        first = values_once(graph, key=key, ident=ident, extra=extra)
        if update:
            params = list(zip(pred, repeat(graph.game_id), names.tolist(), strict=False))
            sql = "UPDATE states SET pred = ? WHERE game_id = ? AND id = ?"
            last = [
                [Statement(sql, part, many=True)] for part in parts(params, STATES_PER_TRANSACTION)
            ]
        else:
            rows = list(zip(repeat(graph.game_id), names.tolist(), pred, strict=False))
            if by_code:
                rows.sort()
            last = inserts("predecessors", ("game_id", "id", "list"), rows, STATES_PER_TRANSACTION)
        return [first, ("predecessors", last)]

    return steps


def state_table(key: str, ident: str, extra: str = "", unique: str = "") -> str:
    primary = "PRIMARY KEY (game_id, code)" if ident == "code" else "PRIMARY KEY (game_id, id)"
    ident_column = "code INTEGER NOT NULL" if ident == "code" else "id INTEGER NOT NULL"
    unique_clause = f", UNIQUE (game_id, {unique})" if unique else ""
    return (
        f"CREATE TABLE states ({GAME}, {ident_column}, {key}{COMMON}{extra}, "
        f"CHECK (outcome IN ('P', 'N', 'D')), {primary}{unique_clause}) WITHOUT ROWID"
    )


TEXT = '"key" TEXT NOT NULL, '
KEY_INDEX = "CREATE UNIQUE INDEX uq_states_key ON states (game_id, key)"


def packed_ddl(
    kind: str, key: str, ident: str, unique: str, *, update: bool = False, code: bool = False
) -> list[str]:
    extra = (", code INTEGER NOT NULL" if code else "") + f", succ {kind} NOT NULL"
    extra += f", pred {kind}" if update else ""
    tables = [state_table(key, ident, extra, unique)]
    return tables if update else [*tables, PREDECESSORS.format(kind=kind)]


DESIGNS = [
    Design(
        "A",
        "today: insert, update values, edge rows + dst index",
        lambda s: [s.states, s.edges, *s.indexes.values()],
        today,
        reads=True,
        at_end=False,
    ),
    Design(
        "B",
        "values once with the state, text key unique",
        lambda s: [s.states, s.edges, *s.indexes.values()],
        once_with_edges,
    ),
    Design(
        "B2",
        "state rows as found + values table once",
        lambda s: [s.states, SOLVED, s.edges, *s.indexes.values()],
        split_values,
        at_end=False,
    ),
    Design(
        "C",
        "B, key index created after the load",
        lambda s: [s.states_without_key(), s.edges, *s.indexes.values()],
        once_with_edges,
        finish=(KEY_INDEX,),
    ),
    Design(
        "D1",
        "values once, integer code unique, text unindexed",
        lambda s: [state_table(TEXT, "id", ", code INTEGER NOT NULL", "code"), *EDGES],
        code_key(keep_text=True),
    ),
    Design(
        "D2",
        "values once, integer code unique, no text",
        lambda s: [state_table("", "id", ", code INTEGER NOT NULL", "code"), *EDGES],
        code_key(keep_text=False),
    ),
    Design(
        "D3",
        "values once, code is the primary key, no text",
        lambda s: [state_table("", "code"), *EDGES],
        code_primary,
    ),
    Design(
        "E",
        "values once, text key unique, packed text lists",
        lambda s: packed_ddl("TEXT", TEXT, "id", "key"),
        packed(),
    ),
    Design(
        "Eb",
        "E with int32 BLOB lists",
        lambda s: packed_ddl("BLOB", TEXT, "id", "key"),
        packed(blob=True),
    ),
    Design(
        "Eu",
        "E, predecessor lists by UPDATE at the end",
        lambda s: packed_ddl("TEXT", TEXT, "id", "key", update=True),
        packed(update=True),
    ),
    Design(
        "F1",
        "C + E: key index after load, packed text lists",
        lambda s: packed_ddl("TEXT", TEXT, "id", ""),
        packed(),
        finish=(KEY_INDEX,),
        reads=True,
    ),
    Design(
        "F2",
        "D2 + E: code unique, no text, packed lists",
        lambda s: packed_ddl("TEXT", "", "id", "code", code=True),
        packed(text=False, code=True),
    ),
    Design(
        "F3",
        "D3 + E: code primary key, packed code lists",
        lambda s: packed_ddl("TEXT", "", "code", ""),
        packed(text=False, by_code=True),
    ),
    Design(
        "G",
        "B2 + E: rows as expanded with lists, values table",
        lambda s: [*packed_ddl("TEXT", TEXT, "id", "key"), SOLVED],
        lambda graph: split_values(graph, lists=True),
        at_end=False,
    ),
    Design(
        "G2",
        "G, key index created after the load",
        lambda s: [*packed_ddl("TEXT", TEXT, "id", ""), SOLVED],
        lambda graph: split_values(graph, lists=True),
        finish=(KEY_INDEX,),
        at_end=False,
    ),
]

#: Today's view of every move (migrations/0001), for the edge-row layouts.
EDGE_MOVES_VIEW = (
    "CREATE VIEW moves AS SELECT g.spec AS game, a.key AS position, b.key AS move_to, "
    "b.grundy AS move_to_grundy, b.outcome AS move_to_outcome, g.convention "
    "FROM edges AS e JOIN games AS g ON g.id = e.game_id "
    "JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src "
    "JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst"
)


@dataclass
class Result:
    """The best of each step of one design over the rounds, and its file's size."""

    steps: dict[str, float] = field(default_factory=dict)
    prep: float = float("inf")
    mib: float = 0.0

    def keep(self, step: str, seconds: float) -> None:
        self.steps[step] = min(seconds, self.steps.get(step, float("inf")))

    @property
    def sqlite(self) -> float:
        return sum(self.steps.values())


class Bench:
    """Writes each design into a fresh file per round and keeps the best time of each step."""

    def __init__(self, folder: Path, schema: Schema, graph: Graph, designs: list[Design]) -> None:
        self.folder, self.schema, self.graph, self.designs = folder, schema, graph, designs
        self.results = {d.name: Result() for d in designs}
        self.kept: dict[str, Path] = {}

    def write(self, design: Design, keep: bool) -> None:
        result = self.results[design.name]
        started = time.perf_counter()
        steps = design.steps(self.graph)
        result.prep = min(result.prep, time.perf_counter() - started)
        path = self.folder / f"{design.name}.db"
        remove(path)
        with closing(connect(path, self.schema, design.ddl(self.schema))) as conn:
            for step, transactions in steps:
                result.keep(step, run(conn, transactions))
            for ddl in design.finish:
                started = time.perf_counter()
                conn.execute(ddl)
                result.keep("index", time.perf_counter() - started)
            stored = conn.execute("SELECT COUNT(*) FROM states").fetchone()[0]
            assert stored == self.graph.states, (design.name, stored)
        del steps
        result.mib = megabytes(path)
        if keep:
            self.kept[design.name] = path
        else:
            remove(path)

    def round(self, last: bool) -> None:
        for design in self.designs:
            self.write(design, keep=last and design.reads)


# -- reads on the kept files ----------------------------------------------------------------
def edge_lists(conn: sqlite3.Connection, game: int) -> Callable[[str, list[int]], list[int]]:
    def neighbours(direction: str, states: list[int]) -> list[int]:
        have, want = ("src", "dst") if direction == "succ" else ("dst", "src")
        sql = (
            f"SELECT e.{want} FROM json_each(?) AS j CROSS JOIN edges AS e "
            f"WHERE e.game_id = ? AND e.{have} = j.value"
        )
        return [v for (v,) in conn.execute(sql, (json.dumps(states), game))]

    return neighbours


def packed_reader(conn: sqlite3.Connection, game: int) -> Callable[[str, list[int]], list[int]]:
    def neighbours(direction: str, states: list[int]) -> list[int]:
        table, column = ("states", "succ") if direction == "succ" else ("predecessors", "list")
        sql = (
            f"SELECT t.{column} FROM json_each(?) AS j CROSS JOIN {table} AS t "
            "WHERE t.game_id = ? AND t.id = j.value"
        )
        found: list[int] = []
        for (text,) in conn.execute(sql, (json.dumps(states), game)):
            if text:
                found.extend(map(int, text.split(",")))
        return found

    return neighbours


def keys_of(conn: sqlite3.Connection, game: int, states: list[int]) -> list[str]:
    sql = (
        "SELECT s.key FROM json_each(?) AS j CROSS JOIN states AS s "
        "WHERE s.game_id = ? AND s.id = j.value"
    )
    return [k for (k,) in conn.execute(sql, (json.dumps(states), game))]


def read_checks(path: Path, graph: Graph, packed_layout: bool) -> dict[str, float]:
    """One state's moves both ways by text (mean and worst ms), a depth-3 neighbourhood both
    ways, and every move through the moves view."""
    figures: dict[str, float] = {}
    with closing(sqlite3.connect(path)) as conn:
        conn.execute(PACKED_MOVES_VIEW if packed_layout else EDGE_MOVES_VIEW)
        game = graph.game_id
        neighbours = (packed_reader if packed_layout else edge_lists)(conn, game)
        chosen = random.Random(12).sample(range(graph.states), min(LOOKUPS, graph.states) - 2)
        chosen = [0, graph.states - 1, *chosen]  # the root (no predecessor), the last found
        times = []
        for number, state in enumerate(chosen):
            started = time.perf_counter()
            (found,) = conn.execute(
                "SELECT id FROM states WHERE game_id = ? AND key = ?", (game, graph.keys[state])
            ).fetchone()
            succ = keys_of(conn, game, neighbours("succ", [found]))
            pred = keys_of(conn, game, neighbours("pred", [found]))
            times.append(time.perf_counter() - started)
            if number < 20:  # against the arrays
                want_succ = graph.dst[graph.src == state].tolist()
                want_pred = graph.src[graph.dst == state].tolist()
                assert sorted(succ) == sorted(graph.keys[i] for i in want_succ)
                assert sorted(pred) == sorted(graph.keys[i] for i in want_pred)
        figures["lookup_mean_ms"] = 1000 * sum(times) / len(times)
        figures["lookup_p99_ms"] = 1000 * sorted(times)[int(0.99 * (len(times) - 1))]
        figures["lookup_max_ms"] = 1000 * max(times)
        worst = 0.0
        for centre in (0, graph.states // 2, graph.states - 1):
            started = time.perf_counter()
            seen = {centre}
            level = [centre]
            for _ in range(NEIGHBOURHOOD_DEPTH):
                found = set(neighbours("succ", level)) | set(neighbours("pred", level))
                level = sorted(found - seen)
                seen |= found
            keys_of(conn, game, sorted(seen))
            worst = max(worst, time.perf_counter() - started)
            figures[f"depth3_states_{centre}"] = len(seen)
        figures["depth3_worst_ms"] = 1000 * worst
        started = time.perf_counter()
        cursor = conn.execute("SELECT position, move_to FROM moves")
        moves = 0
        while rows := cursor.fetchmany(100_000):
            moves += len(rows)
        figures["view_all_moves_s"] = time.perf_counter() - started
        assert moves == len(graph.src), moves
    return figures


# -- the rest of a build: explorer's builder, writing nothing ---------------------------------
def peak_resident() -> int:
    """This process's peak resident memory in bytes (VmHWM: unlike ru_maxrss, not inherited
    from the parent across fork and exec)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def null_build(position: str) -> dict[str, float]:
    """Today's build of `position` with a writer that writes nothing, its parts timed."""
    timers = {"expand": 0.0, "solve": 0.0, "rows": 0.0}

    def timed(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            started = time.perf_counter()
            try:
                return method(*args)
            finally:
                timers[name] += time.perf_counter() - started

        return call

    class NullWriterBuilder(GraphBuilder):
        def _commit(self, batch: Any) -> None:
            pass

    before = peak_resident()
    with tempfile.TemporaryDirectory() as tmp, open_database(str(Path(tmp) / "null.db")) as db:
        game = load_game(SPEC)
        builder = NullWriterBuilder(db.engine, game, game.parse(position))
        builder._expand_batch = timed("expand", builder._expand_batch)  # type: ignore[method-assign]
        builder._solve = timed("solve", builder._solve)  # type: ignore[method-assign]
        builder._rows = timed("rows", builder._rows)  # type: ignore[method-assign]
        started = time.perf_counter()
        report = builder.run()
        total = time.perf_counter() - started
    assert report.status == "complete"
    peak = peak_resident()
    return {
        "states": report.states_new,
        "total": total,
        **timers,
        "other": total - sum(timers.values()),
        "peak_mib": peak / 2**20,
        "start_mib": before / 2**20,
        "cpu": resource.getrusage(resource.RUSAGE_SELF).ru_utime,
    }


def null_builds(position: str, rounds: int) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(rounds):
        out = subprocess.run(
            [sys.executable, __file__, "--null-build", position],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        found = json.loads(out.splitlines()[-1])
        if not best or found["total"] < best["total"]:
            best = found
    return best


# -- the report -----------------------------------------------------------------------------
def report(
    bench: Bench, rest: dict[str, float], reads: dict[str, dict[str, float]], built: float
) -> None:
    graph, n = bench.graph, bench.graph.states
    today_prep = bench.results["A"].prep
    print("\nthe rest of today's build (GraphBuilder, writer writing nothing), best of rounds:")
    print(
        f"  total {rest['total']:.2f} s = generate {rest['expand']:.2f} + solve "
        f"{rest['solve']:.2f} + make rows {rest['rows']:.2f} + other {rest['other']:.2f}; "
        f"peak {rest['peak_mib']:.0f} MiB ({rest['peak_mib'] * 2**20 / n:.0f} B/state, goal "
        f"<= {GOAL_BYTES_PER_STATE} with SQLite; {rest['start_mib']:.0f} MiB before the build)"
    )

    def projected(design: Design) -> tuple[float, float]:
        """Serial, and with a writer thread overlapping generation (the solve and every step
        written at the end follow it)."""
        r = bench.results[design.name]
        main = rest["total"] - today_prep + r.prep
        during = sum(v for k, v in r.steps.items() if design.phase(k) == "during")
        overlap = max(main - rest["solve"], during) + rest["solve"] + r.sqlite - during
        return main + r.sqlite, overlap

    calibration = built / projected(bench.designs[0])[1]
    print(
        "\nper design: SQLite's time (best of rounds), the Python prep of its parameters, the "
        "file;\nprojected build: main = rest - today's prep + the design's prep; serial = main + "
        "SQLite;\n  overlap = max(main - solve, steps during generation) + solve + steps at the "
        f"end;\n  calibrated = overlap x {calibration:.2f} (explorer's build of this run, "
        f"{built:.1f} s, over A's overlap);\n  speedup = that build over calibrated (today's "
        f"code; the goal is {SPEEDUP}x d3cd961's), B/st the file's bytes per state "
        f"(goal: no more than {BASE_DB_MIB} MiB)"
    )
    head = f"  {'':<3} {'design':<48} {'SQLite':>7} {'st/s':>9} {'prep':>6} {'MiB':>6} {'B/st':>5}"
    print(head + f" {'serial':>7} {'overlap':>7} {'calib':>6} {'speedup':>7}  steps (* at the end)")
    for design in bench.designs:
        r = bench.results[design.name]
        serial, overlap = projected(design)
        steps = ", ".join(
            f"{k}{'*' if design.phase(k) == 'end' else ''} {v:.2f}" for k, v in r.steps.items()
        )
        print(
            f"  {design.name:<3} {design.label:<48} {r.sqlite:>7.2f} {n / r.sqlite:>9,.0f} "
            f"{r.prep:>6.2f} {r.mib:>6.0f} {r.mib * 2**20 / n:>5.0f} {serial:>7.2f} "
            f"{overlap:>7.2f} {overlap * calibration:>6.2f} {built / overlap / calibration:>6.2f}x"
            f"  {steps}"
        )
    solved_last = float(np.mean(graph.solved_in == graph.solved_in.max()))
    print(
        f"\nbuild batches: {graph.batch.max() + 1}; states first solvable in the last batch: "
        f"{solved_last:.0%} (a values-once build holds them, or their rows, until then)"
    )
    for name, figures in reads.items():
        print(
            f"reads on {name} ({bench.results[name].mib:.0f} MiB): one state's moves both ways by "
            f"text {figures['lookup_mean_ms']:.3f} ms mean, {figures['lookup_p99_ms']:.3f} ms "
            f"99th centile, {figures['lookup_max_ms']:.2f} ms worst ({LOOKUPS:,} states); "
            f"depth-{NEIGHBOURHOOD_DEPTH} both ways worst "
            f"{figures['depth3_worst_ms']:.1f} ms; every move through the moves view "
            f"{figures['view_all_moves_s']:.2f} s"
        )


def load() -> str:
    return f"load average {os.getloadavg()[0]:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"build {QUICK_POSITION} instead")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="runs of each step")
    parser.add_argument("--only", help="comma-separated design names (default: all)")
    parser.add_argument("--null-build", metavar="POSITION", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.null_build:
        print(json.dumps(null_build(args.null_build)))
        return
    position = QUICK_POSITION if args.quick else POSITION
    designs = DESIGNS
    if args.only:
        wanted = set(args.only.split(","))
        designs = [d for d in DESIGNS if d.name in wanted or d.name == "A"]
    print(f"{load()}, {os.cpu_count()} cores, SQLite {sqlite3.sqlite_version}")
    rest = null_builds(position, args.rounds)
    print(f"rest of the build timed ({load()})")
    with tempfile.TemporaryDirectory() as tmp:
        built = Path(tmp) / "built.db"
        seconds = build(built, position)
        with closing(sqlite3.connect(built)) as conn:
            schema = read_schema(conn)
        graph = read_graph(built)
        print(
            f"built {SPEC} {position} with explorer in {seconds:.1f} s: {graph.states:,} states, "
            f"{len(graph.src):,} moves, {megabytes(built):.0f} MiB"
        )
        remove(built)
        bench = Bench(Path(tmp), schema, graph, designs)
        for number in range(args.rounds):
            bench.round(last=number == args.rounds - 1)
            print(f"round {number + 1} done ({load()})")
        reads = {
            name: read_checks(path, graph, packed_layout=name != "A")
            for name, path in bench.kept.items()
        }
        report(bench, rest, reads, seconds)
    print(f"{load()} at the end")


if __name__ == "__main__":
    main()
