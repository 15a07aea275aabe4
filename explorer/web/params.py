"""What an address of the web app names, checked: numbers by the CLI's rules (ASCII digits, the
64-bit range the databases store), texts, the convention, and the stored game a spec names,
found among the stored games' specs without reading any graph file."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.errors import BadRequest, ExplorerError
from explorer.games.base import natural_number
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.pyspec import stored_rules
from explorer.games.specs import GameSpec
from explorer.limits import MAX_STORED_INT
from explorer.storage.rows.records import stored_specs

if TYPE_CHECKING:
    from explorer.games.base import Game
    from explorer.storage import Database
    from explorer.storage.stored_game import StoredGame

#: Longest spec an address may name (every stored spec is far shorter).
MAX_SPEC_LENGTH = 10_000


def number(
    params: Mapping[str, str], name: str, *, low: int = 0, high: int = MAX_STORED_INT
) -> int | None:
    """The whole number a query parameter holds (None when it is absent or empty).

    Written in ASCII digits, from `low` to `high` (by default the 64-bit range the databases
    store), as the CLI's options are.

    Raises
    ------
    BadRequest
        For anything else: a sign, superscript or other scripts' digits, a number out of range.

    Examples
    --------
    >>> number({"page": "3"}, "page", low=1), number({}, "page")
    (3, None)
    >>> number({"page": "²"}, "page")
    Traceback (most recent call last):
    ...
    explorer.errors.BadRequest: page must be a whole number from 0 to 9,223,372,036,854,775,807 in ASCII digits, not '²'
    """  # noqa: E501
    text = params.get(name, "").strip()
    if not text:
        return None
    problem = f"{name} must be a whole number from {low:,} to {high:,} in ASCII digits, not"
    try:
        value = natural_number(text, context=name, error=BadRequest)
    except BadRequest:
        raise BadRequest(f"{problem} a number of {len(text):,} digits") from None
    if value is None or not low <= value <= high:
        raise BadRequest(f"{problem} {text!r}")
    return value


def text(params: Mapping[str, str], name: str) -> str | None:
    """A query parameter's text, or None when it is absent.

    Raises
    ------
    BadRequest
        When it holds a NUL character (no stored text can: PostgreSQL refuses them).

    Examples
    --------
    >>> text({"q": "3,4"}, "q"), text({}, "q")
    ('3,4', None)
    """
    value = params.get(name)
    if value is not None and "\x00" in value:
        raise BadRequest(f"{name} must not hold a NUL character")
    return value


def spec_of(params: Mapping[str, str]) -> str:
    """The game spec an address names (``spec=``), stripped.

    Raises
    ------
    BadRequest
        When there is none, or it is too long to be a stored game's.
    """
    found = (text(params, "spec") or "").strip()
    if not found:
        raise BadRequest("no game named (add ?spec=GAME to the address)")
    if len(found) > MAX_SPEC_LENGTH:
        raise BadRequest(
            f"a spec of {len(found):,} characters is too long (at most {MAX_SPEC_LENGTH:,})"
        )
    return found


def convention_of(params: Mapping[str, str]) -> Convention:
    """The convention an address names (``convention=misere`` for a game's misère build)."""
    found = params.get("convention", "").strip()
    if found not in ("", NORMAL, MISERE):
        raise BadRequest(f"convention must be normal or misere, not {found!r}")
    return MISERE if found == MISERE else NORMAL


@dataclass(frozen=True)
class Named:
    """A stored game an address names: its handle, its spec as stored and as shown, and its
    rules (None for a game on a graph file, whose file is never read)."""

    stored: StoredGame
    spec: str
    shown: str
    rules: Game[Any] | None


class Names:
    """The stored games the specs of addresses name, found without loading graph files.

    A spec names a stored game when it is the game's stored spec, its spec as shown, or has its
    canonical form (files resolved to absolute paths, not read). The rules of a game that names
    no file are loaded once and kept, to parse its positions; a game on a graph file is read by
    its stored states only (its positions looked up as typed), so a request never reads a file.
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self.lock = threading.Lock()
        self.rules: dict[str, Game[Any] | None] = {}

    def game(self, typed: str, convention: Convention) -> Named:
        """The stored game `typed` names in `convention`.

        Raises
        ------
        NotStoredError
            When no stored game has that name (the message says what is stored).
        """
        stored = self._stored(typed, convention)
        if stored is None:
            # storage's own lookup (which reads no file either) says what is stored, or finds
            # a game stored by an older spelling
            found = self.database.game(typed, convention, rules=False)
            found.lookup([])  # finds the game's row, or raises NotStoredError
            return Named(found, typed, GameSpec.parse(typed).shown(), None)
        rules = None if GameSpec.parse(stored).names_file else self._rules(stored)
        if rules is None:
            handle = self.database.game(stored, convention, rules=False)
        else:
            handle = self.database.game(rules, convention)
        return Named(handle, stored, GameSpec.parse(stored).shown(), rules)

    def _stored(self, typed: str, convention: Convention) -> str | None:
        specs = [s for s, c in stored_specs(self.database.engine) if c == convention]
        for stored in specs:
            if typed in (stored, GameSpec.parse(stored).shown()):
                return stored
        wanted = GameSpec.parse(typed).canonical()
        return wanted if wanted in specs else None

    def _rules(self, stored: str) -> Game[Any] | None:
        with self.lock:
            if stored in self.rules:
                return self.rules[stored]
        try:
            rules: Game[Any] | None = stored_rules(stored)  # Python rules are never run here
        except ExplorerError:  # stored by a version that knew rules this one does not
            rules = None
        with self.lock:
            self.rules[stored] = rules
        return rules
