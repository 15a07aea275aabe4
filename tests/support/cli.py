"""The command line run in process, as the tests run it."""

from __future__ import annotations

import json
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
