"""Neighbourhoods of a stored state, found level by level through the edge indexes.

A breadth-first walk in SQL batches: each level's states are looked up by ``src`` (moves
forwards) and by ``dst`` (moves backwards) with ``IN`` lists, so both directions use the two
edge indexes. (One recursive query joining on ``src = n.id OR dst = n.id`` cannot use either,
and on a million states took 16 times as long as one direction.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, TypeVar

import sqlalchemy as sa

from explorer.errors import GraphTooLargeError
from explorer.storage.tables import edges

Direction = Literal["out", "in", "both"]

#: Ids per ``IN (...)`` list: well under SQLite's limit on bound parameters.
CHUNK = 10_000

#: (column matched, column returned) for each way a move is followed.
_FOLLOW: dict[str, list[tuple[edges.End, edges.End]]] = {
    "out": [("src", "dst")],
    "in": [("dst", "src")],
    "both": [("src", "dst"), ("dst", "src")],
}


T = TypeVar("T")


def chunks(ids: Sequence[T], size: int = CHUNK) -> Iterator[list[T]]:
    """`ids` in lists of at most `size`."""
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


def _linked(
    conn: sa.Connection, game_id: int, ids: Sequence[int], near: edges.End, far: edges.End
) -> Iterator[int]:
    statement = edges.linked_ids(near, far)
    for chunk in chunks(ids):
        for (other,) in conn.execute(statement, {"g": game_id, "ids": chunk}):
            yield other


def neighbourhood_ids(
    conn: sa.Connection,
    game_id: int,
    root: int,
    depth: int,
    direction: Direction,
    *,
    max_states: int,
    what: str = "the neighbourhood",
) -> list[tuple[int, int]]:
    """The states within `depth` moves of `root`, as (id, distance), nearest first then by id.

    Raises
    ------
    ValueError
        For an unknown direction.
    GraphTooLargeError
        When there are more than `max_states` states (found without reading them all).
    """
    if direction not in _FOLLOW:
        raise ValueError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
    found = {root: 0}
    order = [(root, 0)]
    level = [root]
    for distance in range(1, depth + 1):
        reached = []
        for near, far in _FOLLOW[direction]:
            for other in _linked(conn, game_id, level, near, far):
                if other not in found:
                    found[other] = distance
                    reached.append(other)
                    if len(found) > max_states:
                        raise GraphTooLargeError(
                            f"{what} has more than {max_states:,} states (ask for fewer "
                            "moves, or raise the limit)",
                            max_states,
                        )
        if not reached:
            break
        level = sorted(reached)
        order.extend((state, distance) for state in level)
    return order


def edges_among(conn: sa.Connection, game_id: int, ids: Sequence[int]) -> Iterator[tuple[int, int]]:
    """Every stored move between two of `ids`, as (src, dst)."""
    members = set(ids)
    for chunk in chunks(sorted(members)):
        for src, dst in conn.execute(edges.FROM_IDS, {"g": game_id, "ids": chunk}):
            if dst in members:
                yield src, dst
