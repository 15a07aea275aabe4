"""Calling a user's rules: where a rule lives (`RuleSource`, its file, line and fingerprint), a
call that cannot end the process or write into explorer's output (`call_rule`), the guard that
caps and repeats a rule's answers (`RuleGuard`), and the one-line error for any way a rule
fails. The games whose rules are Python code (`explorer.games.python`) call them through here.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from itertools import islice
from types import CodeType
from typing import Any, NoReturn, TypeVar

from explorer.errors import ExitCalled, RuleError, WorkLimitError
from explorer.games.rules_files import read_rules_file

Rule = Callable[[Any], Iterable[Any]]
T = TypeVar("T")

#: Moves one position may have before its rule is taken for one that never ends (a rule's
#: ``max_moves=`` raises it).
DEFAULT_MAX_MOVES = 1_000_000
#: A rule is asked twice for the successors of this many positions first ...
CHECK_FIRST = 256
#: ... and of every this-many-th position after: rules that answer differently are caught.
CHECK_EVERY = 64
#: What a game's spec names instead of a file when its rules have none (a notebook cell).
NO_FILE = "notebook"


_PROCESS_EXIT = os._exit


def _refused_exit(status: int) -> NoReturn:
    raise ExitCalled(status)


def call_rule(function: Callable[[Any], T], argument: Any) -> T:
    """`function(argument)`, user code, run so that it cannot end the process or write into
    explorer's output: ``os._exit`` raises `ExitCalled` instead (a build is then taken back
    like any failure of the rule), and what it prints goes to standard error (standard output
    holds explorer's answer, which ``--json`` keeps valid JSON). A recursion limit the rule
    raises holds only while it runs: left raised, a later deep recursion through C frames
    overflows the C stack and kills the process instead of raising `RecursionError`. Nothing
    can stop a rule that kills its own process (a signal, ``posix._exit``): that is a killed
    build, whose committed batches are kept and resumed, as after ``kill -9``."""
    out, limit = sys.stdout, sys.getrecursionlimit()
    os._exit, sys.stdout = _refused_exit, sys.stderr
    try:
        return function(argument)
    finally:
        os._exit, sys.stdout = _PROCESS_EXIT, out
        if sys.getrecursionlimit() != limit:
            sys.setrecursionlimit(limit)


def way_out(error: BaseException) -> str:
    """How an exception left user code, in words, whatever it does (its ``str()`` may raise).

    Raises
    ------
    KeyboardInterrupt, WorkLimitError
        Raised again: Ctrl-C and the work bound are the user's, not the rule's, and stop the
        command as anywhere else.
    """
    if isinstance(error, KeyboardInterrupt | WorkLimitError):
        raise error
    if isinstance(error, ExitCalled):
        return f"called os._exit({error.code!r})"
    if isinstance(error, SystemExit):
        return f"called sys.exit({error.code!r})"
    kind = type(error).__name__
    try:
        text = str(error)
        detail = text.splitlines()[0] if text else ""
    except BaseException as inner:  # noqa: BLE001 - a message that cannot be written is said so
        if isinstance(inner, KeyboardInterrupt):
            raise
        detail = f"(its message cannot be written: str() raised {type(inner).__name__})"
    if not detail and isinstance(error, MemoryError):
        detail = "it ran out of memory (something it builds is too large)"
    return f"raised {kind}{': ' + detail if detail else ''}"


def shown_file(path: str) -> str:
    """A file relative to the working folder when inside it, else absolute."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith(os.pardir) else relative


def code_fingerprint(path: str | None, code: CodeType | None = None) -> str:
    """The fingerprint of the code a game runs: SHA-256 of its file's bytes (16 hex digits);
    of the function's compiled code when it has no file (a notebook cell).

    Examples
    --------
    >>> len(code_fingerprint(None, (lambda n: n).__code__))
    16
    """
    import hashlib

    digest = hashlib.sha256()
    if path is not None and os.path.isfile(path):
        digest.update(read_rules_file(path))
    elif code is not None:
        digest.update(_code_bytes(code))
    return digest.hexdigest()[:16]


def _code_bytes(code: CodeType) -> bytes:
    """The bytes of a code object and of the code objects among its constants."""
    parts = [code.co_code, repr(code.co_names).encode()]
    for constant in code.co_consts:
        parts.append(
            _code_bytes(constant) if isinstance(constant, CodeType) else repr(constant).encode()
        )
    return b"".join(parts)


class RuleSource:
    """Where a game's rules come from: a file (or a module's file) and a name in it; its
    fingerprint; and how its failures are reported."""

    def __init__(self, name: str, path: str | None, line: int, target: str | None = None) -> None:
        self.name = name
        self.path = None if path is None else os.path.realpath(path)
        self.line = line
        #: How a spec names the file: its resolved path, or a module's dotted name.
        self.target = target or self.path or NO_FILE
        self.fingerprint = ""
        #: The family an installed package adds the game as (its spec is then that name).
        self.family: str | None = None

    @property
    def spec(self) -> str:
        if self.family is not None:
            return self.family
        return f"py:{self.target}:{self.name}@{self.fingerprint}"

    @property
    def shown(self) -> str:
        return "<no file>" if self.path is None else shown_file(self.path)

    def failure(self, error: BaseException, position: str) -> RuleError:
        """The one-line error for any way a rule left at a position (see `way_out`)."""
        if isinstance(error, RuleError):
            return error  # a rule that calls a rule: the innermost one already said it
        line = self.line
        for frame in traceback.extract_tb(error.__traceback__):
            if self.path is not None and os.path.realpath(frame.filename) == self.path:
                line = frame.lineno or line
        return RuleError(
            f"{self.shown}, line {line}: rule {self.name!r} {way_out(error)} at position "
            f"{position!r} (fix the rule, then run again)"
        )

    def bad_move(self, problem: str, position: str) -> RuleError:
        """The one-line error for a successor that is not a position."""
        return RuleError(
            f"{self.shown}, line {self.line}: rule {self.name!r} at position {position!r} "
            f"gave a successor that is not a position: {problem}"
        )


def source_of(function: Callable[..., Any], name: str | None = None) -> RuleSource:
    code = getattr(function, "__code__", None)
    path = None if code is None or code.co_filename.startswith("<") else code.co_filename
    module = sys.modules.get(getattr(function, "__module__", "") or "")
    if path is None and module is not None:
        path = getattr(module, "__file__", None)
    source = RuleSource(
        name or str(getattr(function, "__name__", "game")),
        path,
        0 if code is None else _def_line(path, code.co_firstlineno),
    )
    source.fingerprint = code_fingerprint(source.path, code)
    return source


def _def_line(path: str | None, first: int) -> int:
    """The line of a function's ``def``, below its decorators (where its code starts)."""
    if path is None or not os.path.isfile(path):
        return first
    lines = read_rules_file(path).decode("utf-8", errors="replace").splitlines()
    for number in range(first, min(first + 50, len(lines) + 1)):
        if lines[number - 1].lstrip().startswith(("def ", "async def ")):
            return number
    return first


class RuleGuard:
    """Calls a rule through a guard: its exceptions, a cap on moves, and repeated answers."""

    def __init__(self, source: RuleSource, max_moves: int) -> None:
        self.source = source
        self.max_moves = max_moves
        self.calls = 0

    def first_moves(self, call: tuple[Rule, Any]) -> list[Any]:
        """The first moves a rule gives, one more than the cap (to see that it was passed)."""
        rule, position = call
        return list(islice(rule(position), self.max_moves + 1))

    def moves(self, rule: Rule, position: Any, text: Callable[[Any], str]) -> list[Any]:
        try:
            moves = call_rule(self.first_moves, (rule, position))
        except BaseException as error:  # a user's bug, an exit: anything but Ctrl-C
            raise self.source.failure(error, safe_text(text, position)) from None
        if len(moves) > self.max_moves:
            raise RuleError(
                f"{self.source.shown}, line {self.source.line}: rule {self.source.name!r} gave "
                f"more than {self.max_moves:,} moves at position {safe_text(text, position)!r} "
                "(a generator that never ends? raise the cap with max_moves=N in the decorator)"
            )
        self.calls += 1
        if self.calls <= CHECK_FIRST or self.calls % CHECK_EVERY == 0:
            self.again(rule, position, moves, text)
        return moves

    def again(
        self, rule: Rule, position: Any, moves: list[Any], text: Callable[[Any], str]
    ) -> None:
        """Ask the rule once more, and refuse it if it answers differently."""
        try:
            second = call_rule(self.first_moves, (rule, position))
        except BaseException as error:
            raise self.source.failure(error, safe_text(text, position)) from None
        try:
            same = Counter(second) == Counter(moves)
        except TypeError:  # unhashable moves: reported as such by the caller
            same = True
        if not same:
            raise RuleError(
                f"{self.source.shown}, line {self.source.line}: rule {self.source.name!r} "
                f"answered differently when asked twice at position "
                f"{safe_text(text, position)!r} ({len(moves)} "
                f"move{'' if len(moves) == 1 else 's'}, then {len(second)}; rules "
                "must not depend on chance or on earlier calls)"
            )


def safe_text(text: Callable[[Any], str], position: Any) -> str:
    try:
        return text(position)
    except Exception:
        try:
            return repr(position)
        except Exception:
            return f"<a {type(position).__name__}>"


def class_spec(cls: type) -> str:
    """The spec of a `Game` subclass that gives none: ``py:FILE:ClassName@FINGERPRINT``."""
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    source = RuleSource(cls.__qualname__, path, 0)
    successors = getattr(cls, "successors", None)
    source.fingerprint = code_fingerprint(source.path, getattr(successors, "__code__", None))
    return source.spec
