"""The migrations glue: where the Alembic scripts are, an Alembic configuration built in code,
and the revisions they know; `explorer.storage.backends.engine` applies them when it opens a
database.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa

from explorer.errors import DatabaseError

if TYPE_CHECKING:  # Alembic loads only when a database needs its schema created or upgraded
    from alembic.config import Config


def migrations_path() -> Path:
    """The Alembic scripts: inside the installed package, else at the repository root."""
    package = Path(__file__).resolve().parents[2]
    for candidate in (package / "migrations", package.parent / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise DatabaseError(f"the database migrations are missing (looked in {package})")


def alembic_config(connection: sa.Connection | None = None) -> Config:
    """An Alembic configuration built in code (there is no alembic.ini).

    Parameters
    ----------
    connection : sqlalchemy.Connection, optional
        The connection the migrations run on (``migrations/env.py`` requires one).

    Examples
    --------
    >>> alembic_config().get_main_option("script_location").endswith("migrations")
    True
    """
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_path()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest schema revision this code knows, read from the migrations (see `SCHEMA_HEAD`)."""
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None
    return head


def known_revision(revision: str) -> bool:
    """Whether a schema revision is one of the migrations' (an older one, below the head)."""
    from alembic.script import ScriptDirectory

    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except Exception:  # alembic raises several types for an unknown revision
        return False
