"""Resource bombs: each command below refuses (exit 1, one ``Error:`` line naming the limit and
the option) or finishes, within `LIMIT` seconds and `MEMORY` bytes, and changes no database."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.games.base import natural_number
from tests.support.environment import REPO

#: Longest a command may run, and most memory it may take.
LIMIT = 30
MEMORY = 2 * 2**30

SUM_OF_50 = " + ".join(["kayles"] * 50)
AT_3 = " + ".join(["3"] * 50)
GOOGOL = "1" + "0" * 100


def explorer(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    """Run a command in its own process, limited in time and (address space) memory."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY + 2**30, MEMORY + 2**30))

    done = subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=LIMIT,
        preexec_fn=limit,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    return done.returncode, done.stdout, done.stderr


def refused(tmp_path: Path, *args: str) -> str:
    code, _, err = explorer(tmp_path, *args)
    lines = err.splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


@pytest.mark.slow
def test_a_sum_of_50_games_is_refused_before_the_database_changes(tmp_path: Path) -> None:
    line = refused(tmp_path, "build", SUM_OF_50, AT_3, "--db", "x.db")
    assert "16,777,216 states" in line and "--max-states" in line and "--memory" in line
    assert not (tmp_path / "x.db").exists() or (tmp_path / "x.db").stat().st_size < 2**20
    # its value is the XOR of its parts' (kayles 3 is worth 3; fifty of them XOR to 0)
    code, out, _ = explorer(tmp_path, "solve", SUM_OF_50, AT_3, "--json")
    assert code == 0 and '"grundy": 0' in out


def brute_kayles(upto: int) -> list[int]:
    g: list[int] = []
    for n in range(upto + 1):
        reach = {g[a] ^ g[n - k - a] for k in (1, 2) for a in range(0, n - k + 1)}
        g.append(min(set(range(len(reach) + 1)) - reach))
    return g


def test_solve_kayles_at_a_googol_is_answered(tmp_path: Path) -> None:
    import json

    code, out, err = explorer(tmp_path, "solve", "kayles", f"7,{GOOGOL}", "--json")
    assert code == 0, err
    result = json.loads(out)
    table = brute_kayles(200)

    def g(n: int) -> int:  # Kayles has period 12 from 71 on (Guy and Smith)
        return table[n] if n <= 200 else table[100 + (n - 100) % 12]

    assert result["grundy"] == g(7) ^ g(int(GOOGOL))
    assert result["winning_moves"]
    for move in result["winning_moves"]:
        heaps = [natural_number(h, context="test") for h in move.split(",")]
        value = 0
        for h in heaps:
            assert h is not None
            value ^= g(h)
        assert value == 0, move


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ("sequence", "kayles", "--upto", "100", "--max-memory", "16000000"),
            ["--max-memory 16,000,000 MiB", "this machine's memory"],
        ),
        (
            ("build", "nim", "3", "--memory", "1000000000", "--db", "x.db"),
            ["--memory 1,000,000,000 MiB", "this machine's memory"],
        ),
        (
            ("sequence", "grundy", "--misere", "--upto", "10000000"),
            ["need 10,000,001 game states", "--upto 199,999 or less"],
        ),
        (
            ("solve", "windup:10000000:1,3", "9999999", "--max-states", "100000000"),
            ["--max-states 100,000,000", "this machine's"],
        ),
        (
            ("solve", "windup:10000000:1,3", "9999999"),
            ["more than 200,000 states", "--max-states"],
        ),
        (
            (
                "build",
                "windup:10000000:1,3",
                "9999999",
                "--max-states",
                "10000000000",
                "--db",
                "x.db",
            ),
            ["10,000,000 states", "labelled whole in memory", "--memory"],
        ),
    ],
    ids=[
        "max-memory",
        "build memory",
        "misere sequence",
        "windup solve",
        "windup solve default",
        "windup build",
    ],
)
def test_a_bomb_is_refused_naming_its_limit(tmp_path: Path, args, words) -> None:
    line = refused(tmp_path, *args)
    for word in words:
        assert word in line, line
    if args[0] == "sequence":  # no advice of an option it does not take
        assert "--max-states" not in line
    assert not (tmp_path / "x.db").exists()


@pytest.mark.slow  # a long misere sequence
def test_a_misere_sequence_is_right_within_its_guard(tmp_path: Path) -> None:
    """Misère G⁻ of one Kayles heap, against a brute force over multisets of heaps."""
    import json

    memo: dict[tuple[int, ...], int] = {}

    def misere(heaps: tuple[int, ...]) -> int:
        if heaps not in memo:
            follow = set()
            for i, h in enumerate(heaps):
                rest = heaps[:i] + heaps[i + 1 :]
                for k in (1, 2):
                    for a in range(0, h - k + 1):
                        parts = tuple(sorted(p for p in (*rest, a, h - k - a) if p))
                        follow.add(misere(parts))
            memo[heaps] = min(set(range(len(follow) + 1)) - follow) if follow else 1
        return memo[heaps]

    code, out, err = explorer(tmp_path, "sequence", "kayles", "--misere", "--upto", "14", "--json")
    assert code == 0, err
    assert json.loads(out)["values"] == [misere((n,) if n else ()) for n in range(15)]
