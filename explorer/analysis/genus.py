"""The misère genus of one heap (Conway, On Numbers and Games ch. 12; Winning Ways ch. 13).

The genus of a game G is g^(γ0 γ1 γ2 …): g its normal-play value, γk = G⁻(G + 2 + … + 2) with k
copies of *2 (γ0 = G⁻(G)). Every genus alternates with period 2 from some k on, and Conway's
notation writes the superscript up to the first two values that then alternate: *0 is 0^120
(1, 2, 0, 2, 0, …), a Kayles heap of 5 is 4^146.

G⁻ of a sum is not a function of its parts' values, so each γk is computed on the sum's game
tree: a position is the multiset of its heaps plus a count of *2s and a count of *1s. Heaps are
merged by the form of their game tree (a heap with no move is dropped, a heap that is *1 or *2
as a tree joins its count), which keeps the search sound and much smaller; it stays exponential
in the heap, bounded by `max_states`.

The cut-off: γk is computed for k = 0, 1, 2, … until the last four values repeat with period 2
(γk-3 γk-2 = γk-1 γk). That the genus alternates for ever from there is observed, not proven
(Conway proves only that it alternates eventually); the tests check two more copies of *2
against a brute force on the game's own positions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from explorer.analysis.patterns import OBSERVED, Pattern, Patterns
from explorer.errors import MisereSequenceTooLargeError, SpecError
from explorer.games.arguments import as_count, as_game
from explorer.games.base import Game, HeapRules
from explorer.solver.periods import observed_period

#: Form ids of the trees every game shares: no move, *1 = {0}, *2 = {0, *1}.
_ZERO, _ONE, _TWO = 0, 1, 2
#: Heaps whose genus `patterns --genus` reads by default.
DEFAULT_GENUS_UPTO = 40
#: Most positions of sums one genus sequence solves (about 200 bytes each; Kayles heaps
#: 0..40 take 132,447).
MAX_SUMS = 500_000
#: Most copies of *2 tried before a genus is declared not to settle (none has needed 6 here).
MAX_COPIES = 40

#: A position of a sum: heaps of other forms (sorted form ids), copies of *2, copies of *1.
_Sum = tuple[tuple[int, ...], int, int]


@dataclass(frozen=True)
class Genus:
    """One heap's genus: its normal value and γ0, γ1, … up to where they alternate for ever."""

    normal: int
    misere: tuple[int, ...]

    def text(self) -> str:
        """Conway's notation, the superscript after a caret: ``4^146``, ``12^(10 8 10)`` when a
        γ has two digits."""
        digits = [str(v) for v in self.misere]
        if all(len(d) == 1 for d in digits):
            return f"{self.normal}^{''.join(digits)}"
        return f"{self.normal}^({' '.join(digits)})"

    def gamma(self, k: int) -> int:
        """γk for any k (the last two values alternate for ever)."""
        if k < len(self.misere):
            return self.misere[k]
        last = len(self.misere) - 1
        return self.misere[last - (k - last) % 2]

    def to_dict(self) -> dict[str, object]:
        return {"normal": self.normal, "misere": list(self.misere)}


@dataclass
class GenusSequence:
    """The genus of heaps 0..N, with the period the sequence of genera shows, if any."""

    game: str
    genera: list[Genus]
    period: int | None = None
    preperiod: int | None = None
    states: int = field(default=0)

    def to_dict(self) -> dict[str, object]:
        return {
            "game": self.game,
            "genus": [g.to_dict() for g in self.genera],
            "period": self.period,
            "preperiod": self.preperiod,
            "proven": False,
        }

    def __repr__(self) -> str:
        """One line: the game, the heaps, the period if seen."""
        return (
            f"<GenusSequence of {self.game}, heaps 0..{len(self.genera) - 1:,}: {self.summary()}>"
        )

    def patterns(self) -> Patterns:
        """The genus sequence's period as a pattern (observed: no theorem bounds it), for
        ``explorer patterns --genus``."""
        upto = len(self.genera) - 1
        found: tuple[Pattern, ...] = ()
        if self.period is not None:
            fields = {"preperiod": self.preperiod, "period": self.period}
            found = (Pattern("genus-period", OBSERVED, upto, fields),)
        return Patterns(self.game, upto, found)

    def summary(self) -> str:
        if self.period is None:
            return "no period of the genera found in these heaps"
        return (
            f"genus period {self.period}, preperiod {self.preperiod}: observed, not proven "
            "(no theorem bounds a genus sequence's period)"
        )


