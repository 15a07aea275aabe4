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

from collections.abc import Sequence
from functools import cache

import sqlalchemy as sa

from explorer.storage.schema.models import KEY_INDEX, StateTable

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


@cache
def by_keys(count: int, fields: str = FIELDS) -> sa.TextClause:
    """The `fields` of the states ``s`` of game ``:g`` among `count` keys ``:k0``, ``:k1``, ...

    The keys are a table of their own, joined to ``states`` one key at a time through the key
    index: SQLite 3.40 plans ``key IN (?, ?, ?)`` of bound keys (without ``ANALYZE``'s
    statistics) as a scan of the game's rows, 0.17 s for 3 keys at 1M states against 0.1 ms.

    Examples
    --------
    >>> str(by_keys(2, "s.id"))  # doctest: +NORMALIZE_WHITESPACE
    'SELECT s.id FROM (VALUES (:k0), (:k1)) AS wanted CROSS JOIN states AS s
     WHERE s.game_id = :g AND s.key = wanted.column1'
    """
    keys = ", ".join(f"(:k{n})" for n in range(count))
    # CROSS JOIN: SQLite keeps the keys outside; PostgreSQL plans it as any join
    return sa.text(
        f"SELECT {fields} FROM (VALUES {keys}) AS wanted CROSS JOIN states AS s "
        "WHERE s.game_id = :g AND s.key = wanted.column1"
    )


#: The states among the ids ``:ids`` (expanding) of game ``:g``.
BY_IDS = sa.text(
    f"SELECT {FIELDS} FROM states AS s WHERE s.game_id = :g AND s.id IN :ids"
).bindparams(sa.bindparam("ids", expanding=True))


#: Statistics of the table for PostgreSQL's planner.
ANALYZE = "ANALYZE states"

