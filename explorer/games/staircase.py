"""Staircase Nim: coins on steps 1..k; move any positive number from step i down to step i-1."""

from __future__ import annotations

from collections.abc import Iterator

from explorer.games.base import Game, parse_int_list

Steps = tuple[int, ...]


class Staircase(Game[Steps]):
    """Staircase Nim; a position is the coin counts of steps 1..k (trailing zeros dropped).

    Coins moved off step 1 reach the ground (step 0) and leave the game. The position equals
    Nim played on the odd steps: a move from an even step is undone by moving the same coins on.
    """

    family = "staircase"
    position_syntax = "coins on steps 1, 2, ..., e.g. 3,0,5"
    example = ("staircase", "3,0,5")
    summary = "Staircase Nim: move coins one step down"

    def parse(self, text: str) -> Steps:
        steps = parse_int_list(text, what=self.position_syntax, game=self.spec)
        while steps and steps[-1] == 0:
            steps.pop()
        return tuple(steps)

    def format(self, position: Steps) -> str:
        return ",".join(map(str, position)) if position else "0"

    def tier(self, position: Steps) -> int:
        """Each coin weighs its step's number: a move takes coins one step down."""
        return sum(step * coins for step, coins in enumerate(position, 1))

    def successors(self, position: Steps) -> Iterator[Steps]:
        for i, coins in enumerate(position):
            for k in range(1, coins + 1):
                yield self._moved(position, i, k)

    def known_value(self, position: Steps) -> int:
        value = 0
        for coins in position[0::2]:
            value ^= coins
        return value

    def moves_to_value(self, position: Steps, target: int) -> list[Steps] | None:
        """Change the odd steps' XOR to `target`: take coins off an odd step, or bring coins
        down onto one from the even step above it."""
        change = target ^ self.known_value(position)
        if not change:
            return []
        moves: list[Steps] = []
        for i in range(0, len(position), 2):  # index i is step i + 1, an odd step
            wanted = position[i] ^ change
            if wanted < position[i]:
                moves.append(self._moved(position, i, position[i] - wanted))
            elif i + 1 < len(position) and wanted - position[i] <= position[i + 1]:
                moves.append(self._moved(position, i + 1, wanted - position[i]))
        return moves

    @staticmethod
    def _moved(steps: Steps, index: int, coins: int) -> Steps:
        """Move `coins` from step index + 1 one step down."""
        moved = list(steps)
        moved[index] -= coins
        if index:
            moved[index - 1] += coins
        while moved and moved[-1] == 0:
            moved.pop()
        return tuple(moved)
