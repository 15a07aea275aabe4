"""Storage under bad input and a hostile environment (issue 9): DAG games keep their identity
whatever folder they are named from, every database error is one ``Error:`` line, nothing
hangs, and a refused command leaves the database as it was (files, WAL and rows)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.engine import make_url

from explorer import open_database
from explorer.analysis.parts import PART_TABLE
from explorer.build.scratch import KeptMoves, TierMoves
from explorer.errors import DatabaseFullError
from explorer.storage.backends.engine import SCHEMA_HEAD, resolve_url
from explorer.storage.schema.migrations import alembic_config
from tests.support.cli import run, run_json

GAME_A = {"a": ["b"], "b": []}
GAME_B = {"x": ["y", "z"], "y": ["z"], "z": []}


def assert_one_line_error(args: list[str], message: str) -> str:
    code, out, err = run(*args)
    assert code == 1, (out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "[SQL" not in err
    assert message in err, err
    return err


def files(path: Path) -> dict[str, bytes]:
    """The database file, its WAL and shared memory index, byte for byte."""
    return {p.name: p.read_bytes() for p in sorted(path.parent.glob(path.name + "*"))}


def content(path: Path) -> dict[str, bytes]:
    """The database file and its WAL if it holds anything (the shared memory index changes on
    every read, and an empty WAL is left by a connection that could not write)."""
    return {
        name: data
        for name, data in files(path).items()
        if not name.endswith("-shm") and (data or not name.endswith("-wal"))
    }


def rows(url: str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of the four tables."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            return {
                table: [tuple(r) for r in conn.exec_driver_sql(f"SELECT * FROM {table}")]
                for table in ("games", "builds", "states", "edges")  # edges: a view
            }
    finally:
        engine.dispose()


def write_game(folder: Path, graph: dict[str, list[str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "game.json"
    path.write_text(json.dumps(graph))
    return path


# -- DAG games are named by their resolved file ------------------------------------------------


def test_two_files_of_one_name_in_two_folders_are_two_games_found_from_any_folder(
    db_url, tmp_path, monkeypatch
):
    url = db_url if "://" in db_url else str(Path(db_url).resolve())
    a, b = write_game(tmp_path / "A", GAME_A), write_game(tmp_path / "B", GAME_B)
    monkeypatch.chdir(a.parent)
    first = run_json("import", "game.json", "--db", url)
    assert (first["game"], first["kind"], first["states"]) == ("dag:game.json", "import", 2)
    monkeypatch.chdir(b.parent)
    second = run_json("import", "game.json", "--db", url)
    # before: a re-import of A's game, deleting its states
    assert (second["game"], second["kind"], second["states"]) == ("dag:game.json", "import", 3)
    elsewhere = tmp_path / "C"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    games = {g["game"]: g["states"] for g in run_json("stats", "--db", url)}
    assert games == {f"dag:{a}": 2, f"dag:{b}": 3}
    for spec, position, grundy in (
        (f"dag:{a}", "a", 1),
        ("dag:../A/game.json", "a", 1),
        (f"dag:{tmp_path}/B/../B/game.json", "x", 2),
        ("dag:../B/game.json", "z", 0),
    ):
        found = run_json("query", spec, position, "--db", url)
        assert found["grundy"] == grundy
    err = assert_one_line_error(["query", "dag:game.json", "a", "--db", url], "'dag:game.json'")
    assert f"stored from files named 'game.json': dag:{a}, dag:{b}" in err


def test_a_dag_game_imported_again_from_another_folder_is_the_same_game(tmp_path, monkeypatch):
    db = str(tmp_path / "games.db")
    path = write_game(tmp_path / "A", GAME_A)
    monkeypatch.chdir(path.parent)
    run_json("import", "game.json", "--db", db)
    monkeypatch.chdir(tmp_path)
    again = run_json("import", "A/game.json", "--db", db)
    assert (again["game"], again["kind"], again["changed"]) == ("dag:A/game.json", "reimport", 0)
    assert [g["game"] for g in run_json("stats", "--db", db)] == ["dag:A/game.json"]


def _typed_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path, Path]:
    """A database as explorer wrote it before resolved paths (schema 0001): A's game.json,
    imported from inside A, stored as ``dag:game.json``."""
    db = str(tmp_path / "old.db")
    a, b = write_game(tmp_path / "A", GAME_A), write_game(tmp_path / "B", GAME_B)
    run_json("import", str(a), "--db", db)
    with open_database(db) as database, database.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0001")
        conn.exec_driver_sql("UPDATE games SET spec = 'dag:game.json', parameters = 'game.json'")
    return db, a, b


def test_the_migration_moves_a_typed_dag_game_to_its_file_when_upgraded_beside_it(
    tmp_path, monkeypatch
):
    db, a, _ = _typed_database(tmp_path, monkeypatch)
    before = rows(db)["states"]
    monkeypatch.chdir(a.parent)
    assert run_json("stats", "--db", db) == [
        {
            "game": "dag:game.json",
            "convention": "normal",
            "states": 2,
            "edges": 1,
            "sequence": None,
        }
    ]
    stored = rows(db)
    assert [g[1] for g in stored["games"]] == [f"dag:{a}"]
    # the columns of schema 0001 are unchanged (later migrations add columns, e.g. escapes)
    assert [r[: len(before[0])] for r in stored["states"]] == before


def test_a_typed_dag_game_is_kept_found_as_typed_and_adopted_by_its_own_file(tmp_path, monkeypatch):
    db, a, b = _typed_database(tmp_path, monkeypatch)
    before = rows(db)["states"]
    monkeypatch.chdir(tmp_path)  # no game.json here: the upgrade cannot tell which file it was
    assert [g["game"] for g in run_json("stats", "--db", db)] == ["dag:game.json"]
    assert run_json("query", "dag:game.json", "a", "--db", db)["grundy"] == 1
    monkeypatch.chdir(b.parent)  # another file of that name: a new game, the old one kept
    assert run_json("import", "game.json", "--db", db)["kind"] == "import"
    assert [r[: len(before[0])] for r in rows(db)["states"][: len(before)]] == before
    monkeypatch.chdir(a.parent)  # its own file: recognised by its graph, moved, nothing changed
    again = run_json("import", "game.json", "--db", db)
    assert (again["kind"], again["changed"]) == ("reimport", 0)
    monkeypatch.chdir(tmp_path)
    games = {g["game"]: g["states"] for g in run_json("stats", "--db", db)}
    assert games == {"dag:A/game.json": 2, "dag:B/game.json": 3}


# -- database errors are one line, and change nothing -------------------------------------------


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, Path, str]:
    """A SQLite database holding a built game and an imported one, checkpointed; its file,
    the graph file and the DAG game's spec."""
    path = tmp_path / "games.db"
    graph = write_game(tmp_path / "graphs", GAME_B)
    run_json("build", "nim", "2,2", "--db", str(path))
    spec = run_json("import", str(graph), "--db", str(path))["game"]
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path, graph, spec