class _Sums:
    """G⁻ of sums of heaps and copies of *2 and *1, memoised by position."""

    def __init__(self, game: HeapRules, max_states: int) -> None:
        self.game = game
        self.max_states = max_states
        self.form: list[int] = []  # form id of each heap
        signatures: dict[frozenset[tuple[int, ...]], int] = {
            frozenset(): _ZERO,
            frozenset({()}): _ONE,
            frozenset({(), (_ONE,)}): _TWO,
        }
        self.signatures = signatures
        #: each form's options: (other heaps' forms, *2s, *1s) they leave
        self.options: dict[int, list[_Sum]] = {}
        self.known: dict[Hashable, int] = {}

    def heap(self, n: int) -> _Sum:
        """The position of one heap of n (forms of heaps up to n found on the way)."""
        for h in range(len(self.form), n + 1):
            signature = frozenset(
                tuple(sorted(self.form[x] for x in result if self.form[x] != _ZERO))
                for result in self.game.heap_moves(h)
            )
            form = self.signatures.get(signature)
            if form is None:
                form = self.signatures[signature] = len(self.signatures)
                self.options[form] = [
                    (tuple(f for f in o if f > _TWO), o.count(_TWO), o.count(_ONE))
                    for o in signature
                ]
            self.form.append(form)
        form = self.form[n]
        return ((form,) if form > _TWO else (), int(form == _TWO), int(form == _ONE))

    def misere(self, root: _Sum) -> int:
        """G⁻ of a sum: 1 with no move, else the mex of its options'."""
        from explorer.analysis.misere import _misere_values_below

        if not _misere_values_below(cast(Any, self), root, self.known, self.max_states):
            raise MisereSequenceTooLargeError(
                f"the genus of {self.game.spec} needs more than {self.max_states:,} positions "
                "of sums (G⁻ of a sum is not additive: each is solved on its game tree)"
            )
        return self.known[root]

    def successors(self, position: _Sum) -> list[_Sum]:
        """The sums one move leaves (what `_misere_values_below` asks a game)."""
        return self._moves(position)

    def _moves(self, position: _Sum) -> list[_Sum]:
        heaps, twos, ones = position
        moves: list[_Sum] = []
        for i, form in enumerate(heaps):
            if i and heaps[i - 1] == form:
                continue
            rest = heaps[:i] + heaps[i + 1 :]
            for left, t, o in self.options[form]:
                moves.append((tuple(sorted(rest + left)) if left else rest, twos + t, ones + o))
        if twos:
            moves.append((heaps, twos - 1, ones + 1))
            moves.append((heaps, twos - 1, ones))
        if ones:
            moves.append((heaps, twos, ones - 1))
        return moves


def genus_of(sums: _Sums, n: int, normal: int) -> Genus:
    """The genus of a heap of n, computed with k copies of *2 until γ alternates twice."""
    heaps, twos, ones = sums.heap(n)
    gammas: list[int] = []
    for k in range(MAX_COPIES + 1):
        gammas.append(sums.misere((heaps, twos + k, ones)))
        if k >= 3 and gammas[k - 3 : k - 1] == gammas[k - 1 : k + 1]:
            break
    else:  # pragma: no cover - no game met settles this late
        raise SpecError(
            f"the genus of heap {n} does not alternate within {MAX_COPIES} copies of *2"
        )
    # the superscript stops after the first two values that alternate to the end
    first = len(gammas) - 2
    while first >= 1 and gammas[first - 1] == gammas[first + 1]:
        first -= 1
    return Genus(normal, tuple(gammas[: first + 2]))


def genus_sequence(
    game: Game[Any] | str,
    upto: int,
    *,
    max_states: int = MAX_SUMS,
    progress: Callable[[int, int], None] | None = None,
) -> GenusSequence:
    """The genus of each heap 0..upto of a heap game, given as a `Game` or its spec.

    Examples
    --------
    >>> [g.text() for g in genus_sequence("kayles", 5).genera]
    ['0^120', '1^031', '2^20', '3^31', '1^031', '4^146']
    """
    game = as_game(game)
    upto = as_count(upto, "upto")
    heaps = game.heap_rules()
    if heaps is None:
        raise SpecError(f"the genus is for heap games, not {game.spec}")
    normal = heaps.heap_values(upto)
    sums = _Sums(heaps, max_states)
    genera = []
    for n in range(upto + 1):
        try:
            genera.append(genus_of(sums, n, int(normal[n])))
        except MisereSequenceTooLargeError as error:
            raise MisereSequenceTooLargeError(
                f"{error}; heaps 0..{n - 1} fit: try --upto {max(n - 1, 0)}"
            ) from None
        if progress is not None:
            progress(n + 1, len(sums.known))
    symbols: dict[Hashable, int] = {}
    coded = [symbols.setdefault((g.normal, g.misere), len(symbols)) for g in genera]
    found = observed_period(np.array(coded, dtype=np.int64), len(coded))
    pre, period = found if found is not None else (None, None)
    return GenusSequence(game.spec, genera, period, pre, len(sums.known))
