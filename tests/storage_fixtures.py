"""Storage test fixtures: a fresh database per test on SQLite and on PostgreSQL.

Loaded with ``pytest_plugins = ["tests.storage_fixtures"]``. Each PostgreSQL test gets a schema
of its own (chosen through the connection's search_path), so tests never see each other's rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from explorer.storage.engine import resolve_url

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def _fresh_url(kind: str, request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if kind == "sqlite":
        yield str(tmp_path / f"games-{uuid.uuid4().hex[:6]}.db")
        return
    base = resolve_url(request.getfixturevalue("postgres_url"))
    schema = "test_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    try:
        yield (
            make_url(base)
            .update_query_dict({"options": f"-csearch_path={schema}"})
            .render_as_string(hide_password=False)
        )
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """A URL naming a new, empty database on each backend."""
    yield from _fresh_url(request.param, request, tmp_path)


@pytest.fixture
def pg_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    """A URL naming a new, empty PostgreSQL database (a schema of its own)."""
    yield from _fresh_url("postgresql", request, tmp_path)


@pytest.fixture
def other_db_url(request: pytest.FixtureRequest, tmp_path: Any, db_url: str) -> Iterator[str]:
    """A second empty database on the same backend as `db_url`."""
    kind = "sqlite" if "://" not in db_url else "postgresql"
    yield from _fresh_url(kind, request, tmp_path)
