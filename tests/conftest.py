"""Every fixture the tests share, and the hypothesis profiles.

A PostgreSQL server and Chromium are skipped when missing locally; with CI set they fail the
tests that need them, so a green CI run has really exercised both. Helpers that are not
fixtures live in `tests.support`.
"""

from __future__ import annotations

import os

# Tests that need a terminal width give COLUMNS to the command they run. One inherited from
# the runner (pytest-xdist's workers have COLUMNS=80) would be fixed in explorer's console when
# the CLI is first imported, and every later width asked for would be ignored. So they go
# before anything below imports the CLI (tests.support.serve does).
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, settings

from explorer import open_database
from explorer.build import Database
from tests.support.browser import Tab
from tests.support.environment import CHROMIUM_FLAGS, IN_CI, require
from tests.support.serve import Server
from tests.support.storage import fresh_url

#: Hypothesis profiles shared by every property test: quick while developing, thorough in CI
#: (CI set), or the one HYPOTHESIS_PROFILE names. No deadline: the machines are shared and slow.
#: A test never sets ``max_examples`` itself except as a share of the profile's
#: (`tests.support.strategies.fraction_of_examples`), so the profile scales every test.
settings.register_profile(
    "dev",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.register_profile("ci", settings.get_profile("dev"), max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "dev"))


# --- a server and a browser ------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _empty_part_table() -> Iterator[None]:
    """The process's part table emptied after each test: the values one test's searches
    found never answer another's (a test of what a run stores would find them stored)."""
    from explorer.analysis.parts import PART_TABLE

    yield
    PART_TABLE.clear()


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get("EXPLORER_TEST_POSTGRES_URL")
    if not url:
        require("no PostgreSQL server (set EXPLORER_TEST_POSTGRES_URL)")
    return url  # type: ignore[return-value]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = (
        os.environ.get("EXPLORER_TEST_CHROMIUM")
        or shutil.which("chromium")
        or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    )
    if not path:
        require("no headless Chromium (apt-get install chromium)")
    return path  # type: ignore[return-value]


@pytest.fixture(scope="module")
def browser(chromium_path: str) -> Iterator[Any]:
    """Headless Chromium, through Playwright, for a module's tests."""
    import playwright.sync_api as playwright

    with playwright.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def tab(browser: Any, server: Server) -> Iterator[Tab]:
    """A tab on the module's `server` fixture, recording requests, errors and dialogs."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    opened = Tab(page, server)
    page.on("request", lambda r: opened.requests.append(r.url))
    page.on("pageerror", lambda e: opened.errors.append(str(e)))
    page.on(
        "console",
        lambda m: m.type in ("error", "warning") and opened.errors.append(f"{m.type}: {m.text}"),
    )

    def dialog(d: Any) -> None:
        opened.dialogs.append(d.message)
        d.dismiss()

    page.on("dialog", dialog)
    yield opened
    context.close()


# --- fresh databases: names of their own, so tests (and xdist workers) never meet ------------

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL naming a new, empty database on each backend."""
    yield from fresh_url(request.param, request, tmp_path)


@pytest.fixture
def pg_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A URL naming a new, empty PostgreSQL database (a schema of its own)."""
    yield from fresh_url("postgresql", request, tmp_path)


@pytest.fixture
def other_db_url(request: pytest.FixtureRequest, tmp_path: Path, db_url: str) -> Iterator[str]:
    """A second empty database on the same backend as `db_url`."""
    kind = "sqlite" if "://" not in db_url else "postgresql"
    yield from fresh_url(kind, request, tmp_path)


@pytest.fixture(scope="module", params=BACKENDS)
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """An open database shared by a module's tests: a SQLite file, or a PostgreSQL database
    made for the module and dropped after it (so built games such as ``subtraction:1,2`` start
    fresh on every run)."""
    if request.param == "sqlite":
        with open_database(str(tmp_path_factory.mktemp("sqlite") / "edits.db")) as db:
            yield db
        return
    server = sa.make_url(request.getfixturevalue("postgres_url"))
    name = f"explorer_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        with open_database(server.set(database=name).render_as_string(False)) as db:
            yield db
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        admin.dispose()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for a module's graph files (`tests.support.graphs.write_graph`)."""
    return tmp_path_factory.mktemp("graphs")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test is a failure: a green run must have run every test."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if reporter is not None and IN_CI and skipped and session.exitstatus == 0:
        reporter.write_line(f"FAILED: {len(skipped)} test(s) skipped in CI", red=True)
        session.exitstatus = 1


@pytest.fixture
def small_disk(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A folder on a small file system of its own: 1 MiB, or the size a test gives
    (``@pytest.mark.parametrize("small_disk", ["5m"], indirect=True)``; root only: it is
    mounted)."""
    if os.geteuid() != 0:
        require("mounting a small file system needs root")
    size = getattr(request, "param", "1m")
    folder = tmp_path / "small"
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)
