"""Coin-turning games against a brute force written here from the rules, and their known values."""

from __future__ import annotations

from itertools import combinations

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from explorer.analysis.sequences import value_sequence
from explorer.analysis.solving import explain, grundy_value, solve
from explorer.cli import main
from explorer.errors import GraphTooLargeError, PositionError, SpecError
from explorer.games import load_game
from explorer.generation.graph import build_graph
from explorer.solver import grundy_values

LENGTH = 10
RULES = ["turtles", "mock", "ruler", "1", "4", "5"]


def allowed(rule: str, turned: tuple[int, ...]) -> bool:
    """Whether a move may turn exactly these coins (sorted, 1-based), per the rule's text."""
    if rule == "ruler":
        return turned == tuple(range(turned[0], turned[-1] + 1))
    most = {"turtles": 2, "mock": 3}.get(rule) or int(rule)
    return len(turned) <= most


def brute_values(rule: str, length: int = LENGTH) -> list[int]:
    """G of every row of `length` coins, as a bit mask (coin i is bit i-1), by the mex rule.

    A move turns a set of coins whose rightmost goes from heads to tails, so the mask drops
    below its old value: solving masks in increasing order sees every successor first.
    """
    moves = [
        sum(1 << (c - 1) for c in turned)
        for size in range(1, length + 1)
        for turned in combinations(range(1, length + 1), size)
        if allowed(rule, turned)
    ]
    values: list[int] = []
    for mask in range(1 << length):
        reached = {values[mask ^ move] for move in moves if mask & (1 << (move.bit_length() - 1))}
        value = 0
        while value in reached:
            value += 1
        values.append(value)
    return values


def row_text(mask: int) -> str:
    text = "".join("H" if mask >> i & 1 else "T" for i in range(LENGTH)).rstrip("T")
    return text or "T"


def mask_of(heads: tuple[int, ...]) -> int:
    return sum(1 << (c - 1) for c in heads)


@pytest.fixture(scope="module", params=RULES)
def rule_and_values(request: pytest.FixtureRequest) -> tuple[str, list[int]]:
    return request.param, brute_values(request.param)


def test_decomposed_value_equals_brute_force_on_every_row(rule_and_values):
    rule, values = rule_and_values
    game = load_game(f"turning:{rule}")
    for mask, value in enumerate(values):
        assert grundy_value(game, game.parse(row_text(mask))) == value, row_text(mask)


@pytest.mark.slow  # whole graphs of long rows
def test_full_graph_equals_brute_force_on_every_row(rule_and_values):
    rule, values = rule_and_values
    game = load_game(f"turning:{rule}")
    graph = build_graph(game, game.parse("H" * LENGTH))
    assert graph.number_of_nodes() == 1 << LENGTH
    for position, value in grundy_values(graph).items():
        assert value == values[mask_of(position)], game.format(position)


def test_solve_both_ways_gives_the_brute_force_value_and_winning_moves(rule_and_values):
    rule, values = rule_and_values
    game = load_game(f"turning:{rule}")
    for mask in range(1, 1 << 6):
        position = game.parse(row_text(mask))
        expected_moves = {
            game.format(s) for s in game.successors(position) if values[mask_of(s)] == 0
        }
        for method in ("graph", "decompose"):
            solution = solve(game, position, method=method)
            assert solution.grundy == values[mask], (method, row_text(mask))
            assert set(solution.winning_moves) == expected_moves, (method, row_text(mask))
        assert solve(game, position, method="graph").remoteness is not None


def test_successors_are_exactly_the_rule_moves(rule_and_values):
    rule, _ = rule_and_values
    game = load_game(f"turning:{rule}")
    for mask in range(1 << 8):
        position = game.parse(row_text(mask))
        expected = sorted(
            mask ^ sum(1 << (c - 1) for c in turned)
            for size in range(1, 9)
            for turned in combinations(range(1, 9), size)
            if allowed(rule, turned) and mask >> (turned[-1] - 1) & 1
        )
        assert sorted(mask_of(s) for s in game.successors(position)) == expected


