"""Stored value sequences: G(0..N-1) of one heap of a game in chunks of 16-bit words.

One ``sequences`` row per game says how many values are stored and the period they prove; the
values live in ``sequence_chunks`` rows of `CHUNK_VALUES` each. A save rewrites only the chunks
that changed and the row, in one transaction, so a run killed at any moment leaves the values of
its last completed save. Values are checked as they are read (chunk lengths, ``computed``
against the chunks, the stored Fletcher-32): damaged values are never used or extended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlalchemy as sa

from explorer.errors import DatabaseDamagedError
from explorer.games import load_game
from explorer.storage.query.damage import stored_natural
from explorer.storage.rows.records import find_game, stored_game, utc_now
from explorer.storage.schema.models import SequenceChunkTable, SequenceTable

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
    """The stored sequence of a game (canonical spec), or None.

    Raises
    ------
    DatabaseDamagedError
        When the stored values do not match their row (see `sequence_damage`): they are not
        used, so nothing computed from them is stored either.
    """
    row = _sequence_row(conn, spec)
    if row is None:
        return None
    values, damage = _read_values(conn, row)
    if damage is not None or values is None:
        raise DatabaseDamagedError(
            f"the stored sequence of {spec} is damaged ({damage}), so it is not used: "
            f"'explorer verify' lists the damage, and 'explorer sequence {spec} --rebuild "
            "--db URL' computes and stores it again"
        )
    period = None if row.period is None else (int(row.preperiod), int(row.period))
    return StoredSequence(spec, values, period, int(row.checksum), row.method)


def sequence_damage(conn: sa.Connection, row: Any) -> str | None:
    """What is wrong with a stored sequence (its ``sequences`` row), or None when its chunks
    hold exactly G(0..computed-1), their Fletcher-32 is the stored one, its largest value is
    the stored largest and its period fits in the values."""
    return _read_values(conn, row)[1]


def _read_values(conn: sa.Connection, row: Any) -> tuple[np.ndarray | None, str | None]:
    """The values of a stored sequence and None, or None and what is wrong with them."""
    computed = row.computed
    if not isinstance(computed, int) or computed < 0:
        return None, f"it claims {computed!r} values"
    chunks: list[bytes] = []
    # read as bytes whatever was stored (text that is not UTF-8 would not decode)
    for chunk, data in conn.execute(
        sa.select(SequenceChunkTable.chunk, sa.cast(SequenceChunkTable.data, sa.LargeBinary))
        .where(SequenceChunkTable.sequence_id == row.id)
        .order_by(SequenceChunkTable.chunk)
    ):
        if chunk != len(chunks):
            return None, f"chunk {len(chunks)} is missing" if chunk > len(chunks) else (
                f"chunk {chunk} is stored twice"
            )
        if not isinstance(data, bytes | memoryview):
            return None, f"chunk {chunk} holds {data!r:.20}, not bytes"
        expected = 2 * min(CHUNK_VALUES, computed - chunk * CHUNK_VALUES)
        if len(data) != expected:
            if expected <= 0:
                return None, f"chunk {chunk} is past the {computed:,} values the row claims"
            return None, f"chunk {chunk} holds {len(data):,} bytes, expected {expected:,}"
        chunks.append(bytes(data))
    if len(chunks) * CHUNK_VALUES < computed:
        return None, (
            f"it claims {computed:,} values but its chunks hold "
            f"{sum(len(c) for c in chunks) // 2:,}"
        )
    from explorer.solver.sparse import fletcher32

    values = np.frombuffer(b"".join(chunks), dtype="<u2").astype(np.uint16)
    if fletcher32(values) != row.checksum:
        return None, (
            f"the values' Fletcher-32 is {fletcher32(values):08x}, the stored one "
            f"{int(row.checksum) & 0xFFFFFFFF:08x}"
        )
    if int(values.max(initial=0)) != row.largest:
        return None, f"its largest value is {int(values.max(initial=0))}, stored {row.largest}"
    if row.period is not None and not (
        0 <= row.preperiod and 1 <= row.period and row.preperiod + row.period <= computed
    ):
        return None, f"its period {row.period} from {row.preperiod} does not fit its values"
    return values, None


def delete_sequence(conn: sa.Connection, spec: str) -> bool:
    """Delete the stored sequence of a game (canonical spec); whether there was one."""
    row = _sequence_row(conn, spec)
    if row is None:
        return False
    conn.execute(sa.delete(SequenceChunkTable).where(SequenceChunkTable.sequence_id == row.id))
    conn.execute(sa.delete(SequenceTable).where(SequenceTable.id == row.id))
    return True


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
    """Store G(0..computed-1) (values[:computed]), the only way a sequence is written.

    The values below what is stored are taken to be the stored ones: the chunks from the one
    holding the first new value (or the new last value, when fewer are kept) are rewritten, and
    every chunk past `computed` is deleted.
    """
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
        before = row.computed if isinstance(row.computed, int) else 0
        conn.execute(
            sa.update(SequenceTable).where(SequenceTable.id == sequence_id).values(**fields)
        )
    # the chunks from the first one that changes are rewritten, and those past the new count
    # deleted: a save that keeps fewer values than a checkpoint stored (a proof that ends
    # before the last checkpoint) leaves exactly its own values
    first = min(before, computed) // CHUNK_VALUES
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
        # a row whose numbers are not numbers (damaged) is not listed: `verify` names it
        if all(
            stored_natural(n) is not None or (n is None and optional)
            for n, optional in (
                (r.computed, False),
                (r.preperiod, True),
                (r.period, True),
                (r.largest, False),
                (r.checksum, False),
            )
        )
    }
