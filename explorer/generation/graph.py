"""Game graph generation: every position reachable from a start, as a NetworkX DiGraph.

Breadth-first and iterative, deterministic, and guarded by a state and an edge budget.
"""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import TYPE_CHECKING, Any

from explorer.errors import GraphTooLargeError
from explorer.games.arguments import as_game, as_position
from explorer.games.base import Game, Position

if TYPE_CHECKING:
    import networkx as nx

#: Default guard on the number of states built into one NetworkX graph.
DEFAULT_MAX_STATES = 200_000
#: Moves allowed per state allowed: the edge guard follows the state guard.
EDGES_PER_STATE = 25


def build_graph(
    game: Game[Any] | str,
    position: Position | str | int,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int | None = None,
) -> nx.DiGraph:
    """Build the game graph of every position reachable from `position`.

    Nodes are positions (hashable objects of the game); an edge p -> q is a move. The graph
    attributes ``game`` (the spec) and ``root`` (the start position) are set.

    Parameters
    ----------
    game : Game or str
        The rules, or their spec.
    position : Position, str or int
        The start: a position text (a heap size in a heap game), or what ``game.parse``
        returns.
    max_states, max_edges : int
        Size guards; going past either raises `GraphTooLargeError`. The edge guard defaults
        to `EDGES_PER_STATE` times the state guard.

    Returns
    -------
    networkx.DiGraph

    Raises
    ------
    GraphTooLargeError
        When the graph has more states or edges than allowed.
    ArgumentTypeError
        When `game` or `position` is of a type that names no game or position.

    Examples
    --------
    >>> graph = build_graph("nim", "1,2")
    >>> graph.number_of_nodes(), graph.number_of_edges()
    (5, 7)
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> graph = build_graph(nim, nim.parse("1,2"))
    >>> sorted(nim.format(p) for p in graph)
    ['0', '1', '1,1', '1,2', '2']
    """
    game = as_game(game)
    position = as_position(game, position)
    if max_edges is None:
        max_edges = EDGES_PER_STATE * max_states
    counted = game.count_states(position, max_states)
    if counted is not None and counted > max_states:  # refuse at once, before generating
        raise _too_many_states(game, position, max_states)
    import networkx as nx  # loaded with the first graph, not with this module

    graph = nx.DiGraph(game=game.spec, root=position)
    graph.add_node(position)
    queue = deque([position])
    edges = 0
    while queue:
        state = queue.popleft()
        budget = max_edges - edges
        moves = list(islice(game.successors(state), budget + 1))
        if len(moves) > budget:
            shown = GraphTooLargeError.quoted(game.format(position))
            raise GraphTooLargeError(
                f"position {shown!r} of {game.spec} is too large: more "
                f"than {max_edges:,} moves (raise the limit with --max-states)",
                max_edges,
            )
        targets = list(dict.fromkeys(moves))
        for target in targets:
            if target not in graph:
                if graph.number_of_nodes() >= max_states:
                    raise _too_many_states(game, position, max_states)
                graph.add_node(target)
                queue.append(target)
        graph.add_edges_from((state, target) for target in targets)
        edges += len(moves)
    return graph


def _too_many_states(game: Game[Any], position: Position, max_states: int) -> GraphTooLargeError:
    shown = GraphTooLargeError.quoted(game.format(position))
    return GraphTooLargeError(
        f"position {shown!r} of {game.spec} is too large: more "
        f"than {max_states:,} states (raise the limit with --max-states)",
        max_states,
    )
