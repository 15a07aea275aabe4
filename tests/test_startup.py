"""Start-up: a command imports only what it uses, and the shortcuts that allow it stay true.

A read-only command (``query``, ``stats``, ``--help``) must not pay for the libraries of other
commands: each command is run in a fresh process and the modules it loaded are listed. No
timing here (speed is measured by benchmarks, tests/benchmarks/bench_startup.py): a module that
comes back into a command's start-up fails these tests whatever the machine's speed.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
import sqlalchemy as sa
from alembic import command

from explorer import open_database
from explorer.cli import COMMAND_MODULES, main
from explorer.cli.common import LazyCommands
from explorer.storage.backends.engine import SCHEMA_HEAD
from explorer.storage.schema.migrations import alembic_config, head_revision
from tests.support.environment import REPO

#: Runs the command line on its arguments, then prints the modules it imported (also when the
#: command exits), as the last line of standard error.
PROBE = """
import json, sys
from explorer.cli import main
try:
    main(sys.argv[1:], prog_name="explorer")
finally:
    sys.stderr.write("\\n" + json.dumps(sorted(sys.modules)) + "\\n")
"""

#: What drawing, serving, migrating and graph work use: nothing that only reads loads them.
HEAVY = {"alembic", "networkx", "pyvis", "jinja2", "matplotlib", "starlette", "uvicorn", "numba"}
#: The parts of explorer that write, edit, export or draw.
WRITERS = {
    "explorer.analysis.solving",
    "explorer.solver.incremental",
    "explorer.build.one_process",
    "explorer.build.edits",
    "explorer.build.graph_import",
    "explorer.build.stored_graph",
    "explorer.formats.writing",
    "explorer.storage.query.export",
    "explorer.build.verify",
    "explorer.build.verify_parts",
    "explorer.build.verify_report",
    "explorer.build.verify_states",
    "explorer.viz.graphs",
    "explorer.viz.page",
}
#: What only some commands need: misère quotients, patterns, the sequence kernel, reading graph
#: files (a database without stored findings or sequences needs none of them).
SPECIALISTS = {
    "explorer.analysis.quotient",
    "explorer.analysis.patterns",
    "explorer.solver.sparse",
    "explorer.formats",
}
#: What ``--help`` does not need beyond that: loading user code and entry points
#: (``importlib.metadata`` brings ``email``).
LOADERS = {"email", "explorer.games.pyspec"}


def loaded_by(*args: str) -> set[str]:
    """The packages (top level) and explorer's modules a fresh ``explorer ARGS`` process
    imports (it must succeed)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    modules = json.loads(result.stderr.strip().splitlines()[-1])
    return {m.split(".")[0] for m in modules} | {m for m in modules if m.startswith("explorer.")}


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("startup") / "games.db"
    with open_database(str(path)) as database:
        database.game("subtraction:1,2").build("6,7")
    return path


@pytest.mark.slow  # a fresh interpreter each
@pytest.mark.parametrize(
    "args",
    [
        ("query", "subtraction:1,2", "6,7"),
        ("query", "subtraction:1,2", "5,7", "--json"),
        ("query", "subtraction:1,2", "--outcome", "P", "--limit", "3"),
        ("query", "subtraction:1,2", "6,7", "--predecessors"),
        ("stats",),
        ("stats", "subtraction:1,2", "--json"),
    ],
)
def test_reading_a_database_loads_no_heavy_library(stored, args):
    loaded = loaded_by(*args, "--db", str(stored))
    assert {"sqlalchemy", "explorer.storage.database"} <= loaded  # the probe sees the imports
    assert sorted(loaded & (HEAVY | WRITERS | SPECIALISTS)) == []


@pytest.mark.parametrize("args", [("--help",), ("query", "--help"), ("stats", "--help")])
def test_help_loads_no_database_library(args):
    loaded = loaded_by(*args)
    assert "click" in loaded
    assert sorted(loaded & (HEAVY | WRITERS | SPECIALISTS | LOADERS | {"sqlalchemy"})) == []


def test_the_probe_sees_a_heavy_library_a_command_loads(tmp_path):
    # a command that draws does load them: the tests above would notice one coming back
    loaded = loaded_by("viz", "nim", "2", "-o", str(tmp_path / "nim.html"))
    assert {"networkx", "jinja2"} <= loaded


def test_the_schema_head_is_the_migrations_head():
    # an opened database at SCHEMA_HEAD is taken as up to date without asking Alembic: when a
    # migration is added, SCHEMA_HEAD must name it
    assert SCHEMA_HEAD == head_revision()


def test_a_schema_one_revision_old_is_still_upgraded(tmp_path):
    # the path past the shortcut: an older revision Alembic knows is upgraded, and kept data
    path = str(tmp_path / "old.db")
    with open_database(path) as database:
        database.game("nim").build("1,2")
        with database.engine.begin() as connection:
            command.downgrade(alembic_config(connection), "-1")
            assert revision(connection) != SCHEMA_HEAD
    with open_database(path) as database:
        with database.engine.connect() as connection:
            assert revision(connection) == SCHEMA_HEAD
        assert database.game("nim").state("1,2")["grundy"] == 3


def revision(connection: sa.Connection) -> object:
    return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def test_every_command_module_registers_the_commands_listed_for_it():
    for module, names in COMMAND_MODULES.items():
        listed = [command.name for command in importlib.import_module(module).COMMANDS]
        assert sorted(listed) == sorted(names), module


def test_every_listed_command_is_the_one_its_module_defines():
    for module, names in COMMAND_MODULES.items():
        defined = {c.name: c for c in importlib.import_module(module).COMMANDS}
        for name in names:
            assert main.commands[name] is defined[name]


def test_lazy_commands_behave_as_a_dict():
    commands = LazyCommands({"query": "explorer.cli.storage"})
    assert list(commands) == ["query"] and len(commands) == 1
    assert commands["query"].name == "query"
    extra = click.Command("extra")
    commands["extra"] = extra
    assert commands.get("extra") is extra and sorted(commands) == ["extra", "query"]
    del commands["query"]
    assert list(commands) == ["extra"]
    assert commands.get("query") is None
    with pytest.raises(KeyError):
        del commands["query"]
    with pytest.raises(KeyError):
        commands["nothing"]
