"""The graph database: games, states, edges and values stored in SQLite or PostgreSQL, and read.

The only package that imports SQLAlchemy, and it does I/O only: `schema` (the models), `backends`
(engines and each dialect's bulk writes), `tables` (the SQL of each table), `rows` (where a row
is written) and `query` (reads of one game). `open_database` gives a `Database` that lists games
and reads them; ``db.game(spec)`` gives a `StoredGame` that reads, exports and stores findings.
Builds, edits and checks are the build stage's (`explorer.build.open_database`). The schema is
created and upgraded by the Alembic migrations shipped with explorer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.errors import DatabaseError, DatabaseURLError, NotStoredError, SchemaTooNewError
from explorer.lazy import lazy_members

if TYPE_CHECKING:
    from explorer.storage.backends.engine import DEFAULT_PATH, ENV_VAR, resolve_url
    from explorer.storage.database import Database, open_database
    from explorer.storage.query.game_rows import QueryResult
    from explorer.storage.query.game_stats import BuildRecord, GameStats, TierRecord
    from explorer.storage.stored_game import StoredGame

#: Where each name lives: its module loads when the name is first asked for.
_HOMES = {
    **dict.fromkeys(("Database", "open_database"), "explorer.storage.database"),
    "QueryResult": "explorer.storage.query.game_rows",
    **dict.fromkeys(
        ("BuildRecord", "GameStats", "TierRecord"), "explorer.storage.query.game_stats"
    ),
    "StoredGame": "explorer.storage.stored_game",
    **dict.fromkeys(("DEFAULT_PATH", "ENV_VAR", "resolve_url"), "explorer.storage.backends.engine"),
}


__getattr__, __dir__ = lazy_members(globals(), _HOMES)


__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "BuildRecord",
    "Database",
    "DatabaseError",
    "DatabaseURLError",
    "GameStats",
    "NotStoredError",
    "QueryResult",
    "SchemaTooNewError",
    "StoredGame",
    "TierRecord",
    "open_database",
    "resolve_url",
]
