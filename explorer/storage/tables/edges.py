"""The statements on one game's moves (see `explorer.storage.tables`): each state's row holds
the ids of its successors and of its predecessors packed (``states.successors`` and
``states.predecessors``, in ``games.id_width`` bytes an id, each as its offset from the row's
own id: `explorer.storage.schema.packing.relative`), and the views ``edges`` and
``edges_in`` read them as a table of moves ``src`` -> ``dst``, fast by ``src`` and by ``dst``.
``near`` names the column a walk matches and ``far`` the one it follows (``src``/``dst``
forwards, ``dst``/``src`` back). Whatever reads every move reads the packed columns
(`explorer.storage.rows.moves`).

Examples
--------
>>> ends("out"), ends("in")
(('src', 'dst'), ('dst', 'src'))
>>> str(count_at("dst"))
'SELECT COUNT(*) FROM edges_in WHERE game_id = :g AND dst = :s'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import sqlalchemy as sa

from explorer.storage.schema.models import EDGES_IN_VIEW, EDGES_VIEW
from explorer.storage.schema.packing import MAX_WIDTH
from explorer.storage.tables.states import FIELDS, MOVES, TOP_IDS, kept

End = Literal["src", "dst"]
#: The columns of a move, as the ``edges`` views show them.
COLUMNS = ("game_id", "src", "dst")
#: The packed column that lists a state's moves from it and the one that lists those into it.
Column = Literal["successors", "predecessors"]


def view(near: End) -> str:
    """The view of the moves that finds them fast by their `near` end: ``edges`` by ``src``
    (the successors' column of that state), ``edges_in`` by ``dst`` (its predecessors')."""
    return EDGES_VIEW if near == "src" else EDGES_IN_VIEW


def ends(direction: Literal["out", "in"]) -> tuple[End, End]:
    """The (near, far) ends of the moves followed out of a state or into it."""
    return ("src", "dst") if direction == "out" else ("dst", "src")


#: States reached by moves: the moves first, then each state by its key. SQLite plans a CROSS
#: JOIN in the order written; without it, and without statistics, it may walk every state of
#: the game in id order looking for the few a move reaches (seconds on a million states).
def _moves_then_states(near: End) -> str:
    return f"{view(near)} AS e CROSS JOIN states AS s WHERE s.game_id = e.game_id"


#: Whether there is a move ``:a`` -> ``:b`` in game ``:g``.
MOVE = sa.text("SELECT 1 FROM edges WHERE game_id = :g AND src = :a AND dst = :b")


def count_at(near: End) -> sa.TextClause:
    """How many moves of game ``:g`` have state ``:s`` as their `near` end."""
    return sa.text(f"SELECT COUNT(*) FROM {view(near)} WHERE game_id = :g AND {near} = :s")


def linked_page(near: End, far: End, order: str | None = None) -> sa.TextClause:
    """One page (``:n`` from ``:o``) of the states at the `far` end of the moves whose `near`
    end is state ``:s`` of game ``:g``, in the SQL `order` of the state rows ``s`` (by
    default the `far` ids)."""
    return sa.text(
        f"SELECT {FIELDS} FROM {_moves_then_states(near)} AND s.id = e.{far} "
        f"AND e.game_id = :g AND e.{near} = :s ORDER BY {order or f'e.{far}'} "
        "LIMIT :n OFFSET :o"
    )


def linked_ids(near: End, far: End) -> sa.TextClause:
    """The `far` ends of the moves of game ``:g`` whose `near` end is among ``:ids``."""
    return sa.text(
        f"SELECT {far} FROM {view(near)} WHERE game_id = :g AND {near} IN :ids"
    ).bindparams(sa.bindparam("ids", expanding=True))


def step(near: End, far: End) -> sa.TextClause:
    """At most ``:n`` distinct states one move from the states ``:ids`` (`near` ends) of game
    ``:g``, leaving out those in ``:seen``. No ORDER BY: it would read every neighbour of a
    hub before the LIMIT."""
    return sa.text(
        f"SELECT DISTINCT {FIELDS} FROM {_moves_then_states(near)} "
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
    TOP_IDS + "SELECT e.src, e.dst FROM top AS a JOIN edges AS e ON e.src = a.id "
    "JOIN top AS b ON b.id = e.dst WHERE e.game_id = :g"
)


#: The successors of the states of game ``:g`` of ids ``:lo`` up to (not including) ``:hi``:
#: (id, blob), by id, those without moves left out.
SUCCESSORS_IN_RANGE = sa.text(
    "SELECT id, successors FROM states WHERE game_id = :g AND id >= :lo AND id < :hi "
    "AND successors IS NOT NULL ORDER BY id"
)
#: The key and values of the states ``:ids`` of game ``:g``, the ends of moves: (id, key,
#: grundy, remoteness, height).
ENDS = sa.text(
    "SELECT id, key, grundy, remoteness, height FROM states WHERE game_id = :g AND id IN :ids"
).bindparams(sa.bindparam("ids", expanding=True))
#: The same of the states of ids ``:lo`` up to (not including) ``:hi``, by id.
ENDS_BETWEEN = sa.text(
    "SELECT id, key, grundy, remoteness, height FROM states WHERE game_id = :g "
    "AND id >= :lo AND id < :hi ORDER BY id"
)
#: The largest id of game ``:g``'s states (NULL for none): every move's ends are states.
LAST_ID = sa.text("SELECT MAX(id) FROM states WHERE game_id = :g")


def linked_kept(near: End, far: End) -> sa.TextClause:
    """The moves of game ``:g`` whose `near` end is among ``:ids`` (expanding): the `near`
    end, then the key and the `explorer.storage.tables.states.KEPT` columns of the `far`
    end."""
    return sa.text(
        f"SELECT e.{near}, b.key, {kept('b')} FROM {view(near)} AS e "
        f"JOIN states AS b ON b.game_id = e.game_id AND b.id = e.{far} "
        f"WHERE e.game_id = :g AND e.{near} IN :ids"
    ).bindparams(sa.bindparam("ids", expanding=True))


# -- the packed columns ------------------------------------------------------------------------
#: The width of game ``:g``'s ids in its packed columns (NULL before its first move).
WIDTH = sa.text("SELECT id_width FROM games WHERE id = :g")
#: Set it (``:w``).
SET_WIDTH = sa.text("UPDATE games SET id_width = :w WHERE id = :g")
#: How many moves game ``:g`` has: the bytes of its successors' column over the width.
COUNT = sa.text(MOVES)


def packed(column: Column) -> str:
    """Every state of game ``:g`` with moves in `column`: (id, blob), by id, a query to
    stream (see `explorer.storage.backends.bulk.partitions`)."""
    return (
        f"SELECT id, {column} FROM states WHERE game_id = :g AND {column} IS NOT NULL ORDER BY id"
    )


def packed_of(column: Column) -> sa.TextClause:
    """The (id, blob) of `column` of the states ``:ids`` of game ``:g`` (NULL for none)."""
    return sa.text(f"SELECT id, {column} FROM states WHERE game_id = :g AND id IN :ids").bindparams(
        sa.bindparam("ids", expanding=True)
    )


def longest(column: Column) -> sa.TextClause:
    """The longest blob of `column` among the states ``:ids`` of game ``:g``, in bytes."""
    return sa.text(
        f"SELECT MAX(length({column})) FROM states WHERE game_id = :g AND id IN :ids"
    ).bindparams(sa.bindparam("ids", expanding=True))


def set_packed(column: Column) -> sa.TextClause:
    """Set `column` of state ``:s`` of game ``:g`` to ``:b`` (a blob, or NULL)."""
    return sa.text(f"UPDATE states SET {column} = :b WHERE game_id = :g AND id = :s")


#: How a server's SQL joins a blob parameter at the end of a packed column, given the
#: column's name and the driver's parameter mark (`sqlite_append`, `postgres_append`; a
#: dialect class chooses).
Appending = Callable[[str, str], str]


def sqlite_append(column: str, mark: str) -> str:
    """SQLite's `Appending`: its ``||`` makes text of two blobs, cast back."""
    return f"CAST(COALESCE({column}, X'') || {mark} AS BLOB)"


