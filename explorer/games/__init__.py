"""The registry of game families and `load_game`, which turns a spec string into a game.

A spec is ``family`` or ``family:parameters`` (``subtraction:1,3,4``); specs joined by ``+``
name a sum of games.
"""

from __future__ import annotations

from typing import Any

from explorer.errors import SpecError, UnknownGameError
from explorer.games.base import Decomposition, Game, Part, Position
from explorer.games.chomp import Chomp
from explorer.games.coins import CoinTurning
from explorer.games.dag import DagGame
from explorer.games.ferguson import Ferguson
from explorer.games.heaps import (
    Bash,
    GrundyGame,
    HeapGame,
    Lasker,
    Nim,
    OctalGame,
    Subtraction,
    TakeHalf,
)
from explorer.games.loopy import GraphGame, WindUp
from explorer.games.queens import Queens
from explorer.games.staircase import Staircase
from explorer.games.sums import SumGame, split_sum
from explorer.games.takebreak import TakeBreak
from explorer.games.treblecross import Treblecross
from explorer.games.wythoff import Wythoff

#: Family name -> game class; each class builds itself with ``from_parameters``.
FAMILIES: dict[str, type[Game[Any]]] = {
    cls.family: cls
    for cls in (
        Nim,
        Bash,
        Subtraction,
        TakeHalf,
        Lasker,
        OctalGame,
        GrundyGame,
        TakeBreak,
        Wythoff,
        Ferguson,
        Chomp,
        Queens,
        Treblecross,
        CoinTurning,
        Staircase,
        DagGame,
        GraphGame,
        WindUp,
    )
}

#: Short names for well-known members of a family.
ALIASES: dict[str, str] = {
    "kayles": "octal:0.77",
    "dawson": "octal:0.07",
}


def load_game(spec: str) -> Game[Any]:
    """Return the game a spec names.

    Parameters
    ----------
    spec : str
        ``nim``, ``subtraction:1,3,4``, ``kayles``, ``nim + wythoff``, ...

    Returns
    -------
    Game
        Its ``spec`` attribute is the canonical form of the spec.

    Raises
    ------
    UnknownGameError
        When no family has that name.
    SpecError
        When the parameters are malformed.

    Examples
    --------
    >>> load_game("kayles").spec
    'octal:0.77'
    >>> load_game("nim+subtraction: 4,1,3").spec
    'nim + subtraction:1,3,4'
    """
    pieces = split_sum(spec)
    if len(pieces) > 1:
        if any(not piece.strip() for piece in pieces):
            raise SpecError(f"bad sum {spec!r}: every '+' must join two game specs")
        return SumGame([load_game(piece) for piece in pieces])
    text = spec.strip()
    text = ALIASES.get(text, text)
    name, colon, parameters = text.partition(":")
    name = name.strip().lower()
    family = FAMILIES.get(name)
    if family is None:
        known = ", ".join(sorted([*FAMILIES, *ALIASES]))
        raise UnknownGameError(f"unknown game {name!r} (known: {known})")
    return family.from_parameters(parameters.strip() if colon else None)


#: The families whose play may go on forever (their graphs may have cycles).
LOOPY_FAMILIES: tuple[type[Game[Any]], ...] = (GraphGame, WindUp)


def may_cycle(game: Game[Any]) -> bool:
    """Whether play in a game may go on forever: a family with cycles, or a sum with such a part.

    Examples
    --------
    >>> may_cycle(load_game("nim + windup:5:1,3")), may_cycle(load_game("nim + kayles"))
    (True, False)
    """
    parts = game.components if isinstance(game, SumGame) else (game,)
    return any(isinstance(part, LOOPY_FAMILIES) for part in parts)


def families() -> list[tuple[str, type[Game[Any]]]]:
    """The registered families in registry order, then the sum."""
    return [*FAMILIES.items(), ("sum", SumGame)]


__all__ = [
    "ALIASES",
    "FAMILIES",
    "Decomposition",
    "Game",
    "HeapGame",
    "Part",
    "Position",
    "SumGame",
    "families",
    "load_game",
    "may_cycle",
]
