"""The values the analysis solved from game graphs, remembered per game spec to be reused, up to
a bound: the games used least recently are forgotten first. Games hold no caches of this kind.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from typing import Any

#: Most positions remembered over all games; past it, the games used least recently are forgotten
#: (about 150 MB at a million positions of a few small heaps).
MEMO_POSITIONS = 1_000_000


class GraphMemo:
    """Values of positions solved from game graphs, by game spec (games are values by spec, so
    every object of one spec shares them), with the labelling stage and counter of each position
    of a graph with cycles, for `explain`.

    The positions of one game stay together: adding a graph that would take its game past
    `max_positions` forgets that game's older positions first, so a graph just added is always
    remembered whole.

    Examples
    --------
    >>> memo = GraphMemo(max_positions=3)
    >>> memo.remember("nim", {(1,): 1, (): 0})
    >>> memo.value("nim", (1,)), memo.value("nim", (2,))
    (1, None)
    >>> memo.remember("wythoff", {(0, 0): 0, (0, 1): 1})  # nim is used least recently
    >>> memo.value("nim", (1,)), memo.value("wythoff", (0, 1)), len(memo)
    (None, 1, 2)
    """

    def __init__(self, max_positions: int = MEMO_POSITIONS) -> None:
        self.max_positions = max_positions
        self._values: OrderedDict[str, dict[Hashable, Any]] = OrderedDict()
        self._labels: dict[str, dict[Hashable, tuple[int, int | None]]] = {}
        self._size = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._size

    def value(self, spec: str, position: Hashable) -> Any:
        """The value remembered for `position` of the game `spec`, or None."""
        with self._lock:
            known = self._values.get(spec)
            if known is None:
                return None
            self._values.move_to_end(spec)
            return known.get(position)

    def label(self, spec: str, position: Hashable) -> tuple[int, int | None] | None:
        """The (stage, counter) at which `position` got its value in a graph with cycles, or
        None (a graph without cycles, or a position not remembered)."""
        with self._lock:
            return self._labels.get(spec, {}).get(position)

    def remember(
        self,
        spec: str,
        values: Mapping[Hashable, Any],
        labels: Mapping[Hashable, tuple[int, int | None]] | None = None,
    ) -> None:
        """Remember the values of one graph of the game `spec` (and their labels, if any)."""
        with self._lock:
            known = self._values.get(spec, {})
            if len(known) + len(values) > self.max_positions:
                self._forget(spec)
                known = {}
            before = len(known)
            known.update(values)
            self._size += len(known) - before
            self._values[spec] = known
            self._values.move_to_end(spec)
            if labels:
                self._labels.setdefault(spec, {}).update(labels)
            while self._size > self.max_positions and next(iter(self._values)) != spec:
                self._forget(next(iter(self._values)))

    def clear(self) -> None:
        """Forget every game."""
        with self._lock:
            self._values.clear()
            self._labels.clear()
            self._size = 0

    def _forget(self, spec: str) -> None:
        self._size -= len(self._values.pop(spec, {}))
        self._labels.pop(spec, None)


#: The memo `explorer.analysis.solving` reads and fills.
GRAPH_MEMO = GraphMemo()
