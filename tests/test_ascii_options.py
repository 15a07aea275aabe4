"""The ASCII-digit rule for every integer option (``int`` would take ``"３"``, ``"1_0"``, ``" 5"``),
and a position that is not a position refused before any database is opened."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from explorer.cli import main
from explorer.cli.common import AsciiIntRange


def integer_options() -> list[tuple[list[str], str]]:
    """Every integer option of every command: (command path, option name)."""
    found = []
    for name in sorted(main.commands):
        command = main.commands[name]
        groups = [([name], command)]
        if isinstance(command, click.Group):
            groups = [([name, sub], command.commands[sub]) for sub in sorted(command.commands)]
        for path, cmd in groups:
            for param in cmd.params:
                if isinstance(param, click.Option) and isinstance(param.type, click.IntRange):
                    found.append((path, param.opts[0]))
    return found


OPTIONS = integer_options()


def test_every_integer_option_is_ascii_only() -> None:
    assert len(OPTIONS) >= 15
    for path, option in OPTIONS:
        command = main.commands[path[0]]
        for part in path[1:]:
            command = command.commands[part]  # type: ignore[attr-defined]
        param = next(p for p in command.params if p.opts and p.opts[0] == option)
        assert isinstance(param.type, AsciiIntRange), (path, option)


@pytest.mark.parametrize("text", ["３", "²", "1_0", " 5", "٣", "+5", "5.0"])
@pytest.mark.parametrize(("path", "option"), OPTIONS, ids=[" ".join([*p, o]) for p, o in OPTIONS])
def test_an_integer_option_refuses_other_digits(path, option, text, tmp_path: Path) -> None:
    args = [*path, option, text]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert f"Invalid value for '{option}'" in result.stderr or "Invalid value" in result.stderr
    assert "Traceback" not in result.output


def test_ascii_digits_are_still_taken() -> None:
    result = CliRunner().invoke(main, ["sequence", "nim", "--upto", "12", "--json"])
    assert result.exit_code == 0 and '"upto": 12' in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["query", "nim", "²"], "bad position '²' for nim"),
        (["query", "windup:5:1,3", "0000000000007"], "bad position '0000000000007'"),
        (["query", "wythoff", "1,2,3", "--successors"], "bad position '1,2,3' for wythoff"),
        (["export", "nim", "--around", "３", "-o", "a.json"], "bad position '３' for nim"),
    ],
)
def test_a_bad_position_is_refused_before_the_database_opens(
    args: list[str], words: str, tmp_path: Path
) -> None:
    db = tmp_path / "new.db"
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {words}") and result.stderr.count("\n") == 1
    assert not db.exists()
