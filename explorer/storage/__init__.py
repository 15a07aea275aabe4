"""The graph database: games, states, edges and values stored in SQLite or PostgreSQL.

The only package that imports SQLAlchemy. Open a database with `open_database`; the `Database`
it returns builds, imports, edits, re-solves, exports and reads games. Its schema is created
and upgraded by the Alembic migrations shipped with explorer.
"""

from __future__ import annotations

from explorer.errors import DatabaseError, DatabaseURLError, NotStoredError, SchemaTooNewError
from explorer.storage.building import BuildProgress, BuildReport, build_position
from explorer.storage.database import Database, QueryResult, open_database
from explorer.storage.edits import EditReport
from explorer.storage.engine import DEFAULT_PATH, ENV_VAR, resolve_url

__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "BuildProgress",
    "BuildReport",
    "Database",
    "DatabaseError",
    "DatabaseURLError",
    "EditReport",
    "NotStoredError",
    "QueryResult",
    "SchemaTooNewError",
    "build_position",
    "open_database",
    "resolve_url",
]
