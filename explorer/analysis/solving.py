"""Solving positions: Grundy value, outcome, remoteness and winning moves, decomposing sums.

The entry points are `grundy_value`, `solve` and `explain`. A position is solved from its parts
when the game splits it (heaps, coin rows, sums of games, the study notes' reductions) and from
its whole game graph otherwise, or when the graph is small enough to give remoteness too. A graph
with cycles gets generalized values (finite or ∞(K), `explorer.solver.loopy`); sums combine
them by the generalized nim-sum, never through the product graph.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

import numpy as np

from explorer.analysis.memo import GRAPH_MEMO
from explorer.analysis.results import Explanation, Solution, shown_value, value_fields
from explorer.errors import (
    CyclicGraphError,
    ExplorerError,
    GraphTooLargeError,
    SpecError,
    UsageError,
)
from explorer.games.arguments import as_count, as_game, as_position
from explorer.games.base import (
    Components,
    Decomposition,
    Game,
    Listed,
    Position,
    TableProgress,
)
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.heaps import FAR_HEAP, FAR_MOVES, PERIODIC_SPLIT_PARTS
from explorer.games.tables import heap_pair_table
from explorer.generation.graph import DEFAULT_MAX_STATES, build_graph
from explorer.solver import solve_graph
from explorer.solver.loopy import (
    Infinite,
    Value,
    nim_sum,
    outcome_of,
    solve_loopy,
)
from explorer.solver.periods import proof_length
from explorer.solver.sparse import guy_smith, heap_sequence

if TYPE_CHECKING:
    import networkx as nx  # annotations only: a value sequence never loads it

Method = Literal["auto", "graph", "decompose", "pruned"]
#: The methods `explain` takes.
ExplainMethod = Literal["auto", "graph"]


def _checked_method(method: object, accepted: object) -> None:
    """Refuse a method name that is not one of the Literal type `accepted`'s."""
    names = get_args(accepted)
    if method not in names:
        raise UsageError(
            f"unknown method {method!r} (expected one of {', '.join(map(repr, names))})"
        )


#: In "auto", a position whose graph fits these budgets is solved whole (giving remoteness).
AUTO_GRAPH_STATES = 5_000
AUTO_GRAPH_EDGES = 50_000
#: ... and has at most this many parts (each move of a long sum costs as much as the sum).
AUTO_GRAPH_PARTS = 16
#: Default memory a value table may take, in MiB (``--memory`` raises it).
DEFAULT_TABLE_MEMORY_MB = 2048


def _graph_values(
    game: Game[Any], graph: nx.DiGraph
) -> tuple[dict[Hashable, Value], dict[Hashable, int | None]]:
    """Value and remoteness of every node, generalized (∞ allowed, draws without remoteness)
    when the graph has a cycle; memoised, with each node's labelling stage and counter then,
    for `explain`."""
    values: dict[Hashable, Value]
    far: dict[Hashable, int | None]
    labels: dict[Hashable, tuple[int, int | None]] | None = None
    try:
        solved = solve_graph(graph)
        values, far = dict(solved.grundy), dict(solved.remoteness)
    except CyclicGraphError:
        loopy = solve_loopy(graph)
        values, far = loopy.values, loopy.remoteness
        labels = {node: (loopy.stages[node], loopy.counters[node]) for node in graph}
    GRAPH_MEMO.remember(game.spec, values, labels)
    return values, far


def graph_value(
    game: Game[Any], position: Position, *, max_states: int = DEFAULT_MAX_STATES
) -> Value:
    """The value of `position` from its whole game graph (memoised per game spec, in
    `explorer.analysis.memo`)."""
    known = GRAPH_MEMO.value(game.spec, position)
    if known is not None:
        return known  # type: ignore[no-any-return]
    values, _ = _graph_values(game, build_graph(game, position, max_states=max_states))
    return values[position]


