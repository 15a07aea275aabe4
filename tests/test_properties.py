"""The theorems, as hypothesis properties over small positions of the registered games."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import build_graph, grundy_values, load_game, solve
from tests.strategies import game_positions, sums

PROFILE = settings(max_examples=60, deadline=None)


@PROFILE
@given(sums())
def test_value_of_a_sum_is_the_xor_of_its_parts(parts):
    spec = " + ".join(s for s, _ in parts)
    text = " + ".join(p for _, p in parts)
    game = load_game(spec)
    expected = 0
    for s, p in parts:
        g = load_game(s)
        expected ^= solve(g, g.parse(p), method="graph").grundy
    position = game.parse(text)
    assert solve(game, position, method="decompose").grundy == expected
    whole = solve(game, position, method="graph", max_states=50_000)
    assert whole.grundy == expected


@PROFILE
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


@PROFILE
@given(game_positions())
def test_decomposed_equals_brute_force(case):
    spec, text = case
    game = load_game(spec)
    position = game.parse(text)
    graph = solve(game, position, method="graph")
    fast = solve(game, position, method="decompose")
    assert (fast.grundy, fast.outcome) == (graph.grundy, graph.outcome)
    assert sorted(fast.winning_moves) == sorted(graph.winning_moves)


@PROFILE
@given(game_positions())
def test_remoteness_parity_matches_outcome(case):
    spec, text = case
    game = load_game(spec)
    result = solve(game, game.parse(text), method="graph")
    assert result.remoteness is not None
    assert (result.remoteness % 2 == 0) == (result.outcome == "P")


@PROFILE
@given(game_positions(), st.data())
def test_winning_moves_lead_to_p_positions(case, data):
    spec, text = case
    game = load_game(spec)
    result = solve(game, game.parse(text))
    for move in result.winning_moves:
        assert solve(game, game.parse(move)).outcome == "P"
    assert (result.outcome == "N") == bool(result.winning_moves)
