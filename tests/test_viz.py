"""The graph page, the condensed view and the plots, checked without a browser: values against a
brute force written here, the cut and the neighbourhood, the page's safety, the CLI."""

from __future__ import annotations

import html
import importlib
import json
import re
import shlex
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path

import markupsafe
import networkx as nx
import pytest

import explorer
from explorer import open_database
from explorer.analysis.sequences import value_sequence
from explorer.analysis.solving import explain, solve, value_table
from explorer.errors import GraphTooLargeError, PositionError
from explorer.games import load_game
from explorer.viz import (
    DEFAULT_BUDGET,
    LARGE_BUDGET,
    GraphPage,
    OutputFileError,
    condense,
    draw_condensed,
    draw_game,
    draw_graph,
    draw_stored,
    game_graph,
    notebook,
    plot_p_positions,
    plot_sequence,
    plot_table,
)
from tests.support.bruteforce import brute_nim, distances, mex_values, nim_moves
from tests.support.cli import run, run_ok
from tests.support.environment import REPO
from tests.support.notebook import shown_html
from tests.support.pages import HOSTILE, HOSTILE_FILE, NASTY, page_data


def longest_from(moves: dict, start) -> dict:
    """The longest line of play from `start` to each position (by relaxing until stable)."""
    best = {start: 0}
    changed = True
    while changed:
        changed = False
        for p in list(best):
            for q in moves[p]:
                if best.get(q, -1) < best[p] + 1:
                    best[q] = best[p] + 1
                    changed = True
    return best


# --- reading a page back ---------------------------------------------------------------------


def outside_scripts(page: str) -> str:
    return re.sub(r"<script(?:\s[^>]*)?>.*?</script>", "", page, flags=re.DOTALL)


# --- the page --------------------------------------------------------------------------------


@pytest.mark.parametrize("start", ["1,2,3", "2,2,3", "4", "1,1,1,2"])
def test_page_values_equal_the_brute_force(start):
    nim = load_game("nim")
    values, far, moves = brute_nim(nim.parse(start))
    page = draw_game(nim, nim.parse(start))
    nodes, edges = page_data(page.html)
    assert (page.nodes, page.edges, page.cut) == (len(values), sum(map(len, moves.values())), False)
    by_id = {}
    for node in nodes:
        position = nim.parse(node["position"])
        by_id[node["id"]] = position
        g = values[position]
        assert (node["grundy"], node["outcome"]) == (g, "P" if g == 0 else "N")
        assert node["tooltip"].split("\n") == [
            f"position: {node['position']}",
            f"Grundy value: {g}",
            "outcome: "
            + ("P (the player to move loses)" if g == 0 else "N (the player to move wins)"),
            f"remoteness: {far[position]}",
            f"moves: {len(moves[position])}",
        ]
        assert node["label"] == f"{node['position']}\nG {g}"
        assert "title" not in node  # set in the browser from "tooltip", see page.py
    assert sorted(by_id.values()) == sorted(values)
    drawn = {(by_id[e["from"]], by_id[e["to"]]) for e in edges}
    assert drawn == {(p, q) for p, qs in moves.items() for q in qs}


def test_p_positions_and_winning_moves_stand_out():
    nim = load_game("nim")
    values, _, _ = brute_nim((1, 2, 3))
    page = draw_game(nim, nim.parse("1,2,3")).html
    nodes, edges = page_data(page)
    groups = json.loads(re.search(r"var options = (\{.*?\});\n", page).group(1))["groups"]
    for node in nodes:
        assert node["group"] == ("P" if node["grundy"] == 0 else f"G{node['grundy']}")
    assert groups["P"]["shape"] == "box" and groups["P"]["borderWidth"] == 3
    assert groups["P"]["color"]["background"] == "#b2182b"
    assert groups["P"]["font"] == {"color": "#ffffff", "bold": True}
    fills = [groups[f"G{v}"]["color"]["background"] for v in range(1, 11)]
    assert len(set(fills + ["#b2182b"])) == 11  # one colour per value, none like P's
    assert all(groups[f"G{v}"]["shape"] == "ellipse" for v in range(1, 11))
    start = next(n for n in nodes if n["position"] == "1,2,3")
    assert start["borderWidth"] == 5 and start["color"]["border"] == "#1f4e9e"
    grundy = {n["id"]: n["grundy"] for n in nodes}
    for edge in edges:
        winning = grundy[edge["to"]] == 0
        assert ("width" in edge and edge["width"] > 3) == winning
        assert ("winning move" in edge.get("title", "")) == winning
    assert sum(grundy[e["to"]] == 0 for e in edges) == sum(
        1 for p in values for q in nim_moves(p) if values[q] == 0
    )


def test_legend_lists_the_values_on_the_page():
    nim = load_game("nim")
    page = draw_game(nim, nim.parse("1,2,3")).html
    legend = re.search(r'<ul class="explorer-legend">(.*?)</ul>', page).group(1)
    assert "P-position, Grundy value 0" in legend
    assert [int(v) for v in re.findall(r"N-position, G = (\d+)", legend)] == [1, 2, 3]
    assert "winning move" in legend and "where the drawing starts" in legend


