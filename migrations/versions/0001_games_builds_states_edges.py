"""games, builds, states, edges and the state_values and moves views

Revision ID: 0001
Revises:
Create Date: 2025-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STATE_VIEW = """
CREATE VIEW state_values AS
SELECT g.spec AS game, s.key AS position, s.grundy, s.outcome, s.remoteness, s.depth,
       s.height, s.expanded, s.id AS state_id, s.game_id, s.build_id, s.value_build_id
FROM states AS s JOIN games AS g ON g.id = s.game_id
"""

MOVE_VIEW = """
CREATE VIEW moves AS
SELECT g.spec AS game, a.key AS position, b.key AS move_to, b.grundy AS move_to_grundy,
       b.outcome AS move_to_outcome
FROM edges AS e
JOIN games AS g ON g.id = e.game_id
JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src
JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst
"""


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.Column("family", sa.String(length=40), nullable=False),
        sa.Column("parameters", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        sa.UniqueConstraint("spec", name=op.f("uq_games_spec")),
    )
    op.create_table(
        "builds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("root", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("states_new", sa.Integer(), nullable=False),
        sa.Column("states_reused", sa.Integer(), nullable=False),
        sa.Column("edges_new", sa.Integer(), nullable=False),
        sa.Column("values_computed", sa.Integer(), nullable=False),
        sa.Column("max_states", sa.Integer(), nullable=True),
        sa.Column("method", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "status IN ('running', 'stopped', 'complete', 'interrupted')",
            name=op.f("ck_builds_status"),
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_builds_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_builds")),
    )
    op.create_index(op.f("ix_builds_game_id"), "builds", ["game_id"], unique=False)
    op.create_table(
        "states",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.Column("expanded", sa.Boolean(), nullable=False),
        sa.Column("grundy", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.String(length=1), nullable=True),
        sa.Column("remoteness", sa.Integer(), nullable=True),
        sa.Column("height", sa.Integer(), nullable=True),
        sa.Column("build_id", sa.Integer(), nullable=False),
        sa.Column("value_build_id", sa.Integer(), nullable=True),
        sa.CheckConstraint("outcome IN ('P', 'N')", name=op.f("ck_states_outcome")),
        sa.ForeignKeyConstraint(
            ["build_id"], ["builds.id"], name=op.f("fk_states_build_id_builds")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_states_game_id_games")),
        sa.ForeignKeyConstraint(
            ["value_build_id"], ["builds.id"], name=op.f("fk_states_value_build_id_builds")
        ),
        sa.PrimaryKeyConstraint("game_id", "id", name=op.f("pk_states")),
        sa.UniqueConstraint("game_id", "key", name=op.f("uq_states_game_id_key")),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "edges",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("src", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("dst", sa.Integer(), autoincrement=False, nullable=False),
        sa.PrimaryKeyConstraint("game_id", "src", "dst", name=op.f("pk_edges")),
        sqlite_with_rowid=False,
    )
    op.create_index("ix_edges_game_id_dst_src", "edges", ["game_id", "dst", "src"], unique=False)
    op.execute(STATE_VIEW)
    op.execute(MOVE_VIEW)


def downgrade() -> None:
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    op.drop_index("ix_edges_game_id_dst_src", table_name="edges")
    op.drop_table("edges")
    op.drop_table("states")
    op.drop_index(op.f("ix_builds_game_id"), table_name="builds")
    op.drop_table("builds")
    op.drop_table("games")