WRITES = [
    ["import", "{graph}"],
    ["edit", "{spec}", "--add-state", "w", "--add-edge", "w", "x"],
    ["build", "nim", "3,3"],
]
READS = [["query", "nim", "2,2"], ["query", "{spec}", "x"], ["stats"], ["stats", "nim"]]


def _args(template: list[str], path: Path, graph: Path, spec: str) -> list[str]:
    return [a.format(graph=graph, spec=spec) for a in template] + ["--db", str(path)]


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """The database file and its folder refuse writes (chattr +i as root, else modes)."""
    targets = [path, path.parent]
    as_root = os.geteuid() == 0
    for target in targets:
        if as_root:
            subprocess.run(["chattr", "+i", str(target)], check=True)
        else:
            target.chmod(0o555 if target.is_dir() else 0o444)
    try:
        yield
    finally:
        for target in targets:
            if as_root:
                subprocess.run(["chattr", "-i", str(target)], check=True)
            else:
                target.chmod(0o755 if target.is_dir() else 0o644)


def test_writes_to_a_read_only_database_are_one_line_and_change_nothing(stored):
    path, graph, spec = stored
    write_game(graph.parent, {**GAME_B, "w": ["x"]})  # so that the import has work to do
    before = content(path)
    with immutable(path):
        for template in WRITES:
            assert_one_line_error(_args(template, path, graph, spec), "cannot write to database")
    assert content(path) == before


