"""``py:`` specs and plugins: which file or module a spec names, its canonical spec (found without
running it), importing exactly that file, and the families installed packages add through the
entry-point group ``explorer.games``.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.machinery
import importlib.metadata
import importlib.util
import os
import re
import sys
import traceback
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from explorer.errors import GameCodeError, PositionError, SpecError
from explorer.games.base import Game
from explorer.games.position_text import format_position, parse_position
from explorer.games.python import adopt
from explorer.games.rule_calls import call_rule, code_fingerprint, way_out
from explorer.games.rules_files import files_read_once, read_rules_file

#: The entry-point group through which installed packages add game families.
ENTRY_POINT_GROUP = "explorer.games"
#: The decorators and base classes that mark a game in a rules file read without running it.
_MARKERS = ("heap_game", "game", "Game", "HeapGame")
_FINGERPRINT = re.compile(r"@([0-9a-f]{16})$")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


@dataclass(frozen=True)
class PythonSpec:
    """A ``py:`` spec taken apart: the file or module, the name in it, the fingerprint."""

    target: str
    name: str | None = None
    fingerprint: str | None = None

    @property
    def is_file(self) -> bool:
        return self.target.endswith(".py")

    def text(self) -> str:
        name = f":{self.name}" if self.name else ""
        mark = f"@{self.fingerprint}" if self.fingerprint else ""
        return f"py:{self.target}{name}{mark}"


def is_python_spec(piece: str) -> bool:
    """Whether one piece of a spec is a ``py:`` spec.

    Examples
    --------
    >>> is_python_spec(" py:mine.py"), is_python_spec("nim")
    (True, False)
    """
    return piece.strip()[:3].lower() == "py:"


def split_spec(parameters: str) -> PythonSpec:
    """Take apart what follows ``py:``: ``FILE.py``, ``FILE.py:NAME``, ``package.module:NAME``,
    each optionally ending ``@FINGERPRINT``.

    Examples
    --------
    >>> split_spec("games/mine.py:stones@0123456789abcdef")
    PythonSpec(target='games/mine.py', name='stones', fingerprint='0123456789abcdef')
    >>> split_spec("pkg.rules:stones")
    PythonSpec(target='pkg.rules', name='stones', fingerprint=None)
    """
    text = parameters.strip()
    fingerprint = None
    found = _FINGERPRINT.search(text)
    if found:
        fingerprint, text = found.group(1), text[: found.start()]
    if not text:
        raise SpecError("py needs a file or a module, e.g. py:mine.py or py:package.module:NAME")
    if text.endswith(".py"):
        return PythonSpec(text, None, fingerprint)
    head, colon, name = text.rpartition(":")
    if colon and head.endswith(".py"):
        target = head
    elif colon and _MODULE.fullmatch(head):
        target = head
    elif _MODULE.fullmatch(text):
        target, name = text, ""
    else:
        raise SpecError(
            f"bad py spec {parameters!r} (expected py:FILE.py, py:FILE.py:NAME or "
            "py:package.module:NAME)"
        )
    if name and not name.isidentifier():
        raise SpecError(f"bad game name {name!r} in py:{parameters} (expected a Python name)")
    return PythonSpec(target, name or None, fingerprint)


def _module_file(module: str) -> str | None:
    """The file of a module, found along ``sys.path`` without importing anything."""
    search: list[str] | None = None
    found = None
    parts = module.split(".")
    for depth in range(len(parts)):
        found = importlib.machinery.PathFinder.find_spec(".".join(parts[: depth + 1]), search)
        if found is None:
            return None
        search = list(found.submodule_search_locations or [])
    return None if found is None else found.origin


def _module_missing(module: str) -> str:
    """Why a module names no rules file: missing, or one that exists without a source file of
    its own (built into Python, compiled, or a name another module sets, as ``os.path``)."""
    parts = module.split(".")
    found = [
        ".".join(parts[: depth + 1])
        for depth in range(len(parts))
        if _module_file(".".join(parts[: depth + 1])) is not None
        or ".".join(parts[: depth + 1]) in sys.builtin_module_names
    ]
    if not found:
        return f"module {module!r} not found"
    if found[-1] == module:
        return f"module {module!r} has no Python source file (it is built in or compiled)"
    return (
        f"module {module!r} has no Python source file of its own ({found[-1]!r} exists, but "
        f"{module!r} is no file in it: a game's module is a .py file, py:package.module:NAME)"
    )


def resolved(spec: PythonSpec) -> tuple[PythonSpec, str | None]:
    """The spec with its file resolved (an absolute path) and the file's path, if it exists."""
    if spec.is_file:
        path = os.path.realpath(spec.target)
        return PythonSpec(path, spec.name, spec.fingerprint), path if os.path.isfile(path) else None
    _working_folder_searched()
    found = _module_file(spec.target)
    return spec, found if found is not None and os.path.isfile(found) else None


