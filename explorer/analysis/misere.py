"""Misère play, where the player who makes the last move loses: `misere_solution` and
`misere_explanation` of a position of any game (what `solve` and `explain` give with
``convention=MISERE``), and `misere_sequence`, the misère values G⁻ of one heap.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import asdict, dataclass
from typing import Any, cast

from explorer.analysis.results import Explanation, Solution
from explorer.analysis.sequences import find_period
from explorer.analysis.solving import (
    AUTO_GRAPH_EDGES,
    AUTO_GRAPH_PARTS,
    AUTO_GRAPH_STATES,
    Method,
)
from explorer.errors import GraphTooLargeError, MisereSequenceTooLargeError, SpecError
from explorer.games.base import Game, HeapRules, Position
from explorer.games.convention import MISERE, Convention
from explorer.games.heaps import Heaps
from explorer.generation.graph import DEFAULT_MAX_STATES, build_graph
from explorer.solver import mex, outcome
from explorer.solver.misere import (
    bouton_misere_moves,
    bouton_misere_outcome,
    misere_outcomes,
)

#: Bounds of the misère quotient `misere_solution` computes for a large sum of heaps: the largest
#: heap, elements and positions (past them it falls back to the game graph).
QUOTIENT_MAX_HEAP = 1_000
QUOTIENT_MAX_SIZE = 256
QUOTIENT_MAX_STATES = 20_000

_BOUTON = (
    "misère Nim by Bouton's rule: with a heap of 2 or more, P iff the XOR is 0; "
    "otherwise P iff the 1-heaps are odd in number"
)


def misere_solution(
    game: Game[Any],
    position: Position,
    *,
    method: Method = "auto",
    max_states: int = DEFAULT_MAX_STATES,
) -> Solution:
    """The misère outcome (P, N, or D where play can loop), remoteness and winning moves (what
    ``solve(game, position, convention=MISERE)`` returns).

    Any game is solved from its whole graph (terminal positions are N: whoever cannot move
    wins). Nim, and sums of Nim games, are solved by Bouton's misère rule when the graph is
    large or ``method="decompose"``; a sum of heaps of another heap game, from the misère
    quotient of its heaps (`explorer.analysis.quotient`, method ``quotient``) when it is not
    too large (else from the graph). No value of a part combines in misère play otherwise.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> s = misere_solution(nim, nim.parse("1,1,1"))
    >>> s.outcome, s.remoteness, s.convention
    ('P', 3, <Convention.MISERE: 'misere'>)
    >>> misere_solution(nim, nim.parse("1000000,1000000,1")).winning_moves
    ['1000000,1000000']
    """
    nim = game.nim_heaps(position)
    rules = game.heap_rules()
    if method != "graph" and nim is None and rules is not None:
        solved = _solve_quotient(game, rules, cast(Heaps, position), refuse=method == "decompose")
        if solved is not None:
            return solved
    if method == "decompose" and nim is None:
        raise SpecError(
            f"misère play has no decomposition for {game.spec}: only sums of heaps are solved "
            "from their parts (Bouton's rule, misère quotients); use --method graph"
        )
    if method == "graph" or (method == "auto" and nim is None):
        return _solve_graph(game, position, max_states=max_states, max_edges=None)
    if method == "auto" and nim is not None and len(nim.heaps) <= AUTO_GRAPH_PARTS:
        try:
            return _solve_graph(
                game, position, max_states=AUTO_GRAPH_STATES, max_edges=AUTO_GRAPH_EDGES
            )
        except GraphTooLargeError:
            pass
    assert nim is not None
    heaps = nim.heaps
    moves = []
    for i, size in bouton_misere_moves(heaps):
        moved = heaps[:i] + [size] + heaps[i + 1 :]
        moves.append(game.format(nim.rebuild(moved)))
    return Solution(
        game=game.spec,
        position=game.format(position),
        grundy=None,
        outcome=bouton_misere_outcome(heaps),
        remoteness=None,
        winning_moves=moves,
        method="bouton",
        note=_BOUTON,
        convention=MISERE,
    )


def _solve_quotient(
    game: Game[Any], heaps: HeapRules, position: Heaps, *, refuse: bool
) -> Solution | None:
    """A sum of heaps from the misère quotient of heaps up to its largest (bounded).

    Unless `refuse`, a small graph is tried first, where it may be small (it gives remoteness
    too), and None is returned when the quotient is too large; with `refuse` (``--method
    decompose``) that is an error.
    """
    from explorer.analysis.quotient import misere_quotient, quotient_outcome, quotient_winning_moves
    from explorer.errors import QuotientTooLargeError

    top = max(position, default=0)
    if top > QUOTIENT_MAX_HEAP:  # past the graph's reach: from a period of Φ, if proven
        return _solve_far_quotient(game, heaps, position, refuse=refuse)
    # no graph is begun with more moves at its start than its limit of states
    moves = sum(1 for h in set(position) for _ in heaps.heap_moves(h))
    if not refuse and moves <= AUTO_GRAPH_STATES and len(position) <= AUTO_GRAPH_PARTS:
        try:
            return _solve_graph(
                game, position, max_states=AUTO_GRAPH_STATES, max_edges=AUTO_GRAPH_EDGES
            )
        except GraphTooLargeError:
            pass
    try:
        quotient = misere_quotient(
            game, top, max_size=QUOTIENT_MAX_SIZE, max_states=QUOTIENT_MAX_STATES
        )
    except (QuotientTooLargeError, SpecError) as error:  # too large, or heaps that grow
        if refuse:
            reason = str(error).split(" (")[0]
            raise SpecError(f"{reason}; use --method graph") from None
        return None
    product = quotient.elements[quotient.element_of(position)]
    return Solution(
        game=game.spec,
        position=game.format(position),
        grundy=None,
        outcome=quotient_outcome(quotient, position),
        remoteness=None,
        winning_moves=[game.format(m) for m in quotient_winning_moves(quotient, heaps, position)],
        method="quotient",
        note=f"misère quotient of heaps up to {top}: {quotient.presentation}, |Q| = "
        f"{quotient.size}, |P| = {quotient.p_size}; the heaps multiply to {product}",
        convention=MISERE,
    )


def _solve_far_quotient(
    game: Game[Any], heaps: HeapRules, position: Heaps, *, refuse: bool
) -> Solution | None:
    """A sum with a heap past `QUOTIENT_MAX_HEAP`, from the misère quotient of the heaps up to
    it when the period of Φ is proven there (an octal game): a far heap has the element of the
    heap a whole number of periods below it. None (or, with `refuse`, an error) otherwise."""
    from explorer.analysis.quotient import misere_quotient, quotient_outcome
    from explorer.errors import QuotientTooLargeError

    top = max(position)
    try:
        quotient = misere_quotient(
            game, QUOTIENT_MAX_HEAP, max_size=QUOTIENT_MAX_SIZE, max_states=QUOTIENT_MAX_STATES
        )
    except (QuotientTooLargeError, SpecError):
        quotient = None
    if quotient is None or not quotient.period_proven:
        reason = (
            f"heap {top:,} is past the largest a misère quotient is computed to "
            f"({QUOTIENT_MAX_HEAP:,}), and no period of its heaps' elements is proven there"
        )
        if refuse or heaps.octal_removal() is not None:  # no graph could answer either
            raise GraphTooLargeError(f"{reason}; a game graph of heap {top:,} is too large")
        return None
    pre, period = int(quotient.preperiod or 0), int(quotient.period or 1)
    near = [h if h <= QUOTIENT_MAX_HEAP else pre + (h - pre) % period for h in position]
    product = quotient.elements[quotient.element_of(near)]
    return Solution(
        game=game.spec,
        position=game.format(position),
        grundy=None,
        outcome=quotient_outcome(quotient, near),
        remoteness=None,
        winning_moves=[],
        method="quotient",
        note=f"misère quotient {quotient.presentation} (|Q| = {quotient.size}), its heaps' "
        f"elements proven periodic with period {period} from heap {pre}: the heaps multiply "
        f"to {product} (winning moves are listed for heaps up to {QUOTIENT_MAX_HEAP:,})",
        convention=MISERE,
    )


def _solve_graph(
    game: Game[Any], position: Position, *, max_states: int, max_edges: int | None
) -> Solution:
    graph = build_graph(game, position, max_states=max_states, max_edges=max_edges)
    outcome, far = misere_outcomes(graph)
    mine = outcome[position]
    followers = list(graph.successors(position))
    return Solution(
        game=game.spec,
        position=game.format(position),
        grundy=None,
        outcome=mine,
        remoteness=far[position],
        winning_moves=[game.format(s) for s in followers if outcome[s] == "P"],
        drawing_moves=(
            [game.format(s) for s in followers if outcome[s] == "D"] if mine == "D" else []
        ),
        method="graph",
        states=graph.number_of_nodes(),
        note=_parts_note(game, position, graph.number_of_nodes()),
        convention=MISERE,
    )


def _parts_note(game: Game[Any], position: Position, states: int) -> str:
    """How a misère outcome of a game valued part by part (Node-Kayles, Cram, ...) was found:
    not from its parts' values, whose XOR gives normal play only."""
    from explorer.analysis.parts import part_families

    if not part_families(game):
        return ""
    split = game.decompose(position)
    parts = 1 if split is None else len(split.parts)
    return (
        f"misère outcome from the whole game graph ({states:,} states; no move: N), not from "
        f"the XOR of the {parts:,} part{'s' if parts != 1 else ''}' values, which holds "
        "in normal play only"
    )


