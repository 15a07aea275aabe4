"""The heap games' rules written again from GAMES.md, independently of explorer/games/heaps.py:
one heap's moves per spec, for `tests.support.bruteforce.heap_game_moves`."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import pytest

HeapMoves = Callable[[int], list[tuple[int, ...]]]


def nim(h: int) -> list[tuple[int, ...]]:
    """Take any number of tokens."""
    return [(h - k,) for k in range(1, h + 1)]


def bash(m: int) -> HeapMoves:
    """Take 1 to `m` tokens."""
    return lambda h: [(h - k,) for k in range(1, min(m, h) + 1)]


def subtraction(s: list[int]) -> HeapMoves:
    """Take a number of tokens in `s`."""
    return lambda h: [(h - k,) for k in s if k <= h]


def half(h: int) -> list[tuple[int, ...]]:
    """Take at least half the heap."""
    return [(y,) for y in range(h // 2 + 1)] if h else []


def lasker(h: int) -> list[tuple[int, ...]]:
    """Take any number of tokens, or split the heap in two."""
    return [(h - k,) for k in range(1, h + 1)] + [(a, h - a) for a in range(1, h)]


def grundy(h: int) -> list[tuple[int, ...]]:
    """Split the heap into two unequal heaps."""
    return [(a, h - a) for a in range(1, h) if a != h - a]


def octal(code: str) -> HeapMoves:
    """The octal game `code`: digit k says whether taking k tokens may leave 0, 1 or 2 heaps
    (a leading 4: a heap may also split without taking)."""
    d0, digits = code.split(".")

    def moves(h: int) -> list[tuple[int, ...]]:
        result: list[tuple[int, ...]] = []
        if d0 == "4":
            result += [(a, h - a) for a in range(1, h)]
        for k, d in enumerate(map(int, digits), start=1):
            r = h - k
            if r < 0:
                continue
            if d & 1 and r == 0:
                result.append(())
            if d & 2 and r > 0:
                result.append((r,))
            if d & 4:
                result += [(a, r - a) for a in range(1, r)]
        return result

    return moves


#: One heap's moves for each spec the heap tests check.
RULES: dict[str, HeapMoves] = {
    "nim": nim,
    "bash:2": bash(2),
    "bash:3": bash(3),
    "subtraction:1,2,3": subtraction([1, 2, 3]),
    "subtraction:1,3,4": subtraction([1, 3, 4]),
    "subtraction:2,5": subtraction([2, 5]),
    "half": half,
    "lasker": lasker,
    "grundy": grundy,
    "kayles": octal("0.77"),
    "dawson": octal("0.07"),
    "octal:0.137": octal("0.137"),
    "octal:0.007": octal("0.007"),
    "octal:4.07": octal("4.07"),
    "octal:0.6": octal("0.6"),
    "octal:0.4": octal("0.4"),
}


#: Games whose heaps split; their brute-force graphs grow fast, so they are checked on less.
SPLITTING = {
    "lasker",
    "grundy",
    "kayles",
    "dawson",
    "octal:0.137",
    "octal:0.007",
    "octal:4.07",
    "octal:0.6",
    "octal:0.4",
}


def positions(max_heaps: int = 3, max_heap: int = 9) -> Iterator[tuple[int, ...]]:
    """Every position of up to `max_heaps` heaps of 1 to `max_heap` tokens, sorted."""
    for count in range(max_heaps + 1):
        yield from itertools.combinations_with_replacement(range(1, max_heap + 1), count)


#: Specs whose brute-force graphs take seconds to check (their cases are marked slow).
SLOW = {"lasker"}


def specs() -> list[Any]:
    """Every spec of `RULES`, sorted, for ``parametrize``; those in `SLOW` are marked slow."""
    return [pytest.param(s, marks=pytest.mark.slow) if s in SLOW else s for s in sorted(RULES)]
