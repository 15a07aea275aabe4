"""Treblecross (Crosses and Crosses) on a 1 x n strip, played as written, and the study note
*OI 博弈论若干模型总结*'s reduction of it to a take-and-break game on the runs of cells that are
still safe to mark.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

import numpy as np

from explorer.errors import PositionError
from explorer.games.base import Decomposition, Game, Part, natural_number
from explorer.games.heaps import HeapGame, Heaps
from explorer.pace import pace

Strip = str

#: Longest strip (the note goes to n = 5000). Run values are tabulated in about n^2 / 4 steps
#: and solving a strip looks at n successors of n cells each.
MAX_CELLS = 10_000

EMPTY, MARK = ".", "X"
THREE = MARK * 3
STRIP = "a strip of '.' (empty) and 'X' (marked) cells like ..X...., or N for N empty cells"

#: The shortest strip whose outcome the reduction gives. On two cells the mark beside an X
#: cannot be punished (no third cell), so ".." is a P-position as written, not N.
SHORTEST_REDUCED = 3

#: Patterns where one more mark makes three in a row.
THREATS = ("XX.", ".XX", "X.X")

REDUCTION_NOTE = (
    "the study notes' reduction: no cell within two of an X is marked (the opponent would make "
    "three), so the strip is a sum of runs of safe cells; it keeps the outcome, not the "
    "Grundy value"
)


def parse_strip(text: str, game: str) -> Strip:
    """Parse a strip such as ``..X....`` (``x`` is read as ``X``) or ``N`` for N empty cells.

    Parameters
    ----------
    text : str
        The position's text.
    game : str
        The game's spec, for the error message.

    Returns
    -------
    str
        The strip's cells, ``.`` or ``X``.

    Raises
    ------
    PositionError
        When the text is empty, holds another character or is longer than `MAX_CELLS`.

    Examples
    --------
    >>> parse_strip("..x.", "treblecross"), parse_strip("5", "treblecross")
    ('..X.', '.....')
    """
    stripped = text.strip()
    if not stripped:
        raise PositionError(f"empty position for {game} (expected {STRIP})")
    cells = natural_number(stripped, context=f"bad position for {game}")
    if cells is not None:
        if cells > MAX_CELLS:
            raise PositionError(
                f"bad position {text!r} for {game}: {cells:,} cells is more than the "
                f"{MAX_CELLS:,} allowed"
            )
        return EMPTY * cells
    strip = stripped.replace("x", MARK)
    bad = next((cell for cell in strip if cell not in (EMPTY, MARK)), None)
    if bad is not None:
        raise PositionError(
            f"bad position {text!r} for {game}: {bad!r} is not a cell (expected {STRIP})"
        )
    if len(strip) > MAX_CELLS:
        raise PositionError(
            f"bad position {strip[:10]!r}... for {game}: {len(strip):,} cells is more than "
            f"the {MAX_CELLS:,} allowed"
        )
    return strip


def format_strip(strip: Strip) -> str:
    """The strip's text; the strip of no cells is written ``0``.

    Examples
    --------
    >>> format_strip("..X"), format_strip("")
    ('..X', '0')
    """
    return strip or "0"


def safe_runs(strip: Strip) -> list[int]:
    """The lengths of the runs of empty cells at distance 3 or more from every X.

    Parameters
    ----------
    strip : str

    Returns
    -------
    list of int
        The runs from left to right, empty ones left out.

    Examples
    --------
    >>> safe_runs("........X..........X.")
    [6, 6]
    """
    gaps = [len(gap) for gap in strip.split(MARK)]
    if len(gaps) == 1:
        return [gaps[0]] if gaps[0] else []
    # a gap at an end loses the 2 cells next to its X, a gap between two X's loses 4
    runs = [gaps[0] - 2, *(gap - 4 for gap in gaps[1:-1]), gaps[-1] - 2]
    return [run for run in runs if run > 0]


def strip_with_runs(parts: Sequence[tuple[int, ...]]) -> Strip:
    """A strip whose safe runs are those of the given run positions (a reduction put back).

    Parameters
    ----------
    parts : sequence of tuples of int
        Positions of `SafeRuns`.

    Returns
    -------
    str
        The runs joined by ``..X..``, whose cells are all unsafe.

    Examples
    --------
    >>> strip_with_runs([(3,), (2,)])
    '.....X....'
    >>> safe_runs(_)
    [3, 2]
    """
    runs = [run for part in parts for run in part]
    return ("." * 2 + MARK + "." * 2).join(EMPTY * run for run in runs)


def _threat(parts: Sequence[Strip]) -> Strip:
    """The strip of the one part of a reduction where three can be made at once."""
    return parts[0]


class _StripGame(Game[Strip]):
    """A game of marking the empty cells of a strip, over once three marks are in a row; the
    family name is the spec."""

    position_syntax = STRIP

    def parse(self, text: str) -> Strip:
        return parse_strip(text, self.spec)

    def format(self, position: Strip) -> str:
        return format_strip(position)

    def successors(self, position: Strip) -> Iterator[Strip]:
        if THREE in position:
            return
        for i, cell in enumerate(position):
            if cell == EMPTY and self.may_mark(position, i):
                yield position[:i] + MARK + position[i + 1 :]

    def may_mark(self, position: Strip, i: int) -> bool:
        """Whether the empty cell `i` may be marked (any may, unless a subclass says not)."""
        return True


class Treblecross(_StripGame):
    """Treblecross played as written: mark an empty cell; three marks in a row end the game.

    A position is the strip's text. A strip holding ``XXX`` has no move: under normal play
    the player who made three made the last move and won. `decompose` gives the study note's
    reduction for strips of three or more cells.
    """

    family = "treblecross"
    example = ("treblecross", "..X....")
    summary = "Crosses and Crosses: mark cells of a strip; three marks in a row win"

    def __init__(self) -> None:
        self.runs = SafeRuns()
        self.threats = TreblecrossThreat()

    def decompose(self, position: Strip) -> Decomposition | None:
        """Note 002's reduction: the safe runs as a sum of heaps of the `SafeRuns` game.

        It decides the outcome (P exactly when the XOR of the parts is 0), not the Grundy
        value as written. A strip holding three marks has no parts (value 0); a strip where
        one mark makes three is one `TreblecrossThreat` part (value 1). Strips of fewer than
        three cells are not reduced (None): they are solved as written.
        """
        if len(position) < SHORTEST_REDUCED:
            return None
        if THREE in position:
            note = "three marks in a row: the game is over and the player to move has lost"
            return Decomposition((), strip_with_runs, exact=False, note=note)
        if any(pattern in position for pattern in THREATS):
            note = "one mark makes three in a row: the player to move wins"
            return Decomposition((Part(self.threats, position),), _threat, exact=False, note=note)
        parts = tuple(Part(self.runs, (run,)) for run in safe_runs(position))
        return Decomposition(parts, strip_with_runs, exact=False, note=REDUCTION_NOTE)

    def sequence_position(self, cells: int) -> Strip:
        """The strip of `cells` empty cells (for `explorer sequence`).

        Examples
        --------
        >>> Treblecross().sequence_position(4)
        '....'
        """
        if cells > MAX_CELLS:
            raise PositionError(
                f"a treblecross strip of {cells:,} cells is more than the {MAX_CELLS:,} allowed"
            )
        return EMPTY * cells


class SafeRuns(HeapGame):
    """Runs of safe cells in reduced treblecross (not registered: a part of `Treblecross`).

    A heap of L is a run of L cells; marking its cell i (1 <= i <= L) forbids the two cells
    on each side and leaves runs of max(0, i-3) and max(0, L-i-2). This is the octal game
    0.007 shifted: a run of L is its heap of L + 2, from which taking three tokens leaves
    heaps of i-1 and L-i, the runs above plus 2 (heaps of 0, 1 and 2 are all worth 0).
    """

    family = "treblecross-runs"
    position_syntax: ClassVar[str] = "lengths of runs of safe cells, e.g. 3,7"
    example = ("treblecross-runs", "3,7")
    summary = "runs of safe cells of the reduced treblecross"

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        for i in range(1, heap + 1):
            yield tuple(run for run in (i - 3, heap - i - 2) if run > 0)

    def heap_values(self, upto: int) -> np.ndarray:
        if upto > MAX_CELLS:
            raise PositionError(
                f"a run of {upto:,} cells is more than the {MAX_CELLS:,} treblecross allows"
            )
        return super().heap_values(upto)

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        check = pace(f"the values of {self.spec} up to {len(table) - 1:,} cells", len(table))
        for n in range(max(start, 1), len(table)):
            check(n)
            # cells i and n+1-i leave the same two runs, so half the cells give every option
            cells = np.arange(1, (n + 1) // 2 + 1)
            options = table[np.maximum(cells - 3, 0)] ^ table[np.maximum(n - cells - 2, 0)]
            absent = np.flatnonzero(np.bincount(options) == 0)
            table[n] = absent[0] if absent.size else options.max() + 1

    def __repr__(self) -> str:
        return "SafeRuns()"


class TreblecrossThreat(_StripGame):
    """A strip where one mark makes three, reduced to those winning marks (not registered).

    Its only moves complete three in a row, after which nothing moves: its value is 1, the
    part that makes a reduced strip an N-position whatever the rest of the strip holds.
    """

    family = "treblecross-threat"
    example = ("treblecross-threat", "XX..")
    summary = "a treblecross strip reduced to its winning marks"

    def may_mark(self, position: Strip, i: int) -> bool:
        """Only a mark that makes three in a row."""
        return THREE in position[max(0, i - 2) : i] + MARK + position[i + 1 : i + 3]

    def __repr__(self) -> str:
        return "TreblecrossThreat()"
