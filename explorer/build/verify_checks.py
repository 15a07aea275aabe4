"""The checks `explorer verify` makes of what a game stores beside its values: the per-game counts
(``state_counts``), every state's depth, and a game with cycles against its rules; and the mex
every value check takes.

Each check is written here again from the definitions, on purpose: it must not share code with
the writers it checks (`explorer.storage.rows.counts`, the builder).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa

from explorer.storage.backends.bulk import partitions
from explorer.storage.rows.moves import CHUNK, distinct, unpacked_rows
from explorer.storage.tables import states as states_table

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


class Tally:
    """What a game's counts (``state_counts``) must be, counted from its rows as a check reads
    them: `add` the columns of each batch of rows, in the order of
    `explorer.storage.tables.states.COLUMNS`, and how many moves their successors hold."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    def add(self, columns: Sequence[Sequence[Any]], moves: int) -> None:
        """Count a batch of rows (`columns`: id, key, grundy, outcome, remoteness, depth,
        height, expanded, escapes)."""
        by_name = dict(zip(states_table.COLUMNS, columns, strict=True))
        self.counts["states", ""] += len(columns[0])
        self.counts["expanded", ""] += sum(map(bool, by_name["expanded"]))
        self.counts["solved", ""] += sum(v is not None for v in by_name["outcome"])
        self.counts["edges", ""] += moves
        for column in _COLUMNS:
            for value, number in Counter(by_name[column]).items():
                if value is not None:
                    self.counts[column, str(value)] += number


def count_problems(conn: sa.Connection, game_id: int, tally: Tally) -> Iterator[Found]:
    """Every stored count of a game (a ``state_counts`` row) that its rows (`tally`) do not
    give: changed, missing or extra.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2")
    >>> tally = Tally()
    >>> with db.engine.begin() as conn:
    ...     rows = conn.execute(states_table.ALL, {"g": 1}).all()
    ...     tally.add(list(zip(*rows)), moves=3)  # 2 -> 1, 2 -> 0, 1 -> 0
    ...     _ = conn.execute(sa.text("UPDATE state_counts SET count = 7 WHERE kind = 'states'"))
    ...     list(count_problems(conn, 1, tally))
    [('count of states', 'counts', 'stored 7, the stored rows give 3')]
    >>> db.close()
    """
    stored: dict[tuple[str, str], Any] = {}
    for kind, value, number in conn.execute(
        sa.text("SELECT kind, value, count FROM state_counts WHERE game_id = :g"), {"g": game_id}
    ):
        if number != 0:
            stored[str(kind), str(value)] = number
    actual = {key: n for key, n in tally.counts.items() if n}
    for key in sorted(stored.keys() | actual.keys()):
        kind, value = key
        have, want = stored.get(key, 0), actual.get(key, 0)
        if have != want:
            name = f"count of {kind}" if not value else f"count {kind}={value}"
            yield name, "counts", f"stored {have!r}, the stored rows give {want}"


#: A state's depth and one of its packed columns, of the states of ids ``:lo`` .. ``:hi``.
_PACKED_IN_RANGE = (
    "SELECT id, key, depth, {column} FROM states WHERE game_id = :g AND id >= :lo AND id < :hi "
    "ORDER BY id"
)
#: The same of the states ``:ids``.
_SUCCESSORS_OF = sa.text(
    "SELECT id, key, depth, successors FROM states WHERE game_id = :g AND id IN :ids ORDER BY id"
).bindparams(sa.bindparam("ids", expanding=True))
#: Every move of a game once: the bytes of its packed successors.
_SUCCESSOR_BYTES = sa.text(
    "SELECT COALESCE(SUM(length(successors)), 0) FROM states WHERE game_id = :g"
)
#: Sources read as one range of ids when it holds at most this many ids a wanted one.
_DENSE = 4


