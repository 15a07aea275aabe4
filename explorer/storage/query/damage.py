"""Stored rows read as they should be, or marked damaged: a value a state row cannot hold (text
in a number's column, a negative value, an escape set that is not a list of numbers) is read as
unknown and named, so that a read never fails on what a damaged file holds."""

from __future__ import annotations

from typing import Any

from explorer.limits import MAX_STORED_INT

#: The outcomes a state may hold (a draw only in a game with cycles).
OUTCOMES = ("P", "N", "D")


def stored_natural(value: object) -> int | None:
    """A stored non-negative integer in the 64-bit range, or None for anything else.

    Examples
    --------
    >>> [stored_natural(v) for v in (3, "3", -1, 1.5, True, 2**63, None)]
    [3, None, None, None, None, None, None]
    """
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STORED_INT:
        return value
    return None


def stored_escapes(text: object) -> frozenset[int] | None:
    """The escape set K of ∞(K) as stored (``"0,2"``; ``""`` for K empty); None when the text is
    not numbers in ASCII digits separated by commas.

    Examples
    --------
    >>> sorted(stored_escapes("2,0")), stored_escapes(""), stored_escapes("x"), stored_escapes("²")
    ([0, 2], frozenset(), None, None)
    """
    if not isinstance(text, str):
        return None
    items = [item for item in text.split(",") if item]
    if not all(item.isascii() and item.isdigit() and len(item) <= 19 for item in items):
        return None
    values = frozenset(int(item) for item in items)
    return values if all(v <= MAX_STORED_INT for v in values) else None


def stored_key(value: object) -> str:
    """A stored position's text; a key stored as bytes (a damaged row) as UTF-8 with the bytes
    that are not replaced.

    Examples
    --------
    >>> stored_key("3,4"), stored_key(b"\\xff3")
    ('3,4', '\\ufffd3')
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def checked_state(row: Any) -> dict[str, object]:
    """A state row as reads return it, each value checked: a value the row cannot hold is read
    as None (unknown) and its column named under ``"damaged"`` (absent when nothing is).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> row = SimpleNamespace(key="3", grundy="three", outcome="N", remoteness=1, depth=0,
    ...                       height=None, expanded=1, escapes=None)
    >>> state = checked_state(row)
    >>> state["grundy"], state["outcome"], state["damaged"]
    (None, 'N', ['grundy'])
    """
    damaged: list[str] = []

    def number(column: str, value: object, *, nullable: bool = True) -> int | None:
        checked = stored_natural(value)
        if checked is None and (value is not None or not nullable):
            damaged.append(column)
        return checked

    key = stored_key(row.key)
    if key != row.key:
        damaged.append("key")
    outcome = row.outcome
    if outcome is not None and outcome not in OUTCOMES:
        damaged.append("outcome")
        outcome = None
    expanded = row.expanded
    if expanded not in (0, 1):  # True and False among them
        damaged.append("expanded")
        expanded = False
    escapes = None
    if row.escapes is not None:
        escapes = stored_escapes(row.escapes)
        if escapes is None:
            damaged.append("escapes")
    state: dict[str, object] = {
        "position": key,
        "grundy": number("grundy", row.grundy),
        "outcome": outcome,
        "remoteness": number("remoteness", row.remoteness),
        "depth": number("depth", row.depth, nullable=False),
        "height": number("height", row.height),
        "expanded": bool(expanded),
        "infinite": escapes is not None,
        "escapes": None if escapes is None else sorted(escapes),
    }
    if damaged:
        state["damaged"] = sorted(damaged)
    return state
