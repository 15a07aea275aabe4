"""`Database.game` and `StoredGame`: one game of a database in one convention, its row looked
up once; `Convention` as the one name of the play convention. On SQLite and PostgreSQL."""

from __future__ import annotations

import inspect
import json
from functools import reduce
from operator import xor

import pytest

from explorer import Convention, load_game, open_database, solve
from explorer.analysis.patterns import analyse
from explorer.analysis.quotient import misere_quotient
from explorer.build import Database, StoredGame
from explorer.errors import NotStoredError, SpecError
from explorer.games import register_game
from explorer.games.base import Game
from explorer.games.convention import MISERE, NORMAL
from explorer.solver.incremental import Edit
from explorer.solver.sparse import fletcher32
from tests.support.bruteforce import heap_game_moves, mex_values, solve_by_definition

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
        "build", "building", "close", "game", "games", "import_graph", "verify", "version"
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
    assert (stats.convention, stats.states) == ("misere", len(brute))


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


class Countdown(Game):
    """`Game`'s docstring's minimal subclass, as a user writes it: no family, no spec."""

    def parse(self, text):
        return int(text)

    def format(self, position):
        return str(position)

    def successors(self, position):
        return [position - k for k in (1, 2) if k <= position]


def test_the_docstrings_minimal_game_stores_through_a_handle(db_url):
    countdown = Countdown()
    with open_database(db_url) as db:
        stored = db.game(countdown)
        report = stored.build("9")
        values = {int(s["position"]): s["grundy"] for s in stored.states(limit=100)["states"]}
        listed = db.games()
    moves = {n: [n - k for k in (1, 2) if k <= n] for n in range(10)}
    assert values == mex_values(9, moves.__getitem__)
    assert (report.outcome, report.states_new) == ("P", 10)
    assert listed[0]["game"] == "py:tests/test_stored_game.py:" + countdown.spec.split(":")[-1]
    assert countdown.family == "py" and Countdown.named_family() is None


def test_registering_a_class_without_a_family_names_what_is_missing():
    with pytest.raises(SpecError, match="bad family name None for Countdown"):
        register_game(Countdown)


def test_a_misere_handle_never_returns_or_writes_normal_play_findings(db_url, tmp_path):
    """Every public method of a misère handle: misère values, or a refusal that writes
    nothing; the normal-play build's patterns and quotient never leak into it."""
    found, values = analyse(load_game("nim"), 20)
    quotient = misere_quotient(load_game("nim"), 3)
    brute = solve_by_definition((1, 2), nim_moves, misere_rule)
    g_minus = {",".join(map(str, p)) or "0": g for p, g in brute.items()}
    refused = {
        "edit": lambda h: h.edit(Edit(remove_edges=(("1,2", "2"),))),
        "resolve": lambda h: h.resolve(),
        "sequence": lambda h: h.sequence(),
        "save_sequence": lambda h: h.save_sequence(
            values, len(values), checksum=fletcher32(values), method="table"
        ),
        "delete_sequence": lambda h: h.delete_sequence(),
        "patterns": lambda h: h.patterns(),
        "save_patterns": lambda h: h.save_patterns(found, values),
        "quotient": lambda h: h.quotient(),
        "save_quotient": lambda h: h.save_quotient(quotient),
    }
    answered = {
        "build": lambda h: h.build("1,2").outcome == "N",  # G⁻(1,2) = 3
        "state": lambda h: h.state("1,2")["grundy"] == g_minus["1,2"],
        "successors": lambda h: (
            {s["position"]: s["grundy"] for s in h.successors("1,2")["states"]}
            == {k: g_minus[k] for k in ("2", "1,1", "1")}
        ),
        "predecessors": lambda h: (
            {s["position"] for s in h.predecessors("1")["states"]} == {"1,2", "1,1", "2"}
        ),
        "states": lambda h: (
            {s["position"]: s["grundy"] for s in h.states(limit=99)["states"]} == g_minus
        ),
        "stats": lambda h: (
            (h.stats().convention, h.stats().patterns) == (MISERE, ())
            and h.stats().quotient is None
            and {"patterns", "quotient"}.isdisjoint(h.stats().to_dict())
        ),
        "best_moves": lambda h: h.best_moves("1,1")["states"][0]["grundy"] == g_minus["1"],
        "lookup": lambda h: (
            {k: v["grundy"] for k, v in h.lookup(["1,1", "0"]).items()}
            == {"1,1": g_minus["1,1"], "0": g_minus["0"]}
        ),
        "first_illegal_move": lambda h: h.first_illegal_move(["1,2", "1,1", "2"]) == 2,
        "nearby": lambda h: h.nearby("1,2").nodes["1,2"]["grundy"] == g_minus["1,2"],
        "neighbourhood": lambda h: h.neighbourhood("1,2", 1).graph["convention"] == MISERE,
        "subgraph": lambda h: {n: d["grundy"] for n, d in h.subgraph().nodes(data=True)} == g_minus,
        "export": lambda h: h.export(tmp_path / "m.json").states == len(g_minus),
        "verify": lambda h: h.verify().ok,
        "row": lambda h: (h.row().convention, h.row().spec) == (MISERE, "nim"),
        "move_words": lambda h: h.move_words(["1,2", "1,1"]) == ["take 1 from 2"],
    }
    public = {
        name
        for name, member in inspect.getmembers(StoredGame)
        if not name.startswith("_") and callable(member)
    }
    assert public == set(refused) | set(answered)  # a new method is asked here too
    with open_database(db_url) as db:
        normal = db.game("nim")
        normal.build("1,2")
        normal.save_patterns(found, values)
        normal.save_quotient(quotient)
        kept = normal.patterns(), normal.quotient(), normal.stats().states
        misere = db.game("nim", MISERE)
        for name, ask in answered.items():
            assert ask(misere), name
        for call in refused.values():
            with pytest.raises(SpecError, match="normal-play build, not of its misère build"):
                call(misere)
        assert (normal.patterns(), normal.quotient(), normal.stats().states) == kept
        stats = normal.stats()
        assert stats.patterns and stats.quotient is not None and stats.quotient == normal.quotient()
