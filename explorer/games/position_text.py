"""The text of positions made of ints, strings and tuples (``5``, ``3,5``, ``(1,2),(3,)``):
how games written in Python write their positions and read them back."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from typing import Any

from explorer.errors import PositionError

#: Deepest nesting of tuples a position may have.
MAX_NESTING = 32


def _atom_text(value: object) -> str | None:
    """The text of an int or a plain string, None for anything else (or a string that would
    read back as something else)."""
    if type(value) is int:
        return str(value)
    if type(value) is str:
        if not value or any(c in value for c in ",()") or value != "".join(value.split()):
            return None
        return None if _is_int(value) else value
    return None


def _is_int(text: str) -> bool:
    digits = text[1:] if text[:1] == "-" else text
    return digits.isascii() and digits.isdigit()


def format_position(position: object) -> str:
    """The text of a position of ints, strings and tuples: ``5``, ``3,5``, ``(1,2),(3,)``.

    A tuple at the top is written without parentheses (``3,5``); ``()`` is the empty tuple and
    ``3,`` a tuple of one.

    Raises
    ------
    TypeError
        For anything else (a list, a float, a string with a comma, a parenthesis or a space,
        or one that reads as an integer).

    Examples
    --------
    >>> [format_position(p) for p in (5, (3, 5), ((1, 2), (3,)), "LR", (), (4,))]
    ['5', '3,5', '(1,2),(3,)', 'LR', '()', '4,']
    """
    if type(position) is tuple:
        if all(type(x) is int for x in position):  # the usual case, fast
            text = ",".join(map(str, position))
        else:
            text = ",".join(_inner_text(x, 1) for x in position)
        return text + "," if len(position) == 1 else (text or "()")
    atom = _atom_text(position)
    if atom is None:
        raise TypeError(_not_a_position(position))
    return atom


def format_positions(positions: Sequence[object]) -> list[str]:
    """The texts of many positions, as `format_position` writes them; rows of two or more
    ints (the usual positions of a game of heaps or counters) by ``map`` in C, without a
    call in Python per position.

    Raises
    ------
    TypeError
        For a position `format_position` refuses.

    Examples
    --------
    >>> format_positions([(3, 5), (0, 0, 7)]), format_positions([(4,), "LR"])
    (['3,5', '0,0,7'], ['4,', 'LR'])
    """
    if _TUPLE.issuperset(map(type, positions)):
        rows: Sequence[tuple[object, ...]] = positions  # type: ignore[assignment]
        if min(map(len, rows), default=2) >= 2 and _INT.issuperset(
            map(type, chain.from_iterable(rows))
        ):
            return list(map(",".join, map(map, repeat(str), rows)))
    return list(map(format_position, positions))


_TUPLE = frozenset((tuple,))
_INT = frozenset((int,))


def _inner_text(value: object, depth: int) -> str:
    if type(value) is tuple:
        if depth > MAX_NESTING:
            raise TypeError(f"a position nests tuples more than {MAX_NESTING} deep")
        inner = ",".join(_inner_text(x, depth + 1) for x in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    atom = _atom_text(value)
    if atom is None:
        raise TypeError(_not_a_position(value))
    return atom


def _not_a_position(value: object) -> str:
    if isinstance(value, list | set | dict):
        return f"{value!r} is a {type(value).__name__}, not a position (use a tuple)"
    if type(value) is str:
        return (
            f"the string {value!r} cannot be written as a position (no commas, parentheses, "
            "spaces or integers as strings)"
        )
    return f"{value!r} is a {type(value).__name__}, not a position (ints, strings, tuples)"


def parse_position(text: str) -> Any:
    """Read the text `format_position` writes back into the position (spaces allowed).

    Raises
    ------
    PositionError
        For unbalanced parentheses or an empty item.

    Examples
    --------
    >>> [parse_position(t) for t in ("5", " 3, 5", "(1,2),(3,)", "LR", "()", "4,")]
    [5, (3, 5), ((1, 2), (3,)), 'LR', (), (4,)]
    """
    source = "".join(text.split())
    if "(" not in source and ")" not in source:  # the usual case, fast
        if "," not in source:
            return _atom(source, text)
        items = source.split(",")
        if items[-1] == "":
            items.pop()
        return tuple(_atom(item, text) for item in items)
    stack: list[list[Any]] = [[]]
    item = ""
    trailing = False  # whether the group just read ended with a comma
    closed = False  # whether the item just read is a group
    for char in source:
        if char == "(":
            if item or closed:
                raise PositionError(f"bad position {text!r}: '(' after an item")
            stack.append([])
            trailing = False
        elif char in ",)":
            if item:
                stack[-1].append(_atom(item, text))
            elif not closed and not (char == ")" and (trailing or not stack[-1])):
                raise PositionError(f"bad position {text!r}: an empty item")
            item, closed = "", False
            if char == ",":
                trailing = True
                continue
            if len(stack) == 1:
                raise PositionError(f"bad position {text!r}: ')' without '('")
            group = tuple(stack.pop())
            stack[-1].append(group)
            closed, trailing = True, False
        else:
            if closed:
                raise PositionError(f"bad position {text!r}: an item after ')'")
            item += char
            trailing = False
    if len(stack) != 1:
        raise PositionError(f"bad position {text!r}: '(' without ')'")
    if item:
        stack[0].append(_atom(item, text))
    top = stack[0]
    if len(top) == 1 and not trailing and source[-1:] != ",":
        return top[0]
    if not top:
        raise PositionError(f"empty position {text!r}")
    return tuple(top)


def _atom(item: str, text: str) -> int | str:
    if not item:
        raise PositionError(f"bad position {text!r}: an empty item")
    return int(item) if _is_int(item) else item
