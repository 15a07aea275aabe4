"""Patterns in values: periods proved by the window and state lemmas against brute force,
sweeps against the sequence engine, Beatty pairs and sums of two-number games, refutation."""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import explorer
from explorer.analysis.patterns import (
    Pattern,
    find_patterns,
    revise,
    revisit,
    sequence_patterns,
)
from explorer.analysis.sequences import value_sequence
from explorer.analysis.sweep import variants
from explorer.errors import PositionError, SweepError
from explorer.games import load_game
from explorer.games.base import Game
from explorer.games.heaps import HeapGame, Heaps
from explorer.games.removals import RemovalRule
from explorer.solver.periodicity import removal_values, state_lemma, window_lemma
from tests.support.cli import run, run_json
from tests.support.strategies import fraction_of_examples

# -- brute force, written from the definitions -----------------------------------------------


def subtraction_values(moves: tuple[int, ...], upto: int) -> list[int]:
    """G(0..upto) by the definition of mex over each heap's options, smaller heaps first."""
    g: list[int] = []
    for n in range(upto + 1):
        options = {g[n - s] for s in moves if s <= n}
        g.append(next(v for v in itertools.count() if v not in options))
    return g


def all_but_values(excluded: tuple[int, ...], upto: int) -> list[int]:
    """G(n) = mex{G(n - s) : 1 <= s <= n, s not excluded}: the values of heaps at distances
    past every excluded number are all options, kept as a set."""
    g: list[int] = []
    far: set[int] = set()
    below = 0  # every value below it is in `far`
    top = max(excluded)
    for n in range(upto + 1):
        if n - top - 1 >= 0:
            far.add(g[n - top - 1])
            while below in far:
                below += 1
        near = {g[n - s] for s in range(1, min(n, top) + 1) if s not in excluded}
        value = below
        while value in far or value in near:
            value += 1
        g.append(value)
    return g


