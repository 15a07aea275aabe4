"""Wythoff, Ferguson, Chomp and Staircase Nim against a brute force and the results in GAMES.md."""

from __future__ import annotations

import itertools
import math

import pytest

from explorer import grundy_value, load_game, solve, value_table
from explorer.errors import PositionError
from tests.support.bruteforce import mex_values, remoteness_values

# The rules again, from GAMES.md.


def wythoff_moves(p):
    x, y = p
    out = [(x - k, y) for k in range(1, x + 1)] + [(x, y - k) for k in range(1, y + 1)]
    out += [(x - k, y - k) for k in range(1, min(x, y) + 1)]
    return [tuple(sorted(q)) for q in out]


def ferguson_moves(p):
    n, m = p
    return [tuple(sorted((a, keep - a))) for keep in (n, m) for a in range(1, keep)]


def chomp_moves(rows):
    out = []
    for a in range(len(rows)):
        for b in range(rows[a]):
            if (a, b) != (0, 0):
                new = [r if i < a else min(r, b) for i, r in enumerate(rows)]
                out.append(tuple(r for r in new if r))
    return out


def staircase_moves(steps):
    out = []
    for i, c in enumerate(steps):
        for k in range(1, c + 1):
            s = list(steps)
            s[i] -= k
            if i:
                s[i - 1] += k
            while s and s[-1] == 0:
                s.pop()
            out.append(tuple(s))
    return out


def check_against_brute_force(spec, texts, moves):
    game = load_game(spec)
    for text in texts:
        position = game.parse(text)
        brute = mex_values(position, moves)
        assert (
            solve(game, position, method="graph").remoteness
            == (remoteness_values(position, moves)[position])
        )
        for method in ("graph", "auto", "decompose"):
            result = solve(game, position, method=method)
            assert result.grundy == brute[position], (spec, text, method)
        expected = sorted(game.format(q) for q in set(moves(position)) if brute[q] == 0)
        for method in ("auto", "decompose"):
            assert sorted(solve(game, position, method=method).winning_moves) == expected


def test_wythoff_against_brute_force():
    texts = [f"{x},{y}" for x in range(8) for y in range(x, 8)]
    check_against_brute_force("wythoff", texts, wythoff_moves)


def test_wythoff_p_positions_are_the_golden_pairs():
    phi = (1 + math.sqrt(5)) / 2
    golden = {(math.floor(k * phi), math.floor(k * phi * phi)) for k in range(30)}
    table = value_table(load_game("wythoff"), 40, 40)
    zeros = {(r, c) for r in range(40) for c in range(r, 40) if table[r][c] == 0}
    assert zeros == {(a, b) for a, b in golden if b < 40}


def test_ferguson_against_brute_force_and_parity_rule():
    texts = [f"{n},{m}" for n in range(1, 12) for m in range(n, 12)]
    check_against_brute_force("ferguson", texts, ferguson_moves)
    game = load_game("ferguson")
    for n, m in itertools.product(range(1, 25), repeat=2):
        first_loses = grundy_value(game, game.parse(f"{n},{m}")) == 0
        assert first_loses == (n % 2 == 1 and m % 2 == 1)


def test_ferguson_table_marks_empty_heaps():
    values = value_table(load_game("ferguson"), 3, 3)
    assert values[0] == [None, None, None]
    assert values[1][1] == 0 and values[1][2] != 0


def test_chomp_against_brute_force():
    texts = ["1", "2", "1,1", "3,2,1", "4,4,3", "3x3", "2x5", "4,2,2,1"]
    check_against_brute_force("chomp", texts, chomp_moves)


@pytest.mark.parametrize("rows", range(1, 6))
@pytest.mark.parametrize("cols", range(1, 6))
def test_chomp_rectangles_are_first_player_wins_except_1x1(rows, cols):
    game = load_game("chomp")
    outcome = solve(game, game.parse(f"{rows}x{cols}")).outcome
    assert outcome == ("P" if rows == cols == 1 else "N")


def test_staircase_against_brute_force_and_odd_steps_rule():
    game = load_game("staircase")
    texts = [",".join(map(str, s)) for s in itertools.product(range(3), repeat=4)]
    check_against_brute_force("staircase", texts, staircase_moves)
    for steps in itertools.product(range(4), repeat=4):
        brute = mex_values(tuple(steps), staircase_moves)
        xor = steps[0] ^ steps[2]
        position = game.parse(",".join(map(str, steps)))
        assert (brute[tuple(steps)] == 0) == (xor == 0)
        assert grundy_value(game, position) == brute[tuple(steps)]


@pytest.mark.parametrize(
    ("spec", "text", "message"),
    [
        ("wythoff", "1,2,3", "bad position '1,2,3' for wythoff: expected two heaps x,y, got 3"),
        (
            "wythoff",
            "-1,2",
            "bad position '-1,2' for wythoff: '-1' is not a non-negative "
            "integer (expected two heaps x,y)",
        ),
        (
            "ferguson",
            "0,3",
            "bad position '0,3' for ferguson: expected two heaps n,m, each at least 1",
        ),
        (
            "chomp",
            "2,3",
            "bad position '2,3' for chomp: row lengths must not increase (like 4,4,3)",
        ),
        ("chomp", "0", "bad position '0' for chomp: the poisoned cell (1,1) must remain"),
        (
            "staircase",
            "",
            "empty position for staircase (expected coins on steps 1, 2, ..., e.g. 3,0,5)",
        ),
    ],
)
def test_bad_positions(spec, text, message):
    with pytest.raises(PositionError) as error:
        load_game(spec).parse(text)
    assert str(error.value) == message


@pytest.mark.parametrize(
    ("spec", "text", "canonical"),
    [
        ("wythoff", "5,3", "3,5"),
        ("ferguson", "7,2", "2,7"),
        ("chomp", "3x4", "4,4,4"),
        ("chomp", "3,2,0", "3,2"),
        ("staircase", "3,0,5,0", "3,0,5"),
        ("staircase", "0,0", "0"),
    ],
)
def test_round_trip(spec, text, canonical):
    game = load_game(spec)
    position = game.parse(text)
    assert game.format(position) == canonical
    assert game.parse(canonical) == position