@pytest.mark.slow  # waits on a lock
def test_writes_to_a_locked_database_are_one_line_and_change_nothing(stored, monkeypatch):
    path, graph, spec = stored
    write_game(graph.parent, {**GAME_B, "w": ["x"]})
    before = rows(str(path))
    monkeypatch.setenv("EXPLORER_WAIT", "1")  # a writer waits a second for the lock
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # holds the write lock past explorer's wait
    try:
        for template in WRITES[:2]:
            err = assert_one_line_error(_args(template, path, graph, spec), "database is locked")
            assert "another program is using it" in err
    finally:
        holder.rollback()
        holder.close()
    assert rows(str(path)) == before


def _with_options(url: str, *options: str) -> str:
    """A PostgreSQL URL with more server settings in its ``options``."""
    parsed = make_url(url)
    joined = " ".join([str(parsed.query.get("options", "")), *options]).strip()
    return parsed.update_query_dict({"options": joined}).render_as_string(hide_password=False)


@pytest.mark.postgres
def test_postgresql_read_only_and_locked_writes_are_one_line_and_change_nothing(pg_url, tmp_path):
    graph = write_game(tmp_path / "graphs", GAME_B)
    run_json("build", "nim", "2,2", "--db", pg_url)
    spec = run_json("import", str(graph), "--db", pg_url)["game"]
    write_game(graph.parent, {**GAME_B, "w": ["x"]})
    before = rows(pg_url)
    read_only = _with_options(pg_url, "-cdefault_transaction_read_only=on")
    for template in WRITES:
        args = [a.format(graph=graph, spec=spec) for a in template] + ["--db", read_only]
        err = assert_one_line_error(args, "read-only transaction")
        assert "cannot be written" in err
    impatient = _with_options(pg_url, "-clock_timeout=300")
    engine = sa.create_engine(resolve_url(pg_url))
    with engine.connect() as holder:
        holder.exec_driver_sql("LOCK TABLE states IN ACCESS EXCLUSIVE MODE")
        for template in WRITES:
            args = [a.format(graph=graph, spec=spec) for a in template] + ["--db", impatient]
            err = assert_one_line_error(args, "lock timeout")
            assert "another program is using it" in err
        holder.rollback()
    engine.dispose()
    assert rows(pg_url) == before


@pytest.mark.slow  # a process on a small full disk
def test_writes_to_a_full_disk_are_one_line_and_change_nothing(stored, small_disk):
    path, graph, spec = stored
    moved = small_disk / "games.db"
    moved.write_bytes(path.read_bytes())
    big = graph.parent / "big.json"
    big.write_text(
        json.dumps({f"v{i:06d}": [f"v{i + 1:06d}"] if i < 20_000 else [] for i in range(20_001)})
    )
    before_rows = rows(str(moved))
    before = content(moved)
    filler = small_disk / "filler"
    with contextlib.suppress(OSError), filler.open("wb") as file:
        while True:
            file.write(b"\0" * 4096)
            file.flush()
    # no room at all: not even for the index a reader needs
    for template in (["import", str(big)], WRITES[1]):
        assert_one_line_error(_args(template, moved, graph, spec), "cannot open database")
    assert content(moved) == before
    # room to open and read, not to write the import
    with filler.open("r+b") as file:
        file.truncate(filler.stat().st_size - 256 * 1024)
    err = assert_one_line_error(
        _args(["import", str(big)], moved, graph, spec), "database or disk is full"
    )
    assert "free some space" in err
    filler.unlink()
    assert content(moved) == before
    assert rows(str(moved)) == before_rows