#: How `prepare_heaps` says that far heaps are answered from a proven period.
PROVEN_PERIOD = "proven by the Guy-Smith theorem"


def prepare_heaps(game: Game[Any], position: Position) -> str:
    """Make the heaps of `position` answerable: past the values a heap game has, prove its
    period (octal games, computing no more than the Guy-Smith theorem needs) or compute the
    values up to the largest heap. Returns how heaps past the computed values are answered
    ("" when none is).

    Examples
    --------
    >>> from explorer import load_game
    >>> kayles = load_game("kayles")
    >>> prepare_heaps(kayles, (10**12,))
    'period 12 from heap 71, proven by the Guy-Smith theorem from G(0..167)'
    >>> prepare_heaps(load_game("nim + kayles"), ((3,), (10**12,)))
    'octal:0.77: period 12 from heap 71, proven by the Guy-Smith theorem from G(0..167)'
    """
    summands = game.summands()
    if summands is not None:  # a sum's far heaps are its components'
        components = cast(tuple[Position, ...], position)
        notes = (
            (part.spec, prepare_heaps(part, component))
            for part, component in zip(summands, components, strict=True)
        )
        return "; ".join(dict.fromkeys(f"{spec}: {note}" for spec, note in notes if note))
    heaps = game.heap_rules()
    if heaps is None or not position:
        return ""
    largest = max(cast(tuple[int, ...], position))
    if heaps.closed_form(largest) is not None:
        return f"closed form of {heaps.spec}" if largest >= FAR_HEAP else ""
    if largest >= heaps.tabulated and heaps.period is None:
        result = heap_sequence(heaps, largest, until_periodic=True)
        heaps.adopt(result.values, result.proof)
    if largest >= heaps.tabulated and heaps.period is not None:
        pre, period = heaps.period
        return (
            f"period {period} from heap {pre}, {PROVEN_PERIOD} "
            f"from G(0..{proof_length(pre, period, guy_smith(heaps)) - 1})"  # type: ignore[arg-type]
        )
    return ""


