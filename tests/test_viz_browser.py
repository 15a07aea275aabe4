"""The graph pages in headless Chromium (Debian's, through Playwright): they load offline without
errors, show every state and move, give the right values on hover, and never run a label."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from explorer import open_database
from explorer.games import load_game
from explorer.viz import GraphPage, draw_game, draw_graph, draw_stored, game_graph
from tests.support.bruteforce import brute_nim, distances
from tests.support.pages import HOSTILE, HOSTILE_FILE, NASTY, page_data

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # headless Chromium


@dataclass
class Loaded:
    """A page opened in the browser, and everything it did on the way."""

    page: Any
    url: str
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def check_clean(self) -> None:
        assert self.errors == [] and self.failed == [] and self.dialogs == []
        assert self.requests == [self.url]  # the file itself, nothing else

    def count(self, expression: str) -> Any:
        return self.page.evaluate(expression)


@pytest.fixture
def open_page(browser: Any, tmp_path: Path) -> Iterator[Any]:
    contexts = []

    def opener(drawn: GraphPage, name: str = "page.html") -> Loaded:
        path = drawn.save(tmp_path / name)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        loaded = Loaded(page, path.as_uri())
        page.on("request", lambda r: loaded.requests.append(r.url))
        page.on("requestfailed", lambda r: loaded.failed.append(r.url))
        page.on("pageerror", lambda e: loaded.errors.append(str(e)))
        page.on(
            "console",
            lambda m: (
                m.type in ("error", "warning") and loaded.errors.append(f"{m.type}: {m.text}")
            ),
        )

        def dialog(d: Any) -> None:
            loaded.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", dialog)
        page.goto(loaded.url)
        page.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=30_000)
        return loaded

    yield opener
    for context in contexts:
        context.close()


def hover(loaded: Loaded, node_id: int, position: str) -> str:
    """Move the mouse onto a node and return its tooltip's text."""
    page = loaded.page
    where = page.evaluate(
        """(id) => {
            const dom = network.canvasToDOM(network.getPositions([id])[id]);
            const box = document.getElementById('mynetwork').getBoundingClientRect();
            return {x: box.left + dom.x, y: box.top + dom.y};
        }""",
        node_id,
    )
    page.mouse.move(5, 5)
    page.mouse.move(where["x"], where["y"], steps=4)
    page.wait_for_function(
        """(first) => {
            const tip = document.querySelector('div.vis-tooltip');
            return tip && tip.style.visibility !== 'hidden' && tip.innerText.startsWith(first);
        }""",
        arg=f"position: {position}",
        timeout=5_000,
    )
    return page.inner_text("div.vis-tooltip")


def test_page_loads_offline_with_every_state_and_move(open_page):
    nim = load_game("nim")
    values, _, moves = brute_nim((1, 2, 3))
    loaded = open_page(draw_game(nim, nim.parse("1,2,3")))
    loaded.check_clean()
    expected = (len(values), sum(len(qs) for qs in moves.values()))
    assert (loaded.count("nodes.length"), loaded.count("edges.length")) == expected
    # what vis-network actually drew, not only what it was given
    assert loaded.count("[network.body.nodeIndices.length, network.body.edgeIndices.length]") == (
        list(expected)
    )
    assert loaded.count("network.physics.options.enabled") is False
    assert loaded.page.is_visible("ul.explorer-legend")


def test_hovering_shows_each_states_values(open_page):
    nim = load_game("nim")
    values, far, moves = brute_nim((1, 2, 3))
    drawn = draw_game(nim, nim.parse("1,2,3"))
    loaded = open_page(drawn)
    nodes, _ = page_data(drawn.html)
    for node in nodes:
        p = nim.parse(node["position"])
        g = values[p]
        assert hover(loaded, node["id"], node["position"]).split("\n") == [
            f"position: {node['position']}",
            f"Grundy value: {g}",
            "outcome: "
            + ("P (the player to move loses)" if g == 0 else "N (the player to move wins)"),
            f"remoteness: {far[p]}",
            f"moves: {len(moves[p])}",
        ]
    loaded.check_clean()


# Every drawn move, sampled along the curve vis-network really draws, against the boxes of the
# states it does not join.
THROUGH_STATES = """() => {
  const boxes = nodes.getIds().map(id => [id, network.getBoundingBox(id)]);
  const hits = [];
  for (const id of edges.getIds()) {
    const edge = network.body.edges[id];
    for (let k = 1, hit = false; k < 50 && !hit; k++) {
      const p = edge.edgeType.getPoint(k / 50);
      for (const [node, b] of boxes) {
        if (node !== edge.fromId && node !== edge.toId &&
            p.x > b.left && p.x < b.right && p.y > b.top && p.y < b.bottom) {
          hits.push([edge.fromId, edge.toId, nodes.get(node).position]);
          hit = true;
          break;
        }
      }
    }
  }
  return hits;
}"""


