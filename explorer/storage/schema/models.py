"""The database schema as SQLAlchemy typed models: games, builds, states (with their moves), value
sequences, patterns and misère quotients.

The classes are named for their tables (``GameTable``), never for the rules' `Game`.

The tables are created and changed only by the Alembic migrations in ``migrations/``; these
models are what the migrations must produce (a test checks that they do).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: Constraint names are fixed here so that migrations can refer to them on every database.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: The view joining every state to its game, for people reading the file with ``sqlite3``.
STATE_VIEW = "state_values"
#: The unique index that finds a state by its game and key (migration 0009).
KEY_INDEX = "ix_states_game_id_key"
#: The view listing every move as game, position, move_to (text, no ids).
MOVE_VIEW = "moves"
#: The views of every move as (game_id, src, dst), read from the states' packed columns: the
#: first fast for a given ``src``, the second for a given ``dst`` (migration 0014).
EDGES_VIEW, EDGES_IN_VIEW = "edges", "edges_in"


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class GameTable(Base):
    """One game per canonical spec (``nim``, ``subtraction:1,3,4``, ``nim + kayles``) and play
    convention; a DAG file is named by its resolved absolute path (``dag:/home/me/game.json``).

    The misère build of a game (``explorer build --misere``) is a game of its own, beside the
    normal-play one: the same spec with ``convention`` ``misere``.
    """

    __tablename__ = "games"
    __table_args__ = (
        UniqueConstraint("spec", "convention"),
        CheckConstraint("convention IN ('normal', 'misere')", name="convention"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    spec: Mapped[str] = mapped_column(Text)
    family: Mapped[str] = mapped_column(String(40))
    #: The parameter text after ``family:`` in the spec, NULL for games without one.
    parameters: Mapped[str | None] = mapped_column(Text)
    #: For a DAG game, the SHA-256 of the graph of the file it was last imported from.
    fingerprint: Mapped[str | None] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    #: ``normal`` (the player who cannot move loses) or ``misere`` (the player who moves last
    #: loses). A misère game's states hold misère values: ``grundy`` is G⁻ (1 at the end of
    #: the game, else the mex of the successors' G⁻; 0 exactly on misère P-positions, but not
    #: additive over sums), ``outcome`` and ``remoteness`` those of misère play.
    convention: Mapped[str] = mapped_column(String(10), server_default="normal")
    #: The bytes of each state id in the game's packed moves (``states.successors`` and
    #: ``states.predecessors``, see `explorer.storage.rows.moves`); NULL until it has a move.
    id_width: Mapped[int | None] = mapped_column(Integer)


class BuildTable(Base):
    """One operation that wrote states, edges or values: a build, and later imports and edits.

    Every state records the build that stored it (``states.build_id``) and the one that last
    set its value (``states.value_build_id``): that is the provenance of each value.
    """

    __tablename__ = "builds"
    __table_args__ = (
        CheckConstraint(
            "status IN ('running', 'stopped', 'complete', 'interrupted', 'failed')", name="status"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    #: ``build`` for `explorer build`; other writers (imports, edits) use their own word.
    kind: Mapped[str] = mapped_column(String(20))
    #: The canonical text of the position built from (NULL for operations without one).
    root: Mapped[str | None] = mapped_column(Text)
    #: running (or killed while running), stopped (at --max-states), complete, interrupted
    #: (found running by a later build, or stopped by Ctrl-C), failed (stopped by an error).
    status: Mapped[str] = mapped_column(String(20))
    started_at: Mapped[datetime] = mapped_column(DateTime)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime)
    states_new: Mapped[int] = mapped_column(Integer, default=0)
    states_reused: Mapped[int] = mapped_column(Integer, default=0)
    edges_new: Mapped[int] = mapped_column(Integer, default=0)
    values_computed: Mapped[int] = mapped_column(Integer, default=0)
    max_states: Mapped[int | None] = mapped_column(Integer)
    #: How values were obtained, e.g. ``mex over stored successors (explorer 0.1.0)``.
    method: Mapped[str] = mapped_column(Text)
    #: The machine and process that wrote the row: a ``running`` row whose process is gone
    #: was killed (see `explorer.storage.rows.records.shown_status`).
    host: Mapped[str | None] = mapped_column(Text)
    pid: Mapped[int | None] = mapped_column(Integer)
    #: Worker processes of a build in tiers (``explorer build --workers N``); NULL for a
    #: build in one process.
    workers: Mapped[int | None] = mapped_column(Integer)


class StateTable(Base):
    """A position of a game. ``id`` is numbered per game by the builder, in discovery order.

    Values are NULL until every successor has one. ``depth`` is the number of moves from the
    root of the build that first reached the state. ``height`` orders states for solving: it
    is always greater than the height of every successor (``height(p) > height(q)`` on every
    move p -> q), so it is at least the length of the longest sequence of moves from the state
    to the end of the game. A build stores exactly that length; after an edit (which only
    raises heights where it must) it may be larger.

    No foreign keys, as in ``edges``: on PostgreSQL each is a lookup per state written (three
    of them tripled a build's state inserts); the builder writes a game's row and its build's
    row before any of its states, and none is ever deleted. On PostgreSQL the table's pages are
    filled to half (``fillfactor = 50``, migration 0010), so that setting a state's value, the
    second write of nearly every state, stays on its page and touches no index.
    """

    __tablename__ = "states"
    __table_args__ = (
        # an index, not a constraint, so that a large build can drop it while it writes and
        # create it again whole at its end (`explorer.storage.rows.records.drop_key_index`)
        Index(KEY_INDEX, "game_id", "key", unique=True),
        # comparisons, not IN ('P', 'N', 'D'): SQLite checks every row written, and an IN list
        # of three values costs it a lookup table per row (migration 0007)
        CheckConstraint("outcome = 'P' OR outcome = 'N' OR outcome = 'D'", name="outcome"),
        {"sqlite_with_rowid": False},
    )

    game_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    #: The canonical position text, as ``game.format`` writes it.
    key: Mapped[str] = mapped_column(Text)
    depth: Mapped[int] = mapped_column(Integer)
    #: True once the state's successors (edges) are stored.
    expanded: Mapped[bool] = mapped_column(Boolean)
    grundy: Mapped[int | None] = mapped_column(Integer)
    outcome: Mapped[str | None] = mapped_column(String(1))
    remoteness: Mapped[int | None] = mapped_column(Integer)
    height: Mapped[int | None] = mapped_column(Integer)
    #: The build that stored the state and the one that last set its value (``builds.id``).
    build_id: Mapped[int] = mapped_column(Integer)
    value_build_id: Mapped[int | None] = mapped_column(Integer)
    #: For the value ∞(K) of a game with cycles (``grundy`` NULL): K as text, ``"0,2"`` (``""``
    #: for ∞ alone). NULL for a finite value. Such games have no height (NULL).
    escapes: Mapped[str | None] = mapped_column(Text)
    #: The moves from the state and into it: the ids of its successors and of its
    #: predecessors, sorted, each as its offset from this state's id plus half of what
    #: ``games.id_width`` bytes hold, in that many bytes, big-endian (NULL for none). The
    #: views ``edges`` and ``edges_in`` read them as a table of moves (migrations 0014, 0015).
    successors: Mapped[bytes | None] = mapped_column(LargeBinary)
    predecessors: Mapped[bytes | None] = mapped_column(LargeBinary)


class SlotTable(Base):
    """The numbers 0, 1, … up to the most ids a packed column holds: the SQLite ``edges``
    views join a state's row with them to read its ids one a row (PostgreSQL's count with
    ``generate_series`` and leave the table empty)."""

    __tablename__ = "move_slots"

    n: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)


class TierTable(Base):
    """One tier of a game built in tiers (`explorer.build.tier_manager`): its states, the moves
    from them, and how long its expansion and its solving took (NULL until solved). A build
    killed and run again reads here which tiers are done. ``tier`` is the number as text
    (tiers may outgrow 64 bits: a row of coins read in binary)."""

    __tablename__ = "tiers"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    tier: Mapped[str] = mapped_column(Text, primary_key=True)
    #: The build that expanded the tier.
    build_id: Mapped[int] = mapped_column(Integer)
    states: Mapped[int] = mapped_column(BigInteger)
    edges: Mapped[int] = mapped_column(BigInteger)
    expand_seconds: Mapped[float] = mapped_column(Float)
    solve_seconds: Mapped[float | None] = mapped_column(Float)


class StateCountTable(Base):
    """A game's states counted: totals (``kind`` states, expanded, solved or edges, ``value``
    ``""``) and histograms (``kind`` outcome, grundy, depth, remoteness or height, ``value`` the
    column's value as text). Every writer keeps them exact in the transaction that writes the
    rows (see `explorer.storage.rows.counts`)."""

    __tablename__ = "state_counts"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    value: Mapped[str] = mapped_column(Text, primary_key=True)
    count: Mapped[int] = mapped_column(BigInteger)


class SequenceTable(Base):
    """The single-heap value sequence of one game: G(0..computed-1), in chunks, and the period
    the values prove (NULL until one is proven)."""

    __tablename__ = "sequences"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), unique=True)
    computed: Mapped[int] = mapped_column(BigInteger)
    preperiod: Mapped[int | None] = mapped_column(BigInteger)
    period: Mapped[int | None] = mapped_column(BigInteger)
    largest: Mapped[int] = mapped_column(Integer)
    checksum: Mapped[int] = mapped_column(BigInteger)
    method: Mapped[str] = mapped_column(String(20))
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class SequenceChunkTable(Base):
    """`CHUNK_VALUES` consecutive values of a sequence as little-endian 16-bit words (the last
    chunk may be shorter); chunk i holds G(i * CHUNK_VALUES) onwards."""

    __tablename__ = "sequence_chunks"

    sequence_id: Mapped[int] = mapped_column(ForeignKey("sequences.id"), primary_key=True)
    chunk: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class PatternTable(Base):
    """A pattern found in a game's values (``explorer patterns --db``): ``observed`` or
    ``proved`` up to heap ``upto``, or ``refuted`` by the value at ``refuted_at`` (a heap, or a
    cell ``a,b`` of a table) in a run up to ``upto``. ``data`` is the pattern's JSON, as
    ``explorer patterns --json`` gives it when it was last confirmed. Refuted rows stay."""

    __tablename__ = "patterns"
    __table_args__ = (
        CheckConstraint("status IN ('observed', 'proved', 'refuted')", name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    kind: Mapped[str] = mapped_column(String(40))
    status: Mapped[str] = mapped_column(String(20))
    upto: Mapped[int] = mapped_column(BigInteger)
    refuted_at: Mapped[str | None] = mapped_column(Text)
    data: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class QuotientTable(Base):
    """The misère quotient of a heap game restricted to heaps 0..max_heap (``explorer quotient
    --db``), kept on the game's row (the normal-play one: the spec names the game); ``data`` is
    its JSON (``explorer quotient --json``)."""

    __tablename__ = "quotients"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), primary_key=True)
    max_heap: Mapped[int] = mapped_column(BigInteger)
    size: Mapped[int] = mapped_column(Integer)
    data: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class PartValueTable(Base):
    """The value of a part (a position that does not split) of a game with canonical part
    labels, by the family's name and the label: one row per shape, shared by every game of
    the family (`explorer.storage.rows.part_values`)."""

    __tablename__ = "part_values"

    family: Mapped[str] = mapped_column(Text, primary_key=True)
    label: Mapped[str] = mapped_column(Text, primary_key=True)
    value: Mapped[int] = mapped_column(Integer)


class PartLookupTable(Base):
    """How often each family's parts were looked up in the part table by runs that saved to
    this database, and how often the value was there already (``explorer stats``)."""

    __tablename__ = "part_lookups"

    family: Mapped[str] = mapped_column(Text, primary_key=True)
    lookups: Mapped[int] = mapped_column(BigInteger)
    hits: Mapped[int] = mapped_column(BigInteger)
