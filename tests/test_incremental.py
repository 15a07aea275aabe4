"""Incremental re-solving in memory: random edits to random DAGs against from-scratch solves."""

from __future__ import annotations

import copy

import networkx as nx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.errors import CyclicGraphError
from explorer.solver import heights
from explorer.solver.incremental import (
    Edit,
    EditError,
    SolvedGraph,
    StateValue,
    apply_edit,
    edit_between,
)
from tests.support.bruteforce import dag_values
from tests.support.graphs import from_scratch
from tests.support.strategies import random_dags, random_edit


def assert_consistent(solved: SolvedGraph) -> None:
    expected = from_scratch(solved.graph)
    assert solved.values == expected
    assert expected == dag_values(solved.graph)
    assert set(solved.height) == set(solved.graph)
    for v, w in solved.graph.edges:
        assert solved.height[v] > solved.height[w], (v, w)


def snapshot(solved: SolvedGraph) -> tuple[object, ...]:
    return (
        sorted(solved.graph.nodes),
        sorted(solved.graph.edges),
        dict(solved.values),
        dict(solved.height),
    )


# --- properties ------------------------------------------------------------------------------


@given(st.data(), random_dags())
def test_random_edits_match_a_solve_from_scratch(data: st.DataObject, graph: nx.DiGraph) -> None:
    solved = SolvedGraph(graph)
    assert_consistent(solved)
    for step in range(data.draw(st.integers(min_value=1, max_value=8), label="edits")):
        edit = random_edit(data.draw, solved.graph, fresh=f"n{step}_")
        before = snapshot(solved)
        old_graph = solved.graph.copy()
        trial = old_graph.copy()
        trial.remove_edges_from(edit.remove_edges)
        trial.remove_nodes_from(edit.remove_states)
        trial.add_nodes_from(edit.add_states)
        trial.add_edges_from(edit.add_edges)
        if not nx.is_directed_acyclic_graph(trial):
            with pytest.raises(CyclicGraphError) as refused:
                apply_edit(solved, edit)
            cycle = refused.value.cycle
            assert cycle[0] == cycle[-1] and len(cycle) >= 3
            assert all(trial.has_edge(a, b) for a, b in zip(cycle, cycle[1:], strict=False))
            assert snapshot(solved) == before
            continue
        old_values = dict(solved.values)
        result = apply_edit(solved, edit)
        assert_consistent(solved)
        # Exactly the values that differ are reported, with their old and new values.
        differs = {s for s, v in solved.values.items() if old_values.get(s) != v}
        assert set(result.changed) == differs
        for s, (old, new) in result.changed.items():
            assert old == old_values.get(s) and new == solved.values[s]
        # Cutoff: only the directly edited states and predecessors of changed ones are re-solved.
        direct = {v for v, _ in (*edit.add_edges, *edit.remove_edges)} | set(edit.add_states)
        for gone in edit.remove_states:
            direct.update(old_graph.predecessors(gone))
        direct -= set(edit.remove_states)
        above = {u for s in result.changed for u in solved.graph.predecessors(s)}
        assert result.reexamined <= len(direct | above)


@given(random_dags(), random_dags())
def test_the_difference_of_two_graphs_turns_one_into_the_other(
    old: nx.DiGraph, new: nx.DiGraph
) -> None:
    # What a re-import does: apply only the difference to the stored graph.
    new = nx.relabel_nodes(new, {s: s.replace("v", "w", 1) if s > "v5" else s for s in new})
    solved = SolvedGraph(old)
    apply_edit(solved, edit_between(old.nodes, old.edges, new.nodes, new.edges))
    assert sorted(solved.graph.nodes) == sorted(new.nodes)
    assert sorted(solved.graph.edges) == sorted(new.edges)
    assert_consistent(solved)


# --- examples --------------------------------------------------------------------------------


def test_the_cutoff_stops_one_level_above_the_edit() -> None:
    # t is terminal and u -> t has value 1. Adding x -> t turns x from 0 into 1. p1 and p2
    # move to x, t and u: their successor values go from {0, 0, 1} to {1, 0, 1}, mex 2 either
    # way, and t keeps their remoteness at 1. So the change dies out there, and r1, r2 and top
    # above them are never looked at.
    graph = nx.DiGraph(
        [
            ("u", "t"),
            ("p1", "x"), ("p1", "t"), ("p1", "u"), ("p2", "x"), ("p2", "t"), ("p2", "u"),
            ("r1", "p1"), ("r2", "p2"), ("top", "r1"), ("top", "r2"),
        ]
    )  # fmt: skip
    solved = SolvedGraph(graph)
    before = dict(solved.values)
    result = apply_edit(solved, Edit(add_edges=(("x", "t"),)))
    assert result.reexamined == 3  # x, p1, p2
    assert list(result.changed) == ["x"]
    assert result.changed["x"] == (StateValue(0, 0), StateValue(1, 1))
    assert {s: v for s, v in solved.values.items() if s != "x"} == {
        s: v for s, v in before.items() if s != "x"
    }
    assert_consistent(solved)


