"""games.convention: a game is its spec and its play convention (normal or misère)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23

A stored game holds one set of values per state, so the misère build of a game (the player who
moves last loses) is a game of its own: ``games.convention`` is ``normal`` or ``misere``, and
the spec is unique per convention (``uq_games_spec_convention`` replaces ``uq_games_spec``).
Every game stored before is ``normal``. The views gain the column (``state_values.convention``,
``moves.convention``).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CONVENTIONS = "convention IN ('normal', 'misere')"
GAME_COLUMNS = "id, spec, family, parameters, created_at, fingerprint"


def _views(*, convention: bool) -> tuple[str, str]:
    extra = ", g.convention" if convention else ""
    return (
        f"""
CREATE VIEW state_values AS
SELECT g.spec AS game, s.key AS position, s.grundy, s.outcome, s.remoteness, s.depth,
       s.height, s.expanded, s.id AS state_id, s.game_id, s.build_id, s.value_build_id,
       s.escapes{extra}
FROM states AS s JOIN games AS g ON g.id = s.game_id
""",
        f"""
CREATE VIEW moves AS
SELECT g.spec AS game, a.key AS position, b.key AS move_to, b.grundy AS move_to_grundy,
       b.outcome AS move_to_outcome, b.escapes AS move_to_escapes{extra}
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
        _rebuild_games(convention=True)
    else:
        op.add_column(
            "games",
            sa.Column("convention", sa.String(length=10), server_default="normal", nullable=False),
        )
        op.drop_constraint(op.f("uq_games_spec"), "games", type_="unique")
        op.create_unique_constraint(
            op.f("uq_games_spec_convention"), "games", ["spec", "convention"]
        )
        op.create_check_constraint(op.f("ck_games_convention"), "games", CONVENTIONS)
    for view in _views(convention=True):
        op.execute(view)


def downgrade() -> None:
    # an older explorer knows one convention only: the misère games are removed with their rows
    misere = "SELECT id FROM games WHERE convention = 'misere'"
    op.execute(f"DELETE FROM edges WHERE game_id IN ({misere})")
    op.execute(f"DELETE FROM states WHERE game_id IN ({misere})")
    op.execute(
        "DELETE FROM sequence_chunks WHERE sequence_id IN "
        f"(SELECT id FROM sequences WHERE game_id IN ({misere}))"
    )
    op.execute(f"DELETE FROM sequences WHERE game_id IN ({misere})")
    op.execute(f"DELETE FROM builds WHERE game_id IN ({misere})")
    op.execute(f"DELETE FROM games WHERE id IN ({misere})")
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    if op.get_context().dialect.name == "sqlite":
        _rebuild_games(convention=False)
    else:
        op.drop_constraint(op.f("ck_games_convention"), "games", type_="check")
        op.drop_constraint(op.f("uq_games_spec_convention"), "games", type_="unique")
        op.create_unique_constraint(op.f("uq_games_spec"), "games", ["spec"])
        op.drop_column("games", "convention")
    for view in _views(convention=False):
        op.execute(view)


def _rebuild_games(*, convention: bool) -> None:
    """SQLite changes a UNIQUE constraint only by copying the table (as 0002 does for builds):
    the rows wait in a plain copy while ``games`` is created again, and inserting them back
    under that name mends the references of builds, states and sequences before the commit
    checks them."""
    op.execute("PRAGMA defer_foreign_keys = ON")  # checked at the commit; reset by it
    op.execute("CREATE TABLE games_copy AS SELECT * FROM games")
    op.execute("DROP TABLE games")
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("spec", sa.Text(), nullable=False),
        sa.Column("family", sa.String(length=40), nullable=False),
        sa.Column("parameters", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=True),
        *(
            [
                sa.Column(
                    "convention", sa.String(length=10), server_default="normal", nullable=False
                ),
                sa.CheckConstraint(CONVENTIONS, name=op.f("ck_games_convention")),
                sa.UniqueConstraint("spec", "convention", name=op.f("uq_games_spec_convention")),
            ]
            if convention
            else [sa.UniqueConstraint("spec", name=op.f("uq_games_spec"))]
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.execute(f"INSERT INTO games ({GAME_COLUMNS}) SELECT {GAME_COLUMNS} FROM games_copy")
    op.execute("DROP TABLE games_copy")
