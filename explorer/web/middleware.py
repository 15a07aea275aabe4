"""The app's middleware: requests naming a host other than the bound address are refused (DNS
rebinding), and every response carries the security headers and the server's time."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

#: Only what the app itself serves may load; nothing inline runs; no frame may embed a page.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers the app answers when bound to `host` and `port`.

    The bound address itself (with its port, or without it on port 80), and ``localhost`` when
    the address is a loopback one; any other name could be an attacker's DNS name rebound to
    this address.

    Examples
    --------
    >>> sorted(allowed_hosts("127.0.0.1", 8000))
    ['127.0.0.1:8000', 'localhost:8000']
    """
    address = f"[{host}]" if ":" in host else host
    names = {address.lower()}
    if is_loopback(host):
        names.add("localhost")
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:
        hosts |= names
    return hosts


class Guard:
    """ASGI middleware: refuse foreign Host headers; add the security headers and the server's
    time (``Server-Timing``) to every response."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        started = time.perf_counter()

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                # the server's own time, for browsers' developer tools and the benchmark
                spent = f"app;dur={(time.perf_counter() - started) * 1000:.2f}".encode()
                message["headers"] = [
                    *message.get("headers", []),
                    *SECURITY_HEADERS,
                    (b"server-timing", spent),
                ]
            await send(message)

        host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1").lower()
        if host not in self.hosts:
            body = (
                b"refused: this server answers only to "
                + ", ".join(sorted(self.hosts)).encode()
                + b"\n"
            )
            await secured(
                {
                    "type": "http.response.start",
                    "status": 421,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await secured({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, secured)


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only.

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    return host == "localhost" or host == "::1" or host.startswith("127.")
