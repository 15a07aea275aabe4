"""Bounded memory: builds of wide-branching positions stay small; a memory budget stops a build
cleanly (and the same command continues it); heap games that never split say so truthfully."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from explorer.games import FAMILIES, load_game
from explorer.games.heaps import HeapGame
from tests.storage_support import run_json

#: Runs `explorer build ... --json` in a fresh interpreter; prints its report and the peak
#: resident memory of that interpreter (kB). VmHWM, not getrusage: Linux carries ru_maxrss
#: over from the parent at fork, so a big pytest process would count as this one's peak.
MEASURED = """
import contextlib, io, json, sys
from explorer.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main(sys.argv[1:], standalone_mode=False)
    except SystemExit:
        pass
report = json.loads(out.getvalue())
with open("/proc/self/status") as status:
    hwm = next(line for line in status if line.startswith("VmHWM:"))
report["peak_kb"] = int(hwm.split()[1])
print(json.dumps(report))
"""


def measured_build(*args: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", MEASURED, "build", *args, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_a_huge_single_heap_stopped_early_stays_small(tmp_path):
    # listing the moves of every heap up to 20,000 took 53 s and 9.3 GB
    report = measured_build("nim", "20000", "--max-states", "10", "--db", str(tmp_path / "n.db"))
    assert report["status"] == "stopped" and report["stopped_by"] == "max-states"
    assert report["states_new"] == 20_001  # the root's moves are stored together
    assert report["peak_kb"] < 500 * 1024


def test_a_wide_branching_build_stays_small(tmp_path):
    # 20,301 states of up to 400 moves each: batches are bounded by moves, not only by states
    # (the whole graph went in one batch of 4 million edges, and the build peaked at 790 MB)
    db = str(tmp_path / "w.db")
    report = measured_build("nim", "200,200", "--db", db)
    assert report["status"] == "complete"
    assert (report["states_new"], report["edges_new"]) == (20_301, 4_040_100)
    assert report["peak_kb"] < 500 * 1024
    assert run_json("verify", "--db", db, "--no-rules")["ok"]


def test_a_memory_budget_stops_a_build_cleanly_and_a_larger_one_continues(tmp_path):
    db = str(tmp_path / "m.db")
    report = measured_build("nim", "400,400,400", "--memory", "200", "--db", db)
    assert report["status"] == "stopped" and report["stopped_by"] == "memory"
    assert report["peak_kb"] < 200 * 1024
    assert report["states_new"] > 0
    assert run_json("verify", "--db", db, "--no-rules")["ok"]
    more = measured_build(
        "nim", "400,400,400", "--memory", "600", "--max-states", "20000", "--db", db
    )
    assert more["states_reused"] > 0 and more["states_new"] >= 20_000
    assert more["stopped_by"] == "max-states"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_heap_games_that_say_they_never_split_never_do(family):
    cls = FAMILIES[family]
    if not issubclass(cls, HeapGame):
        return
    game = load_game(cls.example[0])
    assert isinstance(game, HeapGame)
    if game.splits:
        return
    for heap in range(60):
        assert all(len(result) <= 1 for result in game.heap_moves(heap)), (family, heap)


@pytest.mark.parametrize("spec", ["subtraction:1,2", "bash:3", "half", "octal:0.137", "kayles"])
def test_splitting_is_declared_exactly_for_octal_codes(spec):
    game = load_game(spec)
    assert isinstance(game, HeapGame)
    splits = any(len(r) > 1 for heap in range(40) for r in game.heap_moves(heap))
    assert game.splits == splits
