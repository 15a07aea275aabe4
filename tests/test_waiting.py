"""Writers wait for each other, stored sequences included, and say so after a second: a build
and a stored `sequence` on one database at once both succeed; a writer held up by another's
lock prints one waiting line on stderr and finishes once the lock is let go."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.environment import REPO

pytestmark = pytest.mark.slow  # writers held up by other processes

#: Longest a step may take on a loaded machine (seconds).
LIMIT = 120


def explorer(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
    )


def finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=LIMIT)
    return process.returncode, out, err


def brute_octal(digits: str, upto: int) -> list[int]:
    """G(0..upto) of an octal game without splits beyond two heaps, by the definition."""
    rules = [int(d) for d in digits]
    g: list[int] = []
    for n in range(upto + 1):
        reach = set()
        for k, d in enumerate(rules, 1):
            if k > n:
                break
            if d & 1 and n == k:
                reach.add(0)
            if d & 2 and n > k:
                reach.add(g[n - k])
            if d & 4:
                for a in range(1, n - k):
                    reach.add(g[a] ^ g[n - k - a])
        g.append(min(set(range(len(reach) + 1)) - reach))
    return g


@pytest.mark.parametrize(
    "args",
    [
        ("sequence", "kayles", "--upto", "200"),
        ("build", "nim", "3,4"),
        ("sequence", "kayles", "--upto", "200", "--rebuild"),
    ],
    ids=["sequence", "build", "rebuild"],
)
def test_a_writer_held_up_says_it_waits_and_then_finishes(tmp_path: Path, args) -> None:
    db = tmp_path / "x.db"
    assert finish(explorer("build", "nim", "1", "--db", str(db)))[0] == 0
    with closing(sqlite3.connect(db, isolation_level=None)) as lock:
        lock.execute("BEGIN IMMEDIATE")  # another writer, as a user's sqlite3 shell could be
        started = time.monotonic()
        process = explorer(*args, "--db", str(db))
        assert process.stderr is not None
        line = process.stderr.readline()  # said while the lock is still held
        assert line == f"waiting for another writer of {db}, up to 120 s (EXPLORER_WAIT)\n"
        assert time.monotonic() - started >= 1
        lock.execute("COMMIT")
    code, out, err = finish(process)
    assert code == 0 and err == "", err
    if args[0] == "sequence":
        shown = json.loads(
            finish(explorer("sequence", "kayles", "--upto", "80", "--db", str(db), "--json"))[1]
        )
        assert shown["values"] == brute_octal("77", 80)


def test_the_wait_is_bounded_by_explorer_wait(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert finish(explorer("build", "nim", "1", "--db", str(db)))[0] == 0
    with closing(sqlite3.connect(db, isolation_level=None)) as lock:
        lock.execute("BEGIN IMMEDIATE")
        code, _, err = finish(
            explorer(
                "sequence", "kayles", "--upto", "50", "--db", str(db), env={"EXPLORER_WAIT": "2"}
            )
        )
        lock.execute("ROLLBACK")
    lines = err.splitlines()
    assert code == 1
    assert lines[0] == f"waiting for another writer of {db}, up to 2 s (EXPLORER_WAIT)"
    assert len(lines) == 2 and lines[1].startswith("Error: ") and "database is locked" in lines[1]


def test_a_build_and_stored_sequences_at_once_both_succeed(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    assert finish(explorer("build", "nim", "1", "--db", str(db)))[0] == 0
    build = explorer("build", "subtraction:1,2", "50,50,50", "--db", str(db))
    deadline = time.monotonic() + LIMIT
    while time.monotonic() < deadline:  # until the build writes its batches
        with closing(sqlite3.connect(db)) as conn:
            if conn.execute("SELECT COUNT(*) FROM states").fetchone()[0] > 2:
                break
        time.sleep(0.05)
    results = []
    for digits in ("77", "07", "37"):
        results.append(
            finish(explorer("sequence", f"octal:0.{digits}", "--upto", "300", "--db", str(db)))
        )
    code, out, err = finish(build)
    assert code == 0, err
    for code, _, err in results:
        assert code == 0, err
        assert "Error" not in err
    for digits in ("77", "07", "37"):
        code, out, _ = finish(
            explorer("sequence", f"octal:0.{digits}", "--upto", "300", "--db", str(db), "--json")
        )
        assert code == 0 and json.loads(out)["values"] == brute_octal(digits, 300)
    code, out, err = finish(explorer("verify", "--db", str(db), "--json"))
    assert code == 0 and json.loads(out)["ok"], err