@pytest.mark.parametrize("start", ["1,2,3", "3,3"])
def test_layout_is_layered_top_to_bottom(start):
    nim = load_game("nim")
    _, _, moves = brute_nim(nim.parse(start))
    longest = longest_from(moves, nim.parse(start))
    nodes, edges = page_data(draw_game(nim, nim.parse(start)).html)
    by_id = {n["id"]: n for n in nodes}
    for node in nodes:
        assert node["level"] == longest[nim.parse(node["position"])]
        assert node["y"] == pytest.approx(110.0 * node["level"])
    for edge in edges:
        assert by_id[edge["to"]]["y"] > by_id[edge["from"]]["y"]
    rows = Counter(n["level"] for n in nodes)
    step = (
        min(
            abs(a["x"] - b["x"])
            for a in nodes
            for b in nodes
            if a is not b and a["level"] == b["level"]
        )
        if max(rows.values()) > 1
        else 1.0
    )
    for level, count in rows.items():
        xs = [n["x"] for n in nodes if n["level"] == level]
        assert len(set(xs)) == count  # no two states on top of each other
        # a grid whose odd rows are shifted half a step: a move skipping a row straight down
        # passes between that row's states
        assert all((x / step - level / 2) % 1 == pytest.approx(0) for x in xs)
    root = next(n for n in nodes if n["position"] == start)
    assert root["level"] == 0 and root["borderWidth"] == 5


def test_page_is_offline_and_locked_down():
    nim = load_game("nim")
    page = draw_game(nim, nim.parse("2,3")).html
    markup = outside_scripts(page)
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", markup, re.I)
    assert "cdn.jsdelivr" not in page and "bootstrap" not in page.lower()
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy.split("script-src")[1]
    # every script on the page is allowed by its hash, and nothing else
    scripts = re.findall(r"<script(?:\s[^>]*)?>(.*?)</script>", page, re.DOTALL)
    assert len(re.findall(r"'sha256-", policy)) == len(set(scripts)) == len(scripts) == 4
    assert page.count("<h1>") == 1 and "<!--" not in markup


def nasty_graph() -> nx.DiGraph:
    graph = nx.DiGraph(game="hand-made", root=NASTY[0])
    for i, label in enumerate(NASTY):
        graph.add_node(label, grundy=0, outcome="P", remoteness=0)
        if i:
            graph.add_edge(NASTY[0], label)
    graph.nodes[NASTY[0]].update(grundy=1, outcome="N", remoteness=1)
    return graph


def test_hostile_labels_reach_the_page_only_as_data():
    page = draw_graph(nasty_graph()).html
    nodes, _ = page_data(page)
    assert sorted(n["position"] for n in nodes) == sorted(NASTY)
    markup = outside_scripts(page)
    assert "<img" not in page and "<a " not in page
    assert page.count("</script>") == 4 and "alert(2)</script>" not in page
    assert "popup.innerHTML" not in page  # pyvis' HTML popup stays off, even with "href"
    assert "{{" not in markup
    assert f"<h1>hand-made from {html.escape(HOSTILE)}</h1>" in page


def test_hostile_dag_file_is_drawn_as_text():
    game = load_game(f"dag:{HOSTILE_FILE}")
    vertices = json.loads(HOSTILE_FILE.read_text(encoding="utf-8"))
    page = draw_game(game, game.parse(HOSTILE))
    nodes, edges = page_data(page.html)
    assert sorted(n["position"] for n in nodes) == sorted(vertices["vertices"])
    assert len(edges) == len(vertices["edges"])
    assert "<img" not in page.html and "<script>alert" not in page.html


def test_budget_keeps_the_nearest_states_and_says_so():
    nim = load_game("nim")
    start = nim.parse("5,6,7")
    values, _, moves = brute_nim(start)
    page = draw_game(nim, start, budget=50)
    assert (page.nodes, page.states, page.cut) == (50, len(values), True)
    assert page.note.startswith(f"The graph was cut: showing 50 of {len(values):,} states (")
    assert page.note.endswith(
        "Draw more with draw_game(..., budget=N) (2,000 draw in a second or two), a "
        'neighbourhood (around=POSITION, depth=K) or a condensed view (condensed="grundy").'
    )
    assert str(markupsafe.escape(page.note)) in page.html
    nodes, edges = page_data(page.html)
    kept = {nim.parse(n["position"]) for n in nodes}
    far = distances(moves, start, both_ways=False)
    assert max(far[p] for p in kept) <= min(far[p] for p in values if p not in kept)
    by_id = {n["id"]: nim.parse(n["position"]) for n in nodes}
    assert {(by_id[e["from"]], by_id[e["to"]]) for e in edges} == {
        (p, q) for p in kept for q in moves[p] if q in kept
    }
    for node in nodes:  # values come from the whole graph, and cut moves are counted
        p = nim.parse(node["position"])
        assert node["grundy"] == values[p]
        hidden = len([q for q in moves[p] if q not in kept])
        assert node["tooltip"].endswith(
            f"moves: {len(moves[p])}" + (f" ({hidden} not drawn)" if hidden else "")
        )


@pytest.mark.slow  # big pages
def test_big_games_draw_a_readable_page_by_default_and_say_how_to_get_more(tmp_path):
    # Kayles from 28: 4,565 states (drawn from its whole graph, under WHOLE_GRAPH_STATES); the
    # default used to draw 2,000 of them, a grey smear (tests/test_viz_explored.py: bigger)
    kayles = load_game("kayles")
    page = draw_game(kayles, kayles.parse("28"))
    assert (page.nodes, page.states, page.cut) == (DEFAULT_BUDGET, 4565, True)
    assert DEFAULT_BUDGET <= 50
    assert page.note.startswith(f"A big graph: showing {DEFAULT_BUDGET} of 4,565 states (")
    assert str(markupsafe.escape(page.note)) in page.html
    more = draw_game(kayles, kayles.parse("28"), budget=LARGE_BUDGET)
    assert more.nodes == LARGE_BUDGET and more.note.startswith(
        "The graph was cut: showing 2,000 of 4,565"
    )
    # small games are drawn whole, without a note
    nim = load_game("nim")
    whole = draw_game(nim, nim.parse("1,2,3"))
    assert (whole.nodes, whole.cut, whole.note) == (14, False, "")
    out = tmp_path / "k.html"
    code, stdout, _ = run("viz", "kayles", "28", "-o", str(out))
    cli_note = page.note.replace(
        "Draw more with draw_game(..., budget=N) (2,000 draw in a second or two), a "
        'neighbourhood (around=POSITION, depth=K) or a condensed view (condensed="grundy").',
        "Draw more with --budget N (2,000 draw in a second or two), a neighbourhood "
        "(--around POSITION --depth K) or a condensed view (--condensed grundy).",
    )
    assert cli_note != page.note
    assert (code, stdout.splitlines()) == (
        0,
        [f"wrote {out}: {DEFAULT_BUDGET} states and {page.edges} moves drawn", cli_note],
    )
    assert len(page_data(out.read_text(encoding="utf-8"))[0]) == DEFAULT_BUDGET


