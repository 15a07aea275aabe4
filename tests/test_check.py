"""``explorer check``: a game definition's self-test, claims about values, and plugins found
through the ``explorer.games`` entry points."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.games import families
from tests.support.cli import run, run_json
from tests.support.environment import REPO
from tests.support.python_games import STONES_HEAP, install_plugin, stones_value, write


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("name", "cls"), families(), ids=[name for name, _ in families()])
def test_every_builtin_example_passes(
    name: str, cls: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # examples name files of the repository
    spec, position = cls.example  # type: ignore[attr-defined]
    report = run_json("check", spec, position, "--max-states", "5000")
    assert report["ok"], report["problems"]
    assert report["positions"] >= 1


def test_the_example_game_passes(folder: Path) -> None:
    write(folder, "stones.py", STONES_HEAP)
    code, out, err = run("check", "py:stones.py")
    assert code == 0, err
    assert "ok: text round trip, deterministic moves, acyclicity, sums" in out
    report = run_json("check", "py:stones.py", "4,6")
    assert report["decompositions"] > 0 and report["acyclic"]


def test_finds_a_parse_format_mismatch(folder: Path) -> None:
    write(
        folder,
        "mismatch.py",
        """\
        import explorer

        class Pairs(explorer.Game):
            example = ("", "3,4")

            def parse(self, text):
                a, b = map(int, text.split(","))
                return (a, b)

            def format(self, position):
                return f"{position[1]},{position[0]}"  # planted: the parts swapped

            def successors(self, position):
                a, b = position
                return [(a - 1, b)] * (a > 0) + [(a, b - 1)] * (b > 0)
        """,
    )
    code, out, err = run("check", "py:mismatch.py")
    assert code == 1
    assert "round trip: 4,3: (3, 4) is written '4,3', read back (4, 3)" in out
    assert "(2, 4) is written '4,2', which reads back as (4, 2)" in out  # a move, by the guard
    assert err.startswith("Error: ")


def test_finds_a_nondeterministic_rule(folder: Path) -> None:
    write(
        folder,
        "chance.py",
        """\
        import random
        import explorer

        @explorer.game(example="20")
        def chance(n):
            return random.sample(range(n), min(n, 3))
        """,
    )
    code, out, err = run("check", "py:chance.py")
    assert code == 1
    assert "answered differently when asked twice" in out
    assert "chance.py, line 5:" in out
    assert err.startswith("Error: ")


def test_finds_an_undeclared_cycle(folder: Path) -> None:
    write(
        folder,
        "loop.py",
        """\
        import explorer

        @explorer.game(example="2")
        def loop(n):
            return [(n + 1) % 3]
        """,
    )
    report = json.loads(run("check", "py:loop.py", "--json")[1])
    assert not report["ok"]
    assert [p["check"] for p in report["problems"]] == ["acyclic"]
    assert "2 -> 0 -> 1 -> 2" in report["problems"][0]["detail"]
    write(folder, "loop.py", (folder / "loop.py").read_text().replace(")", ", acyclic=False)", 1))
    assert run_json("check", "py:loop.py")["ok"]


def test_a_false_claim_and_a_true_one(folder: Path) -> None:
    write(folder, "stones.py", STONES_HEAP)
    wrong = "n % 3 == 0"
    code, out, _ = run("check", "py:stones.py", "--p", wrong, "--upto", "30")
    assert code == 1
    failures = [n for n in range(31) if (n % 3 == 0) != (stones_value(n) == 0)]
    assert f"counterexample {failures[0]}: value {stones_value(failures[0])}" in out
    report = json.loads(run("check", "py:stones.py", "--p", wrong, "--upto", "30", "--json")[1])
    assert report["failures"] == len(failures)
    assert [c["position"] for c in report["counterexamples"]] == [str(n) for n in failures[:5]]
    for case in report["counterexamples"]:
        move = case["winning_move"]
        if move is not None:  # the winning move really reaches a P-position
            assert run_json("solve", "py:stones.py", move)["outcome"] == "P"
    values = dict(enumerate(stones_value(n) for n in range(31)))
    table = "{" + ", ".join(f"{n}: {v}" for n, v in values.items()) + "}"
    assert run("check", "py:stones.py", "--value", f"{table}[n]", "--upto", "30")[0] == 0


def test_claims_on_positions_reached(folder: Path) -> None:
    code, out, err = run("check", "nim", "3,4,5", "--p", "a ^ b ^ c == 0")
    assert code == 0, err
    assert "holds" in out
    code, out, _ = run("check", "nim", "2,3", "--value", "a + b")
    assert code == 1 and "counterexample" in out
    code, _, err = run("check", "nim", "3", "--p", "n ==")
    assert code == 1 and err.startswith("Error: bad claim 'n =='")


def test_a_claim_past_its_positions_is_refused_before_they_are_listed() -> None:
    # issue 41: the search went on through every move of the positions past the limit
    # (2,000,000 from 1000000,1000000): no answer in 120 s; 38.6 s for 1000,1000
    for start in ("1000000,1000000", "1000,1000"):
        code, _, err = run("check", "nim", start, "--p", "a == b", "--max-seconds", "10")
        assert (code, err) == (
            1,
            f"Error: position {start!r} of nim reaches more than 20,000 positions "
            "(raise --max-states)\n",
        )
    report = run_json("check", "nim", "300,300", "--p", "a == b", "--max-states", "50000")
    assert (report["positions"], report["holds"]) == (45_451, True)


@pytest.mark.slow  # two million moves listed twice (seconds); the bound when it fails
def test_a_check_past_its_limit_lists_no_more_moves() -> None:
    # the search went on through the moves of every position queued past --max-states
    code, out, err = run("check", "nim", "1000000,1000000", "--json", "--max-seconds", "60")
    assert code == 0, err
    report = json.loads(out)
    assert (report["positions"], report["complete"], report["ok"]) == (20_000, False, True)


@pytest.mark.parametrize("spec", ["nim", "subtraction:1,2", "bash:3", "kayles"])
def test_positions_listed_without_moves_are_those_the_moves_reach(spec: str) -> None:
    from explorer.analysis.checks import claim_positions
    from explorer.games import load_game
    from explorer.generation.graph import build_graph

    game = load_game(spec)
    for text in ("3,4,5", "1,1,2", "6", "0"):
        reached = claim_positions(game, text, None, 10_000)
        assert reached[0] == game.parse(text)
        assert sorted(reached) == sorted(build_graph(game, game.parse(text)).nodes), text
    assert (game.list_states(game.parse("2,3")) is None) == (spec == "kayles")


@pytest.mark.parametrize(
    ("claim", "detail"),
    [
        ("9 ** 9 ** 9 > 0", "9 ** 387420489 has about 1,228,093,895 bits"),
        ("pow(b + 7, 10 ** 8) > 0", "10 ** 100000000 has about 332,192,810 bits"),
        ("(1 << 10 ** 9) > b", "1 << 1000000000 has about 1,000,000,001 bits"),
        ("(2 ** 20 + b) ** 2 ** 15 * (2 ** 20 + b) ** 2 ** 15 > 0", "a product has about 1,3"),
        ("len(p * 10 ** 9) > 0", "a repeated sequence has about 1,000,000,000 items"),
    ],
)
def test_a_claim_computing_a_huge_number_is_refused_at_once(claim: str, detail: str) -> None:
    # issue 41: 9 ** 9 ** 9 ran to the work bound (600 s), its number growing to 150 MB
    code, _, err = run("check", "kayles", "3", "--p", claim, "--max-seconds", "10")
    assert code == 1 and err.startswith(f"Error: the claim {claim!r} raised OverflowError"), err
    assert detail in err and "a claim computes with at most 1,048,576" in err, err
    assert err.count("\n") == 1


def test_claims_of_ordinary_size_compute_as_python_does() -> None:
    from explorer.analysis.checks import _claim, claim_names
    from explorer.games import load_game

    game = load_game("nim")
    names = claim_names(game, (3, 5, 6), 3)
    for claim in ("a ** 2 + b * c", "pow(a, 3, 5)", "a << 20", "p * 2", "2 ** 1000 - a", "-3 ** 3"):
        assert _claim(claim)(names) == eval(claim, {"pow": pow}, names), claim  # noqa: S307


# -- plugins -------------------------------------------------------------------------------------
@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = install_plugin(tmp_path / "site")
    monkeypatch.syspath_prepend(str(folder))
    return folder


def test_plugins_are_listed_with_their_source(plugin: Path) -> None:
    rows = {row["name"]: row for row in run_json("games")}
    assert rows["stones"]["source"] == "entry point of explorer-stones-plugin 1.0"
    assert rows["takeaway"]["example"] == "takeaway:3 10"
    assert rows["nim"]["source"] == "built-in"


def test_plugins_solve_and_build_by_name(plugin: Path, db_url: str) -> None:
    assert run_json("solve", "stones", "3,5")["grundy"] == stones_value(3) ^ stones_value(5)
    assert run_json("solve", "takeaway:3", "9")["grundy"] == 9 % 4
    built = run_json("build", "stones", "3,5", "--db", db_url)
    assert built["game"] == "stones"
    assert run_json("query", "stones", "5,3", "--db", db_url)["grundy"] == built["grundy"]
    built = run_json("build", "takeaway:2 + stones", "7 + 4", "--db", db_url)
    assert built["grundy"] == (7 % 3) ^ stones_value(4)


def test_plugins_in_a_fresh_process(plugin: Path) -> None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(plugin), str(REPO)]))
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "sequence", "stones", "--upto", "9", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    assert json.loads(done.stdout)["values"] == [stones_value(n) for n in range(10)]
