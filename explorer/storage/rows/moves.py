"""A game's moves as its states' rows hold them: each state's successors and predecessors,
packed in fixed width (`explorer.storage.schema.packing`), the width on the game's row; each
id written as its offset from the id of the state whose row holds it (`relative`).

Writers add moves by appending to the rows of both ends (`add_moves`: one statement a state
and a direction, no row a move), take them away by rewriting the rows they touch
(`remove_moves`); readers of every move unpack the columns in numpy (`read_moves`). Offsets
are written in `DEFAULT_WIDTH` bytes until a move spans more ids than that holds, when the
game's columns are packed again, wider (`width_for`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import repeat
from typing import cast

import numpy as np
import sqlalchemy as sa

from explorer.adjacency import Adjacency
from explorer.storage.backends.bulk import partitions
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.schema.packing import (
    Packed,
    absolute,
    offset_width,
    pack,
    relative,
    unpack,
)
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables.edges import Column

#: Bytes an id until a game's moves need more: moves spanning up to 32,767 ids (a build in
#: tiers chooses its width from its blocks of ids; see `explorer.build.tier_manager`).
DEFAULT_WIDTH = 2
#: States a statement names at most (its ``IN`` list).
CHUNK = 5_000
#: The packed columns and which end of a move (src 0, dst 1) owns each.
DIRECTIONS: tuple[tuple[Column, int], ...] = (("successors", 0), ("predecessors", 1))


def stored_width(conn: sa.Connection, game_id: int) -> int | None:
    """The width of game `game_id`'s ids, None before its first move."""
    width = conn.execute(edges_table.WIDTH, {"g": game_id}).scalar()
    return None if width is None else int(width)


def width_for(conn: sa.Connection, game_id: int, farthest: int) -> int:
    """The width that holds moves spanning up to `farthest` ids (``|src - dst|``): the
    game's, packed again wider if need be."""
    width = stored_width(conn, game_id)
    needs = max(DEFAULT_WIDTH, offset_width(farthest))
    if width is not None and width >= needs:
        return width
    if width is not None:  # every move of the game, packed again
        pack_again(conn, game_id, *read_moves(conn, game_id), needs)
        return needs
    conn.execute(edges_table.SET_WIDTH, {"g": game_id, "w": needs})
    return needs


def pack_again(
    conn: sa.Connection,
    game_id: int,
    src: np.ndarray,
    dst: np.ndarray,
    width: int,
    *,
    offsets: bool = True,
) -> None:
    """Store the moves ``src[i] -> dst[i]``, every move of game `game_id`, in place of those
    its rows hold, in `width` bytes: as offsets, or with `offsets` False as the ids themselves
    (how schema 0014 stored them: see its migration and 0015's)."""
    conn.execute(edges_table.CLEAR_PACKED, {"g": game_id})
    conn.execute(edges_table.SET_WIDTH, {"g": game_id, "w": width})
    _append(conn, game_id, src, dst, width, offsets=offsets)


def grouped(
    near: np.ndarray, far: np.ndarray, width: int, *, offsets: bool = True
) -> tuple[list[int], list[bytes]]:
    """The `far` ids of each distinct `near` id, packed as the near state's row holds them
    (`offsets` False: the ids themselves): (near ids, blobs), by near id.

    Examples
    --------
    >>> ids, blobs = grouped(np.array([4, 2, 4]), np.array([1, 3, 0]), 1)
    >>> ids, [blob.hex() for blob in blobs]
    ([2, 4], ['81', '7c7d'])
    """
    order = np.lexsort((far, near))
    near, far = near[order], far[order]
    ids, counts = runs(near)
    stored = relative(near, far, width) if offsets else far
    blobs = pack(Adjacency.from_degrees(counts, stored), "fixed", width).blobs()
    return ids.tolist(), blobs


