"""Cram: a move fills two adjacent empty cells of a board (a domino placed either way).

A board splits into its regions of empty cells; a region's label is its smallest picture
under the eight symmetries of the square, so turned and mirrored regions are valued once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from explorer.errors import PositionError, SpecError
from explorer.games.base import Components, Decomposition, Game, Part, natural_number
from explorer.games.grids import grid_rules
from explorer.games.labels import graph_label
from explorer.games.pictures import BoardPicture, cell_name

#: Most cells a board may have (a board is a bit mask of its empty cells).
MAX_CELLS = 400
SIZE = re.compile(r"(\d+)\s*x\s*(\d+)")
ROW = re.compile(r"[.#]+")
CRAM_SYNTAX = (
    "RxC for an empty board, or rows of '.' (empty) and '#' (filled) joined by '/', "
    "like ..#./..../...."
)


@dataclass(frozen=True)
class Board:
    """A board of `rows` x `cols` cells; bit ``r * cols + c`` of `empty` is cell (r, c)."""

    rows: int
    cols: int
    empty: int

    def cells(self) -> Iterator[tuple[int, int]]:
        """The empty cells, row by row."""
        mask, index = self.empty, 0
        while mask:
            if mask & 1:
                yield divmod(index, self.cols)
            mask >>= 1
            index += 1


def _board(rows: int, cols: int, empty: int) -> Board:
    return Board(0, 0, 0) if rows == 0 or cols == 0 else Board(rows, cols, empty)


def parse_board(text: str, game: str) -> Board:
    """A board from ``RxC`` or rows of ``.`` and ``#`` joined by ``/``."""
    stripped = text.strip()
    size = SIZE.fullmatch(stripped)
    if size is not None:
        rows = natural_number(size.group(1), context=f"bad position for {game}")
        cols = natural_number(size.group(2), context=f"bad position for {game}")
        assert rows is not None and cols is not None
        if rows * cols > MAX_CELLS:
            raise PositionError(
                f"board {text!r} for {game} has {rows * cols:,} cells, over {MAX_CELLS}"
            )
        return _board(rows, cols, (1 << rows * cols) - 1)
    lines = stripped.split("/")
    if not all(ROW.fullmatch(line) for line in lines) or len({len(x) for x in lines}) != 1:
        raise PositionError(
            f"bad position {text!r} for {game} (expected {CRAM_SYNTAX}; rows of equal length)"
        )
    rows, cols = len(lines), len(lines[0])
    if rows * cols > MAX_CELLS:
        raise PositionError(
            f"board {text!r} for {game} has {rows * cols:,} cells, over {MAX_CELLS}"
        )
    empty = 0
    for r, line in enumerate(lines):
        for c, cell in enumerate(line):
            if cell == ".":
                empty |= 1 << (r * cols + c)
    return _board(rows, cols, empty)


def format_board(board: Board) -> str:
    """Rows of ``.`` and ``#`` joined by ``/`` (``0x0`` for the board with no cell)."""
    if board.rows == 0:
        return "0x0"
    return "/".join(
        "".join("." if board.empty >> (r * board.cols + c) & 1 else "#" for c in range(board.cols))
        for r in range(board.rows)
    )


def _regions(board: Board) -> list[int]:
    """The masks of the regions of empty cells (cells joined by a side)."""
    cols, left = board.cols, board.empty
    not_first = not_last = 0
    for r in range(board.rows):
        not_first |= ((1 << cols) - 2) << (r * cols)
        not_last |= ((1 << (cols - 1)) - 1) << (r * cols)
    found = []
    while left:
        region = left & -left
        while True:
            grown = (
                region
                | (
                    ((region << 1) & not_first)
                    | ((region >> 1) & not_last)
                    | (region << cols)
                    | (region >> cols)
                )
                & left
            )
            if grown == region:
                break
            region = grown
        found.append(region)
        left &= ~region
    return found


def _crop(board: Board, region: int) -> tuple[Board, int, int]:
    """The region on its bounding box, with the box's top row and left column."""
    return _cropped(board.rows, board.cols, region)


@lru_cache(maxsize=1 << 18)
def _cropped(rows: int, cols: int, region: int) -> tuple[Board, int, int]:
    """`_crop` by numbers, remembered: the same region comes back from many moves."""
    full_row = (1 << cols) - 1
    lines = [(region >> (r * cols)) & full_row for r in range(rows)]
    top = next(r for r, line in enumerate(lines) if line)
    bottom = max(r for r, line in enumerate(lines) if line)
    used = 0
    for line in lines[top : bottom + 1]:
        used |= line
    left = (used & -used).bit_length() - 1
    width = used.bit_length() - left
    empty = 0
    for r in range(top, bottom + 1):
        empty |= (lines[r] >> left) << ((r - top) * width)
    return Board(bottom - top + 1, width, empty), top, left


@lru_cache(maxsize=1 << 18)
def board_label(board: Board) -> str:
    """The smallest of the eight pictures of a cropped region (turns and mirrors).

    Examples
    --------
    >>> board_label(parse_board("../.#", "cram")) == board_label(parse_board(".#/..", "cram"))
    True
    """
    cells = list(board.cells())
    h, w = board.rows, board.cols
    best: tuple[int, int, int] | None = None
    for transpose in (False, True):
        for flip_r in (False, True):
            for flip_c in (False, True):
                height, width = (w, h) if transpose else (h, w)
                mask = 0
                for r, c in cells:
                    if transpose:
                        r, c = c, r
                    if flip_r:
                        r = height - 1 - r
                    if flip_c:
                        c = width - 1 - c
                    mask |= 1 << (r * width + c)
                key = (height, width, mask)
                if best is None or key < best:
                    best = key
    assert best is not None
    return f"{best[0]}x{best[1]}:{best[2]:x}"