def test_moves_are_bent_around_the_states_they_skip(open_page):
    # the subtraction game S = {1, 2, 3} from 10, as note 003 draws it: no move crosses a state
    game = load_game("subtraction:1,2,3")
    loaded = open_page(draw_game(game, game.parse("10")), "note003.html")
    assert loaded.count("edges.get().filter(e => e.smooth).length") > 0
    assert loaded.count(THROUGH_STATES) == []
    # in Nim some crossings cannot be avoided by a bend, but every bent move and every winning
    # move is clear of the states between its ends
    nim = load_game("nim")
    drawn = draw_game(nim, nim.parse("1,2,3"))
    loaded = open_page(drawn, "nim.html")
    _, edges = page_data(drawn.html)
    bent = {(e["from"], e["to"]) for e in edges if "smooth" in e}
    winning = {(e["from"], e["to"]) for e in edges if "title" in e}
    values, _, moves = brute_nim((1, 2, 3))
    assert len(winning) == sum(values[q] == 0 for qs in moves.values() for q in qs)
    assert len(bent) >= 5
    hits = loaded.count(THROUGH_STATES)
    assert [hit for hit in hits if (hit[0], hit[1]) in bent | winning] == []
    loaded.check_clean()


def nasty_graph() -> nx.DiGraph:
    labels = [
        *NASTY,
        '<img src=x onerror="window.pwned = 1">',
        "</script><script>window.pwned = 2</script>",
    ]
    graph = nx.DiGraph(game="<b>hand-made</b>", root=labels[0])
    graph.add_node(labels[0], grundy=1, outcome="N", remoteness=1)
    for label in labels[1:]:
        graph.add_node(label, grundy=0, outcome="P", remoteness=0)
        graph.add_edge(labels[0], label)
    return graph


def check_inert(loaded: Loaded) -> None:
    """Nothing a label says became markup or ran."""
    loaded.check_clean()
    assert loaded.count("typeof window.pwned") == "undefined"
    assert loaded.count("document.querySelectorAll('img, a, b, iframe, object').length") == 0
    assert loaded.count("document.scripts.length") == 4


def test_hostile_labels_are_shown_as_text_and_never_run(open_page):
    graph = nasty_graph()
    drawn = draw_graph(graph)
    loaded = open_page(drawn)
    check_inert(loaded)
    assert loaded.page.inner_text("h1") == f"<b>hand-made</b> from {HOSTILE}"
    nodes, _ = page_data(drawn.html)
    for node in nodes:
        text = hover(loaded, node["id"], node["position"])
        value = graph.nodes[node["position"]]["grundy"]
        assert text.startswith(f"position: {node['position']}\nGrundy value: {value}\n")
        # the tooltip holds text and line breaks only
        assert loaded.count("document.querySelectorAll('div.vis-tooltip *:not(br)').length") == 0
    assert loaded.count("nodes.get().map(n => n.label)") == [n["label"] for n in nodes]
    check_inert(loaded)


def test_template_syntax_script_ends_and_quotes_render_as_text(open_page):
    # the page comes from templates: what looks like template syntax, the end of a script or
    # an attribute's quotes in a name is still only text, in the heading, labels and tooltips
    first = "{{ 7 * 7 }}{% if 1 %}</script><script>window.pwned = 3</script>"
    second = "\"quoted\" & 'single' </title><b>"
    graph = nx.DiGraph(game=first, root=first)
    graph.add_node(first, grundy=1, outcome="N", remoteness=1)
    graph.add_node(second, grundy=0, outcome="P", remoteness=0)
    graph.add_edge(first, second)
    drawn = draw_graph(graph)
    loaded = open_page(drawn)
    check_inert(loaded)
    heading = f"{first} from {first}"
    assert loaded.page.inner_text("h1") == heading and loaded.page.title() == heading
    assert loaded.count("nodes.get().map(n => n.position)") == [first, second]
    assert loaded.count("nodes.get().map(n => n.label)") == [
        f"{first[:23]}…\nG 1",
        f"{second[:23]}…\nG 0",
    ]
    assert loaded.count("edges.get().map(e => e.title)") == [
        f"{first} → {second}: winning move (into a P-position)"
    ]
    for node in page_data(drawn.html)[0]:
        assert hover(loaded, node["id"], node["position"]).startswith(
            f"position: {node['position']}\nGrundy value: {node['grundy']}\n"
        )
    check_inert(loaded)


