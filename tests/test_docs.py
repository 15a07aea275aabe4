"""The README stays true: every command and family is documented, and its examples run."""

from __future__ import annotations

import doctest
import re
import shlex
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from click.testing import CliRunner

from explorer.cli import main
from explorer.games import ALIASES, FAMILIES

README = Path(__file__).resolve().parent.parent / "README.md"
TEXT = README.read_text(encoding="utf-8")


def test_every_command_is_documented():
    for name in main.commands:
        assert f"explorer {name}" in TEXT, name


def test_every_family_is_documented():
    for name in [*FAMILIES, *ALIASES]:
        assert f"`{name}" in TEXT, name


def test_python_examples_run():
    parser = doctest.DocTestParser()
    test = parser.get_doctest(TEXT, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 5


def session_lines() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ `` line of the console blocks, in order."""
    cases = []
    for block in re.findall(r"```console\n(.*?)```", TEXT, flags=re.S):
        lines = block.splitlines(keepends=True)
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                command = lines[i][2:].strip()
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                cases.append((command, "".join(lines[i + 1 : j])))
                i = j
            else:
                i += 1
    return cases


def session_blocks() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ explorer`` line of the console blocks."""
    return [case for case in session_lines() if case[0].startswith("explorer")]


#: What changes from run to run: a build's time and rate.
VARYING = re.compile(r"time +[\d.]+ s \([\d,]+ new states/s\)")


def _run_line(command: str) -> str:
    """Run one README line in the current folder: ``explorer`` in process (with ``| tail -N``
    applied), ``sqlite3 FILE "SQL"`` through Python's sqlite3 in the shell's list mode."""
    words = shlex.split(command)
    tail = None
    if "|" in words:
        pipe = words.index("|")
        assert words[pipe + 1 :][:1] == ["tail"], command
        tail = int(words[pipe + 2].lstrip("-"))
        words = words[:pipe]
    if words[0] == "sqlite3":
        with closing(sqlite3.connect(words[1])) as conn, conn:  # commits an UPDATE
            rows = conn.execute(words[2]).fetchall()
        return "".join("|".join(map(str, row)) + "\n" for row in rows)
    assert words[0] == "explorer", command
    result = CliRunner(env={"COLUMNS": "100"}).invoke(main, words[1:])
    assert result.exception is None or isinstance(result.exception, SystemExit), command
    output = result.stdout + result.stderr
    if tail is not None:
        output = "".join(output.splitlines(keepends=True)[-tail:])
    return output


def test_readme_sessions_run_in_order_from_a_fresh_folder(tmp_path, monkeypatch):
    # the README says its examples build on each other in one folder (a checkout, for data/)
    assert "run in the order shown, in one folder" in TEXT
    shutil.copytree(
        README.parent / "data", tmp_path / "data", ignore=shutil.ignore_patterns("*.png")
    )
    monkeypatch.chdir(tmp_path)
    lines = session_lines()
    commands = {command.split()[1] for command, _ in lines if command.startswith("explorer")}
    assert {"build", "query", "import", "edit", "diff", "export", "solve", "viz"} <= commands
    assert any(command.startswith("sqlite3") for command, _ in lines)
    for command, expected in lines:
        output = _run_line(command)
        assert VARYING.sub("time", output) == VARYING.sub("time", expected), command
