"""Killing a build with SIGKILL at random points and running it again gives exactly the rows of
an uninterrupted build, with nothing lost and nothing duplicated (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from explorer.games import load_game
from tests.support.cli import run, run_json
from tests.support.storage import dump, has_key_index

pytestmark = pytest.mark.slow  # builds killed at random points, many times

BATCH = 40  # many small transactions, so kills land between and inside them

BUILDER = """
import sys
from explorer import open_database
db = open_database(sys.argv[1])
defer = None if sys.argv[5] == "never" else int(sys.argv[5])
db.game(sys.argv[2]).build(
    sys.argv[3],
    batch_states=int(sys.argv[4]),
    defer_key_index_at=defer,
    progress=lambda p: print(p.states_new, flush=True),
)
print("done", flush=True)
"""


def start_build(
    url: str, spec: str, position: str, defer: int | None = None
) -> subprocess.Popen[str]:
    """A build in its own process; `defer` is its `defer_key_index_at` (None: never)."""
    return subprocess.Popen(
        [sys.executable, "-c", BUILDER, url, spec, position, str(BATCH), str(defer or "never")],
        stdout=subprocess.PIPE,
        text=True,
    )


def kill_after_batches(
    process: subprocess.Popen[str], batches: int, pause: float
) -> tuple[bool, int]:
    """SIGKILL once `batches` batches are committed and `pause` seconds more have passed.

    Returns whether it was killed (not finished first) and how many batches it reported.
    """
    assert process.stdout is not None
    seen = 0
    for line in process.stdout:
        if line.strip() == "done":
            process.wait()
            return False, seen
        seen += 1
        if seen >= batches:
            break
    time.sleep(pause)
    process.send_signal(signal.SIGKILL)
    process.wait()
    seen += len(process.stdout.read().split())  # batches committed during the pause
    return process.returncode == -signal.SIGKILL, seen


@pytest.mark.parametrize(
    ("spec", "position", "defer"),
    [
        ("subtraction:1,2", "7,8,9,10,11", None),  # heap rows expanded with numpy
        ("kayles", "4,6,7,8", None),  # splits heaps: expanded through game.successors
        # the key index dropped from the first batch on: killed builds leave it missing
        ("subtraction:1,2", "7,8,9,10,11", 1),
    ],
)
def test_sigkill_at_random_points_then_resume_equals_an_uninterrupted_build(
    db_url, other_db_url, spec, position, defer
):
    fresh_run = start_build(other_db_url, spec, position).communicate()[0].split()
    assert fresh_run[-1] == "done"
    batches = len(fresh_run) - 1
    seed = int.from_bytes(os.urandom(4), "big")
    rng = random.Random(seed)
    # kill points, counted in committed batches of the whole build
    points = sorted(rng.sample(range(1, batches - 8), 4))
    kills, done = 0, 0
    for point in points:
        process = start_build(db_url, spec, position, defer)
        killed, seen = kill_after_batches(process, max(1, point - done), rng.uniform(0, 0.005))
        kills += killed
        done += seen
        if defer is not None and point == points[0]:
            # the first build dropped the index and died: states are still found by key
            assert not has_key_index(db_url)
            assert run_json("query", spec, position, "--db", db_url)["position"] == position
            code, out, _ = run("verify", "--db", db_url, "--json")
            assert code != 0 and "ix_states_game_id_key" in out
    assert kills == len(points), f"seed {seed}: a build finished before its kill"
    assert start_build(db_url, spec, position).communicate()[0].split()[-1] == "done"
    assert has_key_index(db_url)
    assert run_json("verify", "--db", db_url)["ok"]

    canonical = load_game(spec).spec
    resumed, fresh = dump(db_url, canonical), dump(other_db_url, canonical)
    assert resumed == fresh, f"seed {seed}"
    keys = [s[1] for s in resumed["states"]]
    assert len(keys) == len(set(keys)) and len(resumed["edges"]) == len(set(resumed["edges"]))
    assert all(s[4] is not None for s in resumed["states"])
    stats = run_json("stats", spec, "--db", db_url)
    statuses = [b["status"] for b in stats["builds"]]
    assert statuses == ["interrupted"] * kills + ["complete"]


@pytest.mark.parametrize(
    ("spec", "position", "limit"),
    [
        ("nim", "2,3,3", 9),  # the root and its eight moves, at least
        ("nim", "2,3,3", 11),
        ("kayles", "12", 13),  # states found one by one (the heap index is nim's)
        ("tb:0.{2+}", "9", 40),
    ],
)
def test_tiny_state_limits_still_finish_with_identical_rows(tmp_path, spec, position, limit):
    url, fresh = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    runs = 0
    while True:
        report = run_json("build", spec, position, "--db", url, "--max-states", str(limit))
        assert report["states_new"] <= limit  # every run, never past the bound
        if report["status"] != "stopped":
            break
        runs += 1
        assert runs < 200
    run_json("build", spec, position, "--db", fresh)  # in one process, ids in the same order
    canonical = load_game(spec).spec
    assert dump(url, canonical) == dump(fresh, canonical)


def test_a_state_whose_moves_pass_max_states_is_refused_before_anything_is_stored(tmp_path):
    path = str(tmp_path / "w.db")
    game = load_game("tb:0.{2+}")
    moves = len(set(game.successors(game.parse("20"))))
    code, out, err = run("build", "tb:0.{2+}", "20", "--max-states", "50", "--db", path)
    assert (code, out) == (1, "")
    assert err == (
        f"Error: position '20' of tb:0.{{2+}} has {moves:,} new moves, more than --max-states "
        "50 lets this build store (a state's moves are stored together): raise --max-states "
        f"to at least {moves + 1:,}\n"
    )
    assert run_json("stats", "--db", path) == []
    # later in a build: the run stops before the state, and the next run, where it comes
    # first, refuses it
    first = run_json("build", "tb:0.{2+}", "12", "--max-states", "100", "--db", path)
    assert first["status"] == "stopped" and first["states_new"] <= 100
    for _ in range(100):  # runs of one new state each, until a state needs more
        stored = run_json("stats", "tb:0.{2+}", "--db", path)["states"]
        code, out, err = run(
            "build", "tb:0.{2+}", "12", "--max-states", "1", "--db", path, "--json"
        )
        if code == 1:
            break
        assert json.loads(out)["states_new"] <= 1
    assert code == 1 and "--max-states 1 lets this build store" in err
    assert run_json("stats", "tb:0.{2+}", "--db", path)["states"] == stored
