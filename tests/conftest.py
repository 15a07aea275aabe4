"""Shared fixtures: a PostgreSQL URL and a Chromium path, which in CI must be there.

Outside CI a missing server or browser skips those tests; with CI set it fails them, so a
green CI run has really exercised both.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

IN_CI = bool(os.environ.get("CI"))
REPO = Path(__file__).resolve().parent.parent

#: Headless Chromium on a machine with no network (RECIPES.md): no sandbox as root, no
#: background requests that the closed network would refuse.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


#: Hypothesis profiles shared by every property test: quick while developing, thorough in CI
#: (CI set), or the one HYPOTHESIS_PROFILE names. No deadline: the machines are shared and slow.
settings.register_profile(
    "dev",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.register_profile("ci", settings.get_profile("dev"), max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "dev"))


def fraction_of_examples(share: float) -> int:
    """A share of the profile's examples, for a property whose examples are expensive."""
    return max(5, round(settings.default.max_examples * share))


def require(reason: str) -> None:
    """Skip locally, fail in CI."""
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """In CI a skipped test is a failure: a green run must have run every test."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter is not None else []
    if IN_CI and skipped and session.exitstatus == 0:
        reporter.write_line(f"FAILED: {len(skipped)} test(s) skipped in CI", red=True)
        session.exitstatus = 1
