"""Rule variants side by side: the positions where two games' values or outcomes differ.

`compare_range` compares one heap (strip, row) of size 0..N; `compare_positions` compares
listed positions that both games can parse.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from explorer.analysis.sequences import value_sequence
from explorer.analysis.solving import reduced_value
from explorer.games.base import Game
from explorer.solver.loopy import Infinite, Value, outcome_of


@dataclass(frozen=True)
class Difference:
    """One position where the two games disagree, with both values and outcomes."""

    position: str
    grundy_a: Value
    grundy_b: Value

    @property
    def outcome_a(self) -> str:
        return outcome_of(self.grundy_a)

    @property
    def outcome_b(self) -> str:
        return outcome_of(self.grundy_b)

    @property
    def outcome_differs(self) -> bool:
        return self.outcome_a != self.outcome_b

    def to_dict(self) -> dict[str, object]:
        return {
            "position": self.position,
            "grundy_a": _json(self.grundy_a),
            "outcome_a": self.outcome_a,
            "grundy_b": _json(self.grundy_b),
            "outcome_b": self.outcome_b,
        }


def _json(value: Value) -> int | str:
    """An int, or an infinite value as its text ``∞(0,2)``."""
    return str(value) if isinstance(value, Infinite) else value


@dataclass(frozen=True)
class Comparison:
    """Two games compared over the same positions: how many, and where they differ."""

    game_a: str
    game_b: str
    compared: int
    differences: list[Difference] = field(default_factory=list)

    @property
    def outcome_differences(self) -> int:
        """How many of the differing positions also change winner (P against N)."""
        return sum(d.outcome_differs for d in self.differences)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["differences"] = [d.to_dict() for d in self.differences]
        data["differ"] = len(self.differences)
        data["outcome_differ"] = self.outcome_differences
        return data

    def __repr__(self) -> str:
        """One line, never the differences themselves."""
        return (
            f"<Comparison {self.game_a} vs {self.game_b}: {self.compared:,} positions, "
            f"{len(self.differences):,} differ ({self.outcome_differences:,} in outcome)>"
        )


def compare_range(game_a: Game[Any], game_b: Game[Any], upto: int) -> Comparison:
    """Compare G(0..upto) of two one-parameter games (one heap, strip or row of size n).

    The positions are named by n. For games solved through a reduction (treblecross) the value
    compared is the reduction's, which is zero exactly on P-positions.

    Parameters
    ----------
    game_a, game_b : Game
        Heap games, or games with one-parameter positions (see `explorer.analysis.sequences`).
    upto : int
        The largest n compared.

    Returns
    -------
    Comparison

    Raises
    ------
    SpecError
        When a game has no one-parameter positions or `upto` is negative.

    Examples
    --------
    >>> from explorer import load_game
    >>> result = compare_range(load_game("subtraction:1,3,4"), load_game("subtraction:1,4"), 9)
    >>> [(d.position, d.grundy_a, d.grundy_b) for d in result.differences]
    [('5', 3, 0), ('6', 2, 1), ('9', 0, 2)]
    """
    values_a = value_sequence(game_a, upto).values.tolist()
    values_b = value_sequence(game_b, upto).values.tolist()
    differences = [
        Difference(str(n), a, b)
        for n, (a, b) in enumerate(zip(values_a, values_b, strict=True))
        if a != b
    ]
    return Comparison(game_a.spec, game_b.spec, len(values_a), differences)


def compare_positions(game_a: Game[Any], game_b: Game[Any], positions: Iterable[str]) -> Comparison:
    """Compare two games on listed positions, each parsed by both games.

    The value compared is the one ``explorer solve`` reports: the Grundy value, or for games
    solved through a reduction (queens, treblecross) the reduction's value.

    Raises
    ------
    PositionError
        When a position is not one of either game's positions.

    Examples
    --------
    >>> from explorer import load_game
    >>> result = compare_positions(load_game("nim"), load_game("bash:2"), ["1", "3", "2,2"])
    >>> [(d.position, d.grundy_a, d.grundy_b) for d in result.differences]
    [('3', 3, 0)]
    """
    differences = []
    compared = 0
    for text in positions:
        value_a = reduced_value(game_a, game_a.parse(text))
        value_b = reduced_value(game_b, game_b.parse(text))
        compared += 1
        if value_a != value_b:
            differences.append(Difference(text, value_a, value_b))
    return Comparison(game_a.spec, game_b.spec, compared, differences)
