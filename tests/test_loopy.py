"""Games with cycles: γ against its definition (conditions A, B, C of LOOPY.md) on random digraphs,
outcomes against an independent retrograde analysis, sums against the product graph, the counter
strategy, WindUp's published values, `graph:` files, and the CLI's JSON contract.
"""

from __future__ import annotations

import json
import random

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import load_game, solve
from explorer.analysis.solving import explain
from explorer.cli import main
from explorer.errors import CyclicGraphError, GameFileError, SpecError
from explorer.solver import grundy_values
from explorer.solver.loopy import (
    Infinite,
    NoAnswerError,
    counter_answer,
    label_vertices,
    labels_and_remoteness,
    nim_sum,
    outcome_of,
    retrograde,
    solve_loopy,
)
from tests.support.bruteforce import check_loopy_definition, plain_retrograde
from tests.support.environment import REPO
from tests.support.strategies import fraction_of_examples


# ----------------------------------------------------------------------------- independent checks
def product(succ_a, succ_b):
    """The sum as a product digraph: vertex a * len(b) + b, a move moves one component."""
    nb = len(succ_b)
    result = []
    for a in range(len(succ_a)):
        for b in range(nb):
            result.append([x * nb + b for x in succ_a[a]] + [a * nb + y for y in succ_b[b]])
    return result


@st.composite
def digraphs(draw, max_vertices=12):
    """Random digraphs with self-loops and repeated edges: successor lists of vertices 0..n-1."""
    n = draw(st.integers(1, max_vertices))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    succ = [[] for _ in range(n)]
    for u, v in edges:
        succ[u].append(v)
    return succ


# ----------------------------------------------------------------------------- definition
@pytest.mark.slow  # hypothesis: many graphs
@settings(max_examples=fraction_of_examples(20))
@given(digraphs())
def test_values_satisfy_the_definition_and_outcomes_match_retrograde(succ):
    labels = label_vertices(succ)
    check_loopy_definition(succ, labels.values, labels.counters)
    assert [outcome_of(v) for v in labels.values] == plain_retrograde(succ)


@pytest.mark.slow  # hypothesis: many product graphs
@settings(max_examples=fraction_of_examples(8))
@given(digraphs(max_vertices=5), digraphs(max_vertices=5))
def test_sums_equal_the_product_graph(succ_a, succ_b):
    a = label_vertices(succ_a).values
    b = label_vertices(succ_b).values
    whole = label_vertices(product(succ_a, succ_b))
    check_loopy_definition(product(succ_a, succ_b), whole.values, whole.counters)
    nb = len(succ_b)
    for x in range(len(succ_a)):
        for y in range(nb):
            assert whole.values[x * nb + y] == nim_sum(a[x], b[y]), (x, y)


def test_a_seeded_sweep_of_random_graphs_and_sums():
    """Deterministic counts for the report: 3,000 graphs (up to 12 vertices, self-loops
    allowed) by definition and retrograde; 600 two-component sums against their product."""
    rng = random.Random(14)
    positions = infinite = 0
    for _ in range(3000):
        n = rng.randint(1, 12)
        succ = [[rng.randrange(n) for _ in range(rng.randint(0, 4))] for _ in range(n)]
        labels = label_vertices(succ)
        check_loopy_definition(succ, labels.values, labels.counters)
        assert [outcome_of(v) for v in labels.values] == plain_retrograde(succ)
        positions += n
        infinite += sum(isinstance(v, Infinite) for v in labels.values)
    sums = 0
    for _ in range(600):
        parts = []
        for _ in range(2):
            n = rng.randint(1, 5)
            parts.append([[rng.randrange(n) for _ in range(rng.randint(0, 3))] for _ in range(n)])
        whole = label_vertices(product(*parts)).values
        a, b = (label_vertices(p).values for p in parts)
        assert whole == [nim_sum(x, y) for x in a for y in b]
        sums += len(whole)
    assert positions > 15_000 and infinite > 3_000 and sums > 5_000


@pytest.mark.slow  # hypothesis: many graphs
@settings(max_examples=fraction_of_examples(12))
@given(st.integers(1, 12), st.randoms(use_true_random=False))
def test_on_acyclic_graphs_the_values_are_the_ordinary_ones(n, rng):
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from((u, v) for u in range(n) for v in range(u) if rng.random() < 0.4)
    succ = [list(graph.successors(u)) for u in range(n)]
    assert label_vertices(succ).values == [grundy_values(graph)[u] for u in range(n)]


def test_a_vertex_on_a_cycle_can_be_finite():
    # LOOPY.md §9: 0 -> 1, 0 -> 2, 1 -> 0 gives [1, 0, 0]; "on a cycle => infinite" is wrong
    assert label_vertices([[1, 2], [0], []]).values == [1, 0, 0]
    assert label_vertices([[0]]).values == [Infinite()]
    assert label_vertices([[0, 1], []]).values == [Infinite(frozenset({0})), 0]


