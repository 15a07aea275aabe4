"""build tiers: each tier of a game built on several workers, and a build's workers

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("builds") as batch:
        batch.add_column(sa.Column("workers", sa.Integer(), nullable=True))
    op.create_table(
        "tiers",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("tier", sa.Text(), nullable=False),
        sa.Column("build_id", sa.Integer(), nullable=False),
        sa.Column("states", sa.BigInteger(), nullable=False),
        sa.Column("edges", sa.BigInteger(), nullable=False),
        sa.Column("expand_seconds", sa.Float(), nullable=False),
        sa.Column("solve_seconds", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_tiers_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "tier", name=op.f("pk_tiers")),
    )


def downgrade() -> None:
    op.drop_table("tiers")
    with op.batch_alter_table("builds") as batch:
        batch.drop_column("workers")
