"""The play page as a hostile tester found it (issue 35), over HTTP on SQLite and PostgreSQL:
a misère game states the misère rule, a position a stopped build never expanded is not "game
over", and a game with cycles at the page's 1,000 moves stops there instead of redirecting to
an address it refuses."""

from __future__ import annotations

from urllib.parse import quote

import pytest
import sqlalchemy as sa

from tests.support.cli import run_json
from tests.support.environment import DATA
from tests.support.serve import start_server
from tests.support.storage import resolve_url

pytestmark = pytest.mark.slow  # a server process


def test_the_play_page_says_what_is_stored_and_which_rule(db_url: str) -> None:
    run_json("build", "nim", "2,2", "--misere", "--db", db_url)
    run_json("build", "nim", "2,2", "--db", db_url)
    # a bound under the root's 13 states (itself and its 12 moves): a partial build
    run_json("build", "kayles", "12", "--max-states", "20", "--db", db_url)
    graph = f"graph:{DATA / 'loopy.json'}"
    run_json("import", graph, "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    with engine.connect() as conn:
        unexpanded = conn.execute(
            sa.text(
                "SELECT s.key FROM states AS s JOIN games AS g ON g.id = s.game_id "
                "WHERE g.spec = 'octal:0.77' AND NOT s.expanded ORDER BY s.id LIMIT 1"
            )
        ).scalar_one()
        stored = conn.execute(sa.text("SELECT spec FROM games WHERE family = 'graph'")).scalar_one()
    engine.dispose()
    with start_server(db_url) as server:
        misere = server.request("/play?spec=nim&convention=misere&p=2,2")
        assert misere.status == 200
        assert "In misère play the player who cannot move wins" in misere.body
        assert "The player who cannot move loses" not in misere.body
        normal = server.request("/play?spec=nim&p=2,2")
        assert "The player who cannot move loses" in normal.body

        partial = server.request(f"/play?spec=kayles&p={quote(unexpanded)}&app=second")
        assert partial.status == 200, partial.body
        assert "were never stored" in partial.body and "wins" not in partial.body.split("<h2>")[1]

        loop = "".join(["&p=c"] * 1000)  # c has a move to itself: 1,000 moves made
        long = server.request(f"/play?spec={quote(stored)}&p=c{loop}&app=first")
        assert long.status == 200, long.body[:500]
        assert "has reached 1,000 moves, the most the page replays" in long.body
