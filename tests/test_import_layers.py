"""The stages import downwards only: the import-linter contracts of ``pyproject.toml`` hold on
the package, and a copy of the package with one import planted upwards breaks them.

``lint-imports`` counts imports at module level and inside functions, not those under
``TYPE_CHECKING``; .ci/run runs it on every change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.environment import REPO

LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package and the contracts under `root`, without a cache."""
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The package and its pyproject.toml, copied."""
    shutil.copytree(
        REPO / "explorer", tmp_path / "explorer", ignore=shutil.ignore_patterns("*.pyc")
    )
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def plant(module: Path, line: str) -> None:
    """Add an import inside a new function at the end of `module`."""
    module.write_text(module.read_text() + f"\n\ndef _planted() -> None:\n    {line}\n")


def test_the_package_keeps_every_contract():
    result = lint_imports(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        # storage calling the build stage above it
        (
            "storage/query/damage.py",
            "from explorer.build.run import build_position",
            "the stages import downwards only",
        ),
        # the rules asking the solver, which sits above them
        ("games/base.py", "import explorer.solver.arrays", "the stages import downwards only"),
        # a result drawing itself
        (
            "analysis/results.py",
            "from explorer.viz.notebook import solution_view",
            "computation never imports drawing",
        ),
        # a worker pool in storage
        (
            "storage/rows/counts.py",
            "from concurrent.futures import ProcessPoolExecutor",
            "storage does I/O only",
        ),
    ],
)
def test_a_planted_import_breaks_its_contract(copy, module, line, broken):
    assert lint_imports(copy).returncode == 0  # the copy holds before
    plant(copy / "explorer" / module, line)
    result = lint_imports(copy)
    assert result.returncode != 0
    assert f"{broken}" in result.stdout and "BROKEN" in result.stdout
    planted = "explorer." + module.removesuffix(".py").replace("/", ".")
    assert planted in result.stdout, result.stdout
