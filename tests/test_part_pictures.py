"""Parts drawn as their graphs or boards, with their values and XOR: the data (against the brute
forces of `tests.test_graph_games`), the graph page and the web app's position page, in headless
Chromium, offline."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import networkx as nx
import pytest

from explorer import load_game, solve
from explorer.analysis.parts import PART_TABLE
from explorer.games.pictures import BoardPicture, GraphPicture
from explorer.viz import draw_game, draw_stored
from explorer.viz.parts import parts_view
from tests.support.browser import Tab
from tests.support.cli import run_ok
from tests.support.serve import Server, start_server
from tests.test_graph_games import (
    arc_kayles_brute,
    cram_brute,
    hackenbush_brute,
    node_kayles_brute,
)

#: Positions with several parts, and the brute force that values one part from its text.
CASES = [
    ("nodekayles", "P3+C4+K3_4+a-b", "graph"),
    ("arckayles", "P5+C4+S3", "graph"),
    ("cram", "..#./..#./####/..../#..#", "board"),
    ("hackenbush", "g-a,a-b,a-b,b-b,g-g,g-c,c-d,d-g", "graph"),
]


def brute_value(family: str, text: str) -> int:
    """A part's value from the definition (no splitting, no labels), from its text."""
    game = load_game(family)
    if family == "cram":
        return cram_brute(text.split("/"))
    if family == "hackenbush":
        return hackenbush_brute([tuple(e.split("-")) for e in text.split(",")])  # type: ignore[misc]
    position = game.parse(text)
    graph = nx.Graph()
    graph.add_nodes_from(position.names)
    graph.add_edges_from((position.names[i], position.names[j]) for i, j in position.edges())
    return (node_kayles_brute if family == "nodekayles" else arc_kayles_brute)(graph)


@pytest.mark.parametrize(("family", "text", "kind"), CASES)
def test_each_part_is_drawn_with_its_brute_force_value(family, text, kind):
    game = load_game(family)
    position = game.parse(text)
    view = parts_view(game, position)
    assert view is not None and view.more == 0
    split = game.decompose(position)
    assert split is not None and len(view.parts) == len(split.parts) > 1
    total = 0
    for drawn, part in zip(view.parts, split.parts, strict=True):
        assert drawn.kind == kind and drawn.text == game.format(part.position)
        assert drawn.value == brute_value(family, drawn.text)
        total ^= drawn.value
        picture = game.picture(part.position)
        if isinstance(picture, BoardPicture):
            assert len(drawn.cells) == picture.rows * picture.cols
            assert sum(c["empty"] for c in drawn.cells) == len(picture.empty)
            assert len(picture.empty) == drawn.text.count(".")
        else:
            assert isinstance(picture, GraphPicture)
            ground = picture.ground is not None
            assert len(drawn.dots) == len(picture.vertices) - ground
            assert len(drawn.paths) == len(picture.edges)
            assert (drawn.ground is not None) == ground
    assert view.total == total == solve(game, position).grundy
    assert view.xor_text.endswith(f"= {total}")


def test_a_sum_draws_the_parts_with_pictures_and_names_the_others():
    game = load_game("nodekayles + nim")
    view = parts_view(game, game.parse("P3+C4 + 3,5"))
    assert view is not None
    assert [(p.kind, p.text, p.value) for p in view.parts] == [
        ("graph", "0-1,1-2", 2),
        ("graph", "3-4,3-6,4-5,5-6", 0),
        ("text", "3", 3),
        ("text", "5", 5),
    ]
    assert view.total == 2 ^ 3 ^ 5
    assert parts_view(load_game("nim"), (3, 5)) is None


def test_pages_of_other_games_and_of_misere_play_have_no_parts():
    assert 'id="parts"' not in draw_game("nim", "3,4").html
    assert 'id="parts"' not in draw_game("nodekayles", "P3+C4", convention="misere").html
    assert 'id="parts"' in draw_game("nodekayles", "P3+C4").html


def test_a_stored_page_reads_part_values_from_the_database(tmp_path):
    from explorer import open_database

    PART_TABLE.clear()
    with open_database(str(tmp_path / "g.db")) as db:
        db.game("cram").build("..#/..#/...")
        PART_TABLE.clear()
        page = draw_stored(db.game("cram"), "..#/..#/...", depth=1)
        assert PART_TABLE.computed == 0  # every value came from the database's part table
    assert page.drawing is not None and page.drawing.parts is not None
    assert page.drawing.parts.total == cram_brute(["..#", "..#", "..."])


# ---- in headless Chromium ------------------------------------------------------------------

#: What the browser reads off each figure: its kind, value, and counts of shapes.
FIGURES = """() => [...document.querySelectorAll('#parts figure')].map(f => ({
  kind: f.dataset.kind,
  value: f.dataset.value,
  caption: f.querySelector('figcaption').textContent,
  vertices: f.querySelectorAll('circle.vertex').length,
  edges: f.querySelectorAll('path.edge').length,
  empty: f.querySelectorAll('rect.cell-empty').length,
  filled: f.querySelectorAll('rect.cell-filled').length,
  ground: f.querySelectorAll('line.ground').length,
  shown: f.getBoundingClientRect().width > 20 && f.getBoundingClientRect().height > 20,
}))"""


