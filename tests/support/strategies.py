"""Hypothesis strategies: small positions of the registered games as (spec, position text),
random DAGs and random edits of them; and the share of the profile's examples a test runs."""

from __future__ import annotations

import networkx as nx
from hypothesis import settings
from hypothesis import strategies as st

from explorer.solver.incremental import Edit


def fraction_of_examples(share: float) -> int:
    """A share of the profile's examples (at least 5): below 1 for a property whose examples
    are expensive, above 1 for a cheap one. ``@settings(max_examples=...)`` takes nothing else,
    so the profile (tests/conftest.py) scales every property."""
    return max(5, round(settings.default.max_examples * share))


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


# --- graphs and edits of them ----------------------------------------------------------------


@st.composite
def random_dags(draw: st.DrawFn, max_states: int = 12) -> nx.DiGraph:
    """A DAG on ``v0 .. vN``; edges only go from a later to an earlier state of a random order."""
    n = draw(st.integers(min_value=1, max_value=max_states))
    names = [f"v{i}" for i in range(n)]
    order = draw(st.permutations(names))
    graph = nx.DiGraph()
    graph.add_nodes_from(names)
    for i in range(n):
        for j in range(i):
            if draw(st.booleans()):
                graph.add_edge(order[i], order[j])
    return graph


def random_edit(draw: st.DrawFn, graph: nx.DiGraph, fresh: str) -> Edit:
    """One to three random changes to `graph`; added moves may close cycles."""
    states = sorted(graph)
    edges = sorted(graph.edges)
    add_states: list[str] = []
    remove_states: list[str] = []
    add_edges: list[tuple[str, str]] = []
    remove_edges: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        live = [s for s in states if s not in remove_states] + add_states
        kind = draw(st.sampled_from(["add_edge", "add_edge", "remove_edge", "add_state", "remove"]))
        if kind == "add_edge" and len(live) >= 2:
            v, w = draw(st.permutations(live))[:2]
            taken = (v, w) in add_edges or ((v, w) in edges and (v, w) not in remove_edges)
            if not taken:
                add_edges.append((v, w))
        elif kind == "remove_edge":
            candidates = [e for e in edges if e not in remove_edges]
            if candidates:
                remove_edges.append(draw(st.sampled_from(candidates)))
        elif kind == "add_state":
            new = f"{fresh}{len(add_states)}"
            add_states.append(new)
            for s in draw(st.lists(st.sampled_from(live), unique=True, max_size=3)) if live else []:
                add_edges.append((new, s) if draw(st.booleans()) else (s, new))
        elif kind == "remove":
            candidates = [s for s in states if s not in remove_states]
            if candidates and len(candidates) > 1:
                gone = draw(st.sampled_from(candidates))
                remove_states.append(gone)
                add_edges = [e for e in add_edges if gone not in e]
    return Edit(tuple(add_states), tuple(remove_states), tuple(add_edges), tuple(remove_edges))
