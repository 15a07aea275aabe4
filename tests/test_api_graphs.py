"""The Python API as a graph user calls it (issues 41 and 45): NetworkX graphs wherever a graph
position is taken, a spec text in every entry, and unknown method names refused."""

from __future__ import annotations

import networkx as nx
import pytest

import explorer
from explorer.errors import ArgumentTypeError, PositionError, UsageError
from tests.support.cli import run_json


def test_a_networkx_path_is_a_node_kayles_position() -> None:
    assert explorer.solve("nodekayles", nx.path_graph(5)).grundy == 3
    assert explorer.grundy_value("nodekayles", nx.path_graph(5)) == 3


def test_a_grid_with_tuple_nodes_has_the_value_of_its_named_graph() -> None:
    for game in ("nodekayles", "arckayles"):
        drawn = explorer.solve(game, nx.grid_2d_graph(3, 4))
        named = explorer.solve(game, "3x4")
        assert (drawn.grundy, len(drawn.winning_moves)) == (named.grundy, len(named.winning_moves))
    moves = explorer.solve("arckayles", nx.grid_2d_graph(2, 3)).winning_moves
    assert all("_" in move for move in moves)  # the tuple (0, 1) is the vertex 0_1


def test_any_hashable_nodes_are_taken() -> None:
    graph = nx.Graph([(frozenset({1}), "b c"), ("b c", 2.5)])  # no plain names: numbered
    assert explorer.solve("nodekayles", graph).position == "0-1,1-2"
    assert explorer.explain("nodekayles", nx.star_graph(3)).grundy == 1


def test_a_users_graph_game_takes_networkx_graphs() -> None:
    @explorer.graph_game
    def nk(graph: nx.Graph) -> list[nx.Graph]:
        return [graph.subgraph(set(graph) - {v, *graph[v]}) for v in graph]

    assert explorer.solve(nk, nx.path_graph(5)).grundy == 3
    assert explorer.grundy_value(nk, nx.cycle_graph(["a", "b", "c", "d"])) == 0


def test_a_hackenbush_multigraph_with_its_ground_is_a_position() -> None:
    flower = nx.MultiGraph([("g", "a"), ("g", "a"), ("a", "b"), ("b", "b")])
    assert explorer.solve("hackenbush", flower).position == "a-b,a-g,a-g,b-b"
    assert explorer.solve("hackenbush", flower).grundy == explorer.grundy_value(
        "hackenbush", "g-a,g-a,a-b,b-b"
    )
    stalk = nx.Graph([("g", (0, 1)), ((0, 1), (0, 2))])
    assert explorer.solve("hackenbush", stalk).position == "0_1-0_2,0_1-g"
    with pytest.raises(PositionError, match="needs the ground, a node 'g'"):
        explorer.solve("hackenbush", nx.path_graph(3))


def test_two_users_graph_games_keep_their_own_part_values() -> None:
    @explorer.graph_game
    def takes_a_vertex(graph: nx.Graph) -> list[nx.Graph]:
        return [graph.subgraph(set(graph) - {v, *graph[v]}) for v in graph]

    @explorer.graph_game
    def takes_an_edge(graph: nx.Graph) -> list[nx.Graph]:
        return [graph.subgraph(set(graph) - {u, v}) for u, v in graph.edges]

    # once both filed under the family "py": the second read the first's value of P4
    assert explorer.solve(takes_a_vertex, "P4", method="decompose").grundy == 0
    assert explorer.solve(takes_an_edge, "P4", method="decompose").grundy == 2
    assert explorer.solve("arckayles", "P4").grundy == 2


def test_graphs_a_game_cannot_take_are_refused() -> None:
    with pytest.raises(ArgumentTypeError, match="nim is not played on a graph"):
        explorer.solve("nim", nx.path_graph(3))
    with pytest.raises(PositionError, match="is a directed graph"):
        explorer.solve("nodekayles", nx.DiGraph([(0, 1)]))
    with pytest.raises(PositionError, match="has the loop 0-0"):
        explorer.solve("nodekayles", nx.Graph([(0, 0)]))
    with pytest.raises(PositionError, match="1,001 vertices, over 1,000"):
        explorer.solve("nodekayles", nx.empty_graph(1001))


def test_the_genus_sequence_takes_a_spec_text() -> None:
    by_text = explorer.genus_sequence("kayles", 8)
    by_game = explorer.genus_sequence(explorer.load_game("kayles"), 8)
    assert [g.text() for g in by_text.genera] == [g.text() for g in by_game.genera]
    shown = run_json("sequence", "kayles", "--genus", "--upto", "8")["genus"]
    assert [(g["normal"], tuple(g["misere"])) for g in shown] == [
        (g.normal, g.misere) for g in by_text.genera
    ]


@pytest.mark.parametrize("entry", [explorer.solve, explorer.explain])
def test_unknown_method_names_are_refused(entry: object) -> None:
    with pytest.raises(UsageError, match=r"unknown method 'bogus' \(expected one of 'auto'"):
        entry("nim", "3,4", method="bogus")  # type: ignore[operator]
    with pytest.raises(UsageError, match="unknown method 'decompose'"):
        explorer.explain("nim", "3,4", method="decompose")  # type: ignore[arg-type]
