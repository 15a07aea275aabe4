"""Migrations: an empty database upgrades to head with no drift from the models, the scripts
are found, and a database from a newer explorer is refused with nothing changed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from explorer import open_database
from explorer.storage import SchemaTooNewError
from explorer.storage.backends.engine import resolve_url
from explorer.storage.schema.migrations import alembic_config, head_revision, migrations_path
from explorer.storage.schema.models import Base
from tests.support.cli import run, run_json
from tests.support.environment import DATA
from tests.support.storage import dump


def test_migrations_are_found_and_form_one_line_of_revisions():
    path = migrations_path()
    assert (path / "env.py").is_file() and (path / "versions").is_dir()
    script = ScriptDirectory.from_config(alembic_config())
    assert script.get_heads() == [head_revision()]


def test_empty_database_upgrades_to_head_with_no_drift(db_url):
    with open_database(db_url) as db:
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
                head_revision()
            )
            tables = set(sa.inspect(conn).get_table_names())
            views = set(sa.inspect(conn).get_view_names())
        assert {t.name for t in Base.metadata.sorted_tables} <= tables
        assert {"state_values", "moves", "edges", "edges_in"} <= views
        with db.engine.begin() as conn:
            command.check(alembic_config(conn))  # raises when models and migrations differ


def test_downgrade_to_nothing_and_upgrade_again(db_url):
    with open_database(db_url) as db:
        with db.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "base")
        with db.engine.connect() as conn:
            assert set(sa.inspect(conn).get_table_names()) <= {"alembic_version"}
    with open_database(db_url) as db:
        assert db.game("nim").build("1,2").states_new == 5


def _make_newer(url: str) -> None:
    engine = sa.create_engine(resolve_url(url))
    with engine.begin() as conn:
        conn.exec_driver_sql("UPDATE alembic_version SET version_num = 'f00dfacade99'")
    engine.dispose()


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.glob(path.name + "*"))}


def test_a_newer_schema_is_refused_and_the_sqlite_file_left_byte_for_byte(tmp_path):
    path = tmp_path / "games.db"
    run_json("build", "nim", "2,3", "--db", str(path))
    _make_newer(str(path))
    with sqlite3.connect(path) as conn:  # a plain checkpoint, as another program would leave it
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = _files(path)
    for args in (["build", "nim", "3,3"], ["query", "nim", "2,3"], ["stats"]):
        code, out, err = run(*args, "--db", str(path))
        assert code == 1 and out == ""
        assert err.count("\n") == 1
        assert "has schema revision 'f00dfacade99', which this explorer does not know" in err
        assert "upgrade explorer" in err
    with pytest.raises(SchemaTooNewError):
        open_database(str(path))
    assert _files(path) == before


@pytest.mark.postgres
def test_a_newer_schema_is_refused_on_postgresql_with_nothing_changed(pg_url):
    db_url = pg_url
    run_json("build", "nim", "2,3", "--db", db_url)
    _make_newer(db_url)
    before = dump(db_url, "nim")
    code, _, err = run("build", "nim", "3,3", "--db", db_url)
    assert code == 1 and "which this explorer does not know" in err
    assert dump(db_url, "nim") == before
    engine = sa.create_engine(resolve_url(db_url))
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
            "f00dfacade99"
        )
    engine.dispose()


#: The columns of ``states`` since 0003 (0014 adds the packed moves, read through ``edges``).
STATE_COLUMNS = (
    "game_id, id, key, depth, expanded, grundy, outcome, remoteness, height, build_id, "
    "value_build_id, escapes"
)


def _every_row(conn: sa.Connection) -> dict[str, list[tuple]]:
    """Every row of states and edges (all columns) and of the two views, in a fixed order."""
    queries = {
        "states": f"SELECT {STATE_COLUMNS} FROM states ORDER BY game_id, id",
        "edges": "SELECT * FROM edges ORDER BY game_id, src, dst",
        "state_values": "SELECT * FROM state_values ORDER BY game_id, state_id",
        "moves": "SELECT * FROM moves ORDER BY game, convention, position, move_to",
    }
    return {name: [tuple(r) for r in conn.exec_driver_sql(sql)] for name, sql in queries.items()}


#: The CHECK on states.outcome as each database shows it: 0003's IN list, 0007's comparisons.
OUTCOME_CHECKS = {
    "sqlite": (
        "CHECK (outcome IN ('P', 'N', 'D'))",
        "CHECK (outcome = 'P' OR outcome = 'N' OR outcome = 'D')",
    ),
    "postgresql": (
        "CHECK (((outcome)::text = ANY ((ARRAY['P'::character varying, "
        "'N'::character varying, 'D'::character varying])::text[])))",
        "CHECK ((((outcome)::text = 'P'::text) OR ((outcome)::text = 'N'::text) "
        "OR ((outcome)::text = 'D'::text)))",
    ),
}


def _outcome_check(conn: sa.Connection) -> str:
    """The CHECK on states.outcome: ``old`` (an IN list) or ``new`` (comparisons)."""
    old, new = OUTCOME_CHECKS[conn.dialect.name]
    if conn.dialect.name == "sqlite":
        sql = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'states'").scalar()
        assert sql is not None and "WITHOUT ROWID" in sql
        found = [name for name, text in (("old", old), ("new", new)) if text in sql]
        assert len(found) == 1, sql
        return found[0]
    text = conn.exec_driver_sql(
        "SELECT pg_get_constraintdef(c.oid) FROM pg_constraint AS c "
        "JOIN pg_namespace AS n ON n.oid = c.connamespace "
        "WHERE n.nspname = current_schema() AND c.conname = 'ck_states_outcome'"
    ).scalar_one()
    assert text in (old, new), text
    return "old" if text == old else "new"


def _key_rule(conn: sa.Connection) -> str:
    """What keeps a state's key unique: a ``constraint`` (0001-0008) or an ``index`` (0009)."""
    if conn.dialect.name == "sqlite":
        sql = conn.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'states'").scalar()
        constraint = 'CONSTRAINT uq_states_game_id_key UNIQUE (game_id, "key")' in str(sql)
        index = conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE name = 'ix_states_game_id_key'"
        ).scalar()
    else:
        constraint = bool(
            conn.exec_driver_sql(
                "SELECT COUNT(*) FROM pg_constraint AS c JOIN pg_namespace AS n "
                "ON n.oid = c.connamespace WHERE n.nspname = current_schema() "
                "AND c.conname = 'uq_states_game_id_key'"
            ).scalar()
        )
        index = conn.exec_driver_sql(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema() "
            "AND indexname = 'ix_states_game_id_key'"
        ).scalar()
    assert constraint != (index is not None), (constraint, index)
    if index is not None:
        assert "UNIQUE" in index.upper(), index
    return "constraint" if constraint else "index"


