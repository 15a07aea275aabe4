"""Serving the app: a socket bound to the address asked for, and uvicorn running on it."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from explorer.errors import ServeError
from explorer.web.app import create_app

if TYPE_CHECKING:
    from explorer.storage import Database


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port` (0 for any free port), listening.

    Raises
    ------
    ServeError
        When the address is in use, not this machine's, or not allowed.

    Examples
    --------
    >>> sock = listen("127.0.0.1", 0)
    >>> sock.getsockname()[0]
    '127.0.0.1'
    >>> sock.close()
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        raise ServeError(
            f"cannot listen on {host}:{port}: {error.strerror or error} (choose another --port)"
        ) from None
    except (OverflowError, UnicodeError) as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error}") from None
    return sock


def serve(
    database: Database,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve the app over `database` until interrupted (Ctrl-C or SIGTERM).

    Binds first (port 0 picks a free one), then calls `on_listening` with the app's URL, then
    runs uvicorn on that socket.

    Raises
    ------
    ServeError
        When the address cannot be listened on.
    """
    import uvicorn

    sock = listen(host, port)
    port = sock.getsockname()[1]
    app = create_app(database, host=host, port=port)
    address = f"[{host}]" if ":" in host else host
    if on_listening is not None:
        on_listening(f"http://{address}:{port}/")
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
