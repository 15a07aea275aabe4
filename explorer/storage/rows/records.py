"""The rows that describe games and builds: game ids, stored specs, parameters, build rows.

The only module that writes the ``games`` and ``builds`` tables. Builds, imports, edits and
full re-solves all record themselves here, with one clock for stored times.

A game is stored under its canonical spec, except that a DAG game's file is named by its
resolved absolute path (``dag:/home/me/A/game.json``), so the same file typed from any folder
names the same game and two files of the same name never do; it is shown relative to the
working folder when it lies inside it. Databases written before this kept the path as typed:
such a game is still found by that spelling, and is moved to its resolved path the first time
the same file is imported again (recognised by the fingerprint of its graph).

A game is also its play convention: the misère build of a game is stored as a game of its own
(the same spec, ``games.convention`` ``misere``), beside its normal-play build.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.errors import BuildRunningError, NotStoredError
from explorer.games.base import Game
from explorer.games.convention import NORMAL, Convention
from explorer.games.pyspec import python_specs_match, rules_changed
from explorer.games.specs import GameSpec
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.schema.models import BuildTable, GameTable
from explorer.storage.tables import states as states_table


def utc_now() -> datetime:
    """The time stamps stored: UTC, without a time zone (SQLite keeps none)."""
    return datetime.now(UTC).replace(tzinfo=None)


def find_game(conn: sa.Connection, spec: str, convention: Convention = NORMAL) -> int | None:
    """The id of the game stored under exactly this spec and convention, if any."""
    found = conn.scalar(
        sa.select(GameTable.id).where(GameTable.spec == spec, GameTable.convention == convention)
    )
    return None if found is None else int(found)


def lookup_game(
    conn: sa.Connection, spec: str, convention: Convention = NORMAL
) -> tuple[int, str] | None:
    """The id and stored spec of the game a spec names in a convention, typed from any folder:
    by its canonical spec, else as a database written before resolved paths stored it."""
    parsed = GameSpec.parse(spec)
    canonical = parsed.canonical()
    for candidate in dict.fromkeys((canonical, parsed.older(), spec.strip())):
        found = find_game(conn, candidate, convention)
        if found is not None:
            return found, candidate
    if parsed.user_code:
        return _lookup_python_game(conn, canonical, convention)
    return None


def _python_games(conn: sa.Connection, convention: Convention) -> list[tuple[int, str]]:
    """The stored games with a part written in Python, in storage order: id and spec."""
    stored = conn.execute(
        sa.select(GameTable.id, GameTable.spec)
        .where(GameTable.convention == convention)
        .order_by(GameTable.id)
    ).all()
    return [(int(i), s) for i, s in stored if GameSpec.parse(s).user_code]


def _lookup_python_game(
    conn: sa.Connection, canonical: str, convention: Convention
) -> tuple[int, str] | None:
    """A game with Python rules whose file is gone (or named without a fingerprint): the one
    stored game it can be; refused when it could be several."""
    found = [(i, s) for i, s in _python_games(conn, convention) if python_specs_match(canonical, s)]
    if len(found) > 1:
        listing = ", ".join(GameSpec.parse(s).shown() for _, s in found)
        raise NotStoredError(
            f"{GameSpec.parse(canonical).shown()!r} names {len(found)} stored games (its file "
            f"changed between builds): name one with its fingerprint: {listing}"
        )
    return found[0] if found else None


def changed_python_builds(
    conn: sa.Connection, spec: str, convention: Convention = NORMAL
) -> str | None:
    """What to say when a spec with a ``py:`` piece is not stored but a build of the same
    file and name is, under another fingerprint (the file changed since that build), or None.

    Found from the stored specs and the file's text, never by running the file.
    """
    parsed = GameSpec.parse(spec)
    if not parsed.user_code:
        return None
    asked = parsed.canonical()
    unpinned = GameSpec.parse(asked).unpinned()
    builds = [s for _, s in _python_games(conn, convention) if python_specs_match(unpinned, s)]
    if not builds:
        return None
    notes = rules_changed(builds[-1], asked).removeprefix("; ").partition(": its moves")[0]
    listing = ", ".join(repr(GameSpec.parse(s).shown()) for s in builds)
    return (
        f"{notes or 'its file changed since the build'}; the stored "
        f"{'build reads' if len(builds) == 1 else 'builds read'} as {listing} (name it so, "
        "or build again to store the rules as they are now)"
    )


def edge_arrays(
    vertices: Sequence[str], edges: Sequence[tuple[str, str]]
) -> tuple[np.ndarray, np.ndarray]:
    """The edges of a graph as two arrays of indexes into its vertices: sources, targets."""
    index = {v: i for i, v in enumerate(vertices)}
    src = np.fromiter((index[v] for v, _ in edges), dtype=np.int64, count=len(edges))
    dst = np.fromiter((index[w] for _, w in edges), dtype=np.int64, count=len(edges))
    return src, dst


def graph_fingerprint(vertices: Sequence[str], src: np.ndarray, dst: np.ndarray) -> str:
    """A digest of a graph: its vertex names in order and its edges (as indexes into them) in
    any order. A stored DAG game and the file it came from have the same one until an edit.

    Examples
    --------
    >>> a = graph_fingerprint(["b", "a"], np.array([0, 0]), np.array([1, 1]))
    >>> a == graph_fingerprint(["b", "a"], np.array([0]), np.array([1]))
    False
    >>> len(a)
    64
    """
    order = np.lexsort((dst, src))
    edges = np.stack([src[order], dst[order]]).astype("<i8")
    digest = hashlib.sha256(json.dumps(list(vertices), ensure_ascii=False).encode())
    digest.update(np.ascontiguousarray(edges).tobytes())
    return digest.hexdigest()


def add_game(
    conn: sa.Connection,
    game: Game[Any],
    fingerprint: str | None = None,
    convention: Convention = NORMAL,
) -> int:
    """Store a new game row under its canonical spec and a convention; returns its id.

    ``parameters`` holds the text after ``family:`` (a DAG file's resolved path), the whole
    spec for a sum, NULL for a game without parameters; ``fingerprint`` the graph of a DAG
    file as imported.
    """
    parsed = GameSpec.of(game)
    spec = parsed.canonical()
    game_id = conn.scalar(
        sa.insert(GameTable)
        .values(
            spec=spec,
            family=game.family,
            parameters=parsed.stored_parameters(spec),
            fingerprint=fingerprint,
            created_at=utc_now(),
            convention=convention,
        )
        .returning(GameTable.id)
    )
    assert game_id is not None
    return int(game_id)


def stored_game(conn: sa.Connection, game: Game[Any], convention: Convention = NORMAL) -> int:
    """The id of a game's row in a convention, stored now if it was not."""
    found = find_game(conn, GameSpec.parse(game.spec).canonical(), convention)
    return add_game(conn, game, convention=convention) if found is None else found


def adopt_typed_game(conn: sa.Connection, game: Game[Any], fingerprint: str) -> int | None:
    """Move a DAG game stored with its path as typed (before resolved paths) to its resolved
    path, if it holds exactly this file's graph; returns its id, or None if there is none.

    A game stored under the same typed path with another graph came from another file (typed
    the same way in another folder): it is left as it is, never confused with this one.
    """
    parsed = GameSpec.of(game)
    typed, spec = parsed.older(), parsed.canonical()
    found = conn.execute(
        sa.select(GameTable.id).where(
            GameTable.spec == typed,
            GameTable.fingerprint == fingerprint,
            GameTable.convention == NORMAL,
        )
    ).scalar()
    if found is None or typed == spec:
        return None
    conn.execute(
        sa.update(GameTable)
        .where(GameTable.id == found)
        .values(spec=spec, parameters=parsed.stored_parameters(spec))
    )
    return int(found)


def set_fingerprint(conn: sa.Connection, game_id: int, fingerprint: str) -> None:
    """Record the graph of the file a DAG game was imported from last."""
    conn.execute(
        sa.update(GameTable)
        .where(GameTable.id == game_id)
        .where(sa.or_(GameTable.fingerprint.is_(None), GameTable.fingerprint != fingerprint))
        .values(fingerprint=fingerprint)
    )


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
    workers: int | None = None,
) -> int:
    """Record an operation that writes states, edges or values; returns its build id.

    A build that is not ``running`` is recorded as finished now. The key index is made again
    first if a build dropped it and did not finish (`ensure_key_index`): every writer finds
    states by their keys, and no state may be stored twice.
    """
    ensure_key_index(conn)
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
            host=socket.gethostname(),
            pid=os.getpid(),
            workers=workers,
            **asdict(counts),
        )
        .returning(BuildTable.id)
    )
    assert build_id is not None
    return int(build_id)


