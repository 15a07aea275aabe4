"""What solving a position answers, as plain data: a `Solution` (its value, outcome and winning
moves) and an `Explanation` (why it has that value), with their JSON fields
(`explorer.analysis.solving` computes them).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.solver import mex
from explorer.solver.loopy import Infinite, Value, outcome_of


class _Valued:
    """What a solution and an explanation share: the value, finite or ∞(K)."""

    grundy: int | None
    infinite: bool
    escapes: list[int] | None

    @property
    def value(self) -> str:
        """The value as text: ``3``, ``∞(0,2)``, or ``-`` when not computed (misère play)."""
        if self.infinite:
            return str(Infinite(frozenset(self.escapes or ())))
        return "-" if self.grundy is None else str(self.grundy)


@dataclass(frozen=True)
class Solution(_Valued):
    """A solved position, as plain data (see `to_dict` for the JSON contract)."""

    game: str
    position: str
    grundy: int | None
    outcome: str
    remoteness: int | None
    winning_moves: list[str]
    method: str
    states: int | None = None
    note: str = ""
    infinite: bool = False
    escapes: list[int] | None = None
    drawing_moves: list[str] = field(default_factory=list)
    convention: Convention = NORMAL
    #: With method ``reduction``: the value of the reduction, which is 0 exactly on P-positions
    #: but is not the game's Grundy value (`grundy` is then None).
    reduction_value: int | None = None
    #: The winning and drawing moves in a player's words (`Game.move_name`), by the text of
    #: the position each reaches; empty for a game without such words.
    move_names: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """The JSON contract of ``explorer solve --json``: `game` (canonical spec), `position`
        (canonical text), `grundy` (None when infinite, in misère play, or found by a
        reduction), `reduction_value` (a reduction's value, which keeps only the outcome),
        `infinite`, `escapes` (the K of ∞(K), None when finite), `outcome` (``P``, ``N`` or
        ``D``), `remoteness` (None when only the parts were solved, or for a draw),
        `winning_moves`, `drawing_moves` (from a draw), `move_names` (each of those moves'
        position text to the move in words, ``"take 2 from 3"``), `method`, `states`, `note`
        and `convention` (``normal`` or ``misere``); `reduction_value` only where there is
        one."""
        return _without_reduction(asdict(self))

    def __repr__(self) -> str:
        """One line: the value, the outcome and how they were found."""
        moves = len(self.winning_moves)
        return (
            f"<Solution {self.game} at {self.position}: G = {self.value}, {self.outcome}, "
            f"{moves} winning move{'' if moves == 1 else 's'} ({self.method})>"
        )


@dataclass(frozen=True)
class Explanation(_Valued):
    """Why a position has its value: successors and their mex, or parts and their XOR."""

    game: str
    position: str
    grundy: int | None
    outcome: str
    method: str
    successors: list[tuple[str, int | str]] = field(default_factory=list)
    parts: list[tuple[str, str, int | str]] = field(default_factory=list)
    note: str = ""
    infinite: bool = False
    escapes: list[int] | None = None
    stage: int | None = None
    counter: int | None = None
    convention: Convention = NORMAL
    #: With method ``reduction``: the XOR of the parts of the reduction, 0 exactly on
    #: P-positions but not the game's Grundy value (`grundy` is then None).
    reduction_value: int | None = None
    #: Of an N-position that is a sum of finite values: each part whose value changes to make
    #: the XOR 0 (Bouton's arithmetic): ``{"part", "game", "value", "target", "moves"}`` (the
    #: winning moves of the sum that change it), and whether the parts are heaps of Nim.
    changes: list[dict[str, Any]] = field(default_factory=list)
    nim: bool = False
    #: The listed moves in a player's words (`Game.move_name`), by the text of the position
    #: each reaches; empty for a game without such words.
    move_names: dict[str, str] = field(default_factory=dict)

    @property
    def winning_moves(self) -> list[str]:
        """The successors that are P-positions (value 0), in the order listed."""
        return [s for s, v in self.successors if isinstance(v, int) and outcome_of(v) == "P"]

    def to_dict(self) -> dict[str, object]:
        return _without_reduction(asdict(self))

    def __repr__(self) -> str:
        """One line: the value, the method, and how many parts and moves explain it."""
        parts = f"{len(self.parts)} parts, " if self.parts else ""
        return (
            f"<Explanation {self.game} at {self.position}: G = {self.value} by {self.method}, "
            f"{parts}{len(self.successors)} moves listed>"
        )

    def reason(self) -> str:
        """One line saying how the value arose: the mex, or the labelling stage that fixed it."""
        finite = sorted({v for _, v in self.successors if isinstance(v, int)})
        listed = ", ".join(map(str, finite))
        if self.convention == MISERE:
            return self.note
        if self.method == "mex":
            return f"G = mex{{{listed}}} = {self.grundy}"
        if not self.infinite:
            return (
                f"G = mex{{{listed}}} = {self.grundy}, fixed at stage {self.stage} of the "
                f"labelling (counter {self.counter}): every move to a larger or infinite value "
                f"can be answered by a move back to {self.grundy} with a smaller counter"
            )
        return (
            f"G = {self.value}, labelled infinite at stage {self.stage}: mex{{{listed}}} = "
            f"{mex(finite)}, but a move to an infinite value cannot be answered by a move "
            f"back to {mex(finite)}"
        )


def _without_reduction(fields: dict[str, object]) -> dict[str, object]:
    """A value's JSON fields, with ``reduction_value`` only when a reduction gave the value."""
    if fields.get("reduction_value") is None:
        fields.pop("reduction_value", None)
    return fields


def value_fields(value: Value, reduction: bool = False) -> dict[str, Any]:
    """The JSON contract's fields for a value: ``grundy`` (null when infinite or found by a
    reduction), ``infinite``, ``escapes`` (the finite follower values of ∞(K), null when
    finite), and with `reduction` ``reduction_value`` (which keeps only the outcome).

    Examples
    --------
    >>> value_fields(3)
    {'grundy': 3, 'infinite': False, 'escapes': None}
    >>> value_fields(Infinite(frozenset({2, 0})))
    {'grundy': None, 'infinite': True, 'escapes': [0, 2]}
    """
    if isinstance(value, Infinite):
        return {"grundy": None, "infinite": True, "escapes": sorted(value.escapes)}
    if reduction:
        return {"grundy": None, "infinite": False, "escapes": None, "reduction_value": value}
    return {"grundy": value, "infinite": False, "escapes": None}


def shown_value(value: Value) -> int | str:
    """A value for a listing: the int, or its text ``∞(0,2)``."""
    return str(value) if isinstance(value, Infinite) else value