def _working_folder_searched() -> None:
    """Put the working folder on ``sys.path`` (first) if it is not there: a module is found
    from where the command runs, as ``python -c "import pkg.rules"`` finds it, though the
    ``explorer`` script's own ``sys.path`` starts at its installed folder."""
    here = os.getcwd()
    searched = {os.path.realpath(entry or os.curdir) for entry in sys.path}
    if os.path.realpath(here) not in searched:
        sys.path.insert(0, here)


def game_names(path: str) -> list[str]:
    """The games a rules file defines at its top level, read without running it: functions
    decorated ``@heap_game`` or ``@game`` (with or without ``explorer.``), assignments from a
    call to either, and subclasses of ``Game`` or ``HeapGame``."""
    return list(game_kinds(path))


def game_kinds(path: str) -> dict[str, str]:
    """The games of `game_names` and how each is marked: ``heap_game``, ``game``, ``Game``
    or ``HeapGame``."""
    try:
        tree = ast.parse(read_rules_file(path), filename=path)
    except (SyntaxError, ValueError, OSError):
        return {}
    kinds: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            marks = [m for m in map(_mark, node.decorator_list) if m]
        elif isinstance(node, ast.ClassDef):
            marks = [m for m in map(_mark, node.bases) if m]
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
        ):
            marks = [m for m in [_mark(node.value)] if m]
        else:
            continue
        if marks:
            name = node.targets[0].id if isinstance(node, ast.Assign) else node.name  # type: ignore[attr-defined]
            kinds.setdefault(name, marks[0])
    return kinds


def _mark(node: ast.expr) -> str | None:
    """The game marker a decorator, base or call names, if any."""
    while isinstance(node, ast.Call):
        node = node.func
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name if name in _MARKERS else None


def canonical_python_spec(piece: str) -> str:
    """The spec a ``py:`` game is stored under, found without running its file: the resolved
    file (or the module), the game's name, and the fingerprint given, else that of the file as
    it is now (none when the file is gone).

    Examples
    --------
    >>> import os
    >>> canonical_python_spec("py:/nowhere/mine.py:stones")
    'py:/nowhere/mine.py:stones'
    """
    try:
        spec, path = resolved(split_spec(piece.strip()[3:]))
    except SpecError:
        return piece.strip()
    if path is None:
        return spec.text()
    name: str | None = spec.name
    if name is None:
        names = game_names(path)
        name = names[0] if len(names) == 1 else None
    return PythonSpec(spec.target, name, spec.fingerprint or code_fingerprint(path)).text()


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


# -- importing ---------------------------------------------------------------------------------
_LOADED: dict[tuple[str, str], ModuleType] = {}


