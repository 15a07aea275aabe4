"""The graph database: games, states, edges and values stored in SQLite or PostgreSQL.

The only package that imports SQLAlchemy. Open a database with `open_database`; its schema is
created and upgraded by the Alembic migrations shipped with explorer.
"""

from __future__ import annotations

from explorer.storage.building import BuildProgress, BuildReport, build_position
from explorer.storage.database import (
    DEFAULT_PATH,
    ENV_VAR,
    DatabaseError,
    DatabaseURLError,
    NotStoredError,
    SchemaTooNewError,
    resolve_url,
)
from explorer.storage.queries import Database, open_database

__all__ = [
    "DEFAULT_PATH",
    "ENV_VAR",
    "BuildProgress",
    "BuildReport",
    "Database",
    "DatabaseError",
    "DatabaseURLError",
    "NotStoredError",
    "SchemaTooNewError",
    "build_position",
    "open_database",
    "resolve_url",
]
