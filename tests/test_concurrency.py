"""Writers wait, readers always read: two processes writing one database both succeed; a second
build of a game that is being built says so; a database on read-only storage answers every
command that only reads (SQLite, and PostgreSQL where it applies)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import run, run_json
from tests.support.storage import dump

pytestmark = pytest.mark.slow  # processes racing for one database

BUILDER = """
import sys
import time
from explorer import open_database
with open_database(sys.argv[1]) as db:
    report = db.game(sys.argv[2]).build(
        sys.argv[3],
        batch_states=int(sys.argv[4]),
        progress=lambda p: print("batch", flush=True),
    )
print("done", report.status, flush=True)
"""


def start(url: str, spec: str, position: str, batch: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", BUILDER, url, spec, position, str(batch)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_processes_writing_one_database_both_succeed(db_url, other_db_url):
    # many small write transactions each, interleaved: every one must wait for the other's
    # commit instead of failing with "database is locked"
    jobs = [("kayles", "4,7,9,12"), ("subtraction:1,2", "20,21,22")]
    processes = [start(db_url, spec, position, 25) for spec, position in jobs]
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        assert out.splitlines()[-1] == "done complete"
        assert out.count("batch") > 5
    for spec, position in jobs:  # the same rows as builds run one after the other
        run_json("build", spec, position, "--db", other_db_url)
    for spec in ("octal:0.77", "subtraction:1,2"):
        assert dump(db_url, spec) == dump(other_db_url, spec)
    assert run("verify", "--db", db_url)[0] == 0


def test_a_second_build_of_the_same_game_says_one_is_running(db_url):
    first = start(db_url, "subtraction:1,2", "40,41,42,43", 200)
    assert first.stdout is not None
    assert first.stdout.readline() == "batch\n"  # it has started and committed a batch
    code, out, err = run("build", "subtraction:1,2", "5,5", "--db", db_url)
    assert code == 1 and out == ""
    assert err.startswith(
        f"Error: another build of 'subtraction:1,2' is running (build 1, process {first.pid}, "
        "started "
    )
    assert err.endswith(" UTC); wait for it to finish, or stop it, then run this build again\n")
    rest, problems = first.communicate(timeout=600)
    assert first.returncode == 0, problems
    assert rest.splitlines()[-1] == "done complete"
    # once it is over, the same command runs, reusing what the first stored
    data = run_json("build", "subtraction:1,2", "5,5", "--db", db_url)
    assert data["status"] == "complete" and data["states_new"] == 0
    statuses = [b["status"] for b in run_json("stats", "subtraction:1,2", "--db", db_url)["builds"]]
    assert statuses == ["complete", "complete"]


def _read_only(path: Path) -> list[str]:
    """A command prefix that runs with `path` (a file or a folder) on read-only storage.

    As root, permissions do not stop writes: the path is bind-mounted read-only in a mount
    namespace of the command's own. Otherwise the permissions are taken away (and restored
    by the caller's clean-up of tmp_path).
    """
    if os.geteuid() == 0:
        mount = f"mount --bind '{path}' '{path}' && mount -o remount,ro,bind '{path}' '{path}'"
        return ["unshare", "-m", "sh", "-c", f'{mount} && exec "$@"', "sh"]
    path.chmod(0o555 if path.is_dir() else 0o444)
    return []


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_database_on_read_only_storage_answers_every_read_command(tmp_path, what):
    store = tmp_path / "store"
    store.mkdir()
    db = store / "games.db"
    run_json("build", "nim", "3,4,5", "--db", str(db))
    assert sorted(p.name for p in store.iterdir()) == ["games.db"]  # WAL checkpointed
    before = _sha(db)
    out = tmp_path / "out"
    out.mkdir()
    prefix = _read_only(store if what == "folder" else db)
    env = dict(os.environ, COLUMNS="100")

    def explorer(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*prefix, sys.executable, "-m", "explorer", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            env=env,
        )

    # first make sure the storage really is read-only: a build must fail, in one line
    refused = explorer("build", "nim", "3,4,6")
    assert refused.returncode == 1 and refused.stderr.startswith("Error: "), refused.stderr
    assert len(refused.stderr.splitlines()) == 1
    query = explorer("query", "nim", "5,4,3", "--json")
    assert query.returncode == 0, query.stderr
    assert json.loads(query.stdout)["winning_moves"] == ["1,4,5"]
    stats = explorer("stats", "nim", "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["states"] == 48
    exported = explorer("export", "nim", "-o", str(out / "nim.graphml"), "--json")
    assert exported.returncode == 0, exported.stderr
    assert json.loads(exported.stdout)["edges"] == 262
    drawn = explorer("viz", "nim", "3,4,5", "--around", "3,4,5", "--depth", "1", "-o",
                     str(out / "near.html"), "--json")  # fmt: skip
    assert drawn.returncode == 0, drawn.stderr
    assert (out / "near.html").stat().st_size > 0
    verified = explorer("verify", "--json")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["ok"]
    assert _sha(db) == before
    if what == "folder":
        assert sorted(p.name for p in store.iterdir()) == ["games.db"]


OPENER = """
import sys, time
from explorer import open_database
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
with open_database(sys.argv[1]) as db:
    db.game(sys.argv[3]).build("3,4")
print("opened", flush=True)
"""


def test_processes_creating_one_new_database_at_once_all_succeed(tmp_path):
    # a new file appears whole: none of them may find it empty (half made) and refuse it
    path = tmp_path / "new.db"
    for _attempt in range(3):
        path.unlink(missing_ok=True)
        at = str(time.time() + 1.5)
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", OPENER, str(path), at, spec],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for spec in ("nim", "kayles", "bash:2", "half", "wythoff", "subtraction:1,2")
        ]
        for process in processes:
            out, err = process.communicate(timeout=300)
            assert process.returncode == 0, err
            assert out == "opened\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    assert run("verify", "--db", str(path))[0] == 0


#: A build that starts at a given time, its key index dropped from its first batch on when asked.
TIMED_BUILDER = """
import sys, time
from explorer import open_database
url, spec, position, at, defer = sys.argv[1:6]
time.sleep(max(0.0, float(at) - time.time()))
with open_database(url) as db:
    report = db.game(spec).build(position, batch_states=300,
                                 defer_key_index_at=None if defer == "never" else int(defer))
print(report.status, report.states_new, flush=True)
"""


@pytest.mark.postgres
def test_three_builders_of_different_games_into_one_postgresql_database_at_once(pg_url, tmp_path):
    """Three processes build three games into one PostgreSQL database at the same moment (two
    of them dropping the shared key index while they write): all three complete, `verify`
    passes, and each game holds exactly the rows of a build made alone."""
    jobs = [
        ("subtraction:1,2", "14,15,16", "1"),
        ("kayles", "5,7,9,11", "1"),
        ("nim", "6,7,8", "never"),
    ]
    at = str(time.time() + 2.0)
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", TIMED_BUILDER, pg_url, spec, position, at, defer],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for spec, position, defer in jobs
    ]
    for process in processes:
        out, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        assert out.split()[0] == "complete"
    assert run_json("verify", "--db", pg_url)["ok"]
    alone = str(tmp_path / "alone.db")
    for spec, position, _ in jobs:
        run_json("build", spec, position, "--db", alone)
    for spec in ("subtraction:1,2", "octal:0.77", "nim"):
        assert dump(pg_url, spec) == dump(alone, spec)
