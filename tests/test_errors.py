"""Every exception class of the package lives in explorer/errors.py, under `ExplorerError`."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import explorer
import explorer.errors

PACKAGE = Path(explorer.__file__).parent
MODULES = sorted(
    name
    for _, name, _ in pkgutil.walk_packages(explorer.__path__, "explorer.")
    if not name.endswith("__main__")
)


def exception_classes(module: object) -> list[type[BaseException]]:
    """The exception classes a module defines itself (not those it imports)."""
    return [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, BaseException)
        and value.__module__ == getattr(module, "__name__", None)
    ]


def classes_named_like_errors(source: str) -> list[str]:
    """Classes whose name or a base's name ends in Error or Exception, at any depth (classes
    inside functions too, which importing the module does not show)."""
    suffixes = ("Error", "Exception")
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        bases = [ast.unparse(base) for base in node.bases]
        if node.name.endswith(suffixes) or any(b.endswith(suffixes) for b in bases):
            found.append(node.name)
    return found


def test_no_module_but_errors_defines_an_exception_class():
    strays = {
        name: [cls.__name__ for cls in exception_classes(importlib.import_module(name))]
        for name in MODULES
        if name != "explorer.errors"
    }
    assert {name: found for name, found in strays.items() if found} == {}


def test_no_source_file_but_errors_declares_an_exception_class():
    strays = {
        str(path.relative_to(PACKAGE)): classes_named_like_errors(path.read_text("utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != PACKAGE / "errors.py"
    }
    assert {name: found for name, found in strays.items() if found} == {}


def test_the_checks_see_the_classes_of_errors_py():
    # the two checks above would pass on a walk that found nothing: they find these
    classes = exception_classes(explorer.errors)
    assert explorer.errors.ExplorerError in classes
    assert explorer.errors.ServeError in classes
    declared = classes_named_like_errors((PACKAGE / "errors.py").read_text("utf-8"))
    assert {cls.__name__ for cls in classes} <= set(declared) | {"_Message"}
    assert "explorer.web.app" in MODULES and "explorer.errors" in MODULES


def test_a_class_defined_elsewhere_is_found():
    source = "def f():\n    class Oops(ValueError):\n        pass\n\nclass Fine:\n    pass\n"
    assert classes_named_like_errors(source) == ["Oops"]
    module = type(explorer)("explorer.fake")
    exec("class Stray(Exception):\n    pass\nfrom explorer.errors import SpecError", vars(module))
    assert [cls.__name__ for cls in exception_classes(module)] == ["Stray"]


def test_every_error_class_is_an_explorer_error():
    outside = [
        cls.__name__
        for cls in exception_classes(explorer.errors)
        # a stop (no Exception, like KeyboardInterrupt: the work bound, an exit) is no error
        if issubclass(cls, Exception) and not issubclass(cls, explorer.errors.ExplorerError)
    ]
    assert outside == []
