"""generalized values of games with cycles: states.escapes, and outcome D (a draw)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

A state of a game whose graph has cycles may have the value ∞(K): ``grundy`` is NULL and
``escapes`` holds K, the finite values one move away, as text (``"0,2"``; ``""`` for ∞ with no
finite follower). ``escapes`` is NULL for a finite value. Its outcome may be ``D`` (a draw).
The views gain the column (``state_values.escapes``, ``moves.move_to_escapes``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_OUTCOMES = "outcome IN ('P', 'N')"
NEW_OUTCOMES = "outcome IN ('P', 'N', 'D')"

COLUMNS = (
    "game_id, id, key, depth, expanded, grundy, outcome, remoteness, height, build_id, "
    "value_build_id"
)


def _views(*, escapes: bool) -> tuple[str, str]:
    state_extra = ", s.escapes" if escapes else ""
    move_extra = ", b.escapes AS move_to_escapes" if escapes else ""
    return (
        f"""
CREATE VIEW state_values AS
SELECT g.spec AS game, s.key AS position, s.grundy, s.outcome, s.remoteness, s.depth,
       s.height, s.expanded, s.id AS state_id, s.game_id, s.build_id, s.value_build_id{state_extra}
FROM states AS s JOIN games AS g ON g.id = s.game_id
""",
        f"""
CREATE VIEW moves AS
SELECT g.spec AS game, a.key AS position, b.key AS move_to, b.grundy AS move_to_grundy,
       b.outcome AS move_to_outcome{move_extra}
FROM edges AS e
JOIN games AS g ON g.id = e.game_id
JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src
JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst
""",
    )


def upgrade() -> None:
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    if op.get_context().dialect.name == "sqlite":
        _rebuild_states(NEW_OUTCOMES, escapes=True)
    else:
        op.add_column("states", sa.Column("escapes", sa.Text(), nullable=True))
        op.drop_constraint(op.f("ck_states_outcome"), "states", type_="check")
        op.create_check_constraint(op.f("ck_states_outcome"), "states", NEW_OUTCOMES)
    for view in _views(escapes=True):
        op.execute(view)


def downgrade() -> None:
    # an older explorer knows no infinite value and no draw: such states become unsolved
    op.execute(
        "UPDATE states SET grundy = NULL, outcome = NULL, remoteness = NULL "
        "WHERE escapes IS NOT NULL OR outcome = 'D'"
    )
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    if op.get_context().dialect.name == "sqlite":
        _rebuild_states(OLD_OUTCOMES, escapes=False)
    else:
        op.drop_constraint(op.f("ck_states_outcome"), "states", type_="check")
        op.create_check_constraint(op.f("ck_states_outcome"), "states", OLD_OUTCOMES)
        op.drop_column("states", "escapes")
    for view in _views(escapes=False):
        op.execute(view)


def _rebuild_states(outcomes: str, *, escapes: bool) -> None:
    """SQLite changes a CHECK constraint only by copying the table (as 0002 does for builds):
    the rows wait in a plain copy while ``states`` is created again."""
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
        *([sa.Column("escapes", sa.Text(), nullable=True)] if escapes else []),
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
    copied = COLUMNS + (", escapes" if escapes else "")
    source = COLUMNS + (", NULL" if escapes else "")
    op.execute(f"INSERT INTO states ({copied}) SELECT {source} FROM states_copy")
    op.execute("DROP TABLE states_copy")
