"""A large build drops the unique key index while it writes and creates it again at its end:
the rows stored are those of a build that kept it, keys stay unique, and a build stopped by
Ctrl-C or an error leaves the index in place (a killed one: `tests.test_storage_kill`)."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from explorer import open_database
from explorer.build import plans as build_plans
from explorer.storage.backends import dialects
from explorer.storage.backends.dialects import SORT_PRAGMAS
from explorer.storage.backends.engine import resolve_url, writing
from explorer.storage.rows.records import drop_key_index, ensure_key_index, key_index_present
from explorer.storage.tables import states
from tests.support.cli import run_json
from tests.support.storage import dump, has_key_index

SPEC, POSITION = "subtraction:1,2", "6,7,8,9"


@pytest.mark.slow  # two large builds
@pytest.mark.parametrize("overlap", [False, True])
def test_a_build_without_the_index_stores_the_rows_of_one_with_it_and_keys_stay_unique(
    db_url, other_db_url, monkeypatch, overlap
):
    """With `overlap`, the index is created while the last batch is solved, as in builds of
    `build_plans.OVERLAP_INDEX_AT` states or more; otherwise in the build's last transaction."""
    if overlap:
        monkeypatch.setattr(build_plans, "OVERLAP_INDEX_AT", 0)
    run_json("build", "nim", "5,6,7", "--db", db_url)  # another game, stored before
    seen: list[bool] = []
    with open_database(db_url) as db:
        report = db.game(SPEC).build(
            POSITION,
            batch_states=20,
            defer_key_index_at=1,
            progress=lambda _: seen.append(has_key_index(db_url)),
        )
    assert report.status == "complete"
    # kept while the build had written fewer states than the database held, then dropped,
    # and created again: with the last states, before their values were written (overlap),
    # or after the last batch
    shown = "".join("k" if kept else "-" for kept in seen)
    assert re.fullmatch(r"k+-+kk" if overlap else r"k+-+", shown), shown
    assert has_key_index(db_url)
    run_json("build", SPEC, POSITION, "--db", other_db_url)
    assert dump(db_url, SPEC) == dump(other_db_url, SPEC)
    assert run_json("verify", "--db", db_url)["ok"]
    engine = sa.create_engine(resolve_url(db_url))
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO states (game_id, id, key, depth, expanded, build_id) "
            "SELECT game_id, 999999, key, depth, expanded, build_id FROM states WHERE id = 3"
        )
    engine.dispose()


def test_a_small_build_keeps_the_index(db_url):
    seen: list[bool] = []
    with open_database(db_url) as db:
        db.game(SPEC).build(POSITION, batch_states=20, progress=lambda _: seen.append(True))
        assert has_key_index(db_url)
        db.game(SPEC).build(
            "9,9,9,9",
            batch_states=20,
            defer_key_index_at=10**6,
            progress=lambda _: seen.append(has_key_index(db_url)),
        )
    assert len(seen) > 4 and all(seen)


@pytest.mark.parametrize("stop", [KeyboardInterrupt, RuntimeError])
def test_a_build_stopped_after_dropping_the_index_creates_it_again(db_url, stop):
    def stop_at_third(progress):
        if progress.states_new > 60:
            raise stop("stopped")

    with open_database(db_url) as db:
        with pytest.raises(stop):
            db.game(SPEC).build(
                POSITION, batch_states=20, defer_key_index_at=1, progress=stop_at_third
            )
    assert has_key_index(db_url)
    builds = run_json("stats", SPEC, "--db", db_url)["builds"]
    assert [b["status"] for b in builds] == [
        "interrupted" if stop is KeyboardInterrupt else "failed"
    ]


def test_creating_the_index_gives_the_connection_its_own_settings_back(tmp_path):
    """`ensure_key_index` sorts with SQLite's small default cache and worker threads; the
    pooled connection that later writers get keeps the cache it was opened with."""
    with open_database(str(tmp_path / "x.db")) as db:
        db.game(SPEC).build(POSITION)
        with writing(db.engine) as conn:
            settings = [conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in SORT_PRAGMAS]
            drop_key_index(conn)
        with writing(db.engine) as conn:
            assert ensure_key_index(conn)
        with writing(db.engine) as conn:
            after = [conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in SORT_PRAGMAS]
            assert key_index_present(conn)
    assert after == settings
    assert settings[1] != dialects.SORT_CACHE
    assert settings[2] != dialects.SORT_TEMP_STORE  # in memory, but for the sort


def _plan(conn: sa.Connection, statement: sa.TextClause, params: dict[str, object]) -> str:
    """The plan of a statement as its backend's EXPLAIN says it, in one line."""
    sqlite = conn.dialect.name == "sqlite"
    explain = "EXPLAIN QUERY PLAN " if sqlite else "EXPLAIN "
    rows = conn.execute(sa.text(explain + str(statement)), params)
    return " | ".join(str(row[-1]) for row in rows)


def test_browsing_by_key_reads_the_key_index(db_url):
    """Browsing asks for states by key: each key is found through the key index, never by a
    scan of the game's rows (SQLite 3.40 planned ``key IN (?, ?, ?)`` of bound keys as one,
    0.17 s for 3 keys at 1M states)."""
    run_json("build", SPEC, "30,30,30", "--db", db_url)
    keys = ["1,2,3", "4,5,6", "not a key", "7,8,9"]
    engine = sa.create_engine(resolve_url(db_url))
    try:
        with engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(sa.text("ANALYZE states"))
            statement = states.by_keys(len(keys))
            params = {"g": 1, **{f"k{n}": key for n, key in enumerate(keys)}}
            found = {row.key for row in conn.execute(statement, params)}
            plan = _plan(conn, statement, params)
    finally:
        engine.dispose()
    assert found == {"1,2,3", "4,5,6", "7,8,9"}
    assert "ix_states_game_id_key" in plan, plan
    assert not re.search(r"\bSCAN s\b|Seq Scan on states|PRIMARY KEY \(game_id=\?\)", plan), plan
