"""What the Python API takes for a game and a position: the objects, or the texts the command
line takes (a spec such as ``"kayles"``, a position such as ``"3,4,5"`` or a heap size ``10``).
"""

from __future__ import annotations

import sys
from typing import Any

from explorer.errors import ArgumentTypeError, PositionError
from explorer.games.base import Game, Position

#: Types that are never a position (positions are texts, ints, tuples, frozensets, ...).
_NOT_POSITIONS = (float, complex, bool, bytes, type(None))


def as_game(game: Game[Any] | str) -> Game[Any]:
    """The game `game` names: a `Game` as it is, a spec loaded with `load_game`.

    Raises
    ------
    ArgumentTypeError
        For anything else.

    Examples
    --------
    >>> as_game("kayles").spec
    'octal:0.77'
    >>> as_game(3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    explorer.errors.ArgumentTypeError: a game is a spec such as 'nim' ..., not 3 (int)
    """
    if isinstance(game, Game):
        return game
    if isinstance(game, str):
        from explorer.games import load_game  # the registry imports every family

        return load_game(game)
    raise ArgumentTypeError(
        f"a game is a spec such as 'nim' or 'kayles', or a Game object, not {_shown(game)}"
    )


def as_position(game: Game[Any], position: Position | str | int) -> Position:
    """The position `position` stands for in `game`: a text (or an int, read as its text, a
    heap size in a heap game) parsed with ``game.parse``, unless the text is itself a position
    the game formats back to it (a game whose positions are texts); a NetworkX graph in a game
    played on graphs (`Game.networkx_position`); anything else as it is, once it is known to
    be a hashable object of a kind a position can be.

    Raises
    ------
    PositionError
        For a text that is not a position of the game.
    ArgumentTypeError
        For a float, None, a list or anything else that is never a position (a NetworkX
        graph in a game not played on graphs).

    Examples
    --------
    >>> nim = as_game("nim")
    >>> as_position(nim, "5,4,3"), as_position(nim, 7), as_position(nim, (1, 2))
    ((3, 4, 5), (7,), (1, 2))
    >>> as_position(nim, [3, 4])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    explorer.errors.ArgumentTypeError: a position of nim is a text, ..., not [3, 4] (list)
    """
    parsed: Position
    if isinstance(position, str):
        try:
            parsed = game.parse(position)
        except PositionError:
            if _is_text_position(game, position):  # the empty strip of treblecross, say
                return position
            raise
        return parsed
    if isinstance(position, int) and not isinstance(position, bool):
        parsed = game.parse(str(position))
        return parsed
    networkx = sys.modules.get("networkx")  # a NetworkX graph exists only once it is loaded
    if networkx is not None and isinstance(position, networkx.Graph):
        drawn: Position | None = game.networkx_position(position)
        if drawn is None:
            raise ArgumentTypeError(
                f"{game.spec} is not played on a graph: a position of it is a text, as the "
                f"command line takes it, or what game.parse returns, not a NetworkX graph"
            )
        return drawn
    wrong = isinstance(position, _NOT_POSITIONS)
    if not wrong:
        try:
            hash(position)
        except TypeError:
            wrong = True
    if wrong:
        raise ArgumentTypeError(
            f"a position of {game.spec} is a text, as the command line takes it, or what "
            f"game.parse returns, not {_shown(position)}"
        )
    return position


def _is_text_position(game: Game[Any], text: str) -> bool:
    """Whether `text` is itself a position of a game whose positions are texts: one that
    formats to a text parsing back to it."""
    try:
        return bool(game.parse(game.format(text)) == text)
    except Exception:  # noqa: BLE001 - any failure means: not a position of this game
        return False


def as_count(value: object, what: str) -> int:
    """A count argument (``upto``, ``rows``): an int, or its text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    raise ArgumentTypeError(f"{what} is a whole number, not {_shown(value)}")


def _shown(value: object) -> str:
    text = repr(value)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{text} ({type(value).__name__})"
