"""The checks `explorer verify` makes of what a game stores beside its values: the per-game counts
(``state_counts``), every state's depth, and a game with cycles against its rules; and the mex
every value check takes.

Each check is written here again from the definitions, on purpose: it must not share code with
the writers it checks (`explorer.storage.rows.counts`, the builder).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa

#: The count totals and the columns counted by value
#: (`explorer.storage.schema.models.StateCountTable`).
_COLUMNS = ("outcome", "grundy", "depth", "remoteness", "height")

#: A problem found: (position or row named, check, detail).
Found = tuple[str, str, str]


def mex(values: set[int]) -> int:
    """The least non-negative integer not in `values` (written here again, on purpose: the
    check must not share code with the solver it checks)."""
    k = 0
    while k in values:
        k += 1
    return k


def _actual_counts(conn: sa.Connection, game_id: int) -> dict[tuple[str, str], int]:
    """What the counts of a game must be, counted from its stored rows."""
    params = {"g": game_id}
    counts: dict[tuple[str, str], int] = {}
    totals = {
        "states": "SELECT COUNT(*) FROM states WHERE game_id = :g",
        "expanded": "SELECT COUNT(*) FROM states WHERE game_id = :g AND expanded",
        "solved": "SELECT COUNT(*) FROM states WHERE game_id = :g AND outcome IS NOT NULL",
        # the bytes of the packed successors over the width of an id: every move once
        "edges": "SELECT COALESCE(SUM(length(s.successors)) / MAX(g.id_width), 0) "
        "FROM states AS s JOIN games AS g ON g.id = s.game_id WHERE s.game_id = :g",
    }
    for kind, statement in totals.items():
        counts[kind, ""] = int(conn.execute(sa.text(statement), params).scalar_one())
    for column in _COLUMNS:
        for value, number in conn.execute(
            sa.text(
                f"SELECT {column}, COUNT(*) FROM states WHERE game_id = :g "
                f"AND {column} IS NOT NULL GROUP BY {column}"
            ),
            params,
        ):
            counts[column, str(value)] = int(number)
    return {key: n for key, n in counts.items() if n}


def count_problems(conn: sa.Connection, game_id: int) -> Iterator[Found]:
    """Every stored count of a game (a ``state_counts`` row) that its rows do not give: changed,
    missing or extra.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2")
    >>> with db.engine.begin() as conn:
    ...     _ = conn.execute(sa.text("UPDATE state_counts SET count = 7 WHERE kind = 'states'"))
    ...     list(count_problems(conn, 1))
    [('count of states', 'counts', 'stored 7, the stored rows give 3')]
    >>> db.close()
    """
    stored: dict[tuple[str, str], Any] = {}
    for kind, value, number in conn.execute(
        sa.text("SELECT kind, value, count FROM state_counts WHERE game_id = :g"), {"g": game_id}
    ):
        if number != 0:
            stored[str(kind), str(value)] = number
    actual = _actual_counts(conn, game_id)
    for key in sorted(stored.keys() | actual.keys()):
        kind, value = key
        have, want = stored.get(key, 0), actual.get(key, 0)
        if have != want:
            name = f"count of {kind}" if not value else f"count {kind}={value}"
            yield name, "counts", f"stored {have!r}, the stored rows give {want}"


def depth_problems(
    conn: sa.Connection, game_id: int, *, found_by_builds: bool, show: int
) -> tuple[int, list[Found]]:
    """States whose depth is not what a writer gives: below -1 (an imported vertex no root
    reaches), or (for a game built from its rules, whose states are found only by builds) below
    0, a depth d > 0 without a predecessor at depth
    d - 1 (the state that found it), or 0 at a state no build started from. The number found
    and the first `show` of them.
    """
    params = {"g": game_id}
    # an imported graph's vertices no root reaches have depth -1
    rules = ["s.depth < 0" if found_by_builds else "s.depth < -1"]
    if found_by_builds:
        rules += [
            "(s.depth > 0 AND NOT EXISTS (SELECT 1 FROM edges_in AS e JOIN states AS p "
            "ON p.game_id = e.game_id AND p.id = e.src WHERE e.game_id = s.game_id "
            "AND e.dst = s.id AND p.depth = s.depth - 1))",
            "(s.depth = 0 AND NOT EXISTS (SELECT 1 FROM builds AS b WHERE b.game_id = s.game_id "
            "AND b.root = s.key))",
        ]
    where = f"s.game_id = :g AND ({' OR '.join(rules)})"
    total = int(
        conn.execute(
            sa.text(f"SELECT COUNT(*) FROM states AS s WHERE {where}"), params
        ).scalar_one()
    )
    first: list[Found] = []
    if total:
        for key, depth in conn.execute(
            sa.text(f"SELECT s.key, s.depth FROM states AS s WHERE {where} ORDER BY s.id LIMIT :n"),
            {**params, "n": show},
        ):
            if depth < 0:
                why = "a depth below 0" if found_by_builds else "a depth below -1"
            elif depth == 0:
                why = "no build started from it"
            else:
                why = f"no predecessor at depth {depth - 1} found it"
            first.append((key, "depth", f"stored {depth}, but {why}"))
    return total, first


def loopy_move_problems(
    rows: Sequence[Any],
    moves: dict[int, list[int]],
    check_rules: Callable[[str, list[str]], None],
) -> None:
    """Check every expanded state of a game with cycles against its rules: ``check_rules(key,
    stored_successor_keys)`` is called once per expanded state (`rows` have ``id``, ``key`` and
    ``expanded``; `moves` maps a state id to its successors' ids, all stored)."""
    key_of = {r.id: r.key for r in rows}
    for row in rows:
        if row.expanded:
            check_rules(row.key, [key_of[d] for d in moves.get(row.id, [])])
