"""patterns and quotients: patterns found in a game's values, and misère quotients

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "patterns",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("upto", sa.BigInteger(), nullable=False),
        sa.Column("refuted_at", sa.Text(), nullable=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint(
            "status IN ('observed', 'proved', 'refuted')", name=op.f("ck_patterns_status")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_patterns_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_patterns")),
    )
    op.create_index(op.f("ix_patterns_game_id"), "patterns", ["game_id"])
    op.create_table(
        "quotients",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("max_heap", sa.BigInteger(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_quotients_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_quotients")),
    )


def downgrade() -> None:
    op.drop_table("quotients")
    op.drop_index(op.f("ix_patterns_game_id"), "patterns")
    op.drop_table("patterns")
