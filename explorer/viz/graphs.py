"""Drawable game graphs: solved graphs cut to a node budget, their layered layout, condensed views.

A drawable graph is a plain DiGraph whose nodes carry ``grundy``, ``outcome`` and ``remoteness``;
the page builder draws any such graph, from memory or from the database.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Hashable, Mapping
from typing import Any, Literal

import networkx as nx

from explorer.errors import CyclicGraphError, GraphTooLargeError, PositionError
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.generation.graph import DEFAULT_MAX_STATES, build_graph
from explorer.solver import layers as layers  # the layering the page draws, re-exported
from explorer.solver import outcome, outcomes, solve_graph
from explorer.solver.loopy import Infinite, outcome_of, solve_loopy
from explorer.solver.misere import misere_outcomes
from explorer.viz import DEFAULT_BUDGET

GroupBy = Literal["grundy", "depth"]

#: A drawing solves the whole graph when it has at most this many states (so remoteness is
#: exact); past it, a cut drawing explores only what it draws (`explored_graph`).
WHOLE_GRAPH_STATES = 5_000


def solved_graph(
    game: Game[Any],
    position: Position,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    convention: Convention = NORMAL,
) -> nx.DiGraph:
    """The whole game graph from `position`, each node carrying its values.

    Node attributes: ``grundy``, ``outcome`` (``"P"``/``"N"``, ``"D"`` for a draw),
    ``remoteness``, ``moves`` (the number of distinct moves) and ``depth`` (the fewest moves
    from `position`), as the database stores them, and ``escapes`` (K of a value ∞(K) in a
    game with cycles, ``grundy`` then None; None for a finite value). With
    ``convention=MISERE``, outcome and remoteness are those of misère play and ``grundy`` is
    None; the graph attribute
    ``convention`` says which play. Nodes stay position objects; graph attributes ``game`` and
    ``root`` are those of `explorer.generation.graph.build_graph`.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> graph = solved_graph(nim, nim.parse("1,1"))
    >>> graph.nodes[(1, 1)]
    {'grundy': 0, 'outcome': 'P', 'remoteness': 2, 'moves': 1, 'depth': 0, 'escapes': None}
    """
    graph = build_graph(game, position, max_states=max_states)
    grundy: Mapping[Hashable, int | None]
    kinds: Mapping[Hashable, str]
    far: Mapping[Hashable, int | None]
    escapes: Mapping[Hashable, list[int] | None] = {}
    if convention == MISERE:
        kinds, far = misere_outcomes(graph)
        grundy = {}
    else:
        try:
            solved = solve_graph(graph)
            grundy, far, kinds = solved.grundy, solved.remoteness, outcomes(solved.grundy)
        except CyclicGraphError:
            loopy = solve_loopy(graph)
            far, kinds = loopy.remoteness, loopy.outcomes
            grundy = {n: None if isinstance(v, Infinite) else v for n, v in loopy.values.items()}
            escapes = {
                n: sorted(v.escapes) for n, v in loopy.values.items() if isinstance(v, Infinite)
            }
    graph.graph["convention"] = convention
    succ = graph._succ
    depth = nearest(graph, position, graph.number_of_nodes())
    for node, attrs in graph.nodes.items():
        attrs.update(
            grundy=grundy.get(node),
            outcome=kinds[node],
            remoteness=far[node],
            moves=len(succ[node]),
            depth=depth[node],
            escapes=escapes.get(node),
        )
    return graph


def drawing_layers(graph: nx.DiGraph, start: Hashable | None) -> dict[Hashable, int]:
    """The rows of a drawing: `layers` (every move goes down); for a graph with cycles, where
    no such rows exist, the fewest moves from `start` (moves may then go up)."""
    try:
        return layers(graph)
    except CyclicGraphError:
        pass
    rows: dict[Hashable, int] = {}
    for root in [start, *graph] if start in graph else list(graph):
        if root not in rows:
            base = max(rows.values()) + 1 if rows else 0
            for node, distance in nearest(graph, root, graph.number_of_nodes()).items():
                rows.setdefault(node, base + distance)
    return rows


def nearest(
    graph: nx.DiGraph,
    start: Hashable,
    budget: int,
    *,
    radius: int | None = None,
    both_ways: bool = False,
) -> dict[Hashable, int]:
    """Up to `budget` nodes in breadth-first order from `start`, with their distance in moves.

    Follows moves forward, and backward too when `both_ways`; `radius` bounds the distance.

    Examples
    --------
    >>> import networkx as nx
    >>> chain = nx.DiGraph([(3, 2), (2, 1), (1, 0)])
    >>> nearest(chain, 3, 2), nearest(chain, 2, 10, radius=1, both_ways=True)
    ({3: 0, 2: 1}, {2: 0, 1: 1, 3: 1})
    """
    succ, pred = graph._succ, graph._pred
    seen = {start: 0}
    queue = deque([start])
    while queue and len(seen) < budget:
        node = queue.popleft()
        distance = seen[node] + 1
        if radius is not None and distance > radius:
            continue
        neighbours = list(succ[node]) + (list(pred[node]) if both_ways else [])
        for other in neighbours:
            if other not in seen:
                seen[other] = distance
                queue.append(other)
                if len(seen) >= budget:
                    break
    return seen


def cut(
    graph: nx.DiGraph,
    start: Hashable,
    *,
    budget: int | None = None,
    radius: int | None = None,
    both_ways: bool = False,
    complete: bool = True,
    label: Callable[[Hashable], str] | None = None,
) -> nx.DiGraph:
    """The part of a solved graph to draw: the `budget` nodes nearest `start`.

    The result is a new DiGraph (nodes relabelled through `label`, when given) whose graph
    attribute ``states`` counts the states that could have been drawn and ``cut`` says whether
    the budget left some out (``default_budget`` whether it was `DEFAULT_BUDGET`, the budget
    when none is given); ``centre`` is `start` and ``radius`` is `radius`. Nodes keep
    their attributes, and ``moves`` is filled in where missing, so a node whose moves were cut
    still says how many it has.
    When `graph` is itself a neighbourhood of radius `radius` (not `complete`), the states on
    its rim may have moves it lacks: their ``moves`` is None (unknown).

    Examples
    --------
    >>> import networkx as nx
    >>> graph = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")])
    >>> small = cut(graph, "a", budget=2)
    >>> list(small.edges), small.graph["states"], small.graph["cut"]
    ([('a', 'b')], 3, True)
    >>> rim = cut(graph, "a", radius=1, complete=False)
    >>> dict(rim.nodes(data="moves"))
    {'a': 2, 'b': None, 'c': None}
    """
    everything = nearest(
        graph, start, graph.number_of_nodes() + 1, radius=radius, both_ways=both_ways
    )
    kept = _first_kept(graph, everything, DEFAULT_BUDGET if budget is None else budget)
    name = (lambda node: node) if label is None else label
    drawn = nx.DiGraph(**graph.graph)
    keep = set(kept)
    left_out = [n for n in everything if n not in keep]
    full = min((everything[n] for n in left_out), default=max(everything.values()) + 1) - 1
    drawn.graph.update(
        states=len(everything),
        cut=len(everything) > len(kept),
        default_budget=budget is None,
        centre=name(start),
        radius=radius,
        whole_within=full,
        p_left_out=sum(1 for n in left_out if graph.nodes[n].get("outcome") == "P"),
    )
    if "root" in graph.graph and graph.graph["root"] in graph:
        drawn.graph["root"] = name(graph.graph["root"])
    succ = graph._succ
    for node in kept:
        attrs = dict(graph.nodes[node])
        if attrs.get("moves") is None:
            inside = radius is None or everything[node] < radius
            known = complete or (inside and attrs.get("expanded", True))
            attrs["moves"] = len(succ[node]) if known else None
        drawn.add_node(name(node), **attrs)
    drawn.add_edges_from((name(a), name(b)) for a in kept for b in succ[a] if b in keep)
    return drawn


def _first_kept(graph: nx.DiGraph, distance: dict[Hashable, int], budget: int) -> list[Hashable]:
    """The `budget` nodes to draw, nearest first: ring by ring from the start, and in the ring
    that does not fit whole, its P-positions first, then the states with a winning move (to a
    P-position), then the rest.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("s", "a"), ("s", "b"), ("s", "p")])
    >>> g.nodes["p"]["outcome"] = "P"
    >>> _first_kept(g, {"s": 0, "a": 1, "b": 1, "p": 1}, 2)
    ['s', 'p']
    """
    if budget >= len(distance):
        return list(distance)
    nodes, succ = graph.nodes, graph._succ

    def rank(node: Hashable) -> int:
        if nodes[node].get("outcome") == "P":
            return 0
        return 1 if any(nodes[s].get("outcome") == "P" for s in succ[node]) else 2

    order = sorted(distance, key=lambda node: (distance[node], rank(node)))
    return order[:budget]


def game_graph(
    game: Game[Any],
    position: Position,
    *,
    around: Position | None = None,
    depth: int | None = None,
    budget: int | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    convention: Convention = NORMAL,
) -> nx.DiGraph:
    """A drawable graph of a game from memory: nodes are position texts with their values
    (misère outcomes with ``convention=MISERE``, see `solved_graph`).

    Parameters
    ----------
    game : Game
    position : Position
        The start. A graph of up to `WHOLE_GRAPH_STATES` states is solved whole (values and
        remoteness exact); a bigger one of a game that values its positions alone (by parts,
        a value table or its sequence) is explored only as far as it is drawn
        (`explored_graph`); any other is solved whole up to `max_states`.
    around : Position, optional
        Draw the neighbourhood of this position (default: `position`) ...
    depth : int, optional
        ... within this many moves, forward or backward; without it, everything from `around`
        forward.
    budget : int, optional
        Most states drawn; the nearest ones are kept. By default `DEFAULT_BUDGET`, which
        keeps a page readable.
    max_states : int
        Size guard for the whole graph.

    Raises
    ------
    PositionError
        When `around` cannot be reached from `position`.
    GraphTooLargeError
        When the whole graph is over `max_states`.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> graph = game_graph(nim, nim.parse("2,2"), around=nim.parse("1,2"), depth=1)
    >>> sorted(graph), graph.nodes["1,1"]["grundy"]
    (['1', '1,1', '1,2', '2', '2,2'], 0)
    """
    if around is None and depth is None and convention == NORMAL and _valued_alone(game, position):
        try:
            graph = solved_graph(game, position, max_states=min(max_states, WHOLE_GRAPH_STATES))
        except GraphTooLargeError:  # big: explore and value only what is drawn
            return explored_graph(game, position, DEFAULT_BUDGET if budget is None else budget)
    else:
        graph = solved_graph(game, position, max_states=max_states, convention=convention)
    centre = position if around is None else around
    if centre not in graph:
        raise PositionError(
            f"position {game.format(centre)!r} cannot be reached from "
            f"{game.format(position)!r} in {game.spec}"
        )
    return cut(
        graph, centre, budget=budget, radius=depth, both_ways=depth is not None, label=game.format
    )


def _valued_alone(game: Game[Any], position: Position) -> bool:
    """Whether the game values `position` without its game graph: exact parts, or a known
    value (a heap's sequence, a formula)."""
    from explorer.analysis.solving import prepare_heaps

    prepare_heaps(game, position)
    if game.known_value(position) is not None:
        return True
    parts = game.decompose(position)
    return parts is not None and parts.exact


def explored_graph(game: Game[Any], position: Position, budget: int) -> nx.DiGraph:
    """A drawable graph of the `budget` states nearest `position`, explored ring by ring and
    each valued alone (`explorer.grundy_value`: parts, value tables, sequences), never the
    whole game graph; remoteness is unknown (None). As `cut` keeps them: whole rings, then in
    the ring that does not fit its P-positions first, then the states with a winning move.

    The graph attribute ``states`` is the game's count of states when it has one (``count_states``),
    else the states seen, with ``states_at_least`` True.

    Examples
    --------
    >>> from explorer import load_game
    >>> kayles = load_game("kayles")
    >>> graph = explored_graph(kayles, (60,), 5)
    >>> graph.graph["cut"], graph.number_of_nodes(), graph.nodes["60"]["grundy"]
    (True, 5, 4)
    """
    from explorer.analysis.solving import grundy_value

    distance: dict[Hashable, int] = {position: 0}
    moves: dict[Hashable, list[Hashable]] = {}
    ring = [position]
    while ring and len(distance) <= budget:
        following = []
        for node in ring:
            moves[node] = list(dict.fromkeys(game.successors(node)))
            for target in moves[node]:
                if target not in distance:
                    distance[target] = distance[node] + 1
                    following.append(target)
        ring = following
    values = {node: grundy_value(game, node) for node in distance}
    graph = nx.DiGraph(game=game.spec, root=position, convention=NORMAL)
    for node, value in values.items():
        infinite = isinstance(value, Infinite)
        graph.add_node(
            node,
            grundy=None if infinite else value,
            outcome=outcome_of(value),
            remoteness=None,
            depth=distance[node],
            escapes=sorted(value.escapes) if isinstance(value, Infinite) else None,
        )
    graph.add_edges_from((a, b) for a, targets in moves.items() for b in targets)
    kept = _first_kept(graph, distance, budget)
    for node in kept:  # the last ring's kept states: their moves, to count and to link
        if node not in moves:
            moves[node] = list(dict.fromkeys(game.successors(node)))
            graph.add_edges_from((node, b) for b in moves[node] if b in distance)
        graph.nodes[node]["moves"] = len(moves[node])
    counted = game.count_states(position, 10**9)
    drawn = cut(graph.subgraph(kept), position, budget=budget, label=game.format)
    left_out = [n for n in distance if n not in set(kept)]
    drawn.graph.update(
        states=counted if counted is not None else len(distance),
        states_at_least=counted is None and bool(ring),
        cut=len(kept) < (counted if counted is not None else len(distance)) or bool(ring),
        default_budget=budget == DEFAULT_BUDGET,
        whole_within=max(distance[n] for n in kept) - (1 if left_out else 0),
        p_left_out=sum(1 for n in left_out if graph.nodes[n]["outcome"] == "P"),
        p_left_out_at_least=bool(ring),
    )
    return drawn


def layout(
    graph: nx.DiGraph, layer: Mapping[Hashable, int], *, dx: float = 100.0, dy: float = 110.0
) -> dict[Hashable, tuple[float, float]]:
    """x, y of each node: one row per layer, each node near the mean x of its parents.

    Rows are swept top to bottom (the barycentre heuristic, which keeps most moves short and
    uncrossed). Nodes sit on a grid of step `dx` whose odd rows are shifted by half a step, so
    a move skipping one row passes between the nodes of that row instead of through one.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")])
    >>> layout(g, layers(g))
    {'a': (0.0, 0.0), 'b': (-50.0, 110.0), 'c': (50.0, 110.0), 'd': (0.0, 220.0)}
    """
    rows: dict[int, list[Hashable]] = {}
    for node in graph:
        rows.setdefault(layer[node], []).append(node)
    pred = graph._pred
    x: dict[Hashable, float] = {}
    result: dict[Hashable, tuple[float, float]] = {}
    for level in sorted(rows):
        shift = dx / 2 if level % 2 else 0.0
        wanted = {}
        for node in rows[level]:
            parents = [x[p] for p in pred[node] if p in x]
            wanted[node] = sum(parents) / len(parents) if parents else 0.0
        row = sorted(rows[level], key=wanted.__getitem__)  # stable: ties keep graph order
        slots: list[int] = []
        for node in row:
            slot = round((wanted[node] - shift) / dx)
            slots.append(max(slot, slots[-1] + 1) if slots else slot)
        # pushing right drifts the row; move it back by whole steps onto its parents
        drift = sum(wanted[n] - (k * dx + shift) for n, k in zip(row, slots, strict=True))
        back = round(drift / len(row) / dx)
        for node, slot in zip(row, slots, strict=True):
            x[node] = (slot + back) * dx + shift
            result[node] = (x[node], level * dy)
    return result


def condense(graph: nx.DiGraph, by: GroupBy = "grundy") -> nx.DiGraph:
    """Group the states of a solved graph by Grundy value or by depth, with counts.

    Each node of the result is a group (the value, or the depth: the fewest moves from the
    start, node attribute ``depth``) with attributes ``states`` (how many), ``p_positions``
    (how many of them are P-positions) and ``inner_moves`` (moves between two states of the
    group); an edge a -> b has ``moves``, the number of moves from group a to group b. Graph
    attributes say what the groups are (``by``) and how many states and moves there were;
    states without a value (``grundy`` None) are left out of a grouping by value and counted
    in ``unsolved``.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> groups = condense(solved_graph(nim, nim.parse("1,2")))
    >>> dict(groups.nodes(data="states"))
    {0: 2, 1: 1, 2: 1, 3: 1}
    >>> sorted(groups.edges)
    [(0, 1), (1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)]
    """
    attribute = "grundy" if by == "grundy" else "depth"
    group = {node: key for node, key in graph.nodes(data=attribute) if key is not None}
    states = Counter(group.values())
    zeros = Counter(
        group[n]
        for n, value in graph.nodes(data="grundy")
        if value is not None and outcome(value) == "P" and n in group
    )
    moves = Counter((group[a], group[b]) for a, b in graph.edges if a in group and b in group)
    condensed = nx.DiGraph(**graph.graph)
    condensed.graph.update(
        by=by,
        states=graph.number_of_nodes(),
        moves=graph.number_of_edges(),
        unsolved=graph.number_of_nodes() - len(group),
    )
    for key in sorted(states):
        condensed.add_node(
            key, states=states[key], p_positions=zeros[key], inner_moves=moves.pop((key, key), 0)
        )
    for (a, b), count in sorted(moves.items()):
        condensed.add_edge(a, b, moves=count)
    return condensed


def condensed_graph(
    game: Game[Any],
    position: Position,
    *,
    by: GroupBy = "grundy",
    max_states: int = DEFAULT_MAX_STATES,
) -> nx.DiGraph:
    """`condense` the whole solved graph of a game from `position`.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> groups = condensed_graph(nim, nim.parse("3,3"), by="depth")
    >>> [groups.nodes[k]["states"] for k in groups]
    [1, 3, 6]
    """
    graph = solved_graph(game, position, max_states=max_states)
    condensed = condense(graph, by)
    condensed.graph["root"] = game.format(position)
    return condensed