def grundy_value(
    game: Game[Any] | str,
    position: Position | str | int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> Value:
    """The Grundy value of a position, from its parts where the game splits it exactly.

    In a game with cycles the value is the generalized one: an int, or `Infinite` (∞(K)).

    Parameters
    ----------
    game : Game or str
        The rules, or their spec (``"kayles"``, ``"nim + wythoff"``).
    position : Position, str or int
        A position text as the command line takes it (a heap size for a heap game), or what
        ``game.parse`` returns.

    Raises
    ------
    ArgumentTypeError
        When `game` or `position` is of a type that names no game or position.

    Examples
    --------
    >>> grundy_value("kayles", 10)
    2
    >>> grundy_value("nim", "3,4,5")
    2
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> grundy_value(nim, nim.parse("3,4,5"))
    2
    """
    game = as_game(game)
    return _grundy_value(game, as_position(game, position), max_states=max_states)


def _grundy_value(game: Game[Any], position: Position, *, max_states: int) -> Value:
    """`grundy_value` of a game object and a parsed position."""
    prepare_heaps(game, position)
    known = game.known_value(position)
    if known is not None:
        return known
    components = game.search_components(position) if _PRUNED.get() else None
    if components is not None:
        from explorer.analysis.parts import pruned_value

        return pruned_value(components).value
    parts = game.decompose(position)
    if parts is not None and parts.exact:
        return _xor_of_parts(parts, max_states)
    if game.part_label(position) is not None:
        from explorer.analysis.parts import part_value

        return part_value(game, position)
    return graph_value(game, position, max_states=max_states)


def reduced_value(
    game: Game[Any], position: Position, *, max_states: int = DEFAULT_MAX_STATES
) -> Value:
    """The value of the game's reduction where it has one (zero exactly on P-positions),
    else the Grundy value."""
    parts = game.decompose(position)
    if parts is not None and not parts.exact:
        return _xor_of_parts(parts, max_states)
    return _grundy_value(game, position, max_states=max_states)


def _xor_of_parts(parts: Decomposition, max_states: int) -> Value:
    return nim_sum(*(_grundy_value(p.game, p.position, max_states=max_states) for p in parts.parts))


def finite_value(
    game: Game[Any],
    position: Position,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    reduction: bool = True,
) -> int:
    """The value of a position that must be finite (tables and sequences), else an error
    saying which position is infinite: its reduced value (`reduced_value`), or with
    `reduction` false its Grundy value."""
    find = reduced_value if reduction else _grundy_value
    value = find(game, position, max_states=max_states)
    if isinstance(value, Infinite):
        raise SpecError(
            f"position {game.format(position)!r} of {game.spec} has the infinite value {value} "
            "(tables and sequences hold finite values; use explorer solve)"
        )
    return value


def solve(
    game: Game[Any] | str,
    position: Position | str | int,
    *,
    method: Method = "auto",
    max_states: int = DEFAULT_MAX_STATES,
    convention: Convention = NORMAL,
) -> Solution:
    """Solve a position: Grundy value, outcome, remoteness and winning moves.

    Parameters
    ----------
    game : Game or str
        The rules, or their spec (``"nim"``, ``"kayles"``, ``"nim + wythoff"``).
    position : Position, str or int
        A position text as the command line takes it (``"3,4,5"``; an int is a heap size in a
        heap game), or what ``game.parse`` returns.
    method : {"auto", "graph", "decompose"}
        ``graph`` builds the whole game graph (remoteness included); ``decompose`` uses the
        parts (no remoteness); ``auto`` builds the graph when it is small and decomposes
        otherwise. A position with no parts and no known value (Chomp, Wythoff, a DAG) is
        always solved whole, up to `max_states`. For games solved through a reduction
        (``queens``, ``treblecross``) ``auto`` always uses the reduction, whose value is the
        one the notes compute.
    max_states : int
        Size guard for graphs.
    convention : Convention
        ``MISERE`` for misère play (the player who moves last loses): the outcome, remoteness
        and winning moves of misère play, from the whole graph, or for Nim heaps by Bouton's
        rule (see `explorer.analysis.misere.misere_solution`); ``grundy`` is then None.

    Returns
    -------
    Solution

    Raises
    ------
    ArgumentTypeError
        When `game` or `position` is of a type that names no game or position.
    UsageError
        When `method` is not one of the names above.

    Examples
    --------
    >>> solve("nim", "3,4,5").winning_moves
    ['1,4,5']
    >>> solve("kayles", 10).outcome
    'N'
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> s = solve(nim, nim.parse("1,2,3"))
    >>> s.grundy, s.outcome, s.remoteness
    (0, 'P', 6)
    >>> solve(nim, nim.parse("1000000,1")).winning_moves
    ['1,1']
    >>> solve(nim, nim.parse("1,1,1"), convention=Convention.MISERE).outcome
    'P'
    >>> solve("kayles", 7).move_names
    {'3,3': 'take 1 from 7, leaving 3+3', '1,4': 'take 2 from 7, leaving 1+4'}
    """
    _checked_method(method, Method)
    game = as_game(game)
    position = as_position(game, position)
    solution = _solve(game, position, method, max_states, convention)
    moves = [*solution.winning_moves, *solution.drawing_moves]
    return replace(solution, move_names=named_moves(game, position, moves))


def named_moves(game: Game[Any], position: Position, moves: Iterable[str]) -> dict[str, str]:
    """The moves to the positions of texts `moves` in a player's words (`Game.move_name`),
    by those texts; a move the game has no words for (or whose text it cannot read back) is
    left out.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> named_moves(nim, (3, 4, 5), ["1,4,5", "3,4"])
    {'1,4,5': 'take 2 from 3', '3,4': 'take 5 from 5'}
    """
    names = {}
    for text in moves:
        try:
            name = game.move_name(position, game.parse(text))
        except ExplorerError:  # a game of one's own whose texts do not read back
            continue
        if name is not None:
            names[text] = name
    return names


def _solve(
    game: Game[Any],
    position: Position,
    method: Method,
    max_states: int,
    convention: Convention,
) -> Solution:
    """`solve` of a game and a position already parsed, the moves not yet named."""
    if convention == MISERE:
        from explorer.analysis.misere import misere_solution  # which builds on this module

        return misere_solution(game, position, method=method, max_states=max_states)
    parts = game.decompose(position)
    far = prepare_heaps(game, position) if method != "graph" else ""
    if far:
        # heaps past the computed values: no graph, the period (or formula) answers them
        solution = _solve_decomposed(game, position, parts, max_states)
        method_name = "period" if PROVEN_PERIOD in far else "closed form"
        listed = ""
        if solution.winning_moves and method_name == "period":
            listed = f"; splits listed with a part up to {PERIODIC_SPLIT_PARTS:,}"
        elif solution.winning_moves:
            listed = f"; moves listed among the first {FAR_MOVES:,} of each far heap"
        return replace(solution, method=method_name, note=far + listed)
    labelled = parts is None and game.part_label(position) is not None
    components = game.search_components(position) if method in ("auto", "pruned") else None
    if method == "pruned" and components is None and not _has_parts(game):
        raise SpecError(
            f"{game.spec} has no components for the pruned search (it is for Cram, "
            "Node-Kayles, Arc-Kayles and graph games; try --method auto)"
        )
    if components is not None and method == "pruned":
        return _solve_pruned(game, position, components)
    if method == "pruned":  # a sum: its parts searched
        method = "decompose"
        searched = True
    else:
        searched = method == "auto"
    if parts is None and not labelled and game.known_value(position) is None:
        method = "graph"  # no parts and no formula: the whole graph is the only way
    small_sum = parts is None or (parts.exact and len(parts.parts) <= AUTO_GRAPH_PARTS)
    if method == "graph" or (method == "auto" and small_sum):
        small = method == "auto"
        try:
            return _solve_graph(
                game,
                position,
                max_states=AUTO_GRAPH_STATES if small else max_states,
                max_edges=AUTO_GRAPH_EDGES if small else None,
            )
        except GraphTooLargeError:
            if not small:
                raise
    if components is not None:
        return _solve_pruned(game, position, components)
    token = _PRUNED.set(searched)
    try:
        solution = _solve_decomposed(game, position, parts, max_states)
    finally:
        _PRUNED.reset(token)
    if labelled:
        return replace(solution, method="parts", note=PART_NOTE)
    return solution


#: Whether `_grundy_value` values parts by the pruned search: within `solve` (auto and
#: pruned), so that the library's `grundy_value` keeps the full walk of the part table.
_PRUNED: ContextVar[bool] = ContextVar("pruned", default=False)


@contextmanager
def searching() -> Iterator[None]:
    """Within the block, parts of games with search components (`Game.search_components`)
    are valued by the pruned search (as `solve` does), not by walking every position."""
    token = _PRUNED.set(True)
    try:
        yield
    finally:
        _PRUNED.reset(token)


#: How a part valued by its canonical label is solved (`solve` says it in its note).
PART_NOTE = "valued by its moves, each part left valued once per shape (canonical label)"


def _has_parts(game: Game[Any]) -> bool:
    from explorer.analysis.parts import part_families

    return bool(part_families(game))


def _solve_pruned(game: Game[Any], position: Position, components: Components) -> Solution:
    """A position valued by the pruned search, its winning moves found by asking each move
    "is it 0?"."""
    from explorer.analysis.parts import pruned_moves_to_value, pruned_value

    answer = pruned_value(components)
    outcome = outcome_of(answer.value)
    moves = pruned_moves_to_value(game, position, 0) if outcome == "N" else []
    shortcuts = "".join(f"; {shortcut}" for shortcut in answer.shortcuts)
    return Solution(
        game=game.spec,
        position=game.format(position),
        **value_fields(answer.value),
        outcome=outcome,
        remoteness=None,
        winning_moves=[game.format(m) for m in moves or []],
        method="pruned",
        note=f"pruned nimber search (Lemoine-Viennot, Beling-Rogalski), each component valued "
        f"once per shape ({answer.family}: {answer.parts:,} parts in the table){shortcuts}",
    )


def _solve_graph(
    game: Game[Any], position: Position, *, max_states: int, max_edges: int | None
) -> Solution:
    graph = build_graph(game, position, max_states=max_states, max_edges=max_edges)
    values, far = _graph_values(game, graph)
    value = values[position]
    outcome = outcome_of(value)
    drawing = [s for s in graph.successors(position) if outcome_of(values[s]) == "D"]
    return Solution(
        game=game.spec,
        position=game.format(position),
        **value_fields(value),
        outcome=outcome,
        remoteness=far[position],
        winning_moves=[
            game.format(s) for s in graph.successors(position) if outcome_of(values[s]) == "P"
        ],
        drawing_moves=[game.format(s) for s in drawing] if outcome == "D" else [],
        method="graph",
        states=graph.number_of_nodes(),
    )


def _solve_decomposed(
    game: Game[Any], position: Position, parts: Decomposition | None, max_states: int
) -> Solution:
    value = reduced_value(game, position, max_states=max_states)
    outcome = outcome_of(value)
    reduction = parts is not None and not parts.exact
    moves: list[Position] = []
    drawing: list[Position] = []
    if outcome == "P":  # a P-position has no winning move: nothing to search
        pass
    elif parts is not None and parts.exact:
        if outcome == "N":
            moves = _moves_through_parts(parts, value, max_states)
        else:
            drawing = _drawing_moves_through_parts(parts, max_states)
    elif reduction:
        moves = [
            s
            for s in dict.fromkeys(game.successors(position))
            if outcome_of(reduced_value(game, s, max_states=max_states)) == "P"
        ]
    elif outcome == "N":
        moves = _moves_to_value(game, position, 0, max_states)
    else:
        drawing = [
            s
            for s in dict.fromkeys(game.successors(position))
            if outcome_of(_grundy_value(game, s, max_states=max_states)) == "D"
        ]
    if parts is None:
        method, note = "known value", "from the game's value table or closed form"
    else:
        method = "reduction" if reduction else "decomposition"
        note = parts.note
    if isinstance(moves, Listed) and moves.cut:
        note = f"{note}; {moves.cut}"
    return Solution(
        game=game.spec,
        position=game.format(position),
        **value_fields(value, reduction),
        outcome=outcome,
        remoteness=None,
        winning_moves=[game.format(m) for m in dict.fromkeys(moves)],
        drawing_moves=[game.format(m) for m in dict.fromkeys(drawing)],
        method=method,
        note=note,
    )


def _moves_to_value(
    game: Game[Any], position: Position, target: int, max_states: int
) -> list[Position]:
    shortcut = game.moves_to_value(position, target)
    if shortcut is not None:
        return shortcut
    return [
        s
        for s in dict.fromkeys(game.successors(position))
        if _grundy_value(game, s, max_states=max_states) == target
    ]


def _moves_through_parts(parts: Decomposition, total: Value, max_states: int) -> list[Position]:
    """Winning moves of a sum whose total is N.

    All parts finite: in part i, move to a position of value v_i XOR total (the target may
    exceed v_i, as mex only promises the smaller values, so every part is tried). One infinite
    part ∞(K) with the others' XOR a in K: only moving that part to a value-a follower wins.
    """
    if outcome_of(total) == "P":
        return []
    positions = [p.position for p in parts.parts]
    values = [_grundy_value(p.game, p.position, max_states=max_states) for p in parts.parts]
    infinite = [i for i, v in enumerate(values) if isinstance(v, Infinite)]
    moves = []
    if infinite:
        (j,) = infinite  # an N total has at most one infinite part
        rest = nim_sum(*(v for i, v in enumerate(values) if i != j))
        assert isinstance(rest, int)
        part = parts.parts[j]
        for moved in _moves_to_value(part.game, part.position, rest, max_states):
            moves.append(parts.rebuild(positions[:j] + [moved] + positions[j + 1 :]))
        return moves
    assert isinstance(total, int)
    finite = cast(list[int], values)
    listed: Listed[Position] = Listed()
    for _, _, found in _part_changes(parts, finite, total, max_states):
        listed += found
        listed.cut = listed.cut or found.cut
    return listed


def _part_changes(
    parts: Decomposition, values: list[int], total: int, max_states: int
) -> list[tuple[int, int, Listed[Position]]]:
    """Bouton's arithmetic for a sum of finite values `values` whose XOR `total` is not 0:
    each part i that can move to the value values[i] XOR total (the XOR is then 0), that
    value, and the winning moves of the sum it gives (equal parts listed once)."""
    positions = [p.position for p in parts.parts]
    changes = []
    seen: set[tuple[Hashable, Hashable]] = set()
    for i, part in enumerate(parts.parts):
        key = (part.game.spec, part.position)
        if key in seen:  # equal parts have the same moves
            continue
        seen.add(key)
        target = values[i] ^ total
        moved = _moves_to_value(part.game, part.position, target, max_states)
        found: Listed[Position] = Listed(
            parts.rebuild(positions[:i] + [m] + positions[i + 1 :]) for m in moved
        )
        found.cut = moved.cut if isinstance(moved, Listed) else ""
        if found:
            changes.append((i, target, found))
    return changes


def _drawing_moves_through_parts(parts: Decomposition, max_states: int) -> list[Position]:
    """The moves of a drawn sum that keep the draw: the new total (each part's value, one of
    them moved) is still D. Every move of every part is valued once (the sum is never built)."""
    positions = [p.position for p in parts.parts]
    values = [_grundy_value(p.game, p.position, max_states=max_states) for p in parts.parts]
    moves = []
    seen: set[tuple[Hashable, Hashable]] = set()
    for i, part in enumerate(parts.parts):
        key = (part.game.spec, part.position)
        if key in seen:
            continue
        seen.add(key)
        others = values[:i] + values[i + 1 :]
        for moved in dict.fromkeys(part.game.successors(part.position)):
            moved_value = _grundy_value(part.game, moved, max_states=max_states)
            if outcome_of(nim_sum(moved_value, *others)) == "D":
                moves.append(parts.rebuild(positions[:i] + [moved] + positions[i + 1 :]))
    return moves


#: Moves of a sum that `explain` values one by one; a sum with more lists its winning moves.
EXPLAIN_SUM_MOVES = 200


def explain(
    game: Game[Any] | str,
    position: Position | str | int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    method: ExplainMethod = "auto",
    convention: Convention = NORMAL,
) -> Explanation:
    """Show how a position's value arises: the mex of its successors, or the XOR of its parts
    (the generalized nim-sum) with every move of a small sum and its value, or, in a game
    with cycles, the labelling stage that fixed it. With ``method="graph"`` a sum is
    explained by the mex of its moves too; with ``convention=MISERE``, its moves and their
    misère outcomes instead.

    `game` and `position` are taken as by `solve`: objects, or a spec and a position text;
    another `method` than ``"auto"`` or ``"graph"`` is refused (`UsageError`).

    Examples
    --------
    >>> explain("kayles", 10).winning_moves
    ['1,8', '2,7', '3,6', '4,4']
    >>> from explorer import load_game
    >>> sub = load_game("subtraction:1,2,3")
    >>> e = explain(sub, sub.parse("5"))
    >>> e.successors, e.grundy
    ([('4', 0), ('3', 3), ('2', 2)], 1)
    >>> windup = load_game("windup:5:1,3")
    >>> e = explain(windup, 2)
    >>> e.successors, e.value, e.outcome, e.stage
    ([('1', '∞(0)'), ('4', 0)], '∞(0)', 'N', 1)
    >>> nim = load_game("nim")
    >>> e = explain(nim, nim.parse("3,4,5"))
    >>> e.parts, e.grundy, e.winning_moves
    ([('nim', '3', 3), ('nim', '4', 4), ('nim', '5', 5)], 2, ['1,4,5'])
    >>> e.changes  # Bouton: the heap of 3 (011) becomes 3 XOR 2 = 1 (001)
    [{'part': '3', 'game': 'nim', 'value': 3, 'target': 1, 'moves': ['1,4,5']}]
    >>> explain(nim, nim.parse("2"), convention=Convention.MISERE).successors
    [('0', 'N'), ('1', 'P')]
    >>> explain(nim, nim.parse("2")).move_names
    {'0': 'take 2 from 2', '1': 'take 1 from 2'}
    """
    _checked_method(method, ExplainMethod)
    game = as_game(game)
    position = as_position(game, position)
    explanation = _explain(game, position, max_states, method, convention)
    moves = [text for text, _ in explanation.successors]
    return replace(explanation, move_names=named_moves(game, position, moves))


def _explain(
    game: Game[Any],
    position: Position,
    max_states: int,
    method: Literal["auto", "graph"],
    convention: Convention,
) -> Explanation:
    """`explain` of a game and a position already parsed, the moves not yet named."""
    if convention == MISERE:
        from explorer.analysis.misere import misere_explanation  # which builds on this module

        return misere_explanation(game, position, max_states=max_states)
    parts = game.decompose(position) if method == "auto" else None
    if parts is not None:
        values = [
            (
                p.game.spec,
                p.game.format(p.position),
                _grundy_value(p.game, p.position, max_states=max_states),
            )
            for p in parts.parts
        ]
        total = nim_sum(*(v for _, _, v in values))
        value_of = _grundy_value if parts.exact else reduced_value
        finite = [v for _, _, v in values if isinstance(v, int)]
        changes = []
        if isinstance(total, int) and total and len(finite) == len(values):
            changes = [
                {
                    "part": values[i][1],
                    "game": values[i][0],
                    "value": finite[i],
                    "target": target,
                    "moves": [game.format(m) for m in found],
                }
                for i, target, found in _part_changes(parts, finite, total, max_states)
            ]
        return Explanation(
            game=game.spec,
            position=game.format(position),
            **value_fields(total, not parts.exact),
            outcome=outcome_of(total),
            method="decomposition" if parts.exact else "reduction",
            successors=[
                (game.format(s), shown_value(value_of(game, s, max_states=max_states)))
                for s in _sum_moves(game, position)
            ],
            parts=[(spec, text, shown_value(v)) for spec, text, v in values],
            note=parts.note,
            changes=changes,
            nim=game.nim_heaps(position) is not None,
        )
    value_of = _grundy_value if method == "auto" else graph_value
    value = value_of(game, position, max_states=max_states)  # one graph, with every move
    stage, counter = GRAPH_MEMO.label(game.spec, position) or (None, None)
    successors = [
        (game.format(s), shown_value(value_of(game, s, max_states=max_states)))
        for s in dict.fromkeys(game.successors(position))
    ]
    return Explanation(
        game=game.spec,
        position=game.format(position),
        **value_fields(value),
        outcome=outcome_of(value),
        method="mex" if stage is None else "labelling",
        successors=successors,
        stage=stage,
        counter=counter,
    )


def _sum_moves(game: Game[Any], position: Position) -> list[Position]:
    """The distinct moves of a sum, when there are at most `EXPLAIN_SUM_MOVES`; else its
    winning moves where the game knows them (none otherwise)."""
    moves: dict[Position, None] = {}
    for successor in game.successors(position):
        moves[successor] = None
        if len(moves) > EXPLAIN_SUM_MOVES:
            return game.moves_to_value(position, 0) or []
    return list(moves)


def value_table(
    game: Game[Any] | str,
    rows: int,
    cols: int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_memory_mb: int = DEFAULT_TABLE_MEMORY_MB,
    progress: TableProgress | None = None,
) -> list[list[int | None]]:
    """G(r, c) for 0 <= r < rows, 0 <= c < cols of a two-coordinate game.

    Works for games whose positions parse from ``"r,c"``: two heaps of a heap game (the XOR of
    its single-heap values), Wythoff and Ferguson (dynamic programming over the table), and
    others from their game graphs. Cells that are not positions of the game (Ferguson's empty
    heaps) are None. `progress(done, total)` is called now and then with the cells filled.

    Examples
    --------
    >>> value_table("wythoff", 2, 3)
    [[0, 1, 2], [1, 2, 0]]
    """
    game = as_game(game)
    rows, cols = as_count(rows, "rows"), as_count(cols, "cols")
    _check_table_memory(rows, cols, 8 * 4, max_memory_mb)  # the array and its list form
    table = value_array(
        game, rows, cols, max_states=max_states, max_memory_mb=max_memory_mb, progress=progress
    )
    return [[None if v < 0 else v for v in row] for row in table.tolist()]


def _check_table_memory(rows: int, cols: int, per_cell: int, max_memory_mb: int) -> None:
    need = per_cell * rows * cols
    if need > max_memory_mb * 2**20:
        raise GraphTooLargeError(
            f"a table of {rows:,} x {cols:,} cells needs about {need / 2**20:,.0f} MiB, over "
            f"the limit of {max_memory_mb:,} MiB (raise it with --memory)",
            max_memory_mb,
        )


def value_array(
    game: Game[Any],
    rows: int,
    cols: int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_memory_mb: int = DEFAULT_TABLE_MEMORY_MB,
    progress: TableProgress | None = None,
) -> np.ndarray:
    """`value_table` as an integer array, -1 where a cell is not a position.

    Examples
    --------
    >>> from explorer import load_game
    >>> value_array(load_game("ferguson"), 2, 3).tolist()
    [[-1, -1, -1], [-1, 0, 1]]
    """
    _check_table_memory(rows, cols, 8 * 2, max_memory_mb)  # the array and the work beside it
    found = game.value_table(rows, cols, progress)
    if isinstance(found, list):
        return np.array([[-1 if v is None else v for v in row] for row in found], dtype=np.int64)
    if found is not None:
        return found
    heaps = game.heap_rules()
    if heaps is not None:
        largest = max(rows, cols) - 1
        prepare_heaps(game, (largest,))
        values = np.array([heaps.heap_value(n) for n in range(largest + 1)], dtype=np.int64)
        if progress is not None:
            progress(rows * cols, rows * cols)
        return heap_pair_table(values, rows, cols)
    table = np.full((rows, cols), -1, dtype=np.int64)
    # largest cells first: one graph from the far corner fills the memo for the rest
    for r in reversed(range(rows)):
        if progress is not None:
            progress((rows - 1 - r) * cols, rows * cols)
        for c in reversed(range(cols)):
            try:
                position = game.parse(f"{r},{c}")
            except ExplorerError:
                continue
            # Grundy values, never a reduction's (queens' keeps only the outcome)
            table[r, c] = finite_value(game, position, max_states=max_states, reduction=False)
    if (table < 0).all():
        raise SpecError(
            f"{game.spec} has no two-coordinate positions (tables are for wythoff, ferguson "
            "and two heaps of a heap game)"
        )
    return table
