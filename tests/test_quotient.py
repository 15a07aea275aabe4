"""Misère quotients against the definition: misère outcomes by a brute force over the sums'
game graphs, the tame quotients of misère Nim, R8 for 0.75 by an isomorphism search, the proven
period, the size guard, and the quotient used by ``solve --misere``."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import load_game
from explorer.analysis.misere import misere_solution as solve_misere
from explorer.analysis.quotient import misere_quotient, quotient_outcome, quotient_winning_moves
from explorer.cli import main
from explorer.errors import QuotientTooLargeError
from tests.support.bruteforce import heap_game_moves
from tests.support.heap_rules import RULES, octal
from tests.support.strategies import fraction_of_examples


class Brute:
    """Misère outcomes of sums of heaps by definition (no move: N; P iff every move reaches
    an N-position), over the sums' game graphs with an explicit stack, remembered per game."""

    def __init__(self, heap_moves):
        self.moves = heap_game_moves(heap_moves)
        self.outcome: dict[tuple[int, ...], str] = {}

    def __call__(self, position):
        position = tuple(sorted(h for h in position if h))
        stack = [position]
        while stack:
            top = stack[-1]
            if top in self.outcome:
                stack.pop()
                continue
            options = list(self.moves(top))
            pending = [q for q in options if q not in self.outcome]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            p = bool(options) and all(self.outcome[q] == "N" for q in options)
            self.outcome[top] = "P" if p else "N"
        return self.outcome[position]

    def winning_moves(self, position):
        position = tuple(sorted(h for h in position if h))
        return {q for q in self.moves(position) if self(q) == "P"}


RULES_075 = octal("0.75")


def random_sums(rng, max_heap, count, *, most_heaps=4, most_tokens=30):
    sums = []
    while len(sums) < count:
        heaps = [rng.randint(1, max_heap) for _ in range(rng.randint(0, most_heaps))]
        if sum(heaps) <= most_tokens:
            sums.append(tuple(sorted(heaps)))
    return sums


def isomorphic(quotient, table, p, phi):
    """Whether the map sending Φ(h) to phi[h] (and products to products) is an isomorphism
    from the quotient onto the monoid (table, p), with P onto p: found from the identities by
    following every heap, then checked."""
    image = {0: 0}
    frontier = [0]
    while frontier:
        x = frontier.pop()
        for h in range(len(phi)):
            ours, theirs = quotient.table[x][quotient.phi[h]], table[image[x]][phi[h]]
            if ours in image:
                if image[ours] != theirs:
                    return False
            else:
                image[ours] = theirs
                frontier.append(ours)
    if len(image) != quotient.size or sorted(image.values()) != list(range(len(table))):
        return False
    homomorphic = all(
        image[quotient.table[x][y]] == table[image[x]][image[y]]
        for x in range(quotient.size)
        for y in range(quotient.size)
    )
    return homomorphic and {image[x] for x in quotient.p} == set(p)


def tame_model(n):
    """T_n: {1, a} and the 2^n nim values of sums with a heap of 2 or more; Φ(h) for Nim."""
    small = [(False, 0), (False, 1)]
    elements = small + [(True, v) for v in range(2**n)] if n >= 2 else small
    index = {e: i for i, e in enumerate(elements)}
    table = [[index[(b1 or b2, v1 ^ v2)] for b2, v2 in elements] for b1, v1 in elements]
    p = [index[(False, 1)]] + ([index[(True, 0)]] if n >= 2 else [])
    phi = [index[(h >= 2, h)] for h in range(2**n)]
    return table, p, phi


def bouton(heaps):
    if all(h <= 1 for h in heaps):
        return "P" if sum(heaps) % 2 else "N"
    xor = 0
    for h in heaps:
        xor ^= h
    return "P" if xor == 0 else "N"


@pytest.mark.parametrize(("max_heap", "size", "n"), [(1, 2, 1), (3, 6, 2), (7, 10, 3)])
def test_misere_nim_gives_the_tame_quotients_and_bouton_rule(max_heap, size, n):
    q = misere_quotient(load_game("nim"), max_heap)
    assert (q.size, q.p_size, q.tame, q.presentation) == (size, 1 if n == 1 else 2, True, f"T{n}")
    assert isomorphic(q, *tame_model(n))
    brute = Brute(RULES["nim"])
    for count in range(5):
        for heaps in itertools.combinations_with_replacement(range(1, max_heap + 1), count):
            assert quotient_outcome(q, heaps) == bouton(heaps) == brute(heaps), heaps


