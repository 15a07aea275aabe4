"""Output into a closed pipe ends quietly, as Unix tools do (``explorer ... | head -1``): no
message, and the exit status a process ended by SIGPIPE gets (141), never a refusal's 1."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.support.cli import run_ok
from tests.support.environment import REPO


@pytest.mark.parametrize(
    "args",
    [
        ["sequence", "kayles", "--upto", "200000"],  # click.echo
        ["table", "wythoff", "--rows", "150", "--cols", "150"],  # a rich table
    ],
)
def test_a_closed_pipe_ends_quietly(args, tmp_path):
    # every output here is far over a pipe's buffer, so the reader has gone before it ends
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="100")
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline()
    process.stdout.close()  # as head -1 does
    error = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert error == b""


def test_games_into_a_pipe_is_a_line_a_family(tmp_path):
    # as `explorer games | cat`: a header and one line of tab-separated fields a family
    env = dict(os.environ, PYTHONPATH=str(REPO), COLUMNS="100")
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "games"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout
    lines = out.splitlines()
    families = [row["name"] for row in json.loads(run_ok("games", "--json"))]
    assert lines[0].split("\t") == ["name", "parameters", "position", "example", "source"]
    assert [line.split("\t")[0] for line in lines[1:]] == families
    assert all(len(line.split("\t")) == 5 for line in lines)
    assert "━" not in out and "│" not in out
