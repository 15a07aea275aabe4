"""The pruned nimber search (Lemoine and Viennot; Beling and Rogalski): a game whose positions
split into components is valued component by component, asking "is the value k?" and
searching only as far as the answer needs.

A component is named by a canonical key (a rule set's `ComponentRules.moves` gives, for each
distinct move, the keys of the components it leaves). ``has_value(c, k)`` decides G(c) = k:
every j < k must be reached by some move (each move answers one j at most, so a move found
for j is set aside), and no move may reach k. A move that leaves several components is
reached at j when the XOR of the others' values, computed in full, and the largest one's
"is it j ^ XOR?" agree, so the nim-sum of the other components cuts the search of the
largest. Exact values go to a table keyed by the canonical key (shared by every position and
run, and stored as parts); a search that shows G(c) > k keeps k + 1 as a lower bound.

The search recurses, but each call is on a strictly smaller component, so its depth is bounded
by the component's size (`PrunedSearch` raises Python's limit to that bound).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from explorer.errors import SearchMemoryError, StoredPartError

K = TypeVar("K", bound=Hashable)

#: Bytes one component with an exact value takes in the tables, about (a key, a value, its
#: place in a dict and the list of new keys): what the memory bound counts.
BYTES_PER_VALUE = 200
#: Bytes one component's remembered moves take, about, per move.
BYTES_PER_MOVE = 120
#: Memory the search may take by default, in MiB (``--memory`` raises it).
DEFAULT_SEARCH_MEMORY_MB = 4096


class ComponentRules(Protocol[K]):
    """What the pruned search needs of a game: canonical components and their moves."""

    #: The part family whose table keeps the values (``part_values.family``).
    family: str

    def moves(self, key: K) -> Sequence[tuple[K, ...]]:
        """The distinct moves of component `key`, each as the sorted keys of the components
        it leaves (components worth 0 for certain may be left out, equal pairs cancelled)."""
        ...

    def known(self, key: K) -> int | None:
        """The value of a component known without search (a formula, a symmetry), or None."""
        ...

    def lower_bound(self, key: K) -> int:
        """A number the value is known to reach (1 for a component known to be N), else 0."""
        ...

    def size(self, key: K) -> int:
        """The component's size (cells, vertices): easy moves first, and the depth bound."""
        ...

    def label(self, key: K) -> str:
        """The stored text of a key (the part table's label)."""
        ...

    def key(self, label: str) -> K:
        """The key of a stored label."""
        ...

    def canonical_key(self, label: str) -> K:
        """The key of a stored label, checked: ValueError when it is not the canonical label
        of a component (a stored component rebuilt from its label, by `explorer verify`)."""
        ...


@dataclass
class SearchStats:
    """What a search did: components searched, table hits, values found."""

    searched: int = 0
    hits: int = 0
    values: int = 0
    shortcuts: set[str] = field(default_factory=set)


