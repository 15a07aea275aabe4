"""The command line run in process, as the tests run it."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from explorer.cli import main


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run ``explorer ARGS`` in process: exit code, standard output, standard error.

    A command ends by exiting; anything else it raises is a bug, raised again here with its
    traceback instead of passing for exit code 1.
    """
    result = CliRunner(env=env).invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run_ok(*args: str) -> str:
    """Run ``explorer ARGS``, which must succeed, and return what it prints."""
    code, out, err = run(*args)
    assert code == 0, err
    return out


def run_json(*args: str) -> Any:
    """Run ``explorer ARGS --json``, which must succeed, and read what it prints."""
    return json.loads(run_ok(*args, "--json"))


def on_a_terminal(*args: str, cwd: Path | None = None) -> tuple[int, bytes]:
    """Run ``explorer ARGS`` as a process whose standard error is a terminal (a pty): its exit
    status and what it wrote there (progress bars and spinners show only on terminals)."""
    from tests.support.environment import REPO

    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120", "TERM": "xterm"}
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=follower,
        cwd=cwd,
        env=env,
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the process closed the terminal
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return process.wait(timeout=300), shown


#: ``python -m explorer`` with Python's Ctrl-C handler put back: a shell starts a background job
#: (``nohup pytest ... &``) with SIGINT ignored, its children inherit that, and Python then
#: leaves it ignored; without this, a test's SIGINT would do nothing.
INTERRUPTIBLE = (
    "import runpy, signal, sys; "
    "signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'explorer'; "
    "runpy.run_module('explorer', run_name='__main__', alter_sys=True)"
)
