"""Hypothesis strategies: small positions of the registered games, as (spec, position text)."""

from __future__ import annotations

from hypothesis import strategies as st

small = st.integers(min_value=0, max_value=6)


def heaps(max_heaps: int = 3, max_heap: int = 6) -> st.SearchStrategy[str]:
    return st.lists(st.integers(0, max_heap), min_size=1, max_size=max_heaps).map(
        lambda hs: ",".join(map(str, hs))
    )


def pair(low: int = 0, high: int = 6) -> st.SearchStrategy[str]:
    return st.tuples(st.integers(low, high), st.integers(low, high)).map(lambda p: f"{p[0]},{p[1]}")


def chomp_rows() -> st.SearchStrategy[str]:
    return st.lists(st.integers(1, 4), min_size=1, max_size=3).map(
        lambda rows: ",".join(map(str, sorted(rows, reverse=True)))
    )


#: (spec, strategy of small position texts) for every family the properties run over.
GAMES: list[tuple[str, st.SearchStrategy[str]]] = [
    ("nim", heaps()),
    ("bash:2", heaps()),
    ("subtraction:1,3,4", heaps()),
    ("half", heaps()),
    ("lasker", heaps(max_heap=5)),
    ("kayles", heaps(max_heap=5)),
    ("dawson", heaps(max_heap=5)),
    ("octal:0.137", heaps(max_heap=5)),
    ("grundy", heaps(max_heap=6)),
    ("wythoff", pair()),
    ("ferguson", pair(1, 6)),
    ("chomp", chomp_rows()),
    (
        "staircase",
        st.lists(st.integers(0, 3), min_size=1, max_size=3).map(lambda s: ",".join(map(str, s))),
    ),
]


@st.composite
def game_positions(draw: st.DrawFn) -> tuple[str, str]:
    """One small position of one game."""
    spec, positions = draw(st.sampled_from(GAMES))
    return spec, draw(positions)


@st.composite
def sums(draw: st.DrawFn, max_parts: int = 3) -> list[tuple[str, str]]:
    """A few small positions of possibly different games, to be added."""
    return draw(st.lists(game_positions(), min_size=1, max_size=max_parts))
