"""The Sprague-Grundy solver over a game graph: Grundy values, outcomes, remoteness, winning moves.

Plain functions over a DiGraph returning plain data; iterative, so deep graphs are safe.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import networkx as nx

from explorer.errors import CyclicGraphError


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least non-negative integer not in `values`.

    Examples
    --------
    >>> mex([0, 1, 3])
    2
    >>> mex([])
    0
    """
    seen = set(values)
    k = 0
    while k in seen:
        k += 1
    return k


def reverse_topological_order(graph: nx.DiGraph) -> list[Hashable]:
    """Every node after all of its successors (sinks first).

    Raises
    ------
    CyclicGraphError
        When the graph has a cycle; the error names one.
    """
    succ = graph._succ  # adjacency dicts: several times faster than graph.successors()
    done: set[Hashable] = set()
    on_path: set[Hashable] = set()
    order: list[Hashable] = []
    for root in graph:
        if root in done:
            continue
        stack = [(root, iter(succ[root]))]
        on_path.add(root)
        while stack:
            node, children = stack[-1]
            for child in children:
                if child in on_path:
                    path = [n for n, _ in stack]
                    cycle = path[path.index(child) :] + [child]
                    raise CyclicGraphError(
                        "the graph has a cycle: " + " -> ".join(map(str, cycle)), cycle
                    )
                if child not in done:
                    on_path.add(child)
                    stack.append((child, iter(succ[child])))
                    break
            else:
                stack.pop()
                on_path.discard(node)
                done.add(node)
                order.append(node)
    return order


def grundy_values(graph: nx.DiGraph) -> dict[Hashable, int]:
    """The Grundy value of every node: the mex of its successors' values.

    Examples
    --------
    >>> import networkx as nx
    >>> grundy_values(nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")]))
    {'c': 0, 'b': 1, 'a': 2}
    """
    succ = graph._succ
    values: dict[Hashable, int] = {}
    for node in reverse_topological_order(graph):
        values[node] = mex(values[s] for s in succ[node])
    return values


def outcomes(values: dict[Hashable, int]) -> dict[Hashable, str]:
    """``"P"`` (previous player wins) where the value is 0, else ``"N"``."""
    return {node: "P" if value == 0 else "N" for node, value in values.items()}


def remoteness(graph: nx.DiGraph, values: dict[Hashable, int] | None = None) -> dict[Hashable, int]:
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
    succ = graph._succ
    values = grundy_values(graph) if values is None else values
    result: dict[Hashable, int] = {}
    for node in reverse_topological_order(graph):
        children = succ[node]
        if not children:
            result[node] = 0
        elif values[node]:
            result[node] = 1 + min(result[c] for c in children if values[c] == 0)
        else:
            result[node] = 1 + max(result[c] for c in children)
    return result


def winning_moves(graph: nx.DiGraph, values: dict[Hashable, int], node: Hashable) -> list[Hashable]:
    """The successors of `node` that are P-positions (empty when `node` is a P-position)."""
    return [s for s in graph.successors(node) if values[s] == 0]