def misere_explanation(
    game: Game[Any], position: Position, *, max_states: int = DEFAULT_MAX_STATES
) -> Explanation:
    """Why a position has its misère outcome: its moves and their misère outcomes (what
    ``explain(game, position, convention=MISERE)`` returns).

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> e = misere_explanation(nim, nim.parse("2"))
    >>> e.successors, e.outcome
    ([('0', 'N'), ('1', 'P')], 'N')
    """
    graph = build_graph(game, position, max_states=max_states)
    outcome, far = misere_outcomes(graph)
    mine = outcome[position]
    followers = list(graph.successors(position))
    if not followers:
        why = "no move: the opponent made the last move and lost (misère), so N"
    elif mine == "N":
        why = f"N: a move to a P-position wins ({len([s for s in followers if outcome[s] == 'P'])})"
    elif mine == "P":
        why = "P: every move leads to an N-position"
    else:
        why = "D: no move to a P-position, and a move to a draw avoids losing"
    return Explanation(
        game=game.spec,
        position=game.format(position),
        grundy=None,
        outcome=mine,
        method="graph",
        successors=[(game.format(s), outcome[s]) for s in followers],
        note=f"{why}; remoteness {far[position]}" if far[position] is not None else why,
        convention=MISERE,
    )


@dataclass(frozen=True)
class MisereSequence:
    """G⁻(0), ..., G⁻(N) of one heap in misère play, with the period seen, if any."""

    game: str
    values: list[int]
    outcomes: list[str]
    period: int | None
    preperiod: int | None
    convention: Convention = MISERE

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def __repr__(self) -> str:
        """One line, never the values."""
        seen = (
            "no period seen"
            if self.period is None
            else (f"period {self.period}, preperiod {self.preperiod} (observed)")
        )
        return f"<MisereSequence {self.game} G⁻(0..{len(self.values) - 1}): {seen}>"