def _import_file(path: str, fingerprint: str) -> ModuleType:
    """Run exactly this file as a module (once per content), its errors as one line."""
    key = (path, fingerprint)
    if key in _LOADED:
        return _LOADED[key]
    name = "explorer_py_" + hashlib.sha256(path.encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise GameCodeError(f"cannot load {_shown(path)!r} as Python (expected a .py file)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        call_rule(spec.loader.exec_module, module)  # what it prints goes to standard error
    except BaseException as error:  # anything but Ctrl-C (see `way_out`)
        sys.modules.pop(name, None)
        raise _import_failure(error, path) from None
    _LOADED[key] = module
    return module


def _import_failure(error: BaseException, path: str) -> GameCodeError:
    """One line for a file that does not import: where, and why."""
    if isinstance(error, SyntaxError):
        where = f"{_shown(error.filename or path)}, line {error.lineno}"
        return GameCodeError(f"{where}: syntax error: {error.msg} (fix the file, then run again)")
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if os.path.realpath(frame.filename) == path:
            line = frame.lineno
    where = _shown(path) + ("" if line is None else f", line {line}")
    return GameCodeError(f"{where}: importing it {way_out(error)} (fix the file, then run again)")


@files_read_once()
def load_python_game(parameters: str | None) -> Game[Any]:
    """The game a ``py:`` spec names, its file run (only that file; a module's package too).

    Raises
    ------
    GameCodeError
        A missing file or module, one that does not import, or no single game in it.
    """
    if not parameters:
        raise SpecError("py needs a file or a module, e.g. py:mine.py or py:package.module:NAME")
    spec, path = resolved(split_spec(parameters))
    shown = _shown(spec.target) if spec.is_file else spec.target
    if path is None:
        if spec.is_file:
            raise GameCodeError(f"file {shown!r} not found (py:{parameters.strip()})")
        raise GameCodeError(f"{_module_missing(spec.target)} (py:{parameters.strip()})")
    if spec.is_file:
        module = _import_file(path, code_fingerprint(path))
        # named as typed, like a DAG file (storage names it by its resolved path)
        target: str | None = os.path.normpath(split_spec(parameters).target)
    else:
        try:
            module = call_rule(importlib.import_module, spec.target)
        except BaseException as error:
            raise _import_failure(error, path) from None
        target = spec.target
    names = [spec.name] if spec.name else game_names(path)
    if not spec.name and len(names) != 1:
        found = [n for n, v in vars(module).items() if _defined_game(v, module, n, path, target)]
        names = found if found else names
    if not names:
        raise GameCodeError(
            f"{shown!r} defines no game (decorate a function with @explorer.heap_game or "
            "@explorer.game, or subclass explorer.Game)"
        )
    if len(names) > 1:
        listing = ", ".join(f"py:{shown}:{n}" for n in names)
        raise GameCodeError(f"{shown!r} defines {len(names)} games: name one ({listing})")
    name = names[0]
    if not hasattr(module, name):
        raise GameCodeError(f"{shown!r} has no {name!r}")
    game = adopt(getattr(module, name), name, path, target)
    if game is None:
        raise GameCodeError(
            f"{name!r} in {shown!r} is not a game (decorate it with @explorer.heap_game or "
            "@explorer.game, or make it a subclass of explorer.Game)"
        )
    return game


def _defined_game(
    value: object, module: ModuleType, name: str, path: str, target: str | None
) -> bool:
    """Whether a module attribute is a game defined in that module (not one imported)."""
    origin = getattr(value, "rule", None) or value
    if getattr(origin, "__module__", None) != module.__name__:
        inner = getattr(value, "inner", None)
        if getattr(type(inner), "__module__", None) != module.__name__:
            return False
    return adopt(value, name, path, target) is not None


# -- plugins -----------------------------------------------------------------------------------
def plugin_entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    """The families installed packages add, by name (read afresh: a package may be new)."""
    return {ep.name: ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}


def plugin_source(entry: importlib.metadata.EntryPoint) -> str:
    """Where a plugin family comes from: its package and version."""
    dist = entry.dist
    return "entry point" if dist is None else f"entry point of {dist.name} {dist.version}"


def load_plugin(
    name: str, entry: importlib.metadata.EntryPoint, parameters: str | None
) -> Game[Any]:
    """The game of a plugin family: a `Game` subclass made by ``from_parameters``, or a game
    (a decorated function) that takes no parameters; its spec is the family's name."""
    try:
        value = entry.load()
    except Exception as error:
        raise GameCodeError(
            f"the family {name!r} of {plugin_source(entry)} does not load: "
            f"{type(error).__name__}: {error}"
        ) from None
    if isinstance(value, type) and issubclass(value, Game):
        return value.from_parameters(parameters)
    if parameters is not None:
        raise SpecError(f"{name} takes no parameter, got {parameters!r} (use just {name!r})")
    game = adopt(value, name, None, None)
    if game is None:
        raise GameCodeError(f"the family {name!r} of {plugin_source(entry)} is not a game")
    game.source.family = name  # type: ignore[attr-defined]
    return game


# -- games read back from a database without their code ----------------------------------------
class StoredRules(Game[Any]):
    """A stand-in for a ``py:`` game read from a database: it reads and writes positions in the
    default text syntax and knows no moves, so that reading a stored game never runs its code."""

    family = "py"
    position_syntax = "as stored"

    def __init__(self, spec: str) -> None:
        self._spec = spec
        self.heaps = _heap_rule(spec)

    @property
    def spec(self) -> str:
        return self._spec

    def parse(self, text: str) -> Any:
        try:
            position = parse_position(text)
            if self.heaps and isinstance(position, tuple):  # a heap game writes heaps sorted
                position = tuple(sorted(h for h in position if h)) or 0
            return format_position(position)
        except (PositionError, TypeError):
            return text.strip()

    def format(self, position: Any) -> str:
        return str(position)

    def successors(self, position: Any) -> Any:
        raise GameCodeError(f"{self._spec} is read from a database: its moves are not known here")


def shown_python_spec(piece: str) -> str:
    """A stored ``py:`` spec as shown: its file relative to the working folder when inside it.

    Examples
    --------
    >>> import os
    >>> shown_python_spec("py:" + os.path.abspath("mine.py") + ":stones@0123456789abcdef")
    'py:mine.py:stones@0123456789abcdef'
    """
    spec = split_spec(piece.strip()[3:])
    if not spec.is_file or not os.path.isabs(spec.target):
        return piece.strip()
    return PythonSpec(_shown(spec.target), spec.name, spec.fingerprint).text()


def unpinned_python_spec(piece: str) -> str:
    """A ``py:`` spec without its fingerprint: it names every build of its file's game.

    Examples
    --------
    >>> unpinned_python_spec("py:/a/m.py:g@0123456789abcdef")
    'py:/a/m.py:g'
    """
    try:
        spec = split_spec(piece.strip()[3:])
    except SpecError:
        return piece.strip()
    return PythonSpec(spec.target, spec.name).text()


def python_specs_match(asked: str, stored: str) -> bool:
    """Whether a canonical spec asked for may name a stored one: piece by piece equal, except
    that a ``py:`` piece without a name or a fingerprint matches any.

    Examples
    --------
    >>> python_specs_match("py:/a/m.py + nim", "py:/a/m.py:g@0123456789abcdef + nim")
    True
    >>> python_specs_match("py:/a/m.py:h", "py:/a/m.py:g@0123456789abcdef")
    False
    """
    mine, theirs = asked.split(" + "), stored.split(" + ")
    if len(mine) != len(theirs):
        return False
    for a, b in zip(mine, theirs, strict=True):
        if a == b:
            continue
        if not (is_python_spec(a) and is_python_spec(b)):
            return False
        try:
            want, have = split_spec(a.strip()[3:]), split_spec(b.strip()[3:])
        except SpecError:
            return False
        if want.target != have.target:
            return False
        if want.name not in (None, have.name):
            return False
        if want.fingerprint not in (None, have.fingerprint):
            return False
    return True


def _heap_rule(spec: str) -> bool:
    """Whether a stored ``py:`` spec names a ``@heap_game`` (read from its file without running
    it; False when the file is gone)."""
    parts, path = resolved(split_spec(spec.strip()[3:]))
    if path is None or parts.name is None:
        return False
    return game_kinds(path).get(parts.name) in ("heap_game", "HeapGame")


def stored_rules(spec: str) -> Game[Any]:
    """The game a spec names for reading a database: built-in games load as usual; a ``py:``
    piece is a `StoredRules` stand-in, so that reading never runs a user's code.

    Examples
    --------
    >>> stored_rules("py:/gone/mine.py:g + nim").parse("3, 5 + 4,3")
    ('3,5', (3, 4))
    """
    from explorer.games import load_game
    from explorer.games.sums import SEPARATOR, SumGame

    pieces = spec.split(SEPARATOR)
    if not any(is_python_spec(piece) for piece in pieces):
        return load_game(spec)
    parts = [
        StoredRules(canonical_python_spec(p)) if is_python_spec(p) else load_game(p) for p in pieces
    ]
    return parts[0] if len(parts) == 1 else SumGame(parts)


def rules_changed(stored: str, current: str) -> str:
    """What to say when a stored game's Python rules have changed since its build: the file,
    the fingerprint then and now (an empty string when they have not).

    Examples
    --------
    >>> note = rules_changed("py:/a/m.py:g@0000000000000000", "py:/a/m.py:g@1111111111111111")
    >>> note[:70]
    '; py:/a/m.py:g changed since the build (fingerprint 0000000000000000 t'
    """
    notes = []
    for then, now in zip(stored.split(" + "), current.split(" + "), strict=False):
        if is_python_spec(then) and is_python_spec(now):
            old, new = split_spec(then.strip()[3:]), split_spec(now.strip()[3:])
            if old.fingerprint == new.fingerprint:
                continue
            name = shown_python_spec(PythonSpec(old.target, old.name).text())
            notes.append(
                f"{name} changed since the build (fingerprint {old.fingerprint} then, "
                f"{new.fingerprint} now)"
            )
    if not notes:
        return ""
    return "; " + "; ".join(notes) + ": its moves are checked against the rules as they are now"


def plugin_rows() -> list[dict[str, str]]:
    """What ``explorer games`` lists for each family an installed package adds: its name,
    parameters, position syntax, example, summary and source; a family that does not load
    says why in its summary."""
    rows = []
    for name, entry in sorted(plugin_entry_points().items()):
        row = {"name": name, "parameters": "none", "position": "", "example": "", "summary": ""}
        try:
            value = entry.load()
            if isinstance(value, type) and issubclass(value, Game):
                example = " ".join(getattr(value, "example", ()))
                row |= {
                    "parameters": getattr(value, "parameters", "none"),
                    "position": getattr(value, "position_syntax", ""),
                    "example": example,
                    "summary": getattr(value, "summary", ""),
                }
            else:
                game = load_plugin(name, entry, None)
                start = getattr(game, "start", None)
                doc = (getattr(game, "__doc__", None) or "").strip().splitlines()
                row |= {
                    "position": getattr(game, "syntax", None) or str(game.position_syntax),
                    "example": name + (f" {start}" if start else ""),
                    "summary": doc[0] if doc else "",
                }
        except Exception as error:  # a broken plugin is listed, not fatal to the listing
            row["summary"] = f"does not load: {type(error).__name__}: {error}"
        rows.append(row | {"source": plugin_source(entry)})
    return rows


#: The row ``explorer games`` lists for games in a Python file.
PY_ROW = {
    "name": "py",
    "parameters": "FILE.py, FILE.py:NAME or package.module:NAME",
    "position": "ints, strings, tuples: 5, 3,5, (1,2),(3,)",
    "example": "py:data/stones.py 10",
    "summary": "your own game in Python: @explorer.heap_game, @explorer.game, explorer.Game",
}
