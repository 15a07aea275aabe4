"""Misère play against a brute force by definition on every small position of every heap family,
Bouton's misère rule for Nim, misère heap sequences, and the CLI's ``--misere``."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from explorer import build_graph, load_game
from explorer.analysis.misere import misere_sequence
from explorer.analysis.solving import explain, solve
from explorer.cli import main
from explorer.games.convention import MISERE
from explorer.solver.misere import bouton_misere_outcome, misere_outcomes
from tests.support.bruteforce import heap_game_moves, misere_values
from tests.support.cli import run
from tests.support.heap_rules import RULES, SPLITTING, positions, specs


@pytest.mark.parametrize("spec", specs())
def test_misere_outcomes_agree_with_brute_force(spec):
    """Every position of up to 3 heaps of up to 9 (7 for games whose heaps split), as the normal
    play brute-force test uses, and every position in their graphs."""
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    brute: dict = {}
    checked: set = set()
    for position in positions(max_heap=7 if spec in SPLITTING else 9):
        if position in checked:
            continue
        brute.update(misere_values(position, moves))
        outcome, far = misere_outcomes(build_graph(game, position))
        for node in outcome:
            assert (outcome[node], far[node]) == brute[node], (spec, node)
        checked.update(outcome)
        if len(position) <= 2:
            result = solve(game, position, method="graph", convention=MISERE)
            assert (result.outcome, result.remoteness) == brute[position]
            expected = sorted({game.format(q) for q in moves(position) if brute[q][0] == "P"})
            assert sorted(result.winning_moves) == expected
    assert len(checked) >= 50


@pytest.mark.parametrize("spec", specs())
def test_misere_sequence_is_zero_exactly_on_misere_p_positions(spec):
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    upto = 12 if spec in SPLITTING else 30
    result = misere_sequence(game, upto)
    for n in range(upto + 1):
        heap = (n,) if n else ()
        assert (result.values[n] == 0) == (misere_values(heap, moves)[heap][0] == "P"), (spec, n)
    assert result.values[0] == 1 and result.convention == "misere"


def test_misere_nim_values():
    assert misere_sequence(load_game("nim"), 6).values == [1, 0, 2, 3, 4, 5, 6]


def test_misere_nim_follows_bouton_on_1000_random_positions():
    rng = random.Random(14)
    nim = load_game("nim")
    moves = heap_game_moves(RULES["nim"])
    seen = {"P": 0, "N": 0}
    for _ in range(1000):
        heaps = tuple(sorted(rng.choice([1, 1, 2, 3, 5, 6, 7]) for _ in range(rng.randint(0, 4))))
        by_rule = solve(nim, heaps, method="decompose", convention=MISERE)
        assert by_rule.method == "bouton"
        brute = misere_values(heaps, moves)
        assert by_rule.outcome == bouton_misere_outcome(heaps) == brute[heaps][0], heaps
        expected = sorted({nim.format(q) for q in moves(heaps) if brute[q][0] == "P"})
        assert sorted(by_rule.winning_moves) == expected, heaps
        seen[by_rule.outcome] += 1
    assert min(seen.values()) > 100


def test_misere_sums_of_nim_games_use_bouton_without_the_graph():
    game = load_game("nim + nim")
    result = solve(game, game.parse("1000000,1 + 1000000"), convention=MISERE)
    assert (result.method, result.outcome, result.winning_moves) == (
        "bouton",
        "N",
        ["1000000 + 1000000"],
    )
    small = solve(game, game.parse("2,1 + 3"), convention=MISERE)
    assert small.method == "graph"
    assert (
        small.outcome
        == solve(game, game.parse("2,1 + 3"), method="decompose", convention=MISERE).outcome
    )


def test_a_misere_sum_of_many_heaps_is_answered_from_the_quotient_at_once():
    # issue 41: 20,000 heaps of octal 0.75 took 40 s and 2.6 GB, the game graph of the sum
    # tried first (each state a tuple of every heap); the quotient needs a look-up a heap.
    # 40,000 heaps: over a minute before, a second or two now (the bound when it fails)
    heaps = ",".join(str(1 + (7 * i) % 40) for i in range(40_000))
    code, out, err = run("solve", "octal:0.75", heaps, "--misere", "--json", "--max-seconds", "20")
    assert code == 0, err
    assert (json.loads(out)["method"], json.loads(out)["outcome"]) == ("quotient", "P")
    # past the sums a graph is tried for, the quotient agrees with the whole graph
    game = load_game("octal:0.75")
    for seed in range(3):
        pick = random.Random(seed)
        position = game.parse(",".join(str(pick.randint(1, 3)) for _ in range(17)))
        fast = solve(game, position, convention=MISERE)
        slow = solve(game, position, method="graph", convention=MISERE)
        assert fast.method == "quotient" and slow.method == "graph"
        assert (fast.outcome, sorted(fast.winning_moves)) == (
            slow.outcome,
            sorted(slow.winning_moves),
        )


def test_misere_with_cycles_gives_draws():
    """windup:5:1,3 misère: 0 is N (no move: the opponent moved last); moving to 0 loses, and
    1 -> 3 -> 2 -> 1 ... avoids it forever, so every other position is a draw."""
    game = load_game("windup:5:1,3")
    results = [solve(game, p, convention=MISERE) for p in range(5)]
    assert [r.outcome for r in results] == ["N", "D", "D", "D", "D"]
    assert results[1].drawing_moves == ["3"] and results[1].remoteness is None


def test_misere_decompose_is_refused_for_other_games():
    result = CliRunner().invoke(
        main, ["solve", "chomp", "3,3", "--misere", "--method", "decompose"]
    )
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: misère play has no decomposition for chomp: only sums of heaps are solved from "
        "their parts (Bouton's rule, misère quotients); use --method graph\n",
    )


def test_cli_misere_json_says_the_convention():
    runner = CliRunner()
    data = json.loads(runner.invoke(main, ["solve", "kayles", "4", "--misere", "--json"]).stdout)
    assert (data["convention"], data["outcome"], data["grundy"]) == ("misere", "P", None)
    normal = json.loads(runner.invoke(main, ["solve", "kayles", "4", "--json"]).stdout)
    assert (normal["convention"], normal["outcome"]) == ("normal", "N")
    data = json.loads(runner.invoke(main, ["explain", "nim", "1,1", "--misere", "--json"]).stdout)
    assert (data["convention"], data["outcome"], data["successors"]) == (
        "misere",
        "N",
        [["1", "P"]],
    )
    text = runner.invoke(main, ["explain", "nim", "1", "--misere"]).stdout
    assert "P: every move leads to an N-position; remoteness 1" in text
    data = json.loads(
        runner.invoke(main, ["sequence", "nim", "--upto", "3", "--misere", "--json"]).stdout
    )
    assert (data["values"], data["outcomes"]) == ([1, 0, 2, 3], ["N", "P", "N", "N"])


def test_explain_misere_of_a_terminal_position():
    nim = load_game("nim")
    result = explain(nim, (), convention=MISERE)
    assert (result.outcome, result.successors) == ("N", [])
    assert result.note.startswith("no move: the opponent made the last move and lost")
