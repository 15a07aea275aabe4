"""What the tests need to know of the machine: the repository, whether CI runs them, Chromium's
flags, and the rule that a missing server or browser skips locally and fails in CI."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

IN_CI = bool(os.environ.get("CI"))
REPO = Path(__file__).resolve().parents[2]
#: The example files the repository ships (games, graphs, Python rules).
DATA = REPO / "data"

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


def require(reason: str) -> None:
    """Skip locally, fail in CI."""
    if IN_CI:
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)