#: The ids and keys of the states among the ids ``:ids`` (expanding) of game ``:g``.
KEYS_OF = sa.text("SELECT id, key FROM states WHERE game_id = :g AND id IN :ids").bindparams(
    sa.bindparam("ids", expanding=True)
)


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
    a query to stream (see `explorer.storage.backends.bulk.partitions`)."""
    return (
        f"SELECT {', '.join(EXPORTED)} FROM states "
        "WHERE game_id = :g" + (" AND id <= :cut" if upto else "") + " ORDER BY id"
    )


# -- a check's reads (`explorer.build.verify_states`) ----------------------------------------
#: Game ``:g``'s states, by id.
ALL = sa.text(f"SELECT {FIELDS} FROM states AS s WHERE s.game_id = :g ORDER BY s.id")
#: Game ``:g``'s states of ids from ``:lo`` up to (not including) ``:hi``, by id.
IN_RANGE = sa.text(
    f"SELECT {FIELDS} FROM states AS s WHERE s.game_id = :g AND s.id >= :lo AND s.id < :hi "
    "ORDER BY s.id"
)
#: The same with each state's packed successors and predecessors (`FIELDS`, then those two).
IN_RANGE_PACKED = sa.text(
    f"SELECT {FIELDS}, s.successors, s.predecessors FROM states AS s WHERE s.game_id = :g "
    "AND s.id >= :lo AND s.id < :hi ORDER BY s.id"
)
#: A row if game ``:g`` has a solved state.
ANY_SOLVED = sa.text("SELECT 1 FROM states WHERE game_id = :g AND outcome IS NOT NULL LIMIT 1")
#: A row if game ``:g`` has a state with a height.
ANY_HEIGHT = sa.text("SELECT 1 FROM states WHERE game_id = :g AND height IS NOT NULL LIMIT 1")
#: A row if game ``:g`` has a state not expanded.
ANY_UNEXPANDED = sa.text("SELECT 1 FROM states WHERE game_id = :g AND NOT expanded LIMIT 1")

# -- the key index (`explorer.storage.rows.records.drop_key_index`) -------------------------------
#: Create the unique index of the states' keys in each game.
CREATE_KEY_INDEX = f"CREATE UNIQUE INDEX IF NOT EXISTS {KEY_INDEX} ON states (game_id, key)"
#: Drop it.
DROP_KEY_INDEX = f"DROP INDEX IF EXISTS {KEY_INDEX}"

# -- an edit's reads and writes, one state at a time (`explorer.build.stored_graph`) --------
#: The columns of a state an edit keeps in memory, in this order.
KEPT = ("id", "grundy", "remoteness", "height", "escapes")
assert set(KEPT) <= set(COLUMNS)


def kept(alias: str) -> str:
    """`KEPT` of the state rows `alias` of a query."""
    return ", ".join(f"{alias}.{column}" for column in KEPT)


#: `KEPT` of the state of a key (``:g``, ``:k``).
KEPT_BY_KEY = sa.text(f"SELECT {kept('s')} FROM states AS s WHERE s.game_id = :g AND s.key = :k")
#: The keys and depths of the states ``:ids`` (expanding) of game ``:g``.
#: The root of the build that stored each state of ``:keys`` (expanding) of game ``:g``.
DEPTH_STARTS = sa.text(
    "SELECT s.key, b.root FROM states AS s JOIN builds AS b ON b.id = s.build_id "
    "WHERE s.game_id = :g AND s.key IN :keys AND b.kind = 'build'"
).bindparams(sa.bindparam("keys", expanding=True))

DEPTHS = sa.text("SELECT key, depth FROM states WHERE game_id = :g AND id IN :ids").bindparams(
    sa.bindparam("ids", expanding=True)
)
#: The id after game ``:g``'s largest (0 for a game without states).
NEXT_ID = sa.text("SELECT COALESCE(MAX(id), -1) + 1 FROM states WHERE game_id = :g")
#: Delete state ``:s`` of game ``:g`` (its moves deleted first).
DELETE = sa.text("DELETE FROM states WHERE game_id = :g AND id = :s")
#: Set the height ``:h`` of state ``:s`` of game ``:g``.
SET_HEIGHT = sa.text("UPDATE states SET height = :h WHERE game_id = :g AND id = :s")
#: Set the value of state ``:s`` of game ``:g``: ``:grundy``, ``:outcome``, remoteness
#: ``:far``, by build ``:b``.
SET_VALUE = sa.text(
    "UPDATE states SET grundy = :grundy, outcome = :outcome, remoteness = :far, "
    "value_build_id = :b WHERE game_id = :g AND id = :s"
)

# -- reads into arrays (queries to stream, see `explorer.storage.backends.bulk.read_int_columns`)
#: SQL giving 1 for an expanded state, else 0.
EXPANDED = "CASE WHEN expanded THEN 1 ELSE 0 END"
#: SQL giving 1 for a state with no value yet (neither a Grundy value nor a generalized one).
UNVALUED = "CASE WHEN grundy IS NULL AND escapes IS NULL THEN 1 ELSE 0 END"


def by_id(*columns: str) -> str:
    """The `columns` (names, or SQL such as `EXPANDED`) of game ``:g``'s states, by id."""
    return f"SELECT {', '.join(columns)} FROM states WHERE game_id = :g ORDER BY id"


#: The keys of game ``:g``'s states, by id.
KEYS = sa.text(by_id("key"))
#: The ids and keys of game ``:g``'s states without a Grundy value, by id.
UNSOLVED_KEYS = sa.text(
    "SELECT id, key FROM states WHERE game_id = :g AND grundy IS NULL ORDER BY id"
)
#: The key of game ``:g``'s last state (by id) without a value of either kind.
LAST_UNVALUED_KEY = sa.text(
    "SELECT key FROM states WHERE game_id = :g AND grundy IS NULL AND escapes IS NULL "
    "ORDER BY id DESC LIMIT 1"
)


# -- writes ------------------------------------------------------------------------------------
def outcome_sql(value: str) -> str:
    """SQL for the outcome of the Grundy value `value` (an SQL expression), as
    `explorer.solver.outcome` gives it: P exactly where the value is 0.

    Examples
    --------
    >>> outcome_sql("v.grundy")
    "CASE WHEN v.grundy = 0 THEN 'P' ELSE 'N' END"
    """
    return f"CASE WHEN {value} = 0 THEN 'P' ELSE 'N' END"


def insert_head(columns: Sequence[str]) -> str:
    """The head of a multi-row insert of new states' `columns` (``VALUES`` to follow)."""
    return f"INSERT INTO states ({', '.join(columns)}) VALUES "


def copy_in(columns: Sequence[str]) -> str:
    """PostgreSQL's text COPY of new states' `columns`."""
    return f"COPY states ({', '.join(columns)}) FROM STDIN"


