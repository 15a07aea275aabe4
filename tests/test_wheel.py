"""The wheel, installed on its own: built from this tree, installed into a new virtual
environment that sees no other site-packages, it solves one position of every built-in family,
and answers as the tree does. A dependency missing from pyproject.toml, or a file missing from
the wheel (migrations, page templates), fails here."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import run_json
from tests.support.environment import DATA, REPO

pytestmark = pytest.mark.slow


def check(command: list[str], **kwargs: object) -> str:
    """Run ``command``, which must succeed, and return what it printed."""
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, **kwargs)  # type: ignore[call-overload]
    assert done.returncode == 0, f"{shlex.join(command)}\n{done.stdout}\n{done.stderr}"
    return str(done.stdout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``explorer`` command of the wheel, installed into a fresh virtual environment."""
    where = tmp_path_factory.mktemp("wheel")
    source = where / "source"
    # a copy without the developers' files, as a clean checkout has it (explorer/build/ is
    # the build stage: only the top level's build/ and dist/ are build products)
    skipped = shutil.ignore_patterns(".git", "__pycache__", "*.db", "*.db-*", ".venv")

    def ignored(folder: str, names: list[str]) -> set[str]:
        top = {"build", "dist"} & set(names) if Path(folder) == REPO else set()
        return skipped(folder, names) | top

    shutil.copytree(REPO, source, ignore=ignored)
    check([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(where), str(source)])
    (wheel,) = where.glob("explorer-*.whl")
    venv = where / "venv"
    check([sys.executable, "-m", "venv", str(venv)])
    check([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)])
    return venv / "bin" / "explorer"


def families(explorer: Path, cwd: Path) -> list[dict[str, str]]:
    return [
        family
        for family in json.loads(check([str(explorer), "games", "--json"], cwd=cwd))
        if family["source"] == "built-in"
    ]


def test_the_installed_wheel_solves_every_built_in_family(installed: Path, tmp_path: Path) -> None:
    """From a folder away from the source tree (so nothing but the wheel can be imported), with
    the example files beside it as a user keeps them."""
    shutil.copytree(DATA, tmp_path / "data")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    answered = []
    for family in families(installed, tmp_path):
        spec, position = shlex.split(family["example"])
        command = [str(installed), "solve", spec, position, "--json"]
        answer = json.loads(check(command, cwd=tmp_path, env=environment))
        os.chdir(tmp_path)  # the tree's own answer, for files named relative to data/
        try:
            assert answer == run_json("solve", spec, position), family["name"]
        finally:
            os.chdir(REPO)
        answered.append(family["name"])
    assert len(answered) == len(families(installed, tmp_path)) >= 20
    assert {"nim", "cram", "nodekayles", "hackenbush", "dag", "graph"} <= set(answered)


def test_the_installed_wheel_builds_and_reads_a_database(installed: Path, tmp_path: Path) -> None:
    """The migrations ship in the wheel: the README's main command works from it."""
    check([str(installed), "build", "nim", "3,4,5"], cwd=tmp_path)
    stats = json.loads(check([str(installed), "stats", "nim", "--json"], cwd=tmp_path))
    assert stats["states"] == stats["solved"] == 48  # heap multisets below 3,4,5
