"""The work bound every command but ``serve`` takes (``--max-seconds``), from issue 35's cases
that ran past 120 s: each stops at its bound with one ``Error:`` line naming the option, and a
build stopped so keeps a database that verifies and resumes (SQLite and PostgreSQL)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.cli import COMMAND_MODULES, main
from tests.support.cli import run, run_json
from tests.support.environment import REPO
from tests.support.python_games import write

BOUND = "--max-seconds", "2"

#: Commands that ran past 120 s (issue 35), each now stopped by its bound.
UNBOUNDED = {
    "patterns tb:0.{2+}": ("patterns", "tb:0.{2+}", "--upto", "100000"),
    "sequence tb:0.{2+}=": ("sequence", "tb:0.{2+}=", "--until-periodic", "--upto", "100000000"),
    # issue 41: canonical labels of huge parts (see the test below)
    "arckayles K1000": ("solve", "arckayles", "K1000"),
    "hackenbush 5,000 parallel edges": ("solve", "hackenbush", ",".join(["g-a"] * 5000)),
    "a long edge list": (
        "solve",
        "arckayles",
        ",".join(f"{i}-{j}" for i in range(450) for j in range(i + 1, 450)),
    ),
}


#: Commands whose loops know their length (issue 41: no answer in 120 s): each forecasts at its
#: pace, within seconds, that it cannot end before its bound, and says so.
FORECAST = {
    "patterns tb:0.{2+}": ("patterns", "tb:0.{2+}", "--upto", "100000"),
    "sequence tb:0.{2+}=": ("sequence", "tb:0.{2+}=", "--until-periodic", "--upto", "100000000"),
    "check py:split.py": ("check", "py:split.py", "--value", "0", "--upto", "1000000"),
}


@pytest.mark.slow  # a few seconds each; the bound (60 s) when it fails
@pytest.mark.parametrize("case", FORECAST)
def test_work_that_cannot_end_in_its_bound_says_so_within_seconds(folder: Path, case: str) -> None:
    write(folder, "split.py", SPLIT)
    args = FORECAST[case]
    code, out, err = run(*args, "--max-seconds", "60")
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith(f"Error: explorer {args[0]} would run past its work bound of 60 s: "), err
    assert "at its pace so far" in err and "--max-seconds N" in err, err


@pytest.mark.slow  # runs about ten seconds
def test_work_that_ends_in_its_bound_is_not_stopped_by_its_forecast() -> None:
    code, out, err = run("sequence", "tb:0.{2+}=", "--upto", "100000", "--max-seconds", "600")
    assert code == 0 and out.startswith("tb:0.{2+}=: G(0..100000)"), err


@pytest.mark.slow  # runs to its bound
def test_a_bound_met_inside_igraphs_labelling_stops_with_its_error() -> None:
    # igraph runs the bound's handler inside its C code, then reports the exception as a
    # SystemError (issue 41): loaded first, so that the bound meets the labelling of the part
    # (a star of 5,000 subdivided edges, over 30 s), not igraph's import
    import igraph

    assert igraph.Graph.Star(3).canonical_permutation()
    code, _, err = run("solve", "hackenbush", ",".join(["g-a"] * 5000), "--max-seconds", "4")
    assert code == 1, err
    assert err.startswith("Error: explorer solve ran past its work bound of 4 s"), err
    assert err.count("\n") == 1, err


def assert_bounded(code: int, err: str, command: str, seconds: int = 2) -> None:
    assert code == 1, err
    assert err.startswith(f"Error: explorer {command} ran past its work bound of {seconds} s"), err
    assert "--max-seconds N" in err and err.count("\n") == 1, err


@pytest.mark.slow  # each runs to its bound
@pytest.mark.parametrize("case", UNBOUNDED)
def test_work_past_the_bound_stops_and_names_the_option(case: str) -> None:
    args = UNBOUNDED[case]
    code, _, err = run(*args, *BOUND)
    assert_bounded(code, err, args[0])


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


ENDLESS = {
    "loops": "    while True:\n        pass\n",
    "recurses": "    def deeper(k):\n        return deeper(k + 1)\n\n"
    "    sys.setrecursionlimit(10**5)\n"
    "    return deeper(0) if n == 3 else [n - 1] if n else []\n",
}


@pytest.mark.slow  # each runs to its bound
@pytest.mark.parametrize("kind", ENDLESS)
def test_a_rule_that_never_returns_is_stopped(folder: Path, kind: str) -> None:
    write(
        folder,
        "endless.py",
        "import sys\n\nimport explorer\n\n\n@explorer.game\ndef endless(n):\n" + ENDLESS[kind],
    )
    for args in (("solve", "py:endless.py", "5"), ("check", "py:endless.py", "5")):
        code, out, err = run(*args, *BOUND)
        if kind == "recurses" and code == 1 and "RecursionError" in out + err:
            continue  # Python's own limit came first: solve's error or check's problem
        assert_bounded(code, err, args[0])


#: A rule that frees garbage whose finaliser outlasts the bound, then never returns: the bound's
#: exception, raised inside the finaliser, is dropped there by Python.
FINALISED = """\
import gc
import time

