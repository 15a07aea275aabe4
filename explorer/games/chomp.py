"""Chomp: a grid of cells with a poisoned corner; a move eats a cell and everything above-right."""

from __future__ import annotations

import re
from collections.abc import Iterator

from explorer.errors import PositionError
from explorer.games.base import (
    Game,
    natural_number,
    parse_int_list,
    young_diagrams,
)

#: Most rows a position may have.
MAX_ROWS = 1_000_000

Rows = tuple[int, ...]


class Chomp(Game[Rows]):
    """Chomp; a position is its non-increasing row lengths, row 1 holding the poisoned cell.

    A move picks a remaining cell (a, b) other than (1, 1) and removes every cell (x, y) with
    x >= a and y >= b. The player left with only the poisoned cell cannot move and loses.
    """

    family = "chomp"
    position_syntax = "non-increasing row lengths 4,4,3, or RxC for a full rectangle"
    example = ("chomp", "3x4")
    summary = "Chomp: eat a cell and all cells above and right of it"

    def parse(self, text: str) -> Rows:
        rectangle = re.fullmatch(r"\s*([0-9]+)\s*[xX×]\s*([0-9]+)\s*", text)
        if rectangle:
            context = f"bad position {text[:40]!r} for chomp"
            height = natural_number(rectangle[1], context=context) or 0
            width = natural_number(rectangle[2], context=context) or 0
            if height > MAX_ROWS:
                raise PositionError(f"{context}: more than {MAX_ROWS:,} rows")
            rows = [width] * height
        else:
            rows = parse_int_list(text, what=self.position_syntax, game=self.spec)
        while rows and rows[-1] == 0:
            rows.pop()
        if not rows:
            raise PositionError(
                f"bad position {text!r} for chomp: the poisoned cell (1,1) must remain"
            )
        if any(a < b for a, b in zip(rows, rows[1:], strict=False)):
            raise PositionError(
                f"bad position {text!r} for chomp: row lengths must not increase (like 4,4,3)"
            )
        return tuple(rows)

    def format(self, position: Rows) -> str:
        return ",".join(map(str, position))

    def tier(self, position: Rows) -> int:
        """The cells left: every move eats at least one."""
        return sum(position)

    def successors(self, position: Rows) -> Iterator[Rows]:
        for a, length in enumerate(position):
            for b in range(length):
                if a == 0 and b == 0:
                    continue
                eaten = position[:a] + tuple(min(r, b) for r in position[a:])
                yield tuple(r for r in eaten if r)

    def count_moves(self, position: Rows) -> int:
        """Every square but the poisoned one is a move (each successor costs a copy of the
        rows: 10**10 moves of ``99999x99999`` would never be listed).

        Examples
        --------
        >>> Chomp().count_moves((3, 2)), len(list(Chomp().successors((3, 2))))
        (4, 4)
        """
        return sum(position) - 1

    def count_states(self, position: Rows, limit: int) -> int:
        """The positions reachable from a position are the Young diagrams inside it that keep
        the poisoned cell (`explorer.games.base.young_diagrams`), capped above `limit`.

        Examples
        --------
        >>> Chomp().count_states((2, 2), 100)  # 2,2  2,1  2  1,1  1
        5
        """
        return young_diagrams(position, limit + 1) - 1  # less the empty board
