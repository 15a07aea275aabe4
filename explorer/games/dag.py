"""Explicit graph games: a token on a vertex of a DAG read from a file, moved along out-edges.

The file is read by `explorer.games.graph_files.read_graph_file`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import ClassVar

from explorer.errors import PositionError, SpecError
from explorer.games.base import Game

#: Vertices named in a "not a vertex" error.
SHOWN_VERTICES = 5


class DagGame(Game[str]):
    """The game on an explicit DAG; a position is a vertex name.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.json"
    >>> _ = path.write_text('{"b": ["a", "t"], "a": ["t"], "t": []}')
    >>> game = DagGame(str(path))
    >>> list(game.successors(game.parse("b")))
    ['a', 't']
    """

    family = "dag"
    parameters = "FILE, a graph file: .json, .txt/.edges (edge list), .csv or .graphml"
    position_syntax = "a vertex name from the file"
    example = ("dag:data/note003.json", "b")
    summary = "a token on a DAG read from a file, moved along an edge"
    #: Whether the file must be acyclic (`graph:` allows cycles and self-loops).
    acyclic: ClassVar[bool] = True
    names_file = True

    @classmethod
    def canonical_piece(cls, piece: str, parameters: str | None) -> str:
        """The file resolved to an absolute path, not read: it may have changed or gone since
        it was imported (the same file typed from any folder names the same game)."""
        if not parameters:
            return piece
        return f"{cls.family}:{os.path.realpath(parameters)}"

    @classmethod
    def older_piece(cls, piece: str, parameters: str | None) -> str:
        """The path as typed (normalised): what databases written before resolved paths kept."""
        return f"{cls.family}:{os.path.normpath(parameters)}" if parameters else piece

    @classmethod
    def shown_piece(cls, piece: str, parameters: str | None) -> str:
        """The file relative to the working folder when it lies inside it."""
        if parameters and os.path.isabs(parameters):
            relative = os.path.relpath(parameters)
            if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
                return f"{cls.family}:{relative}"
        return piece

    def __init__(self, path: str) -> None:
        from explorer.games.graph_files import collector_paused, read_graph_file

        self.path = os.path.normpath(path)
        self.vertices, edges = read_graph_file(self.path, acyclic=self.acyclic)
        with collector_paused():
            self._successors: dict[str, list[str]] = {v: [] for v in self.vertices}
            for source, target in edges:
                self._successors[source].append(target)

    @property
    def spec(self) -> str:
        return f"{self.family}:{self.path}"

    def parse(self, text: str) -> str:
        for candidate in (text, text.strip()):
            if candidate in self._successors:
                return candidate
        shown = ", ".join(repr(v) for v in self.vertices[:SHOWN_VERTICES])
        more = len(self.vertices) - SHOWN_VERTICES
        listing = f"{shown}, ... {len(self.vertices)} in all" if more > 0 else shown
        raise PositionError(f"{text!r} is not a vertex of {self.spec} (vertices: {listing})")

    def format(self, position: str) -> str:
        return position

    def successors(self, position: str) -> Iterator[str]:
        yield from self._successors[position]

    @classmethod
    def from_parameters(cls, parameters: str | None) -> DagGame:
        if not parameters:
            raise SpecError(f"{cls.family} needs a graph file, e.g. {cls.example[0]}")
        return cls(parameters)
