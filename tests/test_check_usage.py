"""``explorer check`` never blames the user for its own defaults: no made-up start position,
``--upto`` only where positions are single numbers, counts in the right number."""

from __future__ import annotations

import pytest

from tests.support.cli import run
from tests.support.python_games import write

TWO_HEAPS = """\
    import explorer

    @explorer.game{declared}
    def pairs(p):
        a, b = p
        yield from ((a - k, b) for k in range(1, a + 1))
        yield from ((a, b - k) for k in range(1, b + 1))
    """

#: A rule that answers differently the second time it is asked about position 1: one problem.
FICKLE = """\
    import explorer

    asked = []

    @explorer.game(example="3")
    def fickle(n):
        if n == 1:
            asked.append(n)
            return [0] if len(asked) % 2 else []
        return list(range(n))
    """


def test_a_rule_without_an_example_needs_a_position(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "two.py", TWO_HEAPS.format(declared=""))
    code, out, err = run("check", "py:two.py")
    assert (code, out) == (2, "")
    assert "declares no example position: give a POSITION" in err and "TypeError" not in err
    code, out, _ = run("check", "py:two.py", "2,3")
    assert code == 0 and "positions     12, 30 moves" in out


def test_a_rule_with_an_example_starts_there(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "two.py", TWO_HEAPS.format(declared='(example="2,3")'))
    code, out, err = run("check", "py:two.py")
    assert code == 0, err
    assert "from          2,3" in out and "positions     12, 30 moves" in out


@pytest.mark.parametrize(
    ("spec", "declared", "shown"),
    [
        ("py:two.py", "", "are not declared"),
        ("py:two.py", '(example="2,3")', "are like '2,3'"),
        ("wythoff", None, "are like '3,5'"),
    ],
)
def test_upto_on_a_game_not_of_single_numbers_is_a_usage_error(
    tmp_path, monkeypatch, spec, declared, shown
):
    monkeypatch.chdir(tmp_path)
    if declared is not None:
        write(tmp_path, "two.py", TWO_HEAPS.format(declared=declared))
    code, out, err = run("check", spec, "--p", "a == b", "--upto", "5")
    assert (code, out) == (2, "")
    lines = err.strip().splitlines()
    assert lines[-1].startswith("Error: --upto checks the positions 0..N") and shown in lines[-1]
    assert "fix the rule" not in err


def test_upto_still_checks_heaps_and_number_games():
    code, out, _ = run("check", "kayles", "--p", "n % 3 == 0", "--upto", "5")
    assert code == 1 and "checked   6 positions of octal:0.77" in out
    code, out, err = run("check", "windup:5:1,3", "--value", "n", "--upto", "3")
    assert "--upto checks" not in err


def test_one_problem_is_one_problem(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "fickle.py", FICKLE)
    code, out, err = run("check", "py:fickle.py")
    assert code == 1 and "rules: 1:" in out and "(1 move, then 0;" in out
    assert err.startswith("Error: 1 problem found in py:fickle.py") and "problems" not in err
