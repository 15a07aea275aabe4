"""sequences and sequence_chunks: single-heap value sequences stored in chunks

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sequences",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("computed", sa.BigInteger(), nullable=False),
        sa.Column("preperiod", sa.BigInteger(), nullable=True),
        sa.Column("period", sa.BigInteger(), nullable=True),
        sa.Column("largest", sa.Integer(), nullable=False),
        sa.Column("checksum", sa.BigInteger(), nullable=False),
        sa.Column("method", sa.String(length=20), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_sequences_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sequences")),
        sa.UniqueConstraint("game_id", name=op.f("uq_sequences_game_id")),
    )
    op.create_table(
        "sequence_chunks",
        sa.Column("sequence_id", sa.Integer(), nullable=False),
        sa.Column("chunk", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["sequence_id"],
            ["sequences.id"],
            name=op.f("fk_sequence_chunks_sequence_id_sequences"),
        ),
        sa.PrimaryKeyConstraint("sequence_id", "chunk", name=op.f("pk_sequence_chunks")),
    )


def downgrade() -> None:
    op.drop_table("sequence_chunks")
    op.drop_table("sequences")
