"""Pictures of games with cycles and of misère play: draws (D) and infinite values (∞) have their
own colour and legend entry, from memory and from SQLite and PostgreSQL; misère pages colour
states by their misère outcome."""

from __future__ import annotations

from click.testing import CliRunner

from explorer import open_database
from explorer.cli import main
from explorer.games import load_game
from explorer.games.convention import MISERE
from explorer.games.loopy import GraphGame
from explorer.generation.graph import build_graph
from explorer.solver.misere import misere_outcomes
from explorer.viz import draw_game, draw_stored
from explorer.viz.page import GROUPS
from explorer.viz.palette import DRAW_COLOUR, INFINITE_COLOUR, MISERE_N_COLOUR, P_COLOUR
from tests.support.environment import DATA
from tests.support.pages import page_data


def legend_texts(page) -> list[str]:
    return [item.text for item in page.drawing.legend]


def test_windup_page_colours_infinite_values_and_p_positions():
    game = load_game("windup:5:1,3")
    page = draw_game(game, 2)
    nodes, edges = page_data(page.html)
    by_position = {n["position"]: n for n in nodes}
    assert {p: n["group"] for p, n in by_position.items()} == {
        "0": "P",
        "1": "infinite",
        "2": "infinite",
        "3": "infinite",
        "4": "P",
    }
    assert by_position["2"]["label"] == "2\nG ∞(0)"
    assert GROUPS["infinite"]["color"]["background"] == INFINITE_COLOUR
    assert "N-position of infinite value ∞(K), 0 in K" in legend_texts(page)
    assert "D-position, ∞(K) with 0 not in K: a draw" not in legend_texts(page)
    # winning moves are the moves into P-positions (2 -> 4 and 1 -> 0, 3 -> 0)
    thick = {
        (nodes[e["from"]]["position"], nodes[e["to"]]["position"]) for e in edges if "width" in e
    }
    assert thick == {("2", "4"), ("1", "0"), ("3", "0")}
    assert "the graph has cycles: some moves go up" in page.drawing.lines[0]


def test_a_draw_has_its_own_colour_and_legend_entry():
    page = draw_game(GraphGame(str(DATA / "loopy.json")), "f")
    nodes, _ = page_data(page.html)
    groups = {n["position"]: n["group"] for n in nodes}
    assert groups == {"f": "D", "c": "D", "d": "infinite", "t": "P"}
    assert GROUPS["D"]["color"]["background"] == DRAW_COLOUR
    assert "D-position, ∞(K) with 0 not in K: a draw" in legend_texts(page)
    assert next(n for n in nodes if n["position"] == "c")["label"] == "c\nG ∞"


def test_misere_page_colours_misere_outcomes():
    game = load_game("kayles")
    position = game.parse("4")
    page = draw_game(game, position, convention=MISERE)
    nodes, _ = page_data(page.html)
    outcome, _ = misere_outcomes(build_graph(game, position))
    expected = {game.format(p): o for p, o in outcome.items()}
    assert {n["position"]: n["outcome"] for n in nodes} == expected
    assert {n["position"]: n["group"] for n in nodes} == {
        p: "P" if o == "P" else "misereN" for p, o in expected.items()
    }
    assert next(n for n in nodes if n["position"] == "4")["label"] == "4\nmisère P"
    assert GROUPS["misereN"]["color"]["background"] == MISERE_N_COLOUR
    assert GROUPS["P"]["color"]["background"] == P_COLOUR
    assert legend_texts(page)[:2] == [
        "misère P-position: the player to move loses",
        "misère N-position",
    ]
    assert "Misère play" in page.drawing.lines[0]


def test_viz_cli_misere_and_loopy(tmp_path):
    out = tmp_path / "w.html"
    runner = CliRunner()
    result = runner.invoke(main, ["viz", "windup:7:2,3", "6", "-o", str(out)])
    assert (result.exit_code, result.stdout) == (0, f"wrote {out}: 7 states and 12 moves drawn\n")
    result = runner.invoke(main, ["viz", "nim", "1,1", "--misere", "-o", str(out)])
    assert result.exit_code == 0
    nodes, _ = page_data(out.read_text())
    assert {n["position"]: n["outcome"] for n in nodes} == {"1,1": "N", "1": "P", "0": "N"}
    result = runner.invoke(
        main, ["viz", "nim", "1,1", "--misere", "--condensed", "grundy", "-o", str(out)]
    )
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: --condensed groups normal-play values; draw misère play without it\n",
    )


def test_stored_graph_with_cycles_is_drawn_from_the_database(db_url):
    with open_database(db_url) as db:
        spec = db.import_graph(GraphGame(str(DATA / "loopy.json"))).game
        page = draw_stored(db.game(spec), "f", depth=1)
    nodes, _ = page_data(page.html)
    groups = {n["position"]: n["group"] for n in nodes}
    assert groups == {"f": "D", "c": "D", "d": "infinite"}
    assert "D-position, ∞(K) with 0 not in K: a draw" in legend_texts(page)
    assert "N-position of infinite value ∞(K), 0 in K" in legend_texts(page)
    assert next(n for n in nodes if n["position"] == "d")["label"] == "d\nG ∞(0)"
