"""Alembic environment: run migrations on the connection explorer hands over.

explorer opens the database itself and passes its connection in
``config.attributes["connection"]`` (see `explorer.storage.database`); there is no alembic.ini.
"""

from __future__ import annotations

from alembic import context

from explorer.storage.schema.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "run migrations through explorer (explorer.storage.open_database or "
        "explorer.storage.database.alembic_config), which supplies the connection"
    )

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    # SQLite cannot ALTER most things: let Alembic copy tables instead.
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
