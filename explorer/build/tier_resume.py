"""Taking up an unfinished build in tiers (`resume`): which tiers a build before solved and
wrote, and their states' values. Their rows hold each state whole, and nothing else is
stored before a tier is solved: the build numbers every state again, in the same order (the
same ids: `TieredBuilder._check_stored` makes sure), and writes the tiers not written."""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa

from explorer.errors import DatabaseDamagedError
from explorer.storage.backends.bulk import read_int_columns
from explorer.storage.tables import states as states_table
from explorer.storage.tables import tiers as tiers_table

if TYPE_CHECKING:
    from explorer.build.tier_manager import TieredBuilder


def resume(builder: TieredBuilder, conn: sa.Connection, game_id: int) -> None:
    """Take up an unfinished build in tiers: the tiers solved and written, and the values of
    their states, by id."""
    done = {
        int(tier): bool(solved) for tier, solved in conn.execute(tiers_table.DONE, {"g": game_id})
    }
    if not all(done.values()):
        raise DatabaseDamagedError(
            f"the unfinished build of {builder.game.spec} was made by an earlier explorer, "
            "which wrote tiers before solving them: delete the game and build it again"
        )
    read = ("id", "grundy", "remoteness", "height")
    ids, grundy, remote, height = read_int_columns(
        conn, states_table.by_id(*read), {"g": game_id}, len(read)
    )
    builder.solved_before = set(done)
    builder.first_new = len(ids)
    builder.stored = [ids, grundy, remote, height]  # set once every state is found again
