"""`Database.game` and `StoredGame`: one game of a database in one convention, its row looked
up once; `Convention` as the one name of the play convention. On SQLite and PostgreSQL."""

from __future__ import annotations

import inspect
import json
from functools import reduce
from operator import xor

import pytest

from explorer import Convention, load_game, solve
from explorer.errors import NotStoredError, SpecError
from explorer.games.convention import MISERE, NORMAL
from explorer.storage import Database, StoredGame, open_database
from tests.support.bruteforce import heap_game_moves, solve_by_definition

# Nim again, from GAMES.md: take any number from one heap.
nim_moves = heap_game_moves(lambda h: ((k,) for k in range(h)))


def misere_rule(options: list[int]) -> int:
    """G⁻: 1 at the end (the player to move has no move and wins), else the mex."""
    if not options:
        return 1
    return min(set(range(len(options) + 1)) - set(options))


def test_the_database_keeps_only_what_concerns_the_whole_file():
    public = sorted(
        name
        for name, member in inspect.getmembers(Database)
        if not name.startswith("_") and callable(member)
    )
    assert public == [
        "building", "close", "game", "games", "import_graph", "verify", "version"
    ]  # fmt: skip
    assert len(public) <= 8


def test_a_handle_reads_what_it_built_and_matches_the_xor_of_the_heaps(db_url):
    with open_database(db_url) as db:
        nim = db.game("nim")
        report = nim.build("2,3,4")
        listed = nim.states(limit=1_000)
        by_rules = db.game(load_game("nim"))  # the rules instead of the spec: the same game
        for state in listed["states"]:
            heaps = [int(h) for h in state["position"].split(",")]
            assert state["grundy"] == reduce(xor, heaps, 0), state
            assert by_rules.state(state["position"], moves=0)["grundy"] == state["grundy"]
    assert report.states_new == listed["total"] == 28  # 3 * 4 * 5 heaps, sorted: 28 positions
    assert (listed["game"], listed["convention"]) == ("nim", "normal")


def test_a_handle_made_before_the_game_is_stored_reads_it_once_built(db_url):
    with open_database(db_url) as db:
        early = db.game("nim", MISERE)
        with pytest.raises(NotStoredError, match="misère game 'nim' is not stored"):
            early.stats()
        db.game("nim", "misere").build("1,2")
        stats = early.stats()
        values = {s["position"]: s["grundy"] for s in early.states(limit=100)["states"]}
    brute = solve_by_definition((1, 2), nim_moves, misere_rule)
    assert values == {",".join(map(str, p)) or "0": g for p, g in brute.items()}
    assert (stats["convention"], stats["states"]) == ("misere", len(brute))


def test_re_solves_and_sequences_refuse_a_misere_build(db_url):
    with open_database(db_url) as db:
        misere = db.game("nim", MISERE)
        misere.build("1,2")
        for call in (misere.resolve, misere.sequence):
            with pytest.raises(SpecError) as error:
                call()
            assert str(error.value).endswith(
                "are of a game's normal-play build, not of its misère build: use db.game('nim')"
            )
        assert [g["convention"] for g in db.games()] == ["misere"]  # nothing else written


def test_a_handle_says_which_game_and_convention_it_names():
    with open_database("sqlite://") as db:
        handle = db.game("kayles", "misere")
        assert isinstance(handle, StoredGame)
        assert repr(handle) == "open_database('sqlite://').game('kayles', 'misere')"
        assert (handle.spec, handle.convention) == ("kayles", MISERE)
        with pytest.raises(SpecError) as error:
            db.game("kayles", "loser")
        assert str(error.value) == "unknown convention 'loser' (use normal or misere)"


def test_a_convention_is_its_text():
    assert [str(c) for c in Convention] == ["normal", "misere"]
    assert json.dumps([NORMAL, MISERE]) == '["normal", "misere"]'
    assert Convention("misere") is MISERE and Convention.of(False) is NORMAL
    nim = load_game("nim")
    # 1,1,1: whoever takes the last of three single heaps moves last, and loses in misère play
    assert solve(nim, nim.parse("1,1,1"), convention=MISERE).outcome == "P"
    assert solve(nim, nim.parse("1,1,1")).outcome == "N"
