"""The statements on the ``edges`` table that read one game's moves (see
`explorer.storage.tables`): ``src`` moves to ``dst``; ``near`` names the column a walk
matches and ``far`` the one it follows (``src``/``dst`` forwards, ``dst``/``src`` back).

Examples
--------
>>> ends("out"), ends("in")
(('src', 'dst'), ('dst', 'src'))
>>> str(count_at("dst"))
'SELECT COUNT(*) FROM edges WHERE game_id = :g AND dst = :s'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import sqlalchemy as sa

from explorer.storage.schema.models import EdgeTable
from explorer.storage.schema.packing import MAX_WIDTH
from explorer.storage.tables.states import FIELDS, TOP_IDS, kept

End = Literal["src", "dst"]
#: The columns of a move, in the order the writers take them.
COLUMNS = ("game_id", "src", "dst")
assert set(COLUMNS) == set(EdgeTable.__table__.columns.keys())

#: States reached by moves: edges first, then each state by its key. SQLite plans a CROSS JOIN
#: in the order written; without it, and without statistics, it may walk every state of the game
#: in id order looking for the few a move reaches (seconds on a million states).
EDGES_THEN_STATES = "edges AS e CROSS JOIN states AS s WHERE s.game_id = e.game_id"


def ends(direction: Literal["out", "in"]) -> tuple[End, End]:
    """The (near, far) ends of the moves followed out of a state or into it."""
    return ("src", "dst") if direction == "out" else ("dst", "src")


#: Whether there is a move ``:a`` -> ``:b`` in game ``:g``.
MOVE = sa.text("SELECT 1 FROM edges WHERE game_id = :g AND src = :a AND dst = :b")


def count_at(near: End) -> sa.TextClause:
    """How many moves of game ``:g`` have state ``:s`` as their `near` end."""
    return sa.text(f"SELECT COUNT(*) FROM edges WHERE game_id = :g AND {near} = :s")


def linked_page(near: End, far: End, order: str | None = None) -> sa.TextClause:
    """One page (``:n`` from ``:o``) of the states at the `far` end of the moves whose `near`
    end is state ``:s`` of game ``:g``, in the SQL `order` of the state rows ``s`` (by
    default the `far` ids)."""
    return sa.text(
        f"SELECT {FIELDS} FROM {EDGES_THEN_STATES} AND s.id = e.{far} "
        f"AND e.game_id = :g AND e.{near} = :s ORDER BY {order or f'e.{far}'} "
        "LIMIT :n OFFSET :o"
    )


def linked_ids(near: End, far: End) -> sa.TextClause:
    """The `far` ends of the moves of game ``:g`` whose `near` end is among ``:ids``."""
    return sa.text(f"SELECT {far} FROM edges WHERE game_id = :g AND {near} IN :ids").bindparams(
        sa.bindparam("ids", expanding=True)
    )


def step(near: End, far: End) -> sa.TextClause:
    """At most ``:n`` distinct states one move from the states ``:ids`` (`near` ends) of game
    ``:g``, leaving out those in ``:seen``. No ORDER BY: it would read every neighbour of a
    hub before the LIMIT."""
    return sa.text(
        f"SELECT DISTINCT {FIELDS} FROM {EDGES_THEN_STATES} "
        f"AND s.id = e.{far} AND e.game_id = :g AND e.{near} IN :ids "
        f"AND e.{far} NOT IN :seen "
        "LIMIT :n"
    ).bindparams(sa.bindparam("ids", expanding=True), sa.bindparam("seen", expanding=True))


#: The moves (src, dst) among the states ``:ids`` of game ``:g``.
AMONG = sa.text(
    "SELECT src, dst FROM edges WHERE game_id = :g AND src IN :ids AND dst IN :ids"
).bindparams(sa.bindparam("ids", expanding=True))

#: How many moves each of the states ``:ids`` of game ``:g`` has: (src, count).
MOVES_FROM = sa.text(
    "SELECT src, COUNT(*) FROM edges WHERE game_id = :g AND src IN :ids GROUP BY src"
).bindparams(sa.bindparam("ids", expanding=True))

#: The moves from the states ``:ids`` of game ``:g``, by (src, dst).
FROM_IDS = sa.text(
    "SELECT src, dst FROM edges WHERE game_id = :g AND src IN :ids ORDER BY src, dst"
).bindparams(sa.bindparam("ids", expanding=True))

#: The moves among the states of `explorer.storage.tables.states.TOP_IDS`: (src, dst).
AMONG_TOP = sa.text(
    TOP_IDS + "SELECT e.src, e.dst FROM edges AS e JOIN top AS a ON a.id = e.src "
    "JOIN top AS b ON b.id = e.dst WHERE e.game_id = :g"
)


def count_upto(upto: bool) -> sa.TextClause:
    """How many moves game ``:g`` has (between states of ids up to ``:cut`` when `upto`)."""
    return sa.text(f"SELECT COUNT(*) FROM edges AS e WHERE e.game_id = :g{_upto(upto)}")


def exported(upto: bool) -> str:
    """The moves of game ``:g`` as pairs of keys, by (src, dst) (between states of ids up to
    ``:cut`` when `upto`): a query to stream (see `explorer.storage.backends.bulk.partitions`)."""
    return (
        "SELECT a.key, b.key FROM edges AS e "
        "JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src "
        "JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst "
        f"WHERE e.game_id = :g{_upto(upto)} ORDER BY e.src, e.dst"
    )


def _upto(upto: bool) -> str:
    return " AND e.src <= :cut AND e.dst <= :cut" if upto else ""


#: Every move of game ``:g``: (src, dst), as a query to stream into arrays (see
#: `explorer.storage.backends.bulk.read_int_columns`).
ALL = "SELECT src, dst FROM edges WHERE game_id = :g"
#: `ALL` by (src, dst).
ALL_ORDERED = ALL + " ORDER BY src, dst"


#: The moves of game ``:g`` from the states of ids ``:lo`` up to (not including) ``:hi``, by
#: (src, dst), each with the key and values of its end ``d`` (NULL for a state not stored).
FROM_RANGE = sa.text(
    "SELECT e.src, e.dst, d.key, d.grundy, d.remoteness, d.height FROM edges AS e "
    "LEFT JOIN states AS d ON d.game_id = e.game_id AND d.id = e.dst "
    "WHERE e.game_id = :g AND e.src >= :lo AND e.src < :hi ORDER BY e.src, e.dst"
)
#: The largest id game ``:g``'s states and its moves' sources name (NULL for none).
LAST_ID = sa.text(
    "SELECT MAX(m) FROM (SELECT MAX(id) AS m FROM states WHERE game_id = :g "
    "UNION ALL SELECT MAX(src) FROM edges WHERE game_id = :g) AS both_tables"
)


def linked_kept(near: End, far: End) -> sa.TextClause:
    """The moves of game ``:g`` whose `near` end is among ``:ids`` (expanding): the `near`
    end, then the key and the `explorer.storage.tables.states.KEPT` columns of the `far`
    end."""
    return sa.text(
        f"SELECT e.{near}, b.key, {kept('b')} FROM edges AS e "
        f"JOIN states AS b ON b.game_id = e.game_id AND b.id = e.{far} "
        f"WHERE e.game_id = :g AND e.{near} IN :ids"
    ).bindparams(sa.bindparam("ids", expanding=True))


# -- writes ------------------------------------------------------------------------------------
#: Insert moves (``?`` parameters in `COLUMNS` order).
INSERT = f"INSERT INTO edges ({', '.join(COLUMNS)}) VALUES (?, ?, ?)"
#: SQLite's insert of game ``?``'s moves packed one integer each (src * 2**32 + dst) in one
#: JSON array ``?``.
INSERT_PACKED = (
    f"INSERT INTO edges ({', '.join(COLUMNS)}) "
    "SELECT ?, value >> 32, value & 4294967295 FROM json_each(?)"
)
#: PostgreSQL's binary COPY of moves (`COLUMNS`).
COPY_BINARY = f"COPY edges ({', '.join(COLUMNS)}) FROM STDIN (FORMAT BINARY)"
#: Insert the move ``:a`` -> ``:b`` of game ``:g``.
INSERT_ONE = sa.text("INSERT INTO edges (game_id, src, dst) VALUES (:g, :a, :b)")
#: Delete the move ``:a`` -> ``:b`` of game ``:g``.
DELETE_ONE = sa.text("DELETE FROM edges WHERE game_id = :g AND src = :a AND dst = :b")


def delete_at(near: End) -> sa.TextClause:
    """Delete the moves of game ``:g`` whose `near` end is state ``:s``."""
    return sa.text(f"DELETE FROM edges WHERE game_id = :g AND {near} = :s")


#: The moves of game ``:g`` from states of ids ``:first`` on (what one build added).
DELETE_FROM = sa.text("DELETE FROM edges WHERE game_id = :g AND src >= :first")


def delete_from_listed(listed: str) -> sa.TextClause:
    """The moves of game ``:g`` from the states whose ids are the parameters `listed`."""
    return sa.text(f"DELETE FROM edges WHERE game_id = :g AND src IN ({listed})")


# -- the edges views ------------------------------------------------------------------------

#: The table of slot numbers 0, 1, … that the SQLite views join a state's blob with: slot n is
#: its (n + 1)-th id. It must have a row for every slot of the longest blob.
SLOTS = "move_slots"
#: The views: every move (game_id, src, dst) decoded from the successors' column, fast for a
#: given ``src``; the same moves decoded from the predecessors' column, fast for a given ``dst``.
FORWARD_VIEW, BACKWARD_VIEW = "edges", "edges_in"
#: How a server's SQL reads the id in slot ``n`` of a packed column of ``states AS s``: given
#: the column and the column of ``games AS g`` holding the width, the id as an SQL expression
#: and the ``FROM`` clause joining the state, its game and its slots (`sqlite_slots`,
#: `postgres_slots`; a dialect class of `explorer.storage.backends.dialects` chooses).
SlotReading = Callable[[str, str], tuple[str, str]]


def slots_sql(count: int) -> list[str]:
    """The statements that make SQLite's slots table hold 0 .. `count` - 1 (PostgreSQL's views
    count slots with ``generate_series``)."""
    return [
        f"CREATE TABLE IF NOT EXISTS {SLOTS} (n INTEGER PRIMARY KEY)",
        f"INSERT OR IGNORE INTO {SLOTS} (n) WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL "
        f"SELECT n + 1 FROM c WHERE n + 1 < {int(count)}) SELECT n FROM c",
    ]


def sqlite_slots(column: str, width: str) -> tuple[str, str]:
    """SQLite's `SlotReading`, through the slots table `SLOTS`."""
    # SQLite has no function that reads a byte, but instr() of a one-byte blob in the blob of
    # the 256 bytes is one more than its value. The id's byte j goes left by 8 (width - 1 - j):
    # by a negative count, past the width, SQLite shifts right, so the next slot's bytes read
    # there come to 0. CROSS JOIN keeps the order: a game, its states in id order (through the
    # primary key, not the key index in key order), then a state's slots (else a scan of every
    # state a slot).
    value = " + ".join(
        f"((instr({_EVERY_BYTE}, substr(s.{column}, n.n * g.{width} + {j + 1}, 1)) - 1)"
        f" << (8 * (g.{width} - {j + 1})))"
        for j in range(MAX_WIDTH)
    )
    source = (
        f"games AS g CROSS JOIN states AS s ON s.game_id = g.id "
        f"CROSS JOIN {SLOTS} AS n ON n.n < length(s.{column}) / g.{width}"
    )
    return value, source


