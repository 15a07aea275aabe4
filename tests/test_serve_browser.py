"""`explorer serve` in headless Chromium (Debian's, through Playwright), against a real uvicorn.

The games page lists what `stats` lists; clicking a state in the graph goes to its page and the
back button returns; the best move is a winning one exactly at N-positions; the app wins when it
can, and loses to perfect play; hostile names stay text; no request leaves the app.
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from explorer import load_game, solve
from tests.support.browser import Tab
from tests.support.cli import run_ok
from tests.support.pages import HOSTILE_FILE
from tests.support.serve import Server, start_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]  # headless Chromium


#: Set to a folder to keep the position page's screenshot there (the README's image is the same
#: page of nim 3,4,5, served from the explorer.db the README's install commands write).
SCREENSHOTS = os.environ.get("EXPLORER_SCREENSHOTS")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    tmp = tmp_path_factory.mktemp("serve-browser")
    path = str(tmp / "games.db")
    for spec, position in [("nim", "3,4,5"), ("kayles", "9"), ("wythoff", "5,6"), ("nim", "2,2,3")]:
        run_ok("build", spec, position, "--db", path)
    hostile = tmp / "hostile-labels.json"
    shutil.copy(HOSTILE_FILE, hostile)
    run_ok("import", str(hostile), "--db", path)
    return path, f"dag:{hostile}"


@pytest.fixture(scope="module")
def server(stored: tuple[str, str]) -> Iterator[Server]:
    with start_server(stored[0]) as running:
        yield running


def position_path(spec: str, position: str) -> str:
    return f"/position?spec={quote(spec)}&p={quote(position)}"


def test_games_page_lists_what_stats_lists(tab: Tab, stored: tuple[str, str]):
    listed = [
        {key: game[key] for key in ("game", "states", "edges")}
        for game in json.loads(run_ok("stats", "--db", stored[0], "--json"))
    ]
    tab.open("/")
    # on a big database the page shows what it has counted so far and reloads itself
    tab.page.wait_for_function("!document.body.textContent.includes('counting')", timeout=60_000)
    rows = tab.page.eval_on_selector_all(
        "#games tbody tr",
        """rows => rows.map(r => ({
            game: r.querySelector('a.game').textContent,
            states: Number(r.querySelector('.states').textContent.replace(/,/g, '')),
            edges: Number(r.querySelector('.edges').textContent.replace(/,/g, '')),
        }))""",
    )
    assert rows == listed and len(rows) == 4
    tab.check_clean()


def test_clicking_a_state_goes_to_its_page_and_back_returns(tab: Tab):
    tab.open(position_path("nim", "3,4,5"))
    tab.wait_for_graph()
    assert tab.heading() == "3,4,5"
    for target in ["1,4,5", "3,4"]:
        at = tab.page.evaluate("p => window.explorerNodeAt(p)", target)
        tab.page.mouse.click(at["x"], at["y"])
        tab.page.wait_for_url(f"**{position_path('nim', target)}")
        assert tab.heading() == target
        assert tab.page.title().startswith(f"nim {target}")
        tab.wait_for_graph()
        tab.page.go_back()
        tab.page.wait_for_url(lambda url: parse_qs(urlsplit(url).query).get("p") == ["3,4,5"])
        assert tab.heading() == "3,4,5"
        tab.wait_for_graph()
    tab.page.go_forward()
    tab.page.wait_for_url(lambda url: parse_qs(urlsplit(url).query).get("p") == ["3,4"])
    assert tab.heading() == "3,4"
    tab.check_clean()


@pytest.mark.parametrize(
    ("spec", "position"),
    [("nim", "3,4,5"), ("nim", "1,4,5"), ("nim", "2,2,3"), ("nim", "2,2"), ("nim", "0")]
    + [("octal:0.77", str(n)) for n in range(10)]
    + [("wythoff", "1,2"), ("wythoff", "4,6"), ("wythoff", "3,5")],
)
def test_the_first_move_wins_exactly_at_n_positions(tab: Tab, spec: str, position: str):
    game = load_game(spec)
    key = game.format(game.parse(position))
    tab.open(position_path(spec, key))
    outcome = str(tab.page.text_content("#outcome"))
    first = tab.page.query_selector("#moves li")
    truth = solve(game, game.parse(key), method="graph").outcome
    assert outcome.startswith(truth)
    if first is None:
        assert truth == "P"  # no move at all: the player to move loses
        return
    assert ("win" in str(first.get_attribute("class")).split()) == (truth == "N")
    tab.check_clean()


def _play(tab: Tab, choose: Any) -> tuple[str, list[str]]:
    """Play the game in the tab until it ends, choosing our moves with `choose`."""
    for _ in range(100):
        result = tab.page.query_selector("#result")
        if result is not None:
            return str(result.get_attribute("data-winner")), tab.query()["p"]
        offered = tab.page.eval_on_selector_all(
            "#choices a.choice", "links => links.map(a => a.dataset.position)"
        )
        current = str(tab.page.text_content("#current"))
        picked = choose(current, offered)
        with tab.page.expect_navigation():  # to our move, then (redirected) to the app's reply
            tab.page.click(f'#choices a.choice[data-position="{picked}"]')
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_app_moving_first_from_an_n_position_beats_random_replies(tab: Tab, seed: int):
    chance = random.Random(seed)
    tab.open("/play?spec=nim&p=3,4,5&app=first")
    winner, line = _play(tab, lambda _, offered: chance.choice(offered))
    assert winner == "app"
    nim = load_game("nim")
    assert len(line) % 2 == 0  # the app, moving first, made the last move
    # the app always moved to a P-position
    for i in range(1, len(line), 2):
        assert solve(nim, nim.parse(line[i]), method="graph").outcome == "P"
    tab.check_clean()


@pytest.mark.parametrize(
    ("spec", "start"), [("nim", "3,4,5"), ("octal:0.77", "9"), ("wythoff", "5,6")]
)
def test_winning_moves_from_an_n_position_beat_the_app(tab: Tab, spec: str, start: str):
    game = load_game(spec)
    assert solve(game, game.parse(start), method="graph").outcome == "N"

    def winning(current: str, offered: list[str]) -> str:
        moves = [m for m in offered if solve(game, game.parse(m), method="graph").outcome == "P"]
        assert moves, current
        return moves[0]

    tab.open(f"/play?spec={quote(spec)}&p={quote(start)}&app=second")
    winner, line = _play(tab, winning)
    assert winner == "you" and len(line) % 2 == 0  # we moved first and last
    tab.check_clean()


def test_hostile_names_render_as_text(tab: Tab, stored: tuple[str, str]):
    spec = stored[1]
    names = json.loads(HOSTILE_FILE.read_text(encoding="utf-8"))["vertices"]
    for name in names[:8] + [names[-1]]:
        tab.open(position_path(spec, name))
        tab.wait_for_graph()
        assert tab.heading() == name
        assert tab.page.evaluate("document.querySelectorAll('img, iframe, object').length") == 0
        drawn = tab.page.evaluate(
            "window.explorerNetwork.body.data.nodes.get().map(n => n.position)"
        )
        assert name in drawn
        for link in tab.page.eval_on_selector_all(
            "#moves a.position, #predecessors a.position", "links => links.map(a => a.textContent)"
        ):
            assert link in names
    tab.open("/")
    assert spec in str(tab.page.text_content("#games"))
    tab.check_clean()


def test_position_page_screenshot(tab: Tab, tmp_path: Path):
    tab.open(position_path("nim", "3,4,5"))
    tab.wait_for_graph()
    tab.page.wait_for_timeout(300)
    shot = tmp_path / "serve-position.png"
    tab.page.screenshot(path=str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    if SCREENSHOTS:
        shutil.copy(shot, Path(SCREENSHOTS) / shot.name)
    tab.check_clean()
