"""states.key unique through a named index, ``ix_states_game_id_key``, instead of a constraint

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24

The same rule as before (one state per game and key), held by an index that a large build can
drop while it writes and create again at its end (`explorer.storage.rows.records.drop_key_index`):
SQLite cannot drop the index behind a UNIQUE constraint, and a key index filled state by state
in discovery order costs a build most of its state writes (10 million keys took 70 s inserted
into the index, 28 s without it plus 5 s to create it after) and is 14 % larger than one
created whole. SQLite makes the table again without the constraint (as 0007 does); PostgreSQL
drops the constraint.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY_INDEX = "ix_states_game_id_key"
KEY_CONSTRAINT = "uq_states_game_id_key"
OUTCOMES = "outcome = 'P' OR outcome = 'N' OR outcome = 'D'"

COLUMNS = (
    "game_id, id, key, depth, expanded, grundy, outcome, remoteness, height, build_id, "
    "value_build_id, escapes"
)

#: The views as 0005 left them: SQLite keeps a view's text, so they are dropped while ``states``
#: is made again and created again after.
VIEWS = (
    """
CREATE VIEW state_values AS
SELECT g.spec AS game, s.key AS position, s.grundy, s.outcome, s.remoteness, s.depth,
       s.height, s.expanded, s.id AS state_id, s.game_id, s.build_id, s.value_build_id,
       s.escapes, g.convention
FROM states AS s JOIN games AS g ON g.id = s.game_id
""",
    """
CREATE VIEW moves AS
SELECT g.spec AS game, a.key AS position, b.key AS move_to, b.grundy AS move_to_grundy,
       b.outcome AS move_to_outcome, b.escapes AS move_to_escapes, g.convention
FROM edges AS e
JOIN games AS g ON g.id = e.game_id
JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src
JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst
""",
)


def upgrade() -> None:
    if op.get_context().dialect.name == "sqlite":
        _rebuild_states(unique_constraint=False)
    else:
        op.drop_constraint(KEY_CONSTRAINT, "states", type_="unique")
    op.create_index(KEY_INDEX, "states", ["game_id", "key"], unique=True)


def downgrade() -> None:
    op.drop_index(KEY_INDEX, "states")
    if op.get_context().dialect.name == "sqlite":
        _rebuild_states(unique_constraint=True)
    else:
        op.create_unique_constraint(KEY_CONSTRAINT, "states", ["game_id", "key"])


def _rebuild_states(*, unique_constraint: bool) -> None:
    """The rows wait in a plain copy while ``states`` is created again, with its columns, keys,
    checks and references unchanged and WITHOUT ROWID, with or without the key constraint."""
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    op.execute("CREATE TABLE states_copy AS SELECT * FROM states")
    op.execute("DROP TABLE states")
    unique = [sa.UniqueConstraint("game_id", "key", name=KEY_CONSTRAINT)]
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
        sa.Column("escapes", sa.Text(), nullable=True),
        sa.CheckConstraint(OUTCOMES, name=op.f("ck_states_outcome")),
        sa.ForeignKeyConstraint(
            ["build_id"], ["builds.id"], name=op.f("fk_states_build_id_builds")
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_states_game_id_games")),
        sa.ForeignKeyConstraint(
            ["value_build_id"], ["builds.id"], name=op.f("fk_states_value_build_id_builds")
        ),
        sa.PrimaryKeyConstraint("game_id", "id", name=op.f("pk_states")),
        *(unique if unique_constraint else []),
        sqlite_with_rowid=False,
    )
    op.execute(
        f"INSERT INTO states ({COLUMNS}) SELECT {COLUMNS} FROM states_copy ORDER BY game_id, id"
    )
    op.execute("DROP TABLE states_copy")
    for view in VIEWS:
        op.execute(view)
