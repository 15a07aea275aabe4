"""The command line: JSON contracts, human output and one-line errors."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import pytest

from explorer.games import FAMILIES
from tests.support.cli import run, run_json


def test_solve_json_contract():
    data = run_json("solve", "nim", "5,3,4")
    assert data["game"] == "nim"
    assert data["position"] == "3,4,5"
    assert data["grundy"] == 2
    assert data["outcome"] == "N"
    assert data["remoteness"] == 11
    assert data["winning_moves"] == ["1,4,5"]


def test_solve_a_mixed_sum():
    data = run_json("solve", "nim + kayles + wythoff", "3 + 4 + 1,2")
    assert data["game"] == "nim + octal:0.77 + wythoff"
    assert data["grundy"] == 3 ^ 1 ^ 0
    assert data["position"] == "3 + 4 + 1,2"


def test_solve_huge_nim_by_decomposition():
    heaps = ",".join(str(10**6 - i) for i in range(1000))
    data = run_json("solve", "nim", heaps)
    assert data["remoteness"] is None
    assert data["method"] == "decomposition"
    xor = 0
    for i in range(1000):
        xor ^= 10**6 - i
    assert data["grundy"] == xor


def test_sequence_kayles_contract():
    data = run_json("sequence", "kayles", "--upto", "2000")
    assert data["game"] == "octal:0.77"
    assert len(data["values"]) == 2001
    assert (data["period"], data["preperiod"], data["proven"]) == (12, 71, True)


def test_sequence_text_says_proven():
    code, out, _ = run("sequence", "kayles", "--upto", "300")
    assert code == 0
    assert "period 12, preperiod 71: proven (Guy-Smith theorem)" in out


def test_sequence_of_grundys_game_has_no_period():
    data = run_json("sequence", "grundy", "--upto", "500")
    assert data["period"] is None and data["preperiod"] is None and data["proven"] is False


def test_table_contract():
    data = run_json("table", "wythoff", "--rows", "3", "--cols", "4")
    assert data == {"game": "wythoff", "values": [[0, 1, 2, 3], [1, 2, 0, 4], [2, 0, 1, 5]]}
    data = run_json("table", "nim", "--rows", "2", "--cols", "3")
    assert data["values"] == [[0, 1, 2], [1, 0, 3]]


def test_games_json_lists_every_family():
    data = run_json("games")
    names = [row["name"] for row in data]
    assert names == [*FAMILIES, "sum", "py"]  # then any families installed packages add
    for row in data:
        assert set(row) >= {"name", "parameters", "position", "example", "source"}


def test_games_examples_are_shell_quoted():
    """Pasted after ``explorer solve``, each example is one spec and one position."""
    for row in run_json("games"):
        spec, position = shlex.split(row["example"])
        assert run("solve", spec, position)[0] == 0, row["example"]
    assert {r["name"]: r["example"] for r in run_json("games")}["queens"] == "queens '1,3;4,2'"


def test_explain_shows_the_mex():
    code, out, _ = run("explain", "subtraction:1,2,3", "5")
    assert code == 0
    assert "G = mex{0, 2, 3} = 1" in out


def test_explain_shows_the_xor():
    code, out, _ = run("explain", "nim", "3,4,5")
    assert "G = 3 XOR 4 XOR 5 = 2" in out


def _nim_moves(heaps: tuple[int, ...]) -> dict[str, int]:
    """Every Nim move from `heaps` and the XOR it leaves, by the definition."""
    moves = {}
    for i, heap in enumerate(heaps):
        for left in range(heap):
            after = sorted([*heaps[:i], *heaps[i + 1 :], *([left] if left else [])])
            value = 0
            for h in after:
                value ^= h
            moves[",".join(map(str, after)) or "0"] = value
    return moves


def test_explain_of_a_sum_lists_its_moves_and_says_why():
    data = run_json("explain", "nim", "1,4,5")
    assert (data["grundy"], data["outcome"]) == (0, "P")
    assert dict(map(tuple, data["successors"])) == _nim_moves((1, 4, 5))
    code, out, _ = run("explain", "nim", "1,4,5")
    assert code == 0
    assert "│ XOR  │      │ 0      │ 000    │" in out  # the binary columns
    assert "no move reaches a P-position" in out and "P: the player to move loses" in out
    code, out, _ = run("explain", "nim", "3,4,5")
    assert "winning move: take 2 from 3\n" in out
    assert [m for m, v in _nim_moves((3, 4, 5)).items() if v == 0] == ["1,4,5"]
    graph = run_json("explain", "nim", "3,4,5", "--method", "graph")
    assert graph["method"] == "mex" and graph["parts"] == []
    assert dict(map(tuple, graph["successors"])) == _nim_moves((3, 4, 5))
    code, out, _ = run("explain", "nim", "3,4,5", "--method", "graph")
    assert "G = mex{0, 1, 3, 4, 5, 6, 7} = 2" in out


def test_explain_of_a_big_sum_names_only_its_winning_moves():
    data = run_json("explain", "nim", "1000,2000,3000")
    assert [m for m, v in data["successors"]] == ["1000,1080,2000"]  # 1000 ^ 2000 = 1080
    assert all(v == 0 for _, v in data["successors"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["solve", "nimm", "3"],
            "Error: unknown game 'nimm' (known: arckayles, bash, chomp, cram, dag, dawson, "
            "ferguson, graph, grundy, hackenbush, half, kayles, lasker, nim, nodekayles, octal, "
            "py, queens, staircase, subtraction, tb, treblecross, turning, windup, wythoff)",
        ),
        (
            ["solve", "bash:0", "3"],
            "Error: bad parameter '0' for bash (expected M >= 1, e.g. bash:3)",
        ),
        (
            ["solve", "octal:0.8", "3"],
            "Error: bad octal code '0.8' (expected digits 0-7 like 0.77, 0.137 or 4.07)",
        ),
        (
            ["solve", "octal:1.7", "3"],
            "Error: bad octal code '1.7': the digit before the point must be 0 or 4",
        ),
        (
            ["solve", "subtraction:1,x", "3"],
            "Error: bad subtraction set '1,x' (expected positive integers, e.g. subtraction:1,3,4)",
        ),
        (["solve", "nim:3", "3"], "Error: nim takes no parameter, got '3' (use just 'nim')"),
        (
            ["solve", "nim", "3,x"],
            "Error: bad position '3,x' for nim: 'x' is not a "
            "non-negative integer (expected heap sizes, e.g. 3,4,5 (0 for no heap))",
        ),
        (
            ["solve", "nim + nim", "3"],
            "Error: bad position '3' for nim + nim: 1 part(s) for 2 "
            "games (join one position per game with '+')",
        ),
        (["solve", "nim +", "3"], "Error: bad sum 'nim +': every '+' must join two game specs"),
        (
            ["solve", "wythoff", "3000,3000"],
            "Error: position '3000,3000' of wythoff is too "
            "large: more than 200,000 states (raise the limit with --max-states)",
        ),
        (
            ["solve", "grundy", "2000000000"],
            "Error: G(0..2,000,000,000) needs about 15,261 MiB, over the limit of 2,048 MiB "
            "(raise it with --memory)",
        ),
        (
            ["solve", "grundy", "2000000", "--max-memory", "4"],
            "Error: G(0..2,000,000) needs about 17 MiB, over the limit of 4 MiB "
            "(raise it with --memory)",
        ),
        (
            ["sequence", "wythoff"],
            "Error: wythoff has no one-parameter positions (sequences "
            "are for heap games, treblecross strips, coin rows and games on graphs given a form: "
            'nodekayles:P, @explorer.graph_game(form="P"))',
        ),
    ],
)
def test_errors_are_one_line(args, message):
    code, out, err = run(*args)
    assert code == 1
    assert err.strip() == message
    assert out == ""


def test_usage_errors_come_from_click():
    code, _, err = run("sequence", "nim", "--upto", "-1")
    assert code == 2
    assert "Invalid value for '--upto'" in err


def test_python_dash_m_runs_the_cli():
    result = subprocess.run(
        [sys.executable, "-m", "explorer", "solve", "nim", "1,2,3", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(result.stdout)["outcome"] == "P"


def test_read_commands_leave_no_database_behind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (
        ["query", "nim", "3"],
        ["stats"],
        ["export", "nim", "-o", "x.csv"],
        ["build", "nimm", "3"],
        ["build", "nim", "x"],
    ):
        code, _, err = run(*args)
        assert code == 1 and err.startswith("Error: ")
    assert list(tmp_path.iterdir()) == []
