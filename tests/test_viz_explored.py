"""A cut drawing of a big game explores only what it draws: the states nearest the start, each
valued alone (parts, sequences), never the whole game graph; and every move goes down."""

from __future__ import annotations

import pytest

from explorer import draw_game, load_game
from explorer.errors import GraphTooLargeError
from explorer.viz.graphs import WHOLE_GRAPH_STATES, cut, explored_graph, solved_graph
from tests.support.bruteforce import mex
from tests.support.heap_rules import octal
from tests.support.pages import page_data


@pytest.mark.parametrize(("spec", "start", "budget"), [("kayles", "16", 30), ("nim", "4,4,4", 25)])
def test_explored_drawing_is_the_cut_of_the_whole_graph(spec, start, budget):
    game = load_game(spec)
    position = game.parse(start)
    whole = cut(solved_graph(game, position), position, budget=budget, label=game.format)
    explored = explored_graph(game, position, budget)
    assert set(explored) == set(whole) and set(explored.edges) == set(whole.edges)
    for node, attrs in explored.nodes.items():
        for key in ("grundy", "outcome", "moves", "depth"):
            assert attrs[key] == whole.nodes[node][key], (node, key)
        assert attrs["remoteness"] is None  # not computed: that needs the whole graph
    assert explored.graph["cut"] and whole.graph["cut"]


def test_explored_values_are_the_definitions():
    """Kayles from 60: far too big to build whole; each drawn value is the XOR of its heaps'
    values, each heap's by the mex rule over the rules written again in the tests."""
    moves = octal("0.77")
    heap: list[int] = []
    for n in range(61):
        heap.append(mex({_xor(heap[h] for h in result) for result in moves(n)}))
    kayles = load_game("kayles")
    graph = explored_graph(kayles, (60,), 120)
    assert graph.number_of_nodes() == 120
    for node, attrs in graph.nodes.items():
        assert attrs["grundy"] == _xor(heap[h] for h in kayles.parse(node))


def _xor(values) -> int:
    total = 0
    for v in values:
        total ^= v
    return total


def test_big_cut_pictures_never_build_the_whole_graph():
    # the whole graph of nim 30,30,30,30 has 46,376 states: over this guard, yet drawn
    nim = load_game("nim")
    with pytest.raises(GraphTooLargeError):
        solved_graph(nim, nim.parse("30,30,30,30"), max_states=10_000)
    assert WHOLE_GRAPH_STATES < 10_000
    page = draw_game("nim", "30,30,30,30", max_states=10_000)
    assert page.cut and page.nodes == 50 and page.states == 46_376
    page = draw_game("kayles", 400)  # about 10^18 states
    assert page.cut and page.nodes == 50 and "more than" in page.note


@pytest.mark.parametrize(
    ("spec", "start", "budget"),
    [("kayles", "60", 50), ("nim", "30,30,30,30", 50), ("nim", "3,4,5", 12), ("kayles", "9", 40)],
)
def test_every_move_of_a_cut_picture_goes_down(spec, start, budget):
    page = draw_game(spec, start, budget=budget)
    nodes, edges = page_data(page.html)
    y = {n["id"]: n["y"] for n in nodes}
    assert edges and all(y[e["to"]] > y[e["from"]] for e in edges)
    assert "every move goes down" in page.drawing.lines[0]
