"""How a build in tiers numbers the states its tiers reach, and keeps those still to expand.

A state gets the next id the first time a move reaches it, in the order the expansions list
what they reach (`explorer.generation.tiers.TierExpansion`), whatever the number of workers:
so a build run again numbers every state the same way (`explorer.build.tier_resume`). Only
the states of tiers not yet expanded are kept: every move lowers the tier, so once a tier is
handed to the workers, nothing reaches its states again.

Two ways, one numbering: `KeyNumbering` keeps states by their texts in a dict, for every game;
`RowNumbering`, for a heap game whose moves never split a heap, keeps them as rows of heaps
and finds them by their codes (`explorer.generation.expansion.HeapIndex`) in sorted arrays, a
tier's at a time, with numpy. Its workers get and give rows, not texts, and the rows are
kept until the workers that write them write their texts (`explorer.build.tier_rows`). A test
checks that both give every state the same id.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

import numpy as np

from explorer.build.scratch import Keys
from explorer.games.base import Game
from explorer.generation.expansion import HeapIndex
from explorer.generation.sorted_runs import Run, find_sorted, push_run
from explorer.generation.tiers import TierExpansion, TierTask, heap_rows
from explorer.storage.rows.moves import distinct

#: States a task of a tier holds, from the tier's states.
Per = Callable[[int], int]


class KeyNumbering:
    """States by their texts (every game)."""

    def __init__(self) -> None:
        self.known: dict[str, int] = {}  # the states of the tiers still to expand
        self.waiting: dict[int, tuple[list[int], list[str]]] = {}

    def start(self, root_key: str, tier: int) -> np.ndarray:
        """Number the root (id 0), of `tier`."""
        return self.add([root_key], [tier], 0)

    def number(self, found: TierExpansion, next_id: int) -> np.ndarray:
        """The ids of the states `found` reaches, numbering the new ones from `next_id`."""
        return self.add(found.keys, found.tiers.tolist(), next_id)

    def add(self, keys: list[str], tiers: list[int], next_id: int) -> np.ndarray:
        """The ids of `keys` (of `tiers`), numbering the new ones from `next_id`.

        Examples
        --------
        >>> numbering = KeyNumbering()
        >>> numbering.add(["2", "1,1", "1"], [2, 2, 1], 1).tolist()
        [1, 2, 3]
        >>> numbering.add(["1", "0"], [1, 0], 4).tolist(), numbering.states()
        ([3, 4], 4)
        """
        known = self.known
        offset = next_id - len(known)
        # a new key gets the next id, from the dict's length as it grows (in C, by map)
        ids = np.fromiter(
            map(known.setdefault, keys, map(offset.__add__, map(len, repeat(known)))),
            dtype=np.int64,
            count=len(keys),
        )
        waiting = self.waiting
        for at in np.flatnonzero(ids >= next_id).tolist():
            tier = tiers[at]
            if tier not in waiting:
                waiting[tier] = ([], [])
            state_ids, state_keys = waiting[tier]
            state_ids.append(int(ids[at]))
            state_keys.append(keys[at])
        return ids

    def states(self) -> int:
        """States numbered, not yet expanded."""
        return sum(len(ids) for ids, _ in self.waiting.values())

    def pop(self, tier: int, spec: str, per: Per) -> tuple[np.ndarray, list[TierTask]]:
        """A tier's ids (in order) and its tasks, slices of ``per(states)`` states; its states
        are forgotten."""
        ids, keys = self.waiting.pop(tier)
        size = per(len(ids))
        for key in keys:
            del self.known[key]
        tasks = [
            TierTask(spec, tier, part, tuple(keys[first : first + size]))
            for part, first in enumerate(range(0, len(keys), size))
        ]
        return np.array(ids, dtype=np.int64), tasks

    def kept(self, tasks: list[TierTask]) -> Keys:
        """A tier's states, in order, as its tasks took them (here texts)."""
        return [key for task in tasks for key in task.keys]