@pytest.mark.parametrize(("around", "depth"), [("2,3", 1), ("1,3", 2), ("3,4", 0), ("0", 3)])
def test_neighbourhood_is_every_state_within_depth(around, depth):
    nim = load_game("nim")
    start = nim.parse("3,4")
    values, _, moves = brute_nim(start)
    graph = game_graph(nim, start, around=nim.parse(around), depth=depth)
    near = distances(moves, nim.parse(around), both_ways=True)
    expected = {p for p, d in near.items() if d <= depth}
    assert {nim.parse(n) for n in graph} == expected
    assert {(nim.parse(a), nim.parse(b)) for a, b in graph.edges} == {
        (p, q) for p in expected for q in moves[p] if q in expected
    }
    assert all(graph.nodes[n]["grundy"] == values[nim.parse(n)] for n in graph)


def test_condensed_by_value_counts_states_and_moves():
    nim = load_game("nim")
    values, _, moves = brute_nim((2, 3, 5))
    page = draw_game(nim, nim.parse("2,3,5"), condensed="grundy")
    nodes, edges = page_data(page.html)
    assert {n["group_key"]: n["states"] for n in nodes} == dict(Counter(values.values()))
    by_id = {n["id"]: n["group_key"] for n in nodes}
    counted = Counter((values[p], values[q]) for p in moves for q in moves[p])
    assert {(by_id[e["from"]], by_id[e["to"]]): e["title"] for e in edges} == {
        k: f"{n:,} move{'s' if n > 1 else ''} from {k[0]} to {k[1]}" for k, n in counted.items()
    }
    assert page.states == len(values)
    # the mex rule, visible: each value reaches every lower value and never its own
    assert all((g, h) in counted for g in by_id.values() for h in range(g))
    assert not any(a == b for a, b in counted)


def test_condensed_by_depth_counts_the_fewest_moves_from_the_start():
    nim = load_game("nim")
    values, _, moves = brute_nim((2, 4))
    depth = distances(moves, (2, 4), both_ways=False)
    page = draw_game(nim, nim.parse("2,4"), condensed="depth")
    nodes, edges = page_data(page.html)
    assert {n["group_key"]: (n["states"], n["p_positions"]) for n in nodes} == {
        d: (
            sum(1 for p in depth if depth[p] == d),
            sum(1 for p in depth if depth[p] == d and values[p] == 0),
        )
        for d in set(depth.values())
    }
    by_id = {n["id"]: n["group_key"] for n in nodes}
    between = Counter((depth[p], depth[q]) for p in moves for q in moves[p])
    within = {d: between.pop((d, d), 0) for d in set(depth.values())}
    assert {(by_id[e["from"]], by_id[e["to"]]) for e in edges} == set(between)
    for node in nodes:
        assert f"moves within this depth: {within[node['group_key']]}" in node["tooltip"]


def test_condense_takes_any_solved_graph():
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c")])
    for node, g in {"a": 2, "b": 1, "c": 0}.items():
        graph.nodes[node].update(grundy=g, outcome="P" if g == 0 else "N", remoteness=None)
    groups = condense(graph)
    assert dict(groups.nodes(data="states")) == {0: 1, 1: 1, 2: 1}
    assert sorted(groups.edges(data="moves")) == [(1, 0, 1), (2, 0, 1), (2, 1, 1)]
    page = draw_condensed(groups)
    assert (page.nodes, page.edges) == (3, 3)
    nodes, _ = page_data(draw_graph(graph).html)
    assert {n["position"]: n["tooltip"].split("\n")[3] for n in nodes}["a"] == (
        "remoteness: unknown"
    )


def test_graph_page_shows_inline_in_a_notebook(tmp_path):
    nim = load_game("nim")
    page = draw_game(nim, nim.parse("1,2"))
    frame = page.interactive(standalone=True)._repr_html_()  # the page itself, on request
    srcdoc = re.fullmatch(
        r'<iframe srcdoc="([^"]*)" sandbox="allow-scripts" [^>]*></iframe>', frame
    ).group(1)
    assert html.unescape(srcdoc) == page.html
    assert page.save(tmp_path / "nim.html").read_text(encoding="utf-8") == page.html


