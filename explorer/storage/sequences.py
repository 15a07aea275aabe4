"""Stored value sequences: G(0..N-1) of one heap of a game in chunks of 16-bit words.

One ``sequences`` row per game says how many values are stored and the period they prove; the
values live in ``sequence_chunks`` rows of `CHUNK_VALUES` each. A save rewrites only the chunks
that changed and the row, in one transaction, so a run killed at any moment leaves the values of
its last completed save.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlalchemy as sa

from explorer.games import load_game
from explorer.storage.models import SequenceChunkTable, SequenceTable
from explorer.storage.records import find_game, stored_game, utc_now

#: Values per chunk row (128 KiB of data).
CHUNK_VALUES = 1 << 16


@dataclass(frozen=True)
class StoredSequence:
    """A stored sequence: the values G(0..len(values)-1) and the period they prove."""

    game: str
    values: np.ndarray
    period: tuple[int, int] | None
    checksum: int
    method: str


def _sequence_row(conn: sa.Connection, spec: str) -> Any:
    game_id = find_game(conn, spec)
    if game_id is None:
        return None
    return conn.execute(
        sa.select(SequenceTable).where(SequenceTable.game_id == game_id)
    ).one_or_none()


def load_sequence(conn: sa.Connection, spec: str) -> StoredSequence | None:
    """The stored sequence of a game (canonical spec), or None."""
    row = _sequence_row(conn, spec)
    if row is None:
        return None
    values = np.zeros(row.computed, dtype=np.uint16)
    chunks = conn.execute(
        sa.select(SequenceChunkTable.chunk, SequenceChunkTable.data)
        .where(SequenceChunkTable.sequence_id == row.id)
        .order_by(SequenceChunkTable.chunk)
    )
    for chunk, data in chunks:
        start = chunk * CHUNK_VALUES
        if start >= row.computed:
            break
        words = np.frombuffer(data, dtype="<u2")[: row.computed - start]
        values[start : start + len(words)] = words
    period = None if row.period is None else (int(row.preperiod), int(row.period))
    return StoredSequence(spec, values, period, int(row.checksum), row.method)


def save_sequence(
    conn: sa.Connection,
    spec: str,
    values: np.ndarray,
    computed: int,
    *,
    period: tuple[int, int] | None,
    checksum: int,
    method: str,
) -> None:
    """Store G(0..computed-1) (values[:computed]), writing the chunks past what is stored."""
    game_id = stored_game(conn, load_game(spec))
    row = conn.execute(
        sa.select(SequenceTable).where(SequenceTable.game_id == game_id)
    ).one_or_none()
    fields = {
        "computed": computed,
        "preperiod": None if period is None else period[0],
        "period": None if period is None else period[1],
        "largest": int(values[:computed].max(initial=0)),
        "checksum": checksum,
        "method": method,
        "updated_at": utc_now(),
    }
    if row is None:
        sequence_id = conn.scalar(
            sa.insert(SequenceTable).values(game_id=game_id, **fields).returning(SequenceTable.id)
        )
        before = 0
    else:
        sequence_id = row.id
        before = row.computed
        if computed <= before:
            conn.execute(
                sa.update(SequenceTable).where(SequenceTable.id == sequence_id).values(**fields)
            )
            return
        conn.execute(
            sa.update(SequenceTable).where(SequenceTable.id == sequence_id).values(**fields)
        )
    first = before // CHUNK_VALUES
    last = (computed - 1) // CHUNK_VALUES
    conn.execute(
        sa.delete(SequenceChunkTable).where(
            SequenceChunkTable.sequence_id == sequence_id, SequenceChunkTable.chunk >= first
        )
    )
    for batch in range(first, last + 1, 16):  # 2 MiB a statement, one statement's bytes at a time
        rows = [
            {
                "sequence_id": sequence_id,
                "chunk": chunk,
                "data": values[chunk * CHUNK_VALUES : min((chunk + 1) * CHUNK_VALUES, computed)]
                .astype("<u2")
                .tobytes(),
            }
            for chunk in range(batch, min(batch + 16, last + 1))
        ]
        conn.execute(sa.insert(SequenceChunkTable), rows)


def stored_sequences(conn: sa.Connection) -> dict[str, dict[str, Any]]:
    """Every stored sequence by game spec: values stored, period, largest value, checksum."""
    rows = conn.execute(
        sa.text(
            "SELECT g.spec, s.computed, s.preperiod, s.period, s.largest, s.checksum, s.method "
            "FROM sequences AS s JOIN games AS g ON g.id = s.game_id ORDER BY g.id"
        )
    )
    return {
        r.spec: {
            "values": int(r.computed),
            "preperiod": None if r.preperiod is None else int(r.preperiod),
            "period": None if r.period is None else int(r.period),
            "largest": int(r.largest),
            "checksum": f"{int(r.checksum):08x}",
            "method": r.method,
        }
        for r in rows
    }