class RowNumbering:
    """States as rows of heaps, found by code (a heap game whose moves never split a heap)."""

    def __init__(self, game: Game[Any], index: HeapIndex) -> None:
        self.game, self.index = game, index
        self.runs: dict[int, list[Run]] = {}  # each tier's (code, id), sorted by code
        self.waiting: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}  # (ids, rows)

    @classmethod
    def suits(cls, game: Game[Any], root_key: str) -> RowNumbering | None:
        """Rows for this game's build from this root, when the game allows them."""
        heaps = game.heap_rules()
        if heaps is None or heaps.splits or not heaps.plain_keys:
            return None
        row = heap_rows((root_key,))
        if row is None:
            return None
        index = HeapIndex.of_shape(game, row.shape[1], 1 + int(row.max()), table_bytes=0)
        return None if index is None else cls(game, index)

    def start(self, root_key: str, tier: int) -> np.ndarray:
        """Number the root (id 0), of `tier`, as a row as wide as the index's."""
        rows = heap_rows((root_key,), self.index.width)
        assert rows is not None, "checked by `suits`"
        return self.add(rows, [tier], 0)

    def _codes(self, rows: np.ndarray) -> np.ndarray:
        if len(rows) and int(rows.max()) >= self.index.base:  # not from a heap game's moves
            wider = HeapIndex.of_shape(self.game, self.index.width, 1 + int(rows.max()), 0)
            assert wider is not None, f"{self.game.spec}: a move made a heap too large"
            self.index = wider
        return self.index.codes(rows)

    def number(self, found: TierExpansion, next_id: int) -> np.ndarray:
        assert found.rows is not None, "a task given as rows finds rows"
        return self.add(found.rows, found.tiers, next_id)

    def add(self, rows: np.ndarray, tiers: np.ndarray | list[int], next_id: int) -> np.ndarray:
        """The ids of `rows` (distinct, of `tiers`), numbering the new ones from `next_id` in
        their order.

        Examples
        --------
        >>> from explorer.games import load_game
        >>> numbering = RowNumbering.suits(load_game("subtraction:1,2"), "1,2")
        >>> numbering.add(np.array([[0, 2], [1, 1], [0, 1]]), [2, 2, 1], 1).tolist()
        [1, 2, 3]
        >>> numbering.add(np.array([[0, 1], [0, 0]]), [1, 0], 4).tolist(), numbering.states()
        ([3, 4], 4)
        """
        codes = self._codes(rows)
        of = np.asarray(tiers, dtype=np.int64)
        ids = np.full(len(codes), -1, dtype=np.int64)
        reached = distinct(of).tolist()
        for tier in reached:
            at = np.flatnonzero(of == tier) if len(reached) > 1 else np.arange(len(of))
            for run_codes, run_ids in self.runs.get(tier, []):
                where, hit = find_sorted(run_codes, codes[at])
                ids[at[hit]] = run_ids[where[hit]]
        new = np.flatnonzero(ids < 0)
        ids[new] = np.arange(next_id, next_id + len(new))
        for tier in distinct(of[new]).tolist():
            at = new[of[new] == tier]
            order = np.argsort(codes[at])
            push_run(self.runs.setdefault(tier, []), (codes[at][order], ids[at][order]))
            self.waiting.setdefault(tier, []).append((ids[at], rows[at]))
        return ids

    def states(self) -> int:
        return sum(len(ids) for parts in self.waiting.values() for ids, _ in parts)

    def pop(self, tier: int, spec: str, per: Per) -> tuple[np.ndarray, list[TierTask]]:
        parts = self.waiting.pop(tier)
        self.runs.pop(tier, None)
        ids = np.concatenate([ids for ids, _ in parts])
        rows = np.concatenate([rows for _, rows in parts]).astype(np.int32)
        size = per(len(ids))
        tasks = [
            TierTask(spec, tier, part, (), rows=rows[first : first + size])
            for part, first in enumerate(range(0, len(rows), size))
        ]
        return ids, tasks

    def kept(self, tasks: list[TierTask]) -> Keys:
        """A tier's states, in order, as its tasks took them (here rows)."""
        return np.concatenate([task.rows for task in tasks if task.rows is not None])


def numbering_for(game: Game[Any], root_key: str) -> KeyNumbering | RowNumbering:
    """The fastest numbering this game's build from `root_key` can use."""
    return RowNumbering.suits(game, root_key) or KeyNumbering()
