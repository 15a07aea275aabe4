"""Taking back a build that a game's own rules stopped: a bug in a user's Python rules leaves the
database exactly as it was before the build, row for row."""

from __future__ import annotations

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.storage.backends.engine import writing
from explorer.storage.rows.counts import recount
from explorer.storage.rows.moves import read_moves, remove_moves
from explorer.storage.rows.records import ensure_key_index
from explorer.storage.tables import states

#: Ids per statement when old states' flags are put back (SQLite allows 32,766 parameters).
UNDO_CHUNK = 500


def undo_build(
    engine: Engine,
    *,
    game_id: int,
    build_id: int,
    first_new: int,
    expanded_now: np.ndarray,
    game_created: bool,
) -> None:
    """Remove everything one build wrote, in one transaction.

    The build's new states are those from `first_new` on; `expanded_now` are the states stored
    before it that it expanded (their moves and flags are taken back); the values it gave
    older states carry its build id. The game's counts are made again, and the game's row
    goes too when the build created it.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> report = db.game("nim").build("2,2")
    >>> undo_build(db.engine, game_id=1, build_id=report.build_id, first_new=0,
    ...            expanded_now=np.zeros(0, dtype=np.int64), game_created=True)
    >>> with db.engine.connect() as conn:
    ...     conn.scalar(sa.text("SELECT COUNT(*) FROM games")), conn.scalar(states.COUNT, {"g": 1})
    (0, 0)
    >>> db.close()
    """
    params = {"g": game_id, "b": build_id, "first": first_new}
    with writing(engine) as conn:
        ensure_key_index(conn)
        # the build's moves leave the rows of the states that stay (the new ones go whole)
        src, dst = read_moves(conn, game_id)
        older = np.isin(src, expanded_now)
        taken = (src >= first_new) | older
        stays = taken & (older | (dst < first_new))
        remove_moves(conn, game_id, src[stays], dst[stays])
        ids = expanded_now.tolist()
        for start in range(0, len(ids), UNDO_CHUNK):
            chunk = {f"i{n}": i for n, i in enumerate(ids[start : start + UNDO_CHUNK])}
            listed = ", ".join(f":{name}" for name in chunk)
            conn.execute(states.unexpand(listed), {"g": game_id, **chunk})
        conn.execute(states.CLEAR_VALUES_OF_BUILD, params)
        conn.execute(states.DELETE_FROM, params)
        conn.execute(sa.text("DELETE FROM builds WHERE id = :b"), params)
        if game_created:
            conn.execute(sa.text("DELETE FROM state_counts WHERE game_id = :g"), params)
            conn.execute(sa.text("DELETE FROM games WHERE id = :g"), params)
        else:
            recount(conn, game_id)
