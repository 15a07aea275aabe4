"""The statements on the ``states`` table that read one game's states (see
`explorer.storage.tables`); a state row ``s`` always carries `FIELDS`.

Examples
--------
>>> FIELDS.split(", ")[:3]
['s.id', 's.key', 's.grundy']
>>> str(count_where("game_id = :g"))
'SELECT COUNT(*) FROM states WHERE game_id = :g'
"""

from __future__ import annotations

import sqlalchemy as sa

from explorer.storage.models import StateTable

#: The columns of a state row every read returns, in this order.
COLUMNS = (
    "id",
    "key",
    "grundy",
    "outcome",
    "remoteness",
    "depth",
    "height",
    "expanded",
    "escapes",
)
assert set(COLUMNS) <= set(StateTable.__table__.columns.keys())
#: `COLUMNS` of the state rows ``s`` of a query.
FIELDS = ", ".join(f"s.{column}" for column in COLUMNS)

#: The state of a key (``:g``, ``:k``).
BY_KEY = sa.text(f"SELECT {FIELDS} FROM states AS s WHERE game_id = :g AND key = :k")


def by_keys(fields: str = FIELDS) -> sa.TextClause:
    """The `fields` of the states ``s`` among the keys ``:keys`` (expanding) of game ``:g``."""
    return sa.text(
        f"SELECT {fields} FROM states AS s WHERE s.game_id = :g AND s.key IN :keys"
    ).bindparams(sa.bindparam("keys", expanding=True))


#: The states among the ids ``:ids`` (expanding) of game ``:g``.
BY_IDS = sa.text(
    f"SELECT {FIELDS} FROM states AS s WHERE s.game_id = :g AND s.id IN :ids"
).bindparams(sa.bindparam("ids", expanding=True))


def count_where(condition: str) -> sa.TextClause:
    """How many states of a game match `condition` (SQL on the columns of ``states``)."""
    return sa.text(f"SELECT COUNT(*) FROM states WHERE {condition}")


def page_where(condition: str) -> sa.TextClause:
    """One page (``:n`` rows from ``:o``) of the states matching `condition`, by id."""
    return sa.text(
        f"SELECT {FIELDS} FROM states AS s WHERE {condition} ORDER BY id LIMIT :n OFFSET :o"
    )


#: The first ``:n`` states of game ``:g`` by id (breadth first: the top of the game graph), as
#: a common table expression ``top`` of their ids.
TOP_IDS = "WITH top AS (SELECT id FROM states WHERE game_id = :g ORDER BY id LIMIT :n) "
#: The states of `TOP_IDS`, by id.
TOP = sa.text(
    TOP_IDS + f"SELECT {FIELDS} FROM top JOIN states AS s "
    "ON s.game_id = :g AND s.id = top.id ORDER BY s.id"
)

#: How many states game ``:g`` has.
COUNT = sa.text("SELECT COUNT(*) FROM states WHERE game_id = :g")
#: The key of game ``:g``'s first state (its root, for a build's game).
FIRST_KEY = sa.text("SELECT key FROM states WHERE game_id = :g ORDER BY id LIMIT 1")
#: The id of game ``:g``'s state number ``:n`` + 1, by id.
NTH_ID = sa.text("SELECT id FROM states WHERE game_id = :g ORDER BY id LIMIT 1 OFFSET :n")
#: The columns an export writes of each state, in this order.
EXPORTED = ("key", "grundy", "outcome", "remoteness", "depth", "height", "expanded")
assert set(EXPORTED) <= set(COLUMNS)


def exported(upto: bool) -> str:
    """The `EXPORTED` columns of game ``:g``'s states by id (up to id ``:cut`` when `upto`):
    a query to stream (see `explorer.storage.bulk.partitions`)."""
    return (
        f"SELECT {', '.join(EXPORTED)} FROM states "
        "WHERE game_id = :g" + (" AND id <= :cut" if upto else "") + " ORDER BY id"
    )


# -- writes ------------------------------------------------------------------------------------
#: Write the generalized value of state ``:s`` of game ``:g`` (a game with cycles): γ
#: ``:grundy``, ``:escapes``, ``:outcome``, remoteness ``:far``, by build ``:b``; no height.
UPDATE_LOOPY_VALUES = sa.text(
    "UPDATE states SET grundy = :grundy, escapes = :escapes, outcome = :outcome, "
    "remoteness = :far, height = NULL, value_build_id = :b WHERE game_id = :g AND id = :s"
)
#: The states of game ``:g`` from id ``:first`` on (what one build added).
DELETE_FROM = sa.text("DELETE FROM states WHERE game_id = :g AND id >= :first")
#: The values build ``:b`` gave the states of game ``:g`` before id ``:first``, taken back.
CLEAR_VALUES_OF_BUILD = sa.text(
    "UPDATE states SET grundy = NULL, outcome = NULL, remoteness = NULL, "
    "height = NULL, escapes = NULL, value_build_id = NULL "
    "WHERE game_id = :g AND id < :first AND value_build_id = :b"
)


def unexpand(listed: str) -> sa.TextClause:
    """Mark the states of game ``:g`` whose ids are the parameters `listed` not expanded."""
    return sa.text(f"UPDATE states SET expanded = FALSE WHERE game_id = :g AND id IN ({listed})")


#: The columns a game's values are generalized from (a game with cycles).
LOOPY_ROWS = sa.text("SELECT id, key, grundy, escapes, remoteness FROM states WHERE game_id = :g")

# -- counts ------------------------------------------------------------------------------------
#: The kinds of counts of one value each (`explorer.storage.counts`).
HISTOGRAMS = ("outcome", "grundy", "depth", "remoteness", "height")
#: Count game ``:g``'s states, moves and values into ``state_counts`` from scratch.
RECOUNT = sa.text(
    """
INSERT INTO state_counts (game_id, kind, value, count)
SELECT :g, 'states', '', COUNT(*) FROM states WHERE game_id = :g
UNION ALL SELECT :g, 'expanded', '', COUNT(*) FROM states WHERE game_id = :g AND expanded
UNION ALL SELECT :g, 'solved', '', COUNT(*) FROM states WHERE game_id = :g
    AND outcome IS NOT NULL
UNION ALL SELECT :g, 'edges', '', COUNT(*) FROM edges WHERE game_id = :g
"""
    + "".join(
        f"UNION ALL SELECT :g, '{column}', CAST({column} AS TEXT), COUNT(*) FROM states "
        f"WHERE game_id = :g AND {column} IS NOT NULL GROUP BY {column}\n"
        for column in HISTOGRAMS
    )
)
#: What the states among ``:ids`` of game ``:g`` count: ``expanded`` and `HISTOGRAMS`.
COUNTED = sa.text(
    f"SELECT expanded, {', '.join(HISTOGRAMS)} FROM states WHERE game_id = :g AND id IN :ids"
).bindparams(sa.bindparam("ids", expanding=True))
