"""The game model: a game parses, formats and expands positions, and may split one into parts.

Games know nothing of graphs, solvers or storage; they only describe the rules.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from explorer.errors import PositionError, SpecError

Position = Hashable


@dataclass(frozen=True)
class Part:
    """One summand of a decomposed position: a position of `game`."""

    game: Game
    position: Position


@dataclass(frozen=True)
class Decomposition:
    """A position written as a sum of parts.

    `exact` means the position *equals* the sum, so its Grundy value is the XOR of the parts'
    values. A reduction (`exact=False`) only preserves the outcome: the XOR decides P or N, and
    the value reported is that of the reduced game. `rebuild` turns a list of part positions back
    into a position of the whole game (used to express a move in one part as a whole move).
    """

    parts: tuple[Part, ...]
    rebuild: Callable[[Sequence[Position]], Position] = field(compare=False)
    exact: bool = True
    note: str = ""


class Game(ABC):
    """An impartial game under normal play.

    Subclasses set the class attributes used by `explorer games` and implement parsing,
    formatting and successor generation. Positions are immutable and hashable; the formatted
    text is canonical, so ``game.parse(game.format(p)) == p``.
    """

    family: ClassVar[str]
    parameters: ClassVar[str] = "none"
    position_syntax: ClassVar[str]
    example: ClassVar[tuple[str, str]]
    summary: ClassVar[str] = ""

    @property
    @abstractmethod
    def spec(self) -> str:
        """The canonical spec string naming this game."""

    @abstractmethod
    def parse(self, text: str) -> Position:
        """Parse a position text, raising `PositionError` when it is not a position."""

    @abstractmethod
    def format(self, position: Position) -> str:
        """Format a position as its canonical text."""

    @abstractmethod
    def successors(self, position: Position) -> Iterator[Position]:
        """Yield the positions one move away, in a deterministic order (duplicates allowed)."""

    def decompose(self, position: Position) -> Decomposition | None:
        """Split a position into a sum of parts, or None when it is not a sum."""
        return None

    def known_value(self, position: Position) -> int | None:
        """The Grundy value from a closed form or a table, or None to solve the graph."""
        return None

    def moves_to_value(self, position: Position, target: int) -> list[Position] | None:
        """Successors whose value is `target`, when a shortcut knows them; None otherwise."""
        return None

    def __repr__(self) -> str:
        return f"load_game({self.spec!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(self.spec)


def parse_int_list(text: str, *, what: str, game: str, separator: str = ",") -> list[int]:
    """Parse ``"3,4,5"`` into non-negative integers, with a clear error naming the game."""
    stripped = text.strip()
    if not stripped:
        raise PositionError(f"empty position for {game} (expected {what})")
    values = []
    for item in stripped.split(separator):
        item = item.strip()
        if not item.isdigit():
            raise PositionError(
                f"bad position {text!r} for {game}: {item!r} is not a non-negative integer "
                f"(expected {what})"
            )
        values.append(int(item))
    return values


def no_parameters(family: str, parameters: str | None) -> None:
    """Refuse a parameter given to a family that takes none."""
    if parameters is not None:
        raise SpecError(f"{family} takes no parameter, got {parameters!r} (use just {family!r})")
