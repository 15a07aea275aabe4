"""What a heap of n may become, as data: removal rules (`RemovalRule`), for a game whose every
move takes tokens from one heap and leaves one heap or none (subtraction games, all-but games),
as periodicity proofs read it; split rules (`SplitRules`), as the compiled sequence kernel reads
a game that may split a heap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from explorer.games.base import Game


@dataclass(frozen=True)
class SplitRules:
    """What one heap of n may become, for the compiled sequence kernel.

    ``leave_one``: removals k that may leave one heap n - k > 0; ``take_all``: removals k that
    may take a whole heap of exactly k; ``split_after``: removals k after which the rest n - k is
    split into two non-empty heaps (0 for games that split without removing); ``unequal``: the two
    heaps of a split must differ (Grundy's game).
    """

    leave_one: tuple[int, ...]
    take_all: tuple[int, ...]
    split_after: tuple[int, ...]
    unequal: bool = False


@dataclass(frozen=True)
class RemovalRule:
    """A heap of n may lose k tokens and keep n - k > 0 when k is in `leave_one`, or lose all
    of them when n = k is in `take_all`; from `tail` on (when set) every k may do both.

    Finite subtraction sets have ``tail=None``; an all-but set (any number but those of a
    finite set E) has ``tail = max(E) + 1``.

    Examples
    --------
    >>> RemovalRule.subtraction([1, 3]).options(4)
    [3, 1]
    >>> RemovalRule.all_but([1, 3]).options(5)
    [3, 1, 0]
    """

    leave_one: frozenset[int]
    take_all: frozenset[int]
    tail: int | None = None

    @classmethod
    def subtraction(cls, moves: Iterable[int]) -> RemovalRule:
        """Remove s tokens, s in the finite set `moves`."""
        moves = frozenset(moves)
        return cls(moves, moves)

    @classmethod
    def all_but(cls, excluded: Iterable[int]) -> RemovalRule:
        """Remove any positive number of tokens except those in the finite set `excluded`."""
        excluded = frozenset(excluded)
        tail = max(excluded, default=0) + 1
        head = frozenset(range(1, tail)) - excluded
        return cls(head, head, tail)

    @classmethod
    def octal(cls, digits: Iterable[int]) -> RemovalRule:
        """The rule of an octal code's digits d1 d2 ... (none of them splitting: below 4)."""
        digits = list(digits)
        return cls(
            frozenset(k for k, d in enumerate(digits, 1) if d & 2),
            frozenset(k for k, d in enumerate(digits, 1) if d & 1),
        )

    @property
    def largest(self) -> int:
        """The largest removal before the tail (0 when there is none)."""
        return max(self.leave_one | self.take_all, default=0)

    def options(self, heap: int) -> list[int]:
        """The heaps one move away from `heap` (0: no heap left), by increasing removal."""
        found = []
        for k in range(1, heap + 1):
            rest = heap - k
            tail = self.tail is not None and k >= self.tail
            if (rest > 0 and (tail or k in self.leave_one)) or (
                rest == 0 and (tail or k in self.take_all)
            ):
                found.append(rest)
        return found


def removal_rule(game: Game[Any]) -> RemovalRule | None:
    """The removal rule of a heap game that declares one (``removal_rule()``), else None.

    Examples
    --------
    >>> from explorer.games import load_game
    >>> removal_rule(load_game("subtraction:1,3")) == RemovalRule.subtraction([1, 3])
    True
    >>> removal_rule(load_game("kayles")) is None  # Kayles splits rows
    True
    """
    rules = game.heap_rules()
    return None if rules is None else rules.removal_rule()