def test_a_change_travels_up_until_values_settle() -> None:
    # A chain c5 -> c4 -> ... -> c0: values alternate 0, 1, 0, 1, ... Removing c1 -> c0
    # flips c1 and so every state above it: all five are re-examined and all five change.
    graph = nx.DiGraph([(f"c{i + 1}", f"c{i}") for i in range(5)])
    solved = SolvedGraph(graph)
    result = apply_edit(solved, Edit(remove_edges=(("c1", "c0"),)))
    assert result.reexamined == 5
    assert list(result.changed) == ["c1", "c2", "c3", "c4", "c5"]
    assert_consistent(solved)


def test_removing_a_state_re_solves_its_predecessors() -> None:
    solved = SolvedGraph(nx.DiGraph([("a", "b"), ("b", "c")]))
    result = apply_edit(solved, Edit(remove_states=("c",)))
    assert result.removed == ("c",)
    assert solved.values == {"a": StateValue(1, 1), "b": StateValue(0, 0)}
    assert result.reexamined == 2


def test_an_upward_move_raises_heights_and_keeps_them_consistent() -> None:
    # d is terminal and a three moves from the end; the move d -> a lifts d above a, and the
    # states above d with it, so later edits are still ordered correctly.
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "t"), ("e", "d"), ("f", "e")])
    solved = SolvedGraph(graph)
    result = apply_edit(solved, Edit(add_edges=(("d", "a"),)))
    assert result.reordered == 3  # d, e, f
    h = solved.height
    assert h["f"] > h["e"] > h["d"] > h["a"]
    assert_consistent(solved)


def test_a_raise_stops_at_states_already_high_enough() -> None:
    # x -> t between two terminal states lifts x to 1 and p (above x) to 2; s was at 3
    # already, so it and top stay where they are, and q (elsewhere) is not looked at.
    graph = nx.DiGraph([("p", "x"), ("s", "p"), ("s", "a"), ("a", "b"), ("b", "c"), ("top", "s")])
    graph.add_edge("q", "t")
    solved = SolvedGraph(graph)
    result = apply_edit(solved, Edit(add_edges=(("x", "t"),)))
    assert result.reordered == 2
    assert solved.height["x"] == 1 and solved.height["p"] == 2 and solved.height["s"] == 3
    assert_consistent(solved)


def test_removing_a_move_and_adding_its_reverse_is_not_a_cycle() -> None:
    solved = SolvedGraph(nx.DiGraph([("a", "b"), ("b", "c")]))
    apply_edit(solved, Edit(remove_edges=(("a", "b"),), add_edges=(("b", "a"),)))
    assert sorted(solved.graph.edges) == [("b", "a"), ("b", "c")]
    assert_consistent(solved)


def test_heights_are_longest_paths_to_a_terminal_state() -> None:
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c"), ("d", "c")])
    assert heights(graph) == {"c": 0, "b": 1, "a": 2, "d": 1}


# --- refused edits: message, and nothing changed ---------------------------------------------


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (Edit(add_edges=(("c", "a"),)), "the edit would create a cycle: 'a' -> 'b' -> 'c' -> 'a'"),
        (
            Edit(add_states=("x",), add_edges=(("c", "x"), ("x", "a"))),
            "the edit would create a cycle: 'a' -> 'b' -> 'c' -> 'x' -> 'a'",
        ),
        (Edit(add_edges=(("a", "a"),)), "self-loop 'a' -> 'a': a move must lead to another state"),
        (Edit(add_edges=(("a", "b"),)), "edge 'a' -> 'b' already exists"),
        (Edit(add_edges=(("a", "c"), ("a", "c"))), "the edit names the edge 'a' -> 'c' twice"),
        (Edit(add_states=("x", "x")), "the edit names the state 'x' twice"),
        (Edit(add_edges=(("a", "zz"),)), "no state 'zz' in the graph (add it in the same edit)"),
        (Edit(remove_edges=(("a", "c"),)), "no edge 'a' -> 'c' in the graph"),
        (Edit(remove_states=("zz",)), "no state 'zz' in the graph"),
        (Edit(add_states=("b",)), "state 'b' already exists"),
        (
            Edit(remove_states=("c",), add_edges=(("a", "c"),)),
            "edge 'a' -> 'c' uses state 'c', which the edit removes",
        ),
    ],
)
def test_a_refused_edit_says_why_and_changes_nothing(edit: Edit, message: str) -> None:
    solved = SolvedGraph(nx.DiGraph([("a", "b"), ("b", "c")]))
    before = copy.deepcopy(snapshot(solved))
    with pytest.raises((EditError, CyclicGraphError)) as refused:
        apply_edit(solved, edit)
    assert str(refused.value) == message
    assert snapshot(solved) == before


def test_an_edit_describes_itself_for_provenance() -> None:
    edit = Edit(add_states=("x",), add_edges=(("x", "a"),), remove_edges=(("a", "b"),))
    assert edit.describe() == "remove edge a -> b; add state x; add edge x -> a"
    assert not Edit()
