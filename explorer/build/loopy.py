"""Stored games with cycles (``graph:FILE``): their generalized values written with escapes, and
edits that may create or break cycles, re-solved exactly.

γ is not local: one edge can change values far upstream, and a state's value can change while
its followers' values do not (conditions B and C look two moves ahead). So an edit re-examines
every state that can reach an edited one (each other state's reachable graph is untouched, so
its value is too): the game's stored moves are labelled again in memory, the values of those
states compared whole (escape sets included), and only the rows that changed are written.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sqlalchemy as sa

from explorer.solver.loopy import Infinite, Value, labels_and_remoteness, outcome_of
from explorer.storage.rows.moves import read_moves
from explorer.storage.tables import states

if TYPE_CHECKING:  # the editor loads with edits, not with the reads that parse escapes
    from explorer.build.stored_graph import StoredGraph
    from explorer.solver.incremental import Edit, EditResult

#: How `explorer edit` re-solves a game with cycles (stored in its build row).
LOOPY_METHOD = (
    "generalized Sprague-Grundy labelling of the stored graph; every state that can reach an "
    "edited one re-examined, values compared whole (escapes included)"
)


@dataclass(frozen=True, slots=True)
class LoopyValue:
    """A stored generalized value: ``grundy`` (None for ∞), ``escapes`` (K of ∞(K), None when
    finite), ``remoteness`` (None for a draw)."""

    grundy: int | None
    escapes: frozenset[int] | None
    remoteness: int | None

    @classmethod
    def of(cls, value: Value, remoteness: int | None) -> LoopyValue:
        if isinstance(value, Infinite):
            return cls(None, value.escapes, remoteness)
        return cls(value, None, remoteness)

    @property
    def value(self) -> Value:
        return Infinite(self.escapes) if self.escapes is not None else int(self.grundy or 0)

    @property
    def outcome(self) -> str:
        return outcome_of(self.value)


def escapes_text(escapes: frozenset[int] | None) -> str | None:
    """K as stored: ``"0,2"``, ``""`` for ∞ with no finite follower, None for a finite value.

    Examples
    --------
    >>> escapes_text(frozenset({2, 0})), escapes_text(frozenset()), escapes_text(None)
    ('0,2', '', None)
    """
    return None if escapes is None else ",".join(map(str, sorted(escapes)))


def parse_escapes(text: str | None) -> frozenset[int] | None:
    """The inverse of `escapes_text`."""
    if text is None:
        return None
    return frozenset(int(x) for x in text.split(",") if x)


def label_arrays(size: int, src: np.ndarray, dst: np.ndarray) -> list[LoopyValue]:
    """γ and remoteness of states 0..size-1 with moves src[i] -> dst[i]."""
    succ: list[list[int]] = [[] for _ in range(size)]
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        succ[a].append(b)
    labels, far = labels_and_remoteness(succ)
    return [LoopyValue.of(v, r) for v, r in zip(labels.values, far, strict=True)]


def value_params(
    values: dict[int, LoopyValue], build_id: int, game_id: int
) -> list[dict[str, object]]:
    """Rows for `explorer.storage.tables.states.UPDATE_LOOPY_VALUES`, by state id."""
    return [
        {
            "grundy": v.grundy,
            "escapes": escapes_text(v.escapes),
            "outcome": v.outcome,
            "far": v.remoteness,
            "b": build_id,
            "g": game_id,
            "s": i,
        }
        for i, v in values.items()
    ]


def _ancestors(size: int, src: np.ndarray, dst: np.ndarray, start: Collection[int]) -> set[int]:
    """The states that can reach one of `start` (themselves included)."""
    pred: list[list[int]] = [[] for _ in range(size)]
    for a, b in zip(src.tolist(), dst.tolist(), strict=True):
        pred[b].append(a)
    seen = set(start)
    queue = deque(seen)
    while queue:
        for p in pred[queue.popleft()]:
            if p not in seen:
                seen.add(p)
                queue.append(p)
    return seen


def apply_loopy_edit(store: StoredGraph, edit: Edit) -> EditResult:
    """Check and apply an edit to a stored game with cycles (self-loops and cycles allowed),
    then re-solve every state that can reach an edited one; write the values that changed."""
    from explorer.solver.incremental import EditResult, check_edit

    dirty = check_edit(store, edit, loops=True)
    store.change_structure(edit, dict.fromkeys(edit.add_states))
    conn, game = store.conn, store.game_id
    rows = conn.execute(states.LOOPY_ROWS, {"g": game}).all()
    src, dst = read_moves(conn, game)
    ids = [r.id for r in rows]
    position = {i: n for n, i in enumerate(ids)}  # ids may have gaps after removals
    dense_src = np.array([position[i] for i in src.tolist()], dtype=np.int64)
    dense_dst = np.array([position[i] for i in dst.tolist()], dtype=np.int64)
    new_values = label_arrays(len(ids), dense_src, dense_dst)
    start = [position[store._id(s)] for s in dirty]
    affected = _ancestors(len(ids), dense_src, dense_dst, start)
    result = EditResult(reexamined=len(affected))
    changed: dict[int, LoopyValue] = {}
    for n in sorted(affected):
        row = rows[n]
        old = (
            None
            if row.grundy is None and row.escapes is None
            else LoopyValue(row.grundy, parse_escapes(row.escapes), row.remoteness)
        )
        new = new_values[n]
        if new != old:
            changed[row.id] = new
            result.changed[row.key] = (old, new)  # type: ignore[assignment]
    if changed:
        build_id = store._record()
        store.counts.before(changed)
        conn.execute(states.UPDATE_LOOPY_VALUES, value_params(changed, build_id, game))
    return result


def store_values(
    conn: sa.Connection, game_id: int, build_id: int, values: Sequence[LoopyValue]
) -> None:
    """Write the values of states 0..n-1 of a newly stored game with cycles."""
    conn.execute(
        states.UPDATE_LOOPY_VALUES, value_params(dict(enumerate(values)), build_id, game_id)
    )


def label_stored(
    conn: sa.Connection, game_id: int, build_id: int, root: int
) -> tuple[LoopyValue, int]:
    """Give every stored state of a game whose play may loop its generalized value γ; returns
    the value of state `root` and how many states had none.

    The level-by-level solve of a build leaves the states on and above cycles without a value
    (a mex needs every follower's value first). Once every reachable state is stored, the
    game's stored moves are labelled whole (`explorer.solver.loopy`), as an imported
    ``graph:`` game is, and every state's γ, escapes, outcome and remoteness written in the
    transaction that marks the build complete.
    """
    from explorer.storage.backends.bulk import read_int_columns
    from explorer.storage.rows.counts import recount

    ids, unsolved = read_int_columns(conn, states.by_id("id", states.UNVALUED), {"g": game_id}, 2)
    src, dst = read_moves(conn, game_id)
    values = label_arrays(len(ids), np.searchsorted(ids, src), np.searchsorted(ids, dst))
    conn.execute(
        states.UPDATE_LOOPY_VALUES,
        value_params(dict(zip(ids.tolist(), values, strict=True)), build_id, game_id),
    )
    recount(conn, game_id)  # values changed in place: the game is counted again
    return values[int(np.searchsorted(ids, root))], int(unsolved.sum())
