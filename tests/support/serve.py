"""`explorer serve` as the tests run it: a real uvicorn process on a free loopback port.

`start_server` runs the command itself (``explorer serve --port 0 --json``), reads the address
it prints, and stops it afterwards.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from tests.support.cli import INTERRUPTIBLE
from tests.support.environment import REPO


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str


@dataclass
class Server:
    """A running server: its address, and plain HTTP requests to it (redirects not followed)."""

    url: str
    process: subprocess.Popen[str]
    #: What the server wrote to standard error so far (read as it comes, so a server that logs
    #: a lot never blocks on a full pipe).
    errors: list[str] = field(default_factory=list)

    @property
    def log(self) -> str:
        """The server's standard error so far."""
        return "".join(list(self.errors))

    @property
    def port(self) -> int:
        return int(urlsplit(self.url).port or 80)

    def request(
        self, path: str, *, method: str = "GET", headers: dict[str, str] | None = None
    ) -> Reply:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request(method, path, headers=headers or {})
            response = connection.getresponse()
            body = response.read().decode("utf-8", errors="replace")
            return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, body)
        finally:
            connection.close()

    def get(self, path: str) -> Reply:
        return self.request(path)


def _collect(process: subprocess.Popen[str], lines: list[str]) -> None:
    """Keep every line the server writes to standard error, as it comes."""
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)


@contextmanager
def start_server(db_url: str, *extra: str) -> Iterator[Server]:
    """Run ``explorer serve --db DB_URL --port 0 --json``; yield once it listens."""
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    process = subprocess.Popen(
        [sys.executable, "-c", INTERRUPTIBLE, "serve", "--db", db_url]  # Ctrl-C stops it
        + ["--port", "0", "--json", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=REPO,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()  # type: ignore[union-attr]
    try:
        try:
            first = lines.get(timeout=60)
        except queue.Empty:
            first = ""
        if not first:
            process.kill()
            raise AssertionError(f"explorer serve did not start: {process.stderr.read()}")  # type: ignore[union-attr]
        server = Server(json.loads(first)["url"].rstrip("/"), process)
        threading.Thread(target=_collect, args=(process, server.errors), daemon=True).start()
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
