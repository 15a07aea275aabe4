"""The solver's kernel: the plain-Python path for a few states and the numpy path for many give
the same values, and a solve that moves between thin and wide levels equals the brute force."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import networkx as nx
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from explorer import adjacency
from explorer.solver import arrays, solve_graph
from explorer.solver.incremental import StateValue, state_values
from explorer.solver.misere import misere_grundy_values, misere_outcomes
from tests.support.bruteforce import dag_values
from tests.support.strategies import random_dags


@contextmanager
def few(threshold: int) -> Iterator[None]:
    """Levels of fewer than `threshold` states take the plain-Python path while inside."""
    kept = arrays.FEW
    arrays.FEW = threshold
    try:
        yield
    finally:
        arrays.FEW = kept


@st.composite
def groups(draw: st.DrawFn) -> tuple[list[int], list[int], list[int], list[int]]:
    """Successor values of a group of states, as `level_values` takes them: every state of
    Grundy value above 0 has a P-successor, as in any solved graph."""
    counts, grundy, far, height = [], [], [], []
    for _ in range(draw(st.integers(min_value=1, max_value=12))):
        values = draw(st.lists(st.integers(min_value=0, max_value=5), max_size=6))
        counts.append(len(values))
        grundy.extend(values)
        # P-successors have even remoteness, N-successors odd
        far.extend(2 * draw(st.integers(0, 4)) + (v > 0) for v in values)
        height.extend(draw(st.integers(0, 9)) for _ in values)
    return counts, grundy, far, height


@given(
    groups(),
    st.booleans(),
    st.sampled_from([arrays.NORMAL_TERMINAL, arrays.MISERE_TERMINAL]),
    st.sampled_from([np.int64, np.int32]),  # a build keeps its values in 32-bit arrays
)
def test_the_python_and_numpy_paths_of_the_kernel_agree(group, with_height, terminal, dtype):
    counts, grundy, far, height = (np.array(x, dtype=dtype) for x in group)
    given_height = height if with_height else None
    python = arrays._values_one_by_one(counts, grundy, far, given_height, terminal)
    vectorised = arrays._values_in_numpy(counts, grundy, far, given_height, terminal)
    for a, b in zip(python, vectorised, strict=True):
        assert a.tolist() == b.tolist()
    assert (python[0][counts == 0] == terminal).all()


@given(random_dags(max_states=16), st.sampled_from([0, 2, 3, 5, 10**9]))
def test_thin_and_wide_levels_solve_as_the_brute_force(graph: nx.DiGraph, threshold) -> None:
    """Whatever level width switches paths, the values are those of the definitions."""
    with few(threshold):
        solved = solve_graph(graph)
    assert {s: StateValue(solved.grundy[s], solved.remoteness[s]) for s in graph} == (
        dag_values(graph)
    )
    longest = {s: 1 + max((solved.height[t] for t in graph[s]), default=-1) for s in graph}
    assert solved.height == longest


@given(random_dags(max_states=16), st.sampled_from([0, 3, 10**9]))
def test_thin_and_wide_levels_give_misere_values_as_the_brute_force(graph, threshold) -> None:
    """Misère G⁻ (1 without a move, else the mex) and misère outcomes, by either path."""
    with few(threshold):
        found = misere_grundy_values(graph)
    for state in nx.topological_sort(nx.reverse(graph)):
        moves = [found[t] for t in graph[state]]
        expected = 1 if not moves else min(set(range(len(moves) + 1)) - set(moves))
        assert found[state] == expected, state
    outcomes, _ = misere_outcomes(graph)
    assert {s: "P" if g == 0 else "N" for s, g in found.items()} == outcomes


def test_a_deep_chain_with_a_wide_fan_solves_as_the_brute_force() -> None:
    """A chain of 300 moves (thin levels) under a fan of 200 states (a wide level)."""
    graph = nx.DiGraph([(f"c{i + 1}", f"c{i}") for i in range(300)])
    graph.add_edges_from((f"f{j}", f"c{300 - j % 3}") for j in range(200))
    graph.add_edges_from((f"t{k}", f"f{j}") for k in range(3) for j in range(k, 200, 7))
    solved = solve_graph(graph)
    assert {s: StateValue(solved.grundy[s], solved.remoteness[s]) for s in graph} == (
        dag_values(graph)
    )


@given(st.lists(groups(), min_size=1, max_size=3))
def test_state_values_for_few_and_many_states_agree(batches) -> None:
    """The in-memory edits' batch rule: one state at a time or all through numpy, same values."""
    successor_values = []
    for counts, grundy, far, _ in batches:
        at = 0
        for count in counts:
            successor_values.append(
                [
                    StateValue(g, r)
                    for g, r in zip(grundy[at : at + count], far[at : at + count], strict=True)
                ]
            )
            at += count
    with few(10**9):
        one_by_one = state_values(successor_values)
    with few(0):
        vectorised = state_values(successor_values)
    assert one_by_one == vectorised


@given(
    st.lists(st.lists(st.integers(min_value=0, max_value=70), max_size=8), min_size=1),
    st.sampled_from([np.int64, np.int32]),
)
def test_the_mex_of_each_group_is_the_least_value_missing_from_it(lists, dtype):
    # values below 63 go through bit masks, larger ones through a sort: both against sets
    counts = np.array([len(values) for values in lists], dtype=dtype)
    flat = np.array([v for values in lists for v in values], dtype=dtype)
    expected = [min(set(range(len(values) + 1)) - set(values)) for values in lists]
    assert arrays.mex_by_group(counts, flat).tolist() == expected


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=40), st.integers(1, 3))
def test_the_next_level_is_every_state_freed_of_its_last_wait(freed, waits):
    # ids close together are counted over their range, spread ones sorted: both by hand
    pending = np.full(10_001, waits, dtype=np.int32)
    expected_pending = pending.copy()
    for state in freed:
        expected_pending[state] -= 1
    expected = sorted({s for s in freed if expected_pending[s] == 0})
    ready = adjacency.next_level(np.empty(0, dtype=np.int64), pending, np.array(freed, np.int64))
    assert ready.tolist() == expected
    assert pending.tolist() == expected_pending.tolist()
