"""The exception tree: every error a user can cause is an `ExplorerError`.

Leaves also subclass the matching built-in, so callers may catch either.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """Base of every error caused by bad input or an unusable environment."""


class UnknownGameError(ExplorerError, LookupError):
    """A spec names no registered game family."""

    def __str__(self) -> str:  # LookupError would repr() the message
        return str(self.args[0]) if self.args else ""


class SpecError(ExplorerError, ValueError):
    """A game spec's parameters are malformed."""


class PositionError(ExplorerError, ValueError):
    """A position text is malformed or not a position of the game."""


class GameFileError(ExplorerError, ValueError):
    """A graph file is missing, unreadable or malformed."""


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
