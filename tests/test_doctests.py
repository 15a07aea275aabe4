"""Every docstring example in the package runs (numpydoc Examples sections are doctests)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import explorer
from tests.conftest import REPO

MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(explorer.__path__, "explorer.")
    if not name.endswith("__main__")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, monkeypatch):
    monkeypatch.chdir(REPO)
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.failed == 0
