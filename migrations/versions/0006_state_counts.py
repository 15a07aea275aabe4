"""state_counts: each game's states counted by outcome, Grundy value, depth, remoteness and
height, kept by every writer, so that stats need not read every state

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The counts of one game from its rows (the same statement as explorer.storage.rows.counts uses;
#: a migration keeps its own copy, as it must run unchanged whatever the code becomes).
COUNTS = """
INSERT INTO state_counts (game_id, kind, value, count)
SELECT game_id, 'states', '', COUNT(*) FROM states GROUP BY game_id
UNION ALL SELECT game_id, 'expanded', '', COUNT(*) FROM states WHERE expanded GROUP BY game_id
UNION ALL SELECT game_id, 'solved', '', COUNT(*) FROM states WHERE grundy IS NOT NULL
    GROUP BY game_id
UNION ALL SELECT game_id, 'edges', '', COUNT(*) FROM edges GROUP BY game_id
UNION ALL SELECT game_id, 'outcome', outcome, COUNT(*) FROM states WHERE outcome IS NOT NULL
    GROUP BY game_id, outcome
UNION ALL SELECT game_id, 'grundy', CAST(grundy AS TEXT), COUNT(*) FROM states
    WHERE grundy IS NOT NULL GROUP BY game_id, grundy
UNION ALL SELECT game_id, 'depth', CAST(depth AS TEXT), COUNT(*) FROM states
    WHERE depth IS NOT NULL GROUP BY game_id, depth
UNION ALL SELECT game_id, 'remoteness', CAST(remoteness AS TEXT), COUNT(*) FROM states
    WHERE remoteness IS NOT NULL GROUP BY game_id, remoteness
UNION ALL SELECT game_id, 'height', CAST(height AS TEXT), COUNT(*) FROM states
    WHERE height IS NOT NULL GROUP BY game_id, height
"""


def upgrade() -> None:
    op.create_table(
        "state_counts",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("count", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_state_counts_game_id_games")
        ),
        sa.PrimaryKeyConstraint("game_id", "kind", "value", name=op.f("pk_state_counts")),
    )
    op.execute(COUNTS)


def downgrade() -> None:
    op.drop_table("state_counts")
