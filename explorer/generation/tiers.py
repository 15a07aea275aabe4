"""Expanding a build's tiers in worker processes: the task a coordinator hands to an executor.

A game with tiers (`explorer.games.base.Game.tier`: a number no move raises) is built tier by
tier, highest first: once every higher tier is expanded, a tier holds every state it ever will,
and its states can be expanded in any order, by any number of processes. The coordinator
(`explorer.build.tier_manager`) cuts each tier into slices of at most `SLICE_STATES` states and
submits one `TierTask` a slice to a `concurrent.futures.Executor`: a local
``ProcessPoolExecutor``, or a distributed engine's executor on a cluster.

`expand_tier` is the whole contract. It is a pure function of its task (the game named by its
spec, the states as their canonical keys), reads and writes nothing else, and its result is
deterministic, so a task whose worker died is simply run again, anywhere. Tasks and results
are small picklable values: keys, tier numbers and int32 numpy arrays.
"""

from __future__ import annotations

import os
import select
import threading
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import repeat
from typing import Any

import numpy as np

from explorer.errors import RuleError
from explorer.games.base import Game
from explorer.generation.expansion import MAX_STATE_MOVES, HeapIndex, too_many_moves

#: States one task expands at most: large enough that a task's overhead (pickling its keys,
#: starting it) is small beside its work, small enough to spread a tier over the workers.
SLICE_STATES = 20_000


@dataclass(frozen=True)
class TierTask:
    """One slice of one tier to expand.

    Attributes
    ----------
    spec : str
        The game's canonical spec (`explorer.games.load_game` loads it in the worker).
    tier : int
        The tier of every state of the slice.
    part : int
        The slice's number in its tier (slices are taken in this order).
    keys : tuple of str
        The states, as ``game.format`` writes them (none when `rows` are given).
    loops : bool
        Whether a move may keep the tier (a game whose play may loop); else every move must
        lower it.
    rows : numpy array or None
        The states as rows of heaps (`explorer.generation.expansion.HeapIndex`: sorted, zeros
        first), for a heap game whose moves never split a heap: the expansion then gives the
        states it reaches as rows too.
    """

    spec: str
    tier: int
    part: int
    keys: tuple[str, ...]
    loops: bool = False
    rows: np.ndarray | None = field(default=None, compare=False)


@dataclass(frozen=True)
class TierExpansion:
    """What a `TierTask` found: the moves of its states, and the distinct states they reach.

    State i of the task has ``counts[i]`` moves, the next ``counts[i]`` entries of `targets`
    (each state's moves in the order ``game.successors`` lists them, without repeats); a target
    is an index into `keys`, the distinct states reached, in the order first reached, whose
    tiers are `tiers`. A task given as `TierTask.rows` gets the states reached as `rows`
    instead of `keys`.
    """

    tier: int
    part: int
    counts: np.ndarray
    targets: np.ndarray
    keys: list[str]
    tiers: np.ndarray
    rows: np.ndarray | None = None

    @property
    def moves(self) -> int:
        return len(self.targets)


#: The real process exit, kept before a rule's guard may swap ``os._exit`` for a while.
_EXIT = os._exit


def end_with(coordinator: int) -> None:
    """A local worker's initializer: end this worker as soon as the coordinator that started
    it is gone (killed with kill -9, say). A process pool's workers never notice it, and would
    wait for tasks for ever, keeping their fork server alive too."""

    def watch() -> None:
        try:
            handle = os.pidfd_open(coordinator)
        except ProcessLookupError:
            _EXIT(1)
        except OSError:  # no pidfd (an old kernel): look now and then
            while True:
                time.sleep(0.5)
                try:
                    os.kill(coordinator, 0)
                except ProcessLookupError:
                    _EXIT(1)
                except PermissionError:
                    pass
        select.select([handle], [], [])  # readable once the coordinator has ended
        _EXIT(1)

    threading.Thread(target=watch, name="explorer-coordinator-watch", daemon=True).start()


@lru_cache(maxsize=8)
def worker_game(spec: str) -> Game[Any]:
    """The game of a spec, loaded once per worker process."""
    from explorer.games import load_game

    return load_game(spec)


def expand_tier(task: TierTask) -> TierExpansion:
    """Expand the states of one slice of a tier (see the module's notes).

    Raises
    ------
    RuleError
        When a move raises the tier, keeps it in a game whose play may not loop, or reaches a
        position without a tier: the game's `tier` is wrong.
    GraphTooLargeError
        When a state has more than `MAX_STATE_MOVES` moves.

    Examples
    --------
    >>> found = expand_tier(TierTask("subtraction:1,2", 3, 0, ("1,2",)))
    >>> found.counts.tolist(), found.targets.tolist(), found.keys, found.tiers.tolist()
    ([3], [0, 1, 2], ['2', '1,1', '1'], [2, 2, 1])
    """
    game = worker_game(task.spec)
    found = _expand_heaps(game, task)
    if found is not None:
        return found
    if task.rows is not None:  # a move the heap path refused: the general way names it
        own = heap_texts(game, task.rows)
        found = expand_tier(replace(task, keys=tuple(own), rows=None))
        width = task.rows.shape[1]
        rows = heap_rows(tuple(found.keys), width)
        assert rows is not None, "a heap game's keys are rows of heaps"
        return replace(found, keys=[], rows=rows)
    positions = list(map(game.parse, task.keys))
    index: dict[Any, int] = {}
    number = index.setdefault
    counts = np.zeros(len(positions), dtype=np.int32)
    targets: list[int] = []
    for i, moves in enumerate(game.successor_lists(positions, MAX_STATE_MOVES)):
        if len(moves) > MAX_STATE_MOVES:
            raise too_many_moves(game, positions[i])
        distinct = dict.fromkeys(moves)
        # a new position gets the next index, the dict's length as it grows (in C, by map)
        targets.extend(map(number, distinct, map(len, repeat(index))))
        counts[i] = len(distinct)
    reached = list(index)
    tiers = [game.tier(position) for position in reached]
    _check_tiers(game, task, positions, counts, targets, reached, tiers)
    return TierExpansion(
        task.tier,
        task.part,
        counts,
        np.array(targets, dtype=np.int32),
        game.format_many(reached),
        np.array(tiers, dtype=np.int64),
    )