def _damage(path: Path) -> None:
    """Overwrite the middle of the file (pages of the states table and its indexes)."""
    size = path.stat().st_size
    with path.open("r+b") as file:
        file.seek(size // 2)
        file.write(b"\xff" * 32768)


def test_a_damaged_database_is_one_line_for_every_command(stored):
    path, graph, spec = stored
    run_json("build", "nim", "6,6,6", "--db", str(path))  # pages enough to damage some
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _damage(path)
    before = files(path)
    failed = []
    for template in [*WRITES, ["build", "nim", "7,6,6"], ["query", "nim", "--limit", "1000"]]:
        code, out, err = run(*_args(template, path, graph, spec))
        if code == 0:  # the damaged pages were not read by this command
            continue
        assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
        assert "database disk image is malformed" in err or "not a database" in err, err
        failed.append(template[0])
    assert failed == ["import", "edit", "build", "build", "query"]
    assert files(path)[path.name] == before[path.name]


@pytest.mark.parametrize(
    ("table", "args"),
    [
        ("states", ["query", "nim", "--outcome", "P"]),
        ("states", ["stats"]),
        ("edges", ["query", "nim", "2,2"]),
        ("edges", ["stats", "nim"]),
        ("builds", ["stats", "nim"]),
    ],
)
def test_a_dropped_table_is_one_line_for_queries_and_stats(db_url, table, args):
    run_json("build", "nim", "2,2", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    cascade = "" if engine.dialect.name == "sqlite" else " CASCADE"
    kind = "view" if table == "edges" else "table"  # the moves are in the states' rows
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP VIEW state_values")
        conn.exec_driver_sql("DROP VIEW moves")
        conn.exec_driver_sql(f"DROP {kind.upper()} {table}{cascade}")
    engine.dispose()
    # found missing when the database is opened (stats read the counts, not the tables)
    err = assert_one_line_error([*args, "--db", db_url], f"its {kind} {table!r} is missing")
    assert "damaged" in err


@pytest.mark.parametrize("table", ["states", "edges"])
def test_a_build_into_a_database_it_cannot_read_writes_nothing(db_url, table):
    run_json("build", "nim", "2,2", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    cascade = "" if engine.dialect.name == "sqlite" else " CASCADE"
    with engine.begin() as conn:
        conn.exec_driver_sql("DROP VIEW state_values")
        conn.exec_driver_sql("DROP VIEW moves")
        kind = "VIEW" if table == "edges" else "TABLE"  # the moves are in the states' rows
        conn.exec_driver_sql(f"DROP {kind} {table}{cascade}")
        before = {t: conn.exec_driver_sql(f"SELECT * FROM {t}").all() for t in ("games", "builds")}
    for args in (["build", "nim", "2,2"], ["build", "nim", "3,3"]):
        assert_one_line_error([*args, "--db", db_url], "damaged")
    with engine.connect() as conn:  # before: a build row, left running
        after = {t: conn.exec_driver_sql(f"SELECT * FROM {t}").all() for t in ("games", "builds")}
    engine.dispose()
    assert after == before


# -- URLs --------------------------------------------------------------------------------------


@pytest.mark.postgres
def test_postgres_urls_in_their_short_form_are_accepted(postgres_url, pg_url):
    short = pg_url.replace("postgresql+psycopg://", "postgres://")
    assert short.startswith("postgres://")
    assert run_json("build", "nim", "1,2", "--db", short)["states_new"] == 5
    assert run_json("query", "nim", "1,2", "--db", pg_url)["grundy"] == 3


def test_sqlite_urls_with_options_are_refused(tmp_path):
    assert_one_line_error(
        ["build", "nim", "1", "--db", "sqlite:///:memory:?mode=bogus&cache=x"],
        "unknown options cache, mode in 'sqlite:///:memory:?mode=bogus&cache=x'",
    )


def test_a_port_that_is_not_a_number_is_one_line():
    assert_one_line_error(
        ["stats", "--db", "postgresql://u:secret@h:notaport/x"],
        "malformed database URL 'postgresql://u:***@h:notaport/x'",
    )


HIDE_PSYCOPG = """
import sys


class _Hide:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("psycopg", "psycopg_binary", "psycopg_c"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Hide())
"""


def test_postgresql_without_its_driver_installed_is_one_line(tmp_path):
    """The driver is hidden from a child process by a sitecustomize on its path."""
    (tmp_path / "sitecustomize.py").write_text(HIDE_PSYCOPG)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "stats", "--db", "postgresql://me@127.0.0.1:5999/games"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        "Error: cannot open database 'postgresql+psycopg://me@127.0.0.1:5999/games': the "
        "PostgreSQL driver psycopg is not installed (No module named 'psycopg'); install it "
        "with: pip install 'psycopg[binary]'\n"
    )


# -- files that are not files ------------------------------------------------------------------


def _explorer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=30,  # a FIFO opened for reading blocks forever: the test fails, not hangs
    )


@pytest.mark.slow  # waits on fifos
def test_a_fifo_as_database_or_graph_file_is_refused_at_once(tmp_path):
    fifo_db, fifo_graph = tmp_path / "pipe.db", tmp_path / "pipe.json"
    os.mkfifo(fifo_db)
    os.mkfifo(fifo_graph)
    for args, message in (
        (["stats", "--db", str(fifo_db)], f"'{fifo_db}' is not a regular file"),
        (["build", "nim", "1", "--db", str(fifo_db)], f"'{fifo_db}' is not a regular file"),
        (["import", str(fifo_graph), "--db", str(tmp_path / "g.db")], "is not a regular file"),
        (["solve", f"dag:{fifo_graph}", "a"], f"graph file '{fifo_graph}' is not a regular file"),
    ):
        done = _explorer(*args, cwd=tmp_path)
        assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
        assert message in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.db", "pipe.json"]


def test_an_empty_file_is_not_taken_for_a_new_database(tmp_path):
    path = tmp_path / "empty.db"
    path.touch()
    export = ["export", "nim", "-o", str(tmp_path / "x.csv")]
    for args in (["query", "nim", "1"], ["stats"], export, ["build", "nim", "1"]):
        assert_one_line_error([*args, "--db", str(path)], "is an empty file, not a database")
    assert path.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


# -- build rows --------------------------------------------------------------------------------


def test_a_build_stopped_by_an_error_is_recorded_failed(tmp_path):
    path = tmp_path / "games.db"
    run_json("build", "nim", "1,1", "--db", str(path))
    with sqlite3.connect(path) as conn:  # the first batch of new states will be refused
        conn.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON states BEGIN "
            "SELECT RAISE(ABORT, 'refused by a trigger'); END"
        )
    code, _, err = run("build", "nim", "5,5", "--db", str(path))
    assert code == 1 and err.count("\n") == 1, err
    statuses = [b["status"] for b in run_json("stats", "nim", "--db", str(path))["builds"]]
    assert statuses == ["complete", "failed"]  # before: running


