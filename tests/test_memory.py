"""Bounded memory: builds of wide-branching positions stay small; a memory budget stops a build
cleanly (and the same command continues it); heap games that never split say so truthfully."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from explorer.games import FAMILIES, load_game
from explorer.games.heaps import HeapGame
from explorer.generation.graph import build_graph
from tests.support.cli import INTERRUPTIBLE, run_json

pytestmark = pytest.mark.slow  # whole builds measured in fresh interpreters


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
    # listing the moves of every heap up to 20,000 took 53 s and 9.3 GB; a root whose 20,000
    # moves are stored together is refused under a bound of 10, having listed them only
    db = tmp_path / "n.db"
    result = subprocess.run(
        [sys.executable, "-c", PEAK_ON_EXIT, "build", "nim", "20000", "--max-states", "10"]
        + ["--db", str(db)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stderr
    error, peak = result.stderr.splitlines()
    assert error.startswith("Error: ") and "raise --max-states to at least 20,001" in error
    assert int(peak) < 500 * 1024
    assert not db.exists() or run_json("stats", "--db", str(db)) == []


#: Run the CLI, then print the process's peak resident memory (KiB) on standard error, however
#: the command ended.
PEAK_ON_EXIT = """
import sys
from explorer.cli import main
try:
    main(sys.argv[1:], standalone_mode=True)
finally:
    with open("/proc/self/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM:"))
    print(hwm.split()[1], file=sys.stderr)
