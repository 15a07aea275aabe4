"""Every command's ``--json`` says in its ``--help`` what it prints: each key a script reads
is named there (checked against what each command prints)."""

from __future__ import annotations

import json
import re
import shutil

import click
import pytest

from explorer.cli import main
from tests.support.cli import run
from tests.support.environment import REPO

#: A run of each command with --json (in this order: later ones read the database built).
RUNS = [
    ["games"],
    ["solve", "nim", "3,4,5"],
    ["explain", "nim", "3,4,5"],
    ["sequence", "kayles", "--upto", "30"],
    ["table", "wythoff", "--rows", "3", "--cols", "3"],
    ["build", "nim", "3,4,5"],
    ["query", "nim", "3,4,5"],
    ["query", "nim"],
    ["stats", "nim"],
    ["export", "nim", "-o", "nim.json"],
    ["verify", "nim"],
    ["import", "dag:data/note003.json"],
    ["edit", "dag:data/note003.json", "--add-state", "z", "--add-edge", "z", "b"],
    ["diff", "subtraction:1,3,4", "subtraction:1,4", "--upto", "30"],
    ["viz", "nim", "1,2", "-o", "v.html"],
    ["plot", "sequence", "kayles", "--upto", "50", "-o", "k.png"],
    ["plot", "table", "wythoff", "--rows", "5", "--cols", "5", "-o", "t.png"],
    ["plot", "p-positions", "wythoff", "--rows", "5", "--cols", "5", "-o", "p.png"],
    ["patterns", "kayles"],
    ["sweep", "bash:2..4", "--upto", "50"],
    ["quotient", "nim", "--max-heap", "3"],
    ["check", "nim", "3,4,5"],
    ["check", "nim", "3,4,5", "--p", "a ^ b ^ c == 0"],
]


def _command(path: list[str]) -> click.Command:
    command: click.Command = main
    for name in path:
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), name)
        assert found is not None, path
        command = found
    return command


def _json_help(path: list[str]) -> str:
    option = next(p for p in _command(path).params if p.name == "as_json")
    return str(option.help)  # type: ignore[attr-defined]


def _commands(group: click.Group, path: list[str]) -> list[list[str]]:
    found = []
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        if isinstance(command, click.Group):
            found += _commands(command, [*path, name])
        else:
            found.append([*path, name])
    return found


def test_every_command_with_json_says_its_shape_and_is_run_here():
    with_json = [
        path
        for path in _commands(main, [])
        if any(p.name == "as_json" for p in _command(path).params)
    ]
    for path in with_json:
        shape = _json_help(path)
        assert shape.startswith("Print JSON for scripts: ") and len(shape) > 40, (path, shape)
    ran = {tuple(args[: 2 if args[0] == "plot" else 1]) for args in RUNS}
    assert ran | {("serve",)} == {tuple(path) for path in with_json}


def test_what_each_command_prints_is_what_its_help_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copytree(REPO / "data", tmp_path / "data")
    for args in RUNS:
        code, out, err = run(*args, "--json")
        assert code == 0, (args, err)
        printed = json.loads(out)
        keys = set(printed[0] if isinstance(printed, list) else printed)
        path = args[: 2 if args[0] == "plot" else 1]
        named = set(re.findall(r"[a-z_]+", _json_help(path)))
        assert keys <= named, (args, keys - named)


@pytest.mark.parametrize("args", [["serve", "--help"]])
def test_serve_names_its_json_line(args):
    code, out, _ = run(*args)
    assert code == 0 and "url, database" in " ".join(out.split())