class MovesBack:
    """Whether each state's predecessors are exactly the states whose successors hold it,
    checked a range of ids at a time (`add`, then `finish`): every move a predecessors' column
    holds is a move its source's successors hold, none twice, and the columns hold as many
    moves as the successors do. With `found_by_builds`, each state at a depth d > 0 must have
    a predecessor at d - 1: `shallow` counts those that do not, `first` lists the first
    `show` (id, key, depth)."""

    def __init__(
        self, conn: sa.Connection, game_id: int, *, found_by_builds: bool, show: int
    ) -> None:
        # a game without moves has no width: its columns are all empty
        stored = conn.execute(sa.text("SELECT id_width FROM games WHERE id = :g"), {"g": game_id})
        self.width = int(stored.scalar() or 1)
        bytes_ = conn.execute(_SUCCESSOR_BYTES, {"g": game_id}).scalar_one()
        self.successors, self.predecessors = int(bytes_) // self.width, 0
        self.transposed = True
        self.found_by_builds, self.show = found_by_builds, show
        self.shallow = 0
        self.first: list[tuple[int, str, int]] = []
        self.read = _Sources(conn, game_id, self.width)

    def add(
        self, ids: np.ndarray, depths: np.ndarray, keys: list[str], src: np.ndarray, dst: np.ndarray
    ) -> None:
        """Check a range's states (`ids`, by id, with their depths and keys) against the moves
        into them their rows hold (``src -> dst``)."""
        self.predecessors += len(src)
        back = np.sort(src << 32 | dst)
        have, have_depth, forward = self.read.sources(distinct(src))
        held = np.minimum(np.searchsorted(forward, back), max(len(forward) - 1, 0))
        # each move held once, and held by its source's successors too
        once = not len(back) or bool(np.all(back[1:] != back[:-1]))
        self.transposed &= once and np.array_equal(forward[held] if len(forward) else forward, back)
        if self.found_by_builds:
            self._shallow(ids, depths, keys, dst, src, (have, have_depth))

    def finish(self) -> MovesBack:
        """The check once every range is added."""
        self.transposed &= self.predecessors == self.successors
        return self

    def _shallow(
        self,
        ids: np.ndarray,
        depths: np.ndarray,
        keys: list[str],
        dst: np.ndarray,
        src: np.ndarray,
        sources: tuple[np.ndarray, np.ndarray],
    ) -> None:
        """Count the states of a range at a depth d > 0 none of whose predecessors is at
        depth d - 1."""
        have, have_depth = sources
        at = np.minimum(np.searchsorted(have, src), max(len(have) - 1, 0))
        source_depth = np.where(have[at] == src, have_depth[at], -2) if len(have) else src - src - 2
        place = np.searchsorted(ids, dst)
        nearer = np.zeros(len(ids), dtype=bool)
        nearer[place[source_depth == depths[place] - 1]] = True
        bad = np.flatnonzero((depths > 0) & ~nearer)
        self.shallow += len(bad)
        for i in bad[: max(0, self.show - len(self.first))].tolist():
            self.first.append((int(ids[i]), keys[i], int(depths[i])))


def _unpacked(
    rows: Sequence[Sequence[Any]], width: int
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, np.ndarray]:
    """Rows (id, key, depth, blob) as (ids, depths, keys, each id's moves' near end, far end)."""
    ids = np.array([row[0] for row in rows], dtype=np.int64)
    depths = np.array([row[2] for row in rows], dtype=np.int64)
    blobs = [bytes(row[3] or b"") for row in rows]
    moves = unpacked_rows(ids, blobs, width)
    return ids, depths, [row[1] for row in rows], np.repeat(ids, moves.degree), moves.target


def moves_back(
    conn: sa.Connection, game_id: int, chunk: int, *, found_by_builds: bool, show: int
) -> MovesBack:
    """`MovesBack` of a whole game, its predecessors read a range of `chunk` ids at a time."""
    found = MovesBack(conn, game_id, found_by_builds=found_by_builds, show=show)
    statement = _PACKED_IN_RANGE.format(column="predecessors")
    top = conn.execute(
        sa.text("SELECT MAX(id) FROM states WHERE game_id = :g"), {"g": game_id}
    ).scalar()
    for low in range(0, -1 if top is None else int(top) + 1, chunk):
        params: dict[str, object] = {"g": game_id, "lo": low, "hi": low + chunk}
        rows = [row for part in partitions(conn, statement, params) for row in part]
        ids, depths, keys, dst, src = _unpacked(rows, found.width)
        found.add(ids, depths, keys, src, dst)
    return found.finish()