@pytest.mark.slow  # a fresh interpreter
def test_a_page_shows_light_in_a_notebook_and_has_a_short_repr():
    # the repr was the whole page, and a notebook showing a 14-state page weighed 1.5 MB
    nim = load_game("nim")
    values, _, moves = brute_nim((1, 2, 3))
    page = draw_game(nim, nim.parse("1,2,3"))
    assert repr(page) == (
        f"<GraphPage 'nim from 1,2,3': 14 states and 38 moves drawn; "
        f"{len(page.html) / 1e3:,.0f} kB of HTML>"
    )
    shown = page._repr_html_()
    assert len(shown) < 40_000 and len(shown) < len(page.html) / 10
    assert "<script" not in shown and "<iframe" not in shown
    nodes, edges = page_data(page.html)
    svg = shown[shown.index("<svg") : shown.index("</svg>") + len("</svg>")]
    root = ElementTree.fromstring(svg)
    states = root.findall(f"{SVG}g")
    assert [g.find(f"{SVG}title").text for g in states] == [n["tooltip"] for n in nodes]
    assert sorted(nim.parse(g.find(f"{SVG}title").text.split("\n")[0][10:]) for g in states) == (
        sorted(values)
    )
    boxes = [g for g in states if g.find(f"{SVG}rect") is not None]
    assert len(boxes) == sum(1 for v in values.values() if v == 0)  # P-positions are boxes
    drawn = root.findall(f"{SVG}path")
    assert len(drawn) == len(edges) == sum(map(len, moves.values()))
    red = [p for p in drawn if p.get("stroke") == "#b2182b"]
    assert len(red) == sum(1 for qs in moves.values() for q in qs if values[q] == 0)
    assert "<h1>nim from 1,2,3</h1>" in shown and "winning move" in shown
    # a cut page says so in its view too; a page too big for a picture says how to see it
    kayles = load_game("kayles")
    cut = draw_game(kayles, kayles.parse("30"))
    assert str(markupsafe.escape(cut.note)) in cut._repr_html_()
    big = draw_game(kayles, kayles.parse("30"), budget=1000)
    assert "<svg" not in big._repr_html_() and "page.interactive()" in big._repr_html_()
    assert len(repr(big)) < 120


def test_a_pages_notebook_view_shows_labels_as_text():
    shown = draw_graph(nasty_graph())._repr_html_()
    assert "<img" not in shown and "<a " not in shown and "<script" not in shown
    titles = [
        g.find(f"{SVG}title").text
        for g in ElementTree.fromstring(shown[shown.index("<svg") : shown.index("</svg>") + 6])
        if g.tag == f"{SVG}g"
    ]
    assert sorted(t.split("\nGrundy value")[0][10:] for t in titles) == sorted(NASTY)


def test_page_output_errors(tmp_path):
    page = GraphPage("<html></html>", 0, 0, 0, False)
    with pytest.raises(
        OutputFileError,
        match=r"^cannot write 'x\.png': expected a \.html or "
        r"\.htm file$",
    ):
        page.save("x.png")
    missing = tmp_path / "no" / "x.html"
    with pytest.raises(OutputFileError, match=r"No such file or directory"):
        page.save(missing)


FULL_DISK = """
import resource, signal, sys
from explorer.viz import draw_game, plot_sequence
from explorer.games import load_game
from explorer.analysis.sequences import value_sequence
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
page = draw_game(load_game("kayles"), (12,))
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
if sys.argv[1].endswith(".html"):
    page.save(sys.argv[1])
else:
    plot_sequence(value_sequence(load_game("kayles"), 3000), sys.argv[1])
"""


@pytest.mark.slow  # a process on a small full disk
@pytest.mark.parametrize("name", ["page.html", "values.svg"])
def test_a_drawing_cut_short_by_a_full_disk_leaves_the_previous_file(tmp_path, name):
    target = tmp_path / name
    target.write_bytes(b"the previous drawing")
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(target)], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "OutputFileError: cannot write " in done.stderr
    assert "File too large (nothing was replaced)" in done.stderr
    assert target.read_bytes() == b"the previous drawing"
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temporary file left


