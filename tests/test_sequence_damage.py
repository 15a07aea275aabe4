"""Stored sequences are checked as they are read: damaged values are refused in one line, never
used or extended, and `verify` names the damage (a sound database passes)."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.cli import run

#: Three chunks of 65,536 values (the last one short) of Grundy's game, and Kayles' 168 values.
GRUNDY_UPTO = 140_000


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sequences") / "sound.db"
    assert run("sequence", "grundy", "--upto", str(GRUNDY_UPTO), "--db", str(path))[0] == 0
    assert run("sequence", "kayles", "--upto", "1000", "--db", str(path))[0] == 0
    return path


def rows(path: Path) -> list[object]:
    """Every row of the sequence tables, to compare before and after."""
    with sqlite3.connect(path) as conn:
        return [
            *conn.execute("SELECT * FROM sequences ORDER BY id"),
            *conn.execute(
                "SELECT sequence_id, chunk, CAST(data AS BLOB), typeof(data) "
                "FROM sequence_chunks ORDER BY sequence_id, chunk"
            ),
        ]


def grundy_id(conn: sqlite3.Connection) -> int:
    return conn.execute(
        "SELECT s.id FROM sequences s JOIN games g ON g.id = s.game_id WHERE g.spec = 'grundy'"
    ).fetchone()[0]


def flip_a_byte(conn: sqlite3.Connection) -> None:
    sid = grundy_id(conn)
    where = f"WHERE sequence_id = {sid} AND chunk = 1"
    data = bytearray(conn.execute(f"SELECT data FROM sequence_chunks {where}").fetchone()[0])
    data[1000] ^= 1
    conn.execute(f"UPDATE sequence_chunks SET data = ? {where}", (bytes(data),))


def chunks(conn: sqlite3.Connection, sql: str) -> None:
    """Run `sql` on the chunks of Grundy's game's sequence alone (`{g}`: its id)."""
    conn.executescript(sql.format(g=f"sequence_id = {grundy_id(conn)}"))


DAMAGE: dict[str, tuple[str, Callable[[sqlite3.Connection], object]]] = {
    "changed bytes": ("Fletcher-32", flip_a_byte),
    "truncated by half": (
        "chunk 1 holds 65,536 bytes, expected 131,072",
        lambda c: chunks(
            c,
            "UPDATE sequence_chunks SET data = substr(data, 1, length(data) / 2) "
            "WHERE {g} AND chunk = 1",
        ),
    ),
    "deleted last chunk": (
        "it claims 140,001 values but its chunks hold 131,072",
        lambda c: chunks(c, "DELETE FROM sequence_chunks WHERE {g} AND chunk = 2"),
    ),
    "deleted chunk": (
        "chunk 1 is missing",
        lambda c: chunks(c, "DELETE FROM sequence_chunks WHERE {g} AND chunk = 1"),
    ),
    "swapped chunks": (
        "Fletcher-32",
        lambda c: chunks(
            c,
            "UPDATE sequence_chunks SET chunk = 99 WHERE {g} AND chunk = 0;"
            "UPDATE sequence_chunks SET chunk = 0 WHERE {g} AND chunk = 1;"
            "UPDATE sequence_chunks SET chunk = 1 WHERE {g} AND chunk = 99;",
        ),
    ),
    "computed past the chunks": (
        "chunk 2 holds 17,858 bytes, expected 131,072",
        lambda c: c.execute(f"UPDATE sequences SET computed = 200000 WHERE id = {grundy_id(c)}"),
    ),
    "odd length": (
        "chunk 2 holds 17,859 bytes, expected 17,858",
        lambda c: chunks(
            c,
            "UPDATE sequence_chunks SET data = CAST(data || x'00' AS BLOB) WHERE {g} AND chunk = 2",
        ),
    ),
    "chunk as text": (
        "chunk 0 holds 6 bytes, expected 131,072",
        lambda c: chunks(c, "UPDATE sequence_chunks SET data = 'forged' WHERE {g} AND chunk = 0"),
    ),
    "text that is not UTF-8": (
        "chunk 2 holds 2 bytes, expected 17,858",
        lambda c: chunks(
            c, "UPDATE sequence_chunks SET data = CAST(x'ff00' AS TEXT) WHERE {g} AND chunk = 2"
        ),
    ),
    "negative computed": (
        "it claims -5 values",
        lambda c: c.execute(f"UPDATE sequences SET computed = -5 WHERE id = {grundy_id(c)}"),
    ),
    "computed 10**15": (
        "chunk 2 holds 17,858 bytes, expected 131,072",
        lambda c: c.execute(f"UPDATE sequences SET computed = {10**15} WHERE id = {grundy_id(c)}"),
    ),
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_sequence_is_refused_in_one_line_and_verify_names_it(sound, tmp_path, kind):
    path = tmp_path / "damaged.db"
    shutil.copy(sound, path)
    detail, damage = DAMAGE[kind]
    with sqlite3.connect(path) as conn:
        damage(conn)
    before = rows(path)
    code, out, err = run("sequence", "grundy", "--upto", "150000", "--db", str(path))
    assert code == 1 and out == ""
    assert err.startswith("Error: the stored sequence of grundy is damaged (") and detail in err
    assert err.count("\n") == 1 and "'explorer verify' lists the damage" in err
    assert rows(path) == before  # nothing was used, extended or written back
    code, out, _ = run("verify", "--db", str(path), "--json")
    assert code == 1, out
    assert detail in out and '"check": "sequence"' in out
    # a rebuild computes it again, and then all is well
    assert run("sequence", "grundy", "--upto", "1000", "--rebuild", "--db", str(path))[0] == 0
    code, out, err = run("verify", "--db", str(path))
    assert code == 0, out + err


def test_a_forged_kayles_value_is_not_extended_into_a_false_period(sound, tmp_path):
    # one changed value made `sequence` prove "period 204, preperiod 101" and store it
    path = tmp_path / "forged.db"
    shutil.copy(sound, path)
    with sqlite3.connect(path) as conn:
        (sid,) = conn.execute(
            "SELECT s.id FROM sequences s JOIN games g ON g.id = s.game_id "
            "WHERE g.spec = 'octal:0.77'"
        ).fetchone()
        data = bytearray(
            conn.execute(f"SELECT data FROM sequence_chunks WHERE sequence_id = {sid}").fetchone()[
                0
            ]
        )
        data[2 * 100] = 9
        conn.execute(f"UPDATE sequence_chunks SET data = ? WHERE sequence_id = {sid}", (data,))
    before = rows(path)
    code, _, err = run(
        "sequence", "kayles", "--until-periodic", "--upto", "5000", "--db", str(path)
    )
    assert code == 1 and "the stored sequence of octal:0.77 is damaged" in err
    assert rows(path) == before


def test_a_sound_database_verifies_and_its_sequences_read_back(sound):
    assert run("verify", "--db", str(sound))[0] == 0
    code, out, _ = run("sequence", "kayles", "--upto", "20", "--db", str(sound))
    assert code == 0 and "Fletcher-32 " in out