def r8():
    """R8 from its presentation <a, b, c | a^2 = 1, b^3 = b, bc = ab, c^2 = b^2>: words a^i b^j
    c^k rewritten by the relations to the 8 words a^i b^j (j < 3) and a^i c."""

    def normal(i, j, k):
        j, k = j + 2 * (k // 2), k % 2  # c^2 = b^2
        if k and j:  # bc = ab
            i, k = i + 1, 0
        while j >= 3:  # b^3 = b
            j -= 2
        return i % 2, j, k  # a^2 = 1

    words = [(i, j, 0) for j in range(3) for i in range(2)] + [(0, 0, 1), (1, 0, 1)]
    index = {w: x for x, w in enumerate(words)}
    table = [
        [index[normal(*(u + v for u, v in zip(w1, w2, strict=True)))] for w2 in words]
        for w1 in words
    ]
    return words, index, table, normal


def test_octal_075_is_r8_with_its_pretending_function():
    q = misere_quotient(load_game("octal:0.75"), 16)
    assert (q.size, q.p_size, q.tame, len(q.generators)) == (8, 2, False, 3)
    words, index, table, normal = r8()
    p = [index[(1, 0, 0)], index[(0, 2, 0)]]  # P = {a, b^2}
    # 1, a, b, a, b, c, b, c, b, ab^2, b, ab^2, b, ab^2, b, ab^2, b as exponents of a, b, c
    expected = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0, 1, 0)]
    expected += [(0, 0, 1), (0, 1, 0)] + [(1, 2, 0), (0, 1, 0)] * 4
    # up to renaming: any choice of the elements a, b and c stand for (an automorphism of R8)
    found = []
    for a, b, c in itertools.product(words, repeat=3):

        def renamed(i, j, k, a=a, b=b, c=c):
            return index[normal(*(i * x + j * y + k * z for x, y, z in zip(a, b, c, strict=True)))]

        if isomorphic(q, table, p, [renamed(*w) for w in expected]):
            found.append((a, b, c))
    assert found
    assert q.period == 2 and q.preperiod == 8 and not q.period_proven and q.proof_heap == 21


def test_random_sums_of_the_growing_kayles_quotient_match_the_brute_force():
    """Kayles' quotient grows with the heaps (2, 6, 12, 18 elements...): the sizes reported
    are real, every two elements told apart by actual sums solved by the brute force."""
    kayles = load_game("kayles")
    sizes = [1, 2, 6, 6, 6, 12, 12, 12, 12, 18, 18, 18, 24, 24]
    assert misere_quotient(kayles, 13).sizes == sizes
    q = misere_quotient(kayles, 9)
    brute = Brute(RULES["kayles"])
    smallest = {}  # a smallest sum of each element
    for heaps in sorted(
        (
            hs
            for count in range(4)
            for hs in itertools.combinations_with_replacement(range(10), count)
        ),
        key=sum,
    ):
        smallest.setdefault(q.element_of(heaps), heaps)
    assert len(smallest) == q.size
    for x, y in itertools.combinations(range(q.size), 2):
        z = min(
            (z for z in range(q.size) if (q.table[x][z] in q.p) != (q.table[y][z] in q.p)),
            key=lambda z: sum(smallest[z]) + max(sum(smallest[x]), sum(smallest[y])),
        )
        assert brute(smallest[x] + smallest[z]) != brute(smallest[y] + smallest[z])


@pytest.mark.slow  # 1000 sums by brute force
@pytest.mark.parametrize(
    ("spec", "max_heap"), [("nim", 7), ("octal:0.75", 16), ("dawson", 13), ("kayles", 12)]
)
def test_outcomes_and_winning_moves_of_1000_random_sums_match_the_brute_force(spec, max_heap):
    game = load_game(spec)
    q = misere_quotient(game, max_heap)
    brute = Brute(RULES.get(spec) or RULES_075)
    seen = {"P": 0, "N": 0}
    for heaps in random_sums(random.Random(spec), max_heap, 1000):
        outcome = quotient_outcome(q, heaps)
        assert outcome == brute(heaps), (spec, heaps)
        assert set(quotient_winning_moves(q, game, heaps)) == brute.winning_moves(heaps)
        seen[outcome] += 1
    assert min(seen.values()) >= 50, seen