def packed_runs(
    counts: np.ndarray, owners: np.ndarray, ids: np.ndarray, width: int
) -> list[bytes | None]:
    """The `ids` of each of the states `owners` (``counts[s]`` of them, state after state),
    sorted and packed as its row stores them: a state with none gets None (NULL).

    Examples
    --------
    >>> blobs = packed_runs(np.array([2, 0, 1]), np.array([3, 4, 5]), np.array([4, 1, 3]), 1)
    >>> [blob and blob.hex() for blob in blobs]
    ['7e81', None, '7e']
    """
    counts = np.asarray(counts, dtype=np.int64)
    owner = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    stored = relative(np.repeat(np.asarray(owners, dtype=np.int64), counts), ids, width)
    key = owner << 32 | stored  # offset binary in at most 4 bytes
    key.sort()
    blobs: list[bytes | None] = list(
        pack(Adjacency.from_degrees(counts, key & 0xFFFFFFFF), "fixed", width).blobs()
    )
    for state in np.flatnonzero(counts == 0).tolist():
        blobs[state] = None
    return blobs


def add_moves(
    conn: sa.Connection, game_id: int, src: np.ndarray, dst: np.ndarray, *, expanded: bool = False
) -> None:
    """Store the moves ``src[i] -> dst[i]`` of game `game_id` (none stored yet), whose ends'
    rows are stored: each source's successors and each destination's predecessors grow.

    With `expanded` the sources are states being expanded, every move from each of them at
    once: one that has moves stored already is refused as a key stored twice would be (an
    ``IntegrityError``: another build wrote them, or the rows are damaged)."""
    if not len(src):
        return
    farthest = int(np.abs(np.asarray(src, np.int64) - dst).max())
    _append(conn, game_id, src, dst, width_for(conn, game_id, farthest), expanded)


def _append(
    conn: sa.Connection,
    game_id: int,
    src: np.ndarray,
    dst: np.ndarray,
    width: int,
    expanded: bool = False,
    *,
    offsets: bool = True,
) -> None:
    dialect = dialect_of(conn)
    for column, end in DIRECTIONS:
        near, far = (src, dst) if end == 0 else (dst, src)
        ids, blobs = grouped(np.asarray(near), np.asarray(far), width, offsets=offsets)
        rows = list(zip(blobs, repeat(game_id), ids))
        longest = None
        if expanded and column == "successors":
            statement = dialect.first_successors()
            written = conn.exec_driver_sql(statement, rows).rowcount
            if written != len(rows):
                raise sa.exc.IntegrityError(statement, None, ValueError("moves stored twice"))
            longest = max(map(len, blobs))
        else:
            conn.exec_driver_sql(dialect.append_packed(column), rows)
        ensure_slots(conn, game_id, column, ids, width, longest)


def ensure_slots(
    conn: sa.Connection,
    game_id: int,
    column: Column,
    ids: list[int],
    width: int,
    longest: int | None = None,
) -> None:
    """Give the slots table a row for every id the blobs of `column` of states `ids` (in
    order) hold: the `longest` blob's, in bytes, when known, else the longest stored (of
    those states when they are few, else of their range of ids).

    Only where the views read that table (SQLite): a server's views count the slots
    themselves, and two builds of a server adding the same slot at once would collide."""
    if not dialect_of(conn).reads_slots:
        return
    if longest is None and len(ids) <= CHUNK:
        found = conn.execute(edges_table.longest(column), {"g": game_id, "ids": ids}).scalar()
        longest = int(found or 0)
    elif longest is None:
        params = {"g": game_id, "lo": ids[0], "hi": ids[-1]}
        longest = int(conn.execute(edges_table.longest_between(column), params).scalar() or 0)
    need = longest // width
    have = int(conn.execute(edges_table.SLOT_COUNT).scalar() or 0)
    if need > have:
        conn.execute(edges_table.ADD_SLOTS, {"have": have, "need": need})


def remove_moves(conn: sa.Connection, game_id: int, src: np.ndarray, dst: np.ndarray) -> None:
    """Take the stored moves ``src[i] -> dst[i]`` of game `game_id` out of their ends' rows
    (a state's column left with no id becomes NULL)."""
    width = stored_width(conn, game_id)
    if not len(src) or width is None:
        return
    gone = set(zip(np.asarray(src).tolist(), np.asarray(dst).tolist(), strict=True))
    for column, end in DIRECTIONS:
        near = distinct(src if end == 0 else dst).tolist()
        rows = []
        for state, ids in _unpacked(conn, game_id, column, near, width):
            pairs = [(state, i) if end == 0 else (i, state) for i in ids]
            kept = [p[1 - end] for p in pairs if p not in gone]
            rows.append({"g": game_id, "s": state, "b": _blob(state, kept, width)})
        if rows:
            conn.execute(edges_table.set_packed(column), rows)


