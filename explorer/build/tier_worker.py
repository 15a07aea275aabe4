"""The tier worker: expanding one tier's slices on worker processes (`Pool`, which runs
`explorer.generation.tiers.expand_tier` and starts a pool again when a worker dies) and solving
one tier from its moves (`solve_tier`). Which tier comes next, and what is written when, is the
tier manager's (`explorer.build.tier_manager`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

import numpy as np

from explorer.build.arrays import Growable
from explorer.build.scratch import TierMoves
from explorer.errors import WorkerPoolError
from explorer.generation.tiers import TierExpansion, TierTask, end_with, expand_tier
from explorer.solver.arrays import level_values

T = TypeVar("T")

#: Times a tier's tasks are submitted again after the worker pool broke (a worker killed).
RETRIES = 3


class Pool:
    """The executor a build submits tier tasks to: one given (a distributed engine's, which
    runs a lost task again itself), or a local process pool this build owns and starts again
    when a worker dies (its tasks are then submitted again: they are pure)."""

    def __init__(self, workers: int, executor: Executor | None) -> None:
        self.workers = workers
        self.given = executor
        self.executor = executor  # a local pool starts with the first tier of several tasks

    def _start(self) -> Executor:
        import multiprocessing

        context: BaseContext
        if "forkserver" not in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context()
        else:
            # workers forked from a server that has imported the task's modules: they share
            # those pages, and start at once
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["explorer.generation.tiers"])
        return ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=end_with, initargs=(os.getpid(),)
        )

    def run(self, tasks: list[TierTask]) -> Iterator[TierExpansion]:
        """The tasks' results, in order (one task at a time in this process when only one, or
        one worker)."""
        if (len(tasks) == 1 or self.workers == 1) and self.given is None:
            yield from map(expand_tier, tasks)
            return
        for attempt in range(RETRIES + 1):
            if self.executor is None:
                self.executor = self._start()
            executor = self.executor
            try:  # a worker that died idle broke the pool already: submitting says so
                futures: list[Future[TierExpansion]] = [
                    executor.submit(expand_tier, task) for task in tasks
                ]
                results = [future.result() for future in futures]
            except BrokenProcessPool as error:
                if self.given is not None:
                    raise
                executor.shutdown(wait=False, cancel_futures=True)
                self.executor = None
                if attempt == RETRIES:
                    raise WorkerPoolError(
                        f"the build's worker pool broke {RETRIES + 1} times in a row (a worker "
                        "killed, or out of memory): what was written is kept; run the same "
                        "command again to continue (with fewer --workers if memory is short)"
                    ) from error
                continue
            yield from results
            return

    def submit(self, task: Callable[..., T], *args: Any) -> Future[T]:
        """Run ``task(*args)`` on a worker: on the pool (started again if a worker died)."""
        for attempt in range(2):
            if self.executor is None:
                self.executor = self._start()
            try:
                return self.executor.submit(task, *args)
            except BrokenProcessPool:
                if self.given is not None or attempt:
                    raise
                self.executor.shutdown(wait=False, cancel_futures=True)
                self.executor = None
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.given is None and self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)


def solve_tier(
    moves: TierMoves, grundy: Growable, remote: Growable, height: Growable, terminal: int
) -> None:
    """Give every state of a tier its values from its moves, whose ends (in lower tiers) are
    solved: one call of the solver's kernel for the whole tier."""
    dst = moves.targets
    g, r, h = level_values(
        moves.counts.astype(np.int64),
        grundy.data[dst].astype(np.int64),
        remote.data[dst].astype(np.int64),
        height.data[dst].astype(np.int64),
        terminal=terminal,
    )
    grundy.data[moves.ids] = g
    remote.data[moves.ids] = r
    height.data[moves.ids] = h
