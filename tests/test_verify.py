"""`explorer verify`: fresh, stopped and killed builds pass on SQLite and PostgreSQL; a value
changed by hand, a removed or added move, and a damaged page of the file are each caught."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys

import pytest
import sqlalchemy as sa

from explorer.storage.backends.engine import resolve_url
from tests.support.cli import run
from tests.support.environment import REPO
from tests.support.storage import change_move

NOTE003 = str(REPO / "data" / "note003.json")


def sql(url: str, statement: str, **params: object) -> None:
    """Change the database behind explorer's back, as a user with a SQL shell could."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(statement), params)
    finally:
        engine.dispose()


def state_id(url: str, spec: str, key: str) -> int:
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    sa.text(
                        "SELECT s.id FROM states AS s JOIN games AS g ON g.id = s.game_id "
                        "WHERE g.spec = :spec AND s.key = :key"
                    ),
                    {"spec": spec, "key": key},
                ).scalar_one()
            )
    finally:
        engine.dispose()


def verify(url: str, *args: str) -> tuple[int, dict, str]:
    import json

    code, out, err = run("verify", *args, "--db", url, "--json")
    return code, json.loads(out), err


def test_fresh_builds_of_every_kind_verify(db_url):
    assert run("build", "nim", "3,4,5", "--db", db_url)[0] == 0
    assert run("build", "kayles", "12,7", "--db", db_url)[0] == 0
    assert run("build", "nim + wythoff", "2,3 + 2,3", "--db", db_url)[0] == 0
    assert run("build", "chomp", "3x4", "--db", db_url)[0] == 0
    # a stopped build: unsolved states and an unexpanded frontier are consistent too
    assert (
        run("build", "subtraction:1,2", "30,31,32", "--max-states", "500", "--db", db_url)[0] == 0
    )
    assert run("import", NOTE003, "--db", db_url)[0] == 0
    assert run("edit", f"dag:{NOTE003}", "--add-edge", "c", "t3", "--db", db_url)[0] == 0
    code, result, err = verify(db_url)
    assert code == 0, (result, err)
    assert result["ok"] and result["problems"] == 0 and result["mismatches"] == []
    games = {g["game"]: g for g in result["games"]}
    assert games["nim"]["states"] == 48 and games["nim"]["edges"] == 262
    assert games["nim"]["rules"] == "moves checked against the rules"
    assert games[f"dag:{NOTE003}"]["rules"].startswith("moves not checked")
    assert games["subtraction:1,2"]["states"] >= 500
    if "://" in db_url:
        assert result["integrity"].startswith("skipped")
    else:
        assert result["integrity"] == "ok"
    code, out, _ = run("verify", "nim", "--db", db_url)
    assert code == 0
    assert "nim: 48 states, 262 moves (moves checked against the rules): ok" in out


def test_a_value_changed_by_hand_is_caught(db_url):
    run("build", "nim", "3,4,5", "--db", db_url)
    sql(db_url, "UPDATE states SET grundy = 5 WHERE key = '1,2'")
    code, result, err = verify(db_url, "nim", "--show", "1000")
    assert code == 1
    # 7 values, and the grundy histogram's counts of 3 and 5 (the counts were not changed)
    assert err == "Error: 9 problems found in " + result["database"] + "\n"
    assert result["kinds"]["grundy"]["problems"] == 7
    assert result["kinds"]["counts"] == {
        "problems": 2,
        "first": ["nim count grundy=3", "nim count grundy=5"],
    }
    assert {
        "game": "nim",
        "position": "1,2",
        "check": "grundy",
        "detail": "stored 5, the mex of its successors is 3",
        "convention": "normal",
    } in result["mismatches"]
    # and its predecessors, whose mex now sees a 5 instead of a 3
    assert all(m["check"] in ("grundy", "counts") for m in result["mismatches"])


def test_a_remoteness_or_outcome_changed_by_hand_is_caught(db_url):
    run("build", "nim", "3,4,5", "--db", db_url)
    sql(db_url, "UPDATE states SET remoteness = 9, outcome = 'P' WHERE key = '3,4,5'")
    code, result, _ = verify(db_url)
    assert code == 1
    checks = {(m["position"], m["check"]) for m in result["mismatches"] if m["check"] != "counts"}
    assert checks == {("3,4,5", "outcome"), ("3,4,5", "remoteness")}


