"""Heap games against an independent brute force and against the results in GAMES.md."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import grundy_value, load_game, solve, value_sequence
from explorer.errors import GraphTooLargeError
from explorer.games.treblecross import SafeRuns
from tests.support.bruteforce import heap_game_moves, mex_values, remoteness_values
from tests.support.heap_rules import RULES, SPLITTING, octal, positions, specs
from tests.support.strategies import fraction_of_examples


@pytest.mark.parametrize("spec", specs())
def test_heap_games_agree_with_brute_force(spec):
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    brute: dict = {}
    for position in positions(max_heap=7 if spec in SPLITTING else 9):
        if position not in brute:
            brute.update(mex_values(position, moves))
        assert grundy_value(game, position) == brute[position], (spec, position)


@pytest.mark.parametrize("spec", specs())
def test_graph_and_decomposition_agree_on_values_and_winning_moves(spec):
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    brute: dict = {}
    for position in positions(max_heaps=3, max_heap=6):
        if position not in brute:
            brute.update(mex_values(position, moves))
        expected_moves = sorted({game.format(q) for q in moves(position) if brute[q] == 0})
        far = remoteness_values(position, moves)[position]
        assert solve(game, position, method="graph").remoteness == far
        for method in ("graph", "decompose"):
            result = solve(game, position, method=method)
            assert result.grundy == brute[position]
            assert result.outcome == ("P" if brute[position] == 0 else "N")
            assert sorted(result.winning_moves) == expected_moves, (spec, position, method)


@pytest.mark.parametrize("spec", specs())
def test_single_heap_table_matches_brute_force_far_out(spec):
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    upto = 16 if spec in SPLITTING else 60
    brute: dict = {(): 0}
    for n in range(1, upto + 1):
        brute.update(mex_values((n,), moves))
    expected = [brute[(n,) if n else ()] for n in range(upto + 1)]
    assert value_sequence(game, upto).values.tolist() == expected


def test_nim_is_xor_and_answers_huge_positions_at_once():
    game = load_game("nim")
    heaps = [(7919 * i) % 1_000_003 for i in range(1, 1001)]
    position = game.parse(",".join(map(str, heaps)))
    result = solve(game, position)
    xor = 0
    for h in heaps:
        xor ^= h
    assert result.grundy == xor
    assert result.method == "decomposition"
    assert result.remoteness is None
    # every winning move leaves XOR 0, and there is one per heap h with h ^ xor < h
    assert len(result.winning_moves) == len({h for h in heaps if h ^ xor < h})
    for move in result.winning_moves[:20]:
        after = 0
        for h in game.parse(move):
            after ^= h
        assert after == 0


@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_bash_p_positions(m):
    game = load_game(f"bash:{m}")
    for n in range(60):
        assert (grundy_value(game, game.parse(str(n))) == 0) == (n % (m + 1) == 0)


def test_subtraction_123_is_n_mod_4():
    values = value_sequence(load_game("subtraction:1,2,3"), 100).values
    assert values.tolist() == [n % 4 for n in range(101)]


def test_take_half_values():
    values = value_sequence(load_game("half"), 300).values.tolist()
    assert values[:9] == [0, 1, 2, 2, 3, 3, 3, 3, 4]
    assert values == [min(k for k in range(20) if 2**k > x) for x in range(301)]


def test_lasker_formula():
    values = value_sequence(load_game("lasker"), 400).values.tolist()
    for n in range(1, 401):
        expected = {1: n, 2: n, 3: n + 1, 0: n - 1}[n % 4]
        assert values[n] == expected


def test_kayles_period_12_from_71_proven():
    seq = value_sequence(load_game("kayles"), 2000)
    assert (seq.period, seq.preperiod, seq.proven) == (12, 71, True)
    assert seq.values[:12].tolist() == [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]


def test_dawson_period_34():
    seq = value_sequence(load_game("dawson"), 1000)
    assert seq.period == 34 and seq.proven
    assert seq.preperiod <= 60


def test_grundy_game_shows_no_period():
    seq = value_sequence(load_game("grundy"), 3000)
    assert seq.period is None and not seq.proven
    assert seq.values[:12].tolist() == [0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2]


def test_nim_and_lasker_are_not_proven_periodic():
    assert value_sequence(load_game("nim"), 200).period is None
    assert value_sequence(load_game("lasker"), 200).period is None


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("5,3,4", "3,4,5"), ("0", "0"), ("0,0,2", "2"), (" 7 , 1 ", "1,7")],
)
def test_heap_positions_round_trip(text, canonical):
    for spec in RULES:
        game = load_game(spec)
        position = game.parse(text)
        assert game.format(position) == canonical
        assert game.parse(game.format(position)) == position


# ------------------------------------------------------------------ moves to a given value
def safe_runs(length):
    """Marking cell i of a run forbids two cells each side (treblecross's reduction)."""
    return [(max(0, i - 3), max(0, length - i - 2)) for i in range(1, length + 1)]


#: Every heap family, plus codes for the other octal digits (1, 5, 6) and 4. codes.
MOVE_RULES = {
    **RULES,
    "octal:0.51": octal("0.51"),
    "octal:0.16": octal("0.16"),
    "octal:4.0": octal("4.0"),
    "octal:4.3": octal("4.3"),
    "octal:0.0043": octal("0.0043"),
    # not registered (a part of treblecross): the heap game without a vectorised shortcut
    "treblecross-runs": safe_runs,
}


def move_game(spec):
    return SafeRuns() if spec == "treblecross-runs" else load_game(spec)


def heap_values_by_definition(rule, upto):
    """G(0), ..., G(upto) of single heaps: the mex over moves of the XOR of the heaps left."""
    values = [0] * (upto + 1)
    for n in range(1, upto + 1):
        reached = set()
        for result in rule(n):
            value = 0
            for h in result:
                value ^= values[h]
            reached.add(value)
        values[n] = next(g for g in itertools.count() if g not in reached)
    return values


def worth(values, position):
    value = 0
    for h in position:
        value ^= values[h]
    return value


@pytest.mark.parametrize("spec", sorted(MOVE_RULES))
def test_heap_values_by_definition_agree_with_the_whole_graph(spec):
    moves = heap_game_moves(MOVE_RULES[spec])
    values = heap_values_by_definition(MOVE_RULES[spec], 10)
    brute = mex_values((4, 10), moves)
    for position, value in brute.items():
        assert worth(values, position) == value, position


@pytest.mark.parametrize("spec", sorted(MOVE_RULES))
def test_moves_to_value_from_one_heap_equals_filtering_every_successor(spec):
    game = move_game(spec)
    values = heap_values_by_definition(MOVE_RULES[spec], 60)
    for heap in range(1, 61):
        successors = list(dict.fromkeys(game.successors((heap,))))
        by_rules = {tuple(sorted(x for x in r if x)) for r in MOVE_RULES[spec](heap)}
        assert set(successors) == by_rules
        for target in range(max(values) + 2):
            expected = [s for s in successors if worth(values, s) == target]
            assert game.moves_to_value((heap,), target) == expected, (heap, target)


@pytest.mark.parametrize("spec", sorted(MOVE_RULES))
def test_moves_to_value_from_several_heaps_equals_filtering_every_successor(spec):
    game = move_game(spec)
    values = heap_values_by_definition(MOVE_RULES[spec], 9)
    for position in positions(max_heaps=3, max_heap=9):
        successors = list(dict.fromkeys(game.successors(position)))
        for target in range(max(values) + 2):
            expected = [s for s in successors if worth(values, s) == target]
            assert game.moves_to_value(position, target) == expected, (position, target)


def test_moves_to_value_keeps_the_table_memory_guard():
    game = load_game("grundy")
    game.max_memory_mb = 1
    expected = (
        "the values of grundy up to heap 300,001 need about 2 MiB, over the limit of 1 MiB "
        "(raise it with --memory)"
    )
    with pytest.raises(GraphTooLargeError) as error:
        game.moves_to_value((300_001,), 0)
    assert str(error.value) == expected


def test_a_heap_past_the_proven_period_is_answered_from_it():
    kayles = load_game("kayles")
    result = solve(kayles, (10**12,))
    assert result.method == "period"
    assert "period 12 from heap 71" in result.note
    # kayles' period: G(n) for n >= 72 by n mod 12
    assert result.grundy == [4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2, 7][10**12 % 12]
    for move in result.winning_moves:
        heaps = kayles.parse(move)
        assert sum(heaps) in (10**12 - 1, 10**12 - 2)
        assert grundy_value(load_game("kayles"), heaps) == 0


def sums(max_heap, max_heaps, min_heaps=0):
    heaps = st.lists(st.integers(1, max_heap), min_size=min_heaps, max_size=max_heaps)
    return heaps.map(lambda h: tuple(sorted(h)))


@given(st.sampled_from(sorted(RULES)), sums(6, 4))
def test_winning_moves_of_a_sum_are_the_moves_to_p_positions(spec, position):
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    brute = mex_values(position, moves)
    expected = sorted({game.format(q) for q in moves(position) if brute[q] == 0})
    for method in ("auto", "decompose"):
        found = solve(game, position, method=method).winning_moves
        assert len(found) == len(set(found))
        assert sorted(found) == expected, method


@settings(max_examples=fraction_of_examples(0.5))  # each example solves a sum of 17+ heaps
@given(st.sampled_from(sorted(RULES)), sums(40, 40, min_heaps=17))
def test_winning_moves_of_a_long_sum_are_the_moves_to_p_positions(spec, position):
    # more parts than solve builds whole graphs for: the moves come through the parts
    game = load_game(spec)
    values = heap_values_by_definition(RULES[spec], 40)
    moves = heap_game_moves(RULES[spec])
    expected = sorted({game.format(q) for q in moves(position) if worth(values, q) == 0})
    result = solve(game, position)
    assert result.method == "decomposition"
    assert len(result.winning_moves) == len(set(result.winning_moves))
    assert sorted(result.winning_moves) == expected


def test_a_heap_with_more_moves_than_are_examined_says_its_list_is_cut(monkeypatch):
    from explorer.games import heaps

    game = load_game("tb:0.{2+}")  # take one, break the rest into two heaps or more
    monkeypatch.setattr(heaps, "LISTED_MOVES", 40)
    first = [tuple(sorted(h for h in m if h)) for m in itertools.islice(game.heap_moves(30), 40)]
    expected = [m for m in dict.fromkeys(first) if game.known_value(m) == 0]
    found = game.moves_to_value((30,), 0)
    assert found == expected != []
    assert found.cut == "moves listed among the first 40 of heap 30"
    assert game.moves_to_value((3, 30), game.known_value((3, 30))) == []  # mex: none
    whole = game.moves_to_value((6,), 0)
    assert whole.cut == "" and whole == [
        s for s in dict.fromkeys(game.successors((6,))) if game.known_value(s) == 0
    ]
