"""A game's spec parsed once: `GameSpec`, its parts, each with its family and parameters.

Every spelling of a game is computed here, by the naming rules its family class carries
(`Game.canonical_piece`, `Game.older_piece`, `Game.shown_piece`, `Game.names_file`,
`Game.user_code`, `Game.loops`), none of which runs a user's file:

- as typed: what a user wrote (``kayles + dag:data/g.json``);
- canonical: what a game is stored under (``octal:0.77 + dag:/home/me/data/g.json``), a DAG
  file resolved to an absolute path (so the same file typed from any folder names the same
  game), a ``py:`` file with its game's name and its fingerprint;
- older: what databases written before resolved paths stored (DAG paths as typed);
- shown: a stored spec as reported, files inside the working folder relative to it.

Code outside `explorer.games` asks a `GameSpec` what a spec is (`names_file`, `user_code`,
`loops`) instead of testing its text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from explorer.errors import ExplorerError
from explorer.games.base import Game
from explorer.games.sums import SEPARATOR, split_sum


def family_class(name: str) -> type[Game[Any]] | None:
    """The class of a family by its name (``py`` included), None when no family has it."""
    from explorer.games import FAMILIES

    found = FAMILIES.get(name)
    if found is None and name == "py":
        from explorer.games.python import PythonGame

        return PythonGame
    return found


@dataclass(frozen=True)
class SpecPart:
    """One game of a spec (a summand of a sum): the piece as typed (stripped, its alias
    resolved), its family's name (lower case) and its parameters (None without a ``:``)."""

    piece: str
    family: str
    parameters: str | None

    @classmethod
    def parse(cls, text: str) -> SpecPart:
        from explorer.games import ALIASES

        piece = text.strip()
        name, colon, parameters = ALIASES.get(piece, piece).partition(":")
        return cls(piece, name.strip().lower(), parameters.strip() if colon else None)

    @property
    def kind(self) -> type[Game[Any]] | None:
        """The family's class, or None for a family not registered (a plugin, a typo)."""
        return family_class(self.family)

    @property
    def names_file(self) -> bool:
        """Whether the part names a graph file (``dag:FILE``, ``graph:FILE``)."""
        kind = self.kind
        return kind is not None and kind.names_file and bool(self.parameters)

    @property
    def user_code(self) -> bool:
        """Whether the part is a game written in Python (``py:``), named by its file."""
        kind = self.kind
        return kind is not None and kind.user_code

    @property
    def loops(self) -> bool:
        """Whether the part's spec alone says play may loop (``graph:FILE``)."""
        kind = self.kind
        return kind is not None and kind.loops

    def import_argument(self) -> str:
        """What `explorer import` takes for this part: the file (``dag:`` is the default) or
        the piece (``graph:FILE``)."""
        kind = self.kind
        if kind is not None and kind.names_file and kind.family == "dag" and self.parameters:
            return self.parameters
        return self.piece

    def canonical(self) -> str:
        kind = self.kind
        if kind is not None:
            return kind.canonical_piece(self.piece, self.parameters)
        from explorer.games import load_game  # a plugin family, or an unknown one

        try:
            return load_game(self.piece).spec
        except ExplorerError:
            return self.piece

    def unpinned(self) -> str:
        """A ``py:`` piece without its fingerprint (it names every build of its file's game);
        other pieces as they are."""
        if not self.user_code:
            return self.piece
        from explorer.games.pyspec import unpinned_python_spec

        return unpinned_python_spec(self.piece)

    def older(self) -> str:
        kind = self.kind
        return self.piece if kind is None else kind.older_piece(self.piece, self.parameters)

    def shown(self) -> str:
        kind = self.kind
        return self.piece if kind is None else kind.shown_piece(self.piece, self.parameters)


def _joined(pieces: list[str]) -> str:
    return f" {SEPARATOR} ".join(pieces)


@dataclass(frozen=True)
class GameSpec:
    """A spec taken apart once: its parts, in order (one for a game that is not a sum).

    Examples
    --------
    >>> import os
    >>> spec = GameSpec.parse("kayles + nim")
    >>> [(p.family, p.parameters) for p in spec.parts], spec.canonical()
    ([('octal', '0.77'), ('nim', None)], 'octal:0.77 + nim')
    >>> GameSpec.parse("dag:data/../data/note003.json").canonical() == (
    ...     "dag:" + os.path.abspath("data/note003.json"))
    True
    >>> GameSpec.parse("dag:" + os.path.abspath("data/note003.json")).shown()
    'dag:data/note003.json'
    >>> GameSpec.parse("nim + graph:big.json").names_file, GameSpec.parse("nim").names_file
    (True, False)
    """

    parts: tuple[SpecPart, ...]

    @classmethod
    def parse(cls, text: str) -> GameSpec:
        return cls(tuple(SpecPart.parse(piece) for piece in split_sum(text)))

    @classmethod
    def of(cls, game: Game[Any]) -> GameSpec:
        """The spec of a loaded game (its own, canonical up to file paths)."""
        return cls.parse(game.spec)

    def canonical(self) -> str:
        """The spec the game is stored under (a spec that does not load: as typed)."""
        return _joined([part.canonical() for part in self.parts])

    def older(self) -> str:
        """The spec as databases written before resolved paths stored it."""
        return _joined([part.older() for part in self.parts])

    def unpinned(self) -> str:
        """The spec with its ``py:`` parts' fingerprints left out."""
        return _joined([part.unpinned() for part in self.parts])

    def shown(self) -> str:
        """A stored spec as shown and reported: a spec that names the same game from here."""
        return _joined([part.shown() for part in self.parts])

    def reported(self) -> str:
        """The spec as reported: canonical, then shown."""
        return GameSpec.parse(self.canonical()).shown()

    def text(self) -> str:
        """The spec as typed, its pieces stripped and joined as stored."""
        return _joined([part.piece for part in self.parts])

    @property
    def names_file(self) -> bool:
        """Whether a part names a graph file (``dag:``, ``graph:``)."""
        return any(part.names_file for part in self.parts)

    @property
    def only_file(self) -> bool:
        """Whether the game is one graph file (what `explorer import` stores and edits edit)."""
        return len(self.parts) == 1 and self.parts[0].names_file

    @property
    def file_part(self) -> SpecPart | None:
        """The part, when the game is one graph file (what `explorer import` stores and edits
        edit), else None."""
        return self.parts[0] if self.only_file else None

    @property
    def user_code(self) -> bool:
        """Whether a part is a game written in Python (``py:``)."""
        return any(part.user_code for part in self.parts)

    @property
    def loops(self) -> bool:
        """Whether the spec alone says play may loop (a ``graph:`` part)."""
        return any(part.loops for part in self.parts)

    def stored_parameters(self, canonical: str) -> str | None:
        """What the ``games.parameters`` column holds for the game's `canonical` spec: the
        text after ``family:`` (a file's resolved path), the whole spec for a sum, None for a
        game without parameters."""
        if len(self.parts) > 1:
            return canonical
        return canonical.partition(":")[2] or None
