"""Node-Kayles, Arc-Kayles, Cram and Green Hackenbush against brute forces written here from
the rules (whole position graphs, no splitting, no canonical labels), and their sequences
against the octal games they equal."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import load_game, solve
from explorer.analysis.parts import PartTable, part_value
from explorer.analysis.sequences import value_sequence
from explorer.analysis.solving import grundy_value
from explorer.errors import PositionError, SpecError
from explorer.games.convention import Convention
from tests.support.bruteforce import mex_values, misere_values
from tests.support.cli import run_json
from tests.support.strategies import fraction_of_examples

# ---- brute forces from the definitions -------------------------------------------------


def node_kayles_brute(graph: nx.Graph) -> int:
    """A move removes a vertex and its neighbours; a state is the set of vertices left."""

    def moves(left):
        return [left - {v} - set(graph[v]) for v in left]

    start = frozenset(graph)
    return mex_values(start, lambda s: [frozenset(m) for m in moves(s)])[start]


def arc_kayles_brute(graph: nx.Graph) -> int:
    """A move removes both ends of an edge whose ends are both left."""

    def moves(left):
        return [left - {u, v} for u, v in graph.edges if u in left and v in left]

    start = frozenset(graph)
    return mex_values(start, moves)[start]


def cram_brute(rows: list[str]) -> int:
    """A move fills two empty cells side by side; a state is the set of empty cells."""
    start = frozenset(
        (r, c) for r, line in enumerate(rows) for c, cell in enumerate(line) if cell == "."
    )

    def moves(empty):
        return [
            empty - {(r, c), (r + dr, c + dc)}
            for r, c in empty
            for dr, dc in ((0, 1), (1, 0))
            if (r + dr, c + dc) in empty
        ]

    return mex_values(start, moves)[start]


def hackenbush_brute(edges: list[tuple[str, str]]) -> int:
    """A move deletes one edge (by its number); edges that no longer reach 'g' fall."""

    def standing(ids):
        reached, todo = {"g"}, ["g"]
        while todo:
            v = todo.pop()
            for k in ids:
                a, b = edges[k]
                for x, y in ((a, b), (b, a)):
                    if x == v and y not in reached:
                        reached.add(y)
                        todo.append(y)
        return frozenset(k for k in ids if edges[k][0] in reached)

    start = standing(frozenset(range(len(edges))))
    return mex_values(start, lambda ids: [standing(ids - {k}) for k in ids])[start]


def edge_text(graph: nx.Graph) -> str:
    items = [f"{u}-{v}" for u, v in graph.edges] + [str(v) for v in graph if not graph[v]]
    return ",".join(items) or "-"


# ---- named graphs and random graphs ------------------------------------------------------

NAMED = {
    "P1": nx.path_graph(1),
    "P6": nx.path_graph(6),
    "C7": nx.cycle_graph(7),
    "K5": nx.complete_graph(5),
    "K3_4": nx.complete_bipartite_graph(3, 4),
    "S5": nx.star_graph(5),
    "W6": nx.wheel_graph(7),
    "3x4": nx.grid_2d_graph(3, 4),
    "P3+C4": nx.disjoint_union(nx.path_graph(3), nx.cycle_graph(4)),
}


@pytest.mark.parametrize("text", list(NAMED))
def test_named_graphs_match_the_brute_force(text):
    graph = NAMED[text]
    nodes = load_game("nodekayles")
    arcs = load_game("arckayles")
    position = nodes.parse(text)
    assert position.names and len(position.names) == graph.number_of_nodes()
    assert sum(bin(m).count("1") for m in position.adjacency) == 2 * graph.number_of_edges()
    assert grundy_value(nodes, position) == node_kayles_brute(graph)
    assert grundy_value(arcs, arcs.parse(text)) == arc_kayles_brute(graph)


@st.composite
def random_graphs(draw, most=12):
    n = draw(st.integers(1, most))
    pairs = list(itertools.combinations(range(n), 2))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=2 * n)) if pairs else []
    graph = nx.Graph()
    graph.add_nodes_from(f"v{i}" for i in range(n))
    graph.add_edges_from((f"v{a}", f"v{b}") for a, b in chosen)
    return graph


@settings(max_examples=fraction_of_examples(1), deadline=None)
@given(random_graphs())
def test_random_graphs_match_the_brute_force(graph):
    text = edge_text(graph)
    for family, brute in (("nodekayles", node_kayles_brute), ("arckayles", arc_kayles_brute)):
        game = load_game(family)
        position = game.parse(text)
        assert game.parse(game.format(position)) == position
        value = brute(graph)
        assert grundy_value(game, position) == value
        # winning moves are exactly the moves to P-positions of the brute force
        solution = solve(game, position, method="decompose")
        for move in solution.winning_moves:
            left = set(game.parse(move).names)
            assert brute(graph.subgraph(left)) == 0


def test_isomorphic_parts_share_one_label_and_one_value():
    game = load_game("nodekayles")
    table = PartTable()
    a = game.parse("a-b,b-c,c-d,d-a,a-e")
    b = game.parse("1-2,2-3,3-4,4-1,3-7")
    assert game.part_label(a) == game.part_label(b)
    assert game.part_label(a) != game.part_label(game.parse("C5"))
    part_value(game, a, table)
    computed = table.computed
    assert part_value(game, b, table) == part_value(game, a, table)
    assert table.computed == computed  # b was valued by a's label


# ---- Cram ----------------------------------------------------------------------------------


@st.composite
def boards(draw):
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    cells = draw(st.lists(st.booleans(), min_size=rows * cols, max_size=rows * cols))
    return ["".join("#" if cells[r * cols + c] else "." for c in range(cols)) for r in range(rows)]


@settings(max_examples=fraction_of_examples(2), deadline=None)
@given(boards())
def test_cram_boards_match_the_brute_force(rows):
    game = load_game("cram")
    text = "/".join(rows)
    position = game.parse(text)
    assert game.format(position) == text
    assert grundy_value(game, position) == cram_brute(rows)


@pytest.mark.parametrize(("size", "value"), [("4x4", 0), ("2x5", cram_brute(["." * 5] * 2))])
def test_cram_full_boards(size, value):
    game = load_game("cram")
    assert grundy_value(game, game.parse(size)) == value


def test_even_by_even_cram_is_a_p_position():
    # the second player answers every domino with its image through the centre
    game = load_game("cram")
    assert grundy_value(game, game.parse("4x6")) == 0


# ---- Hackenbush ------------------------------------------------------------------------------


@st.composite
def grounded_multigraphs(draw):
    names = ["g", "a", "b", "c", "d", "e"]
    edges = draw(
        st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)), min_size=1, max_size=9)
    )
    return [e for e in edges] + [("g", draw(st.sampled_from(names)))]


@settings(max_examples=fraction_of_examples(2), deadline=None)
@given(grounded_multigraphs())
def test_hackenbush_matches_the_brute_force(edges):
    game = load_game("hackenbush")
    position = game.parse(",".join(f"{u}-{v}" for u, v in edges))
    assert game.parse(game.format(position)) == position
    assert grundy_value(game, position) == hackenbush_brute(edges)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("g-a,a-b,b-c", 3),  # a stalk of three is *3
        ("g-a,a-b,a-c", 1),  # colon principle: 1 : (1 + 1) = 1 : 0 = 1
        ("g-a,a-b,a-c,c-d", 4),  # 1 : (1 + 2) = 1 : 3, a stalk of 1 + 3
        ("g-a,a-b,b-g", 1),  # a triangle on the ground fuses to one loop
        ("g-a,a-a,a-a", 1),  # a stalk under two loops: 1 : (1 + 1) = 1
        ("g-g,g-g,g-g", 1),
        ("a-b,b-c", 0),  # nothing meets the ground: it all falls
    ],
)
def test_hackenbush_known_values(text, value):
    game = load_game("hackenbush")
    if "g" not in text:
        with pytest.raises(PositionError, match="no edge meets the ground"):
            game.parse(text)
        return
    assert grundy_value(game, game.parse(text)) == value


# ---- sequences, sums, text ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("spec", "octal"), [("nodekayles:P", "0.137"), ("arckayles:P", "0.07")])
def test_path_sequences_are_dawsons(spec, octal):
    graphs = value_sequence(load_game(spec), 300).values.tolist()
    heaps = value_sequence(load_game(f"octal:{octal}"), 300).values.tolist()
    assert graphs == heaps


@pytest.mark.parametrize(
    ("spec", "start"),
    [
        # Dawson's chess (0.137) and Dawson's Kayles (0.07), as published
        ("nodekayles:P", [0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3, 3]),
        ("arckayles:P", [0, 0, 1, 1, 2, 0, 3, 1, 1, 0, 3, 3, 2, 2, 4, 0, 5, 2, 2, 3]),
    ],
)
def test_path_sequences_start_as_published(spec, start):
    assert value_sequence(load_game(spec), len(start) - 1).values.tolist() == start


@pytest.mark.parametrize(
    ("spec", "family", "brute"),
    [
        ("nodekayles:C", "C", node_kayles_brute),
        ("arckayles:S", "S", arc_kayles_brute),
        ("arckayles:W", "W", arc_kayles_brute),
    ],
)
def test_other_sequence_forms(spec, family, brute):
    makers = {"C": nx.cycle_graph, "S": nx.star_graph, "W": lambda n: nx.wheel_graph(n + 1)}
    values = value_sequence(load_game(spec), 9).values.tolist()
    assert values[1:] == [brute(makers[family](n)) for n in range(1, 10)]


def test_cram_rows_sequence():
    values = value_sequence(load_game("cram:2"), 6).values.tolist()
    assert values == [cram_brute(["." * n] * 2) if n else 0 for n in range(7)]


def test_sums_with_other_families_split_graph_text_at_plus():
    game = load_game("nodekayles + nim")
    position = game.parse("P3+C4 + 3")
    assert game.format(position) == "0-1,1-2,3-4,3-6,4-5,5-6 + 3"
    graph = nx.disjoint_union(nx.path_graph(3), nx.cycle_graph(4))
    assert grundy_value(game, position) == node_kayles_brute(graph) ^ 3


@pytest.mark.parametrize(
    ("spec", "text", "message"),
    [
        ("nodekayles", "a-b-c", "'a-b-c' is not a vertex or an edge u-v"),
        ("nodekayles", "a-a", "loop a-a"),
        ("nodekayles", "a-b,b-a", "edge b-a twice"),
        ("nodekayles", "P5000", "has 5,000 vertices, over 1,000"),
        ("cram", "..#/.", "rows of equal length"),
        ("cram", "3y3", "expected RxC for an empty board"),
        ("hackenbush", "g-a,b", "lone vertex 'b'"),
    ],
)
def test_bad_positions_get_one_clear_error(spec, text, message):
    with pytest.raises(PositionError) as error:
        load_game(spec).parse(text)
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("spec", "message"),
    [("nodekayles:Q", "bad sequence form 'Q'"), ("cram:0", "bad rows '0' for cram")],
)
def test_bad_specs(spec, message):
    with pytest.raises(SpecError, match=message):
        load_game(spec)


@settings(max_examples=fraction_of_examples(0.5), deadline=None)
@given(random_graphs(8), boards(), grounded_multigraphs())
def test_every_move_lowers_the_tier(graph, rows, edges):
    texts = [
        ("nodekayles", edge_text(graph)),
        ("arckayles", edge_text(graph)),
        ("cram", "/".join(rows)),
        ("hackenbush", ",".join(f"{u}-{v}" for u, v in edges)),
    ]
    for spec, text in texts:
        game = load_game(spec)
        position = game.parse(text)
        tier = game.tier(position)
        assert isinstance(tier, int)
        assert all(game.tier(move) < tier for move in game.successors(position))


GRAPH_GAME_FILE = """
import explorer


