"""`explain` teaches the win: every N-position names its winning moves, and a sum shows
Bouton's arithmetic (the XOR in binary, the part to change and its new value; for Nim, the
heap and how many to take)."""

from __future__ import annotations

import pytest

import explorer
from tests.support.bruteforce import heap_game_moves, mex_values
from tests.support.cli import run_ok
from tests.support.heap_rules import nim as nim_moves
from tests.support.heap_rules import subtraction


@pytest.mark.parametrize("n", range(1, 12))
def test_a_single_heap_names_its_winning_moves(n):
    values = mex_values((n,), heap_game_moves(subtraction([1, 3, 4])))
    winning = sorted(
        f"take {n - sum(q)} from {n}"
        for q in heap_game_moves(subtraction([1, 3, 4]))((n,))
        if values[q] == 0
    )
    out = run_ok("explain", "subtraction:1,3,4", str(n))
    if winning:
        line = next(x for x in out.splitlines() if x.startswith("winning move"))
        assert sorted(line.split(": ", 1)[1].split("; ")) == winning
    else:
        assert "winning move" not in out


@pytest.mark.parametrize("heaps", [(3, 4, 5), (6, 6, 7, 9), (1, 2, 4), (7,), (5, 9, 12, 1)])
def test_nim_shows_boutons_arithmetic(heaps):
    total = 0
    for h in heaps:
        total ^= h
    text = ",".join(map(str, heaps))
    result = explorer.explain("nim", text)
    if len(heaps) == 1:
        assert result.changes == [] and result.winning_moves == ["0"]
        assert f"winning move: take {text} from {text}" in run_ok("explain", "nim", text)
        return
    # the heaps to change are exactly those whose size goes down when XORed with the total
    expected = sorted({h for h in heaps if h ^ total < h})
    assert sorted(c["value"] for c in result.changes) == expected
    for change in result.changes:
        assert change["target"] == change["value"] ^ total
    # every winning move (by the brute force of the tests) is named by some change
    values = mex_values(tuple(sorted(heaps)), heap_game_moves(nim_moves))
    successors = heap_game_moves(nim_moves)(tuple(sorted(heaps)))
    winning = {",".join(map(str, q)) for q in successors if values[q] == 0}
    assert {m for c in result.changes for m in c["moves"]} == winning
    out = run_ok("explain", "nim", text)
    width = max([*heaps, total]).bit_length()
    assert f"XOR {total} ({total:0{width}b})" in out
    for h in expected:
        arithmetic = f"{h:0{width}b} XOR {total:0{width}b} = {h ^ total:0{width}b}"
        assert (
            f"heap {h}: {arithmetic}: take {h - (h ^ total)} from the heap of {h}, "
            f"leaving {h ^ total}" in out
        )


def test_a_p_position_has_no_change():
    assert explorer.explain("nim", "1,4,5").changes == []
    out = run_ok("explain", "nim", "1,4,5")
    assert "to win" not in out and "from the heap of" not in out


def test_other_sums_show_the_part_and_its_new_value():
    out = run_ok("explain", "kayles", "3,5")
    assert "part 5 (octal:0.77, G 4): 100 XOR 111 = 011: move it to a position of value 3" in out
