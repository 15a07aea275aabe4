"""Stored findings about a game's values: the patterns `explorer patterns --db` found (observed,
proved, or refuted at a heap by a longer run), and the misère quotient `explorer quotient --db`
computed (replaced by one of more heaps). Both are kept on the game's normal-play row.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlalchemy as sa

from explorer.errors import DatabaseDamagedError
from explorer.storage.rows.records import utc_now
from explorer.storage.schema.models import PatternTable, QuotientTable

if TYPE_CHECKING:
    from explorer.analysis.patterns import Patterns, Revision
    from explorer.analysis.quotient import MisereQuotient

#: Status of a stored pattern that a longer run contradicts (``refuted_at`` says where).
REFUTED = "refuted"


def _pattern_dict(row: Any) -> dict[str, Any]:
    """A stored pattern as plain data: its JSON, with the row's status, bound and refutation."""
    from explorer.analysis.patterns import Pattern

    try:
        data = json.loads(row.data)
        Pattern.from_dict(data)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise DatabaseDamagedError(
            f"the stored pattern {row.id} ({row.kind!r}) is damaged ({error}): delete its row "
            "from the patterns table and run 'explorer patterns SPEC --db URL' again"
        ) from error
    return {**data, "status": row.status, "upto": int(row.upto), "refuted_at": row.refuted_at}


def load_patterns(conn: sa.Connection, game_id: int) -> list[dict[str, Any]]:
    """The stored patterns of a game, oldest first: each `Pattern.to_dict` with ``status``
    (``observed``, ``proved`` or ``refuted``), ``upto`` and ``refuted_at`` (None unless
    refuted: the heap, or cell ``a,b``, whose value contradicts it)."""
    rows = conn.execute(
        sa.select(PatternTable).where(PatternTable.game_id == game_id).order_by(PatternTable.id)
    )
    return [_pattern_dict(row) for row in rows]


def save_patterns(
    conn: sa.Connection, game_id: int, found: Patterns, data: np.ndarray
) -> list[Revision]:
    """Store the patterns of a run up to ``found.upto`` (`data` the values it read), checking
    each stored pattern not yet refuted against them first (`revise`): one the values
    contradict is kept as refuted where they do; one a run of at least its bound confirms or
    proves takes the new bound (and proof). A run shorter than a stored pattern's bound (kept or
    refuted) leaves that kind of pattern alone. Returns the revisions of those checked.

    Examples
    --------
    >>> from explorer.analysis.patterns import sequence_patterns
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("1")
    >>> values = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2])
    >>> with db.engine.begin() as conn:
    ...     _ = save_patterns(conn, 1, sequence_patterns("g", values[:8]), values[:8])
    ...     [r.text() for r in save_patterns(conn, 1, sequence_patterns("g", values), values)]
    ['period: refuted at 10 (period 2, preperiod 0)', 'residues: refuted at 10 (...)', ...]
    >>> with db.engine.connect() as conn:
    ...     [(p["kind"], p["status"], p["refuted_at"]) for p in load_patterns(conn, 1)][0]
    ('period', 'refuted', '10')
    >>> db.close()
    """
    from explorer.analysis.patterns import OBSERVED, PROVED, Pattern, revise

    revisions: list[Revision] = []
    live: dict[str, int] = {}  # the row of each kind the run confirmed
    longer: set[str] = set()  # kinds a longer run stored (or refuted): this run leaves them
    for row in conn.execute(sa.select(PatternTable).where(PatternTable.game_id == game_id)):
        if row.upto > found.upto:
            longer.add(row.kind)
            continue
        if row.status == REFUTED:
            continue
        old = Pattern.from_dict(json.loads(row.data))
        revision = revise(old, found, data)
        revisions.append(revision)
        if revision.verdict == REFUTED:
            values = {"status": REFUTED, "upto": found.upto, "refuted_at": str(revision.at)}
        else:
            live[row.kind] = row.id
            kept = revision.pattern
            values = {"status": kept.status, "upto": found.upto, "data": json.dumps(kept.to_dict())}
        conn.execute(
            sa.update(PatternTable)
            .where(PatternTable.id == row.id)
            .values(**values, updated_at=utc_now())
        )
    for pattern in found.patterns:
        assert pattern.status in (OBSERVED, PROVED)
        if pattern.kind in longer:
            continue
        values = {
            "status": pattern.status,
            "upto": found.upto,
            "data": json.dumps(pattern.to_dict()),
            "updated_at": utc_now(),
        }
        if pattern.kind in live:  # the run's own finding replaces the one it confirmed
            where = PatternTable.id == live[pattern.kind]
            conn.execute(sa.update(PatternTable).where(where).values(**values))
        else:
            insert = sa.insert(PatternTable).values(game_id=game_id, kind=pattern.kind, **values)
            conn.execute(insert)
    return revisions


