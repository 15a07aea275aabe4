"""Small things of `explorer serve`: the state list's totals and its last page, its own words
on Ctrl-C, and no ``-wal``/``-shm`` files left beside the database once it stops."""

from __future__ import annotations

import re
import signal
import sqlite3
import time
from contextlib import closing

from explorer import open_database
from tests.support.serve import start_server


def _built(tmp_path):
    path = tmp_path / "games.db"
    with open_database(str(path)) as db:
        db.game("nim").build("3,4,5")
        db.game("kayles").build("30")
    return path


def _count(path, where: str = "") -> int:
    with closing(sqlite3.connect(path)) as conn:
        return int(
            conn.execute(
                "SELECT COUNT(*) FROM states AS s JOIN games AS g ON g.id = s.game_id "
                f"WHERE g.spec = 'octal:0.77' {where}"
            ).fetchone()[0]
        )


def test_the_state_list_gives_totals_and_no_page_past_the_last(tmp_path):
    path = _built(tmp_path)
    total, p_states = _count(path), _count(path, "AND s.outcome = 'P'")
    pages = -(-total // 50)
    with start_server(f"sqlite:///{path}") as server:
        first = server.get("/states?spec=kayles")
        assert first.status == 200
        assert f"States 1 to 50 of {total:,}," in first.body
        assert f"page 1 of {pages:,}" in first.body
        last = server.get(f"/states?spec=kayles&page={pages}")
        assert last.status == 200 and f"of {total:,}," in last.body
        assert 'rel="next"' not in last.body
        for page in (pages + 1, 99_999):
            past = server.get(f"/states?spec=kayles&page={page}")
            # an empty page, as a filter no state matches, leading back to the last page
            assert past.status == 200 and 'id="states"' not in past.body
            assert f"they fill {pages:,} page" in past.body and 'rel="prev"' in past.body
        only_p = server.get("/states?spec=kayles&outcome=P")
        assert f"of {p_states:,}," in only_p.body
        both = server.get("/states?spec=kayles&outcome=P&depth=1")  # no stored count: no total
        assert both.status == 200 and not re.search(r"States 1 to \d+ of", both.body)


def test_ctrl_c_stops_serve_in_its_own_words_and_tidies_the_files(tmp_path):
    path = _built(tmp_path)
    with start_server(f"sqlite:///{path}") as server:
        assert server.get("/states?spec=nim").status == 200  # reads: -wal and -shm appear
        assert (tmp_path / "games.db-shm").exists()
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(timeout=60) == 130
        for _ in range(50):  # the log is read by a thread: let it reach the end
            if "stopped serving" in server.log:
                break
            time.sleep(0.1)
        log = server.log
    assert "stopped serving" in log and "nothing to resume" in log
    assert "run the same command again" not in log
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.db"]


def test_listing_totals_come_from_the_stored_counts(db_url):
    """The totals the state list shows, read from the counts, equal a count of the rows."""
    with open_database(db_url) as db:
        kayles = db.game("kayles")
        kayles.build("16")
        for filters in ({}, {"outcome": "P"}, {"grundy": 1}, {"depth": 2}, {"grundy": 99}):
            cheap = kayles.states(count=False, limit=5, **filters)
            exact = kayles.states(count=True, limit=5, **filters)
            assert cheap["total"] == exact["total"], filters
            assert cheap["states"] == exact["states"] and cheap["more"] == exact["more"]
        both = kayles.states(count=False, outcome="P", depth=2)
        assert both["total"] is None  # no stored count of two filters: not counted
