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
