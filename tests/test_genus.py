"""The misère genus of Kayles and Dawson's Kayles against a brute force on the sums' game trees,
and the genus tables of Winning Ways."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from explorer import load_game
from explorer.analysis.genus import genus_sequence
from explorer.cli import main


def brute_misere(game, heaps: tuple[int, ...], nims: tuple[int, ...], memo: dict) -> int:
    """G⁻ of the game's heaps plus Nim heaps, from the sum's own game tree: 1 where no move is
    left, else the mex of the options."""
    key = (heaps, nims)
    if key in memo:
        return memo[key]
    options = {brute_misere(game, after, nims, memo) for after in game.successors(heaps)}
    for i, nim in enumerate(nims):
        rest = nims[:i] + nims[i + 1 :]
        for smaller in range(nim):
            after = tuple(sorted(rest + ((smaller,) if smaller else ())))
            options.add(brute_misere(game, heaps, after, memo))
    value = 1
    if options:
        value = 0
        while value in options:
            value += 1
    memo[key] = value
    return value


@pytest.fixture
def deep_recursion():
    """The brute force recurses deeper than Python's default limit, restored afterwards: a
    raised limit left behind lets a later test's deep recursion overflow the C stack."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000)
    yield
    sys.setrecursionlimit(limit)


@pytest.mark.slow  # the sums of heaps up to 40 with up to seven copies of *2, solved naively
@pytest.mark.parametrize("spec", ["kayles", "octal:0.07"])
def test_genus_equals_a_brute_force_on_the_sum(spec, deep_recursion):
    game = load_game(spec)
    memo: dict = {}
    normal = game.heap_values(40)
    for n, genus in enumerate(genus_sequence(game, 40).genera):
        assert genus.normal == normal[n]
        heap = game.parse(str(n))
        # two copies of *2 past those the notation writes: the alternation goes on
        for k in range(len(genus.misere) + 2):
            assert brute_misere(game, heap, (2,) * k, memo) == genus.gamma(k), (n, k)


def test_genus_of_nim_heaps_and_of_the_example_kayles_heap():
    # *0 = 0^120 and *1 = 1^031 (Conway, On Numbers and Games, ch. 12; as the WGOSA "Genus
    # sequences" page writes them, 01202020... and 10313131...); Kayles heaps 1 and 2 are *1
    # and *2 as game trees; Kayles' heap of 5 is the example 4^146 of the notation
    genera = [g.text() for g in genus_sequence(load_game("kayles"), 5).genera]
    assert genera[:3] == ["0^120", "1^031", "2^20"]
    assert genera[5] == "4^146"
    nim = [g.text() for g in genus_sequence(load_game("nim"), 3).genera]
    assert nim == ["0^120", "1^031", "2^20", "3^31"]


def test_sequence_genus_prints_conways_notation_and_json():
    text = CliRunner().invoke(main, ["sequence", "kayles", "--upto", "5", "--genus"])
    assert text.exit_code == 0, text.output
    assert "4^146" in text.output and "0^120" in text.output
    data = json.loads(
        CliRunner().invoke(main, ["sequence", "kayles", "--upto", "5", "--genus", "--json"]).output
    )
    assert data["genus"][5] == {"normal": 4, "misere": [1, 4, 6]}
    assert data["genus"][0] == {"normal": 0, "misere": [1, 2, 0]}


def test_genus_of_a_game_that_is_not_a_heap_game_is_refused():
    result = CliRunner().invoke(main, ["sequence", "wythoff", "--genus"])
    assert result.exit_code != 0 and result.output.startswith("Error:")


def test_patterns_reports_the_period_of_the_genus_sequence():
    result = CliRunner().invoke(main, ["patterns", "subtraction:1,2", "--genus", "--json"])
    assert result.exit_code == 0, result.output
    (pattern,) = json.loads(result.output)["patterns"]
    assert pattern == {
        "kind": "genus-period",
        "status": "observed",
        "upto": 40,
        "preperiod": 0,
        "period": 3,
    }
    genera = genus_sequence(load_game("subtraction:1,2"), 40).genera
    assert all(genera[n] == genera[n % 3] for n in range(41))
    assert len({g.text() for g in genera[:3]}) == 3


def test_a_genus_past_its_state_guard_says_which_heaps_fit():
    from explorer.errors import MisereSequenceTooLargeError

    with pytest.raises(MisereSequenceTooLargeError, match=r"heaps 0\.\.(\d+) fit: try --upto \1"):
        genus_sequence(load_game("kayles"), 30, max_states=2_000)
