"""Taking up an unfinished build in tiers (`resume`): from the rows stored and the ``tiers``
table, the tier manager's arrays, its tiers still to expand and the moves of the tiers expanded
and not solved, as they were when the build stopped."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import sqlalchemy as sa

from explorer.build.scratch import TierMoves
from explorer.storage.backends.bulk import read_int_columns
from explorer.storage.rows.moves import read_moves
from explorer.storage.tables import states as states_table
from explorer.storage.tables import tiers as tiers_table

if TYPE_CHECKING:
    from explorer.build.tier_manager import TieredBuilder


def resume(builder: TieredBuilder, conn: sa.Connection, game_id: int) -> None:
    """Take up an unfinished build in tiers: the states stored, which tiers are expanded
    and solved, the moves of those expanded and not solved, and the keys of the states
    of the tiers still to expand."""
    done = {
        int(tier): bool(solved)
        for tier, solved in conn.execute(
            tiers_table.DONE,
            {"g": game_id},
        )
    }
    read = ("id", "depth", "grundy", "remoteness", "height")
    ids, depth, grundy, remote, height = read_int_columns(
        conn, states_table.by_id(*read), {"g": game_id}, len(read)
    )
    src, dst = read_moves(conn, game_id)
    # every state numbered is stored
    size = int(ids.max(initial=-1)) + 1
    if not size:
        return
    builder.next_id = builder.first_new = size
    for array, column in (
        (builder.depth, depth),
        (builder.grundy, grundy),
        (builder.remote, remote),
        (builder.height, height),
    ):
        array.reserve(size)
        array.data[ids] = column
    # the tier of every unsolved state, from its key; the keys of unexpanded tiers kept
    tier_of: dict[int, int] = {}
    parse, tier_fn = builder.game.parse, builder.game.tier
    rows: Iterable[tuple[int, str]] = conn.execute(states_table.UNSOLVED_KEYS, {"g": game_id})
    for state, key in rows:
        tier = tier_fn(parse(key))
        assert tier is not None
        tier_of[state] = tier
        if tier not in done:
            builder.known[key] = state
            if tier not in builder.waiting:
                builder.waiting[tier] = ([], [])
            builder.waiting[tier][0].append(state)
            builder.waiting[tier][1].append(key)
    builder.tiers_done = len(done) + sum(done.values())
    # the moves of the tiers expanded and not solved, grouped by tier in id order
    open_src = np.fromiter((s in tier_of for s in src.tolist()), dtype=bool, count=len(src))
    src, dst = src[open_src], dst[open_src]
    src_tier = np.array([tier_of[s] for s in src.tolist()], dtype=object)
    by_tier: dict[int, list[int]] = {}
    for state, tier in tier_of.items():
        if done.get(tier) is False:
            by_tier.setdefault(tier, []).append(state)
    for tier in sorted(by_tier, reverse=True):
        states = np.array(sorted(by_tier[tier]), dtype=np.int64)
        mask = src_tier == tier
        tier_src, tier_dst = src[mask], dst[mask]
        counts = np.searchsorted(tier_src, states, "right") - np.searchsorted(
            tier_src, states, "left"
        )
        # depths: every move of an expanded tier relaxes its end (tiers high to low)
        moved = np.repeat(builder.depth.data[states] + 1, counts).astype(np.int32)
        np.minimum.at(builder.depth.data, tier_dst, moved)
        builder.moves[tier] = TierMoves(states, counts.astype(np.int32), tier_dst.astype(np.int32))