"""


def test_winning_moves_of_a_heap_with_trillions_of_moves_stay_small():
    # heap 200 less one breaks into any 2 or more heaps: about 3.6×10^12 moves, were listed
    # whole before their values were looked up (12 GB in 2 minutes, and on)
    result = subprocess.run(
        [sys.executable, "-c", MEASURED, "solve", "tb:0.{2+}", "200", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(result.stdout)
    assert report["peak_kb"] < 300 * 1024
    assert (report["grundy"], report["outcome"]) == (99, "N")
    assert report["note"].endswith("; moves listed among the first 1,000,000 of heap 200")
    game = load_game("tb:0.{2+}")
    moves = [tuple(map(int, m.split(","))) for m in report["winning_moves"]]
    assert len(moves) == len(set(moves)) > 1000
    for move in moves:
        # take one token, leave two heaps or more
        assert sum(move) == 199 and len(move) >= 2 and list(move) == sorted(move)
        assert game.known_value(move) == 0


def test_a_wide_branching_build_stays_small(tmp_path):
    # 20,301 states of up to 400 moves each: batches are bounded by moves, not only by states
    # (the whole graph went in one batch of 4 million edges, and the build peaked at 790 MB)
    db = str(tmp_path / "w.db")
    report = measured_build("nim", "200,200", "--db", db)
    assert report["status"] == "complete"
    assert (report["states_new"], report["edges_new"]) == (20_301, 4_040_100)
    assert report["peak_kb"] < 500 * 1024
    # and its check reads about 200,000 moves a step, not 20,000 states (1.3 GB)
    checked = subprocess.run(
        [sys.executable, "-c", MEASURED, "verify", "--db", db, "--no-rules", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(checked.stdout)
    assert report["ok"] and report["games"][0]["edges"] == 4_040_100
    assert report["peak_kb"] < 500 * 1024


def test_a_build_whose_last_batch_solves_every_state_stays_small(tmp_path):
    # subtraction:1,2 on three heaps solves nothing until the last batch reaches 0,0,0, then
    # all 477,191 states at once: 497 MiB when their value rows were made in one list, with
    # 64-bit arrays and a 256 MiB page cache; 268 MiB since (about 400 bytes a state,
    # interpreter included)
    db = str(tmp_path / "s.db")
    report = measured_build("subtraction:1,2", "140,140,140", "--db", db)
    assert report["status"] == "complete" and report["values_computed"] == 477_191
    assert report["peak_kb"] < 360 * 1024
    assert run_json("verify", "--db", db, "--no-rules")["ok"]


def test_a_memory_budget_stops_a_build_cleanly_and_a_larger_one_continues(tmp_path):
    db = str(tmp_path / "m.db")
    # --max-states: the whole graph (10.9 million states) is refused under this budget at once
    report = measured_build(
        "nim", "400,400,400", "--memory", "200", "--max-states", "5000000", "--db", db
    )
    assert report["status"] == "stopped" and report["stopped_by"] == "memory"
    assert report["peak_kb"] < 200 * 1024
    assert report["states_new"] > 0
    assert run_json("verify", "--db", db, "--no-rules")["ok"]
    more = measured_build(
        "nim", "400,400,400", "--memory", "600", "--max-states", "20000", "--db", db
    )
    assert more["states_reused"] > 0 and 0 < more["states_new"] <= 20_000  # a strict bound
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


@pytest.mark.parametrize(
    ("spec", "positions"),
    [
        ("nim", ["3,4,5", "0", "7", "2,2,2,2", "1,5,9"]),
        ("subtraction:1,2", ["9,9,9", "4,10"]),
        ("bash:3", ["10,7"]),
        ("subtraction:2,3", ["9,9"]),  # cannot take one: not counted
        ("kayles", ["9,4"]),  # splits: not counted
    ],
)
def test_heap_games_count_their_states_as_their_graphs_have_them(spec, positions):
    game = load_game(spec)
    for text in positions:
        position = game.parse(text)
        counted = game.count_states(position, 10**6)
        if counted is None:
            assert spec in ("subtraction:2,3", "kayles")
            continue
        assert counted == build_graph(game, position).number_of_nodes(), text
        capped = game.count_states(position, 3)  # exact up to 3, any number above 3 beyond
        assert capped == counted if counted <= 3 else capped is not None and capped > 3


@pytest.mark.parametrize(
    ("spec", "position", "shown"),
    [
        ("nim", "1" + "0" * 100, "1" + "0" * 49 + "..."),
        ("chomp", "99999x99999", ("99999," * 9)[:50] + "..."),
        ("nim + chomp", "3 + 99999x99999", "3 + " + ("99999," * 9)[:46] + "..."),
        ("nim", "1000,1000,1000", "1000,1000,1000"),
    ],
)
def test_a_position_too_large_to_build_is_refused_at_once(tmp_path, spec, position, shown):
    # these grew without end (or for minutes) in the builder; a hang fails on the timeout
    db = tmp_path / "big.db"
    result = subprocess.run(
        [sys.executable, "-m", "explorer", "build", spec, position, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (1, "")
    game = load_game(spec).spec
    assert result.stderr == (
        f"Error: position {shown!r} of {game} has more than 16,777,216 states, more than a "
        "build within --memory 4,096 MB can hold: build part of it with --max-states N, or "
        "raise --memory\n"
    )
    assert not db.exists()  # refused before a database was opened


@pytest.mark.parametrize(
    ("workers", "limit"),
    [(None, "262,144"), ("2", "2,097,152")],  # 64 MiB at 256 B a state, and in tiers at 32 B
)
def test_the_refusal_names_the_limit_of_the_path_the_build_takes(tmp_path, workers, limit):
    # nim 130,130,130 (383,306 states) is refused in one process, not in tiers; 250 (2,667,126)
    # is refused by both, each naming its own limit
    db = tmp_path / "big.db"
    build = ["build", "nim", "--db", str(db), "--memory", "64"]
    build += ["--workers", workers] if workers else []  # without: in one process
    result = subprocess.run(
        [sys.executable, "-m", "explorer", *build[:2], "250,250,250", *build[2:]],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: position '250,250,250' of nim has more than {limit} states, more than a build "
        "within --memory 64 MB can hold: build part of it with --max-states N, or raise --memory\n"
    )
    assert not db.exists()
    result = subprocess.run(
        [sys.executable, "-m", "explorer", *build[:2], "130,130,130", *build[2:], "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if workers is None:
        assert (result.returncode, result.stdout) == (1, "")
        assert "has more than 262,144 states" in result.stderr
        assert not db.exists()
    else:  # started in tiers, and stopped cleanly by the budget: the same command goes on
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert (report["status"], report["stopped_by"]) == ("stopped", "memory")
        # states found, none written: a state's row is written once its tier is solved
        assert report["frontier"] > 0 and report["states_new"] == report["edges_new"] == 0


@pytest.mark.parametrize(
    ("spec", "position", "shown"),
    [
        ("nim", "1000000000000", "1000000000000"),
        # each of Chomp's 10**10 moves copies 99,999 rows: listing a million of them never ended
        ("chomp", "99999x99999", "99999,99999,99999,99999,99999,99999,99999,99999,99..."),
        (
            "wythoff + chomp",
            "3,4 + 99999x99999",
            "3,4 + 99999,99999,99999,99999,99999,99999,99999,99...",
        ),
    ],
)
def test_a_position_with_too_many_moves_is_refused_at_once(tmp_path, spec, position, shown):
    # with --max-states the graph may be built in part, but one state's moves go together
    result = subprocess.run(
        [sys.executable, "-m", "explorer", "build", spec, position, "--max-states", "10"]
        + ["--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"Error: position {shown!r} of {spec} has more than 1,000,000 moves: a build keeps "
        "a position's moves together in one batch, so it cannot be built\n"
    )


def test_a_huge_build_stops_cleanly_at_max_states_and_verifies(tmp_path):
    db = str(tmp_path / "h.db")
    report = measured_build("nim", "1000,1000,1000", "--max-states", "100000", "--db", db)
    assert report["status"] == "stopped" and report["stopped_by"] == "max-states"
    assert 99_000 < report["states_new"] <= 100_000  # never past the bound
    assert report["peak_kb"] < 500 * 1024
    assert run_json("verify", "--db", db)["ok"]


def test_a_huge_build_stops_cleanly_on_ctrl_c_and_verifies(tmp_path):
    db = str(tmp_path / "c.db")
    build = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTIBLE, "build", "nim", "1000,1000,1000"]
        + ["--max-states", "10000000", "--db", db],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while _stored_states(db) < 50_000:  # some batches are committed
        assert build.poll() is None and time.monotonic() < deadline
        time.sleep(0.2)
    build.send_signal(signal.SIGINT)  # Ctrl-C
    out, err = build.communicate(timeout=120)
    assert (build.returncode, out) == (130, "")
    assert err == (
        "\nInterrupted: everything already written is kept (a build or a stored sequence "
        "continues from it); run the same command again to resume.\n"
    )
    stats = run_json("stats", "nim", "--db", db)
    assert [b["status"] for b in stats["builds"]] == ["interrupted"]
    assert stats["states"] > 0
    assert run_json("verify", "--db", db)["ok"]
    # the same build continues from what the interrupted one committed
    more = run_json("build", "nim", "1000,1000,1000", "--max-states", "1000", "--db", db)
    assert more["states_reused"] > 0 and more["status"] == "stopped"
    assert run_json("verify", "--db", db)["ok"]
    assert Path(db).exists()


def _stored_states(path: str) -> int:
    """States committed so far by a build running into the file (0 before it has any)."""
    if not Path(path).exists():
        return 0
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        try:
            return int(conn.execute("SELECT COUNT(*) FROM states").fetchone()[0])
        except sqlite3.OperationalError:  # the schema is not there yet
            return 0
