"""Migrations: an empty database upgrades to head with no drift from the models, the scripts
are found, and a database from a newer explorer is refused with nothing changed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.script import ScriptDirectory

from explorer.storage import SchemaTooNewError, open_database
from explorer.storage.engine import alembic_config, head_revision, migrations_path, resolve_url
from explorer.storage.models import Base
from tests.storage_support import dump, run, run_json

pytest_plugins = ["tests.storage_fixtures"]  # db_url, other_db_url, pg_url


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
        assert {"state_values", "moves"} <= views
        with db.engine.begin() as conn:
            command.check(alembic_config(conn))  # raises when models and migrations differ


def test_downgrade_to_nothing_and_upgrade_again(db_url):
    with open_database(db_url) as db:
        with db.engine.begin() as conn:
            command.downgrade(alembic_config(conn), "base")
        with db.engine.connect() as conn:
            assert set(sa.inspect(conn).get_table_names()) <= {"alembic_version"}
    with open_database(db_url) as db:
        assert db.build("nim", "1,2").states_new == 5


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