def test_drawing_imports_pyvis_and_matplotlib_only_when_needed():
    code = (
        "import sys, explorer.cli, explorer.viz\n"
        "assert 'pyvis' not in sys.modules and 'matplotlib' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.slow  # fresh interpreters
def test_results_import_their_notebook_views_only_when_shown():
    # storage, analysis and the build stage sit below viz and never import it: importing
    # explorer in a running IPython registers the views, which load when a result is shown
    code = (
        "import sys\n"
        "from IPython.core.interactiveshell import InteractiveShell\n"
        "shell = InteractiveShell.instance()\n"
        "import explorer.storage, explorer.analysis.solving, explorer.analysis.sequences\n"
        "assert not [m for m in sys.modules if m.startswith(('explorer.viz', 'jinja2'))]\n"
        "from explorer import open_database\n"
        "with open_database('sqlite://') as db:\n"
        "    data, _ = shell.display_formatter.format(db.game('nim').build('1,2'))\n"
        "assert 'explorer.viz.notebook' in sys.modules and '<table>' in data['text/html']\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_every_notebook_view_names_a_class_and_a_view():
    for (module, name), view in explorer.NOTEBOOK_VIEWS.items():
        assert isinstance(getattr(importlib.import_module(module), name), type), (module, name)
        assert callable(getattr(notebook, view)), view


# --- from the database -------------------------------------------------------------------------


def stored_nim(url: str, start: str) -> None:
    with open_database(url) as database:
        database.game("nim").build(start)


@pytest.mark.parametrize(("around", "depth"), [("2,3", 1), ("1,3", 2), ("3,4", 3), ("0", 1)])
def test_stored_neighbourhood_is_exactly_the_states_within_depth(db_url, around, depth):
    nim = load_game("nim")
    stored_nim(db_url, "3,4")
    values, far, moves = brute_nim((3, 4))
    near = distances(moves, nim.parse(around), both_ways=True)
    expected = {p for p, d in near.items() if d <= depth}
    with open_database(db_url) as database:
        page = draw_stored(database.game("nim"), around, depth=depth)
    nodes, edges = page_data(page.html)
    by_id = {n["id"]: nim.parse(n["position"]) for n in nodes}
    assert set(by_id.values()) == expected and len(nodes) == len(expected)
    assert {(by_id[e["from"]], by_id[e["to"]]) for e in edges} == {
        (p, q) for p in expected for q in moves[p] if q in expected
    }
    for node in nodes:
        p = by_id[node["id"]]
        assert (node["grundy"], node["outcome"]) == (values[p], "P" if values[p] == 0 else "N")
        lines = node["tooltip"].split("\n")
        assert lines[3] == f"remoteness: {far[p]}"
        drawn = sum(1 for q in moves[p] if q in expected)
        # inside the neighbourhood every move is there; on its rim some may lie beyond
        assert lines[4] == (
            f"moves: {len(moves[p])}"
            if near[p] < depth
            else f"moves: {drawn} drawn, maybe more beyond the drawing"
        )
    assert f"<h1>nim around {around}, within " in page.html


def test_stored_page_is_cut_to_the_budget(db_url):
    nim = load_game("nim")
    stored_nim(db_url, "5,6,7")
    _, _, moves = brute_nim((5, 6, 7))
    near = distances(moves, (5, 6, 7), both_ways=True)
    with open_database(db_url) as database:
        page = draw_stored(database.game("nim"), "5,6,7", depth=3, budget=30)
    nodes, _ = page_data(page.html)
    kept = {nim.parse(n["position"]) for n in nodes}
    assert (len(kept), page.cut, page.states) == (30, True, sum(d <= 3 for d in near.values()))
    assert max(near[p] for p in kept) <= min(d for p, d in near.items() if p not in kept)


def test_stored_game_condensed_equals_the_game_condensed(db_url):
    nim = load_game("nim")
    stored_nim(db_url, "2,3,5")
    count = len(brute_nim((2, 3, 5))[0])
    with open_database(db_url) as database:
        for by in ("grundy", "depth"):
            stored = page_data(draw_stored(database.game("nim"), "2,3,5", condensed=by).html)
            fresh = page_data(draw_game(nim, nim.parse("2,3,5"), condensed=by).html)
            assert stored == fresh
            # too big to load: the database counts the groups, the moves are left out
            counted = draw_stored(database.game("nim"), "2,3,5", condensed=by, max_states=10)
            nodes, edges = page_data(counted.html)
            keep = ("group_key", "states", "p_positions")
            assert [{k: n[k] for k in keep} for n in nodes] == [
                {k: n[k] for k in keep} for n in fresh[0]
            ]
            assert edges == [] and counted.states == count
            assert counted.note == (
                f"The {count} stored states are more than --max-states 10: the groups are "
                "counted in the database and the moves between them are not drawn (raise "
                "--max-states to draw them)."
            )
            assert html.escape(counted.note) in counted.html


def test_cli_viz_from_the_database(tmp_path):
    url = str(tmp_path / "games.db")
    stored_nim(url, "3,4")
    out = tmp_path / "near.html"
    code, stdout, _ = run(
        "viz",
        "nim",
        "3,4",
        "--db",
        url,
        "--around",
        "2,3",
        "--depth",
        "1",
        "-o",
        str(out),
        "--json",
    )
    near = distances(brute_nim((3, 4))[2], (2, 3), both_ways=True)
    assert code == 0 and json.loads(stdout)["drawn_states"] == sum(d <= 1 for d in near.values())
    assert {load_game("nim").parse(n["position"]) for n in page_data(out.read_text())[0]} == {
        p for p, d in near.items() if d <= 1
    }
    code, stdout, _ = run("viz", "nim", "3,4", "--db", url, "--condensed", "grundy", "-o", str(out))
    values = brute_nim((3, 4))[0]
    assert stdout == f"wrote {out}: {len(values)} states in {len(set(values.values()))} groups\n"
    code, _, stderr = run("viz", "nim", "9,9", "--db", url, "-o", str(out))
    assert (code, stderr) == (
        1,
        f"Error: position '9,9' of nim is not stored in {url!r} "
        "(build it first: explorer build 'nim' '9,9')\n",
    )


# --- plots -----------------------------------------------------------------------------------


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


SVG = "{http://www.w3.org/2000/svg}"


def svg_group(path: Path, gid: str) -> ElementTree.Element:
    """The group matplotlib wrote for the artist with this gid."""
    found = ElementTree.parse(path).getroot().findall(f".//{SVG}g[@id='{gid}']")
    assert len(found) == 1, gid
    return found[0]


def svg_markers(path: Path, gid: str) -> int:
    """The number of markers a scatter drew."""
    return sum(1 for _ in svg_group(path, gid).iter(f"{SVG}use"))


def test_sequence_plot_marks_every_value(tmp_path):
    kayles = load_game("kayles")
    sequence = value_sequence(kayles, 90)
    values = sequence.values.tolist()
    plot_sequence(sequence, tmp_path / "k.svg")
    assert svg_markers(tmp_path / "k.svg", "n-positions") == sum(1 for v in values if v)
    assert svg_markers(tmp_path / "k.svg", "p-positions") == values.count(0) == 1
    width, height = png_size(plot_sequence(sequence, tmp_path / "k.png"))
    assert width > 1000 and height > 400


def test_table_plot_writes_the_values(tmp_path):
    import matplotlib

    table = value_table(load_game("wythoff"), 6, 6)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        plot_table("wythoff", table, tmp_path / "w.svg")
    for r, row in enumerate(table):
        for c, value in enumerate(row):
            assert svg_group(tmp_path / "w.svg", f"cell-{r}-{c}").find(f"{SVG}text").text == (
                str(value)
            )
    assert "wythoff: G(row, column)" in (tmp_path / "w.svg").read_text()
    png_size(plot_table("wythoff", value_table(load_game("wythoff"), 40, 40), tmp_path / "w.png"))


def test_p_positions_plot_marks_each_p_position(tmp_path):
    # Wythoff's P-positions, by the mex rule on the (sorted) pair of heaps
    def moves(p):
        x, y = p
        result = {tuple(sorted((x, y - k))) for k in range(1, y + 1)}
        result |= {tuple(sorted((x - k, y))) for k in range(1, x + 1)}
        result |= {(x - k, y - k) for k in range(1, x + 1)}
        return result

    values = mex_values((19, 19), moves)
    zeros = [(r, c) for r in range(20) for c in range(20) if values[tuple(sorted((r, c)))] == 0]
    table = value_table(load_game("wythoff"), 20, 20)
    plot_p_positions("wythoff", table, tmp_path / "p.svg")
    assert svg_markers(tmp_path / "p.svg", "p-positions") == len(zeros)
    golden = (1 + 5**0.5) / 2  # the classic answer: (floor(k phi), floor(k phi^2)) and mirrors
    pairs = {(int(k * golden), int(k * golden * golden)) for k in range(20)}
    assert set(zeros) == {p for a, b in pairs for p in ((a, b), (b, a)) if max(p) < 20}


def test_plot_output_errors(tmp_path):
    sequence = value_sequence(load_game("nim"), 5)
    with pytest.raises(
        OutputFileError,
        match=r"^cannot write 'a\.jpg': expected a \.png or "
        r"\.svg file$",
    ):
        plot_sequence(sequence, "a.jpg")


# --- the command line -------------------------------------------------------------------------


def test_cli_viz(tmp_path):
    out = tmp_path / "nim.html"
    code, stdout, _ = run("viz", "nim", "1,2,3", "-o", str(out))
    assert (code, stdout) == (0, f"wrote {out}: 14 states and 38 moves drawn\n")
    nodes, edges = page_data(out.read_text(encoding="utf-8"))
    assert (len(nodes), len(edges)) == (14, 38)


def test_cli_viz_json_and_cut(tmp_path):
    out = tmp_path / "nim.html"
    code, stdout, _ = run("viz", "nim", "5,6,7", "--budget", "40", "-o", str(out), "--json")
    assert code == 0
    # the moves drawn are every move between two of the drawn states, by the brute force
    nim = load_game("nim")
    _, _, moves = brute_nim((5, 6, 7))
    drawn = {nim.parse(n["position"]) for n in page_data(out.read_text(encoding="utf-8"))[0]}
    assert json.loads(stdout) == {
        "file": str(out),
        "game": "nim",
        "position": "5,6,7",
        "drawn_states": 40,
        "drawn_moves": sum(1 for p in drawn for q in moves[p] if q in drawn),
        "states": len(moves),
        "cut": True,
        "note": json.loads(stdout)["note"],
    }
    assert json.loads(stdout)["note"].startswith("The graph was cut: showing 40 of 110 states")
    assert json.loads(stdout)["note"].endswith("a condensed view (--condensed grundy).")
    code, stdout, _ = run("viz", "nim", "5,6,7", "--budget", "40", "-o", str(out))
    assert stdout.splitlines()[1].startswith("The graph was cut: showing 40 of 110 states")


def test_the_flagship_example_is_drawn_whole():
    nim = load_game("nim")
    page = draw_game(nim, nim.parse("3,4,5"))
    values, _, _ = brute_nim((3, 4, 5))
    assert (page.nodes, page.states, page.cut, page.note) == (48, 48, False, "")
    shown = {n["position"] for n in page_data(page.html)[0] if n["grundy"] == 0}
    assert shown == {nim.format(p) for p, v in values.items() if v == 0}
    assert {"1,1", "2,2"} <= shown


@pytest.mark.parametrize(("spec", "start", "budget"), [("kayles", "14", 30), ("nim", "4,5,7", 25)])
def test_a_cut_keeps_every_p_position_of_the_area_it_draws(spec, start, budget):
    game = load_game(spec)
    root = game.parse(start)
    far, queue = {root: 0}, [root]  # distances in moves, by a breadth-first search of our own
    for p in queue:
        for q in game.successors(p):
            if q not in far:
                far[q] = far[p] + 1
                queue.append(q)
    page = draw_game(game, root, budget=budget)
    nodes = page_data(page.html)[0]
    kept = {game.parse(n["position"]) for n in nodes}
    zeros = {p for p in far if solve(game, p).grundy == 0}
    rim = max(far[p] for p in kept)
    assert page.cut and len(kept) == budget
    assert all(p in kept for p in far if far[p] < rim)  # whole rings inside the rim
    assert all(p in kept for p in zeros if far[p] < rim)
    kept_on_rim = {p for p in kept if far[p] == rim}
    # on the rim, P-positions go first: either all of them are kept, or only they are
    assert {p for p in zeros if far[p] == rim} <= kept_on_rim or kept_on_rim <= zeros
    left = sum(1 for p in zeros if p not in kept)
    assert f"{left:,} P-position" in page.note


def test_cli_viz_around_and_condensed(tmp_path):
    out = tmp_path / "n.html"
    code, stdout, _ = run("viz", "nim", "3,4", "--around", "2,3", "--depth", "1", "-o", str(out))
    near = distances(brute_nim((3, 4))[2], (2, 3), both_ways=True)
    assert (code, len(page_data(out.read_text())[0])) == (0, sum(d <= 1 for d in near.values()))
    code, _, _ = run("viz", "nim", "3,4", "--depth", "1", "-o", str(out))
    assert len(page_data(out.read_text())[0]) == 1 + len(nim_moves((3, 4)))
    code, stdout, _ = run("viz", "nim", "3,4", "--condensed", "grundy", "-o", str(out), "--json")
    values, _, _ = brute_nim((3, 4))
    groups = len(set(values.values()))
    assert len(page_data(out.read_text())[0]) == groups
    assert json.loads(stdout) == {
        "file": str(out),
        "game": "nim",
        "position": "3,4",
        "groups": groups,
        "states": len(values),
        "cut": False,
        "note": "",
    }


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["viz", "nim", "1,2", "-o", "x.png"],
            2,
            "Error: Invalid value for '-o' / '--output': cannot write 'x.png': expected a .html or "
            ".htm file",
        ),
        (
            ["viz", "nim", "1,2", "--around", "3,3", "-o", "x.html"],
            1,
            "Error: position '3,3' cannot be reached from '1,2' in nim",
        ),
        (
            ["plot", "table", "wythoff", "-o", "w.jpg"],
            2,
            "Error: Invalid value for '-o' / '--output': cannot write 'w.jpg': expected a .png or "
            ".svg file",
        ),
        (
            ["plot", "sequence", "wythoff", "-o", "w.png"],
            1,
            "Error: wythoff has no one-parameter positions (sequences are for heap games, "
            "treblecross strips, coin rows and games on graphs given a form: nodekayles:P, "
            '@explorer.graph_game(form="P"))',
        ),
    ],
)
def test_cli_errors(tmp_path, monkeypatch, args, code, message):
    """Our own messages, exactly."""
    monkeypatch.chdir(tmp_path)
    exit_code, _, stderr = run(*args)
    assert (exit_code, stderr.strip().splitlines()[-1]) == (code, message)
    assert not list(tmp_path.iterdir())


