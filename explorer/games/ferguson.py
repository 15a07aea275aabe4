"""Ferguson's game ("empty and divide"): two heaps; empty one and split the other into two."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from explorer.errors import PositionError
from explorer.games.base import Game, TableProgress, parse_int_list
from explorer.games.tables import ferguson_table

Pair = tuple[int, int]


class Ferguson(Game[Pair]):
    """Ferguson's game; a position is the sorted pair of heaps, each at least 1."""

    family = "ferguson"
    table_positions = True
    position_syntax = "two heaps n,m, each at least 1"
    example = ("ferguson", "4,5")
    summary = "Ferguson's game: empty one heap and split the other"

    def parse(self, text: str) -> Pair:
        heaps = parse_int_list(text, what=self.position_syntax, game=self.spec)
        if len(heaps) != 2 or min(heaps) < 1:
            raise PositionError(
                f"bad position {text!r} for ferguson: expected two heaps n,m, each at least 1"
            )
        n, m = sorted(heaps)
        return (n, m)

    def format(self, position: Pair) -> str:
        n, m = position
        return f"{n},{m}"

    def tier(self, position: Pair) -> int:
        """The tokens of both heaps: a move empties one heap (of at least 1)."""
        return position[0] + position[1]

    def successors(self, position: Pair) -> Iterator[Pair]:
        n, m = position
        for keep in dict.fromkeys((m, n)):  # empty the other heap, split this one
            for a in range(1, keep // 2 + 1):
                yield (a, keep - a)

    def value_table(
        self, rows: int, cols: int, progress: TableProgress | None = None
    ) -> np.ndarray:
        """By dynamic programming over the table (`ferguson_table`); -1 where a heap is 0.

        Examples
        --------
        >>> Ferguson().value_table(2, 3).tolist()
        [[-1, -1, -1], [-1, 0, 1]]
        """
        return ferguson_table(rows, cols, progress)
