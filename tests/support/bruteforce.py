"""Independent brute forces: position graphs solved by the definitions (mex, remoteness,
misère play, Smith's labelling of graphs with cycles), and Nim's moves written again.

They share nothing with explorer's generator or solver; the rules they are given are written
again in the tests from GAMES.md (heap games: `tests.support.heap_rules`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

import networkx as nx

from explorer.solver.incremental import StateValue
from explorer.solver.loopy import Infinite

Moves = Callable[[Hashable], Iterable[Hashable]]
Value = TypeVar("Value")


def heap_game_moves(heap_moves: Callable[[int], Iterable[tuple[int, ...]]]) -> Moves:
    """Moves of a multi-heap position (a sorted tuple) from the moves of one heap."""

    def moves(position: Hashable) -> Iterable[Hashable]:
        heaps: tuple[int, ...] = position  # type: ignore[assignment]
        for i, h in enumerate(heaps):
            rest = heaps[:i] + heaps[i + 1 :]
            for result in heap_moves(h):
                yield tuple(sorted(rest + tuple(x for x in result if x > 0)))

    return moves


def solve_by_definition(
    start: Hashable, moves: Moves, rule: Callable[[list[Value]], Value]
) -> dict[Hashable, Value]:
    """Every position reachable from `start`, given ``rule(values of its options)``, options
    first (an explicit stack: no recursion)."""
    values: dict[Hashable, Value] = {}
    stack = [start]
    while stack:
        position = stack[-1]
        if position in values:
            stack.pop()
            continue
        options = list(moves(position))
        pending = [q for q in options if q not in values]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        values[position] = rule([values[q] for q in options])
    return values


def mex(reached: Iterable[int]) -> int:
    """The least non-negative integer not in `reached`."""
    seen = set(reached)
    g = 0
    while g in seen:
        g += 1
    return g


def mex_values(start: Hashable, moves: Moves) -> dict[Hashable, int]:
    """G of every position reachable from `start`, by G(p) = mex{G(q) : q a move from p}."""
    return solve_by_definition(start, moves, mex)


def _remoteness(options: list[int]) -> int:
    even = [r for r in options if r % 2 == 0]
    if not options:
        return 0
    return 1 + min(even) if even else 1 + max(options)


def remoteness_values(start: Hashable, moves: Moves) -> dict[Hashable, int]:
    """Smith's remoteness by its definition: 0 at the end; from a position with a move to an
    even-remoteness (losing) position, 1 + the least such; otherwise 1 + the greatest."""
    return solve_by_definition(start, moves, _remoteness)


def _misere(options: list[tuple[str, int]]) -> tuple[str, int]:
    if not options:
        return ("N", 0)  # no move: the opponent moved last and lost
    losing = [r for o, r in options if o == "P"]
    if losing:
        return ("N", 1 + min(losing))  # a move to a P-position wins, hurrying
    return ("P", 1 + max(r for _, r in options))  # otherwise lose, delaying


def misere_values(start: Hashable, moves: Moves) -> dict[Hashable, tuple[str, int]]:
    """(misère outcome, remoteness) of every position reachable from `start`, by definition:
    without a move the player to move wins; a move to a P-position wins; otherwise lose."""
    return solve_by_definition(start, moves, _misere)


def dag_values(graph: nx.DiGraph) -> dict[Any, StateValue]:
    """Grundy value and remoteness of every state of a DAG, by their definitions."""
    grundy: dict[Hashable, int] = {}
    far: dict[Hashable, int] = {}
    for start in graph:
        if start not in grundy:
            grundy.update(mex_values(start, graph.successors))
            far.update(remoteness_values(start, graph.successors))
    return {p: StateValue(grundy[p], far[p]) for p in graph}


# --- games whose play may go on forever -------------------------------------------------------


def _finite(value: object) -> bool:
    return not isinstance(value, Infinite)


def check_loopy_definition(
    succ: Sequence[Iterable[int]], values: Sequence[Any], counters: Sequence[int | None]
) -> None:
    """Smith's conditions A, B (with the computed counter) and C on a labelling of a graph that
    may have cycles (vertex ``u`` moves to ``succ[u]``; an infinite value has ``escapes``), and
    K: an infinite value's escapes are its followers' finite values."""
    succ = [list(followers) for followers in succ]
    for u, followers in enumerate(map(set, succ)):
        found = {values[v] for v in followers if _finite(values[v])}
        if _finite(values[u]):
            assert values[u] == mex(found), ("A", u)
            for v in followers:
                if _finite(values[v]) and values[v] < values[u]:
                    continue
                assert any(
                    values[w] == values[u] and counters[w] < counters[u]  # type: ignore[operator]
                    for w in succ[v]
                ), ("B", u, v)
        else:
            assert counters[u] is None
            assert values[u].escapes == found, ("K", u)
            b = mex(found)
            assert any(
                not _finite(values[v])
                and b not in {values[w] for w in succ[v] if _finite(values[w])}
                for v in followers
            ), ("C", u)


def plain_retrograde(succ: Sequence[Iterable[int]]) -> list[str]:
    """Win/lose/draw by the textbook fixpoint: no move is a loss; a move to a loss is a win;
    all moves to wins is a loss; whatever never settles is a draw."""
    succ = [list(followers) for followers in succ]
    outcome: dict[int, str] = {}
    changed = True
    while changed:
        changed = False
        for u, followers in enumerate(succ):
            if u in outcome:
                continue
            if any(outcome.get(v) == "P" for v in followers):
                outcome[u] = "N"
            elif all(outcome.get(v) == "N" for v in followers):
                outcome[u] = "P"
            else:
                continue
            changed = True
    return [outcome.get(u, "D") for u in range(len(succ))]


# --- Nim, written again ----------------------------------------------------------------------


def nim_moves(position: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Remove any positive number of tokens from one heap (empty heaps vanish, heaps sorted)."""
    result = []
    for i, heap in enumerate(position):
        rest = position[:i] + position[i + 1 :]
        for left in range(heap):
            result.append(tuple(sorted(rest + ((left,) if left else ()))))
    return list(dict.fromkeys(result))


def brute_nim(start: tuple[int, ...]) -> tuple[dict[Any, int], dict[Any, int], dict[Any, list]]:
    """Grundy values, remoteness and moves of every position of Nim reachable from `start`."""
    values = mex_values(start, nim_moves)  # type: ignore[arg-type]
    far = remoteness_values(start, nim_moves)  # type: ignore[arg-type]
    moves = {p: nim_moves(p) for p in values}  # type: ignore[arg-type]
    return values, far, moves


def distances(moves: dict, start: Hashable, *, both_ways: bool) -> dict:
    """Moves needed from `start` to each position (following moves backward too if asked)."""
    neighbours = {p: list(qs) for p, qs in moves.items()}
    if both_ways:
        for p, qs in moves.items():
            for q in qs:
                neighbours[q].append(p)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for q in neighbours[p]:
            if q not in seen:
                seen[q] = seen[p] + 1
                queue.append(q)
    return seen
