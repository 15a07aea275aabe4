"""Exporting a stored graph (or a neighbourhood): its rows read from the database in batches and
streamed into `explorer.formats.writing`, so memory stays flat whatever the graph's size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, cast

import sqlalchemy as sa

from explorer.formats.writing import write_graph
from explorer.games.convention import NORMAL, Convention
from explorer.storage.backends.bulk import partitions
from explorer.storage.query.neighbourhood import chunks, edges_among
from explorer.storage.rows.moves import count_upto, key_pairs
from explorer.storage.tables import edges as edge_sql
from explorer.storage.tables import states as state_sql

#: Called as ``progress(what, done, total)`` with what = "states" or "moves".
Progress = Callable[[str, int, int], None]
#: Batches of node rows, or of edges (two position texts), as `write_graph` takes them.
Batches = Iterator[list[Any]]
#: What an export writes: nodes, edges, states stored, states and moves to stream.
Streams = tuple[Batches, Batches, int, int, int]


@dataclass(frozen=True)
class ExportReport:
    """What an export wrote: counts, and the files (two for CSV)."""

    game: str
    states: int
    edges: int
    stored_states: int
    files: list[str]
    convention: Convention = NORMAL

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def whole_graph(
    conn: sa.Connection, game_id: int, limit: int | None
) -> tuple[str | None, Batches, Batches, int, int, int]:
    """Streams of the first `limit` states and the moves among them, with their counts: the
    root, nodes, edges, states stored, states and moves streamed."""
    params: dict[str, object] = {"g": game_id}
    stored = conn.execute(state_sql.COUNT, params).scalar_one()
    root = conn.execute(state_sql.FIRST_KEY, params).scalar()
    within = limit is not None and limit < stored
    if within:
        params["cut"] = conn.execute(
            state_sql.NTH_ID, {**params, "n": (limit or 0) - 1}
        ).scalar_one()
    cut = cast(int, params["cut"]) if within else None
    moves = (
        conn.execute(edge_sql.COUNT, params).scalar_one()
        if cut is None
        else count_upto(conn, game_id, cut)
    )

    def stream(sql: str) -> Batches:
        for partition in partitions(conn, sql, params):
            yield list(partition)

    states = stored if not within else min(stored, limit or stored)
    pairs = key_pairs(conn, game_id, cut)
    return root, stream(state_sql.exported(within)), pairs, stored, states, moves


def near_graph(
    conn: sa.Connection,
    game_id: int,
    ids: list[int],
    rows_by_id: Callable[[Sequence[int]], list[Any]],
) -> tuple[Batches, Batches, int]:
    """Streams of the states `ids` (in that order, their rows read by `rows_by_id`) and the
    moves among them, with the number of moves."""
    keys: dict[int, str] = {}

    def nodes() -> Batches:
        for chunk in chunks(ids):
            rows = rows_by_id(chunk)
            keys.update((row.id, row.key) for row in rows)
            yield [
                (r.key, r.grundy, r.outcome, r.remoteness, r.depth, r.height, r.expanded)
                for r in rows
            ]

    def edges() -> Batches:
        for chunk in chunks(pairs):
            yield [(keys[a], keys[b]) for a, b in chunk]

    pairs: list[tuple[int, int]] = list(edges_among(conn, game_id, ids))
    return nodes(), edges(), len(pairs)


def write_export(
    path: Path,
    fmt: str,
    spec: str,
    root: str | None,
    streams: Streams,
    convention: Convention,
    progress: Progress | None = None,
) -> ExportReport:
    """Write the `streams` (nodes, edges, states stored, states and moves to stream) into the
    file(s) of an export, reporting `progress` after each batch."""
    nodes, edges, stored, states, moves = streams
    counted = {"states": 0, "moves": 0}

    def counting(batches: Batches, what: str, total: int) -> Batches:
        for batch in batches:
            yield batch
            counted[what] += len(batch)
            if progress is not None:
                progress(what, counted[what], total)

    files = write_graph(
        path,
        fmt,
        spec,
        root,
        counting(nodes, "states", states),
        counting(edges, "moves", moves),
        convention,
    )
    return ExportReport(
        spec, counted["states"], counted["moves"], stored, [str(f) for f in files], convention
    )
