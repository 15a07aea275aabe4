"""moves packed in the states' rows: ``edges`` becomes a view

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07

A row a move cost 229 bytes a state on the 1M build, its reverse index most of them, and a
B-tree insert a move a direction. Each state's row now carries the ids of its successors and
of its predecessors, packed in ``games.id_width`` bytes an id, big-endian
(`explorer.storage.rows.moves`); ``edges`` (fast by ``src``) and ``edges_in`` (fast by
``dst``) are views that read them as the table of moves did, in plain SQL (SQLite through the
``move_slots`` numbers), and ``moves`` reads ``edges`` again. Every game's edge rows are
packed into the columns, every state and value kept; the downgrade writes the rows back.
(0015 stores each id as its offset from the row's own id: this one writes and reads ids.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import sqlalchemy as sa
from alembic import op

from explorer.storage.backends.dialects import dialect_of
from explorer.storage.rows.moves import pack_again, read_moves
from explorer.storage.schema.packing import id_width

revision: str = "0014"
down_revision: str | None = "0013"
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
#: Moves read from the old table at a time, a game's in order.
CHUNK = 1_000_000
#: The fewest bytes an id this schema stored.
WIDTH = 3


def _games(conn: sa.Connection) -> list[int]:
    return [int(g) for (g,) in conn.exec_driver_sql("SELECT id FROM games ORDER BY id")]


def upgrade() -> None:
    conn = op.get_bind()
    op.execute("DROP VIEW moves")
    op.add_column("games", sa.Column("id_width", sa.Integer(), nullable=True))
    op.add_column("states", sa.Column("successors", sa.LargeBinary(), nullable=True))
    op.add_column("states", sa.Column("predecessors", sa.LargeBinary(), nullable=True))
    op.create_table(
        "move_slots",
        sa.Column("n", sa.Integer(), autoincrement=False, nullable=False),
        sa.PrimaryKeyConstraint("n", name=op.f("pk_move_slots")),
    )
    op.execute("ALTER TABLE edges RENAME TO edge_rows")
    for game in _games(conn):
        rows = conn.execute(
            sa.text("SELECT src, dst FROM edge_rows WHERE game_id = :g ORDER BY src, dst"),
            {"g": game},
        ).all()
        if rows:
            table = np.array(rows, dtype=np.int64)
            width = max(WIDTH, id_width(int(table.max())))
            pack_again(conn, game, table[:, 0], table[:, 1], width, offsets=False)
    op.drop_table("edge_rows")
    for statement in dialect_of(conn).edges_views(offsets=False):
        op.execute(statement)
    op.execute(MOVE_VIEW)


def downgrade() -> None:
    conn = op.get_bind()
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW edges")
    op.execute("DROP VIEW edges_in")
    op.create_table(
        "edges",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("src", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("dst", sa.Integer(), autoincrement=False, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "src", "dst", name=op.f("pk_edges")),
        sqlite_with_rowid=False,
    )
    op.create_index("ix_edges_game_id_dst_src", "edges", ["game_id", "dst", "src"], unique=False)
    insert = sa.text("INSERT INTO edges (game_id, src, dst) VALUES (:g, :a, :b)")
    for game in _games(conn):
        src, dst = read_moves(conn, game, offsets=False)
        for first in range(0, len(src), CHUNK):
            part = slice(first, first + CHUNK)
            conn.execute(
                insert,
                [
                    {"g": game, "a": a, "b": b}
                    for a, b in zip(src[part].tolist(), dst[part].tolist(), strict=True)
                ],
            )
    op.drop_table("move_slots")
    op.execute("ALTER TABLE states DROP COLUMN predecessors")
    op.execute("ALTER TABLE states DROP COLUMN successors")
    op.execute("ALTER TABLE games DROP COLUMN id_width")
    op.execute(MOVE_VIEW)
