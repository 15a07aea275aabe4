"""Output into a closed pipe ends quietly, as Unix tools do (``explorer ... | head -1``): no
message, and the exit status a process ended by SIGPIPE gets (141), never a refusal's 1."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

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
