"""Every third-party module explorer imports is a declared dependency.

CI runs on the developers' machine, where a package installed by hand can hide a missing
declaration (igraph did: a fresh ``pip install .`` then failed on every graph game). So every
import in the package, at module level or inside a function, must name a distribution that
``pyproject.toml`` declares: in ``dependencies``, or in an extra when the import sits inside a
function that refuses with an ``Error:`` when it is missing (Dask's ``distributed``).
"""

from __future__ import annotations

import ast
import re
import shutil
import sys
import tomllib
from dataclasses import dataclass
from importlib.metadata import packages_distributions
from pathlib import Path

from tests.support.environment import REPO


@dataclass(frozen=True)
class Imported:
    """One import of a third-party module: where, and whether at module level."""

    module: str
    place: str
    top_level: bool


def third_party_imports(package: Path) -> list[Imported]:
    """Every import of a module outside the standard library and the package itself."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in ("__future__", package.name):
                    continue
                place = f"{path.relative_to(package.parent)}:{node.lineno}"
                found.append(Imported(top, place, id(node) in top_level))
    return found


def normalised(distribution: str) -> str:
    """A distribution's name as PyPI compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", distribution).lower()


def declared(pyproject: Path) -> tuple[set[str], set[str]]:
    """The distributions ``pyproject`` declares: required ones, and those of the extras a user
    installs for a feature (not the ``test`` extra, which only the developers install)."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {normalised(re.match(r"[A-Za-z0-9._-]+", r)[0]) for r in requirements}  # type: ignore[index]

    features = project.get("optional-dependencies", {})
    extras = set().union(*(names(r) for extra, r in features.items() if extra != "test"))
    return names(project["dependencies"]), extras


def undeclared(package: Path, pyproject: Path) -> list[str]:
    """What the package imports without declaring it, one line a place (empty when all is
    declared). A module installed by no distribution on this machine counts as undeclared."""
    required, extras = declared(pyproject)
    owners = packages_distributions()
    problems = []
    for imported in third_party_imports(package):
        distributions = {normalised(d) for d in owners.get(imported.module, [])}
        if distributions & required:
            continue
        if distributions & extras and not imported.top_level:
            continue
        where = "at module level, " if distributions & extras else ""
        problems.append(
            f"{imported.place}: imports {imported.module} ({where}declared by none of "
            f"{sorted(distributions) or 'no installed distribution'})"
        )
    return problems


def test_every_imported_module_is_declared() -> None:
    assert undeclared(REPO / "explorer", REPO / "pyproject.toml") == []


def test_the_check_sees_every_kind_of_import() -> None:
    """It finds imports at module level and inside functions, plain and ``from``."""
    modules = {(i.module, i.top_level) for i in third_party_imports(REPO / "explorer")}
    assert ("numpy", True) in modules
    assert ("distributed", False) in modules  # inside the cluster driver's function


def plant(tmp_path: Path, line: str, *, drop: str | None = None) -> list[str]:
    """A copy of the package and pyproject with ``line`` added to a module (and the
    requirement ``drop`` removed from pyproject): what the check then says."""
    package = tmp_path / "explorer"
    shutil.copytree(REPO / "explorer", package, ignore=shutil.ignore_patterns("__pycache__"))
    module = package / "games" / "base.py"
    module.write_text(module.read_text(encoding="utf-8") + line, encoding="utf-8")
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    if drop is not None:
        text = re.sub(rf'\n\s*"{drop}[^"]*",', "", text)
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    return undeclared(package, tmp_path / "pyproject.toml")


def test_a_planted_import_of_an_undeclared_package_fails(tmp_path: Path) -> None:
    """pytest is installed here but only as a test tool: importing it inside a function of the
    package is caught."""
    problems = plant(tmp_path, "\n\ndef planted() -> None:\n    import pytest  # noqa\n")
    assert len(problems) == 1
    assert problems[0].startswith("explorer/games/base.py:") and "imports pytest" in problems[0]


def test_an_installed_package_dropped_from_the_declarations_fails(tmp_path: Path) -> None:
    """The case that broke a fresh machine: igraph imported, installed here, not declared."""
    problems = plant(tmp_path, "", drop="igraph")
    assert [p.split(": ")[1] for p in problems] == [
        "imports igraph (declared by none of ['igraph'])"
    ]


def test_an_extra_imported_at_module_level_fails(tmp_path: Path) -> None:
    """A package of an extra may be imported only where its absence can be refused."""
    problems = plant(tmp_path, "\nimport distributed  # noqa\n")
    assert len(problems) == 1 and "at module level" in problems[0]


def test_a_module_that_no_distribution_installs_fails(tmp_path: Path) -> None:
    problems = plant(tmp_path, "\n\ndef planted() -> None:\n    import no_such_module_x  # noqa\n")
    assert len(problems) == 1 and "no installed distribution" in problems[0]
