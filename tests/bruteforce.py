"""An independent brute force: the whole position graph solved by the definition of mex.

It shares nothing with explorer's generator or solver; the rules it is given are written again
in the tests from GAMES.md.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

Moves = Callable[[Hashable], Iterable[Hashable]]


def mex_values(start: Hashable, moves: Moves) -> dict[Hashable, int]:
    """G of every position reachable from `start`, by G(p) = mex{G(q) : q a move from p}."""
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
        reached = {values[q] for q in options}
        g = 0
        while g in reached:
            g += 1
        values[position] = g
    return values


def heap_game_moves(heap_moves: Callable[[int], Iterable[tuple[int, ...]]]) -> Moves:
    """Moves of a multi-heap position (a sorted tuple) from the moves of one heap."""

    def moves(position: Hashable) -> Iterable[Hashable]:
        heaps: tuple[int, ...] = position  # type: ignore[assignment]
        for i, h in enumerate(heaps):
            rest = heaps[:i] + heaps[i + 1 :]
            for result in heap_moves(h):
                yield tuple(sorted(rest + tuple(x for x in result if x > 0)))

    return moves


def remoteness_values(start: Hashable, moves: Moves) -> dict[Hashable, int]:
    """Smith's remoteness by its definition: 0 at the end; from a position with a move to an
    even-remoteness (losing) position, 1 + the least such; otherwise 1 + the greatest."""
    far: dict[Hashable, int] = {}
    stack = [start]
    while stack:
        position = stack[-1]
        if position in far:
            stack.pop()
            continue
        options = list(moves(position))
        pending = [q for q in options if q not in far]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        even = [far[q] for q in options if far[q] % 2 == 0]
        if not options:
            far[position] = 0
        elif even:
            far[position] = 1 + min(even)
        else:
            far[position] = 1 + max(far[q] for q in options)
    return far
