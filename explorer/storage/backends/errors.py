"""Database errors as one line each: a driver's or SQLAlchemy's error becomes one
`explorer.errors.DatabaseError` saying what failed, the driver's words and what to do
(`database_error`), for every method that reads or writes (`translated`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Concatenate, ParamSpec, Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.errors import (
    DatabaseDamagedError,
    DatabaseError,
    DatabaseFullError,
    DatabaseLockedError,
    DatabaseReadOnlyError,
    ExplorerError,
)


def dbapi_errors(engine: Engine) -> tuple[type[Exception], ...]:
    """SQLAlchemy's wrapped driver errors, and the driver's own error base class: reads through
    the raw cursor and PostgreSQL's COPY raise the driver's errors unwrapped."""
    dbapi = engine.dialect.dbapi
    return (sa.exc.DBAPIError,) if dbapi is None else (sa.exc.DBAPIError, dbapi.Error)


def reason(error: BaseException) -> str:
    """The driver's message, first line only and without its SQLAlchemy decorations."""
    original = error.orig if isinstance(error, sa.exc.DBAPIError) else error
    lines = str(original).strip().splitlines() or ["unknown error"]
    return lines[-1].strip() if lines[0].startswith("connection failed") else lines[0].strip()


#: What a driver's message means, the error class for it, and what to do about it.
_KINDS: tuple[tuple[re.Pattern[str], type[DatabaseError], str], ...] = (
    (
        re.compile(r"readonly|read-only|read only|permission denied", re.IGNORECASE),
        DatabaseReadOnlyError,
        "the database, its file or its folder cannot be written",
    ),
    (
        re.compile(
            r"database is locked|database table is locked|lock timeout|could not obtain lock"
        ),
        DatabaseLockedError,
        "another program is using it; run this again when it has finished",
    ),
    (
        re.compile(r"disk is full|no space left|could not extend file|quota", re.IGNORECASE),
        DatabaseFullError,
        "free some space and run this again; what was committed before is kept",
    ),
    (
        re.compile(
            r"malformed|not a database|no such table|no such column|"
            r'relation ".*" does not exist|column ".*" does not exist'
        ),
        DatabaseDamagedError,
        "it is damaged; restore it from a copy, or build into another database",
    ),
)


def database_error(error: BaseException, shown: str, verb: str) -> DatabaseError:
    """One `DatabaseError` line for a driver or SQLAlchemy error: what failed, the driver's
    words, and what to do.

    This is where every database error of every command is translated; `verb` says what was
    being done (``open``, ``read``, ``write to``).

    Examples
    --------
    >>> import sqlite3
    >>> full = sqlite3.OperationalError("database or disk is full")
    >>> error = database_error(full, "a.db", "write to")
    >>> type(error).__name__
    'DatabaseFullError'
    >>> str(error).split(" (")[0]
    "cannot write to database 'a.db': database or disk is full"
    """
    text = reason(error)
    for pattern, kind, hint in _KINDS:
        if pattern.search(text):
            return kind(f"cannot {verb} database {shown!r}: {text} ({hint})")
    if verb == "open" and not isinstance(error, sa.exc.OperationalError):
        verb = "use"
    return DatabaseError(f"cannot {verb} database {shown!r}: {text}")


def shown_location(engine: Engine) -> str:
    """A database as its messages name it: a SQLite file's path (``:memory:`` in memory), or
    the URL without its password."""
    if engine.dialect.name == "sqlite":
        return engine.url.database or ":memory:"
    return engine.url.render_as_string(hide_password=True)


@contextmanager
def translated_errors(engine: Engine, verb: str) -> Iterator[None]:
    """Every SQLAlchemy and driver error as one `DatabaseError` (read-only, locked, full,
    damaged, a lost server); errors of ours pass unchanged, anything else is a bug.

    Every public method of `Database` and `StoredGame` goes through here (see `translated`),
    so no command shows a raw database error.
    """
    try:
        yield
    except ExplorerError:
        raise
    except sa.exc.IntegrityError:
        raise DatabaseError(
            f"another build, import or edit wrote to {shown_location(engine)!r} at the same "
            "time; run one at a time, then run this one again to finish"
        ) from None
    except dbapi_errors(engine) as error:
        raise database_error(error, shown_location(engine), verb) from None


class _Connected(Protocol):
    engine: Engine


S = TypeVar("S", bound=_Connected)
P = ParamSpec("P")
T = TypeVar("T")


def translated(
    verb: str,
) -> Callable[[Callable[Concatenate[S, P], T]], Callable[Concatenate[S, P], T]]:
    """Run a method of an object with an ``engine`` with its database errors translated (see
    `translated_errors`); `verb` is ``read`` or ``write to``."""

    def decorate(method: Callable[Concatenate[S, P], T]) -> Callable[Concatenate[S, P], T]:
        @functools.wraps(method)
        def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
            with translated_errors(self.engine, verb):
                return method(self, *args, **kwargs)

        return wrapper

    return decorate
