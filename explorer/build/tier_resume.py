"""How a build in tiers numbers its rows (`place_blocks`), and taking up an unfinished one
(`resume`): which tiers a build before solved and wrote, and their states' values. Their rows
hold each state whole, and nothing else is stored before a tier is solved: the build numbers
every state again, in the same order (the same ids: `TieredBuilder._check_stored` makes
sure), and writes the tiers not written."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
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


def place_blocks(
    placed: np.ndarray, blocks: dict[int, int], lowest: dict[int, int], total: int
) -> int:
    """Turn the blocks of ids `placed` around, in place, the states of each tier kept in
    order: the tiers' `blocks` (where each begins, in the order found, highest tier first,
    `total` ids in all) become the lowest tier's block first, the root's last. Written lowest
    tier first, rows then go into the table's B-tree in id order. Every build numbering the
    same states the same way places them the same way (see `resume`).

    Returns the most ids a move spans: a move from tier t (found in block [a, b)) ends in a
    tier found after it, no later than the `lowest` t reaches (block [c, d)), and spans at
    most d - a - 1 ids. Its row stores offsets that small
    (`explorer.storage.rows.moves.relative`).

    Examples
    --------
    >>> placed = np.arange(6)  # tier 9: the root; tier 8: 3 states; tier 7: 2 states
    >>> place_blocks(placed, {9: 0, 8: 1, 7: 4}, {9: 7, 8: 7}, 6), placed.tolist()
    (5, [5, 2, 3, 4, 0, 1])
    """
    tiers = list(blocks)
    starts = np.array(list(blocks.values()), dtype=np.int64)
    ends = np.append(starts[1:], total)
    block = np.searchsorted(starts, placed, "right") - 1
    # a block [a, b) of n ids becomes [N - b, N - a): N - b + (p - a)
    placed += total - ends[block] - starts[block]
    end = dict(zip(tiers, ends.tolist(), strict=True))
    return max((end[low] - blocks[tier] - 1 for tier, low in lowest.items()), default=0)