import explorer


class Slow:
    def __del__(self):
        end = time.monotonic() + 4
        while time.monotonic() < end:
            pass


@explorer.game
def endless(n):
    slow = Slow()
    slow.cycle = slow
    del slow
    gc.collect()
    while True:
        pass
"""


@pytest.mark.slow  # runs to its bound
def test_a_bound_met_inside_a_finaliser_still_stops_the_command(folder: Path) -> None:
    write(folder, "finalised.py", FINALISED)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "solve", "py:finalised.py", "5", *BOUND],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert_bounded(done.returncode, done.stderr, "solve")


SPLIT = """\
import explorer


@explorer.heap_game
def split(n):
    return [(a, n - a) for a in range(1, n // 2 + 1)] + [n - 1]
"""


@pytest.mark.slow  # a build to its bound
def test_a_build_stopped_by_its_bound_verifies_and_resumes(db_url: str) -> None:
    # 1,000 moves a position; 600 on PostgreSQL, whose unique index on games takes a spec of
    # at most 2,704 bytes (1,000 moves are 3,893)
    moves = ",".join(map(str, range(1, 1001 if "://" not in db_url else 601)))
    spec = f"windup:100000:{moves}"
    assert run_json("build", "nim", "2,3", "--db", db_url)["status"] == "complete"
    code, _, err = run("build", spec, "99999", "--db", db_url, *BOUND)
    assert_bounded(code, err, "build")
    assert run_json("verify", "--no-rules", "--db", db_url)["ok"]
    code, _, _ = run("stats", spec, "--db", db_url, "--max-seconds", "60")
    assert code in (0, 1)  # stored in part, or not at all when stopped before its first batch


@pytest.mark.slow  # builds to their bound
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_build_stopped_by_its_bound_is_shown_interrupted(db_url: str, workers: str) -> None:
    # the user's stop, as Ctrl-C is: in one process and in tiers alike (tiers said "failed")
    # a bound the first batch is stored within on a loaded machine (worker processes start
    # first): a build stopped before it stored anything leaves no build to show
    args = ("subtraction:1,2", "300,300,300", "--db", db_url, "--workers", workers)
    code, _, err = run("build", *args, "--max-seconds", "12")
    assert_bounded(code, err, "build", seconds=12)
    (build,) = run_json("stats", "subtraction:1,2", "--db", db_url)["builds"]
    assert build["status"] == "interrupted"
    assert build["workers"] == int(workers)  # in tiers (--workers 1: in this process)


def test_every_command_but_serve_takes_the_bound() -> None:
    for names in COMMAND_MODULES.values():
        for name in names:
            code, out, _ = run(name, "--help")
            assert code == 0
            assert ("--max-seconds" in out) == (name != "serve"), name
    assert main.commands["solve"].params[-1].name == "max_seconds"


def test_a_far_misere_heap_is_answered_from_the_quotient() -> None:
    # octal 0.75's quotient has Φ proven periodic (period 2 from heap 8): a far heap is one
    # a whole number of periods lower, and the small sum is solved from its graph
    for far, near in ((999_999_999_999, 9), (3000, 8), (1_000_001, 9)):
        big = run_json("solve", "octal:0.75", f"{far},3", "--misere")
        small = run_json("solve", "octal:0.75", f"{near},3", "--misere", "--method", "graph")
        assert big["method"] == "quotient" and big["outcome"] == small["outcome"], far
    code, _, err = run("solve", "kayles", "1000000000000", "--misere")
    assert code == 1 and "no period of its heaps' elements is proven" in err


def test_a_rule_raising_the_recursion_limit_leaves_explorers_own(folder: Path) -> None:
    # left raised, the next deep recursion through C frames (a rule calling itself) overflows
    # the C stack and kills the process instead of raising RecursionError
    write(
        folder,
        "raises.py",
        "import sys\n\nimport explorer\n\n\n@explorer.game\ndef raises(n):\n"
        "    sys.setrecursionlimit(10**5)\n    return [n - 1] if n else []\n",
    )
    limit = sys.getrecursionlimit()
    code, out, err = run("solve", "py:raises.py", "3")
    assert code == 0, err
    assert sys.getrecursionlimit() == limit


def test_a_deep_pruned_search_leaves_the_recursion_limit_as_it_was() -> None:
    # the search of a 400-cell board needs room for 1,800 nested calls: left raised, a later
    # rule calling itself in the same process (a test worker's, a notebook's) crashed it
    limit = sys.getrecursionlimit()
    assert run_json("solve", "cram", "1x400")["grundy"] == 2
    assert sys.getrecursionlimit() == limit


def test_a_rule_calling_itself_forever_is_named_once(folder: Path) -> None:
    write(
        folder,
        "selfcall.py",
        "import explorer\n\n\n@explorer.game\ndef selfcall(n):\n    return selfcall(n)\n",
    )
    code, _, err = run("solve", "py:selfcall.py", "3")
    assert code == 1 and err.count("\n") == 1, err
    assert "RecursionError" in err and err.count("fix the rule") == 1, err
