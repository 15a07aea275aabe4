"""Builds in tiers: every family's tier is lowered by every move, and a build on several worker
processes stores exactly what a build in one process stores (SQLite and PostgreSQL), also when
the coordinator or a worker is killed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import explorer
from explorer import open_database
from explorer.build import tier_manager as tiered
from explorer.build.tier_numbering import KeyNumbering, RowNumbering, numbering_for
from explorer.build.writer import BatchWriter, BuildProgress, Turn
from explorer.games import load_game
from explorer.generation.tiers import TierTask, expand_tier, heap_rows, heap_texts
from tests.support.cli import run, run_json
from tests.support.environment import REPO
from tests.support.storage import content
from tests.support.strategies import GAMES, chomp_rows, fraction_of_examples, heaps, pair


def coins(rule: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from("HT"), min_size=1, max_size=7).map("".join)


def queens() -> st.SearchStrategy[str]:
    return st.lists(pair(0, 5), min_size=1, max_size=3).map(";".join)


#: Every family with a tier, and small positions of it.
TIERED = [
    *GAMES,
    ("tb:4.0", heaps(max_heap=7)),
    ("turning:mock", coins("mock")),
    ("turning:ruler", coins("ruler")),
    ("queens", queens()),
    ("nim + wythoff", st.tuples(heaps(), pair()).map(" + ".join)),
    ("grundy + chomp", st.tuples(heaps(), chomp_rows()).map(" + ".join)),
    (f"py:{REPO / 'data' / 'stones.py'}", heaps(max_heap=8)),
]


@pytest.mark.parametrize(("spec", "positions"), TIERED, ids=[spec for spec, _ in TIERED])
def test_every_move_lowers_the_tier(spec, positions):
    game = load_game(spec)

    @settings(max_examples=fraction_of_examples(0.5), deadline=None)
    @given(positions)
    def check(text):
        position = game.parse(text)
        tier = game.tier(position)
        assert isinstance(tier, int) and tier >= 0
        for move in game.successors(position):
            assert game.tier(move) < tier, (text, game.format(move))

    check()


def test_heap_weights_are_the_tokens_where_every_move_takes_one():
    for spec in ("nim", "subtraction:1,2", "kayles", "dawson", "octal:0.137", "tb:4.0"):
        game = load_game(spec)
        weights = game.heap_weights(20)
        if spec in ("nim", "subtraction:1,2", "kayles"):
            assert weights == list(range(21)), spec
        # a heap's weight never exceeds its tokens: tiers are no coarser than needed
        assert all(w <= h for h, w in enumerate(weights)), spec


def test_python_games_take_their_tier_from_the_author():
    @explorer.game(tier=lambda n: n)
    def countdown(n):
        return [n - k for k in (1, 2) if k <= n]

    assert countdown.tier(7) == 7
    untiered = explorer.game(lambda n: [n - 1] if n else [])
    assert untiered.tier(3) is None

    class Stones(explorer.Game):
        def parse(self, text):
            return int(text)

        def format(self, position):
            return str(position)

        def successors(self, position):
            return iter([position - 1] if position else [])

        def tier(self, position):
            return position

    assert Stones().tier(4) == 4
    stones = load_game(f"py:{REPO / 'data' / 'stones_class.py'}")
    assert stones.tier(stones.parse("3,4")) is None  # its class has no tier method


def test_a_game_without_tiers_has_none_and_a_loopy_sum_none_either():
    assert load_game("dag:" + str(REPO / "data" / "note003.json")).tier("a") is None
    assert load_game("nim + windup:5:1,3").tier(((3,), 2)) is None


def test_a_task_is_pure_and_refuses_a_move_that_keeps_the_tier():
    task = TierTask("subtraction:1,2", 7, 0, ("3,4", "2,5"))
    first, again = expand_tier(task), expand_tier(task)
    assert first.keys == again.keys and first.targets.tolist() == again.targets.tolist()
    game = load_game("subtraction:1,2")
    for i, key in enumerate(task.keys):
        start = int(first.counts[:i].sum())
        moves = [first.keys[t] for t in first.targets[start : start + first.counts[i]]]
        expected = list(dict.fromkeys(game.format(m) for m in game.successors(game.parse(key))))
        assert moves == expected
    assert all(t < 7 for t in first.tiers)
    with pytest.raises(explorer.errors.RuleError, match="keeps the tier"):
        expand_tier(TierTask("subtraction:1,2", 6, 0, ("3,4",)))


def test_a_task_of_rows_finds_what_the_task_of_its_texts_finds():
    keys = ("3,4", "2,5", "5", "1,1,6")
    by_keys = expand_tier(TierTask("subtraction:1,2", 8, 0, keys))
    rows = heap_rows(keys, 3)
    by_rows = expand_tier(TierTask("subtraction:1,2", 8, 0, (), rows=rows))
    game = load_game("subtraction:1,2")
    assert by_rows.keys == []
    assert heap_texts(game, by_rows.rows) == by_keys.keys
    assert by_rows.counts.tolist() == by_keys.counts.tolist()
    assert by_rows.targets.tolist() == by_keys.targets.tolist()
    assert by_rows.tiers.tolist() == by_keys.tiers.tolist()
    # a tier given wrong leaves the heaps' way: the general one names the move
    with pytest.raises(explorer.errors.RuleError, match="keeps the tier"):
        expand_tier(TierTask("subtraction:1,2", 6, 0, (), rows=heap_rows(("3,4",), 3)))


@pytest.mark.parametrize("position", ["9,10,12", "4,7", "1,1,2,3,5,8"])
def test_numbering_by_rows_gives_every_state_the_id_numbering_by_texts_gives(
    tmp_path, monkeypatch, position
):
    """The fast path (`RowNumbering`) against the one for every game (`KeyNumbering`)."""
    ids = []
    for numbering in (numbering_for, lambda game, root: KeyNumbering()):
        monkeypatch.setattr(tiered, "numbering_for", numbering)
        db = tmp_path / f"{len(ids)}.db"
        with open_database(str(db)) as database:
            database.game("subtraction:1,2").build(position, workers=2)
        with sqlite3.connect(db) as conn:
            ids.append(sorted(conn.execute("SELECT key, id, grundy FROM states")))
    assert isinstance(numbering_for(load_game("subtraction:1,2"), position), RowNumbering)
    assert len(ids[0]) > 20 and ids[0] == ids[1]


CASES = [
    ("subtraction:1,2", "9,10,12"),
    ("kayles", "5,9"),  # splits heaps
    ("grundy", "17"),
    ("chomp", "4x5"),
    ("wythoff", "14,19"),
    ("nim + wythoff", "2,3 + 4,6"),
]


@pytest.mark.parametrize(("spec", "position"), CASES, ids=[c[0] for c in CASES])
def test_two_workers_store_what_one_process_stores(db_url, other_db_url, tmp_path, spec, position):
    one = run_json("build", spec, position, "--db", other_db_url)  # in one process
    two = run_json("build", spec, position, "--db", db_url, "--workers", "2")
    canonical = load_game(spec).spec
    assert content(db_url, canonical) == content(other_db_url, canonical)
    # and one worker, in tiers in this process, the same
    alone = str(tmp_path / "alone.db")
    assert (
        run_json("build", spec, position, "--db", alone, "--workers", "1")["status"] == "complete"
    )
    assert content(alone, canonical) == content(db_url, canonical)
    for key in ("grundy", "outcome", "remoteness", "states_new", "edges_new", "states_stored"):
        assert one[key] == two[key], key
    assert run_json("verify", "--db", db_url)["ok"]
    stats = run_json("stats", canonical, "--db", db_url)
    assert stats["builds"][-1]["workers"] == 2
    assert sum(t["states"] for t in stats["tiers"]) == two["states_new"]


def test_many_tasks_a_tier_on_a_process_pool_and_misere(tmp_path, monkeypatch):
    """Slices of 50 states: every tier of any size goes to the pool in several tasks."""
    monkeypatch.setattr(tiered, "MIN_SLICE_STATES", 50)
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    for convention in ("normal", "misere"):
        with open_database(one) as db:
            db.game("kayles", convention).build("6,7,9", workers=1)
        with open_database(two) as db, ProcessPoolExecutor(2) as pool:
            report = db.game("kayles", convention).build("6,7,9", workers=2, executor=pool)
        assert report.status == "complete"
        assert content(one, "octal:0.77", convention) == content(two, "octal:0.77", convention)


def test_a_wrong_tier_is_one_error_line(tmp_path):
    rules = tmp_path / "wrong.py"
    rules.write_text(
        "import explorer\n\n\n"
        "@explorer.game(example='5', tier=lambda n: n % 3)\n"
        "def wrong(n):\n"
        "    return [n - 1] if n else []\n"
    )
    code, _, err = run(
        "build", f"py:{rules}", "5", "--db", str(tmp_path / "g.db"), "--workers", "2"
    )
    assert code == 1 and err.count("\n") == 1 and "the tier" in err, err


def test_a_game_without_tiers_builds_in_one_process(tmp_path):
    spec = "dag:" + str(REPO / "data" / "note003.json")
    report = run_json("build", spec, "a", "--db", str(tmp_path / "g.db"), "--workers", "2")
    assert report["status"] == "complete"
    stats = run_json("stats", spec, "--db", str(tmp_path / "g.db"))
    assert stats["builds"][-1]["workers"] is None and "tiers" not in stats


BUILDER = """
import sys
from explorer import open_database
from explorer.build import tier_manager as tiered
tiered.MIN_SLICE_STATES = 20
tiered.COMMIT_STATES = 500
with open_database(sys.argv[1]) as db:
    report = lambda step: print(step.tiers_done, flush=True)
    db.game(sys.argv[2]).build(sys.argv[3], workers=2, progress=report)
