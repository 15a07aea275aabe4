"""Value sequences of one-parameter games (heaps, strips, rows) and their periodicity.

`value_sequence` computes G(0..N); `find_period` looks for an eventual period; for octal games
with finitely many non-zero digits the Guy-Smith theorem turns a long enough check into a proof.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from explorer.analysis import finite_value
from explorer.errors import SpecError
from explorer.games.base import Game
from explorer.games.heaps import HeapGame, OctalGame

#: A period must repeat at least this many times in the computed values to be reported.
MIN_REPEATS = 3


@dataclass(frozen=True)
class ValueSequence:
    """G(0), ..., G(N) with the period found in them, if any."""

    game: str
    values: list[int]
    period: int | None
    preperiod: int | None
    proven: bool

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def _repr_html_(self) -> str:
        """The values in rows of 20 (P-positions in bold red) and the period, for Jupyter."""
        from explorer.viz.notebook import sequence_view

        return sequence_view(self)


def find_period(values: list[int] | np.ndarray) -> tuple[int, int] | None:
    """The (preperiod, period) the values show, or None.

    The smallest period p is taken whose periodic stretch (from the preperiod to the end)
    covers at least half of the values and at least `MIN_REPEATS` periods; the preperiod is
    the first index from which G(n + p) = G(n) holds to the end.

    Examples
    --------
    >>> find_period([5, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
    (1, 3)
    >>> find_period([0, 1, 2, 3, 4, 5]) is None
    True
    """
    v = np.asarray(values)
    n = len(v)
    for p in range(1, n // MIN_REPEATS + 1):
        mismatches = np.flatnonzero(v[p:] != v[:-p])
        pre = int(mismatches[-1]) + 1 if mismatches.size else 0
        stretch = n - pre
        if stretch >= MIN_REPEATS * p and 2 * stretch >= n:
            return pre, p
    return None


def guy_smith_proven(game: Game, length: int, preperiod: int, period: int) -> bool:
    """Whether `length` computed values prove the period by the Guy-Smith theorem.

    For an octal game removing at most k tokens, G(n + p) = G(n) for n0 <= n < 2 n0 + p + k
    implies it for all n >= n0; the values must reach index 2 n0 + 2p + k - 1.
    """
    if not isinstance(game, OctalGame) or game.splits_without_removal:
        return False
    return length >= 2 * preperiod + 2 * period + game.max_removal


def value_sequence(game: Game, upto: int) -> ValueSequence:
    """G(0), ..., G(upto) of a one-parameter game, with its period when one shows.

    Supported: heap games (G of one heap of n) and games with a ``sequence_position(n)``
    method (a strip of n cells, a row with one coin at n).

    Examples
    --------
    >>> from explorer import load_game
    >>> seq = value_sequence(load_game("subtraction:1,2,3"), 20)
    >>> seq.values[:8], seq.period, seq.preperiod, seq.proven
    ([0, 1, 2, 3, 0, 1, 2, 3], 4, 0, True)
    """
    if upto < 0:
        raise SpecError(f"--upto must be non-negative, got {upto}")
    if isinstance(game, HeapGame):
        values = [int(x) for x in game.heap_values(upto)]
    else:
        nth = getattr(game, "sequence_position", None)
        if nth is None:
            raise SpecError(
                f"{game.spec} has no one-parameter positions (sequences are for heap games, "
                "treblecross strips and coin rows)"
            )
        values = [finite_value(game, nth(n)) for n in range(upto + 1)]
    found = find_period(values)
    if found is None:
        return ValueSequence(game.spec, values, None, None, False)
    pre, period = found
    proven = guy_smith_proven(game, len(values), pre, period)
    return ValueSequence(game.spec, values, period, pre, proven)
