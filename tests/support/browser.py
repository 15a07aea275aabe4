"""A browser tab on `explorer serve`'s app, as the browser tests drive it (Playwright)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.serve import Server


@dataclass
class Tab:
    """A browser tab on the app, recording every request, error and dialog."""

    page: Any
    server: Server
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def open(self, path: str) -> None:
        self.page.goto(self.server.url + path)

    def wait_for_graph(self) -> None:
        self.page.wait_for_function("window.explorerDrawn === true", timeout=30_000)

    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.page.url).query)

    def heading(self) -> str:
        return str(self.page.text_content("#position"))

    def check_clean(self) -> None:
        assert self.errors == [] and self.dialogs == []
        outside = [u for u in self.requests if not u.startswith(self.server.url + "/")]
        assert outside == []