def least_arithmetic_period(values: list[int]) -> tuple[int, int, int]:
    """The least p, then the least n0, with G(n + p) - G(n) the same for n0 <= n < N - p,
    the stretch covering at least half of the values."""
    g = np.array(values)
    for p in range(1, len(g) // 4):
        d = g[p:] - g[:-p]
        bad = np.flatnonzero(d != d[-1])
        pre = int(bad[-1]) + 1 if bad.size else 0
        if pre <= len(g) // 2:
            return pre, p, int(d[-1])
    raise AssertionError("no period in the brute-force values")


# -- one heap ----------------------------------------------------------------------------------


def subsets(numbers: range) -> Iterator[tuple[int, ...]]:
    for size in range(1, len(numbers) + 1):
        yield from itertools.combinations(numbers, size)


def test_every_subtraction_set_within_1_to_7_is_proved_by_the_window_lemma():
    data = run_json("sweep", "subtraction:{1..7}", "--upto", "300")
    rows = {row["spec"]: row for row in data["rows"]}
    assert len(rows) == 127
    for moves in subsets(range(1, 8)):
        row = rows["subtraction:" + ",".join(map(str, moves))]
        pre, period, saltus = least_arithmetic_period(subtraction_values(moves, 2000))
        assert (row["preperiod"], row["period"], row["saltus"]) == (pre, period, 0), moves
        assert (row["status"], row["theorem"]) == ("proved", "window lemma"), moves


def test_patterns_prints_the_window_lemma_proof():
    data = run_json("patterns", "subtraction:2,3,7", "--upto", "200")
    period = data["patterns"][0]
    pre, p, _ = least_arithmetic_period(subtraction_values((2, 3, 7), 2000))
    assert period["kind"] == "period" and (period["preperiod"], period["period"]) == (pre, p)
    assert period["status"] == "proved" and period["theorem"] == "window lemma"
    assert period["needed"] == pre + p + 7  # G(n + p) = G(n) for pre <= n < pre + max(S)
    code, out, _ = run("patterns", "subtraction:2,3,7", "--upto", "200")
    assert code == 0 and f"period {p}, preperiod {pre}" in out
    assert f"proved: window lemma, G(0..{pre + p + 6})" in out


@given(st.sets(st.integers(1, 12), min_size=1, max_size=5))
@settings(max_examples=fraction_of_examples(0.5))
def test_the_window_lemma_predicts_every_later_value(moves):
    """The theorem: a proof from its first values holds for 3,000 values of brute force."""
    g = np.array(subtraction_values(tuple(sorted(moves)), 3000))
    rule = RemovalRule.subtraction(moves)
    proof = window_lemma(g, rule)
    assert proof is not None
    short = window_lemma(g[: proof.needed], rule)
    assert short == proof  # the values it says it read are enough, and give the same answer
    pre, p, _ = proof.period
    assert (g[pre + p :] == g[pre:-p]).all()


@pytest.mark.slow  # a sweep of codes
def test_octal_sweep_agrees_with_the_sequence_engine():
    upto = 2000
    began = time.perf_counter()
    code, out, err = run("sweep", "octal:0.??", "--upto", str(upto))
    spent = time.perf_counter() - began
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["spec", "period", "preperiod", "saltus", "status", "largest"]
    assert lines[-1] == f"64 variants up to {upto:,}"
    rows = {line.split()[0]: line for line in lines[1:-1]}
    assert len(rows) == 64
    unsolved = []
    for d1, d2 in itertools.product("01234567", repeat=2):
        game = load_game(f"octal:0.{d1}{d2}")
        line = rows[game.spec]
        engine = value_sequence(game, upto)
        assert line.split()[-1] == str(int(engine.values.max()))
        if engine.proven:
            period, preperiod, saltus = line.split()[1:4]
            assert (int(period), int(preperiod), saltus) == (engine.period, engine.preperiod, "0")
            assert "proved (" in line
        else:
            assert f"no period up to {upto:,}" in line
            unsolved.append(game.spec)
    assert "octal:0.6" in unsolved and "octal:0.77" not in unsolved
    print(f"sweep octal:0.?? to {upto}: {spent:.1f} s, {len(unsolved)} without a period")


@pytest.mark.parametrize("size", [1, 2, 3])
def test_all_but_games_match_brute_force_over_10000_values(size):
    for excluded in itertools.combinations(range(1, 7), size):
        g = all_but_values(excluded, 10_000)
        rule = RemovalRule.all_but(excluded)
        assert removal_values(rule, 10_000).tolist() == g
        found = sequence_patterns(f"all but {excluded}", np.array(g), rule=rule)
        first = found.patterns[0]
        pre, period, saltus = least_arithmetic_period(g)
        assert first.kind == "arithmetic-period", excluded
        fields = first.fields
        assert (fields["preperiod"], fields["period"], fields["saltus"]) == (pre, period, saltus)
        assert (first.status, first.theorem) == ("proved", "state lemma")
        assert pre == 0  # Siegel (|E| <= 2), Sleator and Slusky (|E| = 3): purely arithmetic


@given(st.sets(st.integers(1, 14), min_size=1, max_size=5))
@settings(max_examples=fraction_of_examples(0.5))
def test_the_state_lemma_predicts_every_later_value(excluded):
    g = np.array(all_but_values(tuple(sorted(excluded)), 4000))
    rule = RemovalRule.all_but(excluded)
    proof = state_lemma(g, rule)
    assert proof is not None
    assert state_lemma(g[: proof.needed], rule) == proof
    pre, p, s = proof.period
    assert (g[pre + p :] == g[pre:-p] + s).all()
    assert (pre, p, s) == least_arithmetic_period(g.tolist())


@given(st.lists(st.integers(0, 3), min_size=0, max_size=5))
@settings(max_examples=fraction_of_examples(0.5))
def test_the_state_lemma_with_any_head_of_digits(head):
    """Octal digits d1..dk (1: may take a whole heap of k; 2: may leave one heap) followed by
    3s forever: G by the definition over 800 heaps, and the proof from its first values."""
    tail = len(head) + 1

    def options(n: int) -> list[int]:
        found = [n - k for k in range(tail, n + 1)]
        for k, digit in enumerate(head, start=1):
            if (digit & 1 and n == k) or (digit & 2 and n > k):
                found.append(n - k)
        return found

    g: list[int] = []
    for n in range(801):
        reached = {g[m] for m in options(n)}
        g.append(next(v for v in itertools.count() if v not in reached))
    rule = RemovalRule(
        frozenset(k for k, d in enumerate(head, 1) if d & 2),
        frozenset(k for k, d in enumerate(head, 1) if d & 1),
        tail,
    )
    assert removal_values(rule, 800).tolist() == g
    values = np.array(g)
    proof = state_lemma(values, rule)
    assert proof is not None
    pre, p, s = proof.period
    assert (values[pre + p :] == values[pre:-p] + s).all()
    assert state_lemma(values[: proof.needed], rule) == proof


class AllBut(HeapGame):
    """Take any number of tokens but those excluded (a game defined here, no family)."""

    family = "all-but-test"
    example = ("all-but-test", "5")

    def __init__(self, excluded: tuple[int, ...]) -> None:
        super().__init__()
        self.excluded = excluded

    @property
    def spec(self) -> str:
        return "all-but:" + ",".join(map(str, self.excluded))

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        for k in range(1, heap + 1):
            if k not in self.excluded:
                yield (heap - k,) if heap > k else ()

    def removal_rule(self) -> RemovalRule:
        return RemovalRule.all_but(self.excluded)


def test_a_heap_game_declaring_an_all_but_rule_is_proved_arithmetic_periodic():
    found = explorer.patterns(AllBut((1, 3)), upto=300)
    first = found.patterns[0]
    assert first.kind == "arithmetic-period" and first.theorem == "state lemma"
    assert (first.fields["period"], first.fields["saltus"]) == (2, 1)
    residues = found.find("residues")
    assert residues is not None and residues.fields["before"] == [0, 1]
    assert residues.text() == "P-positions: only 0, 1"


def test_known_games_proved_and_observed():
    kayles = find_patterns("kayles", 1000).to_dict()
    assert kayles["patterns"][0] == {
        "kind": "period",
        "status": "proved",
        "theorem": "Guy-Smith theorem",
        "needed": 168,
        "upto": 1000,
        "preperiod": 71,
        "period": 12,
        "saltus": 0,
    }
    lasker = find_patterns("lasker", 300).patterns[0]  # no theorem here: observed
    assert lasker.kind == "arithmetic-period" and lasker.status == "observed"
    assert (lasker.fields["period"], lasker.fields["saltus"]) == (4, 4)
    nim = find_patterns("nim", 50).patterns[0]
    assert (nim.fields["period"], nim.fields["saltus"], nim.theorem) == (1, 1, "state lemma")


@pytest.mark.slow  # a long sequence
def test_grundys_game_rare_values_match_the_published_count():
    """SEQUENCES.md: 1,274 rare positions up to 2^21, the last at 82,860."""
    sparse = find_patterns("grundy", 90_000).find("sparse-space")
    assert sparse is not None and sparse.status == "observed"
    assert (sparse.fields["rare_positions"], sparse.fields["last_rare"]) == (1274, 82_860)


# -- two numbers -------------------------------------------------------------------------------


def wythoff_p_positions(upto: int) -> set[tuple[int, int]]:
    """By the definition: (a, b) is P when no move reaches a P-position."""
    losing: set[tuple[int, int]] = set()
    for a in range(upto + 1):
        for b in range(upto + 1):
            options = [(a - k, b) for k in range(1, a + 1)] + [(a, b - k) for k in range(1, b + 1)]
            options += [(a - k, b - k) for k in range(1, min(a, b) + 1)]
            if not any(q in losing for q in options):
                losing.add((a, b))
    return losing


def test_wythoff_p_positions_on_beatty_pairs_with_the_golden_ratio():
    data = run_json("patterns", "wythoff", "--upto", "150")
    beatty = next(p for p in data["patterns"] if p["kind"] == "beatty")
    assert beatty["alpha_text"] == "(1+sqrt(5))/2"
    assert beatty["beta_text"] == "(3+sqrt(5))/2"
    assert math.isclose(beatty["alpha"], (1 + math.sqrt(5)) / 2)
    assert beatty["status"] == "observed" and beatty["upto"] == 150
    losing = wythoff_p_positions(150)
    assert beatty["pairs"] == sum(1 for a, b in losing if a < b)
    code, out, _ = run("patterns", "wythoff", "--upto", "150")
    assert "alpha = (1+sqrt(5))/2" in out


class AWythoff(Game[tuple[int, int]]):
    """Fraenkel's a-Wythoff: take from one heap, or k and l from both with |k - l| < a."""

    family = "a-wythoff-test"
    position_syntax = "x,y"
    example = ("a-wythoff-test", "1,2")

    def __init__(self, a: int) -> None:
        self.a = a

    @property
    def spec(self) -> str:
        return f"a-wythoff-test:{self.a}"

    def parse(self, text: str) -> tuple[int, int]:
        numbers = text.split(",")
        if len(numbers) != 2 or not all(x.strip().isdigit() for x in numbers):
            raise PositionError(f"bad position {text!r} (expected x,y)")
        x, y = sorted(int(n) for n in numbers)
        return x, y

    def format(self, position: tuple[int, int]) -> str:
        return f"{position[0]},{position[1]}"

    def successors(self, position: tuple[int, int]) -> Iterator[tuple[int, int]]:
        x, y = position
        for k in range(1, y + 1):
            yield tuple(sorted((x, y - k)))  # type: ignore[misc]
        for k in range(1, x + 1):
            yield (x - k, y)
            for m in range(1, y + 1):
                if abs(k - m) < self.a:
                    yield tuple(sorted((x - k, y - m)))  # type: ignore[misc]


@pytest.mark.parametrize(
    ("a", "alpha_text", "beta_text"),
    [(2, "sqrt(2)", "2+sqrt(2)"), (3, "(-1+sqrt(13))/2", "(5+sqrt(13))/2")],
)
def test_a_wythoff_alpha_is_named(a, alpha_text, beta_text):
    """Fraenkel (1982): the P-positions are (floor(n alpha), floor(n alpha) + a n) with
    alpha = (2 - a + sqrt(a^2 + 4)) / 2."""
    beatty = find_patterns(AWythoff(a), 40).find("beatty")
    assert beatty is not None
    assert (beatty.fields["alpha_text"], beatty.fields["beta_text"]) == (alpha_text, beta_text)
    alpha = (2 - a + math.sqrt(a * a + 4)) / 2
    assert math.isclose(beatty.fields["alpha"], alpha)
    assert math.isclose(beatty.fields["beta"], alpha + a)


def test_p_positions_periodic_in_both_numbers():
    found = find_patterns("ferguson", 30)  # P exactly when both heaps are odd
    residues = found.find("p-residues")
    assert residues is not None
    assert residues.fields == {"modulus": 2, "from": 0, "residues": [[1, 1]]}


class TwoHeaps(Game[tuple[int, int]]):
    """Two heaps (a, b); a move removes 1, 2 or 5 from one heap (not declared as a sum), or
    moves as `chooser` says (a random game)."""

    family = "two-heaps-test"
    position_syntax = "a,b"
    example = ("two-heaps-test", "3,4")

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed

    @property
    def spec(self) -> str:
        return f"two-heaps-test:{self.seed}"

    def parse(self, text: str) -> tuple[int, int]:
        numbers = text.split(",")
        if len(numbers) != 2 or not all(x.strip().isdigit() for x in numbers):
            raise PositionError(f"bad position {text!r} (expected a,b)")
        return int(numbers[0]), int(numbers[1])

    def format(self, position: tuple[int, int]) -> str:
        return f"{position[0]},{position[1]}"

    def successors(self, position: tuple[int, int]) -> Iterator[tuple[int, int]]:
        a, b = position
        if self.seed is None:
            yield from ((a - s, b) for s in (1, 2, 5) if s <= a)
            yield from ((a, b - s) for s in (1, 2, 5) if s <= b)
            return
        chooser = random.Random(f"{self.seed}:{a}:{b}")
        options = [(a - k, b) for k in range(1, a + 1)] + [(a, b - k) for k in range(1, b + 1)]
        yield from (q for q in options if chooser.random() < 0.3)


def test_a_two_heap_game_that_is_a_sum_is_recognised():
    found = find_patterns(TwoHeaps(), 40)
    total = found.find("sum")
    assert total is not None and total.status == "observed"
    declared = run_json("patterns", "nim + subtraction:1,2", "--upto", "20")
    kinds = {p["kind"]: p for p in declared["patterns"]}
    assert kinds["sum"]["status"] == "proved" and "Sprague-Grundy" in kinds["sum"]["theorem"]


@pytest.mark.parametrize("seed", range(4))
def test_a_random_two_heap_game_has_no_pattern(seed):
    found = find_patterns(TwoHeaps(seed), 30)
    assert found.lines() == ["no pattern found up to 30"]


def test_the_compiled_wythoff_table_is_the_mex_of_its_moves() -> None:
    from explorer.games import tables

    rows, cols = 150, 170  # past COMPILED_CELLS: the compiled kernel
    assert rows * cols >= tables.COMPILED_CELLS
    fast = tables.wythoff_table(rows, cols)
    slow = np.zeros((rows, cols), dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            reached = {slow[r - k, c] for k in range(1, r + 1)}
            reached |= {slow[r, c - k] for k in range(1, c + 1)}
            reached |= {slow[r - k, c - k] for k in range(1, min(r, c) + 1)}
            slow[r, c] = min(set(range(len(reached) + 1)) - reached)
    assert np.array_equal(fast, slow)


def test_a_sum_table_is_the_xor_of_its_parts_values() -> None:
    from explorer.analysis.pattern_tables import two_number_table

    table, theorem = two_number_table(load_game("kayles + subtraction:1,3"), 80)
    kayles = value_sequence("kayles", 80).values
    subtraction = value_sequence("subtraction:1,3", 80).values
    assert theorem is not None
    assert table.tolist() == [[int(k) ^ int(s) for s in subtraction] for k in kayles]


#: Tables that gave no answer in 120 s (issue 41): Wythoff's table filled diagonal by diagonal
#: over every word of its bitsets, a sum's table cell by cell from its positions' texts, and the
#: search for periodic P-positions over the whole table for every period.
LARGE_TABLES = {"wythoff": "5000", "nim + subtraction:1,2": "3000"}


@pytest.mark.slow  # a large table each (seconds); the bound when it fails
@pytest.mark.parametrize("spec", LARGE_TABLES)
def test_a_large_table_is_answered_within_its_bound(spec: str) -> None:
    upto = LARGE_TABLES[spec]
    code, out, err = run("patterns", spec, "--upto", upto, "--json", "--max-seconds", "120")
    assert code == 0, err
    kinds = [p["kind"] for p in json.loads(out)["patterns"]]
    assert kinds[0] == ("beatty" if spec == "wythoff" else "p-residues"), kinds


def test_a_table_over_the_memory_limit_is_refused():
    code, out, err = run("patterns", "wythoff", "--upto", "100000", "--max-memory", "1")
    assert (code, out) == (1, "")
    assert err == (
        "Error: a table of 100,001 x 100,001 cells needs about 152,591 MiB, over the limit of "
        "1 MiB (raise it with --memory)\n"
    )


# -- refutation and storage shape ----------------------------------------------------------------


class Planted(HeapGame):
    """Take one or two tokens; a heap of `late` may also drop to late - 3 (the pattern of
    period 3 breaks there)."""

    family = "planted-test"
    example = ("planted-test", "5")

    def __init__(self, late: int) -> None:
        super().__init__()
        self.late = late

    @property
    def spec(self) -> str:
        return f"planted:{self.late}"

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        for k in (1, 2, 3) if heap == self.late else (1, 2):
            if k <= heap:
                yield (heap - k,) if heap > k else ()


def test_a_pattern_that_breaks_late_is_refuted_at_the_heap_that_breaks_it():
    game = Planted(500)
    found = find_patterns(game, 200)
    period = found.find("period")
    assert period is not None and period.status == "observed"
    assert (period.fields["period"], period.fields["preperiod"]) == (3, 0)
    again = revisit(period, game, 1000)
    assert (again.verdict, again.at) == ("refuted", 500)
    values = found.find("values")
    assert values is not None and revisit(values, game, 1000).at == 500
    kept = revisit(period, game, 400)
    assert (kept.verdict, kept.pattern.upto) == ("confirmed", 400)
    assert again.to_dict()["at"] == 500 and again.text().startswith("period: refuted at 500")


def test_a_table_pattern_is_refuted_at_the_cell_that_breaks_it():
    old = find_patterns(TwoHeaps(), 40).find("sum")
    assert old is not None
    table = np.arange(6)[:, None] ^ np.arange(6)[None, :]
    table[3, 4] = 9
    found = sequence_patterns("g", np.arange(3))  # any run; the table decides
    assert revise(old, found, table).at == "3,4"


def test_patterns_are_plain_data_that_round_trip():
    found = find_patterns("octal:0.07", 500)
    data = json.loads(json.dumps(found.to_dict()))
    assert [Pattern.from_dict(p) for p in data["patterns"]] == list(found.patterns)
    assert data == run_json("patterns", "octal:0.07", "--upto", "500")


# -- sweeps ------------------------------------------------------------------------------------


def test_sweep_patterns_expand_lazily():
    count, specs = variants("subtraction:{1..20}", max_variants=2**20)
    assert count == 2**20 - 1
    assert list(itertools.islice(specs, 3)) == ["subtraction:1", "subtraction:2", "subtraction:3"]
    count, specs = variants("bash:2..20")
    assert count == 19 and list(specs)[-1] == "bash:20"
    assert variants("octal:?.1")[0] == 2


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        (
            "nim",
            "Error: sweep pattern 'nim' names no variants: use ? for an octal digit, {a..b} "
            "for every non-empty subset, a..b for a range (e.g. octal:0.??)",
        ),
        (
            "subtraction:{1,2}",
            "Error: bad sweep pattern 'subtraction:{1,2}': stray '{' (wildcards are ? for an "
            "octal digit, {a..b} for every non-empty subset, a..b for a range)",
        ),
        ("bash:9..2", "Error: bad sweep pattern 'bash:9..2': the range 9..2 is empty"),
        (
            "subtraction:{1..20}",
            "Error: sweep pattern 'subtraction:{1..20}' names 1,048,575 variants, over the "
            "limit of 100,000 (raise it with --max-variants)",
        ),
    ],
)
def test_sweep_errors(pattern, message):
    code, out, err = run("sweep", pattern)
    assert (code, out, err) == (1, "", message + "\n")
    with pytest.raises(SweepError):
        variants(pattern)


def test_sweep_csv_and_json_stream_rows():
    code, out, _ = run("sweep", "bash:2..4", "--upto", "50", "--csv")
    assert code == 0
    assert out.splitlines() == [
        "spec,period,preperiod,saltus,status,largest",
        "bash:2,3,0,0,proved (window lemma),2",
        "bash:3,4,0,0,proved (window lemma),3",
        "bash:4,5,0,0,proved (window lemma),4",
    ]
    data = run_json("sweep", "bash:2..4", "--upto", "50")
    assert [row["period"] for row in data["rows"]] == [3, 4, 5]
    code, _, err = run("sweep", "bash:2..4", "--csv", "--json")
    assert code == 2 and "choose one of --csv and --json" in err


def test_help_shows_an_example_for_each_command():
    for command, example in (("patterns", "explorer patterns kayles"), ("sweep", "octal:0.??")):
        code, out, _ = run(command, "--help")
        assert code == 0 and example in out
