"""part values: the value of each part of a game with canonical part labels

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "part_values",
        sa.Column("family", sa.Text(), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("family", "label", name=op.f("pk_part_values")),
    )
    op.create_table(
        "part_lookups",
        sa.Column("family", sa.Text(), nullable=False),
        sa.Column("lookups", sa.BigInteger(), nullable=False),
        sa.Column("hits", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("family", name=op.f("pk_part_lookups")),
    )


def downgrade() -> None:
    op.drop_table("part_lookups")
    op.drop_table("part_values")
