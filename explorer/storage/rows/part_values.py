"""The ``part_values`` table: the value of each part of a game with part labels (Node-Kayles,
Cram, ...), keyed by family and canonical label, shared by every game, position and run.

`SharedParts` (``Database.parts``) is what callers use. `load_part_values` fills the
process's part table (`explorer.analysis.parts.PART_TABLE`) before a computation;
`save_part_values` adds what the process knows beyond it after, with ``ON CONFLICT DO
NOTHING`` so that processes filling the table at once lose nothing (a label's value is the
same whoever computes it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.analysis.parts import (
    PART_TABLE,
    PartTable,
    part_families,
    part_value,
    parts_of,
    search_families,
)
from explorer.errors import StoredPartError
from explorer.games.convention import NORMAL, Convention
from explorer.storage.backends.errors import translated, translated_errors

if TYPE_CHECKING:
    from explorer.games.base import Game, Position

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
        table.add_stored(family, values)  # each checked against its moves when first used
        read[family] = set(values)
    return read


def save_part_values(conn: sa.Connection, table: PartTable, stored: dict[str, set[str]]) -> int:
    """Store the values `table` holds for the families of `stored` beyond the labels stored
    there (what `load_part_values` read), with the table's look-ups and hits; how many rows
    were offered (rows another process stored first are left as they are).

    Examples
    --------
    >>> from explorer import open_database
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


class SharedParts:
    """The part table of one database (``Database.parts``): share it with a computation, and
    count what it holds."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def shared(self, game: Game[Any]) -> Iterator[int]:
        """Within the block, the process's part table (`explorer.analysis.parts`) holds
        the values this database stores for the game's part families (of a sum's
        components too), and after it, even after an error, the values the process knows
        beyond those are stored (not after a stored value was found wrong: see
        `explorer.analysis.parts.PartTable.add_stored`). Yields how many values were read;
        a game without part labels reads none.

        Examples
        --------
        >>> from explorer import load_game
        >>> from explorer.analysis.solving import grundy_value
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> kayles = load_game("nodekayles")
        >>> with db.parts.shared(kayles):
        ...     grundy_value(kayles, kayles.parse("P6+C5"))
        1
        >>> [row["family"] for row in db.parts.counts()]
        ['nodekayles']
        >>> db.close()
        """
        families = part_families(game)
        if not families:
            yield 0
            return
        families += [f for f in search_families(game) if f not in families]
        with translated_errors(self.engine, "read"), self.engine.connect() as conn:
            read = load_part_values(conn, PART_TABLE, families)
        count = sum(map(len, read.values()))

        def checkpoint() -> None:  # a long search stores what it found as it goes
            self._save(read)
            for family in read:  # what is saved now is stored: the next save skips it
                read[family] = set(PART_TABLE.family(family))

        before, PART_TABLE.checkpoint = PART_TABLE.checkpoint, checkpoint
        try:
            yield count
        except StoredPartError:  # a damaged table: the command fails, and writes nothing
            raise
        except BaseException:
            self._save(read)
            raise
        finally:
            PART_TABLE.checkpoint = before
        self._save(read)

    def _save(self, read: dict[str, set[str]]) -> None:
        with translated_errors(self.engine, "write to"), self.engine.begin() as conn:
            save_part_values(conn, PART_TABLE, read)

    @contextmanager
    def building(
        self, game: Game[Any], root: Position, complete: bool, convention: Convention
    ) -> Iterator[None]:
        """Around a normal-play build or solve of `root`: the part table shared (`shared`)
        and, for a build meant to be `complete` (no state limit) or a solve, the root's parts
        valued first, each label the table lacks once, so that the table holds every part
        the build meets (and a solve answered by the whole graph still adds to it)."""
        if convention != NORMAL or not part_families(game):
            yield
            return
        with self.shared(game):
            if complete:
                for part in parts_of(game, root):
                    if game.part_label(part) is not None:
                        part_value(game, part)
            yield

    @translated("read")
    def read(self, game: Game[Any]) -> PartTable:
        """A new part table holding the values stored for the game's part families (reading
        only: a read-only database serves it)."""
        table = PartTable()
        with self.engine.connect() as conn:
            load_part_values(conn, table, part_families(game))
        return table

    @translated("read")
    def counts(self) -> list[dict[str, int | str]]:
        """The part table's size per family, and its look-ups and hits by runs that saved
        here (see `part_value_counts`)."""
        with self.engine.connect() as conn:
            return part_value_counts(conn)
