"""Two game families an installed package adds to explorer: a heap rule and a Game subclass."""

from __future__ import annotations

from collections.abc import Iterator

import explorer
from explorer.errors import PositionError, SpecError


@explorer.heap_game(example="10")
def stones(n: int) -> Iterator[int | tuple[int, int]]:
    """Remove 1, 2 or 4 stones, or split a heap into two unequal non-empty heaps."""
    yield from (n - k for k in (1, 2, 4) if k <= n)
    yield from ((a, n - a) for a in range(1, n) if a < n - a)


class Takeaway(explorer.Game):
    """One heap; a move takes 1 to K tokens (K the family's parameter)."""

    family = "takeaway"
    parameters = "K, the most tokens a move takes"
    position_syntax = "a heap size"
    example = ("takeaway:3", "10")
    summary = "take 1 to K tokens from one heap"

    def __init__(self, most: int) -> None:
        self.most = most

    @property
    def spec(self) -> str:
        return f"takeaway:{self.most}"

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Takeaway:
        if parameters is None or not parameters.isdigit() or int(parameters) < 1:
            raise SpecError(f"takeaway needs K >= 1, e.g. takeaway:3, got {parameters!r}")
        return cls(int(parameters))

    def parse(self, text: str) -> int:
        if not text.strip().isdigit():
            raise PositionError(f"bad position {text!r} for {self.spec} (expected a number)")
        return int(text)

    def format(self, position: int) -> str:
        return str(position)

    def successors(self, position: int) -> Iterator[int]:
        yield from (position - k for k in range(1, self.most + 1) if k <= position)