# ----------------------------------------------------------------------------- playing
def three_vertex_game():
    """a -> b, b -> a, b -> t: a is P (counter 1), b is 1, t is 0 (counter 0)."""
    return nx.DiGraph([("a", "b"), ("b", "a"), ("b", "t")])


def test_ignoring_the_counter_turns_a_win_into_a_draw_and_the_solver_wins():
    graph = three_vertex_game()
    solution = solve_loopy(graph)
    assert solution.values == {"a": 0, "b": 1, "t": 0}
    assert solution.outcomes["a"] == "P"  # whoever moves from a loses: we, who just moved, win

    def play(answer, rounds=50):
        """The opponent moves from a (only to b); we answer. Returns the moves made, or None
        when the play repeats a position with the same player to move: it goes on forever."""
        position, seen, moves = "a", set(), 0
        while True:
            if position in seen:
                return None
            seen.add(position)
            options = list(graph.successors(position))
            if not options:
                return moves  # the opponent cannot move: we won
            moved = options[0]  # the opponent's only move
            position = answer(position, moved)
            moves += 2
            assert moves < rounds

    def any_zero(left, moved):  # a value-0 follower, ignoring the counter: here a, first listed
        return next(w for w in graph.successors(moved) if solution.values[w] == 0)

    assert any_zero("a", "b") == "a"
    assert play(any_zero) is None  # a -> b -> a -> b ...: the won game is drawn
    assert play(lambda left, moved: counter_answer(graph, solution, left, moved)) == 2
    with pytest.raises(NoAnswerError):
        counter_answer(graph, solution, "b", "a")  # b is not a P-position


