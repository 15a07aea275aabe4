"""One class a database server (`SQLite`, `PostgreSQL`): every difference between the two that
opening a database, reading it, the build stage and the row writers meet, found once from a
connection or URL by `dialect_of`, the one place outside the engine's choice of a driver and
its connection settings (`explorer.storage.backends.engine`) that reads a dialect's name. The
bulk writes of each are their writers' (`explorer.storage.backends.bulk`).

Examples
--------
>>> import sqlalchemy as sa
>>> dialect_of(sa.make_url("sqlite:///games.db")).name, dialect_of(sa.make_url("sqlite://")).shared
('sqlite', False)
>>> dialect_of(sa.make_url("postgresql+psycopg://me@db/games")).writers(4)
4
>>> [s.split(" (")[0] for s in PostgreSQL().edges_views()]
['CREATE VIEW edges', 'CREATE VIEW edges_in']
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from explorer.storage.backends.bulk import BulkWriter, PostgresWriter, SQLiteWriter
from explorer.storage.backends.errors import reason
from explorer.storage.schema.models import KEY_INDEX
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables import states as states_table

#: Most problems SQLite's integrity check lists.
INTEGRITY_ROWS = 100
#: Worker threads SQLite may sort with while it creates the key index (``PRAGMA threads``).
SORT_THREADS = 4
#: SQLite's page cache (its ``cache_size``) while it creates the key index.
SORT_CACHE = -2000
#: Where SQLite keeps the sort's runs while it creates the key index (``PRAGMA temp_store``):
#: in files (1), not in memory as the connection's other temporary data. 5M keys: 23 MiB of
#: memory at the peak and 2.7-3.9 s, against 322 MiB (64 B a key) and 6.2-7.5 s in memory.
SORT_TEMP_STORE = 1
#: The PostgreSQL advisory lock held while the key index is created (any fixed number).
KEY_INDEX_LOCK = 0x6B657969
#: The connection settings `ensure_key_index` changes while it sorts, and then puts back.
SORT_PRAGMAS = ("threads", "cache_size", "temp_store")
#: The PostgreSQL advisory lock held while migrations run (any fixed number: "explorer").
MIGRATION_LOCK = 0x6578706C6F726572


class Dialect:
    """What differs between database servers, as class attributes and methods."""

    name: ClassVar[str]
    #: The bulk writer of its rows.
    writer: ClassVar[type[BulkWriter]]
    #: Whether the machines of a cluster can all reach it (a server, not a local file).
    shared: ClassVar[bool]
    #: Whether a build in tiers keeps its scratch file (`explorer.build.scratch`) beside the
    #: database (a file's) rather than in the temporary folder.
    scratch_beside: ClassVar[bool]
    #: Its name as shown.
    title: ClassVar[str]
    #: Its driver's mark of a positional parameter.
    mark: ClassVar[str]
    #: Whether it checks the whole database itself (`integrity_problems`).
    checks_integrity: ClassVar[bool] = False
    #: The query counting indexes named ``:name`` (the unique key index, say).
    INDEX_COUNT: ClassVar[str]
    #: The execution options that make every read of a transaction see one snapshot.
    snapshot: ClassVar[dict[str, Any]] = {}
    #: Whether a database holding tables of another program is refused (a file of its own),
    #: rather than shared (a server's database).
    owns_file: ClassVar[bool] = False
    #: Whether its ``edges`` views read the slots table (`explorer.storage.tables.edges.SLOTS`),
    #: which must then count the ids of the longest packed column.
    reads_slots: ClassVar[bool] = False
    #: Whether a build's workers write its rows into shard files the database takes in
    #: whole (`explorer.storage.backends.shards`): a local file's single writer.
    folds_shards: ClassVar[bool] = False

    def prepare_file(self, engine: Engine) -> None:
        """Settings kept in the database itself, made once it is found to be explorer's,
        outside any transaction."""

    def lock_upgrade(self, conn: sa.Connection) -> None:
        """Wait, inside the transaction that upgrades the schema, for another process
        upgrading it at the same time (where the write transaction does not already)."""

    def release_page_cache(self, conn: sa.Connection) -> None:
        """Free the pages the connection keeps cached (where it keeps its own cache)."""

    def writers(self, workers: int) -> int:
        """How many transactions a build on `workers` workers writes at once."""
        return 1

    def set_page_cache(self, conn: sa.Connection, kib: int) -> None:
        """Give the connection a page cache of `kib` KiB for a build's writes (where the server
        takes one a connection)."""

    def create_key_index(self, conn: sa.Connection) -> bool:
        """Create the unique key index, missing when asked; returns whether this did."""
        raise NotImplementedError

    def analyze_states(self, conn: sa.Connection) -> None:
        """Give the planner statistics of ``states`` after a build wrote them (where it has
        none until told: PostgreSQL's plans of the ``edges`` views join every state with
        every other without them)."""

    def key_index_present(self, conn: sa.Connection) -> bool:
        """Whether the unique index on ``states (game_id, key)`` is there."""
        return bool(conn.execute(sa.text(self.INDEX_COUNT), {"name": KEY_INDEX}).scalar())

    def integrity_problems(self, conn: sa.Connection) -> list[str]:
        """The problems the server's own check of the whole database finds (none when it has
        no such check: see `checks_integrity`)."""
        return []

    def edges_views(self, *, offsets: bool = True) -> list[str]:
        """The statements that make the ``edges`` and ``edges_in`` views over the packed
        columns of states (`explorer.storage.tables.edges.views_sql`; `offsets` False: as
        schema 0014 stored ids)."""
        raise NotImplementedError

    def append_packed(self, column: edges_table.Column) -> str:
        """The driver statement adding ids at the end of a packed column of a state (its
        parameters: the blob, the game, the state)."""
        raise NotImplementedError

    def first_successors(self) -> str:
        """The driver statement setting the successors of a state that has none (its
        parameters: the blob, the game, the state)."""
        return edges_table.set_first_successors(self.mark)


class SQLite(Dialect):
    """A SQLite file (or a database in memory): one writer at a time, a page cache a
    connection, ``PRAGMA integrity_check``."""

    name = "sqlite"
    title = "SQLite"
    mark = "?"
    checks_integrity = True
    writer = SQLiteWriter
    shared = False
    scratch_beside = True
    owns_file = True
    reads_slots = True
    folds_shards = True
    INDEX_COUNT = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = :name"

    def prepare_file(self, engine: Engine) -> None:
        # persistent in the file, and ignored inside a transaction
        raw = engine.raw_connection()
        try:
            raw.cursor().execute("PRAGMA journal_mode = WAL")
        finally:
            raw.close()

    def release_page_cache(self, conn: sa.Connection) -> None:
        conn.exec_driver_sql("PRAGMA shrink_memory")

    def set_page_cache(self, conn: sa.Connection, kib: int) -> None:
        conn.exec_driver_sql(f"PRAGMA cache_size = -{kib}")

    def create_key_index(self, conn: sa.Connection) -> bool:
        # sorted by worker threads, in SQLite's default cache (2 MB: a larger one holds more of
        # the sort in memory, while the build still holds its graph), its runs in temporary
        # files; the pooled connection gets its own settings back after
        threads = min(SORT_THREADS, os.cpu_count() or 1)
        kept = {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar() for name in SORT_PRAGMAS}
        try:
            settings = (threads, SORT_CACHE, SORT_TEMP_STORE)
            for name, value in zip(SORT_PRAGMAS, settings, strict=True):
                conn.exec_driver_sql(f"PRAGMA {name} = {value}")
            conn.exec_driver_sql(states_table.CREATE_KEY_INDEX)
        finally:
            for name, own in kept.items():
                conn.exec_driver_sql(f"PRAGMA {name} = {own}")
        return True

    def integrity_problems(self, conn: sa.Connection) -> list[str]:
        try:
            found = conn.exec_driver_sql(f"PRAGMA integrity_check({INTEGRITY_ROWS})").all()
        except sa.exc.DatabaseError as error:
            return [reason(error)]
        return [str(r[0]) for r in found if r[0] != "ok"]

    def edges_views(self, *, offsets: bool = True) -> list[str]:
        return edges_table.views_sql(edges_table.sqlite_slots, offsets=offsets)

    def append_packed(self, column: edges_table.Column) -> str:
        return edges_table.append_packed(column, edges_table.sqlite_append, self.mark)


class PostgreSQL(Dialect):
    """A PostgreSQL server: one writing transaction a worker, advisory locks, no integrity
    check of its own."""

    name = "postgresql"
    title = "PostgreSQL"
    mark = "%s"
    writer = PostgresWriter
    shared = True
    scratch_beside = False
    INDEX_COUNT = (
        "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = :name"
    )
    # PostgreSQL's default shows each statement the newest commits
    snapshot = {"isolation_level": "REPEATABLE READ"}

    def lock_upgrade(self, conn: sa.Connection) -> None:
        # two processes opening a new database at once: the second waits here, then finds the
        # schema at head (SQLite's BEGIN IMMEDIATE does the same)
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")

    def writers(self, workers: int) -> int:
        return workers

    def create_key_index(self, conn: sa.Connection) -> bool:
        # one creator at a time, then look again: two sessions creating it at once both pass
        # IF NOT EXISTS, and the second fails on the catalog's own unique index
        conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({KEY_INDEX_LOCK})")
        if self.key_index_present(conn):
            return False
        conn.exec_driver_sql(states_table.CREATE_KEY_INDEX)
        return True

    def edges_views(self, *, offsets: bool = True) -> list[str]:
        return edges_table.views_sql(edges_table.postgres_slots, offsets=offsets)

    def analyze_states(self, conn: sa.Connection) -> None:
        conn.exec_driver_sql(states_table.ANALYZE)

    def append_packed(self, column: edges_table.Column) -> str:
        return edges_table.append_packed(column, edges_table.postgres_append, self.mark)


_DIALECTS: dict[str, Dialect] = {d.name: d for d in (SQLite(), PostgreSQL())}


def dialect_of(bind: Engine | sa.Connection | URL) -> Dialect:
    """The dialect class of an engine, a connection or a URL (resolved as `resolve_url` does)."""
    name = bind.get_backend_name() if isinstance(bind, URL) else bind.dialect.name
    return _DIALECTS[name]
