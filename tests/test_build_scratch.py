"""A build in tiers stopped part way (here by its memory bound) stores its states and the moves
of the tiers it expanded, packed in their rows both ways, and run again ends with the rows a
build on one worker stores."""

from __future__ import annotations

import sqlite3

from explorer import open_database
from explorer.build import tier_manager as tiered
from tests.support.cli import run_json
from tests.support.storage import content


def test_a_build_in_tiers_stopped_part_way_is_stored_and_continues(tmp_path, monkeypatch):
    monkeypatch.setattr(tiered, "COMMIT_STATES", 50)
    db, one = tmp_path / "g.db", str(tmp_path / "one.db")
    with open_database(one) as database:
        database.game("kayles").build("6,7,9", workers=1)
    with open_database(str(db)) as database:
        stopped = database.game("kayles").build("6,7,9", workers=2, memory=1)
        assert stopped.stopped_by == "memory"
    with sqlite3.connect(db) as conn:  # a row is written once its tier is solved, whole
        assert conn.execute("SELECT COUNT(*) FROM states").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM tiers").fetchone()[0] == 0
    with open_database(str(db)) as database:
        assert database.game("kayles").build("6,7,9", workers=2).status == "complete"
    assert not [p for p in tmp_path.iterdir() if "-tiers-" in p.name]
    assert content(one, "octal:0.77") == content(str(db), "octal:0.77")
    assert run_json("verify", "--db", str(db))["ok"]
