"""state_counts: a state of value ∞(K) (a game with cycles) counts as solved, like every state
whose outcome is known; 0006 counted only the states with a finite Grundy value

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The solved states of every game counted again, by the rule of explorer.storage.rows.counts
#: (a migration keeps its own copy, as it must run unchanged whatever the code becomes).
SOLVED = """
INSERT INTO state_counts (game_id, kind, value, count)
SELECT game_id, 'solved', '', COUNT(*) FROM states WHERE {solved} GROUP BY game_id
"""


def _count_solved(solved: str) -> None:
    op.execute("DELETE FROM state_counts WHERE kind = 'solved'")
    op.execute(SOLVED.format(solved=solved))


def upgrade() -> None:
    _count_solved("outcome IS NOT NULL")


def downgrade() -> None:
    _count_solved("grundy IS NOT NULL")
