"""The registry of game families and `load_game`, which turns a spec string into a game.

A spec is ``family`` or ``family:parameters`` (``subtraction:1,3,4``); specs joined by ``+``
name a sum of games.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from explorer.errors import ExplorerError, SpecError, UnknownGameError
from explorer.games.base import Decomposition, Game, Part, Position
from explorer.games.chomp import Chomp
from explorer.games.coins import CoinTurning
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.cram import Cram
from explorer.games.dag import DagGame
from explorer.games.ferguson import Ferguson
from explorer.games.graphs import ArcKayles, NodeKayles
from explorer.games.hackenbush import Hackenbush
from explorer.games.heaps import (
    Bash,
    HeapGame,
    Nim,
    OctalGame,
    Subtraction,
)
from explorer.games.loopy import GraphGame, WindUp
from explorer.games.queens import Queens
from explorer.games.splitting import GrundyGame, Lasker, TakeHalf
from explorer.games.staircase import Staircase
from explorer.games.sums import SumGame, split_sum
from explorer.games.takebreak import TakeBreak
from explorer.games.treblecross import Treblecross
from explorer.games.wythoff import Wythoff

#: Family name -> game class; each class builds itself with ``from_parameters``.
FAMILIES: dict[str, type[Game[Any]]] = {}

#: A family name: lower case, starting with a letter (``load_game`` lower-cases what it reads).
FAMILY_NAME = re.compile(r"[a-z][a-z0-9_-]*")

G = TypeVar("G", bound=type[Game[Any]])


def register_game(cls: G) -> G:
    """Register a game class under its ``family`` name, so that `load_game` finds it (a class
    decorator; registering the same class again changes nothing).

    The class sets the class attributes `explorer games` lists (``family``,
    ``position_syntax``, ``example``, ``summary``, ``parameters``) and builds itself with
    ``from_parameters`` (by default, a family without parameters).

    Raises
    ------
    SpecError
        When the family name is not lower-case letters, digits, ``-`` and ``_``, or names
        another class or an alias already, or ``position_syntax`` or ``example`` is not set.

    Examples
    --------
    >>> @register_game
    ... class Countdown(Game[int]):
    ...     family = "countdown"
    ...     position_syntax = "a number n"
    ...     example = ("countdown", "5")
    ...     summary = "take one or two from a number"
    ...     def parse(self, text): return int(text)
    ...     def format(self, position): return str(position)
    ...     def successors(self, n): return iter([n - k for k in (1, 2) if n >= k])
    >>> load_game("countdown").spec
    'countdown'
    >>> from explorer.analysis.solving import grundy_value
    >>> grundy_value(load_game("countdown"), 5)
    2
    >>> del FAMILIES["countdown"]
    """
    name = cls.named_family() if issubclass(cls, Game) else getattr(cls, "family", None)
    if not isinstance(name, str) or FAMILY_NAME.fullmatch(name) is None or name == "sum":
        raise SpecError(
            f"bad family name {name!r} for {cls.__name__} (set family to lower-case letters, "
            "digits, '-' or '_', starting with a letter, not 'sum')"
        )
    known = FAMILIES.get(name)
    if (known is not None and known is not cls) or name in ALIASES:
        by = known.__name__ if known is not None else f"an alias of {ALIASES[name]}"
        raise SpecError(
            f"game family {name!r} is taken already (by {by}); give the class another family name"
        )
    missing = [attr for attr in ("position_syntax", "example") if not hasattr(cls, attr)]
    if missing:
        raise SpecError(
            f"{cls.__name__} does not set {' or '.join(missing)} (explorer games lists them: "
            "position_syntax says how a position is written, example is a (spec, position) pair)"
        )
    FAMILIES[name] = cls
    return cls


#: Short names for well-known members of a family.
ALIASES: dict[str, str] = {
    "kayles": "octal:0.77",
    "dawson": "octal:0.07",
}

for _family in (
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
    NodeKayles,
    ArcKayles,
    Cram,
    Hackenbush,
):
    register_game(_family)


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
        # games written in Python: a file or module named by the spec, or an installed plugin
        from explorer.games import pyspec

        if name == "py":
            return pyspec.load_python_game(parameters)
        plugin = pyspec.plugin_entry_points().get(name)
        if plugin is not None:
            return pyspec.load_plugin(name, plugin, parameters.strip() if colon else None)
        known = ", ".join(sorted([*FAMILIES, *ALIASES, "py"]))
        raise UnknownGameError(f"unknown game {name!r} (known: {known})")
    if not family.names_file:
        refuse_unicode_digits(text)
    return family.from_parameters(parameters.strip() if colon else None)


def refuse_unicode_digits(text: str) -> None:
    """Refuse a spec whose parameters hold a digit that is not ASCII (``٣``, ``３``): Python's
    ``int`` reads them, but specs, like options, are written in ASCII digits only.

    Examples
    --------
    >>> refuse_unicode_digits("bash:3")
    >>> try:
    ...     refuse_unicode_digits("bash:\uff13")
    ... except SpecError as error:
    ...     print(str(error)[:44])
    bad spec 'bash:３': '３' is not an ASCII digit
    """
    for char in text:
        if not char.isascii() and (char.isdigit() or char.isnumeric()):
            raise SpecError(
                f"bad spec {text!r}: {char!r} is not an ASCII digit (write numbers with 0-9)"
            )


def may_cycle(game: Game[Any]) -> bool:
    """Whether play in a game may go on forever: a family with cycles, or a sum with such a part
    (``game.may_cycle()``).

    Examples
    --------
    >>> may_cycle(load_game("nim + windup:5:1,3")), may_cycle(load_game("nim + kayles"))
    (True, False)
    """
    return game.may_cycle()


def families() -> list[tuple[str, type[Game[Any]]]]:
    """The registered families in registry order, then the sum."""
    return [*FAMILIES.items(), ("sum", SumGame)]


def search_rules_of(family: str) -> Any | None:
    """The pruned search's rule set whose part family is `family`, as a registered game
    family offers it (`Game.search_rules`); None when none does.

    Examples
    --------
    >>> search_rules_of("cram-grid").family, search_rules_of("cram")
    ('cram-grid', None)
    """
    for _, cls in families():
        for rules in cls.search_rules():
            if rules.family == family:
                return rules
    return None


__all__ = [
    "ALIASES",
    "FAMILIES",
    "MISERE",
    "NORMAL",
    "Convention",
    "Decomposition",
    "Game",
    "HeapGame",
    "Part",
    "Position",
    "SumGame",
    "families",
    "load_game",
    "may_cycle",
    "register_game",
    "refuse_bad_position",
    "search_rules_of",
]


def refuse_bad_position(spec: str, position: str) -> None:
    """Refuse, before any database is opened, a position that is not one of a game defined by
    rules (a `PositionError`). A game from a file is left to the database: its stored graph is
    the truth (the file may have changed or gone), and reading the file may be slow; a spec
    that does not load is left to the database too, which says what is stored under it.

    Examples
    --------
    >>> refuse_bad_position("nim", "3,4")
    >>> refuse_bad_position("dag:gone.json", "anything")
    >>> try:
    ...     refuse_bad_position("nim", "x")
    ... except ValueError as error:  # a PositionError
    ...     print(str(error)[:20])
    bad position 'x' for
    """
    from explorer.games.specs import GameSpec

    parsed = GameSpec.parse(spec)
    if parsed.names_file or parsed.user_code:
        return  # nor is a py: game's file run to read what is stored
    try:
        game = load_game(spec)
    except ExplorerError:
        return
    game.parse(position)