def _blob(state: int, ids: list[int], width: int) -> bytes | None:
    """The ids of state `state`'s row packed (None for none)."""
    if not ids:
        return None
    stored = relative(np.full(len(ids), state), np.array(ids, dtype=np.int64), width)
    one = Adjacency.from_degrees(np.array([len(ids)]), stored)
    return pack(one, "fixed", width).blobs()[0]


def unpacked_rows(
    owners: np.ndarray, blobs: list[bytes], width: int, *, offsets: bool = True
) -> Adjacency:
    """The ids the packed columns `blobs` of the rows of states `owners` hold (as offsets;
    `offsets` False: as ids): state ``owners[i]``'s are ``.of(i)``, in the order stored."""
    moves = unpack(Packed.from_blobs(blobs, "fixed", width))
    if not offsets:
        return moves
    near = np.repeat(np.asarray(owners, dtype=np.int64), moves.degree)
    return Adjacency.from_degrees(moves.degree, absolute(near, moves.target, width))


def moves_at(conn: sa.Connection, game_id: int, states: Iterable[int]) -> set[tuple[int, int]]:
    """Every stored move of game `game_id` from or into the states `states`, as (src, dst)."""
    width = stored_width(conn, game_id)
    wanted = sorted(set(states))
    pairs: set[tuple[int, int]] = set()
    if width is not None:
        for column, end in DIRECTIONS:
            for state, ids in _unpacked(conn, game_id, column, wanted, width):
                pairs.update((state, i) if end == 0 else (i, state) for i in ids)
    return pairs


def _unpacked(
    conn: sa.Connection, game_id: int, column: Column, states: list[int], width: int
) -> Iterator[tuple[int, list[int]]]:
    """Each of `states` with its ids in `column` (an empty list for NULL)."""
    for chunk in _chunks(states):
        rows = conn.execute(edges_table.packed_of(column), {"g": game_id, "ids": chunk}).all()
        for state, blob in rows:
            ids = unpacked_rows(np.array([state]), [bytes(blob or b"")], width).target
            yield int(state), ids.tolist()


