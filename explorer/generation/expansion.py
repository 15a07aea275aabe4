"""Expanding states for a build: successors of a batch of states, with new states numbered.

Two ways, one contract: `PositionIndex` works for every game through ``game.successors``;
`HeapIndex` does the same for heap games whose moves never split a heap (Nim, subtraction and
Bash games), with numpy, from the game's own ``heap_moves``. Both list successors in the order
``game.successors`` yields them and number new states in order of discovery, so a build gives
the same ids whichever is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice, repeat
from math import comb
from typing import Any

import numpy as np

from explorer.adjacency import ranges
from explorer.errors import GraphTooLargeError
from explorer.games.base import Game, HeapRules, Position
from explorer.games.heaps import Heaps
from explorer.generation.sorted_runs import Run, find_sorted, push_run

#: Heap games are expanded with numpy when positions fit in this many heaps ...
MAX_VECTOR_HEAPS = 16
#: ... and the number of such positions (the codes of `HeapIndex`) fits in a signed 64-bit integer.
MAX_CODE = 2**62

#: Heap games are expanded with numpy only up to this heap size (their move tables are
#: indexed by heap size); larger heaps go through ``game.successors``.
MAX_TABLE_HEAP = 2**20
#: Most moves one state may have: a build keeps a state's moves together in one batch.
MAX_STATE_MOVES = 1_000_000

#: Codes up to this many are found by direct lookup in a table (64 MiB of address space) ...
MAX_DENSE = 2**24
#: ... taking at most this share of a build's memory budget: new states touch its pages at
#: random, so it grows faster than the states do (nim 400,400,400 under --memory 200 went 6 MiB
#: over the budget with a 43 MB table); beyond it, codes are kept in sorted runs.
TABLE_SHARE_OF_BUDGET = 1 / 16

_COMMA = np.array(["", ","], dtype=object)


class Expansion:
    """The result of expanding a prefix of the states asked for.

    ``done`` states were expanded (the first ones asked); ``src``/``dst`` are their edges, each
    state's successors in the game's order without repeats. ``needs``: the new states the
    next state would have numbered, when the budget stopped the expansion before it (else 0).
    """

    __slots__ = ("done", "src", "dst", "needs")

    def __init__(self, done: int, src: np.ndarray, dst: np.ndarray, needs: int = 0) -> None:
        self.done, self.src, self.dst, self.needs = done, src, dst, needs


class PositionIndex:
    """States of one game numbered 0, 1, 2, ... with their positions, for any game."""

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.positions: list[Position | None] = []
        self.ids: dict[Position, int] = {}

    @property
    def next_id(self) -> int:
        return len(self.positions)

    def load(self, ids: Sequence[int], positions: Sequence[Position]) -> None:
        """Take stored states: their ids and positions."""
        size = max(ids) + 1 if len(ids) else 0
        if size > len(self.positions):
            self.positions.extend([None] * (size - len(self.positions)))
        for state, position in zip(ids, positions, strict=True):
            self.positions[state] = position
            self.ids[position] = state

    def find(self, position: Position) -> int | None:
        return self.ids.get(position)

    def add(self, position: Position) -> int:
        state = len(self.positions)
        self.positions.append(position)
        self.ids[position] = state
        return state

    def keys(self, states: range) -> list[str]:
        """The canonical texts of states (as ``game.format`` writes them)."""
        return self.game.format_many(self.positions[states.start : states.stop])

    def expand(
        self, states: np.ndarray, new_budget: int | None, first_new: int, reached: np.ndarray
    ) -> Expansion:
        """Expand `states` in order while their new states fit in `new_budget` (a state whose
        moves would number more is left unexpanded), or until just after a state with a move
        to a stored state not yet reached (the caller must reach it before going on).

        A state's moves are numbered by one ``map`` of ``dict.setdefault`` (in C): a new
        position gets the next id, from the dict's length as it grows; a loop in Python per
        move cost a game written in Python as much as its own rules.
        """
        game, ids, positions = self.game, self.ids, self.positions
        # asked only of games that can count: the default answer is None for every position
        count_moves = None if type(game).count_moves is Game.count_moves else game.count_moves
        number = ids.setdefault
        # the id a new position gets: the dict's length as it grows (plus the ids it does not
        # hold, of stored states gone), taken by ``map`` one per move
        next_ids = map((len(positions) - len(ids)).__add__, map(len, repeat(ids)))
        start = len(ids)
        most = start + new_budget if new_budget is not None else None
        dst: list[int] = []
        ends: list[int] = []
        needs = 0
        state_list = states.tolist()
        asked: Iterator[Position] = map(positions.__getitem__, state_list)
        if count_moves is not None:  # moves counted at once, before any is listed
            asked = _counted(game, asked, count_moves)
        lists = game.successor_lists(asked, MAX_STATE_MOVES)
        try:
            for state, moves in zip(state_list, lists, strict=False):
                if len(moves) > MAX_STATE_MOVES:
                    raise too_many_moves(game, positions[state])
                # distinct successors in the order listed, a new one numbered where first seen
                first = len(dst)
                try:
                    if most is not None and len(ids) + len(moves) > most:
                        needs = sum(move not in ids for move in dict.fromkeys(moves))
                        if len(ids) + needs > most:  # past the budget: left for the next run
                            break
                        needs = 0
                    dst.extend(dict.fromkeys(map(number, moves, next_ids)))
                except TypeError:  # a move that cannot be hashed: the game's checks say which
                    list(game.successors(positions[state]))
                    raise
                ends.append(len(dst))
                if first_new and any(t < first_new and not reached[t] for t in dst[first:]):
                    break
                if most is not None and len(ids) >= most:
                    break
        finally:
            # the new positions are the dict's last keys, in the order they were numbered
            new = list(islice(reversed(ids), len(ids) - start))
            new.reverse()
            positions.extend(new)
        done = len(ends)
        counts = np.diff(np.array([0, *ends], dtype=np.int64)).astype(np.int64)
        src = np.repeat(states[:done], counts)
        return Expansion(done, src, np.array(dst, dtype=np.int64), needs)


def _counted(
    game: Game[Any], positions: Iterable[Position], count_moves: Callable[[Any], int | None]
) -> Iterator[Position]:
    """The positions, each refused first if `count_moves` counts more than `MAX_STATE_MOVES`."""
    for position in positions:
        counted = count_moves(position)
        if counted is not None and counted > MAX_STATE_MOVES:
            raise too_many_moves(game, position)
        yield position


def too_many_moves(game: Game[Any], position: Position) -> GraphTooLargeError:
    key = GraphTooLargeError.quoted(game.format(position))
    return GraphTooLargeError(
        f"position {key!r} of {game.spec} has more than {MAX_STATE_MOVES:,} moves: a build "
        "keeps a position's moves together in one batch, so it cannot be built",
        MAX_STATE_MOVES,
    )


class HeapIndex:
    """States of a non-splitting heap game as rows of heap sizes, found by integer codes.

    A position is a row of ``width`` heap sizes sorted ascending, zeros first; its code is its
    rank among all such rows (the combinatorial number system: h_0 <= h_1 <= ... ranks as the
    sum of C(h_j + j, j + 1)), so codes run densely from 0 to C(base + width - 1, width) - 1,
    a sixth of base**3 for three heaps. Successors come from a table of ``heap_moves``.
    """

    def __init__(
        self, game: HeapRules, width: int, base: int, table_bytes: int | None = None
    ) -> None:
        self.game = game
        self.width, self.base = width, base
        self.rows = np.zeros((1024, width), dtype=np.int32)  # heaps < MAX_TABLE_HEAP
        self.size = 0
        # column j of a row adds C(h + j, j + 1) to its code: one table per column
        # (C(h + j, j + 1) - C(h - 1 + j, j + 1) = C(h - 1 + j, j): each a running sum of the last)
        self.ranks = np.zeros((width, base), dtype=np.int64)
        self.ranks[0] = np.arange(base)
        for j in range(1, width):
            self.ranks[j, 1:] = np.cumsum(self.ranks[j - 1, 1:])
        # id + 1 of each code (0: unknown) when codes are few enough for a table: zeroed
        # pages cost no memory until written (a 10M-state game of three heaps fits).
        codes = comb(base + width - 1, width)
        most = MAX_DENSE if table_bytes is None else min(MAX_DENSE, table_bytes // 4)
        self.dense = np.zeros(codes, np.uint32) if codes <= most else None
        # Otherwise sorted runs of (code, id) (`explorer.generation.sorted_runs`): a round sorts
        # only its own codes, so numbering n states costs n log n in all.
        self.runs: list[Run] = []
        self._texts: np.ndarray | None = None  # the decimal text of each heap size, made once
        # moves of a heap of h: move_result[move_start[h] : move_start[h] + move_count[h]],
        # listed the first time a heap of h is expanded (-1: not yet). Listing every heap up
        # to the largest at once costs the square of it for Nim: 200 million moves at 20,000.
        self.move_count = np.full(base, -1, dtype=np.int64)
        self.move_start = np.zeros(base, dtype=np.int64)
        self.move_result = np.empty(0, dtype=np.int64)

    @classmethod
    def suits(
        cls, game: Game[Any], positions: Sequence[Any], table_bytes: int | None = None
    ) -> HeapIndex | None:
        """A heap index for these positions when the game allows one, else None; its lookup
        table takes at most `table_bytes` (None: `MAX_DENSE` codes)."""
        if game.heap_rules() is None or not positions:
            return None
        width = max(1, max(len(p) for p in positions))
        base = 1 + max((max(p) for p in positions if p), default=0)
        return cls.of_shape(game, width, base, table_bytes)

    @classmethod
    def of_shape(
        cls, game: Game[Any], width: int, base: int, table_bytes: int | None = None
    ) -> HeapIndex | None:
        """A heap index for rows of `width` heaps below `base` when the game allows one."""
        heaps = game.heap_rules()
        if heaps is None:
            return None
        if (
            width > MAX_VECTOR_HEAPS
            or base > MAX_TABLE_HEAP
            or comb(base + width - 1, width) >= MAX_CODE
            or heaps.splits
            or not heaps.plain_keys
        ):
            return None  # a split adds heaps: rows would change width; `keys` writes plain
        return cls(heaps, width, base, table_bytes)

    @property
    def next_id(self) -> int:
        return self.size

    def _list_moves(self, heaps: np.ndarray) -> None:
        """Make sure the moves of every heap size in `heaps` are in the move table."""
        sizes = np.unique(heaps)
        sizes = sizes[self.move_count[sizes] < 0]
        if not sizes.size:
            return
        results: list[int] = []
        for heap in sizes.tolist():
            moves = [sum(result) for result in self.game.heap_moves(heap)]
            self.move_start[heap] = len(self.move_result) + len(results)
            self.move_count[heap] = len(moves)
            results.extend(moves)
        self.move_result = np.concatenate([self.move_result, np.array(results, dtype=np.int64)])

    def codes(self, rows: np.ndarray) -> np.ndarray:
        """The rank of each row (of sorted heaps) among all rows."""
        codes: np.ndarray = self.ranks[0][rows[:, 0]]
        for column in range(1, self.width):
            codes = codes + self.ranks[column][rows[:, column]]
        return codes

    def _row(self, position: Heaps) -> np.ndarray:
        row = np.zeros(self.width, dtype=np.int64)
        heaps = list(position)
        if heaps:
            row[self.width - len(heaps) :] = heaps
        return row

    def _append(self, rows: np.ndarray) -> range:
        start = self.size
        if start + len(rows) > len(self.rows):
            grown = np.zeros((max(start + len(rows), 2 * len(self.rows)), self.width), np.int32)
            grown[:start] = self.rows[:start]
            self.rows = grown
        self.rows[start : start + len(rows)] = rows
        self.size += len(rows)
        return range(start, self.size)

    def _index(self, codes: np.ndarray, ids: np.ndarray) -> None:
        if self.dense is not None:
            self.dense[codes] = ids + 1
            return
        if not len(codes):
            return
        order = np.argsort(codes)
        push_run(self.runs, (codes[order], ids[order].astype(np.int32)))

    def _lookup(self, codes: np.ndarray) -> np.ndarray:
        """The id of each code, -1 where unknown."""
        if self.dense is not None:
            found: np.ndarray = self.dense[codes].astype(np.int64) - 1
            return found
        found = np.full(len(codes), -1, dtype=np.int64)
        for run_codes, run_ids in self.runs:
            at, hit = find_sorted(run_codes, codes)
            found[hit] = run_ids[at[hit]]
        return found

    def load(self, ids: Sequence[int], positions: Sequence[Heaps]) -> None:
        if not len(ids):
            return
        size = max(ids) + 1
        rows = np.zeros((size, self.width), dtype=np.int32)
        for state, position in zip(ids, positions, strict=True):
            rows[state] = self._row(position)
        self.size = 0
        self._append(rows)
        id_array = np.asarray(ids, dtype=np.int64)
        self._index(self.codes(rows[id_array]), id_array)

    def load_rows(self, rows: np.ndarray) -> None:
        """Take states 0, 1, ... as rows of heaps (sorted ascending, zeros first)."""
        self.size = 0
        self._append(rows)
        self._index(self.codes(rows), np.arange(len(rows), dtype=np.int64))

    def find(self, position: Heaps) -> int | None:
        if len(position) > self.width or (position and max(position) >= self.base):
            return None
        state = int(self._lookup(self.codes(self._row(position)[None, :]))[0])
        return None if state < 0 else state

    def add(self, position: Heaps) -> int:
        row = self._row(position)
        (state,) = self._append(row[None, :])
        self._index(self.codes(row[None, :]), np.array([state]))
        return state

    def keys(self, states: range) -> list[str]:
        """The canonical texts of states, joined column by column on object arrays.

        Each heap becomes its decimal text by table lookup (an absent heap, 0, becomes "");
        a comma goes before a heap when the heap before it is there. This writes what
        ``game.format`` writes (a test checks) at a fifth of the cost of calling it per state.
        """
        rows = self.rows[states.start : states.stop]
        if not len(rows):
            return []
        if self._texts is None:
            self._texts = np.array(["", *map(str, range(1, self.base))], dtype=object)
        texts = self._texts
        keys = texts[rows[:, 0]]
        for column in range(1, self.width):
            # rows are sorted, zeros first: a heap present means every later one is too
            keys = keys + _COMMA[(rows[:, column - 1] > 0).astype(np.intp)]
            keys = keys + texts[rows[:, column]]
        keys[rows[:, -1] == 0] = self.game.format(())
        return keys.tolist()  # type: ignore[no-any-return]

    def expand(
        self, states: np.ndarray, new_budget: int | None, first_new: int, reached: np.ndarray
    ) -> Expansion:
        rows = self.rows[states]
        # every distinct non-empty heap of each state, in order (successors skips repeats)
        distinct = rows > 0
        distinct[:, 1:] &= rows[:, 1:] != rows[:, :-1]
        parent, column = np.nonzero(distinct)
        heap = rows[parent, column]
        self._list_moves(heap)
        counts = self.move_count[heap]
        parent = np.repeat(parent, counts)
        column = np.repeat(column, counts)
        children = rows[parent]
        children[np.arange(len(parent)), column] = self.move_result[
            ranges(self.move_start[heap], counts)
        ]
        children.sort(axis=1)
        codes = self.codes(children)
        # a move reached twice from one state is one edge (the first)
        order = np.lexsort((codes, parent))
        repeat = np.zeros(len(codes), dtype=bool)
        repeat[order[1:]] = (parent[order[1:]] == parent[order[:-1]]) & (
            codes[order[1:]] == codes[order[:-1]]
        )
        keep = ~repeat
        parent, codes, children = parent[keep], codes[keep], children[keep]
        ids = self._lookup(codes)
        unknown = np.flatnonzero(ids < 0)
        new_codes, first_seen = np.unique(codes[unknown], return_index=True)
        first_at = unknown[first_seen]  # where each new state is first reached
        done, needs = len(states), 0
        if new_budget is not None and len(first_at):
            # parents are expanded while their new states fit in the budget
            new_per_parent = np.bincount(parent[first_at], minlength=len(states))
            done = int(np.searchsorted(np.cumsum(new_per_parent), new_budget, side="right"))
            needs = int(new_per_parent[done]) if done < len(states) else 0
        if first_new:
            known = ids >= 0
            stops = known.copy()
            stops[known] = (ids[known] < first_new) & ~reached[ids[known]]
            if stops.any() and int(parent[np.flatnonzero(stops)[0]]) + 1 < done:
                done, needs = int(parent[np.flatnonzero(stops)[0]]) + 1, 0
        if done < len(states):
            kept = parent < done
            first_at = first_at[kept[first_at]]
            parent, codes, children, ids = parent[kept], codes[kept], children[kept], ids[kept]
            new_codes = codes[first_at]
        # number new states in order of first discovery
        by_discovery = np.argsort(first_at, kind="stable")
        first_at, new_codes = first_at[by_discovery], new_codes[by_discovery]
        new_ids = np.arange(self.size, self.size + len(first_at), dtype=np.int64)
        self._append(children[first_at])
        self._index(new_codes, new_ids)
        ids = np.where(ids < 0, self._lookup(codes), ids)
        return Expansion(done, states[parent], ids, needs)


def position_index(
    game: Game[Any],
    ids: Sequence[int],
    positions: Sequence[Any],
    root: Position,
    memory: int | None = None,
) -> PositionIndex | HeapIndex:
    """The fastest index able to hold a game's stored states (given parsed) and `root`'s,
    within a build's memory budget (`TABLE_SHARE_OF_BUDGET` of it for a lookup table)."""
    table = None if memory is None else int(memory * TABLE_SHARE_OF_BUDGET)
    index = HeapIndex.suits(game, [root, *positions], table) or PositionIndex(game)
    index.load(ids, positions)
    return index