def _among(ordered: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Which `values` are in `ordered` (sorted)."""
    if not len(ordered):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
    return np.asarray(ordered[at] == values)


class _Sources:
    """The successors and depths of the sources of a range's predecessors, read as ranges go
    up: those read for the range before are kept (a predecessor is most often a state found
    just before), the others read by range of ids, or by id when few and far apart."""

    def __init__(self, conn: sa.Connection, game_id: int, width: int) -> None:
        self.conn, self.game_id, self.width = conn, game_id, width
        empty = np.empty(0, dtype=np.int64)
        # states by id, their depths, and their moves as src << 32 | dst, sorted
        self.ids, self.depths, self.forward = empty, empty.copy(), empty.copy()
        self.floor: int | None = None  # the first id of the range remembered last

    def remember(self, ids: np.ndarray, depths: np.ndarray, forward: np.ndarray) -> None:
        """Keep a range's states (by id), read elsewhere, with their depths and moves."""
        self._add(ids, depths, forward)
        if len(ids):
            self.floor = int(ids[0])

    def sources(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The states `ids` (sorted, distinct), and perhaps others: (ids, depths, moves).
        Only these and the range remembered last are kept for the next range."""
        if len(ids):
            self._add(*self._read(ids[~_among(self.ids, ids)]))
            floor = int(ids[0]) if self.floor is None else self.floor
            kept = (self.ids >= floor) | _among(ids, self.ids)
            self.ids, self.depths = self.ids[kept], self.depths[kept]
            self.forward = self.forward[_among(self.ids, self.forward >> 32)]
        return self.ids, self.depths, self.forward

    def _add(self, ids: np.ndarray, depths: np.ndarray, forward: np.ndarray) -> None:
        ids = np.concatenate([self.ids, ids])
        order = np.argsort(ids, kind="stable")
        ids, depths = ids[order], np.concatenate([self.depths, depths])[order]
        once = np.r_[True, ids[1:] != ids[:-1]] if len(ids) else np.ones(0, dtype=bool)
        self.ids, self.depths = ids[once], depths[once]  # a state read again is kept once
        self.forward = distinct(np.concatenate([self.forward, forward]))

    def _read(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not len(ids):
            empty = np.empty(0, dtype=np.int64)
            return empty, empty.copy(), empty.copy()
        low, high = int(ids[0]), int(ids[-1]) + 1
        if high - low <= _DENSE * len(ids) + CHUNK:
            params: dict[str, object] = {"g": self.game_id, "lo": low, "hi": high}
            statement = _PACKED_IN_RANGE.format(column="successors")
            rows = [row for part in partitions(self.conn, statement, params) for row in part]
        else:
            rows = []
            for start in range(0, len(ids), CHUNK):
                wanted = {"g": self.game_id, "ids": ids[start : start + CHUNK].tolist()}
                rows += self.conn.execute(_SUCCESSORS_OF, wanted).all()
        have, depths, _, src, dst = _unpacked(rows, self.width)
        return have, depths, src << 32 | dst


def depth_problems(
    conn: sa.Connection, game_id: int, back: MovesBack, *, found_by_builds: bool, show: int
) -> tuple[int, list[Found]]:
    """States whose depth is not what a writer gives: below -1 (an imported vertex no root
    reaches), or (for a game built from its rules, whose states are found only by builds) below
    0, a depth d > 0 without a predecessor at depth d - 1 (the state that found it: counted
    in `back`), or 0 at a state no build started from. The number found and the first `show`
    of them.
    """
    params = {"g": game_id}
    # an imported graph's vertices no root reaches have depth -1
    rules = ["s.depth < 0" if found_by_builds else "s.depth < -1"]
    if found_by_builds:
        rules.append(
            "(s.depth = 0 AND NOT EXISTS (SELECT 1 FROM builds AS b WHERE b.game_id = s.game_id "
            "AND b.root = s.key))"
        )
    where = f"s.game_id = :g AND ({' OR '.join(rules)})"
    total = back.shallow + int(
        conn.execute(
            sa.text(f"SELECT COUNT(*) FROM states AS s WHERE {where}"), params
        ).scalar_one()
    )
    listed: list[tuple[int, str, int]] = list(back.first)
    if total > back.shallow:
        listed += conn.execute(
            sa.text(
                f"SELECT s.id, s.key, s.depth FROM states AS s WHERE {where} ORDER BY s.id LIMIT :n"
            ),
            {**params, "n": show},
        ).all()
    first: list[Found] = []
    for _, key, depth in sorted(listed)[:show]:
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
