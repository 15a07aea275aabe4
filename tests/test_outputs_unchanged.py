"""Every command's output on a fixed set of inputs equals the one recorded before a refactor.

The expected outputs are data (``tests/data/cli_outputs.json``), recorded from the code as it
was; what varies from run to run (times, paths, hosts, process ids) is masked before comparing.
Record them again, after a change meant to alter an output, with
``python -m tests.test_outputs_unchanged``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from explorer.cli import main
from tests.support.environment import REPO

DATA = Path(__file__).resolve().parent / "data" / "cli_outputs.json"

#: The commands, run in order in one empty folder holding a copy of ``data/note003.json``.
COMMANDS: list[list[str]] = [
    ["solve", "nim", "3,4,5", "--json"],
    ["solve", "nim", "3,4,5", "--misere", "--json"],
    ["solve", "nim", "1,1", "--misere"],
    ["explain", "nim", "3,4,5", "--json"],
    ["explain", "nim", "1,2", "--misere", "--json"],
    ["explain", "nim", "1,2"],
    ["build", "nim", "2,3,4", "--db", "g.db", "--json"],
    ["build", "nim", "2,3,4", "--db", "g.db", "--misere", "--json"],
    ["build", "subtraction:1,2,3", "9", "--db", "g.db", "--json"],
    ["query", "nim", "2,3,4", "--db", "g.db", "--json"],
    ["query", "nim", "2,3,4", "--db", "g.db", "--misere", "--json"],
    ["query", "nim", "2,3,4", "--db", "g.db"],
    ["query", "nim", "2,3,4", "--db", "g.db", "--successors", "--limit", "3", "--json"],
    ["query", "nim", "1,1", "--db", "g.db", "--predecessors", "--misere", "--json"],
    ["query", "nim", "--db", "g.db", "--outcome", "p", "--limit", "5", "--json"],
    ["query", "nim", "--db", "g.db", "--grundy", "0", "--misere", "--offset", "2", "--json"],
    ["query", "nim", "9,9", "--db", "g.db", "--json"],
    ["query", "nim", "2,3,4", "--db", "g.db", "--misere"],
    ["query", "wythoff", "1,2", "--db", "g.db", "--json"],
    ["query", "subtraction:1,2,3", "9", "--db", "g.db", "--misere", "--json"],
    ["query", "nim", "x", "--db", "g.db"],
    ["stats", "dag:other.json", "--db", "g.db"],
    ["stats", "nim", "--db", "missing.db"],
    ["stats", "--db", "g.db", "--json"],
    ["stats", "nim", "--db", "g.db", "--json"],
    ["stats", "nim", "--db", "g.db", "--misere", "--json"],
    ["stats", "nim", "--db", "g.db"],
    ["export", "nim", "-o", "n.json", "--db", "g.db", "--json"],
    ["export", "nim", "-o", "m.graphml", "--db", "g.db", "--misere", "--json"],
    ["export", "nim", "-o", "a.csv", "--around", "1,2", "--depth", "1", "--db", "g.db"],
    ["verify", "--db", "g.db", "--json"],
    ["verify", "nim", "--db", "g.db", "--misere", "--json"],
    ["verify", "nim", "--db", "g.db"],
    ["sequence", "subtraction:1,2,3", "--upto", "20", "--db", "g.db", "--json"],
    ["sequence", "subtraction:1,2,3", "--upto", "30", "--db", "g.db", "--json"],
    ["sequence", "nim", "--upto", "10", "--misere", "--json"],
    ["import", "note003.json", "--db", "g.db", "--json"],
    ["edit", "dag:note003.json", "--remove-edge", "b", "a", "--db", "g.db", "--json"],
    ["query", "dag:note003.json", "b", "--db", "g.db", "--json"],
    ["stats", "--db", "g.db", "--json"],
    ["viz", "nim", "1,2", "--db", "g.db", "--misere", "-o", "v.html", "--json"],
]

#: Files the commands write, whose contents are compared too.
FILES = ["n.json", "m.graphml", "a.nodes.csv", "a.edges.csv"]

#: What varies from run to run, and what it is masked as.
VARYING = [
    (re.compile(r'"(started_at|finished_at|host|seconds|elapsed|rate)": [^,}\n]+'), r'"\1": ~'),
    (re.compile(r'"pid": \d+'), '"pid": ~'),
    (re.compile(r"\d+-\d+-\d+ \d+:\d+:\d+(\.\d+)?"), "~"),
    (re.compile(r"time +[\d.]+ s \([\d,]+ new states/s\)"), "time ~"),
    (re.compile(r"[\d.]+ s\b"), "~ s"),
]


def _masked(text: str, folder: Path) -> str:
    text = text.replace(str(folder), "<tmp>")
    for pattern, replacement in VARYING:
        text = pattern.sub(replacement, text)
    return text


def outputs(folder: Path) -> dict[str, object]:
    """Run `COMMANDS` in `folder` (empty but for the graph file), then read `FILES`."""
    shutil.copy(REPO / "data" / "note003.json", folder / "note003.json")
    found: dict[str, object] = {}
    here = os.getcwd()
    os.chdir(folder)
    try:
        for args in COMMANDS:
            result = CliRunner().invoke(main, args)
            found[" ".join(args)] = {
                "exit": result.exit_code,
                "stdout": _masked(result.stdout, folder),
                "stderr": _masked(result.stderr, folder),
            }
        for name in FILES:
            found[name] = _masked((folder / name).read_text(encoding="utf-8"), folder)
    finally:
        os.chdir(here)
    return found


@pytest.mark.slow  # every recorded command
def test_outputs_are_unchanged(tmp_path: Path) -> None:
    expected = json.loads(DATA.read_text(encoding="utf-8"))
    found = outputs(tmp_path)
    assert list(found) == list(expected)
    for name, value in expected.items():
        assert found[name] == value, name


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        DATA.write_text(json.dumps(outputs(Path(tmp)), indent=1) + "\n", encoding="utf-8")
