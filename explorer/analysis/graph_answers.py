"""The solver's answers for every node of a game graph, given the graph or, as everywhere in the
Python API, a game and a start position (objects, or a spec and a position text)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, TypeAlias

import networkx as nx

from explorer import solver
from explorer.errors import ArgumentTypeError
from explorer.games.arguments import as_game, as_position
from explorer.games.base import Game, Position
from explorer.generation.graph import DEFAULT_MAX_STATES, build_graph

#: What the functions below take first: a game graph, or a game (or its spec).
GraphOrGame: TypeAlias = "nx.DiGraph | Game[Any] | str"


def _graph(
    graph: GraphOrGame, position: Position | str | int | None, max_states: int
) -> nx.DiGraph:
    """The graph given, or the game graph from `position` of the game given."""
    if isinstance(graph, nx.DiGraph):
        return graph
    if position is None:
        raise ArgumentTypeError(
            f"a game needs a start position: ({graph!r}, POSITION), or give a game graph"
        )
    return build_graph(graph, position, max_states=max_states)


def grundy_values(
    graph: GraphOrGame,
    position: Position | str | int | None = None,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> dict[Hashable, int]:
    """The Grundy value of every node of a game graph, or of every position reachable from
    `position` in a game (a spec and a position text, or the objects).

    Raises
    ------
    CyclicGraphError
        When the graph has a cycle; the error names one.
    ArgumentTypeError
        When `graph` is neither a graph nor a game, or a game comes without a position.

    Examples
    --------
    >>> grundy_values("nim", "1,2")
    {(): 0, (1,): 1, (2,): 2, (1, 1): 0, (1, 2): 3}
    >>> grundy_values(nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")]))
    {'c': 0, 'b': 1, 'a': 2}
    """
    return solver.grundy_values(_graph(graph, position, max_states))


def remoteness(
    graph: GraphOrGame,
    position: Position | str | int | None = None,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> dict[Hashable, int]:
    """Moves to the end under optimal play (the winner hurries, the loser delays) from every
    node of a game graph, or from every position reachable from `position` in a game.

    Examples
    --------
    >>> remoteness("nim", "1,2")[(1, 2)]
    3
    """
    return solver.remoteness(_graph(graph, position, max_states))


def outcomes(
    values: dict[Hashable, int] | GraphOrGame,
    position: Position | str | int | None = None,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> dict[Hashable, solver.Outcome]:
    """``"P"`` or ``"N"`` for every node: from a dict of Grundy values, a game graph, or a
    game and a start position.

    Examples
    --------
    >>> outcomes("nim", "1,1")
    {(): 'P', (1,): 'N', (1, 1): 'P'}
    >>> outcomes({"a": 0, "b": 3})
    {'a': 'P', 'b': 'N'}
    """
    if isinstance(values, dict):
        return solver.outcomes(values)
    return solver.outcomes(grundy_values(values, position, max_states=max_states))


def winning_moves(
    graph: GraphOrGame,
    values: dict[Hashable, int] | Position | str | int | None = None,
    node: Hashable | None = None,
    *,
    max_states: int = DEFAULT_MAX_STATES,
) -> list[Hashable]:
    """The moves to P-positions: of `node` in a game graph with its Grundy `values`, or of a
    position of a game (``winning_moves("nim", "3,4,5")``), solved as `explorer.solve` solves
    it (a large sum from its parts). Empty from a P-position.

    Examples
    --------
    >>> winning_moves("nim", "3,4,5")
    [(1, 4, 5)]
    >>> graph = nx.DiGraph([(2, 1), (1, 0), (2, 0)])
    >>> winning_moves(graph, grundy_values(graph), 1)
    [0]
    """
    if isinstance(graph, nx.DiGraph):
        if not isinstance(values, dict):
            raise ArgumentTypeError(
                "winning moves in a graph need its values and a node: "
                "winning_moves(graph, grundy_values(graph), node)"
            )
        return solver.winning_moves(graph, values, node)
    from explorer.analysis.solving import solve

    game = as_game(graph)
    if isinstance(values, dict) or values is None:
        raise ArgumentTypeError(
            f"winning moves of a game need a position: winning_moves({game.spec!r}, POSITION)"
        )
    solution = solve(game, as_position(game, values), max_states=max_states)
    return [game.parse(move) for move in solution.winning_moves]
