"""each packed id stored as its offset from the id of the state whose row holds it

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-07

A move joins states that a build numbers near each other (a build in tiers numbers each tier's
states in one block, the tiers a move joins side by side), so the offset ``dst - src`` takes
fewer bytes than the id: the 1M build's ids take 3 bytes and its offsets 2, the 10^8 build's
ids 4 and its offsets 3 (`explorer.storage.schema.packing.relative`). Every game's columns are
packed again in the width their farthest move needs, and ``edges``/``edges_in`` (and ``moves``
over them) decode offsets; the downgrade packs the ids themselves again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from alembic import op

from explorer.storage.backends.dialects import dialect_of
from explorer.storage.rows.moves import DEFAULT_WIDTH, pack_again, read_moves
from explorer.storage.schema.packing import id_width, offset_width

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MOVE_VIEW = """
CREATE VIEW moves AS
SELECT g.spec AS game, a.key AS position, b.key AS move_to, b.grundy AS move_to_grundy,
       b.outcome AS move_to_outcome, b.escapes AS move_to_escapes, g.convention
FROM edges AS e
JOIN games AS g ON g.id = e.game_id
JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src
JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst
"""
#: The fewest bytes an id schema 0014 stored.
ID_WIDTH = 3


def _repack(*, offsets: bool) -> None:
    """Every game's moves packed again, as offsets (or as ids), and the views to match."""
    conn = op.get_bind()
    games = conn.exec_driver_sql("SELECT id FROM games WHERE id_width IS NOT NULL ORDER BY id")
    for (game,) in games.all():
        src, dst = read_moves(conn, int(game), offsets=not offsets)
        if offsets:
            width = max(DEFAULT_WIDTH, offset_width(int(np.abs(src - dst).max(initial=0))))
        else:
            width = max(ID_WIDTH, id_width(int(max(src.max(initial=0), dst.max(initial=0)))))
        pack_again(conn, int(game), src, dst, width, offsets=offsets)
    for view in ("moves", "edges", "edges_in"):
        op.execute(f"DROP VIEW {view}")
    for statement in dialect_of(conn).edges_views(offsets=offsets):
        op.execute(statement)
    op.execute(MOVE_VIEW)


def upgrade() -> None:
    _repack(offsets=True)


def downgrade() -> None:
    _repack(offsets=False)
