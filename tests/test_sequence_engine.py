"""The sequence engine: the sparse-space kernel against the naive method, periods proven at the
Guy-Smith bound against a brute-force search, and far heaps answered from the period."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import load_game, solve, value_sequence
from explorer.cli import main
from explorer.solver import periods
from explorer.solver.periods import GuySmith, proof_length, proven_period
from explorer.solver.sparse import extend_values, fletcher32, guy_smith, heap_sequence
from tests.support.cli import on_a_terminal
from tests.support.strategies import fraction_of_examples

#: Every octal code 0.d1, 0.d1d2, 0.d1d2d3 (last digit non-zero): finitely many non-zero digits.
CODES = [
    "octal:0." + "".join(map(str, digits))
    for length in (1, 2, 3)
    for digits in itertools.product(range(8), repeat=length)
    if digits[-1]
]
SPLITTING_CODES = [c for c in CODES if any(int(d) & 4 for d in c.split(".")[1])]


def kernel_values(spec: str, upto: int, *, naive: bool = False) -> np.ndarray:
    game = load_game(spec)
    values = np.zeros(upto + 1, dtype=np.uint16)
    extend_values(game.split_rules, values, 0, upto, naive=naive)
    return values


def test_codes_cover_every_three_digit_octal_game():
    assert len(CODES) == 7 + 7 * 8 + 7 * 64
    assert len(SPLITTING_CODES) > 400


@settings(max_examples=fraction_of_examples(0.8))
@given(st.sampled_from(CODES))
def test_kernel_equals_the_games_own_table(spec):
    # the numpy table of explorer.games.heaps is written independently of the kernel
    upto = 1500
    assert kernel_values(spec, upto).tolist() == load_game(spec).heap_values(upto).tolist()


@settings(max_examples=fraction_of_examples(1))
@given(st.sampled_from(SPLITTING_CODES))
def test_sparse_equals_naive_on_a_sample_of_codes(spec):
    upto = 1 << 13
    assert np.array_equal(kernel_values(spec, upto), kernel_values(spec, upto, naive=True))


#: The codes of the next test in this many parts, so that parallel workers share them.
PARTS = 8


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_sparse_equals_naive_to_2_15_for_every_three_digit_code(part):
    upto = 1 << 15
    for spec in SPLITTING_CODES[part::PARTS]:
        sparse = kernel_values(spec, upto)
        naive = kernel_values(spec, upto, naive=True)
        assert np.array_equal(sparse, naive), spec


def test_sparse_equals_naive_for_grundys_game_to_2_15():
    upto = 1 << 15
    sparse = kernel_values("grundy", upto)
    assert np.array_equal(sparse, kernel_values("grundy", upto, naive=True))
    assert sparse[:3001].tolist() == load_game("grundy").heap_values(3000).tolist()


def test_sparse_method_is_used_where_values_split():
    game = load_game("grundy")
    values = np.zeros((1 << 15) + 1, dtype=np.uint16)
    run = extend_values(game.split_rules, values, 0, 1 << 15)
    assert run.method == "sparse"
    assert run.pairs < (1 << 15) ** 2 // 8  # half of the pairs the naive method needs
    values = np.zeros(20_001, dtype=np.uint16)
    assert extend_values(load_game("dawson").split_rules, values, 0, 20_000).method == "naive"


@pytest.mark.slow
def test_grundys_game_published_values():
    result = heap_sequence(load_game("grundy"), 763_622)
    assert int(result.values[28_304]) == 195
    assert int(result.values[763_622]) == 231
    assert int(result.values.max()) == 231  # the largest value up to 2^21 comes at 763,622


def brute_force_smallest_proof(values, theorem):
    """The smallest (p, then n0) for which the Guy-Smith theorem's hypothesis holds, checked
    directly: G(n + p) = G(n) for max(n0, first) <= n < 2 max(n0, first) + p + k."""
    length = len(values)
    for p in range(1, length):
        for n0 in range(0, length):
            start = max(n0, theorem.first)
            end = 2 * start + p + theorem.k
            if end + p > length:
                break
            if all(values[n + p] == values[n] for n in range(start, end)) and all(
                values[n + p] == values[n] for n in range(n0, start)
            ):
                return n0, p
    return None


@pytest.fixture(params=["python", "compiled"])
def period_search(request, monkeypatch):
    """Both paths of the period search: Python for short sequences, numba for long ones."""
    if request.param == "compiled":
        monkeypatch.setattr(periods, "COMPILED_FROM", 0)
    return request.param


@pytest.mark.slow  # period searches checked by brute force
@pytest.mark.parametrize(
    "spec", SPLITTING_CODES[::7] + [f"octal:{c}" for c in ("0.33", "0.137", "0.07", "0.17", "0.6")]
)
def test_period_is_the_smallest_proof_found_at_the_theorems_bound(spec, period_search):
    game = load_game(spec)
    theorem = guy_smith(game)
    values = game.heap_values(1500).tolist()
    for length in (40, 200, 700, 1501):
        found = proven_period(np.array(values[:length]), length, theorem)
        assert found == brute_force_smallest_proof(values[:length], theorem), (spec, length)
    found = proven_period(np.array(values), len(values), theorem)
    if found is not None:
        need = proof_length(*found, theorem)
        # found with exactly the values the theorem needs, and not with one fewer
        assert proven_period(np.array(values[:need]), need, theorem) == found
        assert proven_period(np.array(values[: need - 1]), need - 1, theorem) != found


def brute_force_observed_period(values):
    """The smallest p whose periodic stretch at the end (p plus the values from which
    G(n + p) = G(n) holds to the end) covers half the values and three periods, directly."""
    length = len(values)
    for p in range(1, length):
        run = 0
        while run < length - p and values[length - 1 - run] == values[length - 1 - p - run]:
            run += 1
        if 2 * (p + run) >= length and p + run >= 3 * p:
            return length - p - run, p
    return None


@given(
    st.lists(st.integers(0, 3), max_size=30),
    st.lists(st.integers(0, 3), min_size=1, max_size=8),
    st.integers(0, 40),
    st.lists(st.integers(0, 3), max_size=3),
)
def test_observed_period_equals_a_direct_search(prefix, pattern, repeats, suffix):
    values = np.array(prefix + pattern * repeats + suffix, dtype=np.uint16)
    expected = brute_force_observed_period(values.tolist())
    assert periods.observed_period(values, len(values)) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(periods, "COMPILED_FROM", 0)
        assert periods.observed_period(values, len(values)) == expected


def test_a_split_leaning_on_heap_0_proves_nothing():
    # 0.4: G = 0, 0, 0, 1: three equal values do not prove period 1 from heap 0
    values = np.array([0, 0, 0, 1, 1, 2, 0, 3])
    assert proven_period(values, 3, GuySmith(1, first=1)) is None
    assert proven_period(values, 3, GuySmith(1)) == (0, 1)  # without the correction: wrong


@pytest.mark.slow  # sequences of up to 500,000 values
@pytest.mark.parametrize(
    ("spec", "preperiod", "period"),
    [("octal:0.16", 105_351, 149_459), ("octal:0.56", 326_640, 144), ("octal:0.127", 46_578, 4)],
)
def test_long_preperiods_are_proven(spec, preperiod, period):
    game = load_game(spec)
    result = value_sequence(game, 10**9, until_periodic=True)
    assert (result.preperiod, result.period, result.proven) == (preperiod, period, True)
    assert result.computed == proof_length(preperiod, period, guy_smith(game))
    assert len(result.values) == result.computed


def test_sequence_values_past_the_proof_follow_from_the_period():
    runner = CliRunner()
    out = runner.invoke(main, ["sequence", "kayles", "--upto", "400", "--json"])
    data = json.loads(out.stdout)
    assert data["computed"] == 2 * 71 + 2 * 12 + 2
    assert data["values"] == load_game("kayles").heap_values(400).tolist()
    far = runner.invoke(
        main, ["sequence", "kayles", "--from", str(10**18), "--upto", str(10**18 + 11), "--json"]
    )
    assert (
        json.loads(far.stdout)["values"]
        == data["values"][72:84][10**18 % 12 :] + data["values"][72:84][: 10**18 % 12]
    )


def test_until_periodic_stops_at_the_proof():
    out = CliRunner().invoke(main, ["sequence", "kayles", "--until-periodic", "--upto", "10000"])
    lines = out.stdout.splitlines()
    assert lines[0] == "octal:0.77: G(0..167)"
    assert lines[-1] == "period 12, preperiod 71: proven (Guy-Smith theorem)"
    checksum = fletcher32(load_game("kayles").heap_values(167))
    assert lines[-2] == f"Fletcher-32 {checksum:08x} of G(0..167)"


def test_solve_answers_a_far_heap_and_sums_of_them_from_the_period():
    out = CliRunner().invoke(main, ["solve", "kayles", "1000000000000", "--json"])
    data = json.loads(out.stdout)
    assert data["method"] == "period" and data["grundy"] == 1
    game = load_game("nim + kayles")
    result = solve(game, game.parse(f"1 + {10**18},{10**18 + 1}"))
    g = [4, 1, 2, 8, 1, 4, 7, 2, 1, 8, 2, 7]
    assert result.grundy == 1 ^ g[10**18 % 12] ^ g[(10**18 + 1) % 12]
    # a sum of games names the period as its method too, once, however many parts use it
    assert result.method == "period"
    assert result.note.count("period 12 from heap 71") == 1
    several = solve(load_game("kayles"), (5, 77_777_777_777, 10**12))
    assert several.method == "period" and several.grundy == 4 ^ g[77_777_777_777 % 12] ^ 1
    assert solve(load_game("nim + nim"), ((10**15,), (5,))).method == "closed form"


def test_closed_forms_answer_far_heaps():
    for spec, heap, value in [
        ("lasker", 10**12 + 3, 10**12 + 4),
        ("half", 10**12, (10**12).bit_length()),
        ("nim", 10**15, 10**15),
    ]:
        assert solve(load_game(spec), (heap,), method="decompose").grundy == value
    assert [load_game("lasker").closed_form(n) for n in range(300)] == load_game(
        "lasker"
    ).heap_values(299).tolist()
    assert [load_game("half").closed_form(n) for n in range(300)] == load_game("half").heap_values(
        299
    ).tolist()


@pytest.mark.parametrize("option", ["--memory", "--max-memory"])  # the old spelling works too
def test_a_run_past_the_memory_limit_says_how_much_and_how_to_raise_it(option):
    args = ["sequence", "grundy", "--upto", "100000000", option, "64"]
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 1
    assert out.stderr == (
        "Error: G(0..100,000,000) needs about 765 MiB, over the limit of 64 MiB "
        "(raise it with --memory)\n"
    )


def graph_table(spec: str, size: int) -> list[list[int | None]]:
    """The value table cell by cell from game graphs (the method tables used before)."""
    from explorer.analysis.solving import grundy_value
    from explorer.errors import ExplorerError

    game = load_game(spec)
    table: list[list[int | None]] = [[None] * size for _ in range(size)]
    # the far corner first: its graph holds every other cell's position
    for r in reversed(range(size)):
        for c in reversed(range(size)):
            try:
                position = game.parse(f"{r},{c}")
            except ExplorerError:
                continue
            table[r][c] = grundy_value(game, position, max_states=10**6)
    return table


@pytest.mark.slow  # every cell solved by its graph
@pytest.mark.parametrize(("spec", "size"), [("wythoff", 60), ("ferguson", 40), ("kayles", 40)])
def test_tables_by_dynamic_programming_equal_the_graph_method(spec, size):
    from explorer import value_table

    assert value_table(load_game(spec), size, size) == graph_table(spec, size)


def test_a_large_table_and_its_guard():
    from explorer import value_table

    table = value_table(load_game("wythoff"), 1000, 1000)
    # Wythoff's P-positions: (floor(k phi), floor(k phi^2)) and their mirror images
    phi = (1 + 5**0.5) / 2
    zeros = {(r, c) for r in range(1000) for c in range(1000) if table[r][c] == 0}
    expected = {(int(k * phi), int(k * phi * phi)) for k in range(1000)}
    expected |= {(b, a) for a, b in expected}
    assert zeros == {(r, c) for r, c in expected if r < 1000 and c < 1000}
    out = CliRunner().invoke(
        main, ["table", "wythoff", "--rows", "5000", "--cols", "5000", "--max-memory", "100"]
    )
    assert out.exit_code == 1
    assert out.stderr == (
        "Error: a table of 5,000 x 5,000 cells needs about 763 MiB, over the limit of 100 MiB "
        "(raise it with --memory)\n"
    )


def stderr_on_a_terminal(*args: str) -> bytes:
    """What an explorer process writes to standard error when that is a terminal (a pty)."""
    code, shown = on_a_terminal(*args)
    assert code == 0
    return shown


@pytest.mark.slow  # each runs a long command on a terminal
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["table", "wythoff", "--rows", "120", "--cols", "120"], [b"table", b"14,400 cells"]),
        (["table", "ferguson", "--rows", "200", "--cols", "200"], [b"table", b"40,000 cells"]),
        (["table", "kayles", "--rows", "50", "--cols", "50"], [b"table", b"2,500 cells"]),
        (["sequence", "grundy", "--upto", "40000"], [b"values", b"40,001 heaps", b"largest"]),
    ],
)
def test_long_work_shows_a_progress_bar_on_a_terminal_only(args, words):
    shown = stderr_on_a_terminal(*args)
    assert all(word in shown for word in words), shown[-400:]
    piped = CliRunner().invoke(main, args)  # standard error is no terminal here
    assert piped.exit_code == 0 and piped.stderr == ""
    assert CliRunner().invoke(main, [*args, "--json"]).stderr == ""