def test_moves_to_value_from_one_head_equals_filtering_every_move(rule_and_values):
    rule, values = rule_and_values
    game = load_game(f"turning:{rule}")
    for coin in range(1, LENGTH + 1):
        moves = list(game.successors((coin,)))
        for target in range(max(values) + 2):
            shortcut = game.moves_to_value((coin,), target)
            assert shortcut is not None
            expected = [m for m in moves if values[mask_of(m)] == target]
            assert sorted(shortcut) == sorted(expected), (coin, target)


# ----------------------------------------------------------------------------- known values
def odious(count: int) -> list[int]:
    return [n for n in range(4 * count) if bin(n).count("1") % 2 == 1][:count]


def test_turning_turtles_is_nim():
    game = load_game("turning:turtles")
    assert game.head_values(300).tolist() == list(range(301))
    nim = load_game("nim")
    for mask in range(1 << LENGTH):
        heads = game.parse(row_text(mask))
        assert grundy_value(game, heads) == grundy_value(
            nim, nim.parse(",".join(map(str, heads)) or "0")
        )


def test_mock_turtles_values_are_the_odious_numbers():
    game = load_game("turning:mock")
    assert game.head_values(400).tolist() == [0, *odious(400)]
    assert [game.head_value(n) for n in range(1, 401)] == odious(400)
    assert odious(6) == [1, 2, 4, 7, 8, 11]


def test_ruler_values_are_the_largest_power_of_two_dividing_the_coin():
    game = load_game("turning:ruler")
    table = game.head_values(1024).tolist()
    for n in range(1, 1025):
        power = 1
        while n % (2 * power) == 0:
            power *= 2
        assert table[n] == power == game.head_value(n)


@pytest.mark.parametrize("most", [1, 4, 5])
def test_tabulated_values_equal_a_single_head_brute_force_far_right(most):
    values = [0]
    for coin in range(1, 31):
        reached = set()
        for size in range(min(most, coin)):
            for others in combinations(range(1, coin), size):
                x = 0
                for c in others:
                    x ^= values[c]
                reached.add(x)
        value = 0
        while value in reached:
            value += 1
        values.append(value)
    assert load_game(f"turning:{most}").head_values(30).tolist() == values


def test_sequence_of_mock_turtles():
    result = value_sequence(load_game("turning:mock"), 30)
    assert result.values.tolist() == [0, *odious(30)]
    assert result.period is None


def test_a_row_is_the_xor_of_its_heads_and_two_heads_on_one_coin_cancel():
    game = load_game("turning:mock")
    position = game.parse("THHTH")
    parts = game.decompose(position)
    assert parts is not None and parts.exact
    assert [p.position for p in parts.parts] == [(2,), (3,), (5,)]
    assert grundy_value(game, position) == 2 ^ 4 ^ 8
    assert parts.rebuild([(1, 2), (2,), (5,)]) == (1, 5)
    assert game.decompose(game.parse("TTH")) is None
    assert explain(game, position).parts == [
        ("turning:mock", "TH", 2),
        ("turning:mock", "TTH", 4),
        ("turning:mock", "TTTTH", 8),
    ]


def test_far_right_heads_are_solved_from_closed_forms():
    game = load_game("turning:mock")
    position = (3, 1_000_000)
    assert grundy_value(game, position) == 4 ^ 1_999_999
    solution = solve(game, position)
    assert solution.method == "decomposition" and solution.grundy == 4 ^ 1_999_999
    for move in solution.winning_moves[:5]:
        assert grundy_value(game, game.parse(move)) == 0


def test_sum_with_another_game():
    game = load_game("turning:mock + nim")
    assert solve(game, game.parse("THHTH + 3")).grundy == 14 ^ 3


# ----------------------------------------------------------------------------- specs, parsing
@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("turning:turtles", "turning:turtles"),
        ("turning:2", "turning:turtles"),
        ("turning:3", "turning:mock"),
        ("turning: MOCK ", "turning:mock"),
        ("turning:ruler", "turning:ruler"),
        ("turning:1", "turning:1"),
        ("turning:07", "turning:7"),
    ],
)
def test_canonical_spec(spec, canonical):
    assert load_game(spec).spec == canonical
    assert load_game(canonical).spec == canonical