print("done", flush=True)
"""


def start(url: str, spec: str, position: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", BUILDER, url, spec, position],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def assert_ended(pids: list[int], seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while any(map(running, pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(running, pids)), [p for p in pids if running(p)]


@pytest.mark.slow
def test_killing_the_coordinator_or_a_worker_ends_in_the_same_content(db_url, other_db_url):
    spec, position = "subtraction:1,2", "30,31,33"
    run_json("build", spec, position, "--db", other_db_url)  # in one process
    # the coordinator, killed at three points: during expansion, later, during solving (of
    # the build's 40 transactions, 27 expand: the third run starts 10 in, dies 20 later)
    for commits in (2, 8, 20):
        process = start(db_url, spec, position)
        assert process.stdout is not None
        seen, pool = 0, []
        for line in process.stdout:
            if line.strip() == "done":
                break
            seen += 1
            if seen >= commits:
                pool = [p for c in children(process.pid) for p in [c, *children(c)]]
                process.send_signal(signal.SIGKILL)
                break
        process.wait()
        assert_ended(pool)  # the fork server and the workers went with their coordinator
    # a worker killed while the build runs: its tasks run again on a new pool
    process = start(db_url, spec, position)
    assert process.stdout is not None
    killed = False
    for line in process.stdout:
        if line.strip() == "done":
            break
        workers = [w for c in children(process.pid) for w in children(c)]  # the forkserver's
        if workers and not killed:
            os.kill(workers[0], signal.SIGKILL)
            killed = True
    assert process.wait() == 0
    assert run_json("verify", "--db", db_url)["ok"]
    assert content(db_url, spec) == content(other_db_url, spec)
    builds = run_json("stats", spec, "--db", db_url)["builds"]
    assert builds[-1]["status"] == "complete"


def test_progress_counts_tiers(tmp_path):
    steps = []
    with open_database(str(tmp_path / "g.db")) as db:
        db.game("nim").build("3,4,5", workers=2, progress=steps.append)
    assert steps[-1].tiers_done == steps[-1].tiers_total == 2 * 13  # tiers 0..12, both sweeps
    assert all(s.workers == 2 for s in steps)


def test_the_memory_budget_stops_a_build_in_tiers_and_the_same_build_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(tiered, "COMMIT_STATES", 50)
    one, two = str(tmp_path / "one.db"), str(tmp_path / "two.db")
    with open_database(one) as db:
        db.game("kayles").build("6,7,9", workers=1)
    with open_database(two) as db:
        stopped = db.game("kayles").build("6,7,9", workers=2, memory=1)
        assert (stopped.status, stopped.stopped_by) == ("stopped", "memory")
        assert stopped.frontier > 0 and stopped.grundy is None
        done = db.game("kayles").build("6,7,9", workers=2)
        assert done.status == "complete" and done.states_new > 0
    assert content(one, "octal:0.77") == content(two, "octal:0.77")
    assert run_json("verify", "--db", two)["ok"]
    statuses = [b["status"] for b in run_json("stats", "kayles", "--db", two)["builds"]]
    assert statuses == ["stopped", "complete"]


@dataclass
class Numbered:
    """A batch for `BatchWriter`: its number, and what it reports once committed."""

    n: int
    progress: BuildProgress = BuildProgress(0, 0, 0, 0, 0.0)


def test_several_writers_commit_in_turn_and_never_after_a_failed_batch():
    committed: list[int] = []

    def commit(batch: Numbered, turn: Turn) -> None:
        time.sleep(0.03 * (10 - batch.n))  # the later batches write their rows sooner
        if batch.n == 6:
            raise RuntimeError("disk full")
        turn()
        committed.append(batch.n)

    with BatchWriter(commit, None, 0.0, writers=3) as writer:
        for n in range(1, 6):
            writer.submit(Numbered(n))
        writer.finish()
    assert committed == [1, 2, 3, 4, 5]
    committed.clear()
    with pytest.raises(RuntimeError, match="disk full"):
        with BatchWriter(commit, None, 0.0, writers=3) as writer:
            for n in (4, 6, 7, 8):
                writer.submit(Numbered(n))
            writer.finish()
    assert committed == [4]  # 7 and 8 wrote their rows, and waited for 6, which failed


def test_a_build_in_many_transactions_on_several_writers(db_url, other_db_url, monkeypatch):
    """Transactions of 50 states: on PostgreSQL, three writers at once, committing in turn."""
    monkeypatch.setattr(tiered, "COMMIT_STATES", 50)
    with open_database(other_db_url) as db:
        db.game("kayles").build("6,7,9", workers=1)
    with open_database(db_url) as db:
        assert db.game("kayles").build("6,7,9", workers=3).status == "complete"
    assert content(db_url, "octal:0.77") == content(other_db_url, "octal:0.77")
    assert run_json("verify", "--db", db_url)["ok"]


#: ``explorer build --workers 2`` in a process whose worker pool has a worker killed while it
#: is idle (between two tiers' tasks), twice; the pool must notice before the next tier.
IDLE_KILLS = """
import multiprocessing, os, signal, sys, time
from explorer.cli import main
from explorer.build import tier_manager as tiered
tiered.MIN_SLICE_STATES = 20
run = tiered.Pool.run
killed = []
def run_then_kill_an_idle_worker(self, tasks):
    yield from run(self, tasks)
    workers = multiprocessing.active_children()
    if len(tasks) > 1 and workers and len(killed) < 2:  # the tier's tasks are done: all idle
        os.kill(workers[0].pid, signal.SIGKILL)
        killed.append(workers[0].pid)
        time.sleep(1.0)  # the pool finds it broken before the next submit
        print("killed", file=sys.stderr, flush=True)
