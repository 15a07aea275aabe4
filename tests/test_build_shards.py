"""Workers writing a build's rows into shard files that an SQLite database takes in whole
(`explorer.build.tier_rows.Shards`): the same content as one process writing, no file left
behind, and a shard lost with its worker written by the writer thread instead."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from explorer import open_database
from explorer.build import tier_manager, tier_rows
from tests.support.cli import run, run_json
from tests.support.storage import content

SPEC, POSITION = "subtraction:1,2", "40,40,40"  # 12,341 states


def _build(path, workers: int) -> None:
    with open_database(str(path)) as db:
        assert db.game(SPEC).build(POSITION, workers=workers).status == "complete"


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_workers_write_shards_and_leave_only_live_builds_folders(tmp_path, monkeypatch):
    submitted = []
    submit = tier_rows.Shards.submit

    def counted(self, write, *args):
        submitted.append(write.states)
        submit(self, write, *args)

    monkeypatch.setattr(tier_rows.Shards, "submit", counted)
    monkeypatch.setattr(tier_manager, "COMMIT_STATES", 2_000)  # several shards
    left = tmp_path / f"{tier_rows.Shards.PREFIX}{_dead_pid()}-abc"  # a killed build's
    live = tmp_path / f"{tier_rows.Shards.PREFIX}{os.getpid()}-abc"  # a running one's
    for folder in (left, live):
        folder.mkdir()
        (folder / "1.db").write_bytes(b"rows")
    _build(tmp_path / "one.db", 1)
    _build(tmp_path / "two.db", 2)
    assert sum(submitted) == 12_341  # every row went through a shard
    assert content(str(tmp_path / "one.db"), SPEC) == content(str(tmp_path / "two.db"), SPEC)
    assert not left.exists() and (live / "1.db").exists()
    assert sorted(p.name for p in tmp_path.glob(f"{tier_rows.Shards.PREFIX}*")) == [live.name]


def test_a_shard_lost_with_its_worker_is_written_by_the_writer_thread(tmp_path, monkeypatch):
    submit = tier_rows.Shards.submit
    lost = []

    def lose_the_first(self, write, *args):
        if lost:
            return submit(self, write, *args)
        lost.append(write.states)
        write.shard = self.pool.submit(os._exit, 1)  # the worker dies: the pool breaks
        return None

    monkeypatch.setattr(tier_rows.Shards, "submit", lose_the_first)
    _build(tmp_path / "one.db", 1)
    _build(tmp_path / "two.db", 2)
    assert lost and lost[0] > 0
    assert content(str(tmp_path / "one.db"), SPEC) == content(str(tmp_path / "two.db"), SPEC)


@pytest.mark.slow  # a build on a small full disk
@pytest.mark.parametrize("small_disk", ["5m"], indirect=True)
def test_shards_on_a_full_disk_are_one_error_line_and_leave_nothing(small_disk):
    db = small_disk / "g.db"  # its scratch files fit, not its rows as well
    code, out, err = run("build", SPEC, "60,60,60", "--db", str(db), "--workers", "2")
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("Error: ") and "disk is full" in err, err
    assert sorted(p.name for p in small_disk.iterdir()) == ["g.db"]  # no shards left
    assert run_json("stats", SPEC, "--db", str(db))["states"] == 0