def test_a_schema_0006_database_keeps_every_row_and_checks_outcomes_by_comparisons(db_url):
    """0007 writes the outcome CHECK as comparisons (an IN list of three costs SQLite a lookup
    table per row written), and 0009 keeps keys unique by an index rather than a constraint: a
    database with P, N and D outcomes, ∞ values and a misère game upgrades with every row and
    view row kept, the constraint still refuses a bad outcome and the index a second key."""
    run_json("build", "nim", "3,4,5", "--db", db_url)
    run_json("build", "kayles", "8", "--misere", "--db", db_url)
    loopy = run_json("import", f"graph:{DATA / 'loopy.json'}", "--db", db_url)["game"]
    with open_database(db_url) as db, db.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0006")
    engine = sa.create_engine(resolve_url(db_url))
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0006"
        assert _outcome_check(conn) == "old" and _key_rule(conn) == "constraint"
        before = _every_row(conn)
    engine.dispose()
    assert {r[6] for r in before["states"]} == {"P", "N", "D"}
    assert any(r[11] is not None for r in before["states"])  # an ∞ value's escapes
    assert len(before["moves"]) == len(before["edges"]) > 0

    with open_database(db_url) as db:  # opening it upgrades it
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
                head_revision()
            )
            assert _every_row(conn) == before
            assert _outcome_check(conn) == "new" and _key_rule(conn) == "index"
        with db.engine.begin() as conn:
            command.check(alembic_config(conn))  # the models match the migrations
        for bad in ("X", "p", ""):
            with pytest.raises(sa.exc.IntegrityError), db.engine.begin() as conn:
                conn.exec_driver_sql(f"UPDATE states SET outcome = '{bad}' WHERE id = 0")
        with pytest.raises(sa.exc.IntegrityError), db.engine.begin() as conn:  # still unique
            conn.exec_driver_sql(
                "INSERT INTO states (game_id, id, key, depth, expanded, build_id) "
                "SELECT game_id, 999999, key, depth, expanded, build_id FROM states WHERE id = 0"
            )
    assert run_json("verify", "--db", db_url)["ok"]
    assert run_json("query", loopy, "--outcome", "D", "--db", db_url)["total"] == 2
    with open_database(db_url) as db, db.engine.begin() as conn:  # and back again
        command.downgrade(alembic_config(conn), "0006")
        assert _outcome_check(conn) == "old" and _every_row(conn) == before
        assert _key_rule(conn) == "constraint"


