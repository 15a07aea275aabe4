"""The ``part_values`` table: the value of each part of a game with part labels (Node-Kayles,
Cram, ...), keyed by family and canonical label, shared by every game, position and run.

`load_part_values` fills the process's part table (`explorer.analysis.parts.PART_TABLE`)
before a computation; `save_part_values` adds what the process knows beyond it after, with
``ON CONFLICT DO NOTHING`` so that processes filling the table at once lose nothing (a
label's value is the same whoever computes it).
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlalchemy as sa

from explorer.analysis.parts import PartTable

#: Rows written per statement.
BATCH = 5_000


def load_part_values(
    conn: sa.Connection, table: PartTable, families: Iterable[str]
) -> dict[str, set[str]]:
    """Read the stored values of `families` into `table`; the labels read, by family."""
    read = {}
    for family in families:
        rows = conn.execute(
            sa.text("SELECT label, value FROM part_values WHERE family = :f"), {"f": family}
        )
        values = {label: int(value) for label, value in rows}
        table.family(family).update(values)
        read[family] = set(values)
    return read


def save_part_values(conn: sa.Connection, table: PartTable, stored: dict[str, set[str]]) -> int:
    """Store the values `table` holds for the families of `stored` beyond the labels stored
    there (what `load_part_values` read), with the table's look-ups and hits; how many rows
    were offered (rows another process stored first are left as they are).

    Examples
    --------
    >>> from explorer.storage import open_database
    >>> table = PartTable()
    >>> table.add("cram", "3.5.6", 1)
    >>> with open_database("sqlite://") as db, db.engine.begin() as conn:
    ...     offered = save_part_values(conn, table, {"cram": set()})
    ...     copy = PartTable()
    ...     offered, load_part_values(conn, copy, ["cram"]), copy.values
    (1, {'cram': {'3.5.6'}}, {'cram': {'3.5.6': 1}})
    """
    rows = [
        {"f": family, "l": label, "v": value}
        for family, known in stored.items()
        for label, value in table.family(family).items()
        if label not in known
    ]
    statement = sa.text(
        "INSERT INTO part_values (family, label, value) VALUES (:f, :l, :v) "
        "ON CONFLICT (family, label) DO NOTHING"
    )
    for start in range(0, len(rows), BATCH):
        conn.execute(statement, rows[start : start + BATCH])
    counted = [{"f": f, "n": n, "h": h} for f, (n, h) in table.take_counts().items()]
    if counted:
        conn.execute(
            sa.text(
                "INSERT INTO part_lookups (family, lookups, hits) VALUES (:f, :n, :h) "
                "ON CONFLICT (family) DO UPDATE SET lookups = part_lookups.lookups + "
                "excluded.lookups, hits = part_lookups.hits + excluded.hits"
            ),
            counted,
        )
    return len(rows)


def part_value_counts(conn: sa.Connection) -> list[dict[str, int | str]]:
    """Each family's stored parts, and its look-ups and hits by the runs that saved here."""
    rows = conn.execute(
        sa.text(
            "SELECT v.family, v.parts, COALESCE(l.lookups, 0), COALESCE(l.hits, 0) FROM "
            "(SELECT family, COUNT(*) AS parts FROM part_values GROUP BY family) AS v "
            "LEFT JOIN part_lookups AS l ON l.family = v.family ORDER BY v.family"
        )
    )
    return [
        {"family": family, "parts": int(parts), "lookups": int(n), "hits": int(h)}
        for family, parts, n, h in rows
    ]
