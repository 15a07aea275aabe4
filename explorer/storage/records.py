"""The rows that describe games and builds: game ids, canonical specs, parameters, build rows.

The only module that writes the ``games`` and ``builds`` tables. Builds, imports, edits and
full re-solves all record themselves here, with one clock for stored times.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import UTC, datetime

import sqlalchemy as sa

from explorer.errors import ExplorerError
from explorer.games import load_game
from explorer.games.base import Game
from explorer.storage.models import BuildTable, GameTable


def utc_now() -> datetime:
    """The time stamps stored: UTC, without a time zone (SQLite keeps none)."""
    return datetime.now(UTC).replace(tzinfo=None)


def canonical_spec(spec: str) -> str:
    """The stored spelling of a spec; a spec that does not load (a graph file changed or gone
    since it was imported) is taken as typed."""
    try:
        return load_game(spec).spec
    except ExplorerError:
        return spec.strip()


def find_game(conn: sa.Connection, spec: str) -> int | None:
    """The id of the game stored under exactly this spec, if any."""
    found = conn.scalar(sa.select(GameTable.id).where(GameTable.spec == spec))
    return None if found is None else int(found)


def parameters(game: Game) -> str | None:
    """What the ``parameters`` column holds: the text after ``family:`` (a graph file's path
    for a DAG), the whole spec for a sum, NULL for a game without parameters."""
    text = game.spec if game.family == "sum" else game.spec.partition(":")[2]
    return text or None


def add_game(conn: sa.Connection, game: Game) -> int:
    """Store a new game row; returns its id."""
    game_id = conn.scalar(
        sa.insert(GameTable)
        .values(
            spec=game.spec,
            family=game.family,
            parameters=parameters(game),
            created_at=utc_now(),
        )
        .returning(GameTable.id)
    )
    assert game_id is not None
    return int(game_id)


def stored_game(conn: sa.Connection, game: Game) -> int:
    """The id of a game's row, stored now if it was not."""
    found = find_game(conn, game.spec)
    return add_game(conn, game) if found is None else found


@dataclass(frozen=True)
class BuildCounts:
    """The counters of a build row: what one operation stored and solved."""

    states_new: int = 0
    states_reused: int = 0
    edges_new: int = 0
    values_computed: int = 0


def insert_build(
    conn: sa.Connection,
    *,
    game_id: int,
    kind: str,
    method: str,
    status: str = "running",
    root: str | None = None,
    max_states: int | None = None,
    counts: BuildCounts = BuildCounts(),
) -> int:
    """Record an operation that writes states, edges or values; returns its build id.

    A build that is not ``running`` is recorded as finished now.
    """
    now = utc_now()
    build_id = conn.scalar(
        sa.insert(BuildTable)
        .values(
            game_id=game_id,
            kind=kind,
            root=root,
            status=status,
            started_at=now,
            finished_at=None if status == "running" else now,
            max_states=max_states,
            method=method,
            **asdict(counts),
        )
        .returning(BuildTable.id)
    )
    assert build_id is not None
    return int(build_id)


def update_build(conn: sa.Connection, build_id: int, status: str, counts: BuildCounts) -> None:
    """Set a build row's status and counters; any status but ``running`` finishes it now."""
    conn.execute(
        sa.update(BuildTable)
        .where(BuildTable.id == build_id)
        .values(
            status=status,
            finished_at=None if status == "running" else utc_now(),
            **asdict(counts),
        )
    )


def interrupt_running(conn: sa.Connection, game_id: int) -> None:
    """Mark the game's builds still ``running`` (killed earlier) as interrupted."""
    conn.execute(
        sa.update(BuildTable)
        .where(BuildTable.game_id == game_id, BuildTable.status == "running")
        .values(status="interrupted")
    )
