"""The theorems, as hypothesis properties over small positions of the registered games."""

from __future__ import annotations

import pytest
from hypothesis import given

from explorer import build_graph, explain, grundy_values, load_game, solve
from tests.support.environment import REPO
from tests.support.strategies import game_positions, sums


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    monkeypatch.chdir(REPO)  # the dag strategy names a file under data/


@given(sums())
def test_value_of_a_sum_is_the_xor_of_its_parts(parts):
    spec = " + ".join(s for s, _ in parts)
    text = " + ".join(p for _, p in parts)
    game = load_game(spec)
    expected = 0
    product_size = 1
    for s, p in parts:
        g = load_game(s)
        alone = solve(g, g.parse(p), method="graph")
        expected ^= alone.grundy
        product_size *= alone.states
    position = game.parse(text)
    assert solve(game, position, method="decompose").grundy == expected
    if product_size <= 30_000:  # the sum's graph is the product of the parts' graphs
        whole = solve(game, position, method="graph")
        assert whole.grundy == expected
        assert whole.states == product_size


@given(game_positions())
def test_mex_rule_holds_on_every_edge(case):
    spec, text = case
    game = load_game(spec)
    graph = build_graph(game, game.parse(text))
    values = grundy_values(graph)
    for node in graph:
        reached = {values[s] for s in graph.successors(node)}
        assert values[node] not in reached  # the two ends of every edge differ
        assert set(range(values[node])) <= reached  # every smaller value is reached


@given(game_positions())
def test_decomposed_equals_brute_force(case):
    spec, text = case
    game = load_game(spec)
    position = game.parse(text)
    graph = solve(game, position, method="graph")
    fast = solve(game, position, method="decompose")
    assert fast.outcome == graph.outcome
    if fast.method != "reduction":  # a reduction keeps the outcome only (see README)
        assert fast.grundy == graph.grundy
    assert sorted(fast.winning_moves) == sorted(graph.winning_moves)


@given(game_positions())
def test_remoteness_parity_matches_outcome(case):
    spec, text = case
    game = load_game(spec)
    result = solve(game, game.parse(text), method="graph")
    assert result.remoteness is not None
    assert (result.remoteness % 2 == 0) == (result.outcome == "P")


@given(game_positions())
def test_winning_moves_are_the_moves_to_p_positions(case):
    """By the definition: a position is N exactly when some move reaches a P-position, and the
    winning moves are those moves, each solved on its own."""
    spec, text = case
    game = load_game(spec)
    position = game.parse(text)
    result = solve(game, position)
    moves = {game.format(q) for q in game.successors(position)}
    to_p = {m for m in moves if solve(game, game.parse(m), method="graph").outcome == "P"}
    assert sorted(result.winning_moves) == sorted(to_p)
    assert result.outcome == ("N" if to_p else "P")


@given(game_positions())
def test_an_explanation_names_the_winning_moves_a_solve_finds(case):
    """Where an explanation lists the moves (not the parts of a sum), its winning moves are
    exactly the solver's."""
    spec, text = case
    game = load_game(spec)
    position = game.parse(text)
    explained = explain(game, position)
    if explained.successors:
        expected = solve(game, position, method="graph").winning_moves
        assert sorted(explained.winning_moves) == sorted(expected)
