"""A game with Python rules, built and then its file deleted, browsed with ``explorer serve`` in
headless Chromium: the stored game is all the app needs, and it never runs the rules."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from tests.support.browser import Tab
from tests.support.cli import run_json
from tests.support.python_games import STONES_HEAP, stones_moves, stones_value, write
from tests.support.serve import Server, start_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # headless Chromium


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A database holding the example game from 6,7, whose file is then deleted."""
    folder = tmp_path_factory.mktemp("python-serve")
    rules = write(folder, "stones.py", STONES_HEAP + "open(__file__ + '.ran', 'w')\n")
    path = str(folder / "games.db")
    spec = run_json("build", f"py:{rules}", "6,7", "--db", path)["game"]
    rules.unlink()
    Path(f"{rules}.ran").unlink()
    return path, spec


@pytest.fixture(scope="module")
def server(stored: tuple[str, str]) -> Iterator[Server]:
    with start_server(stored[0]) as running:
        yield running


def heaps(text: str) -> tuple[int, ...]:
    return tuple(sorted(int(h) for h in text.split(",") if int(h)))


def value(text: str) -> int:
    total = 0
    for h in heaps(text):
        total ^= stones_value(h)
    return total


def test_a_deleted_file_is_still_browsable(tab: Tab, stored: tuple[str, str]) -> None:
    path, spec = stored
    tab.open("/")
    tab.page.wait_for_function("!document.body.textContent.includes('counting')", timeout=60_000)
    listed = tab.page.eval_on_selector_all(
        "#games a.game", "links => links.map(a => a.textContent)"
    )
    assert listed == [spec]
    tab.open(f"/position?spec={quote(spec)}&p=6,7")
    tab.wait_for_graph()
    assert tab.heading() == "6,7"
    assert str(tab.page.text_content("#outcome")).startswith("N" if value("6,7") else "P")
    target = min(",".join(map(str, m)) or "0" for m in stones_moves((6, 7)))
    at = tab.page.evaluate("p => window.explorerNodeAt(p)", target)
    tab.page.mouse.click(at["x"], at["y"])
    tab.page.wait_for_url(lambda url: parse_qs(urlsplit(url).query).get("p") == [target])
    assert tab.heading() == target
    outcome = str(tab.page.text_content("#outcome"))
    assert outcome.startswith("N" if value(target) else "P")
    tab.check_clean()
    assert not Path(spec.partition(":")[2].rpartition(":")[0] + ".ran").exists()


def test_the_pages_answer_over_http(server: Server, stored: tuple[str, str]) -> None:
    _, spec = stored
    game = server.get(f"/game?spec={quote(spec)}")
    assert game.status == 200 and spec in game.body
    page = server.get(f"/position?spec={quote(spec)}&p=6,7")
    assert page.status == 200
    assert "6,7" in page.body
    assert server.get(f"/position?spec={quote(spec)}&p=6,8").status == 404  # not stored