@contextmanager
def recursion_room(depth: int) -> Iterator[None]:
    """Room for `depth` nested calls while the block runs, and the interpreter's limit as it
    was after: left raised, a rule that calls itself forever later overflows the C stack and
    kills the process instead of raising RecursionError."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, depth))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


class PrunedSearch(Generic[K]):
    """Values of components by the pruned search, with its tables (exact values, lower
    bounds, remembered moves) kept for the process.

    Examples
    --------
    >>> class Heaps:  # Nim heaps as components: a heap of n moves to any smaller heap
    ...     family = "nim-heaps"
    ...     def moves(self, n): return [(m,) if m else () for m in range(n)]
    ...     def known(self, n): return 0 if n == 0 else None
    ...     def lower_bound(self, n): return 0
    ...     def size(self, n): return n
    ...     def label(self, n): return str(n)
    ...     def key(self, text): return int(text)
    >>> search = PrunedSearch(Heaps())
    >>> search.value(5), search.has_value(7, 7), search.has_value(7, 3)
    (5, True, False)
    """

    def __init__(
        self,
        rules: ComponentRules[K],
        *,
        max_memory_mb: int | None = None,
        hardest_first: bool = False,
    ) -> None:
        self.rules = rules
        #: Try the moves that leave the largest components first (an independent check of
        #: a result: another move order, the same values).
        self.hardest_first = hardest_first
        self.values: dict[K, int] = {}
        self.lower: dict[K, int] = {}
        self.move_memo: dict[K, list[tuple[K, ...]]] = {}
        self.memo_moves = 0
        self.fresh: list[K] = []
        #: How many labelled values the search has taken from a part table (`adopt`).
        self.adopted = 0
        #: Keys of stored values not checked yet, and the labels of those its table keeps.
        self.unchecked: set[K] = set()
        self.unchecked_labels: set[str] = set()
        self.stats = SearchStats()
        self.max_memory_mb = max_memory_mb or DEFAULT_SEARCH_MEMORY_MB
        #: Called every `report_every` seconds with the search (progress, checkpoints).
        self.report: Callable[[PrunedSearch[K]], None] | None = None
        self.report_every = 2.0
        self._next_report = time.monotonic() + self.report_every

    # -- tables -------------------------------------------------------------------------------
    def adopt(self, labelled: dict[str, int], unchecked: set[str] | None = None) -> int:
        """Take values stored by label (a part table's family); how many were new. Those
        labelled in `unchecked` (read from a store) are checked against their moves when the
        search first uses them, and their labels leave `unchecked` once right.

        Raises
        ------
        StoredPartError
            When the search uses a stored value that its moves do not give.
        """
        new = 0
        unchecked = set() if unchecked is None else unchecked
        self.unchecked_labels = unchecked
        for label, value in labelled.items():
            key = self.rules.key(label)
            if key not in self.values:
                self.values[key] = value
                if label in unchecked:
                    self.unchecked.add(key)
                new += 1
        return new

    def _check_stored(self, key: K) -> None:
        """Check a stored value by asking the search whether it is the component's value,
        over its moves (each stored value they use checked in turn): a wrong one is refused,
        and the table keeps the value found instead."""
        self.unchecked.discard(key)
        stored = self.values.pop(key)
        label = self.rules.label(key)
        right = self.has_value(key, stored)
        if self.fresh and self.fresh[-1] == key:
            self.fresh.pop()  # stored already (or refused): not new
        if not right:
            raise StoredPartError.of(self.rules.family, label, stored, self.value(key))
        self.unchecked_labels.discard(label)

    def take_fresh(self) -> list[tuple[str, int]]:
        """The values found since the last call, as (label, value)."""
        fresh, self.fresh = self.fresh, []
        return [(self.rules.label(key), self.values[key]) for key in fresh]

    def size(self) -> int:
        """Components with an exact value in the table."""
        return len(self.values)

    def memory_bytes(self) -> int:
        """The tables' size, about."""
        return BYTES_PER_VALUE * (len(self.values) + len(self.lower)) + BYTES_PER_MOVE * (
            self.memo_moves
        )

    def _store(self, key: K, value: int) -> None:
        self.values[key] = value
        self.fresh.append(key)
        self.lower.pop(key, None)
        moves = self.move_memo.pop(key, None)
        if moves is not None:
            self.memo_moves -= len(moves) + 1
        self.stats.values += 1

    def _check(self) -> None:
        """Progress, and the memory bound: remembered moves are dropped first."""
        now = time.monotonic()
        if now < self._next_report:
            return
        self._next_report = now + self.report_every
        limit = self.max_memory_mb * 2**20
        if self.memory_bytes() > limit // 2:
            self.move_memo.clear()
            self.memo_moves = 0
        if self.memory_bytes() > limit:
            raise SearchMemoryError(
                f"the pruned search's tables hold {len(self.values):,} values, about "
                f"{self.memory_bytes() / 2**20:,.0f} MiB, over the limit of "
                f"{self.max_memory_mb:,} MiB (raise it with --memory; the values found are "
                "kept with --db)"
            )
        if self.report is not None:
            self.report(self)

    def _known(self, key: K) -> int | None:
        value = self.values.get(key)
        if value is not None:
            if key in self.unchecked:
                self._check_stored(key)
            self.stats.hits += 1
            return value
        value = self.rules.known(key)
        if value is not None:
            self.values[key] = value
        return value

    def _moves(self, key: K) -> list[tuple[K, ...]]:
        moves = self.move_memo.get(key)
        if moves is None:
            moves = list(self.rules.moves(key))
            self.move_memo[key] = moves
            self.memo_moves += len(moves) + 1
        return moves

    def _split(self, key: K) -> tuple[int, list[list[object]]]:
        """The values known among the moves (a bit mask), and the others, easiest first, each
        as [XOR of the values known so far, components left, largest first]."""
        reached = 0
        pending: list[tuple[int, list[object]]] = []
        size = self.rules.size
        for move in self._moves(key):
            total = 0
            left: list[K] = []
            for part in move:
                value = self._known(part)
                if value is None:
                    left.append(part)
                else:
                    total ^= value
            if not left:
                reached |= 1 << total
                continue
            left.sort(key=size, reverse=True)
            pending.append((sum(size(p) ** 2 for p in left), [total, left]))
        pending.sort(key=lambda item: item[0], reverse=self.hardest_first)
        return reached, [move for _, move in pending]

    def _move_has(self, move: list[object], target: int) -> bool:
        """Whether a pending move reaches `target`: the components after the largest are
        valued in full (once: their XOR is kept in the move), the largest only asked."""
        left: list[K] = move[1]  # type: ignore[assignment]
        while len(left) > 1:
            move[0] = move[0] ^ self.value(left.pop())  # type: ignore[operator]
        return self.has_value(left[0], target ^ move[0])  # type: ignore[operator]

    # -- the search ---------------------------------------------------------------------------
    def value(self, key: K) -> int:
        """The value of one component."""
        known = self._known(key)
        if known is not None:
            return known
        self.stats.searched += 1
        self._check()
        reached, pending = self._split(key)
        target = max(self.lower.get(key, 0), self.rules.lower_bound(key))
        while True:
            if reached >> target & 1:
                target += 1
                continue
            for index, move in enumerate(pending):
                if self._move_has(move, target):
                    del pending[index]
                    break
            else:
                self._store(key, target)
                return target
            target += 1

    def has_value(self, key: K, target: int) -> bool:
        """Whether the value of one component is `target`."""
        known = self._known(key)
        if known is not None:
            return known == target
        lower = max(self.lower.get(key, 0), self.rules.lower_bound(key))
        if target < lower:
            return False
        self.stats.searched += 1
        self._check()
        reached, pending = self._split(key)
        if reached >> target & 1:
            return False
        if len(pending) + reached.bit_count() < target:
            return False  # too few moves to reach every smaller value
        for smaller in range(lower, target):
            if reached >> smaller & 1:
                continue
            for index, move in enumerate(pending):
                if self._move_has(move, smaller):
                    del pending[index]
                    break
            else:
                self._store(key, smaller)
                return False
        if any(self._move_has(move, target) for move in pending):
            self.lower[key] = target + 1  # every value up to target is reached
            return False
        self._store(key, target)
        return True

    def total(self, keys: Sequence[K]) -> int:
        """The value of a sum of components (the XOR of theirs)."""
        result = 0
        with recursion_room(4 * sum(self.rules.size(k) for k in keys) + 200):
            for key in keys:
                result ^= self.value(key)
        return result

    def sum_is(self, keys: Sequence[K], target: int) -> bool:
        """Whether a sum of components is worth `target`: all but the largest valued, the
        largest only asked (a P-position test with `target` 0)."""
        if not keys:
            return target == 0
        ordered = sorted(keys, key=self.rules.size, reverse=True)
        rest = 0
        with recursion_room(4 * sum(self.rules.size(k) for k in keys) + 200):
            for key in ordered[1:]:
                rest ^= self.value(key)
            return self.has_value(ordered[0], target ^ rest)