def key_index_present(conn: sa.Connection) -> bool:
    """Whether the unique index on ``states (game_id, key)`` is there (see `drop_key_index`)."""
    return dialect_of(conn).key_index_present(conn)


def drop_key_index(conn: sa.Connection) -> None:
    """Drop the unique key index while a large build writes (its states are numbered and kept
    unique by the build itself, in memory).

    Filled key by key in discovery order, the index costs most of a build's state writes
    (10 million keys: 70 s into the index, 28 s without it and 5 s to create it after), and
    ends 14 % larger than one created whole. Meanwhile a state is still found by its key, by
    reading the table; the build creates the index again when it ends, and if it is killed,
    the next writer does (`insert_build`).
    """
    conn.exec_driver_sql(states_table.DROP_KEY_INDEX)


def ensure_key_index(conn: sa.Connection) -> bool:
    """Create the unique key index if it is missing; returns whether it was."""
    if key_index_present(conn):
        return False
    return dialect_of(conn).create_key_index(conn)


def update_build(
    conn: sa.Connection, build_id: int, status: str, counts: BuildCounts | None = None
) -> None:
    """Set a build row's status (and counters); any status but ``running`` finishes it now."""
    conn.execute(
        sa.update(BuildTable)
        .where(BuildTable.id == build_id)
        .values(
            status=status,
            finished_at=None if status == "running" else utc_now(),
            **({} if counts is None else asdict(counts)),
        )
    )


