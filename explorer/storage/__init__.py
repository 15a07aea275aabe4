"""The graph database: games, states, edges and values stored in SQLite or PostgreSQL.

The only package that imports SQLAlchemy. Open a database with `open_database`; the `Database`
it returns lists and imports games, and ``db.game(spec)`` gives a `StoredGame` that builds,
edits, re-solves, exports, checks and reads one. Its schema is created and upgraded by the
Alembic migrations shipped with explorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.errors import DatabaseError, DatabaseURLError, NotStoredError, SchemaTooNewError
from explorer.lazy import lazy_members

if TYPE_CHECKING:
    from explorer.build.edits import EditReport
    from explorer.build.one_process import BuildOptions, BuildReport, build_position
    from explorer.build.writer import BuildProgress
    from explorer.storage.backends.engine import DEFAULT_PATH, ENV_VAR, resolve_url
    from explorer.storage.database import Database, open_database
    from explorer.storage.query.game_rows import QueryResult
    from explorer.storage.stored_game import StoredGame

#: Where each name lives: its module loads when the name is first asked for, so that a command
#: that only reads does not load the builder and the editor.
_HOMES = {
    **dict.fromkeys(
        ("BuildOptions", "BuildReport", "build_position"), "explorer.build.one_process"
    ),
    "BuildProgress": "explorer.build.writer",
    **dict.fromkeys(("Database", "open_database"), "explorer.storage.database"),
    "QueryResult": "explorer.storage.query.game_rows",
    "StoredGame": "explorer.storage.stored_game",
    "EditReport": "explorer.build.edits",
    **dict.fromkeys(("DEFAULT_PATH", "ENV_VAR", "resolve_url"), "explorer.storage.backends.engine"),
}


__getattr__, __dir__ = lazy_members(globals(), _HOMES)


__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "BuildOptions",
    "BuildProgress",
    "BuildReport",
    "Database",
    "DatabaseError",
    "DatabaseURLError",
    "EditReport",
    "NotStoredError",
    "QueryResult",
    "SchemaTooNewError",
    "StoredGame",
    "build_position",
    "open_database",
    "resolve_url",
]