def test_hostile_dag_file_is_inert_in_the_browser(open_page):
    game = load_game(f"dag:{HOSTILE_FILE}")
    drawn = draw_game(game, game.parse(HOSTILE))
    loaded = open_page(drawn)
    check_inert(loaded)
    vertices = json.loads(HOSTILE_FILE.read_text(encoding="utf-8"))["vertices"]
    assert sorted(loaded.count("nodes.get().map(n => n.position)")) == sorted(vertices)
    start = next(n for n in page_data(drawn.html)[0] if n["position"] == HOSTILE)
    assert hover(loaded, start["id"], HOSTILE).startswith(f"position: {HOSTILE}\nGrundy value: ")
    check_inert(loaded)


def test_cut_page_draws_the_budget_and_says_so(open_page):
    nim = load_game("nim")
    drawn = draw_game(nim, nim.parse("5,6,7"), budget=60)
    loaded = open_page(drawn)
    loaded.check_clean()
    assert loaded.count("network.body.nodeIndices.length") == 60
    assert loaded.page.inner_text(".explorer-note") == drawn.note


def test_a_big_games_default_page_opens_readable(open_page):
    # the 2,000 states Kayles 30 drew by default opened at a zoom of 0.02: labels under a pixel
    kayles = load_game("kayles")
    loaded = open_page(draw_game(kayles, kayles.parse("28")))
    loaded.check_clean()
    assert loaded.count("network.body.nodeIndices.length") <= 50
    assert 14 * loaded.count("network.getScale()") >= 7  # labels at least 7 px high
    note = loaded.page.inner_text(".explorer-note")
    assert note.startswith("A big graph: showing 50 of 4,565 states")


def test_neighbourhood_page_in_the_browser(open_page):
    nim = load_game("nim")
    _, _, moves = brute_nim((3, 4))
    near = distances(moves, (2, 3), both_ways=True)
    graph = game_graph(nim, nim.parse("3,4"), around=nim.parse("2,3"), depth=1)
    loaded = open_page(draw_graph(graph))
    loaded.check_clean()
    shown = {nim.parse(p) for p in loaded.count("nodes.get().map(n => n.position)")}
    assert shown == {p for p, d in near.items() if d <= 1}


def test_stored_neighbourhood_page_shows_exactly_that_neighbourhood(open_page, db_url):
    nim = load_game("nim")
    with open_database(db_url) as database:
        database.game("nim").build("3,4")
        drawn = draw_stored(database.game("nim"), "2,3", depth=2)
    values, _, moves = brute_nim((3, 4))
    near = {p for p, d in distances(moves, (2, 3), both_ways=True).items() if d <= 2}
    loaded = open_page(drawn)
    loaded.check_clean()
    shown = loaded.count("nodes.get().map(n => [n.position, n.grundy])")
    assert {nim.parse(p) for p, _ in shown} == near and len(shown) == len(near)
    assert all(g == values[nim.parse(p)] for p, g in shown)
    pairs = loaded.count(
        "edges.get().map(e => [nodes.get(e.from).position, nodes.get(e.to).position])"
    )
    assert {(nim.parse(a), nim.parse(b)) for a, b in pairs} == {
        (p, q) for p in near for q in moves[p] if q in near
    }
    assert loaded.count("network.body.nodeIndices.length") == len(near)
    centre = next(n for n in page_data(drawn.html)[0] if n["position"] == "2,3")
    assert hover(loaded, centre["id"], "2,3").startswith(
        f"position: 2,3\nGrundy value: {values[(2, 3)]}\n"
    )


def test_condensed_page_in_the_browser(open_page):
    nim = load_game("nim")
    values, _, _ = brute_nim((4, 5, 6))
    loaded = open_page(draw_game(nim, nim.parse("4,5,6"), condensed="grundy"))
    loaded.check_clean()
    counts = loaded.count("Object.fromEntries(nodes.get().map(n => [n.group_key, n.states]))")
    expected: dict[str, int] = {}
    for g in values.values():
        expected[str(g)] = expected.get(str(g), 0) + 1
    assert counts == expected


