"""Opening a database: URL resolution, engine and pragmas, schema checks and automatic upgrade.

A database is a SQLite file (the default ``./explorer.db``, or ``$EXPLORER_DB``) or a PostgreSQL
server. Opening applies the Alembic migrations it lacks (any command that opens it writable,
a read such as ``query`` too, and says so in a notice: an older explorer cannot open it after)
and refuses a schema newer than the code.

Several programs at once: readers never wait (SQLite's WAL mode gives each a consistent snapshot
while a build writes); writers take turns, every SQLite write transaction beginning
``IMMEDIATE`` so that a second writer waits for the first one's transaction to end (up to
``$EXPLORER_WAIT`` seconds, two minutes by default) instead of failing "database is locked". A
SQLite file on read-only storage is opened read-only by the commands that only read, and is
then never written, not even to upgrade its schema.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.pool import StaticPool

from explorer.errors import (
    DatabaseDamagedError,
    DatabaseError,
    DatabaseURLError,
    ExplorerError,
    SchemaTooNewError,
)
from explorer.notices import say
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.backends.errors import database_error, dbapi_errors, reason
from explorer.storage.backends.shards import attached
from explorer.storage.schema.migrations import alembic_config, known_revision
from explorer.storage.schema.models import EDGES_IN_VIEW, EDGES_VIEW, Base

if TYPE_CHECKING:  # Alembic loads only when a database needs its schema created or upgraded
    pass

#: The database used when neither ``--db`` nor the environment variable names one.
DEFAULT_PATH = "explorer.db"
#: The environment variable naming the default database (a file path or a URL).
ENV_VAR = "EXPLORER_DB"

#: The newest schema revision, the head of the migrations (a test keeps the two the same): a
#: database already there is opened without loading Alembic and its scripts.
SCHEMA_HEAD = "0015"

SQLITE_MAGIC = b"SQLite format 3\x00"
#: PostgreSQL sessions of a read-only database: every transaction refuses writes.
READ_ONLY = "-c default_transaction_read_only=on"

#: How long a writer waits for another writer's transaction to end, in seconds, unless the
#: environment variable `WAIT_VAR` says otherwise.
WAIT_SECONDS = 120
WAIT_VAR = "EXPLORER_WAIT"

#: Per-connection SQLite settings: safe with WAL, and fast for bulk writes.
SQLITE_PRAGMAS = (
    "foreign_keys = ON",
    "synchronous = NORMAL",
    "cache_size = -262144",  # 256 MiB: keeps the key and edge indexes of big builds in memory
    "temp_store = MEMORY",
)


def resolve_url(url: str | None = None) -> URL:
    """The SQLAlchemy URL of a database named by a URL, a file path, or nothing.

    Parameters
    ----------
    url : str or None
        ``sqlite:///FILE``, ``postgresql://USER@HOST/DB`` or a plain file path. None means the
        ``EXPLORER_DB`` environment variable, or else ``explorer.db`` in the working directory.

    Returns
    -------
    sqlalchemy.engine.URL
        ``postgresql://`` URLs (and their common short form ``postgres://``) get the psycopg
        (version 3) driver.

    Raises
    ------
    DatabaseURLError
        When the URL is malformed or its scheme is neither SQLite nor PostgreSQL.

    Examples
    --------
    >>> resolve_url("games.db").render_as_string()
    'sqlite:///games.db'
    >>> resolve_url("postgresql://me@localhost/games").drivername
    'postgresql+psycopg'
    >>> resolve_url("postgres://me@localhost/games").render_as_string()
    'postgresql+psycopg://me@localhost/games'
    """
    text = url or os.environ.get(ENV_VAR) or DEFAULT_PATH
    if "://" not in text:
        return URL.create("sqlite", database=text)
    try:
        parsed = make_url(text)
    except (sa.exc.ArgumentError, ValueError):  # ValueError: a port that is not a number
        masked = re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", text)
        raise DatabaseURLError(
            f"malformed database URL {masked!r} (expected a file path, sqlite:///FILE or "
            "postgresql://USER@HOST[:PORT]/DATABASE, the port a number)"
        ) from None
    backend, _, driver = parsed.drivername.partition("+")
    if backend in ("postgresql", "postgres") and driver in ("", "psycopg"):
        return parsed.set(drivername="postgresql+psycopg")
    if backend == "sqlite" and driver in ("", "pysqlite"):
        if parsed.query:
            raise DatabaseURLError(
                f"unknown options {', '.join(sorted(parsed.query))} in {text!r} "
                "(a SQLite URL takes none: sqlite:///FILE)"
            )
        return parsed.set(drivername="sqlite")
    raise DatabaseURLError(
        f"unknown database URL scheme {parsed.drivername!r} in {_shown(parsed)!r} "
        "(expected a file path, sqlite:///FILE or postgresql://USER@HOST/DATABASE)"
    )


def _shown(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def create_engine(
    url: str | None = None, *, create: bool = True, read_only: bool = False
) -> Engine:
    """Open a database, check its schema, and upgrade it to the newest revision.

    This is the only place that connects; `explorer.storage.open_database` wraps it.

    Raises
    ------
    DatabaseURLError
        For a malformed or unsupported URL.
    DatabaseError
        When the server is unreachable, the file cannot be created or is not a database, or
        the database is not an explorer database. Nothing is written in these cases.
    SchemaTooNewError
        When a newer explorer wrote the database; nothing is written.

    With ``create=False`` a SQLite file that does not exist is an error, not a new database:
    commands that only read must not leave an empty database behind. With ``read_only=True``
    every connection refuses writes (SQLite opened with ``mode=ro``, PostgreSQL sessions with
    ``default_transaction_read_only``) and a schema older than the code is refused, not upgraded.
    A SQLite file on read-only storage (a read-only file, directory or mount) opened with
    ``create=False`` is opened read-only the same way, so it can still be read.
    """
    resolved = resolve_url(url)
    shown = _shown(resolved)
    if resolved.get_backend_name() == "sqlite":
        writer_wait()  # a bad setting is refused before anything is opened
        engine, read_only = _sqlite_engine(
            resolved, create=create and not read_only, read_only=read_only
        )
    else:
        if read_only:  # added to the URL's own options (a search_path, say), not replacing them
            options = resolved.query.get("options", "")
            options = " ".join([*([options] if isinstance(options, str) else options), READ_ONLY])
            resolved = resolved.update_query_dict({"options": options.strip()})
        try:
            engine = sa.create_engine(resolved, connect_args={"connect_timeout": 10})
        except ImportError as error:
            raise DatabaseError(
                f"cannot open database {shown!r}: the PostgreSQL driver psycopg is not "
                f"installed ({error}); install it with: pip install 'psycopg[binary]'"
            ) from None
    try:
        _check_and_upgrade(engine, shown, upgrade=not read_only)
    except ExplorerError:
        engine.dispose()
        raise
    except dbapi_errors(engine) as error:
        engine.dispose()
        raise database_error(error, shown, "open") from None
    return engine


def _sqlite_engine(
    url: URL, *, create: bool = True, read_only: bool = False
) -> tuple[Engine, bool]:
    """The engine of a SQLite URL, and whether it opens the file read-only (asked for, or
    found on read-only storage when it need not be created)."""
    path = url.database
    if read_only and (not path or path == ":memory:"):
        raise DatabaseError("a database in memory cannot be opened read-only (name a file)")
    if not path or path == ":memory:":
        # one shared connection, or every checkout would see a new empty database
        engine = sa.create_engine(
            "sqlite://", poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    else:
        if not create and not Path(path).exists():
            raise DatabaseError(
                f"no database at {_shown(url)!r} (store a game first: explorer build SPEC "
                "POSITION, or name another with --db)"
            )
        _check_sqlite_file(Path(path), _shown(url))
        if create and not Path(path).exists():
            _create_sqlite_file(Path(path), _shown(url))
        read_only = read_only or (not create and not _writable(Path(path)))
        if read_only:
            uri = _read_only_uri(Path(path))
            # the URL stays the file's (it is what messages show); the driver gets the URI
            engine = sa.create_engine(
                url, creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False)
            )
        else:
            engine = sa.create_engine(url)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine, read_only


def _create_sqlite_file(path: Path, shown: str) -> None:
    """Make a new database file whole: migrated under a temporary name beside it, then linked
    into place, so that another process opening the same new path at the same moment never
    finds it empty (an empty file is refused as no database). If another process got there
    first, its file is kept."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    engine = sa.create_engine(sa.engine.URL.create("sqlite", database=str(temporary)))
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    try:
        _check_and_upgrade(engine, shown)
        engine.dispose()  # the last connection checkpoints and removes the -wal file
        os.link(temporary, path)
    except FileExistsError:
        pass
    except dbapi_errors(engine) as error:
        raise database_error(error, shown, "create") from None
    finally:
        engine.dispose()
        for leftover in (temporary, *(Path(f"{temporary}{end}") for end in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)


def checkpoint_away(engine: Engine) -> None:
    """After `engine` is disposed, fold a SQLite file's ``-wal`` into it and remove the
    ``-wal`` and ``-shm`` files, as the last writer to close does: a read-only engine (``explorer
    serve``) cannot, so a brief read-write connection, the last one, does it. Nothing happens
    while another program still has the file open, nor where the file cannot be written."""
    path = engine.url.database
    if not dialect_of(engine).owns_file or not path or path == ":memory:":
        return
    file = Path(path)
    if not Path(f"{file}-wal").exists() or not _writable(file):
        return
    try:
        with closing(sqlite3.connect(f"{file.resolve().as_uri()}?mode=rw", uri=True)) as conn:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
    except sqlite3.Error:  # busy or damaged: the files stay, as they would have
        pass


def _writable(path: Path) -> bool:
    """Whether SQLite can write the file and, beside it, its WAL and shared-memory files."""
    directory = path.parent if str(path.parent) else Path(".")
    return os.access(path, os.W_OK) and os.access(directory, os.W_OK)


def _read_only_uri(path: Path) -> str:
    """A URI opening the file read-only.

    A WAL database needs its shared-memory file (``-shm``); where that cannot be created or
    written, the file is opened ``immutable``: nobody can write it there anyway.
    """
    directory = path.parent if str(path.parent) else Path(".")
    shm = path.with_name(path.name + "-shm")
    shm_usable = os.access(shm, os.W_OK) if shm.exists() else os.access(directory, os.W_OK)
    query = "mode=ro" if shm_usable else "mode=ro&immutable=1"
    return f"{path.resolve().as_uri()}?{query}"


@contextmanager
def writing(engine: Engine, shard: Path | None = None) -> Iterator[sa.Connection]:
    """A write transaction, committed at the end of the block (rolled back on an error).

    On SQLite it begins ``IMMEDIATE``: it takes the write lock at once, waiting up to the busy
    timeout while another writer finishes, instead of starting as a reader and failing at its
    first write ("database is locked") when another writer got there first. A `shard` file
    is attached to it first (`explorer.storage.backends.shards`).
    """
    if shard is None:
        with engine.execution_options(explorer_writes=True).begin() as connection:
            yield connection
        return
    with engine.execution_options(explorer_writes=True).connect() as connection:
        with attached(connection, shard), connection.begin():
            yield connection


@contextmanager
def reading(engine: Engine) -> Iterator[sa.Connection]:
    """A read transaction whose statements all see the database as it was at its first read,
    even while another process commits (PostgreSQL's default would show each statement the
    newest commits; SQLite's transactions are snapshots already)."""
    options = dialect_of(engine).snapshot
    with engine.connect().execution_options(**options) as connection, connection.begin():
        yield connection


def _check_sqlite_file(path: Path, shown: str) -> None:
    """Refuse, before SQLite touches anything, paths that cannot hold a database."""
    if path.is_dir():
        raise DatabaseError(f"cannot open database {shown!r}: {str(path)!r} is a directory")
    if path.exists() and not path.is_file():
        # a FIFO or a device: opening it could block forever
        raise DatabaseError(f"cannot open database {shown!r}: {str(path)!r} is not a regular file")
    if path.exists():
        try:
            with path.open("rb") as file:
                head = file.read(len(SQLITE_MAGIC))
        except OSError as error:
            raise DatabaseError(f"cannot open database {shown!r}: {error.strerror}") from None
        if not head:
            # SQLite would take it for a new database and write a schema into someone's file
            raise DatabaseError(
                f"cannot open database {shown!r}: {str(path)!r} is an empty file, not a "
                "database (remove it to start a new database there)"
            )
        if head != SQLITE_MAGIC:
            raise DatabaseError(
                f"{str(path)!r} is not a SQLite database (expected an explorer database file "
                "or a new path)"
            )
        return
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise DatabaseError(
            f"cannot create database {shown!r}: directory {str(directory)!r} does not exist"
        )
    if not os.access(directory, os.W_OK):
        raise DatabaseError(
            f"cannot create database {shown!r}: directory {str(directory)!r} is not writable"
        )


def _sqlite_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    # We emit BEGIN ourselves (see _sqlite_begin): the driver's implicit transactions do not
    # cover DDL, so a failed migration could leave half a schema.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    for pragma in SQLITE_PRAGMAS:
        cursor.execute(f"PRAGMA {pragma}")
    cursor.execute(f"PRAGMA busy_timeout = {round(writer_wait() * 1000)}")
    cursor.close()


def release_page_cache(connection: sa.Connection) -> None:
    """Free the pages SQLite keeps cached on this connection (its cache may grow to 256 MiB):
    after a sequence is written or read, those pages only duplicate the values in memory."""
    dialect_of(connection).release_page_cache(connection)


def writer_wait() -> float:
    """Seconds a writer waits for another writer's transaction to end before it gives up
    ("database is locked"): `WAIT_SECONDS`, or the environment variable `WAIT_VAR`.

    Raises
    ------
    DatabaseError
        When the variable is not a number of seconds.
    """
    text = os.environ.get(WAIT_VAR)
    if text is None:
        return WAIT_SECONDS
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86_400:
        raise DatabaseError(
            f"{WAIT_VAR}={text!r} is not a number of seconds (0 to 86400) a writer waits for "
            "another"
        )
    return seconds


#: Seconds a writer waits for another writer's lock before it says that it waits.
NOTICE_AFTER = 1.0


def _sqlite_begin(connection: sa.Connection) -> None:
    writes = connection.get_execution_options().get("explorer_writes", False)
    if not writes:
        connection.exec_driver_sql("BEGIN")
        return
    wait = writer_wait()
    if wait <= NOTICE_AFTER:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        return
    # wait a second quietly; then say so, and wait the rest of the time
    started = time.monotonic()
    connection.exec_driver_sql(f"PRAGMA busy_timeout = {round(NOTICE_AFTER * 1000)}")
    try:
        try:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            return
        except sa.exc.OperationalError as error:
            if "locked" not in reason(error):
                raise
        name = connection.engine.url.database or ":memory:"
        say(f"waiting for another writer of {name}, up to {wait:g} s ({WAIT_VAR})")
        left = max(0.0, wait - (time.monotonic() - started))
        connection.exec_driver_sql(f"PRAGMA busy_timeout = {round(left * 1000)}")
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    finally:
        connection.exec_driver_sql(f"PRAGMA busy_timeout = {round(wait * 1000)}")


def _check_and_upgrade(engine: Engine, shown: str, *, upgrade: bool = True) -> None:
    """Refuse foreign or newer schemas without writing; then migrate to head in one transaction.

    Without `upgrade` (a database opened read-only), a schema that is not the newest is
    refused instead. A database at `SCHEMA_HEAD` is checked without loading Alembic.
    """
    head = SCHEMA_HEAD
    with engine.connect() as connection:
        tables = set(sa.inspect(connection).get_table_names())
        current = None
        if "alembic_version" in tables:
            current = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
            if current is None and len(tables) > 1:
                raise DatabaseDamagedError(
                    f"cannot open database {shown!r}: its tables are there but not its schema "
                    "revision (it is damaged; restore it from a copy, or build into another "
                    "database)"
                )
        elif tables and dialect_of(engine).owns_file:
            listed = ", ".join(sorted(tables)[:5])
            raise DatabaseError(
                f"{shown!r} is not an explorer database (it has tables {listed} but no explorer "
                "schema); use a new file"
            )
        if current == head:
            # stats read the counts, not the tables: a dropped table must be found here
            missing = sorted({t.name for t in Base.metadata.sorted_tables} - tables)
            kind = "table"
            if not missing:  # and the views that read the moves in the states' rows
                views = set(sa.inspect(connection).get_view_names())
                missing, kind = sorted({EDGES_VIEW, EDGES_IN_VIEW} - views), "view"
            if missing:
                raise DatabaseDamagedError(
                    f"cannot open database {shown!r}: its {kind} {missing[0]!r} is missing (it "
                    "is damaged; restore it from a copy, or build into another database)"
                )
            return
        if current is not None and not known_revision(current):
            raise SchemaTooNewError(
                f"database {shown!r} has schema revision {current!r}, which this explorer "
                f"does not know (its newest is {head!r}): it was written by a newer "
                "explorer; upgrade explorer to use it"
            )
        if not upgrade and current is None:
            raise DatabaseError(
                f"database {shown!r} holds no explorer schema and is open read-only: store a "
                "game in it first (explorer build SPEC POSITION --db URL)"
            )
        if not upgrade:
            raise DatabaseError(
                f"database {shown!r} has schema revision {current!r}, older than this explorer's "
                f"{head!r}, and is open read-only: upgrade it first where it can be written (any "
                "command that opens it there, such as explorer stats --db URL, does)"
            )
    dialect_of(engine).prepare_file(engine)  # only after the checks above passed
    with writing(engine) as connection:
        dialect_of(engine).lock_upgrade(connection)
        from alembic import command

        command.upgrade(alembic_config(connection), "head")
    if current is not None:  # an explorer database, upgraded in place: a reader says so too
        from explorer import notices

        notices.say(
            f"upgraded database {shown!r} from schema revision {current!r} to {head!r}: "
            "an older explorer cannot open it now"
        )