def postgres_append(column: str, mark: str) -> str:
    """PostgreSQL's `Appending`."""
    return f"COALESCE({column}, ''::bytea) || {mark}"


def append_packed(column: Column, append: Appending, mark: str) -> str:
    """Add the ids of a blob at the end of `column` of a state, in the statement itself (so
    that two transactions adding to one row never lose one's ids: the second waits for the
    first's row and appends to it). Driver parameters (`mark` each): the blob, the game, the
    state: thousands of rows go through one ``executemany``."""
    value = append(column, mark)
    return f"UPDATE states SET {column} = {value} WHERE game_id = {mark} AND id = {mark}"


def set_first_successors(mark: str) -> str:
    """Set the successors of a state that has none yet: driver parameters (`mark` each) the
    blob, the game, the state."""
    return (
        f"UPDATE states SET successors = {mark} WHERE game_id = {mark} AND id = {mark} "
        "AND successors IS NULL"
    )


def longest_between(column: Column) -> sa.TextClause:
    """The longest blob of `column` among the states of ids ``:lo`` to ``:hi`` of game
    ``:g``, in bytes."""
    return sa.text(
        f"SELECT MAX(length({column})) FROM states WHERE game_id = :g AND id >= :lo AND id <= :hi"
    )


#: Forget every packed move of game ``:g`` (before they are packed again in another width).
CLEAR_PACKED = sa.text(
    "UPDATE states SET successors = NULL, predecessors = NULL WHERE game_id = :g"
)
#: The number of slots the SQLite views can read (see `SLOTS`).
SLOT_COUNT = sa.text("SELECT COUNT(*) FROM move_slots")