def pattern_status(stored: dict[str, Any]) -> str:
    """A stored pattern's status in words: proved by a theorem, observed up to N, or refuted
    at the heap whose value breaks it.

    Examples
    --------
    >>> pattern_status({"kind": "period", "status": "refuted", "upto": 90, "refuted_at": "57",
    ...                 "preperiod": 0, "period": 3, "saltus": 0})
    'refuted at 57 (by a run up to 90)'
    """
    if stored["status"] == "refuted":
        return f"refuted at {stored['refuted_at']} (by a run up to {stored['upto']:,})"
    from explorer.analysis.patterns import Pattern

    data = {k: v for k, v in stored.items() if k != "refuted_at"}
    return Pattern.from_dict(data).status_text()


def pattern_text(stored: dict[str, Any]) -> str:
    """What a stored pattern says, in one line (`Pattern.text`)."""
    from explorer.analysis.patterns import Pattern

    data = {k: v for k, v in stored.items() if k != "refuted_at"}
    return Pattern.from_dict(data).text()


def quotient_from_dict(data: dict[str, Any]) -> MisereQuotient:
    """The quotient `MisereQuotient.to_dict` gave (a stored quotient read back).

    Examples
    --------
    >>> from explorer import load_game
    >>> from explorer.analysis.quotient import misere_quotient
    >>> q = misere_quotient(load_game("nim"), 3)
    >>> quotient_from_dict(json.loads(json.dumps(q.to_dict()))) == q
    True
    """
    from explorer.analysis.quotient import MisereQuotient

    relations = [(str(lhs), str(rhs)) for lhs, rhs in data["relations"]]
    return MisereQuotient(**{**data, "relations": relations})


def load_quotient(conn: sa.Connection, game_id: int) -> MisereQuotient | None:
    """The stored misère quotient of a game, or None."""
    row = conn.execute(
        sa.select(QuotientTable).where(QuotientTable.game_id == game_id)
    ).one_or_none()
    if row is None:
        return None
    try:
        quotient = quotient_from_dict(json.loads(row.data))
    except (ValueError, TypeError, KeyError) as error:
        raise DatabaseDamagedError(
            f"the stored misère quotient of game {game_id} is damaged ({error}): run "
            "'explorer quotient SPEC --db URL' with a larger --max-heap to store it again"
        ) from error
    if quotient.max_heap != row.max_heap or quotient.size != row.size:
        raise DatabaseDamagedError(
            f"the stored misère quotient of game {game_id} does not match its row (heaps "
            f"0..{quotient.max_heap}, {quotient.size} elements; the row says 0..{row.max_heap}, "
            f"{row.size}): run 'explorer quotient SPEC --db URL' with a larger --max-heap"
        )
    return quotient


def save_quotient(conn: sa.Connection, game_id: int, quotient: MisereQuotient) -> None:
    """Store a game's misère quotient, replacing the one stored (callers keep the larger).

    Examples
    --------
    >>> from explorer import load_game
    >>> from explorer.analysis.quotient import misere_quotient
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("1")
    >>> with db.engine.begin() as conn:
    ...     save_quotient(conn, 1, misere_quotient(load_game("nim"), 1))
    ...     save_quotient(conn, 1, misere_quotient(load_game("nim"), 3))
    >>> with db.engine.connect() as conn:
    ...     q = load_quotient(conn, 1)
    >>> q.max_heap, q.presentation
    (3, 'T2')
    >>> db.close()
    """
    values = {
        "max_heap": quotient.max_heap,
        "size": quotient.size,
        "data": json.dumps(quotient.to_dict()),
        "updated_at": utc_now(),
    }
    done = conn.execute(
        sa.update(QuotientTable).where(QuotientTable.game_id == game_id).values(**values)
    )
    if done.rowcount == 0:
        conn.execute(sa.insert(QuotientTable).values(game_id=game_id, **values))


def stored_findings(conn: sa.Connection) -> dict[str, dict[str, Any]]:
    """Every game with stored patterns or a stored quotient, by spec: its patterns counted by
    status, and its quotient's size and heaps (None when there is none).

    Examples
    --------
    >>> from explorer import load_game
    >>> from explorer.analysis.quotient import misere_quotient
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> db.game("nim").save_quotient(misere_quotient(load_game("nim"), 3))
    >>> with db.engine.connect() as conn:
    ...     stored_findings(conn)
    {'nim': {'patterns': {}, 'quotient': {'size': 6, 'max_heap': 3}}}
    >>> db.close()
    """
    found: dict[str, dict[str, Any]] = {}

    def entry(spec: str) -> dict[str, Any]:
        return found.setdefault(spec, {"patterns": {}, "quotient": None})

    for spec, status, count in conn.execute(
        sa.text(
            "SELECT g.spec, p.status, COUNT(*) FROM patterns AS p JOIN games AS g "
            "ON g.id = p.game_id GROUP BY g.id, g.spec, p.status ORDER BY g.id, p.status"
        )
    ):
        entry(spec)["patterns"][status] = int(count)
    for spec, size, max_heap in conn.execute(
        sa.text(
            "SELECT g.spec, q.size, q.max_heap FROM quotients AS q JOIN games AS g "
            "ON g.id = q.game_id ORDER BY g.id"
        )
    ):
        entry(spec)["quotient"] = {"size": int(size), "max_heap": int(max_heap)}
    return found