def test_a_removed_move_is_caught(db_url):
    run("build", "kayles", "9", "--db", db_url)
    src, dst = state_id(db_url, "octal:0.77", "9"), state_id(db_url, "octal:0.77", "8")
    change_move(db_url, 1, src, dst, add=False)
    code, result, _ = verify(db_url)
    assert code == 1
    assert result["mismatches"][0] == {
        "game": "octal:0.77",
        "position": "9",
        "check": "moves",
        "detail": "the move to '8' is missing",
        "convention": "normal",
    }


def test_a_move_added_by_hand_is_caught(db_url):
    run("build", "nim", "1,2", "--db", db_url)
    src, dst = state_id(db_url, "nim", "1"), state_id(db_url, "nim", "2")
    change_move(db_url, 1, src, dst, add=True)
    code, result, _ = verify(db_url, "--show", "100")
    assert code == 1
    assert {
        "game": "nim",
        "position": "1",
        "check": "moves",
        "detail": "a move to '2', which the rules do not allow",
        "convention": "normal",
    } in result["mismatches"]
    # a move into a state not stored at all
    change_move(db_url, 1, src, 999, add=True)
    code, result, _ = verify(db_url, "--show", "100")
    assert {
        "game": "nim",
        "position": "1",
        "check": "moves",
        "detail": "a move to state id 999, which is not stored",
        "convention": "normal",
    } in result["mismatches"]


def test_moves_into_states_that_are_not_the_moves_from_states_are_caught(db_url):
    """Each state's predecessors must be the successors read backwards: a row that lost them
    fails, though every move from a state still matches the rules (and its depth, which
    needs a predecessor one move nearer the start, fails with it)."""
    run("build", "nim", "1,2", "--db", db_url)
    sql(db_url, "UPDATE states SET predecessors = NULL WHERE key = '0'")
    code, result, _ = verify(db_url)
    assert code == 1
    assert [(m["check"], m["position"]) for m in result["mismatches"]] == [
        ("moves", "moves into states"),
        ("depth", "0"),
    ]
    assert "not the 7 of the successors' read backwards" in result["mismatches"][0]["detail"]


def test_an_unknown_game_is_one_error_line(db_url):
    run("build", "nim", "1,2", "--db", db_url)
    code, out, err = run("verify", "kayles", "--db", db_url)
    assert code == 1 and out == ""
    assert err.startswith("Error: game 'octal:0.77' is not stored in ")


@pytest.mark.slow  # a database damaged page by page
def test_a_damaged_page_is_caught(tmp_path):
    path = tmp_path / "games.db"
    assert run("build", "kayles", "30", "--db", str(path))[0] == 0
    assert run("verify", "--db", str(path))[0] == 0
    with sqlite3.connect(path) as conn:  # everything into the main file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    assert pages > 100
    with path.open("r+b") as file:  # the header of a page in the middle of the file
        file.seek((pages // 2) * size)
        file.write(b"\xff" * 64)
    code, out, err = run("verify", "--db", str(path))
    assert code == 1
    assert "integrity  failed" in out
    assert err.startswith("Error: ")


@pytest.mark.slow  # kill -9 of a build
def test_a_database_left_by_sigkill_verifies(db_url):
    builder = (
        "import sys\n"
        "from explorer import open_database\n"
        "db = open_database(sys.argv[1])\n"
        "db.game('kayles').build(\n"
        "    '4,6,7,9', batch_states=40, progress=lambda p: print(1, flush=True)\n"
        ")\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", builder, db_url], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    for seen, _ in enumerate(process.stdout):
        if seen == 5:
            break
    process.send_signal(signal.SIGKILL)
    process.wait()
    code, result, _ = verify(db_url)
    assert code == 0, result
    assert 0 < result["games"][0]["states"]


@pytest.mark.parametrize("chunk", [1, 7, 1000])
def test_chunk_boundaries_do_not_matter(tmp_path, chunk):
    from explorer import open_database
    from explorer.build.verify import verify_database

    with open_database(str(tmp_path / "g.db")) as db:
        db.game("kayles").build("11")
        assert verify_database(db.engine, chunk=chunk).ok
        engine = db.engine
        with engine.begin() as conn:
            conn.exec_driver_sql("UPDATE states SET height = 0 WHERE key = '11'")
        result = verify_database(db.engine, chunk=chunk)
        found = [(m.position, m.check) for m in result.mismatches if m.check != "counts"]
        assert found == [("11", "height")]
