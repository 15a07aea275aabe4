"""Each game's states counted by outcome, Grundy value, depth, remoteness and height, and its
moves: the ``state_counts`` table, kept exact by every writer in the transaction that writes
the rows, so that `explorer stats` reads a few rows instead of every state.

A build adds what each batch changes (`add_counts`); imports and edits, which change values in
place, count their game again (`recount`); `explorer verify` compares the two.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import sqlalchemy as sa

from explorer.solver import outcome

#: The kinds of counts: totals (value ``""``), then histograms by a column's value.
TOTALS = ("states", "expanded", "solved", "edges")
HISTOGRAMS = ("outcome", "grundy", "depth", "remoteness", "height")

_RECOUNT = """
INSERT INTO state_counts (game_id, kind, value, count)
SELECT :g, 'states', '', COUNT(*) FROM states WHERE game_id = :g
UNION ALL SELECT :g, 'expanded', '', COUNT(*) FROM states WHERE game_id = :g AND expanded
UNION ALL SELECT :g, 'solved', '', COUNT(*) FROM states WHERE game_id = :g
    AND grundy IS NOT NULL
UNION ALL SELECT :g, 'edges', '', COUNT(*) FROM edges WHERE game_id = :g
""" + "".join(
    f"UNION ALL SELECT :g, '{column}', CAST({column} AS TEXT), COUNT(*) FROM states "
    f"WHERE game_id = :g AND {column} IS NOT NULL GROUP BY {column}\n"
    for column in HISTOGRAMS
)

_ADD = (
    "INSERT INTO state_counts (game_id, kind, value, count) VALUES (:g, :kind, :value, :n) "
    "ON CONFLICT (game_id, kind, value) DO UPDATE SET count = state_counts.count + excluded.count"
)


def recount(conn: sa.Connection, game_id: int) -> None:
    """Count one game's stored rows again, replacing its counts (inside the caller's write)."""
    conn.execute(sa.text("DELETE FROM state_counts WHERE game_id = :g"), {"g": game_id})
    conn.execute(sa.text(_RECOUNT), {"g": game_id})


def add_counts(conn: sa.Connection, game_id: int, counts: list[tuple[str, str, int]]) -> None:
    """Add (kind, value, number) counts to a game's, inside the caller's write."""
    rows = [{"g": game_id, "kind": k, "value": v, "n": n} for k, v, n in counts if n]
    if rows:
        conn.execute(sa.text(_ADD), rows)


def histogram(kind: str, values: np.ndarray) -> list[tuple[str, str, int]]:
    """(kind, value, number) for each distinct value of an integer array."""
    distinct, numbers = np.unique(values, return_counts=True)
    return [(kind, str(v), n) for v, n in zip(distinct.tolist(), numbers.tolist(), strict=True)]


def solved_counts(
    grundy: np.ndarray, remoteness: np.ndarray, height: np.ndarray
) -> list[tuple[str, str, int]]:
    """The counts that states given these (finite) values add.

    Examples
    --------
    >>> solved_counts(np.array([0, 2, 2]), np.array([0, 1, 1]), np.array([0, 1, 1]))[:3]
    [('solved', '', 3), ('outcome', 'N', 2), ('outcome', 'P', 1)]
    """
    return [
        ("solved", "", len(grundy)),
        *histogram("outcome", outcome(grundy)),
        *histogram("grundy", grundy),
        *histogram("remoteness", remoteness),
        *histogram("height", height),
    ]


def read_counts(conn: sa.Connection, game_id: int) -> dict[str, dict[str, int]]:
    """A game's counts: ``{kind: {value: number}}`` (totals under the value ``""``)."""
    counts: dict[str, dict[str, int]] = defaultdict(dict)
    rows = conn.execute(
        sa.text("SELECT kind, value, count FROM state_counts WHERE game_id = :g"), {"g": game_id}
    )
    for kind, value, number in rows:
        if number:
            counts[kind][value] = int(number)
    return counts
