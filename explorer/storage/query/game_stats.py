"""`GameStats`, what `explorer.storage.StoredGame.stats` reads of one stored game: its counts
by outcome, value and depth, its extremes, its builds and tiers, and the findings stored for it;
`GameStats.to_dict` is its ``--json`` form."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from explorer.games.convention import NORMAL, Convention
from explorer.storage.query.damage import stored_key, stored_natural
from explorer.storage.rows.counts import read_counts
from explorer.storage.rows.findings import load_patterns, load_quotient
from explorer.storage.rows.records import shown_status

if TYPE_CHECKING:
    from explorer.analysis.quotient import MisereQuotient


@dataclass(frozen=True)
class BuildRecord:
    """One build of a game, as its ``builds`` row holds it: a count that is not a number (a
    damaged row) reads as None."""

    id: int
    kind: str
    #: The key of the position built from (None for an import or an edit).
    position: str | None
    #: ``complete``, ``stopped``, ``failed``, ``interrupted``, ``running``, ...
    status: str
    started_at: str
    finished_at: str | None
    states_new: int | None
    states_reused: int | None
    edges_new: int | None
    values_computed: int | None
    host: str | None
    pid: int | None
    #: Worker processes of a build in tiers (None: one process).
    workers: int | None


@dataclass(frozen=True)
class TierRecord:
    """One tier of a build in tiers: its states and moves and the seconds they took (None
    to solve while it is not solved)."""

    tier: int
    build_id: int
    states: int
    edges: int
    expand_seconds: float
    solve_seconds: float | None


@dataclass(frozen=True)
class GameStats:
    """Counts by outcome, Grundy value (G⁻ in a misère build) and depth, extremes, and the
    build history of a stored game; its tiers when a build in tiers stored them, its
    patterns and misère quotient when they were stored (normal play).

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> nim = db.game("nim")
    >>> _ = nim.build("1,2")
    >>> stats = nim.stats()
    >>> stats.states, stats.by_outcome, stats.max_grundy, stats.builds[0].status
    (5, {'N': 3, 'P': 2}, 3, 'complete')
    >>> list(stats.to_dict())[:5]
    ['game', 'convention', 'states', 'edges', 'expanded']
    >>> db.close()
    """

    game: str
    convention: Convention
    states: int
    edges: int
    expanded: int
    solved: int
    by_outcome: dict[str, int]
    by_grundy: dict[int, int]
    by_depth: dict[int, int]
    #: The starts the depths count from: each state's depth counts from the start of the
    #: build that stored it.
    depth_from: tuple[str | None, ...]
    max_grundy: int | None
    max_depth: int | None
    max_remoteness: int | None
    max_height: int | None
    builds: tuple[BuildRecord, ...]
    #: Highest tier first.
    tiers: tuple[TierRecord, ...] = ()
    #: What `explorer.storage.rows.findings.load_patterns` reads, oldest first.
    patterns: tuple[dict[str, Any], ...] = ()
    quotient: MisereQuotient | None = None

    @property
    def unsolved(self) -> int:
        """States stored without a value yet."""
        return self.states - self.solved

    def to_dict(self) -> dict[str, Any]:
        """The stats as ``explorer stats SPEC --json`` prints them: ``tiers``, ``patterns``
        and ``quotient`` only when stored, so that the stats of other games read as before."""
        shown: dict[str, Any] = {
            "game": self.game,
            "convention": self.convention,
            "states": self.states,
            "edges": self.edges,
            "expanded": self.expanded,
            "solved": self.solved,
            "unsolved": self.unsolved,
            "by_outcome": dict(self.by_outcome),
            "by_grundy": dict(self.by_grundy),
            "by_depth": dict(self.by_depth),
            "depth_from": list(self.depth_from),
            "max_grundy": self.max_grundy,
            "max_depth": self.max_depth,
            "max_remoteness": self.max_remoteness,
            "max_height": self.max_height,
            "builds": [asdict(build) for build in self.builds],
        }
        if self.tiers:
            shown["tiers"] = [asdict(tier) for tier in self.tiers]
        if self.patterns:
            shown["patterns"] = list(self.patterns)
        if self.quotient is not None:
            shown["quotient"] = self.quotient.to_dict()
        return shown


def read_game_stats(
    conn: sa.Connection, game_id: int, spec: str, convention: Convention
) -> GameStats:
    """The `GameStats` of the stored game of id `game_id` (its spec `spec`)."""
    counts = read_counts(conn, game_id)
    total = {kind: numbers.get("", 0) for kind, numbers in counts.items()}
    by_grundy, by_depth = _histogram(counts["grundy"]), _histogram(counts["depth"])
    rows = conn.execute(
        sa.text("SELECT * FROM builds WHERE game_id = :g ORDER BY id"), {"g": game_id}
    )
    builds = tuple(_build_record(row) for row in rows)
    starts = (b.position for b in builds if b.kind == "build" and b.states_new)
    normal = convention == NORMAL  # `explorer patterns --db` and `quotient --db` store these
    return GameStats(
        game=spec,
        convention=convention,
        states=total.get("states", 0),
        edges=total.get("edges", 0),
        expanded=total.get("expanded", 0),
        solved=total.get("solved", 0),
        by_outcome={value: counts["outcome"][value] for value in sorted(counts["outcome"])},
        by_grundy=by_grundy,
        by_depth=by_depth,
        depth_from=tuple(dict.fromkeys(starts)),
        max_grundy=max(by_grundy, default=None),
        max_depth=max(by_depth, default=None),
        max_remoteness=max(_histogram(counts["remoteness"]), default=None),
        max_height=max(_histogram(counts["height"]), default=None),
        builds=builds,
        tiers=_tiers(conn, game_id),
        patterns=tuple(load_patterns(conn, game_id)) if normal else (),
        quotient=load_quotient(conn, game_id) if normal else None,
    )


def _histogram(numbers: dict[str, int]) -> dict[int, int]:
    """Counts by a number, in order; a value that is not a number (a damaged row) is left
    out: `verify` names it."""
    found: dict[int, int] = {}
    for text, number in numbers.items():
        digits = text[1:] if text.startswith("-") else text  # depth -1: unreached
        if digits.isascii() and digits.isdigit():
            found[int(text)] = found.get(int(text), 0) + number
    return dict(sorted(found.items()))


def _build_record(r: sa.Row[Any]) -> BuildRecord:
    """A row of ``builds`` as a `BuildRecord`."""
    return BuildRecord(
        id=r.id,
        kind=r.kind,
        position=None if r.root is None else stored_key(r.root),
        status=shown_status(r.status, r.host, r.pid),
        started_at=str(r.started_at),
        finished_at=None if r.finished_at is None else str(r.finished_at),
        states_new=stored_natural(r.states_new),
        states_reused=stored_natural(r.states_reused),
        edges_new=stored_natural(r.edges_new),
        values_computed=stored_natural(r.values_computed),
        host=r.host,
        pid=r.pid,
        workers=r.workers,
    )


def _tiers(conn: sa.Connection, game_id: int) -> tuple[TierRecord, ...]:
    """The tiers a build in tiers stored for the game, highest first."""
    rows = conn.execute(sa.text("SELECT * FROM tiers WHERE game_id = :g"), {"g": game_id})
    tiers = (
        TierRecord(int(r.tier), r.build_id, r.states, r.edges, r.expand_seconds, r.solve_seconds)
        for r in rows
    )
    return tuple(sorted(tiers, key=lambda t: -t.tier))