def test_cli_reports_library_errors(tmp_path, monkeypatch):
    """Errors raised below the CLI come out as one line, exit code 1, and no file."""
    monkeypatch.chdir(tmp_path)
    nim = load_game("nim")
    with pytest.raises(PositionError) as bad:
        nim.parse("1,x")
    with pytest.raises(GraphTooLargeError) as big:  # no parts: drawn from the whole graph
        draw_game("wythoff", "9,9", max_states=10)
    for args, error in [
        (["viz", "nim", "1,x", "-o", "x.html"], bad.value),
        (["viz", "wythoff", "9,9", "--max-states", "10", "-o", "x.html"], big.value),
        (["plot", "table", "nim + wythoff", "-o", "x.png"], None),  # no (r, c) positions
    ]:
        code, stdout, stderr = run(*args)
        assert (code, stdout) == (1, "")
        assert stderr.count("\n") == 1 and stderr.startswith("Error: ")
        if error is not None:
            assert stderr == f"Error: {error}\n"
    assert not list(tmp_path.iterdir())


@pytest.mark.slow  # matplotlib plots
def test_cli_plots(tmp_path):
    for args, name in [
        (["plot", "sequence", "kayles", "--upto", "80"], "s.png"),
        (["plot", "table", "wythoff", "--rows", "12", "--cols", "12"], "t.svg"),
        (["plot", "p-positions", "nim", "--rows", "8", "--cols", "8"], "p.svg"),
    ]:
        out = tmp_path / name
        code, stdout, _ = run(*args, "-o", str(out), "--json")
        assert code == 0 and json.loads(stdout)["file"] == str(out)
        assert out.stat().st_size > 1000
    assert svg_markers(tmp_path / "p.svg", "p-positions") == 8  # nim's: the diagonal


