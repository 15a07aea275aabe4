"""What `explorer verify` found: the report of a whole check (`Verification`), of one game
(`GameCheck`) and of one problem (`Mismatch`), and the `Recorder` that every check writes its
problems to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from explorer.games.convention import MISERE, NORMAL, Convention

#: Called as ``progress(game, states_checked, states_stored)`` (see `verify_database`).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Mismatch:
    """One thing found wrong: where, which check, and what was expected."""

    game: str
    position: str
    check: str
    detail: str
    convention: Convention = NORMAL

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class GameCheck:
    """What was checked in one game, and how many problems were found."""

    game: str
    states: int = 0
    edges: int = 0
    rules: str = ""
    problems: int = 0
    convention: Convention = NORMAL
    #: What `states` counts: states, or parts of a part table.
    unit: str = "states"


@dataclass
class Verification:
    """The result of `verify_database` (see `to_dict` for the JSON form).

    ``ok`` is true when the integrity check (where there is one) and every game passed.
    """

    url: str
    integrity: str
    integrity_problems: list[str] = field(default_factory=list)
    games: list[GameCheck] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    problems: int = 0
    #: Problems by kind of check (``grundy``, ``moves``, ``counts``, ``depth``, ...): how many,
    #: and the first few rows named (``game position``).
    kinds: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.problems == 0 and not self.integrity_problems

    def damage(self) -> list[str]:
        """One line per kind of damage found: the kind, how many, and the first rows."""
        return [
            f"{kind}: {_plural(found['problems'], 'problem')} ({', '.join(found['first'])}"
            + (", ..." if found["problems"] > len(found["first"]) else "")
            + ")"
            for kind, found in self.kinds.items()
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.url,
            "ok": self.ok,
            "integrity": self.integrity,
            "integrity_problems": self.integrity_problems,
            "problems": self.problems + len(self.integrity_problems),
            "games": [asdict(g) for g in self.games],
            "mismatches": [m.to_dict() for m in self.mismatches],
            "kinds": self.kinds,
        }


#: Rows named per kind of damage in `Verification.damage`.
FIRST_ROWS = 3


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


class Recorder:
    """The problems of one checked game (or table), recorded in the whole check's report: up to
    `show` of them kept as mismatches, all of them counted.

    Examples
    --------
    >>> result = Verification("sqlite://", "ok")
    >>> found = Recorder(result, GameCheck("nim"), show=1)
    >>> found.fail("3", "grundy", "stored 2, the mex of its successors is 3")
    >>> found.counted("grundy", 4)
    >>> result.ok, result.problems, len(result.mismatches), result.damage()
    (False, 5, 1, ['grundy: 5 problems (nim 3, ...)'])
    """

    def __init__(self, result: Verification, check: GameCheck, show: int) -> None:
        self.result, self.check, self.show = result, check, show

    def fail(self, position: str, kind: str, detail: str) -> None:
        """Record one problem of a kind, at a position (or a row named)."""
        self.check.problems += 1
        self.result.problems += 1
        found = self.result.kinds.setdefault(kind, {"problems": 0, "first": []})
        found["problems"] += 1
        if len(found["first"]) < FIRST_ROWS:
            misere = " (misère)" if self.check.convention == MISERE else ""
            found["first"].append(f"{self.check.game}{misere} {position}")
        if len(self.result.mismatches) < self.show:
            self.result.mismatches.append(
                Mismatch(self.check.game, position, kind, detail, self.check.convention)
            )

    def counted(self, kind: str, number: int) -> None:
        """Count `number` more problems of a kind, found but not read (past the first)."""
        self.check.problems += number
        self.result.problems += number
        if number:
            self.result.kinds[kind]["problems"] += number
