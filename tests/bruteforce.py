"""An independent brute force: the whole position graph solved by the definition of mex.

It shares nothing with explorer's generator or solver; the rules it is given are written again
in the tests from GAMES.md.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

Moves = Callable[[Hashable], Iterable[Hashable]]


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
    start: Hashable, moves: Moves, rule: Callable[[list[int]], int]
) -> dict[Hashable, int]:
    """Every position reachable from `start`, given ``rule(values of its options)``, options
    first (an explicit stack: no recursion)."""
    values: dict[Hashable, int] = {}
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


def _mex(reached: list[int]) -> int:
    seen = set(reached)
    g = 0
    while g in seen:
        g += 1
    return g


def mex_values(start: Hashable, moves: Moves) -> dict[Hashable, int]:
    """G of every position reachable from `start`, by G(p) = mex{G(q) : q a move from p}."""
    return solve_by_definition(start, moves, _mex)


def _remoteness(options: list[int]) -> int:
    even = [r for r in options if r % 2 == 0]
    if not options:
        return 0
    return 1 + min(even) if even else 1 + max(options)


def remoteness_values(start: Hashable, moves: Moves) -> dict[Hashable, int]:
    """Smith's remoteness by its definition: 0 at the end; from a position with a move to an
    even-remoteness (losing) position, 1 + the least such; otherwise 1 + the greatest."""
    return solve_by_definition(start, moves, _remoteness)