#: A shard: a file of new states' rows a worker writes, beside an SQLite database, for the
#: database to take in one statement (`FOLD_SHARD`). A rowid table: rows kept in id order.
SHARD_COLUMNS = (
    "game_id, build_id, value_build_id, expanded, id, key, depth, grundy, outcome, remoteness, "
    "height, successors, predecessors"
)
CREATE_SHARD = (
    "CREATE TABLE states (id INTEGER PRIMARY KEY, game_id INTEGER, build_id INTEGER, "
    "value_build_id INTEGER, expanded BOOLEAN, key TEXT, depth INTEGER, grundy INTEGER, "
    "outcome TEXT, remoteness INTEGER, height INTEGER, successors BLOB, predecessors BLOB)"
)
#: Take every row of the shard attached as ``shard``, in id order.
FOLD_SHARD = (
    f"INSERT INTO main.states ({SHARD_COLUMNS}) SELECT {SHARD_COLUMNS} FROM shard.states "
    "ORDER BY id"
)

#: Flag the states of game ``:g`` with ids ``:first`` to ``:last`` expanded (``:yes``).
MARK_EXPANDED = sa.text(
    "UPDATE states SET expanded = :yes WHERE game_id = :g AND id BETWEEN :first AND :last"
)


def set_values_sqlite(game_id: int, build_id: int, depth: bool) -> str:
    """SQLite's update of new values, four parameters a row: ``?1`` the Grundy value,
    ``?2`` the remoteness, ``?3`` the height, ``?4`` the state's id (and ``?5`` its depth when
    `depth`); the game and the build written in, the outcome found from the value."""
    return (
        f"UPDATE states SET grundy = ?1, outcome = {outcome_sql('?1')}, "
        f"remoteness = ?2, height = ?3, value_build_id = {int(build_id)}, "
        f"expanded = 1{', depth = ?5' if depth else ''} "
        f"WHERE game_id = {int(game_id)} AND id = ?4"
    )


#: PostgreSQL's table of new values, copied into and then joined (`set_values_from`).
NEW_VALUES = "new_values"
#: Create `NEW_VALUES` for this session (emptied at every commit).
CREATE_NEW_VALUES = (
    f"CREATE TEMP TABLE IF NOT EXISTS {NEW_VALUES} (id integer, grundy integer, "
    "remoteness integer, height integer, depth integer) ON COMMIT DELETE ROWS"
)


def copy_values(columns: Sequence[str]) -> str:
    """PostgreSQL's binary COPY of new values' `columns` into `NEW_VALUES`."""
    return f"COPY {NEW_VALUES} ({', '.join(columns)}) FROM STDIN (FORMAT BINARY)"


def set_values_from(depth: bool) -> str:
    """PostgreSQL's update of new values from `NEW_VALUES` (with their depth when `depth`),
    for game ``%(game)s`` by build ``%(build)s``, the outcome found from the value."""
    return (
        "UPDATE states AS s SET grundy = v.grundy, "
        f"outcome = {outcome_sql('v.grundy')}, "
        "remoteness = v.remoteness, height = v.height, value_build_id = %(build)s, "
        f"expanded = TRUE{', depth = v.depth' if depth else ''} "
        f"FROM {NEW_VALUES} AS v WHERE s.game_id = %(game)s AND s.id = v.id"
    )


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
#: The kinds of counts of one value each (`explorer.storage.rows.counts`).
HISTOGRAMS = ("outcome", "grundy", "depth", "remoteness", "height")
#: How many moves game ``:g`` has: the bytes of its packed successors over the width of an id
#: (each move counted once, no id decoded: 0.3 s at 1M states against 0.8 s through ``edges``).
MOVES = (
    "SELECT COALESCE(SUM(length(s.successors)) / MAX(g.id_width), 0) FROM states AS s "
    "JOIN games AS g ON g.id = s.game_id WHERE s.game_id = :g"
)
#: Count game ``:g``'s states, moves and values into ``state_counts`` from scratch.
RECOUNT = sa.text(
    """
INSERT INTO state_counts (game_id, kind, value, count)
SELECT :g, 'states', '', COUNT(*) FROM states WHERE game_id = :g
UNION ALL SELECT :g, 'expanded', '', COUNT(*) FROM states WHERE game_id = :g AND expanded
UNION ALL SELECT :g, 'solved', '', COUNT(*) FROM states WHERE game_id = :g
    AND outcome IS NOT NULL
UNION ALL SELECT :g, 'edges', '', ("""
    + MOVES
    + """)
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
