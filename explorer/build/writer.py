"""A build's writes: one batch's rows (`Batch`), written in one transaction by one writer thread
while the next batch is generated (`BatchWriter`).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Generic, Protocol, TypeVar

import numpy as np
from sqlalchemy.engine import Engine

from explorer.storage.backends.bulk import NewStates, ValueColumns, writer_for
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.backends.engine import writing
from explorer.storage.rows.counts import add_counts
from explorer.storage.rows.moves import add_moves
from explorer.storage.rows.records import (
    BuildCounts,
    drop_key_index,
    ensure_key_index,
    update_build,
)


@dataclass(frozen=True)
class BuildProgress:
    """Where a running build is, reported after every committed batch; a build in tiers
    (`explorer.build.tier_manager`) also gives its tier steps done (each tier is expanded, then
    solved) out of those known so far, and its workers."""

    states_new: int
    edges_new: int
    values_computed: int
    frontier: int
    seconds: float
    tiers_done: int = 0
    tiers_total: int = 0
    workers: int = 1


class Reported(Protocol):
    """What a writer thread writes: anything carrying the progress it reports once written."""

    @property
    def progress(self) -> BuildProgress: ...


B = TypeVar("B", bound=Reported)


@dataclass
class Batch:
    """One batch's rows, built on the main thread and written by the writer thread."""

    new_states: NewStates
    #: The moves the batch stores, src[i] -> dst[i].
    edges: tuple[np.ndarray, np.ndarray]
    runs: list[tuple[int, int]]
    values: ValueColumns
    counts: BuildCounts
    progress: BuildProgress
    #: What the batch adds to the game's counts (see `explorer.storage.rows.counts`).
    tallies: list[tuple[str, str, int]]
    #: Drop the key index before writing (see `explorer.build.plans.KeyIndexPlan`).
    drop_key_index: bool = False
    #: Create it again after writing (the last batch of a large build that dropped it).
    create_key_index: bool = False


def commit_batch(engine: Engine, game_id: int, build_id: int, batch: Batch, cache_kib: int) -> None:
    """Write one batch in one transaction: new states, moves, expanded flags, values, counts
    and the build row's counters (SQLite's page cache set to `cache_kib` first); then create
    the key index if the batch says so."""
    with writing(engine) as conn:
        dialect_of(conn).set_page_cache(conn, cache_kib)
        if batch.drop_key_index:
            drop_key_index(conn)
        writer = writer_for(conn)
        writer.insert_new_states(batch.new_states)
        add_moves(conn, game_id, *batch.edges, expanded=True)
        writer.mark_expanded(game_id, batch.runs)
        writer.update_values(batch.values)
        add_counts(conn, game_id, batch.tallies)
        update_build(conn, build_id, "running", batch.counts)
    if batch.create_key_index:
        with writing(engine) as conn:
            ensure_key_index(conn)


#: What a writer thread calls, inside its transaction, before it takes a lock another batch
#: may hold and commits: it waits for the batch before to commit, and raises if that failed.
Turn = Callable[[], None]


class BatchWriter(Generic[B]):
    """Writer threads that commit batch k (through `commit`) while batch k + 1 is generated.

    With one writer (SQLite takes one), batch k + 1 is handed over only once batch k has
    committed. With several (PostgreSQL takes rows on several connections at once, and its
    server spreads their work over the cores), up to `writers` batches are written at once,
    and each commits in turn: `commit` gets the batch and its `Turn`, which it calls after
    writing its rows and before anything that locks what another batch writes (a game's
    counts, the build's row) and before committing. Either way the database never holds a
    batch whose predecessor failed, and `progress` reports committed batches only (with the
    seconds since `started`). The drivers leave the GIL while the database works.

    Use as a context manager; `finish` waits for every batch handed over.
    """

    def __init__(
        self,
        commit: Callable[[B, Turn], None],
        progress: Callable[[BuildProgress], None] | None,
        started: float,
        writers: int = 1,
    ) -> None:
        self.commit, self.progress, self.started = commit, progress, started
        self.writers = max(1, writers)
        self.thread = ThreadPoolExecutor(self.writers, thread_name_prefix="explorer-writer")
        self.flight: deque[tuple[Future[None], B]] = deque()

    def __enter__(self) -> BatchWriter[B]:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.thread.shutdown(wait=True)

    def submit(self, batch: B) -> None:
        """Hand a batch to a writer thread once fewer than `writers` are being written."""
        while len(self.flight) >= self.writers:
            self._retire()
        before = self.flight[-1][0] if self.flight else None
        turn: Turn = before.result if before is not None else _first
        self.flight.append((self.thread.submit(self.commit, batch, turn), batch))

    def _retire(self) -> None:
        """Wait for the oldest batch to commit (its error is raised here), then report."""
        future, batch = self.flight.popleft()
        future.result()
        if self.progress is not None:
            self.progress(replace(batch.progress, seconds=time.perf_counter() - self.started))

    def finish(self) -> None:
        """Wait for every batch handed over to commit, reporting each."""
        while self.flight:
            self._retire()


def _first() -> None:
    """The turn of a batch with none before it: nothing to wait for."""
