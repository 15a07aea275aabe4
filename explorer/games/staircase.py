"""Staircase Nim: coins on steps 1..k; move any positive number from step i down to step i-1."""

from __future__ import annotations

from collections.abc import Iterator

from explorer.games.base import Game, Position, no_parameters, parse_int_list

Steps = tuple[int, ...]


class Staircase(Game):
    """Staircase Nim; a position is the coin counts of steps 1..k (trailing zeros dropped).

    Coins moved off step 1 reach the ground (step 0) and leave the game. The position equals
    Nim played on the odd steps: a move from an even step is undone by moving the same coins on.
    """

    family = "staircase"
    position_syntax = "coins on steps 1, 2, ..., e.g. 3,0,5"
    example = ("staircase", "3,0,5")
    summary = "Staircase Nim: move coins one step down"

    @property
    def spec(self) -> str:
        return "staircase"

    def parse(self, text: str) -> Steps:
        steps = parse_int_list(text, what=self.position_syntax, game=self.spec)
        while steps and steps[-1] == 0:
            steps.pop()
        return tuple(steps)

    def format(self, position: Position) -> str:
        steps: Steps = position  # type: ignore[assignment]
        return ",".join(map(str, steps)) if steps else "0"

    def successors(self, position: Position) -> Iterator[Steps]:
        steps: Steps = position  # type: ignore[assignment]
        for i, coins in enumerate(steps):
            for k in range(1, coins + 1):
                moved = list(steps)
                moved[i] -= k
                if i:
                    moved[i - 1] += k
                while moved and moved[-1] == 0:
                    moved.pop()
                yield tuple(moved)

    def known_value(self, position: Position) -> int | None:
        value = 0
        for coins in position[0::2]:  # type: ignore[index]
            value ^= coins
        return value

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Staircase:
        no_parameters("staircase", parameters)
        return cls()