@pytest.mark.parametrize(
    ("text", "heads", "canonical"),
    [
        ("THHTH", (2, 3, 5), "THHTH"),
        ("thhthTT", (2, 3, 5), "THHTH"),
        (" H ", (1,), "H"),
        ("T", (), "T"),
        ("TTTT", (), "T"),
        ("TTTH", (4,), "TTTH"),
    ],
)
def test_parse_and_format(text, heads, canonical):
    game = load_game("turning:mock")
    assert game.parse(text) == heads
    assert game.format(heads) == canonical
    assert game.parse(canonical) == heads


@given(st.sets(st.integers(min_value=1, max_value=60)))
def test_round_trip(heads):
    game = load_game("turning:turtles")
    position = tuple(sorted(heads))
    assert game.parse(game.format(position)) == position
    assert game.format(game.parse(game.format(position))) == game.format(position)


def test_sequence_positions():
    game = load_game("turning:mock")
    assert game.sequence_position(0) == ()
    assert game.sequence_position(4) == (4,)
    assert game.format(game.sequence_position(4)) == "TTTH"


# ----------------------------------------------------------------------------- errors
RULE_HINT = "(expected turtles, mock, ruler or a number K >= 1 of coins, e.g. turning:4)"
SPEC_ERRORS = [
    (
        "turning",
        "turning needs a rule, e.g. turning:mock (turtles, mock, ruler or a number K of coins)",
    ),
    (
        "turning:bogus",
        f"bad rule 'bogus' for turning {RULE_HINT}",
    ),
    (
        "turning:0",
        f"bad rule '0' for turning {RULE_HINT}",
    ),
    (
        "turning:-2",
        f"bad rule '-2' for turning {RULE_HINT}",
    ),
]
SYNTAX = "a row of H (heads) and T (tails), coin 1 leftmost, e.g. THHTH"
POSITION_ERRORS = [
    ("HXH", f"bad position 'HXH' for turning:mock: 'X' is not H or T (expected {SYNTAX})"),
    ("1,0,1", f"bad position '1,0,1' for turning:mock: '1' is not H or T (expected {SYNTAX})"),
    ("  ", f"empty position for turning:mock (expected {SYNTAX})"),
]


@pytest.mark.parametrize(("spec", "message"), SPEC_ERRORS)
def test_bad_spec(spec, message):
    with pytest.raises(SpecError) as error:
        load_game(spec)
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", spec, "H"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


@pytest.mark.parametrize(("text", "message"), POSITION_ERRORS)
def test_bad_position(text, message):
    with pytest.raises(PositionError) as error:
        load_game("turning:mock").parse(text)
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", "turning:mock", text])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


def test_value_table_guard():
    message = (
        "coin 22 is too far right for turning:40: its value table would pass 67,108,864 entries"
    )
    with pytest.raises(GraphTooLargeError) as error:
        load_game("turning:40").head_value(40)
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", "turning:40", "T" * 39 + "H"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


# ----------------------------------------------------------------------------- CLI
def test_cli_sequence_mock_turtles():
    result = CliRunner().invoke(main, ["sequence", "turning:mock", "--upto", "30", "--json"])
    assert result.exit_code == 0, result.output
    assert '"values": [0, 1, 2, 4, 7, 8, 11, 13, 14, 16, 19' in result.stdout


def test_cli_solve_and_explain():
    runner = CliRunner()
    result = runner.invoke(main, ["solve", "turning:mock", "thhth", "--json"])
    assert result.exit_code == 0, result.output
    assert '"position": "THHTH", "grundy": 14, "outcome": "N"' in result.stdout
    result = runner.invoke(main, ["explain", "turning:mock", "TTTH"])
    assert result.exit_code == 0, result.output
    assert "G = mex{0, 1, 2, 3, 4, 5, 6} = 7" in result.stdout
