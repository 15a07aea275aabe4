"""Wythoff's game: two heaps; take any number from one heap, or the same number from both."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from explorer.errors import PositionError
from explorer.games.base import Game, TableProgress, parse_int_list
from explorer.games.tables import wythoff_table

Pair = tuple[int, int]


class Wythoff(Game[Pair]):
    """Wythoff's game; a position is the pair of heaps, sorted (the game is symmetric)."""

    family = "wythoff"
    table_positions = True
    position_syntax = "two heaps x,y"
    example = ("wythoff", "3,5")
    summary = "Wythoff's game: take from one heap, or equally from both"

    def parse(self, text: str) -> Pair:
        heaps = parse_int_list(text, what=self.position_syntax, game=self.spec)
        if len(heaps) != 2:
            raise PositionError(
                f"bad position {text!r} for wythoff: expected two heaps x,y, got {len(heaps)}"
            )
        x, y = sorted(heaps)
        return (x, y)

    def format(self, position: Pair) -> str:
        x, y = position
        return f"{x},{y}"

    def tier(self, position: Pair) -> int:
        """The sum of the two coordinates: every move lowers one or both."""
        return position[0] + position[1]

    def successors(self, position: Pair) -> Iterator[Pair]:
        x, y = position
        for k in range(1, y + 1):
            yield _pair(x, y - k)
        for k in range(1, x + 1):
            yield _pair(x - k, y)
            yield (x - k, y - k)

    def count_states(self, position: Pair, limit: int) -> int:
        """Every pair (a, b) with a <= x and b <= y is reachable (one heap, then the other):
        sum over a of y - a + 1 sorted pairs.

        Examples
        --------
        >>> Wythoff().count_states((1, 2), 100)  # 0,0 0,1 0,2 1,1 1,2
        5
        """
        x, y = position
        return (x + 1) * (y + 1) - x * (x + 1) // 2

    def value_table(
        self, rows: int, cols: int, progress: TableProgress | None = None
    ) -> np.ndarray:
        """By dynamic programming over the table (`wythoff_table`).

        Examples
        --------
        >>> Wythoff().value_table(2, 3).tolist()
        [[0, 1, 2], [1, 2, 0]]
        """
        return wythoff_table(rows, cols, progress)


def _pair(a: int, b: int) -> Pair:
    return (a, b) if a <= b else (b, a)
