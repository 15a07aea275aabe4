"""The scratch files that keep a build in tiers' keys between expansion and solving, on SQLite."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from explorer import open_database
from explorer.build import tier_manager as tiered
from explorer.build.scratch import KeyScratch
from explorer.errors import DatabaseDamagedError
from tests.support.cli import run, run_json
from tests.support.storage import content


def test_keys_read_back_by_id_and_cut_back_to_the_states_committed(tmp_path):
    scratch = KeyScratch(tmp_path / "g.db-tiers-1")
    scratch.start(0)
    keys = [f"{i},{i * 7 % 13}" for i in range(1000)]
    scratch.append(0, keys[:600])
    scratch.append(600, keys[600:])
    run = np.arange(10, 40)
    scattered = np.array([0, 5, 499, 998, 999])  # spread out: read key by key
    assert scratch.keys(run) == keys[10:40]
    assert scratch.keys(scattered) == [keys[i] for i in scattered]
    # a build killed after appending keys it did not commit: taken up at 700 states
    again = KeyScratch(tmp_path / "g.db-tiers-1")
    again.start(700)
    assert scratch.keys_path.read_bytes().decode().split("\n")[:-1] == keys[:700]
    again.append(700, ["x", "yy"])
    assert again.keys(np.array([0, 699, 700, 701])) == [keys[0], keys[699], "x", "yy"]
    again.remove()
    assert not again.keys_path.exists() and not again.ends_path.exists()


def test_files_short_of_the_states_committed_are_refused(tmp_path):
    scratch = KeyScratch(tmp_path / "g.db-tiers-1")
    scratch.start(0)
    scratch.append(0, ["a", "b", "c"])
    with pytest.raises(DatabaseDamagedError, match="hold 3 of its 4 states"):
        KeyScratch(tmp_path / "g.db-tiers-1").start(4)
    with pytest.raises(ValueError, match="line break"):
        scratch.append(3, ["d\ne"])


def test_a_build_in_tiers_keeps_unsolved_keys_in_scratch_files_until_it_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(tiered, "COMMIT_STATES", 50)
    db, one = tmp_path / "g.db", str(tmp_path / "one.db")
    with open_database(one) as database:
        database.game("kayles").build("6,7,9", workers=1)
    with open_database(str(db)) as database:
        stopped = database.game("kayles").build("6,7,9", workers=2, memory=1)
        assert stopped.stopped_by == "memory"
    files = sorted(p.name for p in tmp_path.iterdir() if "-tiers-" in p.name)
    assert files == ["g.db-tiers-1.ends", "g.db-tiers-1.keys"]
    with sqlite3.connect(db) as conn:  # only solved states are stored: none yet
        assert conn.execute("SELECT COUNT(*) FROM states").fetchone() == (0,)
        assert conn.execute("SELECT COUNT(*) FROM edges").fetchone()[0] > 0
    shown = run("stats", "kayles", "--db", str(db))[1]  # the states numbered, not yet stored
    numbered = sum(t["states"] for t in run_json("stats", "kayles", "--db", str(db))["tiers"])
    assert numbered > 0 and f"{numbered:,} more numbered by an unfinished build" in shown
    checked = run_json("verify", "--db", str(db))  # the moves wait for their states
    assert checked["ok"] and "unfinished build in tiers" in checked["games"][0]["rules"]
    with open_database(str(db)) as database:
        assert database.game("kayles").build("6,7,9", workers=2).status == "complete"
    assert not [p for p in tmp_path.iterdir() if "-tiers-" in p.name]
    assert "more numbered" not in run("stats", "kayles", "--db", str(db))[1]
    assert content(one, "octal:0.77") == content(str(db), "octal:0.77")
    assert run_json("verify", "--db", str(db))["ok"]


def test_a_lost_scratch_file_is_one_error_line(tmp_path, monkeypatch):
    monkeypatch.setattr(tiered, "COMMIT_STATES", 50)
    db = tmp_path / "g.db"
    with open_database(str(db)) as database:
        assert database.game("kayles").build("6,7,9", workers=2, memory=1).stopped_by
    (tmp_path / "g.db-tiers-1.keys").unlink()
    code, out, err = run("build", "kayles", "6,7,9", "--db", str(db), "--workers", "2")
    assert code != 0 and err.count("Error:") == 1 and "scratch files" in err, (out, err)