# Each state's box, in the page's coordinates, outside the frame or the window.
OUT_OF_VIEW = """() => {
  const frame = document.getElementById('mynetwork').getBoundingClientRect();
  const out = [];
  for (const id of nodes.getIds()) {
    const b = network.getBoundingBox(id);
    const a = network.canvasToDOM({x: b.left, y: b.top});
    const z = network.canvasToDOM({x: b.right, y: b.bottom});
    if (a.x < 0 || a.y < 0 || z.x > frame.width || z.y > frame.height ||
        frame.top + z.y > window.innerHeight) {
      out.push(id);
    }
  }
  return out;
}"""


@pytest.mark.parametrize(
    ("start", "condensed"), [("6,7,8,9", "grundy"), ("6,7,8,9", "depth"), ("3,4,5", None)]
)
def test_every_state_stays_in_view_when_the_window_changes(open_page, start, condensed):
    nim = load_game("nim")
    loaded = open_page(draw_game(nim, nim.parse(start), condensed=condensed))
    assert loaded.count(OUT_OF_VIEW) == []
    # vis-network rescales the view by its own rule when the frame changes size: growing
    # taller zoomed in and cut off the outer groups
    for width, height in [(1000, 600), (1000, 1000), (700, 1000), (1200, 700)]:
        loaded.page.set_viewport_size({"width": width, "height": height})
        loaded.page.wait_for_timeout(800)
        assert loaded.count(OUT_OF_VIEW) == [], (width, height)
    loaded.check_clean()


@pytest.mark.parametrize(
    ("spec", "start", "condensed"),
    [
        ("nim", "1,2,3", None),
        ("kayles", "30", None),
        ("nim", "6,7,8,9", "grundy"),
        ("kayles", "30", "depth"),
    ],
)
def test_notebook_picture_draws_every_state_inside_the_picture(browser, spec, start, condensed):
    game = load_game(spec)
    drawn = draw_game(game, game.parse(start), condensed=condensed)
    context = browser.new_context(viewport={"width": 900, "height": 800})
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_content(f"<html><body>{drawn._repr_html_()}</body></html>")
        found = page.evaluate(
            """() => {
                const svg = document.querySelector('svg');
                const frame = svg.getBoundingClientRect();
                const states = [...svg.querySelectorAll(':scope > g')];
                const outside = states.filter(g => {
                    const b = g.getBoundingClientRect();
                    return b.left < frame.left - 0.5 || b.right > frame.right + 0.5 ||
                           b.top < frame.top - 0.5 || b.bottom > frame.bottom + 0.5;
                }).length;
                return {states: states.length, moves: svg.querySelectorAll(':scope > path').length,
                        outside: outside, width: frame.width,
                        labels: states.map(g => g.querySelector('text').textContent)};
            }"""
        )
        assert errors == [] and page.evaluate("document.scripts.length") == 0
        nodes, edges = page_data(drawn.html)
        assert (found["states"], found["moves"], found["outside"]) == (len(nodes), len(edges), 0)
        assert found["labels"] == [n["label"].replace("\n", "") for n in nodes]
        assert 0 < found["width"] <= 900
    finally:
        context.close()


def test_page_draws_inside_a_notebook_iframe(browser):
    nim = load_game("nim")
    drawn = draw_game(nim, nim.parse("1,2"))
    context = browser.new_context()
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_content(
            f"<html><body>{drawn.interactive(standalone=True)._repr_html_()}</body></html>"
        )
        frame = page.frames[1]
        frame.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=30_000)
        assert frame.evaluate("network.body.nodeIndices.length") == drawn.nodes == 5
        assert errors == []
    finally:
        context.close()


def test_shared_pages_draw_after_the_first_in_one_document(browser):
    """The first interactive page of a kernel carries the library, the next ones share it
    (tests/test_notebook_shared.py checks it in a real notebook)."""
    from explorer.viz.notebook import _Kernel

    saved, _Kernel.library_shown = _Kernel.library_shown, False
    try:
        first = draw_game("nim", "1,2").interactive()._repr_html_()
        second = draw_game("nim", "2,2").interactive()._repr_html_()
    finally:
        _Kernel.library_shown = saved
    assert len(second) < 100_000 < len(first)
    context = browser.new_context(bypass_csp=True)  # Playwright's waits evaluate strings
    try:
        page = context.new_page()
        page.set_content(f"<html><body>{first}{second}</body></html>")
        nodes = []
        for i, frame in enumerate(page.frames[1:]):
            page.locator("iframe").nth(i).scroll_into_view_if_needed()
            frame.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=30_000)
            nodes.append(frame.evaluate("network.body.nodeIndices.length"))
        assert nodes == [5, 6]
    finally:
        context.close()