# --- the README's pictures and drawing sessions -------------------------------------------------


def readme_section() -> str:
    """The README's console blocks and image links, where drawing is shown (several sections)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```console\n.*?```", text, flags=re.S)
    images = re.findall(r"!\[[^\]]+\]\([^)]+\)", text)
    return "\n".join(blocks + images)


def test_readme_viz_and_plot_sessions_are_real(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```console\n(.*?)```", readme_section(), flags=re.S)
    commands = set()
    for block in blocks:
        for command, expected in re.findall(r"^\$ (explorer .*)\n((?:(?!\$ ).*\n)*)", block, re.M):
            words = shlex.split(command)[1:]
            if words[0] not in {"viz", "plot"}:
                continue
            code, stdout, stderr = run(*words)
            assert (code, stdout + stderr) == (0, expected), command
            commands.add(" ".join(words[:2]))
    assert {"viz nim", "plot sequence", "plot table"} <= commands


def test_readme_images_are_there():
    section = readme_section()
    images = re.findall(r"!\[[^\]]+\]\((data/images/[^)]+\.png)\)", section)
    assert len(images) >= 3 and "data/images/viz-nim-1-2-3.png" in images
    for image in images:
        width, height = png_size(REPO / image)
        assert width >= 800 and height >= 400


@pytest.mark.parametrize("module", ["__init__", "graphs", "page", "output", "plots"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    name = "explorer.viz" if module == "__init__" else f"explorer.viz.{module}"
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


# --- notebooks -------------------------------------------------------------------------------


def test_solutions_and_sequences_show_as_html():
    nim = load_game("nim")
    shown = shown_html(solve(nim, nim.parse("1,2,4")))
    assert "<caption>nim at 1,2,4</caption>" in shown and "<td>7</td>" in shown
    assert "<td>1,2,3</td>" in shown  # the one winning move
    shown = shown_html(explain(nim, nim.parse("1,2,4")))
    assert "G = 1 XOR 2 XOR 4 = 7" in shown
    sub = load_game("subtraction:1,2,3")
    assert "G = mex{0, 2, 3} = 1" in shown_html(explain(sub, sub.parse("5")))
    shown = shown_html(value_sequence(sub, 21))
    cells = re.findall(r"<td[^>]*>(?:<b>)?(\d+)", shown)
    assert cells == [str(n % 4) for n in range(22)]
    assert shown.count("<b>0</b>") == 6 and shown.count("<tr>") == 2
    assert "period 4, preperiod 0: proven" in shown


def test_notebook_html_escapes_positions():
    game = load_game(f"dag:{HOSTILE_FILE}")
    for shown in (
        shown_html(solve(game, game.parse(HOSTILE))),
        shown_html(explain(game, game.parse(HOSTILE))),
    ):
        assert "<img" not in shown and "<script" not in shown
        assert html.escape(HOSTILE) in shown


def notebook_tables(shown: str) -> list[tuple[str, list[list[str]]]]:
    """The caption and the rows (cell texts) of each table of a notebook view."""
    root = ElementTree.fromstring(f"<div>{shown}</div>")
    return [
        (
            "".join(table.find("caption").itertext()),
            [["".join(cell.itertext()) for cell in row] for row in table.findall("tr")],
        )
        for table in root.iter("table")
    ]


def test_build_reports_and_query_results_show_as_tables(db_url):
    # they had no notebook view at all
    values, far, moves = brute_nim((3, 4))
    with open_database(db_url) as database:
        report = database.game("nim").build("3,4")
        state = database.game("nim").state("3,4")
        zeros = database.game("nim").states(outcome="P", limit=3)
        linked = database.game("nim").successors("3,4", limit=100)
    [(caption, rows)] = notebook_tables(shown_html(report))
    assert caption == "build of nim from 3,4: complete"
    table = dict(map(tuple, rows))
    assert table["states stored"] == str(len(values)) and table["Grundy value"] == "7"
    assert table["outcome"] == "N (the player to move wins)"
    assert table["remoteness"] == str(far[(3, 4)])
    (caption, rows), (_, successors) = notebook_tables(shown_html(state))
    table = dict(map(tuple, rows))
    assert caption == "nim at 3,4" and table["moves"] == str(len(moves[(3, 4)]))
    winning = [q for q in moves[(3, 4)] if values[q] == 0]
    assert table["winning moves"] == " · ".join(",".join(map(str, q)) for q in winning)
    assert successors[0] == ["position", "grundy", "outcome", "remoteness", "depth"]
    nim = load_game("nim")
    assert {nim.parse(r[0]): int(r[1]) for r in successors[1:]} == {
        q: values[q] for q in moves[(3, 4)]
    }
    [(caption, rows)] = notebook_tables(shown_html(zeros))
    p_count = sum(1 for v in values.values() if v == 0)
    assert caption == f"nim: stored states (1 to 3 of {p_count})"
    assert len(rows) == 4 and all(row[2] == "P" and row[1] == "0" for row in rows[1:])
    assert f"{p_count - 3} more states not shown" in shown_html(zeros)
    [(caption, rows)] = notebook_tables(shown_html(linked))
    assert caption == f"nim: moves from 3,4 (1 to {len(moves[(3, 4)])} of {len(moves[(3, 4)])})"
    # the dicts themselves are unchanged: the JSON form
    assert json.loads(json.dumps(zeros))["total"] == p_count and isinstance(zeros, dict)


def test_edit_reports_and_stored_hostile_names_show_as_text(db_url):
    with open_database(db_url) as database:
        report = database.import_graph(str(HOSTILE_FILE))
        state = database.game(report.game).state(HOSTILE)
        listed = database.game(report.game).states()
    for shown in (shown_html(report), shown_html(state), shown_html(listed)):
        assert "<img" not in shown and "<script" not in shown
    assert html.escape(HOSTILE) in shown_html(state)
    [(caption, rows)] = notebook_tables(shown_html(report))
    vertices = json.loads(HOSTILE_FILE.read_text(encoding="utf-8"))
    assert caption.startswith(f"import of {report.game}: ")
    assert dict(map(tuple, rows))["states in the file"] == str(len(vertices["vertices"]))


def test_plot_legends_never_cover_the_data(tmp_path):
    """The legend sits outside the axes: no marker can be under it."""
    import matplotlib.figure

    from explorer.viz.plots import plot_p_positions, plot_sequence

    figures: list[matplotlib.figure.Figure] = []
    original = matplotlib.figure.Figure.savefig

    def keep(self, *args, **kwargs):
        figures.append(self)
        return original(self, *args, **kwargs)

    matplotlib.figure.Figure.savefig = keep  # type: ignore[method-assign]
    try:
        plot_p_positions("wythoff", value_table(load_game("wythoff"), 30, 30), tmp_path / "p.png")
        plot_sequence(value_sequence(load_game("kayles"), 200), tmp_path / "s.png")
    finally:
        matplotlib.figure.Figure.savefig = original  # type: ignore[method-assign]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    for figure in figures:
        renderer = FigureCanvasAgg(figure).get_renderer()
        figure.draw(renderer)
        (axes,) = figure.axes
        (legend,) = figure.legends
        assert not legend.get_window_extent(renderer).overlaps(axes.get_window_extent(renderer))


def test_a_wide_layer_is_folded_onto_rows(tmp_path):
    # viz cram 3x3: 50 states, 36 of them at depth 2, once laid in a strip 36 boards wide
    out = tmp_path / "cram.html"
    run_ok("viz", "cram", "3x3", "-o", str(out))
    nodes, edges = page_data(out.read_text(encoding="utf-8"))
    assert len(nodes) == 50
    rows: dict[float, list[float]] = {}
    for node in nodes:
        rows.setdefault(node["y"], []).append(node["x"])
    assert max(len(xs) for xs in rows.values()) <= 11
    width = max(n["x"] for n in nodes) - min(n["x"] for n in nodes)
    height = max(n["y"] for n in nodes) - min(n["y"] for n in nodes)
    assert width < 3 * height
    # still every move goes down the page
    y = {n["id"]: n["y"] for n in nodes}
    assert all(y[e["from"]] < y[e["to"]] for e in edges)