@pytest.mark.slow  # hypothesis: many graphs
@settings(max_examples=fraction_of_examples(20))
@given(digraphs())
def test_the_solvers_moves_win_and_draw(succ):
    """From P every opponent move has an answer of value 0 with a smaller counter (so play ends,
    with us winning); from N a move to 0 exists; from D no move reaches P and one keeps D."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(succ)))
    graph.add_edges_from((u, v) for u, s in enumerate(succ) for v in s)
    solution = solve_loopy(graph)
    values = solution.values
    for u in graph:
        outcome = solution.outcomes[u]
        followers = list(graph.successors(u))
        if outcome == "P":
            for v in followers:
                w = counter_answer(graph, solution, u, v)
                assert values[w] == 0 and solution.counters[w] < solution.counters[u]
        elif outcome == "N":
            assert any(values[v] == 0 for v in followers)
            assert solution.remoteness[u] is not None and solution.remoteness[u] % 2 == 1
        else:
            assert not any(values[v] == 0 for v in followers)
            assert any(solution.outcomes[v] == "D" for v in followers)
            assert solution.remoteness[u] is None


# ----------------------------------------------------------------------------- games
def test_windup_has_its_published_values():
    game = load_game("windup:5:1,3")
    values = [solve(game, p).value for p in range(5)]
    assert values == ["0", "∞(0)", "∞(0)", "∞(0)", "0"]
    assert [solve(game, p).outcome for p in range(5)] == ["P", "N", "N", "N", "P"]
    assert solve(game, 2).winning_moves == ["4"]


def test_windup_is_listed_with_an_example():
    result = CliRunner().invoke(main, ["games", "--json"])
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["windup"]["example"] == "windup:5:1,3 2"
    assert rows["graph"]["example"] == "graph:data/loopy.json f"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("windup:5", "bad windup parameters '5' (expected N:S, a modulus and moves 1 <= s < N, "
         "e.g. windup:5:1,3)"),
        ("windup:5:0", "bad windup parameters '5:0' (expected N:S, a modulus and moves "
         "1 <= s < N, e.g. windup:5:1,3)"),
        ("windup:5:5", "bad windup parameters '5:5' (expected N:S, a modulus and moves "
         "1 <= s < N, e.g. windup:5:1,3)"),
        ("windup:99999999999:1", "windup modulus '99999999999' is too large (at most 10,000,000)"),
        ("graph", "graph needs a graph file, e.g. graph:data/loopy.json"),
    ],
)  # fmt: skip
def test_bad_specs(spec, message):
    with pytest.raises(SpecError) as error:
        load_game(spec)
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", spec, "1"])
    assert (result.exit_code, result.stderr) == (1, f"Error: {message}\n")


def test_windup_positions_are_checked():
    result = CliRunner().invoke(main, ["solve", "windup:5:1,3", "5"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: bad position '5' for windup:5:1,3 (expected a number 0..4)\n",
    )


def test_graph_files_may_have_cycles_and_loops_and_dag_refuses_them(tmp_path, monkeypatch):
    path = tmp_path / "g.edges"
    path.write_text("a b\nb a\nb t\nc c\nc t\ne c\n")
    with pytest.raises(GameFileError) as error:
        load_game(f"dag:{path}")
    assert (
        f"self-loop on vertex 'c' (a DAG move must change the position; play it as graph:{path}"
        in str(error.value)
    )
    cyclic = tmp_path / "cyclic.edges"
    cyclic.write_text("a b\nb a\n")
    with pytest.raises(CyclicGraphError) as error:
        load_game(f"dag:{cyclic}")
    assert f"(play it as graph:{cyclic}, which allows cycles)" in str(error.value)
    assert solve(load_game(f"graph:{cyclic}"), "a").outcome == "D"
    game = load_game(f"graph:{path}")
    expected = {"a": "0", "b": "1", "t": "0", "c": "∞(0)", "e": "0"}
    assert {v: solve(game, v).value for v in expected} == expected
    assert {v: solve(game, v).outcome for v in expected} == {
        "a": "P", "b": "N", "t": "P", "c": "N", "e": "P"
    }  # fmt: skip
    monkeypatch.chdir(REPO)
    game = load_game("graph:data/loopy.json")
    drawn = solve(game, "f")
    assert (drawn.value, drawn.outcome, drawn.drawing_moves, drawn.remoteness) == (
        "∞",
        "D",
        ["c"],
        None,
    )


def test_explain_shows_the_labelling_stage():
    game = load_game("windup:5:1,3")
    zero = explain(game, 4)
    assert (zero.method, zero.value, zero.stage) == ("labelling", "0", 0)
    assert zero.successors == [("3", "∞(0)"), ("1", "∞(0)")]
    infinite = explain(game, 1)
    assert (infinite.value, infinite.stage, infinite.counter) == ("∞(0)", 1, None)
    assert "labelled infinite at stage 1" in infinite.reason()
    result = CliRunner().invoke(main, ["explain", "windup:5:1,3", "3", "--json"])
    data = json.loads(result.stdout)
    assert (data["grundy"], data["infinite"], data["escapes"], data["stage"]) == (
        None,
        True,
        [0],
        1,
    )


# ----------------------------------------------------------------------------- sums
SUMS = [
    ("windup:5:1,3 + nim", [f"{w} + {h}" for w in range(5) for h in range(5)]),
    ("windup:5:1,3 + windup:7:2,3", [f"{w} + {v}" for w in range(5) for v in range(7)]),
    (
        "nim + windup:5:1,3 + subtraction:1,2",
        [f"{h} + {w} + 3" for h in range(4) for w in range(5)],
    ),
]


@pytest.mark.parametrize(("spec", "positions"), SUMS, ids=[s for s, _ in SUMS])
def test_sums_from_parts_equal_the_whole_graph(spec, positions):
    """Decomposed (generalized nim-sum) against the product graph labelled whole."""
    game = load_game(spec)
    outcomes = set()
    for text in positions:
        position = game.parse(text)
        whole = solve(game, position, method="graph")
        parts = solve(game, position, method="decompose")
        assert parts.method == "decomposition"
        for field in ("grundy", "infinite", "escapes", "outcome"):
            assert getattr(parts, field) == getattr(whole, field), (text, field)
        assert sorted(parts.winning_moves) == sorted(whole.winning_moves), text
        assert sorted(parts.drawing_moves) == sorted(whole.drawing_moves), text
        outcomes.add(whole.outcome)
    assert outcomes == {"P", "N", "D"}


def test_two_n_components_make_a_draw():
    game = load_game("windup:5:1,3 + windup:5:1,3")
    result = solve(game, game.parse("1 + 1"), method="decompose")
    assert (result.value, result.outcome) == ("∞", "D")


def test_json_contract_of_an_infinite_value():
    result = CliRunner().invoke(main, ["solve", "windup:5:1,3 + nim", "2 + 1", "--json"])
    data = json.loads(result.stdout)
    assert {k: data[k] for k in ("grundy", "infinite", "escapes", "outcome", "convention")} == {
        "grundy": None,
        "infinite": True,
        "escapes": [1],
        "outcome": "D",
        "convention": "normal",
    }
    result = CliRunner().invoke(main, ["solve", "windup:5:1,3 + nim", "2 + 1"])
    assert "grundy      ∞(1)\n" in result.stdout
    assert "outcome     D (a draw: neither player can force a win)\n" in result.stdout


def test_tables_and_sequences_refuse_infinite_values(tmp_path):
    from explorer.analysis.solving import finite_value

    game = load_game("windup:5:1,3")
    with pytest.raises(SpecError) as error:
        finite_value(game, 2)
    assert str(error.value) == (
        "position '2' of windup:5:1,3 has the infinite value ∞(0) (tables and sequences hold "
        "finite values; use explorer solve)"
    )


@settings(max_examples=fraction_of_examples(12))
@given(digraphs())
def test_labels_and_remoteness_in_one_pass_equal_the_two_passes(succ):
    labels, far = labels_and_remoteness(succ)
    assert labels == label_vertices(succ) and far == retrograde(succ)[1]
