"""Heap games beyond the octal codes: Lasker's Nim (split a heap without taking), Grundy's game
(split into two unequal heaps) and take-at-least-half, each with its value table vectorised."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from explorer.games.heaps import (
    FAR_HEAP,
    HeapGame,
    Heaps,
    _single_heaps_to_value,
    _splits_to_value,
    lowest_missing,
    split_mask,
)
from explorer.games.removals import SplitRules
from explorer.pace import pace


class Lasker(HeapGame):
    """Lasker's Nim: remove any number from one heap, or split a heap into two non-empty heaps."""

    family = "lasker"
    example = ("lasker", "4,7")
    summary = "Lasker's Nim: take any number, or split a heap in two"

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        for k in range(heap):
            yield (k,) if k else ()
        yield from ((a, heap - a) for a in range(1, heap // 2 + 1))

    def closed_form(self, heap: int) -> int | None:
        # Lasker: G(4k+1) = 4k+1, G(4k+2) = 4k+2, G(4k+3) = 4k+4, G(4k+4) = 4k+3
        return heap + {0: -1, 3: 1}.get(heap % 4, 0) if heap else 0

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        smaller = 0
        for v in table[:start]:
            smaller |= 1 << int(v)
        check = pace(f"the values of {self.spec} up to heap {len(table) - 1:,}", len(table))
        for n in range(start, len(table)):
            check(n)
            table[n] = lowest_missing(smaller | split_mask(table, n))
            smaller |= 1 << int(table[n])

    def _heap_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        if heap >= FAR_HEAP:
            return self._far_moves_to_value(heap, target)
        table = self.heap_values(heap)
        emptied: list[Heaps] = [()] if target == 0 else []
        return (
            emptied
            + _single_heaps_to_value(table, heap - 1, target)
            + _splits_to_value(table, heap, target)
        )


class GrundyGame(HeapGame):
    """Grundy's game: split one heap into two unequal non-empty heaps."""

    split_rules = SplitRules(leave_one=(), take_all=(), split_after=(0,), unequal=True)

    family = "grundy"
    example = ("grundy", "7,9")
    summary = "Grundy's game: split a heap into two unequal heaps"

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        yield from ((a, heap - a) for a in range(1, (heap - 1) // 2 + 1))

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        check = pace(f"the values of {self.spec} up to heap {len(table) - 1:,}", len(table))
        for n in range(start, len(table)):
            check(n)
            table[n] = lowest_missing(split_mask(table, n, unequal=True))

    def _heap_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        return _splits_to_value(self.heap_values(heap), heap, target, unequal=True)


class TakeHalf(HeapGame):
    """Take at least half: a heap of x becomes any y with 0 <= y <= x // 2."""

    family = "half"
    example = ("half", "9")
    summary = "take at least half of a heap"

    splits = False

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        if heap:
            for y in range(heap // 2 + 1):
                yield (y,) if y else ()

    def closed_form(self, heap: int) -> int | None:
        return heap.bit_length()  # G(n) = 1 + floor(log2 n): the options are G(0..n//2)

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        # options of n are the values of 0..n//2, so keep the mask of every prefix
        prefix = []
        mask = 0
        for v in table[:start]:
            mask |= 1 << int(v)
            prefix.append(mask)
        for n in range(start, len(table)):
            table[n] = lowest_missing(prefix[n // 2]) if n else 0
            mask |= 1 << int(table[n])
            prefix.append(mask)

    def _heap_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        if heap >= FAR_HEAP:
            return self._far_moves_to_value(heap, target)
        table = self.heap_values(heap)
        emptied: list[Heaps] = [()] if target == 0 else []
        return emptied + _single_heaps_to_value(table, heap // 2, target)
