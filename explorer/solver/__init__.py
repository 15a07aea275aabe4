"""The Sprague-Grundy solver: Grundy values, outcomes, remoteness, heights, winning moves.

Two forms of one solver. Here, the NetworkX form for game graphs built in memory: plain
functions over a DiGraph returning dicts. `explorer.solver.arrays`, the compact-array form for
stored graphs of millions of states. The NetworkX form numbers the nodes and solves through the
compact form, so the rule (`explorer.solver.arrays.level_values`) is written once.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from itertools import chain
from typing import TYPE_CHECKING, Literal, NamedTuple, overload

import numpy as np
import numpy.typing as npt

from explorer.adjacency import Adjacency
from explorer.solver.arrays import Values, levels, mex_by_group, solve_adjacency

if TYPE_CHECKING:  # NetworkX loads with the graphs that use it, not with this module
    import networkx as nx

#: The outcome of a position: P (the previous player, who just moved, wins) or N (the next).
Outcome = Literal["P", "N"]


@overload
def outcome(grundy: int) -> Outcome: ...
@overload
def outcome(grundy: npt.NDArray[np.int64]) -> npt.NDArray[np.str_]: ...
def outcome(grundy: int | npt.NDArray[np.int64]) -> Outcome | npt.NDArray[np.str_]:
    """``"P"`` where the Grundy value is 0 (the player to move loses), else ``"N"``.

    Takes one value or an array of them.

    Examples
    --------
    >>> outcome(0), outcome(3), outcome(np.array([2, 0])).tolist()
    ('P', 'N', ['N', 'P'])
    """
    if isinstance(grundy, np.ndarray):
        return np.where(grundy == 0, "P", "N")
    return "P" if grundy == 0 else "N"


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative integer not in `values`.

    Examples
    --------
    >>> mex([0, 1, 3])
    2
    >>> mex([])
    0
    """
    listed = np.fromiter(values, dtype=np.int64)
    return int(mex_by_group(np.array([len(listed)]), listed)[0])


class GraphAdjacency(NamedTuple):
    """A NetworkX graph's nodes numbered in graph order, and its moves as an `Adjacency`."""

    nodes: list[Hashable]
    succ: Adjacency


def adjacency(graph: nx.DiGraph) -> GraphAdjacency:
    """Number the nodes of `graph` in its order; each node's moves keep the graph's order."""
    nodes = list(graph)
    number = {node: i for i, node in enumerate(nodes)}.__getitem__
    # the adjacency dicts, in the nodes' order: several times faster than graph.successors()
    moves = graph._succ.values()
    degree = np.fromiter(map(len, moves), dtype=np.int64, count=len(nodes))
    total = int(degree.sum())
    target = np.fromiter(map(number, chain.from_iterable(moves)), dtype=np.int64, count=total)
    return GraphAdjacency(nodes, Adjacency.from_degrees(degree, target))


class GraphValues(NamedTuple):
    """Grundy value, remoteness and height of every node of a game graph, sinks first."""

    grundy: dict[Hashable, int]
    remoteness: dict[Hashable, int]
    height: dict[Hashable, int]


def solve_graph(graph: nx.DiGraph) -> GraphValues:
    """Grundy value, remoteness and height of every node of a game graph.

    Remoteness counts moves to the end under optimal play: the winner hurries, the loser
    delays; P-positions have even remoteness, N-positions odd. Height is the longest sequence
    of moves to the end. Each dict lists the nodes level by level from the terminal ones.

    Raises
    ------
    CyclicGraphError
        When the graph has a cycle; the error names one.

    Examples
    --------
    >>> import networkx as nx
    >>> solved = solve_graph(nx.DiGraph([(2, 1), (1, 0), (2, 0)]))
    >>> solved.grundy, solved.remoteness, solved.height
    ({0: 0, 1: 1, 2: 2}, {0: 0, 1: 1, 2: 1}, {0: 0, 1: 1, 2: 2})
    """
    nodes, succ = adjacency(graph)
    values: Values = solve_adjacency(succ, name=lambda i: nodes[i])
    order = np.argsort(values.height, kind="stable").tolist()
    named = [nodes[i] for i in order]
    grundy, far, height = (dict(zip(named, v[order].tolist(), strict=True)) for v in values)
    return GraphValues(grundy, far, height)


def grundy_values(graph: nx.DiGraph) -> dict[Hashable, int]:
    """The Grundy value of every node: the mex of its successors' values.

    Raises
    ------
    CyclicGraphError
        When the graph has a cycle; the error names one.

    Examples
    --------
    >>> import networkx as nx
    >>> grundy_values(nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")]))
    {'c': 0, 'b': 1, 'a': 2}
    """
    return solve_graph(graph).grundy


def remoteness(graph: nx.DiGraph) -> dict[Hashable, int]:
    """Moves to the end under optimal play: the winner hurries, the loser delays.

    A terminal position has remoteness 0. From an N-position the winner moves to the P-successor
    of least remoteness; from a P-position the loser moves to the successor of greatest
    remoteness. P-positions have even remoteness, N-positions odd.

    Examples
    --------
    >>> import networkx as nx
    >>> remoteness(nx.DiGraph([(2, 1), (1, 0), (2, 0)]))
    {0: 0, 1: 1, 2: 1}
    """
    return solve_graph(graph).remoteness


def heights(graph: nx.DiGraph) -> dict[Hashable, int]:
    """The longest sequence of moves from each node to the end.

    Examples
    --------
    >>> import networkx as nx
    >>> heights(nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")]))
    {'c': 0, 'b': 1, 'a': 2}
    """
    return solve_graph(graph).height


def layers(graph: nx.DiGraph) -> dict[Hashable, int]:
    """The longest line of play reaching each node from a node without predecessors.

    Raises
    ------
    CyclicGraphError
        When the graph has a cycle; the error names one.

    Examples
    --------
    >>> import networkx as nx
    >>> layers(nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")]))
    {'a': 0, 'b': 1, 'c': 2}
    """
    nodes, succ = adjacency(graph)
    found = levels(succ, name=nodes.__getitem__)
    return {nodes[s]: k for k, level in enumerate(found) for s in level.tolist()}


def outcomes(values: dict[Hashable, int]) -> dict[Hashable, Outcome]:
    """The `outcome` of every node, from its Grundy value."""
    return {node: outcome(value) for node, value in values.items()}


def winning_moves(graph: nx.DiGraph, values: dict[Hashable, int], node: Hashable) -> list[Hashable]:
    """The successors of `node` that are P-positions (empty when `node` is a P-position)."""
    return [s for s in graph.successors(node) if outcome(values[s]) == "P"]


__all__ = [
    "GraphValues",
    "Outcome",
    "adjacency",
    "grundy_values",
    "heights",
    "layers",
    "mex",
    "outcome",
    "outcomes",
    "remoteness",
    "solve_graph",
    "winning_moves",
]
