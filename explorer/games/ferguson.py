"""Ferguson's game ("empty and divide"): two heaps; empty one and split the other into two."""

from __future__ import annotations

from collections.abc import Iterator

from explorer.errors import PositionError
from explorer.games.base import Game, no_parameters, parse_int_list

Pair = tuple[int, int]


class Ferguson(Game[Pair]):
    """Ferguson's game; a position is the sorted pair of heaps, each at least 1."""

    family = "ferguson"
    position_syntax = "two heaps n,m, each at least 1"
    example = ("ferguson", "4,5")
    summary = "Ferguson's game: empty one heap and split the other"

    @property
    def spec(self) -> str:
        return "ferguson"

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

    def successors(self, position: Pair) -> Iterator[Pair]:
        n, m = position
        for keep in dict.fromkeys((m, n)):  # empty the other heap, split this one
            for a in range(1, keep // 2 + 1):
                yield (a, keep - a)

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Ferguson:
        no_parameters("ferguson", parameters)
        return cls()
