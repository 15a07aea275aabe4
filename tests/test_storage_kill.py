"""Killing a build with SIGKILL at random points and running it again gives exactly the rows of
an uninterrupted build, with nothing lost and nothing duplicated (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest
from storage_support import dump, run_json

SPEC, POSITION = "subtraction:1,2", "6,7,8,9,10"
BATCH = 40  # many small transactions, so kills land between and inside them

BUILDER = """
import sys
from explorer.storage import open_database
db = open_database(sys.argv[1])
db.build(sys.argv[2], sys.argv[3], batch_states=int(sys.argv[4]),
         progress=lambda p: print(p.states_new, flush=True))
print("done", flush=True)
"""

pytest_plugins = ["storage_fixtures"]  # db_url, other_db_url, pg_url


def start_build(url: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", BUILDER, url, SPEC, POSITION, str(BATCH)],
        stdout=subprocess.PIPE,
        text=True,
    )


def kill_after_batches(process: subprocess.Popen[str], batches: int, pause: float) -> bool:
    """SIGKILL once `batches` batches are committed and `pause` seconds more have passed;
    False when the build finished first."""
    assert process.stdout is not None
    seen = 0
    for line in process.stdout:
        if line.strip() == "done":
            process.wait()
            return False
        seen += 1
        if seen >= batches:
            break
    time.sleep(pause)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return process.returncode == -signal.SIGKILL


def test_sigkill_at_random_points_then_resume_equals_an_uninterrupted_build(db_url, other_db_url):
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    kills = 0
    for _ in range(5):
        if kill_after_batches(start_build(db_url), rng.randint(1, 25), rng.uniform(0, 0.05)):
            kills += 1
    assert kills >= 3, f"seed {seed}: the build finished before most kills"
    assert start_build(db_url).communicate()[0].strip().endswith("done")
    run_json("build", SPEC, POSITION, "--db", other_db_url)

    resumed, fresh = dump(db_url, SPEC), dump(other_db_url, SPEC)
    assert resumed == fresh, f"seed {seed}"
    keys = [s[1] for s in resumed["states"]]
    assert len(keys) == len(set(keys)) and len(resumed["edges"]) == len(set(resumed["edges"]))
    assert all(s[4] is not None for s in resumed["states"])
    stats = run_json("stats", SPEC, "--db", db_url)
    statuses = [b["status"] for b in stats["builds"]]
    assert statuses[-1] == "complete"
    assert statuses.count("interrupted") >= kills


@pytest.mark.parametrize("limit", [1, 7])
def test_tiny_state_limits_still_finish_with_identical_rows(tmp_path, limit):
    url, fresh = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    runs = 0
    while (
        run_json("build", "nim", "2,3,3", "--db", url, "--max-states", str(limit))["status"]
        == "stopped"
    ):
        runs += 1
        assert runs < 200
    run_json("build", "nim", "2,3,3", "--db", fresh)
    assert dump(url, "nim") == dump(fresh, "nim")
