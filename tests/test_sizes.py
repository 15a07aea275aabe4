"""Sizes a reader can hold (#42): no module of `storage/` or of the build stage over 500 lines, no
function anywhere over 80 lines. The numba kernels are exempt, each saying in its docstring which
case it handles: a kernel is a function decorated with numba's ``njit`` or ``jit``, or handed to
one (``njit(...)(function)``).

Measured with `ast`: a function from its ``def`` line to its last line (``end_lineno - lineno +
1``, its decorators not counted), a module by its lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.environment import REPO

#: The most lines a module of the folders below may have.
MODULE_LINES = 500
#: The folders of the package whose modules keep to `MODULE_LINES`.
SIZED_FOLDERS = ("storage", "build")
#: The most lines a function may have, a numba kernel's excepted.
FUNCTION_LINES = 80
#: The names numba compiles a function with.
COMPILERS = {"njit", "jit"}

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _compiler(node: ast.expr) -> bool:
    """Whether `node` names numba's compiler: ``njit``, ``numba.njit``, ``njit(cache=True)``."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr in COMPILERS
    return isinstance(node, ast.Name) and node.id in COMPILERS


def kernels(tree: ast.Module) -> set[str]:
    """The names of a module's numba kernels: decorated with the compiler, or handed to it
    (``njit(function)``, ``njit(cache=True)(function)``)."""
    found = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, Function) and any(_compiler(d) for d in node.decorator_list)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _compiler(node.func):
            found |= {arg.id for arg in node.args if isinstance(arg, ast.Name)}
    return found


def package_modules(package: Path) -> list[tuple[str, ast.Module, int]]:
    """Each module of `package`: its path (from the package), its tree and its lines."""
    return [
        (path.relative_to(package).as_posix(), ast.parse(text), len(text.splitlines()))
        for path in sorted(package.rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
    ]


def long_modules(package: Path) -> list[str]:
    """The modules of the sized folders over `MODULE_LINES`, with their lines."""
    return [
        f"{name}: {lines} lines"
        for name, _, lines in package_modules(package)
        if name.split("/")[0] in SIZED_FOLDERS and lines > MODULE_LINES
    ]


def long_functions(package: Path) -> list[str]:
    """The functions over `FUNCTION_LINES` that are not numba kernels, with their lines."""
    found = []
    for name, tree, _ in package_modules(package):
        exempt = kernels(tree)
        for node in ast.walk(tree):
            if isinstance(node, Function) and node.name not in exempt:
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > FUNCTION_LINES:
                    found.append(f"{name}: {node.name} {lines} lines")
    return found


def undocumented_kernels(package: Path) -> list[str]:
    """The numba kernels over `FUNCTION_LINES` (exempt from it) that say nothing of what they
    handle: no docstring."""
    return [
        f"{name}: {node.name}"
        for name, tree, _ in package_modules(package)
        for node in ast.walk(tree)
        if isinstance(node, Function)
        and (node.end_lineno or node.lineno) - node.lineno + 1 > FUNCTION_LINES
        and node.name in kernels(tree)
        and not ast.get_docstring(node)
    ]


def test_no_module_of_storage_or_the_build_stage_is_over_500_lines():
    assert long_modules(REPO / "explorer") == []


def test_no_function_is_over_80_lines_but_the_numba_kernels():
    assert long_functions(REPO / "explorer") == []


def test_every_long_numba_kernel_says_what_it_handles():
    package = REPO / "explorer"
    assert undocumented_kernels(package) == []
    assert kernels(ast.parse((package / "solver" / "sparse_kernel.py").read_text())) >= {
        "_known_options",
        "_member",
        "_phase2",
        "_extend_one",
    }


def _function(name: str, lines: int, decorator: str = "", *, docstring: bool = True) -> str:
    """The text of a function of exactly `lines` lines (a docstring, then ``pass`` lines)."""
    first = '    """A planted function."""' if docstring else "    pass"
    body = [first] + ["    pass"] * (lines - 2)
    return "\n".join([decorator, f"def {name}() -> None:", *body, ""]).lstrip("\n")


@pytest.fixture
def package(tmp_path: Path) -> Path:
    for folder in ("storage", "build", "games"):
        (tmp_path / folder).mkdir()
    return tmp_path


@pytest.mark.parametrize("folder", ["storage", "build"])
def test_a_planted_module_of_501_lines_is_found(package, folder):
    (package / folder / "full.py").write_text("x = 1\n" * 500)
    (package / folder / "over.py").write_text("x = 1\n" * 501)
    (package / "games" / "elsewhere.py").write_text("x = 1\n" * 600)
    assert long_modules(package) == [f"{folder}/over.py: 501 lines"]


def test_a_planted_function_of_81_lines_is_found(package):
    (package / "games" / "rules.py").write_text(
        _function("fits", 80)
        + "\n\nclass Rules:\n    "
        + _function("over", 81).replace("\n", "\n    ")
    )
    assert long_functions(package) == ["games/rules.py: over 81 lines"]


def test_a_numba_kernel_is_exempt_and_must_say_what_it_handles(package):
    kernels_module = package / "build" / "kernels.py"
    kernels_module.write_text(
        "from numba import njit\nimport numba\n\n"
        + _function("decorated", 120, "@njit(cache=True)")
        + _function("qualified", 120, "@numba.jit")
        + _function("handed", 120)
        + "compiled = njit(cache=True, nogil=True)(handed)\n"
        + _function("plain", 81)
    )
    assert long_functions(package) == ["build/kernels.py: plain 81 lines"]
    assert undocumented_kernels(package) == []
    kernels_module.write_text(
        "from numba import njit\n\n"
        + _function("silent", 81, "@njit", docstring=False)
        + _function("quiet", 81, docstring=False)
        + "fast = njit(quiet)\n"
        + _function("short", 3, "@njit", docstring=False)
    )
    assert undocumented_kernels(package) == ["build/kernels.py: silent", "build/kernels.py: quiet"]
