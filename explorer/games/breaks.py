"""The values reached by breaking a heap into many heaps with no condition on them, for every
total at once: sets of XORs grown total by total (take-and-break codes such as ``0.{2+}``)."""

from __future__ import annotations

import numpy as np

from explorer.machine import check_memory_need


def _combine(previous: np.ndarray, table: np.ndarray, total: int, index: np.ndarray) -> np.ndarray:
    """The XORs G(a) ^ x over parts 1 <= a < total and x in previous[total - a]."""
    if total < 2:
        return np.zeros(previous.shape[1], dtype=bool)
    parts = np.arange(1, total)
    values = table[parts]
    order = np.argsort(values, kind="stable")
    rows = previous[total - parts[order]]
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    grouped = np.logical_or.reduceat(rows, starts, axis=0)  # one row per distinct value
    moved = np.take_along_axis(grouped, index[None, :] ^ sorted_values[starts][:, None], axis=1)
    return np.asarray(moved.any(axis=0))


class BreakSets:
    """For every total t: the XOR values of the breaks of t into exactly c heaps (c up to
    `exact`) and into c heaps or more (c up to `run`), as boolean rows over the values.

    Level 1 of each needs G(t); the others only G of smaller heaps, so `extend` computes the
    upper levels of a total before its value and level 1 after.

    Examples
    --------
    >>> table = np.array([0, 0, 1, 0, 1, 0, 1])  # 4.0: split a heap into two
    >>> sets = BreakSets(exact=3, run=2, max_memory_mb=64, name="example")
    >>> sets.prepare(table, 7)
    >>> sets.exact_mask(3, 6), sets.run_mask(2, 6)  # 1,1,4 1,2,3 2,2,2 all *1; 1,5 is 0
    (2, 3)
    """

    def __init__(self, *, exact: int, run: int, max_memory_mb: int, name: str) -> None:
        self.exact = exact
        self.run = run
        self.max_memory_mb = max_memory_mb
        self.name = name
        self.width = 64
        self.done = 0  # totals whose every level is known
        self.largest = 0  # the largest value seen
        self._exact: list[np.ndarray] = [np.zeros((0, 64), dtype=bool) for _ in range(exact)]
        self._run: list[np.ndarray] = [np.zeros((0, 64), dtype=bool) for _ in range(run)]

    def _levels(self) -> list[list[np.ndarray]]:
        return [self._exact, self._run]

    def _fit(self, rows: int, largest: int) -> None:
        """Room for `rows` totals and values up to `largest` (the width a power of two, so
        the XOR of two values stays inside it)."""
        width = self.width
        while width <= largest:
            width *= 2
        capacity = (self._exact or self._run)[0].shape[0]
        if width == self.width and rows <= capacity:
            return
        rows = max(rows, capacity) if rows <= capacity else max(rows, 2 * capacity)
        need = (self.exact + self.run) * rows * width
        what = f"the breaks of {self.name} into many heaps up to {rows - 1:,} tokens need"
        check_memory_need(need, self.max_memory_mb, what, option="--max-memory")
        for levels in self._levels():
            for i, old in enumerate(levels):
                grown = np.zeros((rows, width), dtype=bool)
                grown[: old.shape[0], : old.shape[1]] = old
                levels[i] = grown
        self.width = width

    def prepare(self, table: np.ndarray, stop: int) -> None:
        """Make room for the totals of `table` and compute every level of the totals below
        `stop` not yet done (their values are in `table`)."""
        self.largest = max(self.largest, int(table[:stop].max(initial=0)))
        self._fit(len(table), self.largest)
        for total in range(self.done, stop):
            self.extend(table, total, upper=True)
            self.extend(table, total, upper=False)

    def extend(self, table: np.ndarray, total: int, *, upper: bool) -> None:
        """Compute level 2 and up of `total` (`upper`), or level 1 once G(total) is known."""
        if upper:
            self._fit(total + 1, self.largest)
            index = np.arange(self.width)
            for levels in self._levels():
                for c in range(1, len(levels)):
                    levels[c][total] = _combine(levels[c - 1], table, total, index)
            return
        value = int(table[total])
        self.largest = max(self.largest, value)
        self._fit(total + 1, value)
        index = np.arange(self.width)
        if self._exact and total:
            self._exact[0][total, value] = True
        if self._run and total:
            self._run[0][total] = _combine(self._run[0], table, total, index)
            self._run[0][total, value] = True
        self.done = total + 1

    @staticmethod
    def _mask(row: np.ndarray) -> int:
        return int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")

    def exact_mask(self, count: int, total: int) -> int:
        """The values reached by breaking `total` tokens into exactly `count` heaps."""
        return self._mask(self._exact[count - 1][total])

    def run_mask(self, start: int, total: int) -> int:
        """The values reached by breaking `total` tokens into `start` heaps or more."""
        return self._mask(self._run[start - 1][total])
