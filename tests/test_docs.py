"""The README stays true: every command and family is documented, and its examples run."""

from __future__ import annotations

import doctest
import os
import re
import subprocess
from pathlib import Path

import pytest

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


def session_blocks() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ explorer`` line of the console blocks."""
    cases = []
    for block in re.findall(r"```console\n(.*?)```", TEXT, flags=re.S):
        lines = block.splitlines(keepends=True)
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ explorer"):
                command = lines[i][2:].strip()
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                cases.append((command, "".join(lines[i + 1 : j])))
                i = j
            else:
                i += 1
    return cases


def in_memory(command: str) -> bool:
    """Commands that write no database (those that do are run by the storage tests)."""
    return command.split()[1] in {"solve", "explain", "sequence", "table", "games"}


@pytest.mark.parametrize(
    ("command", "expected"), [case for case in session_blocks() if in_memory(case[0])]
)
def test_console_session_output_is_real(command, expected):
    env = dict(os.environ, COLUMNS="100")
    result = subprocess.run(
        ["bash", "-c", command],
        capture_output=True,
        text=True,
        env=env,
        cwd=README.parent,
    )
    assert result.stdout + result.stderr == expected