def read_moves(
    conn: sa.Connection, game_id: int, column: Column = "successors", *, offsets: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Every move of game `game_id` as (src, dst) arrays, unpacked in numpy from `column`:
    by (src, dst) from the successors (as a build wrote them), by (dst, src) order of rows
    from the predecessors (`offsets` False: stored as schema 0014 did, see `pack_again`)."""
    width = stored_width(conn, game_id)
    if width is None:
        empty = np.empty(0, dtype=np.int64)
        return empty, empty.copy()
    ids: list[np.ndarray] = []
    blobs: list[bytes] = []
    for rows in partitions(conn, edges_table.packed(column), {"g": game_id}):
        ids.append(np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows)))
        blobs += [cast(bytes, row[1]) for row in rows]
    owners = np.concatenate(ids) if ids else np.empty(0, np.int64)
    moves = unpacked_rows(owners, blobs, width, offsets=offsets)
    near = np.repeat(owners, moves.degree)
    src, dst = (moves.target, near) if column == "predecessors" else (near, moves.target)
    if len(src) > 1:
        key = src << 32 | dst
        if np.any(key[1:] < key[:-1]):  # appended by edits, or read from the predecessors
            order = np.argsort(key, kind="stable")
            src, dst = src[order], dst[order]
    return src, dst


def successors_in_range(
    conn: sa.Connection, game_id: int, low: int, high: int
) -> tuple[np.ndarray, np.ndarray]:
    """The moves of game `game_id` from its states of ids `low` up to (not including) `high`,
    as (src, dst) arrays by (src, dst), unpacked in numpy."""
    width = stored_width(conn, game_id)
    ids: list[int] = []
    blobs: list[bytes] = []
    if width:
        params: dict[str, object] = {"g": game_id, "lo": low, "hi": high}
        for rows in partitions(conn, str(edges_table.SUCCESSORS_IN_RANGE), params):
            for state, blob in rows:
                ids.append(cast(int, state))
                blobs.append(bytes(cast(bytes, blob)))
    moves = unpacked_rows(np.array(ids, dtype=np.int64), blobs, width or 1)
    src = np.repeat(np.array(ids, dtype=np.int64), moves.degree)
    order = np.lexsort((moves.target, src))
    return src[order], moves.target[order]


#: Ends of moves read as one range of ids when the range holds at most this many ids a
#: wanted one (each a search of the primary key otherwise).
DENSE_ENDS = 4


def ends_of(conn: sa.Connection, game_id: int, ids: np.ndarray) -> list[Sequence[object]]:
    """The states of game `game_id` among `ids` (sorted, distinct), and perhaps others, as
    rows (id, key, grundy, remoteness, height) by id; an id not stored has none."""
    if not len(ids):
        return []
    low, high = int(ids[0]), int(ids[-1]) + 1
    if high - low <= DENSE_ENDS * len(ids) + CHUNK:
        params: dict[str, object] = {"g": game_id, "lo": low, "hi": high}
        return [
            row for rows in partitions(conn, str(edges_table.ENDS_BETWEEN), params) for row in rows
        ]
    found: list[Sequence[object]] = []
    for chunk in _chunks(ids.tolist()):
        found += conn.execute(edges_table.ENDS, {"g": game_id, "ids": chunk}).all()
    found.sort(key=lambda row: cast(int, row[0]))
    return found


#: Source states a batch of `key_pairs` (with their moves, about 120,000 on the 1M build).
PAIR_STATES = 20_000


def key_pairs(
    conn: sa.Connection, game_id: int, cut: int | None = None
) -> Iterator[list[tuple[str, str]]]:
    """Every move of game `game_id` (between states of ids up to `cut`) as the keys of its
    ends, by (src, dst), in batches: the successors of a range of ids unpacked in numpy and
    the keys of their ends read by range (the ``edges`` view decodes every id in SQL and
    looks each end up: 15.5 s of CPU for the 5.9M moves of the 1M build)."""
    top = conn.execute(edges_table.LAST_ID, {"g": game_id}).scalar()
    last = -1 if top is None else int(top) if cut is None else min(int(top), cut)
    for low in range(0, last + 1, PAIR_STATES):
        src, dst = successors_in_range(conn, game_id, low, min(low + PAIR_STATES, last + 1))
        if cut is not None:
            src, dst = src[dst <= cut], dst[dst <= cut]
        rows = ends_of(conn, game_id, distinct(np.concatenate([src, dst])))
        ids = np.array([row[0] for row in rows], dtype=np.int64)
        keys = [cast(str, row[1]) for row in rows]
        at = [np.minimum(np.searchsorted(ids, end), max(len(ids) - 1, 0)) for end in (src, dst)]
        # a move to a state not stored is left out, as a join of the ends leaves it
        stored = (ids[at[0]] == src) & (ids[at[1]] == dst) if len(ids) else src < 0
        yield [(keys[a], keys[b]) for a, b in zip(*(a[stored].tolist() for a in at), strict=True)]


def count_upto(conn: sa.Connection, game_id: int, cut: int) -> int:
    """How many moves game `game_id` has between its states of ids up to `cut`, counted in
    numpy a range of sources at a time (through ``edges``, 1.8 s for 300,000 of the 1M
    build's states: every id decoded in SQL)."""
    moves = 0
    for low in range(0, cut + 1, PAIR_STATES):
        _, dst = successors_in_range(conn, game_id, low, min(low + PAIR_STATES, cut + 1))
        moves += int(np.count_nonzero(dst <= cut))
    return moves


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (`np.unique` hashes them in numpy 2: 70x slower here).

    Examples
    --------
    >>> distinct(np.array([5, 1, 5, 3]))
    array([1, 3, 5])
    """
    return runs(np.sort(values))[0]


def runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of the sorted array `ordered` and how many times each stands.

    Examples
    --------
    >>> [a.tolist() for a in runs(np.array([1, 3, 3, 5, 5, 5]))]
    [[1, 3, 5], [1, 2, 3]]
    """
    if not len(ordered):
        return ordered, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return ordered[starts], np.diff(np.r_[starts, len(ordered)])


def _chunks(items: list[int]) -> Iterator[list[int]]:
    for first in range(0, len(items), CHUNK):
        yield items[first : first + CHUNK]
