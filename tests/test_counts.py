"""Per-game counts (the ``state_counts`` table) stay exact: after builds (complete, stopped,
reused, killed and resumed), imports, re-imports, edits and re-solves, on SQLite and
PostgreSQL, `stats` equals a count of the stored rows; an old database gets them from the
migration."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import sqlalchemy as sa
from alembic import command
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import open_database
from explorer.build import Database
from explorer.errors import CyclicGraphError, EditError
from explorer.games.loopy import GraphGame
from explorer.solver.incremental import Edit
from explorer.storage.backends.engine import resolve_url
from explorer.storage.rows.counts import recount
from explorer.storage.rows.records import lookup_game
from explorer.storage.schema.migrations import alembic_config
from tests.support.cli import run_json
from tests.support.environment import REPO
from tests.support.graphs import write_graph
from tests.support.strategies import fraction_of_examples, random_dags, random_edit

COUNTED = (
    "states",
    "edges",
    "expanded",
    "solved",
    "unsolved",
    "by_outcome",
    "by_grundy",
    "by_depth",
    "max_grundy",
    "max_depth",
    "max_remoteness",
    "max_height",
)


def recounted(url: str, spec: str) -> dict[str, Any]:
    """What `stats` reports, counted from every stored row (independently of the counts)."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            game = conn.execute(
                sa.text("SELECT id FROM games WHERE spec = :s"), {"s": spec}
            ).scalar_one()
            rows = conn.execute(
                sa.text(
                    "SELECT expanded, grundy, outcome, remoteness, height, depth FROM states "
                    "WHERE game_id = :g"
                ),
                {"g": game},
            ).all()
            edges = conn.execute(
                sa.text("SELECT COUNT(*) FROM edges WHERE game_id = :g"), {"g": game}
            ).scalar_one()
    finally:
        engine.dispose()

    def histogram(column: int) -> dict[Any, int]:
        values = [r[column] for r in rows if r[column] is not None]
        return {v: values.count(v) for v in sorted(set(values))}

    def largest(column: int) -> int | None:
        return max((r[column] for r in rows if r[column] is not None), default=None)

    solved = sum(r[2] is not None for r in rows)  # an outcome: a finite value or ∞(K)
    return {
        "states": len(rows),
        "edges": edges,
        "expanded": sum(bool(r[0]) for r in rows),
        "solved": solved,
        "unsolved": len(rows) - solved,
        "by_outcome": histogram(2),
        "by_grundy": histogram(1),
        "by_depth": histogram(5),
        "max_grundy": largest(1),
        "max_depth": largest(5),
        "max_remoteness": largest(3),
        "max_height": largest(4),
    }


def assert_exact(url: str, spec: str, stored_spec: str | None = None) -> None:
    stats = run_json("stats", spec, "--db", url)
    expected = json.loads(json.dumps(recounted(url, stored_spec or spec)))  # keys as JSON's
    assert {k: stats[k] for k in COUNTED} == expected
    listed = {g["game"]: (g["states"], g["edges"]) for g in run_json("stats", "--db", url)}
    assert listed[stats["game"]] == (stats["states"], stats["edges"])


@pytest.mark.slow  # many builds
def test_counts_stay_exact_through_builds(db_url):
    for position in ("3,4,5", "3,4,6", "2,7"):  # new, then reusing stored states
        run_json("build", "nim", position, "--db", db_url)
        assert_exact(db_url, "nim")
    stopped = run_json("build", "kayles", "25", "--max-states", "300", "--db", db_url)
    assert stopped["status"] == "stopped"
    assert_exact(db_url, "octal:0.77")
    run_json("build", "kayles", "25", "--db", db_url)
    assert_exact(db_url, "octal:0.77")
    run_json("build", "nim + wythoff", "2,3 + 2,2", "--db", db_url)
    assert_exact(db_url, "nim + wythoff")


@pytest.mark.slow  # many stored edits
def test_counts_stay_exact_through_imports_edits_and_solves(db_url, tmp_path):
    graph = tmp_path / "game.json"
    graph.write_text(json.dumps({"a": ["b", "c"], "b": ["c"], "c": [], "d": ["a"]}))
    spec = run_json("import", str(graph), "--db", db_url)["game"]
    stored = "dag:" + str(graph.resolve())
    assert_exact(db_url, spec, stored)
    run_json("edit", spec, "--add-edge", "d", "c", "--add-state", "e", "--db", db_url)
    assert_exact(db_url, spec, stored)
    run_json("edit", spec, "--remove-state", "b", "--db", db_url)
    assert_exact(db_url, spec, stored)
    graph.write_text(json.dumps({"a": ["c"], "c": ["f"], "f": [], "d": ["a", "f"]}))
    run_json("import", str(graph), "--db", db_url)  # re-import: the difference
    assert_exact(db_url, spec, stored)
    with open_database(db_url) as db:
        db.game(spec).resolve()
        db.game(spec).edit(Edit(add_states=("g",)))
    assert_exact(db_url, spec, stored)
    loopy = tmp_path / "loopy.json"
    shutil.copy(REPO / "data" / "loopy.json", loopy)
    spec = run_json("import", f"graph:{loopy}", "--db", db_url)["game"]
    stored = "graph:" + str(loopy.resolve())
    assert_exact(db_url, spec, stored)
    run_json("edit", spec, "--add-edge", "c", "t", "--db", db_url)
    assert_exact(db_url, spec, stored)