def test_a_build_whose_process_is_gone_shows_interrupted(tmp_path):
    path = tmp_path / "games.db"
    run_json("build", "nim", "1,1", "--db", str(path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO builds (game_id, kind, root, status, started_at, states_new, "
            "states_reused, edges_new, values_computed, method, host, pid) VALUES "
            "(1, 'build', '1,1', 'running', '2026-01-01', 0, 0, 0, 0, 'killed', ?, ?), "
            "(1, 'build', '1,1', 'running', '2026-01-01', 0, 0, 0, 0, 'alive', ?, ?)",
            (socket.gethostname(), gone.pid, socket.gethostname(), os.getpid()),
        )
    before = files(path)
    builds = run_json("stats", "nim", "--db", str(path))["builds"]
    assert [b["status"] for b in builds] == ["complete", "interrupted", "running"]
    assert files(path)[path.name] == before[path.name]  # shown so, not written


# -- graph files Python cannot read naively ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "nests JSON too deeply to read"),
        ('{"vertices": [' + "7" * 5_000 + '], "edges": []}', "a number of more than 4,300 digits"),
    ],
    ids=["nested-100000-deep", "integer-of-5000-digits"],
)
def test_graph_files_python_cannot_parse_naively_are_one_line(tmp_path, text, message):
    _refused_graph_file(tmp_path, "hostile.json", text, message)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("wide.csv", "source,target\na,b,c\n", "'a,b,c' has 3 cells, its header 2"),
        (
            "entities.graphml",
            '<?xml version="1.0"?><!DOCTYPE g [<!ENTITY x "xxxxxxxxxx">]>'
            '<graphml><graph><node id="&x;"/></graph></graphml>',
            "declares a DOCTYPE or XML entities",
        ),
    ],
    ids=["csv-row-wider-than-its-header", "graphml-entities"],
)
def test_graph_files_that_say_more_than_a_graph_are_one_line(tmp_path, name, text, message):
    _refused_graph_file(tmp_path, name, text, message)