# -- the edges views ------------------------------------------------------------------------

#: The table of slot numbers 0, 1, … that the SQLite views join a state's blob with: slot n is
#: its (n + 1)-th id. It must have a row for every slot of the longest blob.
SLOTS = "move_slots"
#: The views: every move (game_id, src, dst) decoded from the successors' column, fast for a
#: given ``src``; the same moves decoded from the predecessors' column, fast for a given ``dst``.
FORWARD_VIEW, BACKWARD_VIEW = EDGES_VIEW, EDGES_IN_VIEW
#: How a server's SQL reads the id in slot ``n`` of a packed column of ``states AS s``: given
#: the column and the column of ``games AS g`` holding the width, the id as an SQL expression
#: and the ``FROM`` clause joining the state, its game and its slots (`sqlite_slots`,
#: `postgres_slots`; a dialect class of `explorer.storage.backends.dialects` chooses).
SlotReading = Callable[[str, str], tuple[str, str]]


#: Add the slots ``:have`` .. ``:need`` - 1 to `SLOTS` (which holds 0 .. ``:have`` - 1).
ADD_SLOTS = sa.text(
    f"INSERT INTO {SLOTS} (n) WITH RECURSIVE c(n) AS (SELECT CAST(:have AS INTEGER) "
    "UNION ALL SELECT n + 1 FROM c WHERE n + 1 < :need) SELECT n FROM c"
)


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
    value = f"('x' || lpad(encode({slot}, 'hex'), 8, '0'))::bit(32)::bigint"
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
    *,
    offsets: bool = True,
) -> list[str]:
    """``CREATE VIEW`` statements of `FORWARD_VIEW` and `BACKWARD_VIEW` over the ``fixed``
    blobs of columns `successors` and `predecessors` of ``states``, whose width is column
    `width` of the state's ``games`` row, each slot read by `read`: an offset from the row's
    own id (`explorer.storage.schema.packing.relative`), or with `offsets` False the id itself
    (as schema 0014 stored it). Plain SQL: the stock ``sqlite3`` shell and ``psql`` read them
    (SQLite through `SLOTS`, which must count the ids of the longest blob).

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
    >>> _ = conn.execute("CREATE TABLE move_slots (n INTEGER PRIMARY KEY)")
    >>> _ = conn.execute("INSERT INTO games VALUES (1, 1)")
    >>> _ = conn.execute("INSERT INTO move_slots VALUES (0), (1)")
    >>> rows = zip(pack(moves, "fixed").blobs(), pack(moves.reversed(), "fixed").blobs())
    >>> _ = conn.executemany(
    ...     "INSERT INTO states VALUES (1, ?, ?, ?)", [(i, *r) for i, r in enumerate(rows)]
    ... )
    >>> for statement in views_sql(sqlite_slots, offsets=False):
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
        if offsets:
            bias = f"(CAST(1 AS BIGINT) << (8 * g.{width} - 1))"
            value = f"CAST(s.id + ({value}) - {bias} AS INTEGER)"
        ends = f"s.id, {value}" if near == "src" else f"{value}, s.id"
        statements.append(
            f"CREATE VIEW {name} (game_id, src, dst) AS SELECT s.game_id, {ends} FROM {source}"
        )
    return statements


#: The 256 bytes in order, as an SQLite blob literal.
_EVERY_BYTE = "x'" + bytes(range(256)).hex().upper() + "'"
