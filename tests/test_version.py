"""The version is written once (pyproject.toml) and read from the installed package's metadata."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

import explorer
from tests.support.environment import REPO


def test_the_version_is_the_installed_metadata_and_pyproject():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    assert explorer.__version__ == importlib.metadata.version("explorer")
    assert explorer.__version__ == pyproject["project"]["version"]


def test_no_module_writes_the_version_itself():
    package = REPO / "explorer"
    version = re.escape(importlib.metadata.version("explorer"))
    written = re.compile(rf"__version__\s*=|['\"]{version}['\"]")
    found = [
        str(path.relative_to(package))
        for path in sorted(package.rglob("*.py"))
        if written.search(path.read_text("utf-8")) and path.name != "version.py"
    ]
    assert found == []


def test_storage_names_the_version_from_below_not_from_the_package_top():
    upward = re.compile(r"^from explorer import|^import explorer$", re.MULTILINE)
    found = [
        path.name
        for path in sorted((REPO / "explorer" / "storage").rglob("*.py"))
        if upward.search(path.read_text("utf-8"))
    ]
    assert found == []
