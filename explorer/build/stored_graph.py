"""A stored game seen as the store an incremental re-solve works on (`StoredGraph`): states read
by key and written back a batch at a time, in the caller's transaction, so an edit never loads
the whole graph (`explorer.build.edits`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa

from explorer.build.loopy import LoopyValue, parse_escapes
from explorer.solver.incremental import Edit, EditResult, State, StateValue
from explorer.storage.backends.bulk import StateRow, writer_for
from explorer.storage.rows.counts import CountChanges
from explorer.storage.rows.moves import add_moves, moves_at, remove_moves
from explorer.storage.rows.records import BuildCounts, insert_build, update_build
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables import states as states_table

#: Keys sent in one ``IN (...)`` list (well under SQLite's limit on bound parameters).
CHUNK = 5_000


def _chunks(items: Collection[State]) -> Iterable[list[State]]:
    listed = list(items)
    for start in range(0, len(listed), CHUNK):
        yield listed[start : start + CHUNK]


class StoredGraph:
    """One stored game seen as an `explorer.solver.incremental.SolvedGraphStore`, states by key.

    Every state met in a query is remembered with its id, value and height (kept up to date by
    the writes), so the re-solve of a batch costs three queries: successors, new values,
    predecessors. Queries go by id (the primary key: a state's row holds its moves both ways),
    never by a scan. Reads and writes go through the caller's connection: one transaction for
    the whole edit. The build row recording the edit is written with the first change, so an
    edit refused while it is checked writes nothing. The game's counts follow every write
    (``counts``, closed by `finish`).

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2")
    >>> with db.engine.begin() as conn:
    ...     store = StoredGraph(conn, 1, "edit", "an example")
    ...     store.successors(["2"]), store.values_of(["1", "3"]), store.heights_of(["2"])
    ({'2': ['0', '1']}, {'1': StateValue(grundy=1, remoteness=1)}, {'2': 2})
    >>> db.close()
    """

    def __init__(self, conn: sa.Connection, game_id: int, kind: str, method: str) -> None:
        self.conn = conn
        self.game_id = game_id
        self.kind = kind
        self.method = method
        self.build_id: int | None = None
        #: key -> [id, grundy, remoteness, height, escapes] of every state read or written
        self.rows: dict[State, list[int | None]] = {}
        self.counts = CountChanges(conn, game_id)

    def _id(self, state: State) -> int:
        return self.rows[state][0]  # type: ignore[return-value]

    def _by_id(self, statement: sa.TextClause, states: Collection[State]) -> list[Any]:
        """Rows of `statement` (which filters on ``IN :ids``) for the given stored states."""
        ids = [self._id(s) for s in self._known(states)]
        rows: list[Any] = []
        for chunk in _chunks(ids):
            rows += self.conn.execute(statement, {"g": self.game_id, "ids": chunk}).all()
        return rows

    def _known(self, states: Collection[State]) -> list[State]:
        """The given states that are stored, those not met yet looked up one key at a time.

        One equality per key: with ``key IN (...)`` SQLite, lacking statistics, scans the
        game's states instead of using the key index.
        """
        missing = [s for s in states if s not in self.rows]
        for key in missing:
            found = self.conn.execute(
                states_table.KEPT_BY_KEY, {"g": self.game_id, "k": key}
            ).one_or_none()
            if found is not None:
                self.rows[key] = list(found)
        return [s for s in states if s in self.rows]

    def existing(self, states: Collection[State]) -> set[State]:
        return set(self._known(states))

    def _linked(
        self, states: Collection[State], this: edges_table.End, other: edges_table.End
    ) -> dict[State, list[State]]:
        rows = self._by_id(edges_table.linked_kept(this, other), states)
        key_of = {self._id(s): s for s in states if s in self.rows}
        result: dict[State, list[State]] = {s: [] for s in states}
        for state, linked, *row in rows:
            result[key_of[state]].append(linked)
            self.rows[linked] = row
        return result

    def successors(self, states: Collection[State]) -> dict[State, list[State]]:
        return self._linked(states, "src", "dst")

    def predecessors(self, states: Collection[State]) -> dict[State, list[State]]:
        return self._linked(states, "dst", "src")

    def heights_of(self, states: Collection[State]) -> dict[State, int]:
        return {s: self.rows[s][3] for s in self._known(states)}  # type: ignore[misc]

    def values_of(self, states: Collection[State]) -> dict[State, StateValue]:
        """Stored values; an infinite one (a game with cycles) as a `LoopyValue`."""
        rows = ((s, self.rows[s]) for s in self._known(states))
        found: dict[State, Any] = {
            s: StateValue(r[1], r[2])  # type: ignore[arg-type]
            if r[4] is None
            else LoopyValue(None, parse_escapes(r[4]), r[2])  # type: ignore[arg-type]
            for s, r in rows
            if r[1] is not None or r[4] is not None
        }
        return found

    def _record(self) -> int:
        if self.build_id is None:
            self.build_id = insert_build(
                self.conn, game_id=self.game_id, kind=self.kind, method=self.method
            )
        return self.build_id

    def _each(self, statement: sa.TextClause, rows: Sequence[Mapping[str, object]]) -> int:
        """Run `statement` once per row; the number of rows it changed."""
        return self.conn.execute(statement, rows).rowcount if rows else 0

    def _remove_moves(self, edit: Edit) -> int:
        """Take the edit's removed moves, and every move of its removed states, out of the
        rows of their ends; the number of stored moves taken."""
        at = self._id
        asked = {(at(a), at(b)) for a, b in edit.remove_edges}
        ends = [i for pair in asked for i in pair]
        stored = moves_at(self.conn, self.game_id, ends)
        gone = moves_at(self.conn, self.game_id, [at(s) for s in edit.remove_states])
        taken = sorted((asked & stored) | gone)
        pairs = np.array(taken, dtype=np.int64).reshape(-1, 2)
        remove_moves(self.conn, self.game_id, pairs[:, 0], pairs[:, 1])
        return len(taken)

    def change_structure(self, edit: Edit, heights: Mapping[State, int | None]) -> None:
        build = self._record()
        game, at = self.game_id, self._id
        self._known({s for e in (*edit.remove_edges, *edit.add_edges) for s in e})
        removed = self._remove_moves(edit)
        gone = [{"g": game, "s": at(s)} for s in edit.remove_states]
        self.counts.before(at(s) for s in edit.remove_states)
        self._each(states_table.DELETE, gone)
        for s in edit.remove_states:
            del self.rows[s]
        if edit.add_states:
            self._insert_states(edit, heights, build)
        added = np.array([(at(a), at(b)) for a, b in edit.add_edges], dtype=np.int64)
        add_moves(self.conn, game, *added.reshape(-1, 2).T)
        self.counts.edges(len(added) - removed)
        raised = {s: h for s, h in heights.items() if s not in set(edit.add_states)}
        self.counts.before(at(s) for s in raised)
        self._each(
            states_table.SET_HEIGHT,
            [{"h": h, "g": game, "s": at(s)} for s, h in raised.items()],
        )
        for s, h in raised.items():
            self.rows[s][3] = h

    def _insert_states(self, edit: Edit, heights: Mapping[State, int | None], build: int) -> None:
        """New states get ids above the game's largest and a depth one below their shallowest
        stored predecessor (0 without one)."""
        new = set(edit.add_states)
        first = self.conn.execute(states_table.NEXT_ID, {"g": self.game_id}).scalar_one()
        preds = {v for v, w in edit.add_edges if w in new and v not in new}
        depth_of = dict(self._by_id(states_table.DEPTHS, preds))
        rows: list[StateRow] = []
        for offset, key in enumerate(edit.add_states):
            above = [depth_of[v] for v, w in edit.add_edges if w == key and v in depth_of]
            depth = 1 + min(above) if above else 0
            self.rows[key] = [first + offset, None, None, heights[key], None]
            rows.append(
                StateRow(
                    game_id=self.game_id,
                    id=first + offset,
                    key=str(key),
                    depth=depth,
                    expanded=True,
                    grundy=None,
                    outcome=None,
                    remoteness=None,
                    height=heights[key],
                    build_id=build,
                    value_build_id=None,
                )
            )
        self.counts.before(row.id for row in rows)  # none stored yet: counted at the end
        writer_for(self.conn).insert_states(rows)

    def write_values(self, values: dict[State, StateValue]) -> None:
        build = self._record()
        self.counts.before(self._id(s) for s in values)
        self._each(
            states_table.SET_VALUE,
            [
                {
                    "grundy": v.grundy,
                    "outcome": v.outcome,
                    "far": v.remoteness,
                    "b": build,
                    "g": self.game_id,
                    "s": self._id(s),
                }
                for s, v in values.items()
            ],
        )
        for s, v in values.items():
            self.rows[s][1:3] = [v.grundy, v.remoteness]

    def finish(self, edit: Edit, result: EditResult) -> None:
        """Close the build row with what the edit did, and count what it changed."""
        if self.build_id is None:
            return
        self.counts.finish()
        counts = BuildCounts(
            states_new=len(edit.add_states),
            edges_new=len(edit.add_edges),
            values_computed=result.reexamined,
        )
        update_build(self.conn, self.build_id, "complete", counts)
