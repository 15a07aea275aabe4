"""``explorer diff``: rule variants compared position by position, against a brute force."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.analysis.variants import compare_positions, compare_range
from explorer.games import load_game
from tests.support.bruteforce import mex_values
from tests.support.cli import run
from tests.support.strategies import fraction_of_examples


def subtraction_values(moves: set[int], upto: int) -> list[int]:
    """G(0..upto) of one heap where a move removes s tokens, s in `moves` (by mex)."""
    values: dict[int, int] = {}
    for n in range(upto + 1):
        if n not in values:
            values.update(mex_values(n, lambda h: [h - s for s in moves if s <= h]))
    return [values[n] for n in range(upto + 1)]


@settings(max_examples=fraction_of_examples(0.4))  # each example tabulates two games
@given(
    st.sets(st.integers(min_value=1, max_value=6), min_size=1, max_size=3),
    st.sets(st.integers(min_value=1, max_value=6), min_size=1, max_size=3),
    st.integers(min_value=0, max_value=40),
)
def test_range_differences_are_the_positions_where_the_brute_force_differs(
    a: set[int], b: set[int], upto: int
) -> None:
    spec_a = "subtraction:" + ",".join(map(str, sorted(a)))
    spec_b = "subtraction:" + ",".join(map(str, sorted(b)))
    result = compare_range(load_game(spec_a), load_game(spec_b), upto)
    va, vb = subtraction_values(a, upto), subtraction_values(b, upto)
    expected = [(str(n), va[n], vb[n]) for n in range(upto + 1) if va[n] != vb[n]]
    assert [(d.position, d.grundy_a, d.grundy_b) for d in result.differences] == expected
    assert result.compared == upto + 1
    assert result.outcome_differences == sum((x == 0) != (y == 0) for _, x, y in expected)


def test_the_issue_example_over_a_range() -> None:
    code, out, _ = run("diff", "subtraction:1,3,4", "subtraction:1,4", "--upto", "12", "--json")
    assert code == 0
    data = json.loads(out)
    va, vb = subtraction_values({1, 3, 4}, 12), subtraction_values({1, 4}, 12)
    assert data["game_a"] == "subtraction:1,3,4" and data["game_b"] == "subtraction:1,4"
    assert data["compared"] == 13
    assert [d["position"] for d in data["differences"]] == [
        str(n) for n in range(13) if va[n] != vb[n]
    ]
    assert data["differences"][0] == {
        "position": "5",
        "grundy_a": 3,
        "outcome_a": "N",
        "grundy_b": 0,
        "outcome_b": "P",
    }
    assert data["differ"] == 6 and data["outcome_differ"] == 4


def test_the_table_lists_each_difference() -> None:
    code, out, _ = run("diff", "subtraction:1,3,4", "subtraction:1,4", "--upto", "6")
    assert code == 0
    assert "2 of 7 positions differ (1 in outcome)" in out
    lines = [line for line in out.splitlines() if line.startswith("│")]
    assert [line.split("│")[1].strip() for line in lines] == ["5", "6"]
    assert "3 N" in lines[0] and "0 P" in lines[0] and "differs" in lines[0]


def test_identical_rules_under_two_names_do_not_differ() -> None:
    code, out, _ = run("diff", "kayles", "octal:0.77", "--upto", "80", "--json")
    assert code == 0
    assert json.loads(out)["differences"] == []


def test_listed_positions_are_parsed_by_both_games() -> None:
    # Nim against Bash (take 1..3): G = XOR of heaps against XOR of heaps mod 4.
    result = compare_positions(load_game("nim"), load_game("bash:3"), ["3", "4", "3,4", "1,2,3"])
    assert [(d.position, d.grundy_a, d.grundy_b) for d in result.differences] == [
        ("4", 4, 0),
        ("3,4", 7, 3),
    ]
    assert result.outcome_differences == 1
    code, out, _ = run("diff", "nim + nim", "nim + bash:3", "-p", "1 + 4", "-p", "2 + 2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["compared"] == 2
    assert data["differences"] == [
        {"position": "1 + 4", "grundy_a": 5, "outcome_a": "N", "grundy_b": 1, "outcome_b": "N"}
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["nim", "chomp", "--upto", "3"],
            "Error: chomp has no one-parameter positions (sequences are for heap games, "
            "treblecross strips, coin rows and games on graphs given a form: nodekayles:P, "
            '@explorer.graph_game(form="P"))\n',
        ),
        (["nim", "nimm"], "Error: unknown game 'nimm'"),
        (["nim", "bash:3", "-p", "x"], "Error: bad position 'x' for nim"),
    ],
)
def test_bad_input_is_a_one_line_error(args: list[str], message: str) -> None:
    code, out, err = run("diff", *args)
    assert code == 1
    assert out == ""
    assert err.startswith(message)
    assert err.count("\n") == 1


def test_upto_and_position_together_are_a_usage_error() -> None:
    code, out, err = run("diff", "nim", "bash:3", "--upto", "3", "-p", "2")
    assert code == 2
    assert out == ""
    assert err.endswith("\nError: give --upto or --position, not both\n")
