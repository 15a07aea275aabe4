"""Corner the queen with several pieces, played as written, and the reduction of the study note
*OI 博弈论若干模型总结* to a sum of single pieces that never enter row 0, column 0 or the diagonal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from explorer.errors import PositionError
from explorer.games.base import Decomposition, Game, Part, natural_number

Square = tuple[int, int]
Board = tuple[Square, ...]

#: Largest coordinate: the note's board is at most 100 x 100. The reduced game of one piece is
#: solved as a graph of about x*y squares and x*y*(x+y) moves (1.2 million at 99,98).
MAX_COORDINATE = 99

CORNER: Square = (0, 0)

SQUARES = "squares x,y joined by ';', e.g. 1,3;4,2"

REDUCTION_NOTE = (
    "the study notes' reduction: no piece enters row 0, column 0 or the diagonal (from there the "
    "opponent reaches (0,0)), so the board is a sum of single pieces (each written with "
    "x <= y, by symmetry); it keeps the outcome, not the Grundy value"
)


def on_a_line(square: Square) -> bool:
    """Whether a piece on `square` is on row 0, column 0 or the diagonal.

    From such a square other than (0,0) itself, the piece reaches (0,0) in one move.

    Examples
    --------
    >>> on_a_line((0, 5)), on_a_line((3, 3)), on_a_line((1, 2))
    (True, True, False)
    """
    x, y = square
    return x == 0 or y == 0 or x == y


def queen_moves(square: Square) -> Iterator[Square]:
    """The squares one piece on `square` moves to: left, down or diagonally down-left.

    Parameters
    ----------
    square : tuple of int
        The piece's square ``(x, y)``.

    Returns
    -------
    Iterator of squares
        ``(x-k, y)``, then ``(x, y-k)``, then ``(x-k, y-k)``, for k = 1, 2, ...

    Examples
    --------
    >>> list(queen_moves((1, 2)))
    [(0, 2), (1, 1), (1, 0), (0, 1)]
    """
    x, y = square
    for k in range(1, x + 1):
        yield (x - k, y)
    for k in range(1, y + 1):
        yield (x, y - k)
    for k in range(1, min(x, y) + 1):
        yield (x - k, y - k)


def parse_square(piece: str, text: str, game: str) -> Square:
    """Parse one piece ``"x,y"`` of the position `text` into a square on the board.

    Parameters
    ----------
    piece : str
        The piece's text.
    text, game : str
        The whole position and the game's spec, for the error message.

    Returns
    -------
    tuple of int

    Raises
    ------
    PositionError
        When the piece is not two non-negative integers at most `MAX_COORDINATE`.

    Examples
    --------
    >>> parse_square(" 4, 2", "1,3; 4, 2", "queens")
    (4, 2)
    """
    coordinates = [c.strip() for c in piece.split(",")]
    context = f"bad position {text!r} for {game}"
    numbers = [natural_number(c, context=context) for c in coordinates]
    if len(numbers) != 2 or None in numbers:
        raise PositionError(
            f"{context}: {piece.strip()!r} is not a square x,y (expected {SQUARES})"
        )
    x, y = numbers[0] or 0, numbers[1] or 0
    if max(x, y) > MAX_COORDINATE:
        raise PositionError(
            f"bad position {text!r} for {game}: square {x},{y} is off the board "
            f"(coordinates go from 0 to {MAX_COORDINATE})"
        )
    return (x, y)


def _reflected(square: Square) -> Square:
    """The square or its mirror image in the diagonal, whichever has x <= y."""
    x, y = square
    return (x, y) if x <= y else (y, x)


def _board(squares: Sequence[Square]) -> Board:
    """The board holding a piece on each square (the parts of a reduction, put back).

    The parts have their pieces mirrored to x <= y, which changes no value: mirroring one
    piece maps its moves onto themselves and keeps (0,0) in place.
    """
    return tuple(sorted(squares))


class Queens(Game[Board]):
    """Several pieces on a board; a move takes one piece left, down or diagonally down-left.

    A position is the sorted tuple of the pieces' squares (several may share one). Whoever
    first puts a piece on (0,0) wins: a board with a piece there has no move, so under normal
    play the player who made the last move won. `decompose` gives the study note's reduction.
    """

    family = "queens"
    position_syntax = f"{SQUARES} (0 <= x,y <= {MAX_COORDINATE}; pieces may share a square)"
    example = ("queens", "1,3;4,2")
    summary = "corner the queen with several pieces: first to put one on (0,0) wins"

    def __init__(self) -> None:
        self.reduced = ReducedQueen()

    def parse(self, text: str) -> Board:
        if not text.strip():
            raise PositionError(f"empty position for queens (expected {SQUARES})")
        return _board([parse_square(piece, text, "queens") for piece in text.split(";")])

    def format(self, position: Board) -> str:
        return ";".join(f"{x},{y}" for x, y in position)

    def tier(self, position: Board) -> int:
        """The sum of every piece's coordinates: a move takes one piece left or down."""
        return sum(x + y for x, y in position)

    def successors(self, position: Board) -> Iterator[Board]:
        if CORNER in position:
            return
        for i, square in enumerate(position):
            if i and position[i - 1] == square:
                continue
            rest = position[:i] + position[i + 1 :]
            for target in queen_moves(square):
                yield _board([*rest, target])

    def decompose(self, position: Board) -> Decomposition:
        """Note 002's reduction: the board as a sum of pieces in the `ReducedQueen` game.

        It decides the outcome (P exactly when the XOR of the parts is 0), not the Grundy
        value of the board as written. A board with a piece on (0,0) has no parts (value 0);
        one with a piece that reaches (0,0) at once is that piece alone (value 1).
        """
        if CORNER in position:
            note = "a piece is on (0,0): the game is over and the player to move has lost"
            return Decomposition((), _board, exact=False, note=note)
        for square in position:
            if on_a_line(square):
                x, y = square
                note = f"the piece on {x},{y} reaches (0,0) in one move: the player to move wins"
                alone = (Part(self.reduced, _reflected(square)),)
                return Decomposition(alone, _board, exact=False, note=note)
        parts = tuple(Part(self.reduced, _reflected(square)) for square in position)
        return Decomposition(parts, _board, exact=False, note=REDUCTION_NOTE)


class ReducedQueen(Game[Square]):
    """One piece of the reduced board game of the study note (not registered: a part of `Queens`).

    From a square off row 0, column 0 and the diagonal the piece moves only to squares off
    them too, so (1,2) and (2,1) are final; from a square on them its one move is to (0,0),
    which is final. Its values come from its game graph. The game is symmetric, so a position
    is the square with its smaller coordinate first: (x,y) and (y,x) share one graph.
    """

    family = "queens-reduced"
    position_syntax = "one square x,y"
    example = ("queens-reduced", "3,5")
    summary = "one piece of the reduced corner-the-queen game"

    def parse(self, text: str) -> Square:
        return _reflected(parse_square(text, text, self.spec))

    def format(self, position: Square) -> str:
        x, y = position
        return f"{x},{y}"

    def tier(self, position: Square) -> int:
        """The sum of the coordinates (a move lowers it; a reflection keeps it)."""
        return position[0] + position[1]

    def successors(self, position: Square) -> Iterator[Square]:
        if position == CORNER:
            return
        if on_a_line(position):
            yield CORNER
            return
        for target in queen_moves(position):
            if not on_a_line(target):
                yield _reflected(target)

    def __repr__(self) -> str:
        return "ReducedQueen()"