def expected_figures(family: str, text: str) -> list[dict[str, Any]]:
    game = load_game(family)
    position = game.parse(text)
    split = game.decompose(position)
    parts = [position] if split is None else [p.position for p in split.parts]
    figures = []
    for part in parts:
        picture = game.picture(part)
        shown = game.format(part)
        value = str(brute_value(family, shown))
        if isinstance(picture, BoardPicture):
            cells = picture.rows * picture.cols
            figures.append(
                dict(
                    kind="board",
                    value=value,
                    empty=len(picture.empty),
                    filled=cells - len(picture.empty),
                )
            )
        else:
            assert isinstance(picture, GraphPicture)
            ground = int(picture.ground is not None)
            figures.append(
                dict(
                    kind="graph",
                    value=value,
                    vertices=len(picture.vertices) - ground,
                    edges=len(picture.edges),
                    ground=ground,
                )
            )
    return figures


def check_figures(page: Any, family: str, text: str) -> None:
    seen = page.evaluate(FIGURES)
    wanted = expected_figures(family, text)
    assert len(seen) == len(wanted)
    for got, want in zip(seen, wanted, strict=True):
        assert got["shown"]
        assert {k: got[k] for k in want} == want
        assert got["caption"].endswith(f"G = {want['value']}")
    total = solve(family, text).grundy
    assert page.text_content("#parts-xor").strip().endswith(f"= {total}")


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize(("family", "text", "kind"), CASES)
def test_the_graph_page_draws_each_part_offline(browser, tmp_path, family, text, kind):
    path = draw_game(family, text).save(tmp_path / "page.html")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type in ("error", "warning") and errors.append(m.text))
    page.goto(path.as_uri())
    page.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=30_000)
    check_figures(page, family, text)
    assert errors == [] and requests == [path.as_uri()]  # the file itself, nothing else
    context.close()


#: Built into the served database: (family, position).
SERVED = [
    ("nodekayles", "P3+C4+a-b"),
    ("cram", "..#./..#./####/...."),
    ("hackenbush", "g-a,a-b,a-b,b-b,g-g,g-c"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path = str(tmp_path_factory.mktemp("parts") / "parts.db")
    for family, text in SERVED:
        run_ok("build", family, text, "--db", path)
    # a start too big to value on a page: its build stopped, its part is not in the table
    run_ok("build", "nodekayles", "5x5", "--db", path, "--max-states", "30")
    with start_server(path) as running:
        yield running


def position_path(family: str, text: str) -> str:
    game = load_game(family)
    return f"/position?spec={family}&p={quote(game.format(game.parse(text)))}"


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize(("family", "text"), SERVED)
def test_the_position_page_draws_each_part(tab: Tab, family, text):
    tab.open(position_path(family, text))
    tab.wait_for_graph()
    check_figures(tab.page, family, text)
    tab.check_clean()


@pytest.mark.browser
@pytest.mark.slow
def test_a_part_too_big_to_value_on_a_page_is_drawn_without_its_value(tab: Tab):
    tab.open(position_path("nodekayles", "5x5"))
    tab.wait_for_graph()
    figures = tab.page.evaluate(FIGURES)
    assert [(f["kind"], f["value"], f["vertices"], f["edges"]) for f in figures] == [
        ("graph", "", 25, 40)
    ]
    assert figures[0]["caption"].endswith("G = ?")
    assert "explorer solve" in tab.page.text_content("#parts-xor")
    tab.check_clean()


def test_served_pages_answer_without_a_browser(tmp_path):
    path = str(tmp_path / "p.db")
    run_ok("build", "cram", "2x3", "--db", path)
    with start_server(path) as running:
        reply = running.get(position_path("cram", "2x3"))
    assert reply.status == 200
    assert reply.body.count('<figure class="explorer-part"') == 1
    value = cram_brute(["...", "..."])
    # one part: its value once, beside its picture, and no sum "G = 1 = 1"
    assert f'<span class="part-value">G = {value}</span>' in reply.body
    assert 'id="parts-xor"' not in reply.body
    assert "style=" not in reply.body.split('id="parts"')[1].split("</section>")[0]


def test_a_page_never_shows_a_part_value_changed_in_the_database(tmp_path):
    import sqlite3

    path = str(tmp_path / "p.db")
    run_ok("build", "nodekayles", "W7+K3_3", "--db", path)
    with sqlite3.connect(path) as conn:  # the wheel's value, stored as 9
        changed = conn.execute(
            "UPDATE part_values SET value = 9 WHERE family = 'nodekayles' AND label = "
            "(SELECT label FROM part_values ORDER BY LENGTH(label) DESC, label LIMIT 1)"
        ).rowcount
    assert changed == 1
    PART_TABLE.clear()
    with start_server(path) as running:
        reply = running.get(position_path("nodekayles", "W7+K3_3"))
    assert reply.status == 503
    assert "the part table stores 9 for the nodekayles part labelled" in reply.body
    assert 'class="part-value">G = 9<' not in reply.body


@pytest.fixture(autouse=True)
def _fresh_part_table() -> Iterator[None]:
    PART_TABLE.clear()
    yield
    PART_TABLE.clear()
