"""states without foreign keys; on PostgreSQL, states pages keep room for the value update

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25

A build writes every state twice: once when found, once when solved. On PostgreSQL each
foreign key (game_id, build_id, value_build_id) is a trigger that looks its row up for every
state written, and an update that cannot stay on its page writes a new tuple into every index:
176,851 states took 10 s to insert with the three keys and 3 s without, and 7.5 s to update at
the default fill factor and 3 s at 50 (measured together on a loaded machine). So the keys go,
as ``edges`` never had them (the builder writes a game's row and its build's row, in their own
transaction, before any state, and no game or build row is ever deleted), and ``states`` is
filled to half its pages (``fillfactor = 50``) so that the update is a heap-only tuple. SQLite
makes the table again without the keys (as 0009 does); PostgreSQL drops them.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY_INDEX = "ix_states_game_id_key"
OUTCOMES = "outcome = 'P' OR outcome = 'N' OR outcome = 'D'"
#: The foreign keys dropped: name, column, referred table.
REFERENCES = (
    ("fk_states_game_id_games", "game_id", "games"),
    ("fk_states_build_id_builds", "build_id", "builds"),
    ("fk_states_value_build_id_builds", "value_build_id", "builds"),
)
#: PostgreSQL's fill factor for ``states`` pages from this revision on (100 before).
FILL_FACTOR = 50

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
        _rebuild_states(references=False)
        return
    for name, _, _ in REFERENCES:
        op.drop_constraint(name, "states", type_="foreignkey")
    op.execute(f"ALTER TABLE states SET (fillfactor = {FILL_FACTOR})")


def downgrade() -> None:
    if op.get_context().dialect.name == "sqlite":
        _rebuild_states(references=True)
        return
    op.execute("ALTER TABLE states RESET (fillfactor)")
    for name, column, table in REFERENCES:
        op.create_foreign_key(name, "states", table, [column], ["id"])


def _rebuild_states(*, references: bool) -> None:
    """The rows wait in a plain copy while ``states`` is created again, with its columns, keys,
    checks and key index unchanged and WITHOUT ROWID, with or without the foreign keys."""
    op.execute("DROP VIEW moves")
    op.execute("DROP VIEW state_values")
    op.execute("CREATE TABLE states_copy AS SELECT * FROM states")
    op.execute("DROP TABLE states")
    keys = [
        sa.ForeignKeyConstraint([column], [f"{table}.id"], name=name)
        for name, column, table in REFERENCES
    ]
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
        *(keys if references else []),
        sa.PrimaryKeyConstraint("game_id", "id", name=op.f("pk_states")),
        sqlite_with_rowid=False,
    )
    op.execute(
        f"INSERT INTO states ({COLUMNS}) SELECT {COLUMNS} FROM states_copy ORDER BY game_id, id"
    )
    op.execute("DROP TABLE states_copy")
    # made whole after the rows, as a build that dropped it does
    op.create_index(KEY_INDEX, "states", ["game_id", "key"], unique=True)
    for view in VIEWS:
        op.execute(view)