def _misere_values_below(
    game: Game[Any], root: Position, known: dict[Hashable, int], max_states: int
) -> bool:
    """Add G⁻ of `root` and of every position below it to `known` (positions already there
    are not visited again), depth first with an explicit stack; False, with `known` holding
    what was finished, when that would pass `max_states` positions."""
    stack: list[tuple[Hashable, list[Hashable] | None]] = [(root, None)]
    while stack:
        position, moves = stack[-1]
        if position in known:
            stack.pop()
            continue
        if moves is None:
            moves = list(game.successors(position))
            stack[-1] = (position, moves)
            unknown = [q for q in moves if q not in known]
            if unknown:
                if len(known) + len(stack) + len(unknown) > max_states:
                    return False
                stack.extend((q, None) for q in unknown)
                continue
        follow = {known[q] for q in moves}
        known[position] = mex(follow) if moves else 1  # no move: the mover has won (G⁻ = 1)
        stack.pop()
    return True


def misere_sequence(
    game: Game[Any],
    upto: int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    progress: Callable[[int, int], None] | None = None,
) -> MisereSequence:
    """The misère Grundy values G⁻ of one heap of 0..upto, each from its whole game graph.

    G⁻ is 1 at the end and the mex of the moves' G⁻ elsewhere, so a heap is a misère
    P-position exactly when G⁻ = 0. A heap's graph holds positions of several heaps for games
    that split heaps; the graphs built hold `max_states` states at most in all (counted before
    any is built: a heap needs one state at least). `progress` is called as
    ``progress(heaps_done, largest_value)`` after each heap.

    Raises
    ------
    MisereSequenceTooLargeError
        When the heaps need more states than `max_states`: G⁻ is not additive, so no heap's
        value comes from smaller ones.

    Examples
    --------
    >>> from explorer import load_game
    >>> misere_sequence(load_game("nim"), 5).values
    [1, 0, 2, 3, 4, 5]
    """
    if game.heap_rules() is None:
        raise SpecError(f"misère sequences are for heap games, not {game.spec}")
    if upto + 1 > max_states:
        raise MisereSequenceTooLargeError(
            f"misère values of {game.spec} up to heap {upto:,} need {upto + 1:,} game states at "
            f"least, more than the {max_states:,} a misère sequence may build (G⁻ is not "
            f"additive: each heap's whole game is solved): ask --upto {max_states - 1:,} or less"
        )
    known: dict[Hashable, int] = {}  # G⁻ of every position met, shared by all the heaps
    values: list[int] = []
    for n in range(upto + 1):
        heap = game.parse(str(n))
        if not _misere_values_below(game, heap, known, max_states):
            raise MisereSequenceTooLargeError(
                f"misère values of {game.spec} up to heap {upto:,} need more than the "
                f"{max_states:,} game states a misère sequence may hold (G⁻ is not additive: "
                f"each heap's whole game is solved; G⁻(0..{n - 1:,}) took them all): ask "
                f"--upto {max(n - 1, 0):,} or less"
            )
        values.append(known[heap])
        if progress is not None:
            progress(n + 1, max(values))
    found = find_period(values)
    pre, period = found if found is not None else (None, None)
    outcomes: list[str] = [outcome(v) for v in values]
    return MisereSequence(game.spec, values, outcomes, period, pre)
