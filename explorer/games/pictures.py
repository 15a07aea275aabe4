"""How a part of a game on a graph or a board looks: its vertices and edges, or its cells.

A game offers a picture of a position by `explorer.games.base.Game.picture`; the drawings
(`explorer.viz.parts`) lay it out and draw it. Pictures are plain data, free of geometry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True)
class GraphPicture:
    """A graph: vertex names, and edges as pairs of indices into them (a pair (i, i) is a
    loop; a pair given twice is two parallel edges). `ground`, when not None, is the index
    of a vertex drawn as the ground (Hackenbush's).

    Examples
    --------
    >>> from explorer import load_game
    >>> hackenbush = load_game("hackenbush")
    >>> hackenbush.picture(hackenbush.parse("g-a,a-a,a-g"))
    GraphPicture(vertices=('a', 'g'), edges=((0, 0), (0, 1), (0, 1)), ground=1)
    """

    vertices: tuple[str, ...]
    edges: tuple[tuple[int, int], ...]
    ground: int | None = None


@dataclass(frozen=True)
class BoardPicture:
    """A board of `rows` x `cols` cells, the empty ones given as (row, column) pairs.

    Examples
    --------
    >>> from explorer import load_game
    >>> cram = load_game("cram")
    >>> sorted(cram.picture(cram.parse("#./..")).empty)
    [(0, 1), (1, 0), (1, 1)]
    """

    rows: int
    cols: int
    empty: frozenset[tuple[int, int]]


#: What `Game.picture` gives.
Picture: TypeAlias = GraphPicture | BoardPicture