def shown_status(status: str, host: str | None, pid: int | None) -> str:
    """A build's status as it stands: ``running`` only while its process lives.

    A process killed while building (kill -9, a power cut) leaves its row ``running``; such a
    row is shown ``interrupted`` when it was written on this machine by a process that is gone
    (the next build of the game records that). On another machine it cannot be told and stays
    ``running``; a process id reused since then can hide a dead build the same way.
    """
    if status != "running" or host != socket.gethostname() or not isinstance(pid, int):
        return status
    if not 0 < pid < 2**31:  # no process has this id (a damaged row)
        return "interrupted"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return "interrupted"
    except PermissionError:  # alive, another user's
        return status
    try:  # killed but not yet reaped by its parent: a zombie builds nothing
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            if stat.read().rpartition(")")[2].split()[0] == "Z":
                return "interrupted"
    except (OSError, IndexError):
        pass
    return status


def refuse_running(conn: sa.Connection, game_id: int, spec: str) -> None:
    """Refuse to build a game that another live process on this machine is building.

    Raises
    ------
    BuildRunningError
        When one of the game's builds is ``running`` in another process that is alive: two
        builds of one game would number the same new states.
    """
    running = conn.execute(
        sa.select(BuildTable.id, BuildTable.host, BuildTable.pid, BuildTable.started_at).where(
            BuildTable.game_id == game_id, BuildTable.status == "running"
        )
    ).all()
    for build in running:
        if (
            build.host == socket.gethostname()
            and build.pid not in (None, os.getpid())
            and shown_status("running", build.host, build.pid) == "running"
        ):
            shown = GameSpec.parse(spec).shown()
            raise BuildRunningError(
                f"another build of {shown!r} is running (build {build.id}, process "
                f"{build.pid}, started {build.started_at:%Y-%m-%d %H:%M:%S} UTC); wait for it "
                "to finish, or stop it, then run this build again"
            )


def interrupt_running(conn: sa.Connection, game_id: int, spec: str) -> None:
    """Mark the game's builds still ``running`` (killed earlier) as interrupted.

    Raises
    ------
    BuildRunningError
        When one of them is still running (see `refuse_running`). The game's row is locked
        first, so two builds starting at once see each other.
    """
    conn.execute(sa.select(GameTable.id).where(GameTable.id == game_id).with_for_update())
    refuse_running(conn, game_id, spec)
    conn.execute(
        sa.update(BuildTable)
        .where(BuildTable.game_id == game_id, BuildTable.status == "running")
        .values(status="interrupted")
    )


def stored_specs(engine: Engine) -> list[tuple[str, str]]:
    """Every stored game's spec, exactly as stored, and its convention, in storage order:
    what names a stored game, read without counting anything.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("kayles").build("2")
    >>> stored_specs(db.engine)
    [('octal:0.77', 'normal')]
    >>> db.close()
    """
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT spec, convention FROM games ORDER BY id"))
        return [(str(r.spec), str(r.convention)) for r in rows]