BUILDER = """
import sys
from explorer import open_database
with open_database(sys.argv[1]) as db:
    db.game("subtraction:1,2").build(
        "30,31,32",
        batch_states=100,
        progress=lambda p: print("batch", flush=True),
    )
"""


@pytest.mark.slow  # kill -9 of a build
def test_counts_stay_exact_when_a_build_is_killed_and_resumed(db_url):
    build = subprocess.Popen(
        [sys.executable, "-c", BUILDER, db_url], stdout=subprocess.PIPE, text=True
    )
    assert build.stdout is not None
    for _ in range(20):
        assert build.stdout.readline() == "batch\n"
    build.send_signal(signal.SIGKILL)
    build.wait(timeout=60)
    time.sleep(0.1)
    assert_exact(db_url, "subtraction:1,2")
    resumed = run_json("build", "subtraction:1,2", "30,31,32", "--db", db_url)
    assert resumed["status"] == "complete" and resumed["states_reused"] > 0
    assert_exact(db_url, "subtraction:1,2")


def test_an_old_database_gets_its_counts_from_the_migration(db_url, tmp_path):
    run_json("build", "nim", "4,5,6", "--db", db_url)
    graph = tmp_path / "g.json"
    graph.write_text(json.dumps({"a": ["b"], "b": []}))
    spec = run_json("import", str(graph), "--db", db_url)["game"]
    engine = sa.create_engine(resolve_url(db_url))
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0005")  # before the counts
    with engine.connect() as conn:
        assert "state_counts" not in sa.inspect(conn).get_table_names()
    engine.dispose()
    assert_exact(db_url, "nim")  # opening the database upgrades it
    assert_exact(db_url, spec, "dag:" + str(graph.resolve()))
    assert run_json("verify", "--db", db_url)["ok"]


def assert_as_recounted(db: Database, spec: str) -> None:
    """The game's state_counts rows are exactly those a count of every stored row makes
    (`recount`, the slow path, run in a transaction rolled back), rows of zero aside."""
    query = sa.text("SELECT kind, value, count FROM state_counts WHERE game_id = :g AND count != 0")
    with db.engine.connect() as conn:
        found = lookup_game(conn, spec)
        assert found is not None
        kept = sorted(tuple(r) for r in conn.execute(query, {"g": found[0]}))
        recount(conn, found[0])
        counted = sorted(tuple(r) for r in conn.execute(query, {"g": found[0]}))
        conn.rollback()
    assert kept == counted


@settings(max_examples=fraction_of_examples(0.4), deadline=None)  # each writes a database
@given(data=st.data(), graph=random_dags(max_states=10), loopy=st.booleans())
def test_counts_follow_random_edits_exactly(
    database: Database,  # noqa: F811
    files: Path,  # noqa: F811
    data: st.DataObject,
    graph: nx.DiGraph,
    loopy: bool,
) -> None:
    """An edit counts only the states it writes; after any series of edits (of a DAG, or of a
    game with cycles) and a full re-solve the counts equal a count of every row."""
    path = str(write_graph(files, graph))
    spec = database.import_graph(GraphGame(path) if loopy else path).game
    assert_as_recounted(database, spec)
    mirror = graph.copy()
    for step in range(data.draw(st.integers(min_value=1, max_value=6), label="edits")):
        edit = random_edit(data.draw, mirror, fresh=f"n{step}_")
        if not edit:
            continue
        try:
            database.game(spec).edit(edit)
        except (CyclicGraphError, EditError):  # refused: nothing written
            assert_as_recounted(database, spec)
            continue
        mirror.remove_edges_from(edit.remove_edges)
        mirror.remove_nodes_from(edit.remove_states)
        mirror.add_nodes_from(edit.add_states)
        mirror.add_edges_from(edit.add_edges)
        assert_as_recounted(database, spec)
    if nx.is_directed_acyclic_graph(mirror) and not loopy:
        database.game(spec).resolve()
        assert_as_recounted(database, spec)


def test_states_of_infinite_value_count_as_solved(db_url):
    """windup:5:1,3 from 4: three states of value ∞(0) (N-positions) beside two P-positions."""
    run_json("build", "windup:5:1,3", "4", "--db", db_url)
    stats = run_json("stats", "windup:5:1,3", "--db", db_url)
    assert (stats["states"], stats["solved"], stats["unsolved"]) == (5, 5, 0)
    assert stats["by_outcome"] == {"N": 3, "P": 2} and stats["by_grundy"] == {"0": 2}
    assert_exact(db_url, "windup:5:1,3")


def test_the_migration_counts_states_of_infinite_value_as_solved(db_url):
    run_json("build", "windup:5:1,3", "4", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0007")  # counted finite values only
    with engine.connect() as conn:
        solved = conn.execute(
            sa.text("SELECT count FROM state_counts WHERE kind = 'solved'")
        ).scalar_one()
    engine.dispose()
    assert solved == 2
    assert_exact(db_url, "windup:5:1,3")  # opening the database upgrades it
    assert run_json("stats", "windup:5:1,3", "--db", db_url)["solved"] == 5
