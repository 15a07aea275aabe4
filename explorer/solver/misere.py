"""Misère play (the player who makes the last move loses): outcomes and remoteness of any game
graph, the misère Grundy value G⁻ of an acyclic one, and Bouton's rule for misère Nim.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from explorer.adjacency import in_levels, refuse_cycle
from explorer.solver import adjacency, outcome
from explorer.solver.arrays import MISERE_TERMINAL, Values
from explorer.solver.loopy import retrograde

if TYPE_CHECKING:  # NetworkX loads with the graphs that use it, not with this module
    import networkx as nx


def misere_outcomes(graph: nx.DiGraph) -> tuple[dict[Hashable, str], dict[Hashable, int | None]]:
    """Misère outcome (``"P"``, ``"N"``, or ``"D"`` on a cycle) and remoteness of every node.

    A terminal position is N (the player to move has no move, so the opponent made the last
    move and lost); otherwise as in normal play, by retrograde analysis.

    Examples
    --------
    >>> import networkx as nx
    >>> outcome, far = misere_outcomes(nx.DiGraph([(2, 1), (1, 0), (2, 0)]))
    >>> outcome, far
    ({2: 'N', 1: 'P', 0: 'N'}, {2: 2, 1: 1, 0: 0})
    """
    nodes = list(graph)
    index = {node: i for i, node in enumerate(nodes)}
    succ = graph._succ
    outcome, far = retrograde([[index[s] for s in succ[node]] for node in nodes], terminal="N")
    return dict(zip(nodes, outcome, strict=True)), dict(zip(nodes, far, strict=True))


def misere_grundy_values(graph: nx.DiGraph) -> dict[Hashable, int]:
    """G⁻ of every node of an acyclic graph: 1 at a terminal position, else the mex of the
    followers' G⁻; zero exactly on misère P-positions (of this game alone, not of sums).

    Raises
    ------
    CyclicGraphError
        When the graph has a cycle; the error names one.

    Examples
    --------
    >>> import networkx as nx
    >>> misere_grundy_values(nx.DiGraph([(2, 1), (1, 0), (2, 0)]))
    {2: 2, 1: 0, 0: 1}
    """
    nodes, succ = adjacency(graph)
    values = Values.unsolved(succ.size)
    pending = succ.degree.copy()
    for level in in_levels(np.flatnonzero(pending == 0), pending, succ.reversed().of):
        values.solve(level, succ, terminal=MISERE_TERMINAL)
    if (values.grundy < 0).any():
        refuse_cycle(succ, values.grundy < 0, nodes.__getitem__)
    return dict(zip(nodes, values.grundy.tolist(), strict=True))


def bouton_misere_outcome(heaps: Iterable[int]) -> str:
    """Misère Nim by Bouton's rule: if every heap is 0 or 1, the player to move loses exactly
    when the number of 1-heaps is odd; otherwise exactly when the XOR of the heaps is 0.

    Examples
    --------
    >>> bouton_misere_outcome([1, 1, 1]), bouton_misere_outcome([]), bouton_misere_outcome([2, 2])
    ('P', 'N', 'P')
    """
    xor = 0
    ones = 0
    big = False
    for h in heaps:
        xor ^= h
        ones += h == 1
        big = big or h > 1
    if big:
        return outcome(xor)
    return "P" if ones % 2 else "N"


def bouton_misere_moves(heaps: list[int]) -> list[tuple[int, int]]:
    """Winning misère Nim moves as (heap index, new size), one per distinct heap size.

    The normal-play move, except where it would leave only heaps of 0 and 1: then leave an odd
    number of 1-heaps. Checked against Bouton's rule on every candidate, in O(heaps) time.

    Examples
    --------
    >>> bouton_misere_moves([1, 2])
    [(1, 0)]
    >>> bouton_misere_moves([3, 3])
    []
    """
    xor = 0
    ones = 0
    big = 0
    for h in heaps:
        xor ^= h
        ones += h == 1
        big += h > 1
    moves = []
    seen: set[int] = set()
    for i, h in enumerate(heaps):
        if h in seen:
            continue
        seen.add(h)
        for t in dict.fromkeys((h ^ xor, 0, 1)):
            if not 0 <= t < h:
                continue
            rest_xor = xor ^ h ^ t
            rest_ones = ones - (h == 1) + (t == 1)
            rest_big = big - (h > 1) + (t > 1)
            if rest_big:
                losing = outcome(rest_xor) == "P"
            else:
                losing = rest_ones % 2 == 1
            if losing:
                moves.append((i, t))
    return moves