def _refused_graph_file(tmp_path: Path, name: str, text: str, message: str) -> None:
    graph = tmp_path / name
    graph.write_text(text)
    db = tmp_path / "games.db"
    run_json("build", "nim", "1", "--db", str(db))
    before = rows(str(db))
    assert_one_line_error(["import", str(graph), "--db", str(db)], message)
    assert_one_line_error(["solve", f"dag:{graph}", "a"], message)
    assert rows(str(db)) == before


@pytest.mark.slow  # a process on a small full disk
def test_a_builds_kept_moves_on_a_full_disk_are_a_full_disk_error(small_disk):
    kept = KeptMoves(small_disk)  # the database's folder, here a 1 MiB disk
    many = np.arange(200_000)  # 2.4 MB of moves
    with pytest.raises(DatabaseFullError, match="cannot write the build's scratch file"):
        kept[1] = TierMoves(many, np.ones_like(many), many)
    kept.close()


def test_failing_commands_leave_every_byte_of_the_database_as_it_was(stored):
    path, graph, spec = stored
    db = str(path)
    run_json("solve", "nodekayles", "3x4", "--method", "decompose", "--db", db)
    with sqlite3.connect(path) as conn:  # a part value changed by hand
        conn.execute(
            "UPDATE part_values SET value = value + 5 WHERE label = "
            "(SELECT label FROM part_values ORDER BY LENGTH(label) DESC, label LIMIT 1)"
        )
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = content(path)
    PART_TABLE.clear()  # as in a new process: the values are read from the database
    failing = [
        (["build", "nim", "3,x"], "bad position"),
        (["build", "nimm", "3"], "unknown game"),
        (["build", "tb:0.{2+}", "20", "--max-states", "50"], "raise --max-states to at least"),
        (["build", "nim", "1000000000000", "--max-states", "10"], "more than 1,000,000 moves"),
        (["edit", spec, "--add-state", "x"], "already"),
        (["edit", "nim", "--remove-state", "2,2"], "defined by rules"),
        (["edit", spec, "--remove-state", "q"], "'q'"),
        (["query", "nim", "7,7"], "not stored"),
        (["query", "wythoff", "1,2"], "not stored"),
        (["verify", "wythoff"], "not stored"),
        (["import", str(graph.parent / "missing.json")], "missing.json"),
        (["solve", "nodekayles", "3x4", "--method", "decompose"], "the part table stores"),
        (["sequence", "kayles", "--upto", "x"], "x"),
    ]
    for args, message in failing:
        code, out, err = run(*args, "--db", db)
        assert code in (1, 2) and err.startswith(("Error: ", "Usage: ")), (args, err)
        assert message in err and "Traceback" not in err, (args, err)
        assert content(path) == before, args


def test_a_read_command_that_upgrades_an_old_database_says_so_once(db_url):
    run_json("build", "nim", "1,2", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "-1")
        old = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    engine.dispose()
    code, out, err = run("query", "nim", "1,2", "--db", db_url)
    assert code == 0 and "grundy      3" in out
    assert err.startswith("upgraded database ") and err.count("\n") == 1
    assert err.endswith(
        f" from schema revision {old!r} to {SCHEMA_HEAD!r}: an older explorer cannot open it now\n"
    )
    assert run("query", "nim", "1,2", "--db", db_url)[2] == ""  # at the head: nothing said
