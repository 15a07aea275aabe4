"""Each game's states counted by outcome, Grundy value, depth, remoteness and height, and its
moves: the ``state_counts`` table, kept exact by every writer in the transaction that writes
the rows, so that `explorer stats` reads a few rows instead of every state.

A build adds what each batch changes (`add_counts`), as does a new import and a full re-solve
(from the arrays they write); an edit takes the states it writes out of the counts and counts
them again as they end up (`CountChanges`), so it reads only those states; a game with cycles
built or re-labelled whole is counted again (`recount`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable

import numpy as np
import sqlalchemy as sa

from explorer.solver import outcome
from explorer.storage.query.damage import stored_natural
from explorer.storage.query.neighbourhood import chunks
from explorer.storage.tables import states
from explorer.storage.tables.states import HISTOGRAMS

#: The kinds of counts: totals (value ``""``), then histograms by a column's value. A state is
#: solved once its outcome is known: a finite Grundy value, or ∞(K) in a game with cycles.
TOTALS = ("states", "expanded", "solved", "edges")
#: The kinds of counts that writing every state's values changes (`BulkWriter.update_values`
#: also marks each state expanded): what a full re-solve replaces.
VALUE_KINDS = ("expanded", "solved", "outcome", "grundy", "remoteness", "height")

_ADD = (
    "INSERT INTO state_counts (game_id, kind, value, count) VALUES (:g, :kind, :value, :n) "
    "ON CONFLICT (game_id, kind, value) DO UPDATE SET count = state_counts.count + excluded.count"
)


def recount(conn: sa.Connection, game_id: int) -> None:
    """Count one game's stored rows again, replacing its counts (inside the caller's write)."""
    conn.execute(sa.text("DELETE FROM state_counts WHERE game_id = :g"), {"g": game_id})
    conn.execute(states.RECOUNT, {"g": game_id})


def replace_value_counts(
    conn: sa.Connection, game_id: int, counts: list[tuple[str, str, int]]
) -> None:
    """Put `counts` in place of a game's `VALUE_KINDS` counts (every value written again)."""
    statement = sa.text("DELETE FROM state_counts WHERE game_id = :g AND kind IN :kinds")
    conn.execute(
        statement.bindparams(sa.bindparam("kinds", expanding=True)),
        {"g": game_id, "kinds": list(VALUE_KINDS)},
    )
    add_counts(conn, game_id, counts)


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
        # a count that is not a number (a damaged row) counts nothing: `verify` names it
        if stored_natural(number):
            counts[str(kind)][str(value)] = int(number)
    return counts


def stored_states(conn: sa.Connection) -> int:
    """The states of every game in the database, from the counts."""
    total = conn.execute(
        sa.text("SELECT SUM(count) FROM state_counts WHERE kind = 'states' AND value = ''")
    ).scalar()
    return int(total or 0)


def counted_states(
    conn: sa.Connection, game_id: int, ids: Collection[int]
) -> Counter[tuple[str, str]]:
    """What the stored states with these ids add to their game's counts, by (kind, value); ids
    not stored add nothing. The same rules as `recount`'s statement, for a few rows."""
    counts: Counter[tuple[str, str]] = Counter()
    for chunk in chunks(sorted(ids)):
        for expanded, *values in conn.execute(states.COUNTED, {"g": game_id, "ids": chunk}):
            row = dict(zip(HISTOGRAMS, values, strict=True))
            counts["states", ""] += 1
            counts["expanded", ""] += bool(expanded)
            counts["solved", ""] += row["outcome"] is not None
            counts.update((kind, str(value)) for kind, value in row.items() if value is not None)
    return counts


class CountChanges:
    """Keeps a game's counts exact across writes that change a few of its states (an edit):
    each state is taken out of the counts before its first write (`before`) and counted again
    as it ends up (`finish`); moves are counted as they are added or removed (`edges`). An edit
    so reads the states it writes, never the whole game."""

    def __init__(self, conn: sa.Connection, game_id: int) -> None:
        self.conn = conn
        self.game_id = game_id
        self.ids: set[int] = set()
        self.change: Counter[tuple[str, str]] = Counter()

    def before(self, ids: Iterable[int]) -> None:
        """Call before writing (or adding, or removing) the states with these ids."""
        first = {i for i in ids if i not in self.ids}
        if first:
            self.change.subtract(counted_states(self.conn, self.game_id, first))
            self.ids |= first

    def edges(self, number: int) -> None:
        """`number` moves were added (negative: removed)."""
        self.change["edges", ""] += number

    def finish(self) -> None:
        """Write the change, once every write is done (inside the same transaction)."""
        self.change.update(counted_states(self.conn, self.game_id, self.ids))
        add_counts(self.conn, self.game_id, [(k, v, n) for (k, v), n in self.change.items()])
        self.ids.clear()
        self.change.clear()