def _expand_heaps(game: Game[Any], task: TierTask) -> TierExpansion | None:
    """`expand_tier` with numpy, for a heap game whose moves never split a heap (rows of heaps
    read from the keys at once, expanded by `HeapIndex`, the index of one-process builds);
    None for other games, and when a move does not lower the tier (the general way then
    names it)."""
    heaps = game.heap_rules()
    if heaps is None or heaps.splits or not heaps.plain_keys:
        return None
    rows = task.rows if task.rows is not None else heap_rows(task.keys) if task.keys else None
    if rows is None or not len(rows):
        return None
    size, width = rows.shape
    # codes kept in sorted runs, not a lookup table: a slice touches a page of the table per
    # state it reaches, megabytes a task for a few thousand states
    index = HeapIndex.of_shape(game, width, 1 + int(rows.max()), table_bytes=0)
    if index is None:
        return None
    index.load_rows(rows)
    step = index.expand(np.arange(size, dtype=np.int64), None, 0, NOTHING_REACHED)
    if step.done < size or (len(step.dst) and int(step.dst.min()) < size):
        return None  # a move within the slice: its tier is kept
    rows = index.rows[size : index.size]
    weights = np.array(heaps.heap_weights(index.base - 1), dtype=np.int64)
    tiers = weights[rows].sum(axis=1)
    if len(tiers) and int(tiers.max()) >= task.tier:
        return None
    counts = np.bincount(step.src, minlength=size).astype(np.int32)
    targets = (step.dst - size).astype(np.int32)
    if task.rows is None:
        keys = index.keys(range(size, index.size))
        return TierExpansion(task.tier, task.part, counts, targets, keys, tiers)
    return TierExpansion(task.tier, task.part, counts, targets, [], tiers, rows)


def heap_texts(game: Game[Any], rows: np.ndarray) -> list[str]:
    """The canonical texts of rows of heaps (sorted, zeros first) of a heap game whose moves
    never split a heap."""
    if not len(rows):
        return []
    index = HeapIndex.of_shape(game, rows.shape[1], 1 + int(rows.max()), table_bytes=0)
    assert index is not None, "rows of heaps come from a heap game's index"
    index.load_rows(rows)
    return index.keys(range(len(rows)))


def heap_rows(keys: tuple[str, ...], width: int = 0) -> np.ndarray | None:
    """Canonical heap keys (``"3,4,5"``, ``"0"``) as rows of heaps, zeros first, read by one
    split of their joined text, at least `width` heaps wide; None when a key is not such a
    text."""
    if not keys:
        return np.zeros((0, width), dtype=np.int64)
    try:
        flat = np.array(",".join(keys).split(","), dtype=np.int64)
    except ValueError:
        return None
    lengths = np.array([key.count(",") + 1 for key in keys], dtype=np.int64)
    width = max(width, int(lengths.max()))
    rows = np.zeros((len(keys), width), dtype=np.int64)
    # each key's heaps fill the right end of its row (sorted ascending, zeros first)
    ends = np.cumsum(lengths)
    row_of = np.repeat(np.arange(len(keys)), lengths)
    column = (
        np.arange(len(flat))
        - np.repeat(ends - lengths, lengths)
        + np.repeat(width - lengths, lengths)
    )
    rows[row_of, column] = flat
    if (flat < 0).any() or (np.diff(rows, axis=1) < 0).any():
        return None
    return rows


#: No state of a task is stored before it (what `HeapIndex.expand` asks of a build).
NOTHING_REACHED = np.zeros(0, dtype=bool)


def _check_tiers(
    game: Game[Any],
    task: TierTask,
    positions: list[Any],
    counts: np.ndarray,
    targets: list[int],
    reached: list[Any],
    tiers: list[int | None],
) -> None:
    """Refuse a move that raises the tier (or keeps it, when play may not loop)."""
    top, loops = task.tier, task.loops
    bad = [
        at
        for at, tier in enumerate(tiers)
        if tier is None or tier > top or (tier == top and not loops)
    ]
    if not bad:
        return
    first = bad[0]
    state = int(np.searchsorted(np.cumsum(counts), targets.index(first), side="right"))
    kept = "keeps" if tiers[first] == top else "raises"
    raise RuleError(
        f"{game.spec}: the move {game.format(positions[state])} -> {game.format(reached[first])} "
        f"{kept} the tier ({top} -> {tiers[first]}): a tier must be a number every move "
        "lowers (or keeps, in a game whose play may loop); fix the game's tier, or build "
        "with --workers 1"
    )