@explorer.graph_game
def node_kayles(graph):
    return [graph.subgraph(set(graph) - {v, *graph[v]}) for v in graph]
"""


@pytest.mark.parametrize("text", ["P7+C5", "3x4", "K3_4+a-b"])
def test_a_graph_game_from_a_file_is_node_kayles_again(tmp_path, monkeypatch, text):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules.py").write_text(GRAPH_GAME_FILE, encoding="utf-8")
    mine = run_json("solve", "py:rules.py", text, "--method", "decompose")
    assert mine["game"].startswith("py:rules.py:node_kayles@")
    assert mine["grundy"] == grundy_value(
        load_game("nodekayles"), load_game("nodekayles").parse(text)
    )
    graph = nx.Graph()
    game = load_game("nodekayles")
    position = game.parse(text)
    graph.add_nodes_from(position.names)
    graph.add_edges_from((position.names[i], position.names[j]) for i, j in position.edges())
    assert mine["grundy"] == node_kayles_brute(graph)


@settings(max_examples=fraction_of_examples(1), deadline=None)
@given(random_graphs(most=9))
def test_misere_outcomes_are_the_brute_forces_and_say_how_they_are_found(graph):
    game = load_game("nodekayles")
    position = game.parse(edge_text(graph))
    start = frozenset(graph)
    brute = misere_values(start, lambda s: [s - {v} - set(graph[v]) for v in s])[start]
    solution = solve(game, position, convention=Convention.MISERE)
    assert (solution.outcome, solution.remoteness) == brute
    assert "not from the XOR" in solution.note and "whole game graph" in solution.note
