"""Every docstring example in the package runs (numpydoc Examples sections are doctests)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import explorer
from tests.support.environment import REPO

#: Modules with no docstring example besides the CLI's (its commands run in test_cli and the
#: README sessions): declarations (errors, the game base class, ORM tables, the storage package's
#: re-exports), games whose rules the conformance test of test_registry runs, the notebook
#: views (HTML for Jupyter, checked in test_viz), and the builders (run by the example of
#: `explorer.build.run` and by test_tiers).
WITHOUT_EXAMPLES = {
    "explorer.analysis",
    "explorer.build",
    "explorer.build.one_process",
    "explorer.build.tier_manager",
    "explorer.build.tier_resume",
    "explorer.build.tier_worker",
    "explorer.build.writer",
    "explorer.cli",
    "explorer.errors",
    "explorer.formats",
    "explorer.games.base",
    "explorer.games.chomp",
    "explorer.games.splitting",
    "explorer.games.staircase",
    "explorer.games.sums",
    "explorer.generation",
    "explorer.generation.expansion",
    "explorer.limits",
    "explorer.storage",
    "explorer.storage.backends",
    "explorer.storage.query",
    "explorer.storage.query.export",
    "explorer.storage.query.neighbourhood",
    "explorer.storage.rows",
    "explorer.storage.rows.records",
    "explorer.storage.rows.sequences",
    "explorer.storage.schema",
    "explorer.storage.schema.models",
    "explorer.viz.notebook",
    "explorer.web",
}

PACKAGE = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(explorer.__path__, "explorer.")
    if not name.endswith("__main__")
)
MODULES = [
    name
    for name in PACKAGE
    if name not in WITHOUT_EXAMPLES and not name.startswith("explorer.cli.")
]
#: Modules whose examples compute for seconds (their cases are marked slow).
SLOW = {"explorer.solver.sparse", "explorer.solver.sparse_kernel"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in MODULES]
)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(REPO)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0, f"{name} has no docstring example (or list it above)"
    assert result.failed == 0


def test_the_modules_listed_without_examples_exist():
    assert WITHOUT_EXAMPLES <= set(PACKAGE)