def postgres_slots(column: str, width: str) -> tuple[str, str]:
    """PostgreSQL's `SlotReading`, counting the slots with ``generate_series``."""
    slot = f"substring(s.{column} FROM n * g.{width} + 1 FOR g.{width})"
    value = f"('x' || lpad(encode({slot}, 'hex'), 8, '0'))::bit(32)::integer"
    source = (
        f"states AS s JOIN games AS g ON g.id = s.game_id CROSS JOIN LATERAL "
        f"generate_series(0, length(s.{column}) / g.{width} - 1) AS n"
    )
    return value, source


def views_sql(
    read: SlotReading,
    successors: str = "successors",
    predecessors: str = "predecessors",
    width: str = "id_width",
) -> list[str]:
    """``CREATE VIEW`` statements of `FORWARD_VIEW` and `BACKWARD_VIEW` over the ``fixed``
    blobs of columns `successors` and `predecessors` of ``states``, whose width is column
    `width` of the state's ``games`` row, each slot read by `read`. Plain SQL: the stock
    ``sqlite3`` shell and ``psql`` read them (SQLite through `SLOTS`, see `slots_sql`).

    ``SELECT dst FROM edges WHERE game_id = ? AND src = ?`` reads one state's row, and so does
    ``SELECT src FROM edges_in WHERE game_id = ? AND dst = ?``; a scan of every move decodes
    each one in SQL (about ten times the time of today's ``edges`` table: explorer reads the
    columns with `unpack` instead). On the 1M build, loaded machine (11), from Python's
    ``sqlite3``, median of 500 random states: the moves of a state 18 µs (the ``edges`` table
    10), the moves into it 15 (9), the README's ``moves`` query by key 31 (22).

    Examples
    --------
    >>> import sqlite3
    >>> import numpy as np
    >>> from explorer.adjacency import Adjacency
    >>> from explorer.storage.schema.packing import pack
    >>> moves = Adjacency.from_degrees(np.array([2, 1, 0]), np.array([1, 2, 2]))
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, id_width INTEGER)")
    >>> _ = conn.execute("CREATE TABLE states (game_id, id, successors, predecessors)")
    >>> _ = conn.execute("INSERT INTO games VALUES (1, 1)")
    >>> rows = zip(pack(moves, "fixed").blobs(), pack(moves.reversed(), "fixed").blobs())
    >>> _ = conn.executemany(
    ...     "INSERT INTO states VALUES (1, ?, ?, ?)", [(i, *r) for i, r in enumerate(rows)]
    ... )
    >>> for statement in slots_sql(2) + views_sql(sqlite_slots):
    ...     _ = conn.execute(statement)
    >>> conn.execute("SELECT * FROM edges WHERE game_id = 1 AND src = 0").fetchall()
    [(1, 0, 1), (1, 0, 2)]
    >>> conn.execute("SELECT src FROM edges_in WHERE game_id = 1 AND dst = 2").fetchall()
    [(0,), (1,)]
    """
    statements = []
    for name, column, near in (
        (FORWARD_VIEW, successors, "src"),
        (BACKWARD_VIEW, predecessors, "dst"),
    ):
        value, source = read(column, width)
        ends = f"s.id, {value}" if near == "src" else f"{value}, s.id"
        statements.append(
            f"CREATE VIEW {name} (game_id, src, dst) AS SELECT s.game_id, {ends} FROM {source}"
        )
    return statements


#: The 256 bytes in order, as an SQLite blob literal.
_EVERY_BYTE = "x'" + bytes(range(256)).hex().upper() + "'"
