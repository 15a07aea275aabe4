"""The exception tree: every error a user can cause is an `ExplorerError`.

Every error class of the package is here. Leaves also subclass the matching built-in, so callers
may catch either; the command line prints any `ExplorerError` as one ``Error: ...`` line.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """Base of every error caused by bad input or an unusable environment."""


class _Message:
    """Mixin for built-ins (`LookupError`, `KeyError`) that would repr() the message."""

    args: tuple[object, ...]

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


# -- games and positions ------------------------------------------------------------------------


class UnknownGameError(_Message, ExplorerError, LookupError):
    """A spec names no registered game family."""


class SpecError(ExplorerError, ValueError):
    """A game spec's parameters are malformed."""


class PositionError(ExplorerError, ValueError):
    """A position text is malformed or not a position of the game."""


class UsageError(ExplorerError, ValueError):
    """Options that do not fit together or do not fit the game (``--upto`` on a game whose
    positions are not single numbers); the command line exits with status 2, as for a bad
    option."""


class ArgumentTypeError(ExplorerError, TypeError):
    """A function of the Python API was given something that is neither a game (a `Game` or
    its spec) nor a position (a text, a heap size, or what ``game.parse`` returns)."""


class GameFileError(ExplorerError, ValueError):
    """A graph file is missing, unreadable or malformed."""


class DuplicateKeyError(ExplorerError, ValueError):
    """A JSON object names a key twice (a graph file declaring a vertex twice); its one
    argument is the key. Reading a graph file turns it into a `GameFileError`."""


# -- graphs and solving -------------------------------------------------------------------------


class CyclicGraphError(ExplorerError, ValueError):
    """A game graph has a cycle, so it has no Sprague-Grundy values."""

    def __init__(self, message: str, cycle: list[object] | None = None) -> None:
        super().__init__(message)
        self.cycle = cycle or []


class GraphTooLargeError(ExplorerError, OverflowError):
    """Generating a game graph went past its size guard."""

    def __init__(self, message: str, limit: int = 0) -> None:
        super().__init__(message)
        self.limit = limit

    @staticmethod
    def quoted(position: str) -> str:
        """A position's text as the message quotes it: shortened past 60 characters.

        >>> GraphTooLargeError.quoted("1," * 40)[-5:]
        '1,...'
        """
        return position if len(position) <= 60 else position[:50] + "..."


class LimitError(ExplorerError, OverflowError):
    """A computation would pass a guard on its size (values to plot, parts of a sum, ...)."""


# -- stops, not errors: like KeyboardInterrupt they are no `Exception`, so that no handler of
# errors takes them for its own; they end the command where they are raised.
class ExitCalled(BaseException):
    """Raised instead of ending the process when a user's rule calls ``os._exit``."""

    def __init__(self, code: object) -> None:
        super().__init__(code)
        self.code = code


class WorkLimitError(BaseException):
    """A command ran past its work bound (``--max-seconds``). Like Ctrl-C (and so, like
    `KeyboardInterrupt`, not an `Exception` that a handler of errors could take for its own):
    what a build or a stored sequence already wrote is kept and resumed."""


class QuotientTooLargeError(ExplorerError, OverflowError):
    """A misère quotient grew past its size guard (elements, or positions and checked pairs);
    callers may fall back to the game graph."""

    def __init__(self, message: str, limit: int = 0) -> None:
        super().__init__(message)
        self.limit = limit


class MemoryOptionError(LimitError):
    """A memory option asks for more memory than the machine has."""


class SearchMemoryError(LimitError):
    """The pruned search's tables outgrew their memory bound (``--memory``)."""


class MisereSequenceTooLargeError(LimitError):
    """A misère sequence would build more game states than its guard allows."""


class EditError(ExplorerError, ValueError):
    """An edit names a state or move that is not there, or adds one that already is."""


class ValueLimitError(ExplorerError, OverflowError):
    """A Grundy value does not fit the 16 bits the sequence engine stores."""


class NoAnswerError(ExplorerError, LookupError):
    """No move respects the counter: the position left was not a P-position, or γ is wrong."""


# -- storage ------------------------------------------------------------------------------------


class DatabaseError(ExplorerError, RuntimeError):
    """A database cannot be opened or used: unreachable, unwritable, not a database, too new."""


class DatabaseURLError(ExplorerError, ValueError):
    """A database URL is malformed or names a database explorer cannot store games in."""


class SchemaTooNewError(DatabaseError):
    """The database was written by a newer explorer whose schema this code does not know."""


class DatabaseReadOnlyError(DatabaseError):
    """The database (its file, folder or server role) refuses writes."""


class DatabaseLockedError(DatabaseError):
    """Another program holds a lock on the database; running again later may succeed."""


class BuildRunningError(DatabaseLockedError):
    """Another process is building the same game in the same database right now."""


class DatabaseFullError(DatabaseError):
    """The disk (or the server's quota) is full; what was committed before is kept."""


class DatabaseDamagedError(DatabaseError):
    """The database is damaged: a malformed page, or a table or column of its schema missing."""


class StoredPartError(DatabaseDamagedError):
    """A part value read from a database's part table is not what the part's moves give."""

    @classmethod
    def of(cls, family: str, label: str, stored: int, expected: int) -> StoredPartError:
        """The error for one part of a family whose stored value differs from its moves'."""
        return cls(
            f"the part table stores {stored} for the {family} part labelled {label!r}, but its "
            f"moves give {expected}: the stored table is damaged (explorer verify lists every "
            "wrong part; delete the wrong rows of part_values, or the table, and they are "
            "valued again)"
        )


class NotStoredError(_Message, ExplorerError, LookupError):
    """A query names a game or a position that the database does not hold."""


class WorkerPoolError(ExplorerError, RuntimeError):
    """A build's local worker processes kept dying: the build stops, what it wrote kept."""


class ClusterError(ExplorerError, ConnectionError):
    """A build cannot run on the cluster named: no Dask, a bad address, no scheduler or worker
    answering, a worker without this explorer, or a database the machines cannot share."""


# -- files written ------------------------------------------------------------------------------


class ExportError(ExplorerError, ValueError):
    """An export was asked in an unknown format or to a file that cannot be written."""


class OutputFileError(ExplorerError, ValueError):
    """An output file has the wrong suffix or cannot be written."""


# -- patterns and sweeps ------------------------------------------------------------------------


class SweepError(ExplorerError, ValueError):
    """A sweep pattern is malformed or names too many variants."""


# -- the web app --------------------------------------------------------------------------------


class BadRequest(ExplorerError, ValueError):
    """A page was asked for with missing or malformed parameters."""


class ServeError(ExplorerError, OSError):
    """The server cannot listen on the address asked for."""


# -- games written in Python --------------------------------------------------------------------


class GameCodeError(ExplorerError, ValueError):
    """A ``py:`` spec's file or module is missing, does not import, or holds no single game."""


class RuleError(ExplorerError, ValueError):
    """A game's Python rules failed at a position: they raised, gave a successor that is not a
    position, listed too many moves, or answered differently for the same position."""
