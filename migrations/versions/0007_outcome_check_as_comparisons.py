"""states.outcome checked by comparisons: ``outcome = 'P' OR outcome = 'N' OR outcome = 'D'``

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24

The same rule as ``outcome IN ('P', 'N', 'D')`` (0003), written so that SQLite checks it fast:
SQLite evaluates a CHECK on every row a statement inserts or updates, and an IN list of three
or more values makes it build a small lookup table each time; comparisons cost next to nothing
(a build writes every state twice, once when found and once when solved: 100,000 updates took
0.27 s of CPU with the IN list, 0.14 s with comparisons or no check at all). PostgreSQL gets the
same text, so that both databases hold the constraint the models declare.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_OUTCOMES = "outcome IN ('P', 'N', 'D')"
NEW_OUTCOMES = "outcome = 'P' OR outcome = 'N' OR outcome = 'D'"

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
    _check_outcomes(NEW_OUTCOMES)


def downgrade() -> None:
    _check_outcomes(OLD_OUTCOMES)


def _check_outcomes(outcomes: str) -> None:
    if op.get_context().dialect.name != "sqlite":
        op.drop_constraint(op.f("ck_states_outcome"), "states", type_="check")
        op.create_check_constraint(op.f("ck_states_outcome"), "states", outcomes)
        return
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    _rebuild_states(outcomes)
    for view in VIEWS:
        op.execute(view)


def _rebuild_states(outcomes: str) -> None:
    """SQLite changes a CHECK constraint only by copying the table (as 0003 does): the rows
    wait in a plain copy while ``states`` is created again, with its columns, keys and
    references unchanged and WITHOUT ROWID."""
    op.execute("CREATE TABLE states_copy AS SELECT * FROM states")
    op.execute("DROP TABLE states")
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
        sa.CheckConstraint(outcomes, name=op.f("ck_states_outcome")),
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
    op.execute(
        f"INSERT INTO states ({COLUMNS}) SELECT {COLUMNS} FROM states_copy ORDER BY game_id, id"
    )
    op.execute("DROP TABLE states_copy")