@pytest.mark.slow  # a long sequence
def test_a_proven_period_answers_heaps_past_the_computed_ones():
    q = misere_quotient(load_game("octal:0.75"), 21)
    assert (q.period, q.preperiod, q.period_proven) == (2, 8, True)

    def phi(h):
        return q.phi[h] if h <= q.max_heap else q.phi[q.preperiod + (h - q.preperiod) % 2]

    far = misere_quotient(load_game("octal:0.75"), 200)  # stops computing once proven
    assert far.period_proven and far.phi == [phi(h) for h in range(201)]
    assert len(far.sizes) == 201 and far.table == q.table
    brute = Brute(RULES_075)
    rng = random.Random(21)
    for _ in range(60):
        heaps = [rng.randint(22, 27)] + [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        element = 0
        for h in heaps:
            element = q.table[element][phi(h)]
        assert ("P" if element in q.p else "N") == brute(heaps), heaps


def test_a_quotient_past_its_size_guard_is_refused_naming_the_option():
    with pytest.raises(QuotientTooLargeError) as error:
        misere_quotient(load_game("kayles"), 14, max_size=16)
    assert str(error.value) == (
        "the misère quotient of octal:0.77 has more than 16 elements at heap 9 (sizes so far: "
        "1, 2, 6, 6, 6, 12, 12, 12, 12; raise it with --max-size)"
    )
    with pytest.raises(QuotientTooLargeError, match="raise it with --max-states"):
        misere_quotient(load_game("kayles"), 14, max_states=100)


@settings(max_examples=fraction_of_examples(0.4))
@given(
    first=st.sampled_from("04"),
    digits=st.lists(st.integers(0, 7), min_size=1, max_size=3),
    max_heap=st.integers(1, 7),
    seed=st.integers(0, 2**16),
)
def test_any_octal_game_quotient_is_a_monoid_that_gives_every_outcome(
    first, digits, max_heap, seed
):
    code = f"{first}." + "".join(map(str, digits))
    q = misere_quotient(load_game(f"octal:{code}"), max_heap)
    table, size = q.table, q.size
    assert q.elements[0] == "1" and q.phi[0] == 0
    assert size == 1 or size % 2 == 0  # a misère quotient has even size (Plambeck-Siegel)
    for x, y, z in itertools.product(range(size), repeat=3):
        assert table[x][table[y][z]] == table[table[x][y]][z]
    assert all(
        table[x][y] == table[y][x] and table[0][x] == x for x in range(size) for y in range(size)
    )
    for x, y in itertools.combinations(range(size), 2):  # reduced: every two elements differ
        assert any((table[x][z] in q.p) != (table[y][z] in q.p) for z in range(size))
    brute = Brute(octal(code))
    for heaps in random_sums(random.Random(seed), max_heap, 40, most_tokens=16):
        assert quotient_outcome(q, heaps) == brute(heaps), (code, heaps)


def test_solve_answers_200_heaps_of_075_from_the_quotient():
    heaps = ",".join(map(str, range(1, 201)))
    result = CliRunner().invoke(main, ["solve", "octal:0.75", heaps, "--misere", "--json"])
    data = json.loads(result.stdout)
    assert (data["method"], data["outcome"], data["winning_moves"]) == ("quotient", "P", [])
    assert "|Q| = 8" in data["note"]


def test_solve_winning_moves_from_the_quotient_match_the_brute_force():
    game = load_game("octal:0.75")
    brute = Brute(RULES_075)
    for text in ("1,2,3,4,5,6", "2,5,9,11", "3,3,7,8"):
        position = game.parse(text)
        result = solve_misere(game, position, method="decompose")
        assert (result.method, result.outcome) == ("quotient", brute(position))
        expected = {game.format(m) for m in brute.winning_moves(position)}
        assert set(result.winning_moves) == expected and result.winning_moves


@pytest.mark.slow  # a large graph
def test_solve_falls_back_to_the_graph_when_the_quotient_is_too_large():
    game = load_game("kayles")
    result = solve_misere(game, game.parse("3,25"))  # a graph of 5,119 states
    assert (result.method, result.states) == ("graph", 5119) and result.remoteness is not None
    assert result.outcome == Brute(RULES["kayles"])((3, 25))
    refused = CliRunner().invoke(
        main, ["solve", "kayles", "3,25", "--misere", "--method", "decompose"]
    )
    assert (refused.exit_code, refused.stderr) == (
        1,
        "Error: the misère quotient of octal:0.77 needs more than 20,000 positions or checked "
        "pairs at heap 25; use --method graph\n",
    )


def test_cli_quotient_prints_the_presentation_and_json():
    runner = CliRunner()
    text = runner.invoke(main, ["quotient", "octal:0.75", "--max-heap", "16"]).stdout
    assert "<a, b, c | a^2 = 1, b^3 = b, bc = ab, c^2 = b^2>" in text
    assert "|Q| = 8, |P| = 2" in text and "P = {a, b^2}" in text
    assert "presentation last changed at heap 5" in text and "tame: no" in text
    assert "period of Φ: 2 from heap 8 (observed; --max-heap 21 would prove it)" in text
    data = json.loads(runner.invoke(main, ["quotient", "nim", "--max-heap", "3", "--json"]).stdout)
    assert (data["size"], data["p_size"], data["tame"], data["phi"]) == (6, 2, True, [0, 1, 2, 3])
    assert data["elements"] == ["1", "a", "b", "ab", "b^2", "ab^2"]
    assert [data["elements"][x] for x in data["p"]] == ["a", "b^2"]
    assert data["table"][2][2] == 4 and data["table"][4][2] == 2  # b·b = b^2, b^2·b = b
    help_text = runner.invoke(main, ["quotient", "--help"]).stdout
    assert "explorer quotient octal:0.75 --max-heap 16" in help_text
    refused = runner.invoke(main, ["quotient", "chomp"])
    assert (refused.exit_code, refused.stderr) == (
        1,
        "Error: misère quotients are for heap games (nim, octal, kayles, ...), not 'chomp'\n",
    )