def _state_references(conn: sa.Connection) -> list[str]:
    """The foreign keys of ``states`` (the columns that refer), sorted."""
    return sorted(
        column
        for key in sa.inspect(conn).get_foreign_keys("states")
        for column in key["constrained_columns"]
    )


def _fill_factor(conn: sa.Connection) -> int:
    """PostgreSQL's fill factor of ``states`` pages (100 unless set)."""
    options = conn.exec_driver_sql(
        "SELECT c.reloptions FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
        "WHERE n.nspname = current_schema() AND c.relname = 'states'"
    ).scalar()
    found = [o.split("=")[1] for o in options or [] if o.startswith("fillfactor=")]
    return int(found[0]) if found else 100


def test_a_schema_0009_database_keeps_every_row_when_states_lose_their_foreign_keys(db_url):
    """0010 drops the three foreign keys of ``states`` (each a lookup per state written on
    PostgreSQL) and fills PostgreSQL's ``states`` pages to half: a database with P, N and D
    outcomes, ∞ values and a misère game upgrades with every row and view row kept, the key
    index still refuses a second key, builds and verify still work, and it goes back again."""
    run_json("build", "nim", "3,4,5", "--db", db_url)
    run_json("build", "kayles", "8", "--misere", "--db", db_url)
    run_json("import", f"graph:{DATA / 'loopy.json'}", "--db", db_url)
    with open_database(db_url) as db, db.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0009")
    engine = sa.create_engine(resolve_url(db_url))
    postgres = engine.dialect.name == "postgresql"
    with engine.connect() as conn:
        assert _state_references(conn) == ["build_id", "game_id", "value_build_id"]
        assert not postgres or _fill_factor(conn) == 100
        before = _every_row(conn)
    engine.dispose()
    assert {r[6] for r in before["states"]} == {"P", "N", "D"}

    with open_database(db_url) as db:  # opening it upgrades it
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
                head_revision()
            )
            assert _every_row(conn) == before
            assert _state_references(conn) == [] and _key_rule(conn) == "index"
            assert not postgres or _fill_factor(conn) == 50
        with db.engine.begin() as conn:
            command.check(alembic_config(conn))  # the models match the migrations
        with pytest.raises(sa.exc.IntegrityError), db.engine.begin() as conn:  # still unique
            conn.exec_driver_sql(
                "INSERT INTO states (game_id, id, key, depth, expanded, build_id) "
                "SELECT game_id, 999999, key, depth, expanded, build_id FROM states WHERE id = 0"
            )
        # every pair p <= q of heaps with p <= 6 and q <= 7
        assert db.game("subtraction:1,2").build("6,7").states_new == sum(8 - p for p in range(7))
    assert run_json("verify", "--db", db_url)["ok"]
    with open_database(db_url) as db, db.engine.begin() as conn:  # and back again
        command.downgrade(alembic_config(conn), "0009")
        assert _state_references(conn) == ["build_id", "game_id", "value_build_id"]
        assert not postgres or _fill_factor(conn) == 100
        after = _every_row(conn)
    assert {k: [r for r in rows if r not in after[k]] for k, rows in before.items()} == {
        k: [] for k in before
    }


#: A database made by explorer at schema 0013 (commit 6eb9819, the last with a row a move):
#: nim 2,3,4 in both conventions, kayles 7, subtraction:1,2 6,6,6 on two workers,
#: graph:data/loopy.json from a, kayles 12 stopped at --max-states 20, dag:data/note003.json.
SCHEMA_0013 = Path(__file__).parent / "data" / "schema_0013.db"