@lru_cache(maxsize=1 << 18)
def cell_graph_label(board: Board) -> str:
    """The canonical label of the graph of a region's cells (joined by a side): Cram is
    Arc-Kayles on that graph, so regions of one graph (every strip and bent strip of k
    cells, say) share a value."""
    cells = list(board.cells())
    index = {cell: i for i, cell in enumerate(cells)}
    adjacency = [0] * len(cells)
    for (r, c), i in index.items():
        for other in ((r, c + 1), (r + 1, c)):
            j = index.get(other)
            if j is not None:
                adjacency[i] |= 1 << j
                adjacency[j] |= 1 << i
    return graph_label(tuple(adjacency))


def _sides(board: Board) -> tuple[int, int, int]:
    return board.rows, board.cols, board.empty


class Cram(Game[Board]):
    """Cram: fill two adjacent empty cells (a domino, either way).

    Examples
    --------
    >>> game = Cram()
    >>> [game.format(b) for b in game.successors(game.parse("1x3"))]
    ['##.', '.##']
    """

    family = "cram"
    parameters = "optional rows R: the value sequence of the R x n boards"
    position_syntax = CRAM_SYNTAX
    example = ("cram", "..#./..../....")
    summary = "Cram: fill two adjacent empty cells of a board"
    #: The grid rule the pruned search plays (`explorer.games.grids`).
    grid_rule = "cram"

    def __init__(self, rows: int | None = None) -> None:
        self.rows = rows

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Cram:
        if parameters is None or parameters == "":
            return cls()
        rows = natural_number(parameters.strip(), context="bad cram rows", error=SpecError)
        if rows is None or not 1 <= rows <= 20:
            raise SpecError(
                f"bad rows {parameters!r} for cram (expected a number R from 1 to 20: the "
                "sequence of R x n boards)"
            )
        return cls(rows)

    @property
    def spec(self) -> str:
        return self.family if self.rows is None else f"{self.family}:{self.rows}"

    def part_family(self) -> str:
        return self.family

    def parse(self, text: str) -> Board:
        return parse_board(text, self.spec)

    def format(self, position: Board) -> str:
        return format_board(position)

    def successors(self, position: Board) -> Iterator[Board]:
        rows, cols, empty = position.rows, position.cols, position.empty
        for index in range(rows * cols):
            if not empty >> index & 1:
                continue
            if index % cols < cols - 1 and empty >> (index + 1) & 1:
                yield Board(rows, cols, empty & ~(3 << index))
            if index + cols < rows * cols and empty >> (index + cols) & 1:
                yield Board(rows, cols, empty & ~(1 << index | 1 << (index + cols)))

    def move_name(self, position: Board, successor: Board) -> str | None:
        """``domino on b2-b3``: the two cells the move filled (columns a, b, ... from the
        left, rows 1, 2, ... from the top).

        Examples
        --------
        >>> game = Cram()
        >>> game.move_name(game.parse("2x2"), game.parse("#./#."))
        'domino on a1-a2'
        """
        if (position.rows, position.cols) != (successor.rows, successor.cols):
            return None
        filled = Board(position.rows, position.cols, position.empty & ~successor.empty)
        cells = list(filled.cells())
        if len(cells) != 2 or successor.empty & ~position.empty:
            return None
        return "domino on " + "-".join(cell_name(r, c) for r, c in cells)

    def decompose(self, position: Board) -> Decomposition | None:
        regions = [r for r in _regions(position) if r & (r - 1)]  # a lone cell has no move
        if len(regions) == 1 and regions[0] == position.empty:
            cropped, _, _ = _crop(position, regions[0])
            if cropped == position:
                return None
        crops = [_crop(position, region) for region in regions]
        rest = position.empty
        for region in regions:
            rest &= ~region
        cols = position.cols

        def rebuild(moved: Sequence[Board]) -> Board:
            empty = rest
            for board, (_, top, left) in zip(moved, crops, strict=True):
                for r, c in board.cells():
                    empty |= 1 << ((r + top) * cols + c + left)
            return Board(position.rows, cols, empty)

        return Decomposition(
            parts=tuple(Part(self, board) for board, _, _ in crops),
            rebuild=rebuild,
            note=f"{len(crops)} region{'s' if len(crops) != 1 else ''} of empty cells, each "
            "valued once per shape (turns and mirrors)",
        )

    def tier(self, position: Board) -> int | None:
        return position.empty.bit_count()  # a move fills two empty cells

    def part_label(self, position: Board) -> str | None:
        return cell_graph_label(position)

    @classmethod
    def search_rules(cls) -> list[Any]:
        return [grid_rules("cram")]

    def search_components(self, position: Board) -> Components | None:
        rules = grid_rules("cram")
        return Components(((rules, tuple(rules.board_components(*_sides(position)))),))

    def part_of_label(self, label: str) -> tuple[Game[Any], Any] | None:
        from explorer.games.graphs import ArcKayles, graph_of_label

        return ArcKayles(), graph_of_label(label)  # a label is a graph of cells

    def picture(self, position: Board) -> BoardPicture:
        return BoardPicture(position.rows, position.cols, frozenset(position.cells()))

    def sequence_position(self, n: int) -> Board | None:
        if self.rows is None:
            return None
        return _board(self.rows, n, (1 << self.rows * n) - 1)
