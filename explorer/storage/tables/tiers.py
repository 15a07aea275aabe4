"""The statements on the ``tiers`` table: one row a tier of a build in tiers, written when the
tier is expanded and updated when it is solved (`explorer.build.tier_manager`), so that a build
stopped at any moment continues from the tiers done.

Examples
--------
>>> print(SOLVED)
UPDATE tiers SET solve_seconds = :seconds WHERE game_id = :g AND tier = :tier
"""

from __future__ import annotations

import sqlalchemy as sa

#: Whether a game has any tier recorded (``g``).
ANY = sa.text("SELECT 1 FROM tiers WHERE game_id = :g LIMIT 1")

#: Each recorded tier of a game and whether it is solved (``g``).
DONE = sa.text("SELECT tier, solve_seconds IS NOT NULL FROM tiers WHERE game_id = :g")

#: Record a tier expanded (``g``, ``tier``, ``build``, ``states``, ``edges``, ``seconds``).
EXPANDED = sa.text(
    "INSERT INTO tiers (game_id, tier, build_id, states, edges, expand_seconds) "
    "VALUES (:g, :tier, :build, :states, :edges, :seconds)"
)

#: Record a tier solved (``g``, ``tier``, ``seconds``).
SOLVED = sa.text("UPDATE tiers SET solve_seconds = :seconds WHERE game_id = :g AND tier = :tier")
