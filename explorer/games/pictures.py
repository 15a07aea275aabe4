"""How a part of a game on a graph or a board looks: its vertices and edges, or its cells.

A game offers a picture of a position by `explorer.games.base.Game.picture`; the drawings
(`explorer.viz.parts`) lay it out and draw it. Pictures are plain data, free of geometry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


def cell_name(row: int, col: int) -> str:
    """A board's cell as players name it: its column as letters (``a`` to ``z``, then ``aa``,
    ...), its row as a number from 1, the top row first.

    Examples
    --------
    >>> cell_name(0, 0), cell_name(1, 2), cell_name(0, 27)
    ('a1', 'c2', 'ab1')
    """
    letters = ""
    col += 1
    while col:
        col, digit = divmod(col - 1, 26)
        letters = chr(ord("a") + digit) + letters
    return f"{letters}{row + 1}"


@dataclass(frozen=True)
class GraphPicture:
    """A graph: vertex names, and edges as pairs of indices into them (a pair (i, i) is a
    loop; a pair given twice is two parallel edges). `ground`, when not None, is the index
    of a vertex drawn as the ground (Hackenbush's); `places`, when not None, the (row,
    column) of each vertex on a grid (an ``RxC`` graph and what moves leave of it).

    Examples
    --------
    >>> from explorer import load_game
    >>> hackenbush = load_game("hackenbush")
    >>> hackenbush.picture(hackenbush.parse("g-a,a-a,a-g"))
    GraphPicture(vertices=('a', 'g'), edges=((0, 0), (0, 1), (0, 1)), ground=1, places=None)
    """

    vertices: tuple[str, ...]
    edges: tuple[tuple[int, int], ...]
    ground: int | None = None
    places: tuple[tuple[int, int], ...] | None = None


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

    def lines(self) -> list[str]:
        """The board as text, its columns lettered and its rows numbered as moves name
        cells: ``.`` an empty cell, ``#`` a filled one.

        Examples
        --------
        >>> for line in BoardPicture(2, 3, frozenset({(0, 0), (1, 2)})).lines():
        ...     print(line)
          a b c
        1 . # #
        2 # # .
        """
        width = len(str(self.rows))
        head = " " * (width + 1) + " ".join(cell_name(0, c)[:-1] for c in range(self.cols))
        return [head] + [
            f"{r + 1:>{width}} "
            + " ".join("." if (r, c) in self.empty else "#" for c in range(self.cols))
            for r in range(self.rows)
        ]


#: What `Game.picture` gives.
Picture: TypeAlias = GraphPicture | BoardPicture
