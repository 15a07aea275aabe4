"""The pruned search on several cores (``--workers``), split where it splits: a position of
several independent components has each valued in a worker process; a position of one
component is valued by its first moves, each worker asking of one move "is it k?" (the
question the one-process search asks of it, `explorer.analysis.parts.pruned_sum_is`).

Round k asks every move still pending whether it is worth k. A move that is, is worth k and
nothing else: it leaves the pending moves. A round in which no move is worth k ends the
search (the value is k, the mex); otherwise the next round asks k + 1. Once one move is found
worth k, the questions of the round not yet started are dropped. So the value is the one the
one-process search finds, whatever the order the workers answer in.

Each worker keeps its own search and tables for the run (a fork server's child: numba loaded
once) and sends back the parts it valued, which go to the part table (and so to ``--db``, as
they come: a run killed resumes from them). The workers share ``--memory`` equally.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from itertools import islice
from typing import Any

from explorer.analysis.parts import (
    PART_TABLE,
    PartTable,
    PrunedAnswer,
    pruned_sum_is,
    pruned_value,
)
from explorer.errors import StoredPartError
from explorer.games.base import Components, Game, Position

#: A position's components as plain data for a worker: (family, keys) for each rule set.
Shape = tuple[tuple[str, tuple[Hashable, ...]], ...]
#: What a worker sends back: its answer, the parts it valued since its last answer (family,
#: label, value) and the shortcuts its search took.
Reply = tuple[int, list[tuple[str, str, int]], set[str]]
#: Values a worker is told with a task: (family, label, value).
Known = tuple[tuple[str, str, int], ...]

# -- in a worker ------------------------------------------------------------------------------
#: The worker's game (built from its spec), and its rule sets by family.
_GAME: list[Game[Any]] = []
_RULES: dict[str, Any] = {}
#: How many values of each family the worker has sent back.
_SENT: dict[str, int] = {}


def _start_worker(
    coordinator: int,
    spec: str,
    position: str,
    stored: dict[str, dict[str, int]],
    unchecked: dict[str, set[str]],
    max_memory_mb: int | None,
) -> None:
    """A worker's initializer: the rule sets of the position, the part values its
    coordinator holds (those read from a store still to be checked), its memory share."""
    from explorer.games import load_game
    from explorer.generation.tiers import end_with

    end_with(coordinator)
    _GAME.append(load_game(spec))
    _position_components(position)
    for family, values in stored.items():
        PART_TABLE.family(family).update(values)
        PART_TABLE.unchecked.setdefault(family, set()).update(unchecked.get(family, ()))
        _SENT[family] = len(values)
    PART_TABLE.max_memory_mb = max_memory_mb


def _position_components(text: str) -> Components:
    """The components of a position of the worker's game, each rule set the one the worker
    keeps for its family (so that its search, and its tables, serve every task)."""
    game = _GAME[0]
    components = game.search_components(game.parse(text))
    assert components is not None
    return Components(
        tuple((_RULES.setdefault(rules.family, rules), keys) for rules, keys in components.groups)
    )


def _components(shape: Shape) -> Components:
    return Components(tuple((_RULES[family], keys) for family, keys in shape))


def _reply(answer: int) -> Reply:
    """An answer, with the (family, label, value) the worker found since it last sent them (a
    family's dict keeps its labels in the order they came) and its shortcuts."""
    found = []
    for family, values in PART_TABLE.values.items():
        start = _SENT.get(family, 0)
        found += [(family, label, value) for label, value in islice(values.items(), start, None)]
        _SENT[family] = len(values)
    return answer, found, {shortcut for rules in _RULES.values() for shortcut in rules.used}


def _learn(known: Known) -> None:
    """Values other workers found that a task may need (the root's components): without
    them, asking "is it k?" of a component another worker valued can cost far more than its
    value did."""
    for family, label, value in known:
        values = PART_TABLE.family(family)
        if label not in values:
            values[label] = value
            _SENT[family] = _SENT.get(family, 0) + 1  # not sent back


def _value_task(shape: Shape, known: Known) -> Reply:
    """The value of a sum of components."""
    _learn(known)
    return _reply(pruned_value(_components(shape)).value)


def _is_task(shape: Shape | str, target: int, known: Known) -> Reply:
    """Whether a sum of components (or a position's, given as its text) is worth `target` (1)
    or not (0)."""
    _learn(known)
    components = _position_components(shape) if isinstance(shape, str) else _components(shape)
    return _reply(int(pruned_sum_is(components, target)))


# -- in the coordinator -----------------------------------------------------------------------
class WorkerSearch:
    """A pool of workers searching one position's components, their values merged into the
    part table as they come."""

    def __init__(self, pool: ProcessPoolExecutor, table: PartTable) -> None:
        self.pool = pool
        self.table = table
        self.asked = self.answered = 0
        #: Values every task is told (those of the root's components, once found).
        self.known: Known = ()
        #: The shortcuts the workers' searches took.
        self.shortcuts: set[str] = set()
        self._saved = time.monotonic()

    def take(self, reply: Reply) -> int:
        """A worker's answer, its values kept (and stored now and then, with ``--db``)."""
        answer, found, used = reply
        self.shortcuts |= used
        for family, label, value in found:
            self.table.family(family)[label] = value
        self.table.computed += len(found)
        self.answered += 1
        now = time.monotonic()
        if now - self._saved > 2.0:
            self._saved = now
            if self.table.checkpoint is not None:
                self.table.checkpoint()
            if self.table.progress is not None:
                parts = sum(len(v) for v in self.table.values.values())
                self.table.progress(
                    f"{parts:,} parts valued ({self.answered:,} of {self.asked:,} questions "
                    "answered by the workers)"
                )
        return answer

    def submit(self, task: Callable[..., Reply], *args: object) -> Future[Reply]:
        self.asked += 1
        return self.pool.submit(task, *args, self.known)

    def values(self, pieces: list[tuple[Any, Hashable]]) -> list[int]:
        """The values of components, given as (rules, key), one worker each (and told to
        every later task)."""
        futures = [self.submit(_value_task, ((rules.family, (key,)),)) for rules, key in pieces]
        found = [self.take(future.result()) for future in futures]
        for (rules, key), value in zip(pieces, found, strict=True):
            self.known += ((rules.family, rules.label(key), value),)
        return found

    def worth(self, shapes: list[Shape] | list[str], target: int, *, all_of_them: bool) -> set[int]:
        """The indices of `shapes` worth `target`: all of them, or (`all_of_them` false) at
        least one when one is (the questions not started after the first yes are dropped)."""
        futures = {self.submit(_is_task, shape, target): i for i, shape in enumerate(shapes)}
        found: set[int] = set()
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                if not future.cancelled() and self.take(future.result()):
                    found.add(futures[future])
            if found and not all_of_them:
                for future in pending:
                    future.cancel()
        return found


def _shape(components: Components) -> Shape:
    return tuple((rules.family, tuple(keys)) for rules, keys in components.groups)


@contextmanager
def worker_search(
    game: Game[Any], position: Position, workers: int, table: PartTable | None = None
) -> Iterator[WorkerSearch]:
    """A pool of `workers` processes for the components of `position` (of `game`), ended
    when the block ends: a question still running (after an error, or one whose answer was
    not needed) is not waited for."""
    table = PART_TABLE if table is None else table
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(
        ["explorer.analysis.parallel_search", "explorer.solver.pruned_kernel"]
    )
    share = None if table.max_memory_mb is None else max(1, table.max_memory_mb // workers)
    stored = {family: dict(values) for family, values in table.values.items()}
    unchecked = {family: set(labels) for family, labels in table.unchecked.items()}
    initargs = (os.getpid(), game.spec, game.format(position), stored, unchecked, share)
    pool = ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=initargs
    )
    try:
        yield WorkerSearch(pool, table)
    finally:
        processes = list(pool._processes.values())  # the pool offers no way to end them
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
            process.join()


def parallel_value(components: Components, search: WorkerSearch) -> PrunedAnswer:
    """`explorer.analysis.parts.pruned_value` of a position, its work split among workers:
    its independent components each valued by one, or its one component by its first moves
    (see the module's docstring).

    Examples
    --------
    >>> from explorer import load_game
    >>> cram = load_game("cram")
    >>> board = cram.parse("4x5")
    >>> with worker_search(cram, board, 2) as search:
    ...     parallel_value(cram.search_components(board), search).value  # Beling's table: *2
    2
    """
    pieces = [(rules, key) for rules, keys in components.groups for key in keys]
    families = [rules.family for rules, _ in components.groups]
    for rules, _ in components.groups:
        rules.used.clear()
    if len(pieces) != 1:
        value = 0
        for part in search.values(pieces):
            value ^= part
    else:
        value = _root_value(*pieces[0], search)
    return PrunedAnswer(
        value=value,
        family=", ".join(families),
        shortcuts=tuple(sorted(search.shortcuts.union(*(r.used for r, _ in components.groups)))),
        searched=search.answered,
        parts=sum(len(search.table.family(f)) for f in families),
    )


def _root_value(rules: Any, key: Hashable, search: WorkerSearch) -> int:
    """The value of one component, round by round over its moves (the module's docstring)."""
    label = rules.label(key)
    values = search.table.family(rules.family)
    unchecked = label in search.table.unchecked.get(rules.family, ())
    known: int | None = values.get(label) if not unchecked else None  # a stored one: checked
    if known is None:
        known = rules.known(key)
    if known is not None:
        return known
    # easiest first, as the one-process search tries them: an early yes drops the rest
    moves = sorted(rules.moves(key), key=lambda move: sum(rules.size(k) ** 2 for k in move))
    pending: list[Shape] = [((rules.family, move),) if move else () for move in moves]
    target: int = rules.lower_bound(key)
    while True:
        reached = {i for i, shape in enumerate(pending) if shape == () and target == 0}
        asked = [(i, shape) for i, shape in enumerate(pending) if shape != ()]
        if not reached:
            found = search.worth([shape for _, shape in asked], target, all_of_them=False)
            reached = {asked[i][0] for i in found}
            for i in found:  # a move worth `target` of one component: that one's value
                ((_, keys),) = asked[i][1]
                if len(keys) == 1:
                    search.known += ((rules.family, rules.label(keys[0]), target),)
        if not reached:
            if unchecked and values[label] != target:
                raise StoredPartError.of(rules.family, label, values[label], target)
            search.table.unchecked.get(rules.family, set()).discard(label)
            values[label] = target
            return target
        pending = [shape for i, shape in enumerate(pending) if i not in reached]
        target += 1


def parallel_moves_to_value(
    game: Game[Any], position: Position, target: int, search: WorkerSearch
) -> list[Position] | None:
    """`explorer.analysis.parts.pruned_moves_to_value`, each distinct move asked by a
    worker."""
    successors = list(dict.fromkeys(game.successors(position)))
    # moves equal under the position's symmetries leave equal components: asked once, by the
    # text of the first (a worker reads it as the game's positions)
    shapes: dict[Shape, str] = {}
    of_move = []
    for successor in successors:
        components = game.search_components(successor)
        if components is None:
            return None
        shape = _shape(components)
        shapes.setdefault(shape, game.format(successor))
        of_move.append(shape)
    distinct = list(shapes)
    asked = [shapes[shape] for shape in distinct]
    worth = {distinct[i] for i in search.worth(asked, target, all_of_them=True)}
    return [s for s, shape in zip(successors, of_move, strict=True) if shape in worth]
