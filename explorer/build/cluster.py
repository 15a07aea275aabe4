"""Building on many machines: a Dask distributed cluster runs a build's tier tasks.

A build in tiers hands pure, idempotent tasks to a `concurrent.futures.Executor` (see
`explorer.generation.tiers`). On one machine that is a process pool; on many it is the
executor of a Dask distributed client, connected to a scheduler that workers on every machine
joined (``dask scheduler``, ``dask worker tcp://HOST:8786``). Dask re-runs on another worker
a task whose worker died, so a worker killed mid-build costs only its task's time. Dask
(the ``cluster`` extra) is imported only here, and only when a cluster is asked for.

The database is PostgreSQL, which every machine reaches: a SQLite file is refused, since it
lives on one machine.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from explorer.errors import ClusterError
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.backends.engine import resolve_url
from explorer.version import __version__

#: How a user installs the engine (the README's "Many machines").
INSTALL = "pip install 'explorer[cluster]' (in a checkout: pip install '.[cluster]')"
#: Seconds to wait for the scheduler to answer, and for a first worker to join it.
CONNECT_SECONDS = 30
#: Seconds between two looks at the client's connection while a build's tasks run.
WATCH_SECONDS = 0.5
#: A scheduler's address: tcp://HOST:PORT or tls://HOST:PORT (HOST:PORT means tcp).
ADDRESS = re.compile(r"^(?:(tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$")


@dataclass(frozen=True)
class Cluster:
    """A connected cluster: the executor a build submits its tasks to, and its size.

    Attributes
    ----------
    executor : concurrent.futures.Executor
        Dask's executor over the client: tasks run on the cluster's workers.
    address : str
        The scheduler's address, as ``tcp://HOST:PORT``.
    workers : int
        Worker processes joined when the build started.
    threads : int
        Tasks the cluster runs at once (every worker's threads).
    """

    executor: Executor
    address: str
    workers: int
    threads: int


def scheduler_address(text: str) -> str:
    """The scheduler address `text` names, as ``tcp://HOST:PORT`` (or ``tls://``).

    Raises
    ------
    ClusterError
        When `text` is not ``[tcp://|tls://]HOST:PORT``.

    Examples
    --------
    >>> scheduler_address("tcp://10.0.0.5:8786"), scheduler_address("node1:8786")
    ('tcp://10.0.0.5:8786', 'tcp://node1:8786')
    """
    found = ADDRESS.match(text.strip())
    if found is None or not 0 < int(found[3]) < 65536:
        raise ClusterError(
            f"bad cluster address {text!r}: expected the Dask scheduler's tcp://HOST:PORT, "
            "say tcp://node1:8786 (dask scheduler prints it)"
        )
    return f"{found[1] or 'tcp'}://{found[2]}:{int(found[3])}"


def refuse_local_database(url: str | None) -> None:
    """Refuse a SQLite database for a cluster build: only PostgreSQL is shared by machines.

    Examples
    --------
    >>> refuse_local_database("postgresql://me@db/games")
    >>> refuse_local_database("games.db")
    Traceback (most recent call last):
    ...
    explorer.errors.ClusterError: --cluster needs a PostgreSQL database, not the SQLite file ...
    """
    resolved = resolve_url(url)
    if not dialect_of(resolved).shared:
        shown = resolved.database or "in memory"
        raise ClusterError(
            f"--cluster needs a PostgreSQL database, not the SQLite file {shown!r}: give "
            "--db postgresql://USER@HOST/DB, a server every machine of the cluster reaches"
        )


def dask_client() -> type[Any]:
    """Dask's ``Client`` class, imported here only (the ``cluster`` extra).

    Raises
    ------
    ClusterError
        When Dask distributed is not installed: the error names the install command.
    """
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(
            f"--cluster needs Dask distributed, which is not installed: install it with {INSTALL}"
        ) from None
    return Client


def worker_version() -> str:
    """explorer's version, as a worker reports it (run on every worker before a build)."""
    return __version__


@contextmanager
def connect(address: str, timeout: float = CONNECT_SECONDS) -> Iterator[Cluster]:
    """Connect to the Dask scheduler at `address` and yield its `Cluster`; disconnect after.

    Waits up to `timeout` seconds for the scheduler and for a first worker, and checks that
    every worker runs this version of explorer (a task names explorer's functions, which a
    worker imports).

    Raises
    ------
    ClusterError
        When Dask is not installed, the address is malformed, the scheduler does not answer,
        no worker joins, or a worker lacks explorer or runs another version of it; and when
        the cluster fails under the build (what was built is kept, and the same build
        continues).
    """
    address = scheduler_address(address)
    client_class = dask_client()
    # Dask logs a lost connection with its traceback: the error raised here says it in a line
    for name in list(logging.root.manager.loggerDict):
        if name.split(".")[0] in ("distributed", "tornado", "asyncio"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
    from distributed import KilledWorker
    from distributed.comm.core import CommClosedError

    # what a build raises when the cluster fails under it: a task that killed every worker
    # it ran on, the scheduler gone, the futures cancelled with it
    lost = (KilledWorker, CommClosedError, CancelledError)
    try:
        client = client_class(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address} ({error}); start one there with: "
            "dask scheduler"
        ) from None
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except TimeoutError:
            raise ClusterError(
                f"no worker joined the Dask scheduler at {address} in {timeout:g} s; start "
                f"one on each machine with: dask worker {address} --nthreads 1"
            ) from None
        _check_workers(client, address)
        workers = client.scheduler_info(n_workers=-1)["workers"]
        executor = WatchedExecutor(client)
        try:
            yield Cluster(
                executor=executor,
                address=address,
                workers=len(workers),
                threads=sum(int(worker["nthreads"]) for worker in workers.values()),
            )
        except lost as error:
            raise ClusterError(
                f"the build lost the Dask cluster at {address} ({type(error).__name__}: "
                f"{error}); what was built is kept: run the same command again to continue"
            ) from None
        finally:
            executor.shutdown(wait=False)
    finally:
        client.close()


class WatchedExecutor(Executor):
    """Dask's executor over `client`, whose futures fail when the client loses its scheduler.

    Dask cancels the tasks it knew of when the connection drops, but a task submitted while it
    tries to reconnect is forgotten without an outcome, and its future would be waited on for
    ever: a thread looks at the connection every `WATCH_SECONDS` and fails such futures.
    """

    def __init__(self, client: Any) -> None:
        self._client = client
        self._dask = client.get_executor(pure=False)
        self._pending: set[Future[Any]] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._watch = threading.Thread(target=self._look, name="explorer-cluster", daemon=True)
        self._watch.start()

    def _lost(self) -> Exception:
        # as Dask cancels the tasks it knew of: a build that ends so is interrupted, not failed
        return CancelledError(f"the client's connection to the scheduler is {self._client.status}")

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        if self._client.status != "running":
            raise self._lost()
        from distributed.comm.core import CommClosedError

        mine: Future[Any] = Future()
        with self._lock:  # before Dask's may end, which settles `mine` only if pending
            self._pending.add(mine)
        try:
            theirs = self._dask.submit(fn, *args, **kwargs)
        except CommClosedError:
            with self._lock:
                self._pending.discard(mine)
            raise self._lost() from None
        theirs.add_done_callback(lambda theirs: self._settle(mine, theirs))
        return mine

    def _settle(self, mine: Future[Any], theirs: Future[Any]) -> None:
        with self._lock:
            if mine not in self._pending:  # failed by the watch already
                return
            self._pending.discard(mine)
        if theirs.cancelled():
            mine.set_exception(CancelledError())
        elif (error := theirs.exception()) is not None:
            mine.set_exception(error)
        else:
            mine.set_result(theirs.result())

    def _look(self) -> None:
        while not self._stopped.wait(WATCH_SECONDS):
            if self._client.status in ("running", "newly-created"):
                continue
            with self._lock:
                pending, self._pending = self._pending, set()
            for future in pending:
                future.set_exception(self._lost())

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._stopped.set()
        self._dask.shutdown(wait=wait)  # Dask's takes no cancel_futures


def _check_workers(client: Any, address: str) -> None:
    """Refuse a worker that cannot import explorer, or runs another version of it."""
    from distributed.comm.core import CommClosedError

    try:
        versions = client.run(worker_version)
    except CommClosedError as error:
        raise ClusterError(f"lost the Dask scheduler at {address} ({error})") from None
    except Exception as error:  # a worker without explorer cannot unpickle worker_version
        raise ClusterError(
            f"a worker of {address} cannot run explorer ({type(error).__name__}: {error}); "
            f"install explorer {__version__} on every worker's machine with {INSTALL}"
        ) from None
    other = {worker: version for worker, version in versions.items() if version != __version__}
    if other:
        worker, version = sorted(other.items())[0]
        raise ClusterError(
            f"the worker {worker} of {address} runs explorer {version}, this is "
            f"{__version__}: install the same version on every machine"
        )