tiered.Pool.run = run_then_kill_an_idle_worker
main(sys.argv[1:])
"""


def test_a_worker_killed_while_idle_costs_a_new_pool_not_the_build(db_url, other_db_url):
    spec, position = "subtraction:1,2", "20,21,23"
    run_json("build", spec, position, "--db", other_db_url)  # in one process
    built = subprocess.run(
        [
            sys.executable,
            "-c",
            IDLE_KILLS,
            "build",
            spec,
            position,
            "--db",
            db_url,
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    assert built.stderr.count("killed") == 2 and "Traceback" not in built.stderr
    assert "complete" in built.stdout
    assert content(db_url, spec) == content(other_db_url, spec)
    assert run_json("verify", "--db", db_url)["ok"]


def test_a_build_failed_while_solving_keeps_its_tiers_and_checks_them_when_it_goes_on(
    tmp_path, monkeypatch
):
    # rows are written once, whole, tier by tier: a build stopped while solving keeps the
    # tiers written, numbers every state again in the same order, and writes the rest
    monkeypatch.setattr(tiered, "COMMIT_STATES", 40)
    fresh, url = str(tmp_path / "fresh.db"), str(tmp_path / "g.db")
    with open_database(fresh) as db:
        db.game("nim").build("3,4,5,6", workers=1, in_tiers=True)
    real = tiered.TieredBuilder._commit
    commits = []

    def failing(self: tiered.TieredBuilder, write: tiered.Write, turn: Turn) -> None:
        commits.append(write)
        if len(commits) == 3:
            raise RuntimeError("the disk went away")
        real(self, write, turn)

    monkeypatch.setattr(tiered.TieredBuilder, "_commit", failing)
    for copy in (url, str(tmp_path / "swapped.db")):
        with open_database(copy) as db, pytest.raises(RuntimeError, match="disk went away"):
            db.game("nim").build("3,4,5,6", workers=1, in_tiers=True)
        commits.clear()
    monkeypatch.setattr(tiered.TieredBuilder, "_commit", real)
    with sqlite3.connect(str(tmp_path / "swapped.db")) as conn:  # two stored rows' keys swapped
        (a, ka), (b, kb) = conn.execute("SELECT id, key FROM states ORDER BY id LIMIT 2")
        conn.execute("UPDATE states SET key = 'x' WHERE id = ?", (a,))
        conn.execute("UPDATE states SET key = ? WHERE id = ?", (ka, b))
        conn.execute("UPDATE states SET key = ? WHERE id = ?", (kb, a))
    code, out, err = run(
        "build", "nim", "3,4,5,6", "--workers", "1", "--db", str(tmp_path / "swapped.db")
    )
    assert (code, out) == (1, "")
    assert err == (
        "Error: the unfinished build of nim stored states this build numbers otherwise: "
        "delete the game's rows and build it again\n"
    )
    with sqlite3.connect(url) as conn:
        stored = conn.execute("SELECT COUNT(*) FROM states").fetchone()[0]
    assert stored > 0
    report = run_json("build", "nim", "3,4,5,6", "--workers", "1", "--db", url)
    assert (report["status"], report["states_reused"]) == ("complete", stored)
    assert report["states_new"] + stored == report["states_stored"]
    assert content(url, "nim") == content(fresh, "nim")
    assert run_json("verify", "--db", url)["ok"]
