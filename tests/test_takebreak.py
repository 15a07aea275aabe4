"""Take-and-break codes (``tb:``) against a brute force written from the definition, against
``octal:`` and ``grundy``, and their periods against published tables."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from explorer import load_game, solve, value_sequence
from explorer.cli import main
from explorer.errors import GraphTooLargeError, SpecError
from explorer.games import takebreak
from explorer.solver.periods import proof_length
from explorer.solver.sparse import guy_smith

# ---------------------------------------------------------------------------------------------
# The definition again, independently of explorer/games/takebreak.py. A digit is a dict
# {count: condition} of the heap counts it allows, and maybe a run: every count from m on.
# Removing j tokens from a heap of n under digit d may leave the n - j tokens as c non-empty
# heaps when d allows c, the heaps meeting the condition: "!" pairwise unequal, "?" not all
# equal, "=" all equal, "" anything; conditions say nothing of one heap or none.

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def condition_of(digit, count):
    counts, run = digit
    if count in counts:
        return counts[count]
    if run is not None and count >= run[0]:
        return run[1]
    return None


def partitions(total, count, smallest=1):
    """Non-decreasing tuples of `count` parts >= smallest summing to `total`."""
    if count == 0:
        if total == 0:
            yield ()
        return
    for first in range(smallest, total // count + 1):
        for rest in partitions(total - first, count - 1, first):
            yield (first, *rest)


def meets(parts, condition):
    if len(parts) <= 1 or condition == "":
        return True
    distinct = len(set(parts))
    return {"!": distinct == len(parts), "?": distinct > 1, "=": distinct == 1}[condition]


def brute_moves(code, heap):
    d0, digits, tail = code
    zero = ({}, None)
    for removed in range(heap + 1):
        if removed == 0:
            digit = d0
        elif removed <= len(digits):
            digit = digits[removed - 1]
        elif tail:
            digit = tail[(removed - len(digits) - 1) % len(tail)]
        else:
            digit = zero
        left = heap - removed
        for count in range(left + 1):
            condition = condition_of(digit, count)
            if condition is None:
                continue
            for parts in partitions(left, count):
                if meets(parts, condition):
                    yield parts


def brute_values(code, upto):
    values = []
    for n in range(upto + 1):
        reached = set()
        for parts in brute_moves(code, n):
            value = 0
            for h in parts:
                value ^= values[h]
            reached.add(value)
        g = 0
        while g in reached:
            g += 1
        values.append(g)
    return values


# ---------------------------------------------------------------------------------------------
# Random codes of the whole grammar, drawn as structure and written as text in every syntax.

CONDITIONS = st.sampled_from(["", "!", "?", "="])


@st.composite
def digit_structures(draw, *, lowest=0):
    counts = draw(st.dictionaries(st.integers(lowest, 4), CONDITIONS, max_size=3))
    run = None
    if draw(st.integers(0, 5)) == 0:
        start = draw(st.integers(max(lowest, 1), 4))
        counts = {c: x for c, x in counts.items() if c < start}
        run = (start, draw(CONDITIONS))
    return counts, run


@st.composite
def digit_texts(draw, digit):
    """The digit written one of the ways the grammar allows."""
    counts, run = digit
    if not counts and run is None:
        return "0"
    from_two = {x for c, x in counts.items() if c >= 2} | ({run[1]} if run else set())
    uniform = len(from_two) <= 1
    common = next(iter(from_two)) if from_two else draw(CONDITIONS)
    mask = sum(1 << c for c in counts)
    ways = ["list"]
    if run is None and uniform:
        ways += ["amp"] + (["char"] if mask < len(DIGITS) else [])
    if run is not None and uniform and not counts and run[0] == 0:
        ways.append("star")
    way = draw(st.sampled_from(ways))
    if way == "char":
        char = DIGITS[mask]
        return (char.lower() if draw(st.booleans()) else char) + common
    if way == "amp":
        return f"&{mask};{common}"
    if way == "star":
        return "*" + common
    items = sorted(counts.items())
    plus = "+" if run else ""
    if uniform and draw(st.booleans()):
        return (
            "{"
            + ",".join(str(c) for c, _ in [*items, *([run] if run else [])])
            + plus
            + "}"
            + common
        )
    # per item: counts 0 and 1 take any condition (it says nothing); a run's is the run's
    texts = [f"{c}{x if c >= 2 else draw(CONDITIONS)}" for c, x in items]
    texts += [f"{run[0]}{run[1]}"] if run else []
    return "{" + ",".join(texts) + plus + "}"


@st.composite
def codes(draw):
    d0 = draw(digit_structures(lowest=2))
    digits = draw(st.lists(digit_structures(), max_size=3))
    tail = draw(st.lists(digit_structures(), max_size=2))
    text = draw(st.sampled_from(["", "0"])) + draw(digit_texts(d0)) + "."
    text += "".join(draw(digit_texts(d)) for d in digits)
    if tail:
        text += "[" + "".join(draw(digit_texts(d)) for d in tail) + "]"
    return (d0, digits, tail), text


@given(codes())
def test_values_and_moves_equal_the_definition(drawn):
    code, text = drawn
    game = load_game("tb:" + text)
    upto = 13
    expected = brute_values(code, upto)
    assert game.heap_values(upto).tolist() == expected, text
    for heap in (upto - 1, upto):
        moves = sorted(game.heap_moves(heap))
        assert moves == sorted(brute_moves(code, heap)), (text, heap)
        assert len(set(moves)) == len(moves)
    again = load_game(game.spec)
    assert again.spec == game.spec
    assert again.heap_values(upto).tolist() == expected


@pytest.mark.slow  # sums solved by brute force
@given(codes())
def test_sequences_and_sums_follow_the_definition(drawn):
    code, text = drawn
    expected = brute_values(code, 13)
    result = value_sequence(load_game("tb:" + text), 13)
    assert result.values.tolist() == expected
    if result.proven:  # a proven period holds past the values it was proven from
        far = brute_values(code, result.computed + 2 * result.period)
        pre, period = result.preperiod, result.period
        assert all(far[n + period] == far[n] for n in range(pre, len(far) - period))
    game = load_game("tb:" + text)
    position = game.parse("5,7,13")
    assert solve(game, position).grundy == expected[5] ^ expected[7] ^ expected[13]


# ---------------------------------------------------------------------------------------------
# octal: and grundy


OCTAL_CODES = [
    f"{d0}." + "".join(map(str, digits))
    for d0 in "04"
    for length in (1, 2, 3)
    for digits in itertools.product(range(8), repeat=length)
    if digits[-1]
] + ["4.0"]


@pytest.mark.slow  # every three-digit code
def test_every_octal_code_of_up_to_three_digits_equals_octal():
    assert len(OCTAL_CODES) == 2 * (7 + 7 * 8 + 7 * 64) + 1
    for code in OCTAL_CODES:
        tb, octal = load_game(f"tb:{code}"), load_game(f"octal:{code}")
        assert tb.spec == f"tb:{code}"
        assert tb.heap_values(150).tolist() == octal.heap_values(150).tolist(), code
        assert tb.split_rules == octal.split_rules  # the same compiled kernel
        assert guy_smith(tb) == guy_smith(octal)


@pytest.mark.parametrize("code", OCTAL_CODES[::37])
def test_octal_codes_through_the_general_table_equal_octal(code):
    tb = load_game(f"tb:{code}")
    tb.split_rules = None  # the general table (for codes the compiled kernel cannot take)
    assert tb.heap_values(120).tolist() == load_game(f"octal:{code}").heap_values(120).tolist()


@pytest.mark.parametrize("code", ["4!.0", "4?.0", "{2!}.0", "&4;!.0"])
def test_grundys_game_is_four_unequal(code):
    game = load_game(f"tb:{code}")
    assert game.spec == "tb:4!.0"
    assert game.split_rules == load_game("grundy").split_rules
    upto = 40_000  # past the compiled kernel's start
    tb = value_sequence(game, upto)
    grundy = value_sequence(load_game("grundy"), upto)
    assert np.array_equal(tb.values, grundy.values)
    assert not tb.proven  # a condition on the heaps: no theorem applies


def test_the_issues_example_prints_its_values():
    out = CliRunner().invoke(main, ["sequence", "tb:4!.3303", "--upto", "19", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["values"] == [
        0, 1, 2, 0, 3, 4, 0, 2, 1, 3, 4, 0, 5, 1, 2, 4, 3, 5, 0, 2,
    ]  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Periods of the codes with a digit before the point, as published. Source: T. Czajka,
# github.com/tczajka/octal-games, TrivialGames.md (prefix, period and the values, base 36).
# Where a heap of 1 has no move (G(1) = 0) that table starts its values at heap 1, so its
# prefix is one less than the preperiod counted from heap 0 (`first` is that heap).

CZAJKA = [
    ("4.0", 1, 0, 2, "(01)"),
    ("4.3", 0, 2, 2, "01(20)"),
    ("4.12", 0, 6, 7, "011220(4211221)"),
    ("4.72", 0, 1, 3, "0(124)"),
    ("4.005", 1, 30, 79, "012123145132121527526126268458(3615156158158656541821856567"
     "281216515813212162682812128158132121826826121261461)"),
    ("4.024", 1, 1, 60, "0(12314314214264164134132142842812314314614624124134132182B82B)"),
    ("4.102", 0, 8, 10, "01112220(4421112221)"),
    ("4.122", 0, 6, 7, "011220(4311224)"),
    ("4.304", 0, 25, 21, "0120212461528156261625186(8182615261582816251B2)"),
    ("4.323", 0, 4, 4, "0124(3021)"),
    ("4.444", 1, 142, 24, "0123456732897654328945CD982345FE328976543289DCFE982345GHAB89EF543"
     "2GHDCFE982345673289EF5432GH45FE982345GH3289EF54328945FE982345GH3289EF5432GHDC(FE982345"
     "GH3289EF5432GH45)"),
    ("4.722", 0, 4, 4, "0124(6125)"),
    ("4.726", 0, 5, 16, "01246(12741824187B1248)"),
    ("4.766", 0, 19, 20, "01246128A1D2G14DE18(4D12481DG8142D148D1G)"),
]  # fmt: skip


@pytest.mark.parametrize("family", ["octal", "tb"])
@pytest.mark.parametrize(("code", "first", "prefix", "period", "values"), CZAJKA)
def test_codes_before_the_point_are_proven_at_the_theorems_bound(
    family, code, first, prefix, period, values
):
    game = load_game(f"{family}:{code}")
    result = value_sequence(game, 10**6, until_periodic=True)
    assert result.proven
    assert (result.preperiod, result.period) == (prefix + first, period)
    theorem = guy_smith(game)
    assert result.computed == proof_length(result.preperiod, result.period, theorem)
    k = len(code.rstrip("0")) - 2  # the last non-zero digit
    assert result.computed == 2 * max(result.preperiod, 1) + 2 * period + k
    digits = [int(c, 36) for c in values.replace("(", "").replace(")", "")]
    assert result.values[first : first + len(digits)].tolist() == digits
    assert (result.values[1] == 0) == (first == 1)  # the table's convention, as read above


def test_a_far_heap_of_a_code_before_the_point_is_answered_from_its_period():
    for family in ("octal", "tb"):
        game = load_game(f"{family}:4.024")
        result = solve(game, (10**12 + 7,))
        values = value_sequence(load_game("octal:4.024"), 200).values
        assert result.grundy == values[2 + (10**12 + 7 - 2) % 60]
        assert result.method == "period"


# ---------------------------------------------------------------------------------------------
# Periods proven for more heaps, observed otherwise


def test_three_heaps_are_proven_by_the_generalised_bound():
    game = load_game("tb:0.{3}{0}")  # leave three heaps, or take a whole heap of two
    assert game.spec == "tb:0.81" and game.periodicity == (2, 1, 3)
    result = value_sequence(game, 10**5, until_periodic=True)
    assert result.proven
    pre, period = result.preperiod, result.period
    assert (pre, period) == (1, 2)
    assert result.computed == 3 * (max(pre, 1) + period) + 2
    far = brute_values((({}, None), [({3: ""}, None), ({0: ""}, None)], []), 80)
    assert all(far[n + period] == far[n] for n in range(pre, len(far) - period))
    assert value_sequence(game, 80).values.tolist() == far


def test_breaks_into_many_heaps_with_no_condition_are_grown_total_by_total():
    values = load_game("tb:0.{2+}").heap_values(150).tolist()
    code = (({}, None), [({}, (2, ""))], [])
    assert values[:26] == brute_values(code, 25)
    values = load_game("tb:0.{4}").heap_values(150).tolist()
    assert values[:31] == brute_values((({}, None), [({4: ""}, None)], []), 30)


@pytest.mark.parametrize("code", ["0.[3]", "0.030[3]", "4!.3303", "0.{2+}", "0.C=", "4?.0"])
def test_periods_are_only_observed_where_no_theorem_applies(code):
    game = load_game(f"tb:{code}")
    assert guy_smith(game) is None
    assert not value_sequence(game, 300).proven


def test_tails_are_nim_and_all_but_subtraction():
    assert load_game("tb:0.[3]").heap_values(50).tolist() == list(range(51))
    # 0.030[3]: remove any number but 1 or 3
    values = load_game("tb:0.030[3]").heap_values(60).tolist()
    for n in range(61):
        reached = {values[n - k] for k in range(1, n + 1) if k not in (1, 3)}
        assert values[n] == min(set(range(n + 2)) - reached)


# ---------------------------------------------------------------------------------------------
# Canonical specs and errors


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("4!.3303", "tb:4!.3303"),
        ("0.770", "tb:0.77"),
        ("0.[33]", "tb:0.[3]"),
        ("0.33[3]", "tb:0.[3]"),
        ("0.03[03]", "tb:0.[03]"),
        ("0.7[0]", "tb:0.7"),
        ("0.", "tb:0.0"),
        ("04.3", "tb:4.3"),
        ("0.{0,1,2}", "tb:0.7"),
        ("0.{2,3+}", "tb:0.{2+}"),
        ("0.{2+}?", "tb:0.{2+}?"),
        ("0.*", "tb:0.{0+}"),
        ("0.&64;", "tb:0.{6}"),
        ("0.e?", "tb:0.E?"),
        ("0.3!", "tb:0.3"),
        ("0.6?", "tb:0.6!"),
        ("0.{0!,1=,2=,3!}", "tb:0.{0,1,2=,3!}"),
    ],
)
def test_specs_are_canonical(typed, canonical):
    game = load_game(f"tb:{typed}")
    assert game.spec == canonical
    assert load_game(canonical).spec == canonical


def test_a_code_with_a_run_is_one_game_in_a_sum():
    game = load_game("tb:0.{2+} + nim")
    assert game.spec == "tb:0.{2+} + nim"
    assert [part.spec for part in game.components] == ["tb:0.{2+}", "nim"]


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("", "tb needs a take-and-break code, e.g. tb:4!.3303"),
        ("077", "bad take-and-break code '077' (expected d0.d1d2..., e.g. 4!.3303)"),
        ("12.3", "take-and-break code '12.3' adds tokens (more than one digit before the "
         "point): not supported"),
        ("2.0", "take-and-break code '2.0': a d0 leaving one heap would leave the heap as it "
         "is, and play could go on for ever (d0 may only split: 4, 8, C, ...)"),
        ("0.3#", "bad take-and-break code '0.3#': unexpected '#' (digits are 0-9 and A-Z, or "
         "{2,3} and {2+} heap counts, each maybe followed by !, ? or =)"),
        ("0.{2,3", "bad take-and-break code '0.{2,3': a '{' has no '}'"),
        ("0.{2!}!", "bad take-and-break code '0.{2!}!': a condition both inside and after "
         "'{2!}' (put it in one place)"),
        ("0.{x}", "bad heap counts {x} in '0.{x}' (expected counts like {2,3} or {2+})"),
        ("0.{64}", "'0.{64}' leaves 64 heaps (at most 63 in {...})"),
        ("0.3[3", "bad take-and-break code '0.3[3': the tail is [digits] at the end"),
        ("0.3]", "bad take-and-break code '0.3]': a ']' without '['"),
    ],
)  # fmt: skip
def test_bad_codes_say_what_is_wrong(code, message):
    with pytest.raises(SpecError) as error:
        load_game(f"tb:{code}")
    assert str(error.value) == message
    out = CliRunner().invoke(main, ["sequence", f"tb:{code}", "--upto", "3"])
    assert out.exit_code == 1
    assert out.stderr.strip() == f"Error: {message}"


def test_breaks_into_too_many_heaps_stop_with_an_error(monkeypatch):
    monkeypatch.setattr(takebreak, "MAX_HEADS", 100)
    game = load_game("tb:0.{2+}!")
    with pytest.raises(GraphTooLargeError) as error:
        game.heap_values(60)
    assert str(error.value) == (
        "tb:0.{2+}!: a heap breaks into 6 heaps in too many ways at 33 tokens "
        "(over 100 to list): ask for fewer values"
    )


def test_many_heap_sets_are_bounded_by_max_memory():
    game = load_game("tb:0.{3}")
    game.max_memory_mb = 1
    with pytest.raises(GraphTooLargeError, match=r"raise it with --max-memory"):
        game.heap_values(3000)


@pytest.mark.parametrize("family", ["octal", "tb"])
def test_a_far_heap_splits_without_removing_to_win(family):
    # 4.0: G(n) = 1 for even n >= 2, else 0: a far even heap wins by splitting into two odd
    # heaps or two even ones
    game = load_game(f"{family}:4.0")
    heap = 10**12
    assert solve(game, (heap,)).grundy == 1
    moves = game.moves_to_value((heap,), 0)
    assert moves
    for move in moves:
        assert len(move) == 2 and sum(move) == heap and move[0] % 2 == move[1] % 2


@pytest.mark.parametrize("code", ["0.0=", "0.0!", "0.1=", "0.3?"])
def test_a_condition_on_no_break_is_no_condition(code):
    # a condition speaks of two heaps or more: on a digit that leaves at most one heap it says
    # nothing, so the code is the plain one and its period is proven as for it (issue 35's
    # "0.0= proven" is the proof of tb:0.0, the game the code names)
    game = load_game(f"tb:{code}")
    plain = code.rstrip("=!?")
    assert game.spec == f"tb:{plain}" and guy_smith(game) is not None
    result = value_sequence(game, 300, until_periodic=True)
    digit = int(plain[-1])
    counts = ({c: "" for c in range(3) if digit >> c & 1}, None)
    expected = brute_values((({}, None), [counts], []), result.upto)
    assert result.proven and result.values.tolist() == expected
    conditioned = load_game(f"tb:{plain[:-1]}{int(plain[-1]) | 4}=")  # now a break is asked
    assert guy_smith(conditioned) is None
    assert not value_sequence(conditioned, 300, until_periodic=True).proven
