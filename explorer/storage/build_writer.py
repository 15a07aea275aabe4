"""A build's writes: one batch's rows (`Batch`), written in one transaction by one writer thread
while the next batch is generated (`BatchWriter`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from types import TracebackType
from typing import Generic, Protocol, TypeVar

from sqlalchemy.engine import Engine

from explorer.storage.bulk import EdgePayload, NewStates, ValueColumns, writer_for
from explorer.storage.counts import add_counts
from explorer.storage.engine import writing
from explorer.storage.records import BuildCounts, drop_key_index, ensure_key_index, update_build


@dataclass(frozen=True)
class BuildProgress:
    """Where a running build is, reported after every committed batch; a build in tiers
    (`explorer.storage.tiered`) also gives its tier steps done (each tier is expanded, then
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
    edges: EdgePayload
    runs: list[tuple[int, int]]
    values: ValueColumns
    counts: BuildCounts
    progress: BuildProgress
    #: What the batch adds to the game's counts (see `explorer.storage.counts`).
    tallies: list[tuple[str, str, int]]
    #: Drop the key index before writing (see `explorer.storage.build_plans.KeyIndexPlan`).
    drop_key_index: bool = False
    #: Create it again after writing (the last batch of a large build that dropped it).
    create_key_index: bool = False


def commit_batch(engine: Engine, game_id: int, build_id: int, batch: Batch, cache_kib: int) -> None:
    """Write one batch in one transaction: new states, edges, expanded flags, values, counts
    and the build row's counters (SQLite's page cache set to `cache_kib` first); then create
    the key index if the batch says so."""
    with writing(engine) as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql(f"PRAGMA cache_size = -{cache_kib}")
        if batch.drop_key_index:
            drop_key_index(conn)
        writer = writer_for(conn)
        writer.insert_new_states(batch.new_states)
        writer.write_edges(game_id, batch.edges)
        writer.mark_expanded(game_id, batch.runs)
        writer.update_values(batch.values)
        add_counts(conn, game_id, batch.tallies)
        update_build(conn, build_id, "running", batch.counts)
    if batch.create_key_index:
        with writing(engine) as conn:
            ensure_key_index(conn)


class BatchWriter(Generic[B]):
    """One writer thread that commits batch k (through `commit`) while batch k + 1 is
    generated. Batch k + 1 is handed over only once batch k has committed, so the database
    never holds a batch whose predecessor failed, and `progress` reports committed batches
    only (with the seconds since `started`). The drivers leave the GIL while the database
    works.

    Use as a context manager; `finish` waits for the last batch.
    """

    def __init__(
        self,
        commit: Callable[[B], None],
        progress: Callable[[BuildProgress], None] | None,
        started: float,
    ) -> None:
        self.commit, self.progress, self.started = commit, progress, started
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="explorer-writer")
        self.committing: tuple[Future[None], B] | None = None

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
        """Hand a batch to the writer thread once the one it is writing has committed."""
        self.finish()
        self.committing = self.thread.submit(self.commit, batch), batch

    def finish(self) -> None:
        """Wait for the batch being written to commit (its error is raised here), then report
        progress."""
        if self.committing is None:
            return
        (future, batch), self.committing = self.committing, None
        future.result()
        if self.progress is not None:
            self.progress(replace(batch.progress, seconds=time.perf_counter() - self.started))
