"""The play page draws the board or graph being played, in headless Chromium: Node-Kayles on a
3x3 grid drawn as a grid (vertex names at their cells), Cram's 3x4 board cell by cell; making
a move redraws it, the taken vertices or the domino's cells gone; screenshots kept for a look.
The position page draws the whole position too, and its search box suggests a position of
its own game."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.support.browser import Tab
from tests.support.cli import run_ok
from tests.support.serve import Server, start_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # headless Chromium

#: Set to a folder to keep the screenshots there.
SCREENSHOTS = os.environ.get("EXPLORER_SCREENSHOTS")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("play-board") / "boards.db")
    run_ok("build", "nodekayles", "3x3", "--db", path)
    run_ok("build", "cram", "3x4", "--db", path)
    return path


@pytest.fixture(scope="module")
def server(stored: str) -> Iterator[Server]:
    with start_server(stored) as running:
        yield running


def _shot(tab: Tab, folder: Path, name: str) -> None:
    shot = folder / name
    tab.page.locator("#board").screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if SCREENSHOTS:
        shutil.copy(shot, Path(SCREENSHOTS) / name)


def _vertices(tab: Tab) -> dict[str, tuple[float, float]]:
    """The vertices the board shows, by name, where they are drawn."""
    found = tab.page.eval_on_selector_all(
        "#board circle.vertex",
        "cs => cs.map(c => [c.textContent, +c.getAttribute('cx'), +c.getAttribute('cy')])",
    )
    return {name: (x, y) for name, x, y in found}


def test_playing_node_kayles_on_a_grid_redraws_the_grid(tab: Tab, tmp_path: Path):
    tab.open("/play?spec=nodekayles&p=3x3&app=second")
    shown = tab.page.locator("#board svg")
    assert shown.is_visible()
    start = _vertices(tab)
    assert sorted(start, key=int) == [str(v) for v in range(9)]
    # a grid: three columns and three rows of equal steps, vertex v at row v // 3, column v % 3
    xs = sorted({x for x, _ in start.values()})
    ys = sorted({y for _, y in start.values()})
    assert len(xs) == len(ys) == 3 and xs[1] - xs[0] == xs[2] - xs[1] == ys[1] - ys[0] > 0
    for name, (x, y) in start.items():
        assert (xs.index(x), ys.index(y)) == (int(name) % 3, int(name) // 3)
    assert tab.page.locator("#board path.edge").count() == 12
    _shot(tab, tmp_path, "play-nodekayles-3x3.png")
    # the moves are offered in words; take the centre (b2): the corners are left where they were
    choice = tab.page.locator('#choices a.choice[data-position="0,2,6,8"]')
    assert choice.text_content() == "take vertex 4 (b2)"
    with tab.page.expect_navigation():
        choice.click()
    assert "take vertex 4 (b2)" in str(tab.page.text_content("#history"))
    after = _vertices(tab)
    # the app answered (it moves second): a corner went too; what is left stayed in its cell
    assert set(after) < {"0", "2", "6", "8"} and len(after) == 3
    for name, place in after.items():
        assert place == start[name]
    assert tab.page.locator("#board path.edge").count() == 0
    _shot(tab, tmp_path, "play-nodekayles-3x3-moved.png")
    tab.check_clean()


def _cells(tab: Tab) -> list[str]:
    """The board's cells row by row, '.' empty and '#' filled, as Cram writes positions."""
    found = tab.page.eval_on_selector_all(
        "#board rect",
        "rs => rs.map(r => [+r.getAttribute('y'), +r.getAttribute('x'),"
        " r.classList.contains('cell-empty')])",
    )
    rows: dict[float, list[tuple[float, bool]]] = {}
    for y, x, empty in found:
        rows.setdefault(y, []).append((x, empty))
    return [
        "".join("." if empty else "#" for _, empty in sorted(row))
        for _, row in sorted(rows.items())
    ]


def test_playing_cram_redraws_the_board(tab: Tab, tmp_path: Path):
    tab.open("/play?spec=cram&p=3x4&app=second")
    assert _cells(tab) == ["....", "....", "...."]
    _shot(tab, tmp_path, "play-cram-3x4.png")
    choice = tab.page.locator('#choices a.choice[data-position="..../.##./...."]')
    assert choice.text_content() == "domino on b2-c2"
    with tab.page.expect_navigation():
        choice.click()
    line = tab.query()["p"]
    assert line[1] == "..../.##./...."
    # the board drawn is the position now, after the app's answer: our domino and its
    drawn = "/".join(_cells(tab))
    assert drawn == line[-1] == tab.page.text_content("#current")
    assert drawn.count("#") == 4
    _shot(tab, tmp_path, "play-cram-3x4-moved.png")
    tab.check_clean()


def test_the_position_page_draws_the_position_and_suggests_one_of_its_game(tab: Tab):
    tab.open(
        f"/position?spec=nodekayles&p={quote('0-1,0-3,1-2,1-4,2-5,3-4,3-6,4-5,4-7,5-8,6-7,7-8')}"
    )
    assert len(_vertices(tab)) == 9
    # one part: its value once, no "G = 1 = 1"
    text = str(tab.page.text_content("main"))
    assert re.search(r"G = (\d+) = \1", text) is None
    assert tab.page.locator("#parts-xor").count() == 0
    placeholder = tab.page.get_attribute("form.search input[name=q]", "placeholder")
    assert placeholder == "e.g. 0-1,0-3,1-2,1-4,2-5,3-4,3-6,4-5,4-7,5-8,6-7,7-8"
    names = tab.page.eval_on_selector_all("#moves .move-name", "s => s.map(e => e.textContent)")
    assert sorted(names) == sorted(
        f"take vertex {v} ({'abc'[v % 3]}{v // 3 + 1})" for v in range(9)
    )
    tab.check_clean()