def test_a_database_with_a_row_a_move_keeps_every_state_and_move_packed(tmp_path):
    """0014 packs each state's moves into its row both ways and makes ``edges`` a view: a
    file made by the commit before keeps every state, value and move, reads the same through
    ``edges``, ``edges_in`` and ``moves``, verifies, continues its stopped build as a fresh one
    does, and goes back to a row a move."""
    path = tmp_path / "old.db"
    path.write_bytes(SCHEMA_0013.read_bytes())
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0013",)
        assert conn.execute("SELECT type FROM sqlite_master WHERE name = 'edges'").fetchone() == (
            "table",
        )
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        before = _every_row(conn)
    engine.dispose()
    assert len(before["edges"]) == 643 and len(before["moves"]) == 643
    with open_database(str(path)) as db, db.engine.connect() as conn:
        assert _every_row(conn) == before
        into = conn.exec_driver_sql("SELECT * FROM edges_in ORDER BY game_id, src, dst").all()
        assert [tuple(r) for r in into] == before["edges"]
        widths = conn.exec_driver_sql("SELECT DISTINCT id_width FROM games").all()
        assert widths == [(2,)]  # offsets since 0015
        # no row a move is left: the moves are in the states' rows
        kind = conn.exec_driver_sql("SELECT type FROM sqlite_master WHERE name = 'edges'")
        assert kind.scalar() == "view"
    assert run_json("verify", "--db", str(path))["ok"]
    run_json("build", "kayles", "12", "--db", str(path))
    fresh = str(tmp_path / "fresh.db")
    run_json("build", "kayles", "7", "--db", fresh)  # as the file's was made: 7, then 12
    run_json("build", "kayles", "12", "--db", fresh)
    assert dump(str(path), "octal:0.77")["edges"] == dump(fresh, "octal:0.77")["edges"]
    assert run_json("verify", "--db", str(path))["ok"]
    with open_database(str(path)) as db, db.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0013")
    with sqlite3.connect(path) as conn:
        kind = conn.execute("SELECT type FROM sqlite_master WHERE name = 'edges'").fetchone()
        assert kind == ("table",)
        moves = conn.execute("SELECT game_id, src, dst FROM edges ORDER BY 1, 2, 3").fetchall()
    kayles = 3  # octal:0.77's id in the file: its moves now those of the finished build
    grown = [(kayles, a, b) for a, b in dump(fresh, "octal:0.77")["edges"]]
    assert moves == sorted([r for r in before["edges"] if r[0] != kayles] + grown)


#: The same games made by explorer at schema 0014 (commit 62ba4db, ids packed as themselves).
SCHEMA_0014 = Path(__file__).parent / "data" / "schema_0014.db"


def _packed_ids(path: Path, width: int) -> list[tuple[int, int, int]]:
    """Every move (game, src, dst) as the successors' columns of a file hold ids, `width`
    bytes each, read in Python: the ids themselves (schema 0014's way)."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT game_id, id, successors FROM states WHERE successors > ''")
        return sorted(
            (game, state, int.from_bytes(blob[i : i + width], "big"))
            for game, state, blob in rows
            for i in range(0, len(blob), width)
        )


def test_a_database_with_ids_packed_keeps_every_move_as_offsets(tmp_path):
    """0015 stores each packed id as its offset from the row's id: a file made by the commit
    before keeps every state, value and move, reads the same through the views, in 2 bytes an
    id where it took 3, verifies, continues its stopped build as a fresh one does, and goes
    back to ids that the code of schema 0014 reads."""
    path = tmp_path / "old.db"
    path.write_bytes(SCHEMA_0014.read_bytes())
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchone() == ("0014",)
        (before_bytes,) = conn.execute("SELECT SUM(length(successors)) FROM states").fetchone()
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.connect() as conn:
        before = _every_row(conn)
    engine.dispose()
    assert len(before["edges"]) == 643 and _packed_ids(path, 3) == before["edges"]
    with open_database(str(path)) as db, db.engine.connect() as conn:
        assert _every_row(conn) == before
        into = conn.exec_driver_sql("SELECT * FROM edges_in ORDER BY game_id, src, dst").all()
        assert [tuple(r) for r in into] == before["edges"]
        widths = conn.exec_driver_sql("SELECT DISTINCT id_width FROM games").all()
        assert widths == [(2,)]
        stored = conn.exec_driver_sql("SELECT SUM(length(successors)) FROM states").scalar()
        assert stored * 3 == before_bytes * 2
    assert run_json("verify", "--db", str(path))["ok"]
    run_json("build", "kayles", "12", "--db", str(path))
    fresh = str(tmp_path / "fresh.db")
    run_json("build", "kayles", "7", "--db", fresh)  # as the file's was made: 7, then 12
    run_json("build", "kayles", "12", "--db", fresh)
    assert dump(str(path), "octal:0.77")["edges"] == dump(fresh, "octal:0.77")["edges"]
    with open_database(str(path)) as db, db.engine.connect() as conn:
        after = _every_row(conn)["edges"]
    with open_database(str(path)) as db, db.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0014")
    assert _packed_ids(path, 3) == after
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT * FROM edges ORDER BY 1, 2, 3").fetchall() == after
