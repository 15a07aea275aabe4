"""A build's graph in memory: growable numpy arrays indexed by state id, the moves in CSR form,
the moves waiting for their end's value, and the frontier of states still to expand.
"""

from __future__ import annotations

import heapq
from collections import deque

import numpy as np

from explorer.adjacency import Adjacency, in_levels, ranges
from explorer.errors import GraphTooLargeError
from explorer.generation.sorted_runs import Run, merged, push_run
from explorer.solver.arrays import Values

UNKNOWN = -1
#: States and moves a build holds at most: ids, counts and values are kept in 32-bit arrays
#: (half the memory of 64-bit ones), edge offsets in 64-bit ones. Far beyond any memory budget
#: (at 256 bytes a state, 2**31 states take 512 GiB), but checked all the same.
ID_LIMIT = 2**31 - 1
#: No state ids.
NO_IDS = np.empty(0, dtype=np.int64)
NO_IDS.flags.writeable = False


class Frontier:
    """States waiting to be expanded, always taken smallest id first.

    New states get ids above every stored one, so they queue in order; stored states reached
    again (from an earlier, unfinished build) and states put back go into a small heap.
    """

    def __init__(self) -> None:
        self.fresh: deque[int] = deque()
        self.stored: list[int] = []

    def __len__(self) -> int:
        return len(self.fresh) + len(self.stored)

    def push_stored(self, ids: np.ndarray) -> None:
        for i in ids.tolist():
            heapq.heappush(self.stored, i)

    def pop_many(self, most: int) -> np.ndarray:
        """Up to `most` states, smallest ids first."""
        fresh, stored = self.fresh, self.stored
        if not stored:
            taken = [fresh.popleft() for _ in range(min(most, len(fresh)))]
        else:
            taken = []
            while len(taken) < most and (fresh or stored):
                if stored and (not fresh or stored[0] < fresh[0]):
                    taken.append(heapq.heappop(stored))
                else:
                    taken.append(fresh.popleft())
        return np.array(taken, dtype=np.int64)


class Growable:
    """A numpy array with amortised appends and id-indexed growth."""

    def __init__(self, dtype: type, fill: int) -> None:
        self.data: np.ndarray = np.full(1024, fill, dtype=dtype)
        self.fill = fill
        self.size = 0

    def reserve(self, size: int) -> None:
        if size > len(self.data):
            grown = np.full(max(size, 2 * len(self.data)), self.fill, dtype=self.data.dtype)
            grown[: len(self.data)] = self.data
            self.data = grown
        self.size = max(self.size, size)

    def extend(self, values: np.ndarray) -> None:
        start = self.size
        self.reserve(start + len(values))
        self.data[start : start + len(values)] = values


def counts_of(src: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """How many times each of `ids` occurs in `src` (whose values are all among `ids`),
    counted over the range of `ids`, not over every state id.

    Examples
    --------
    >>> counts_of(np.array([7, 5, 7]), np.array([5, 6, 7])).tolist()
    [1, 0, 2]
    """
    if not ids.size or not src.size:
        return np.zeros(len(ids), dtype=np.int64)
    lo = int(ids.min())
    counts = np.bincount(src - lo, minlength=int(ids.max()) - lo + 1)
    found: np.ndarray = counts[ids - lo]
    return found


class Waiting:
    """Edges p -> q whose end q has no value yet, found by q: who to tell when q is solved.

    Kept as runs sorted by q, one per batch. Up to `MERGE_ALL_EDGES` edges, all the runs are
    merged into one when there are more than `MAX_BLOCKS`; beyond, sorting every waiting edge
    again every few batches costs time that grows with the square of the edges (a 10M-state
    build, whose 60M edges all wait until its last batch, took 142 s in process so, 114 s
    merging as below with the last batch's key index overlapped), so runs merge like a binary
    counter instead (`explorer.generation.sorted_runs.push_run`). Below that, merging all at once
    is cheap and holds less memory: a 1M-state build merged like a binary counter peaked
    120 MB higher (memory freed by the many merges stayed with the process). A merge drops the
    edges whose end was solved meanwhile.
    """

    MAX_BLOCKS = 12
    MERGE_ALL_EDGES = 16_000_000

    def __init__(self) -> None:
        self.blocks: list[Run] = []

    def add(self, dst: np.ndarray, src: np.ndarray, grundy: np.ndarray) -> None:
        """Add the edges src[i] -> dst[i]; `grundy` (by id) tells which ends are solved now."""
        if not dst.size:
            return
        order = np.argsort(dst, kind="stable")
        run = (dst[order].astype(np.int32), src[order].astype(np.int32))
        waiting = sum(len(block[0]) for block in self.blocks) + len(dst)

        def unsolved(ends: np.ndarray) -> np.ndarray:
            kept: np.ndarray = grundy[ends] == UNKNOWN
            return kept

        if waiting > self.MERGE_ALL_EDGES:
            push_run(self.blocks, run, unsolved)
            return
        self.blocks.append(run)
        if len(self.blocks) > self.MAX_BLOCKS:
            self.blocks = [merged(self.blocks, unsolved)]

    def sources(self, solved_now: np.ndarray) -> np.ndarray:
        """The p of every waiting edge p -> q with q in `solved_now` (sorted ids)."""
        found = []
        for dst, src in self.blocks:
            # ids of the runs' own type: searchsorted would copy a whole run to compare others
            wanted = solved_now.astype(dst.dtype, copy=False)
            lo = np.searchsorted(dst, wanted, "left")
            hi = np.searchsorted(dst, wanted, "right")
            found.append(src[ranges(lo, hi - lo)])
        return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


class BuildArrays:
    """Everything a build knows of its states, indexed by state id: stored or new (`present`),
    `depth`, `expanded`, values (`grundy`, `remote`, `height`; `UNKNOWN` until solved), the
    successors still unsolved (`pending`), reached by this build (`reached`); the moves in CSR
    form (`out_start`, `out_count`, `edge_dst`) and the moves `waiting` for their end's value.

    32-bit but for the edge offsets (see `ID_LIMIT`).
    """

    def __init__(self) -> None:
        self.present = Growable(np.bool_, 0)
        self.depth = Growable(np.int32, 0)
        self.expanded = Growable(np.bool_, 0)
        self.grundy = Growable(np.int32, UNKNOWN)
        self.remote = Growable(np.int32, UNKNOWN)
        self.height = Growable(np.int32, UNKNOWN)
        self.pending = Growable(np.int32, 0)
        self.reached = Growable(np.bool_, 0)
        self.out_start = Growable(np.int64, 0)
        self.out_count = Growable(np.int32, 0)
        self.edge_dst = Growable(np.int32, 0)
        self.waiting = Waiting()

    def reserve(self, size: int) -> None:
        """Room for the states with ids below `size`."""
        if size <= len(self.present.data):
            return
        if size > ID_LIMIT:
            raise GraphTooLargeError(
                f"the build holds more than {ID_LIMIT:,} states, the most one build can: build "
                "part of it with --max-states N",
                ID_LIMIT,
            )
        size = max(size, 2 * len(self.present.data))
        for array in (
            self.present,
            self.depth,
            self.expanded,
            self.grundy,
            self.remote,
            self.height,
            self.pending,
            self.reached,
            self.out_start,
            self.out_count,
        ):
            array.reserve(size)

    def load(
        self, ids: np.ndarray, columns: list[np.ndarray], src: np.ndarray, dst: np.ndarray
    ) -> int:
        """Take the stored states `ids` (ascending) with their depth, expanded flag, value,
        remoteness and height `columns`, and the stored moves; return the first id after them.
        States expanded but unsolved wait for their unsolved successors."""
        depth, expanded, grundy, remote, height = columns
        size = int(ids[-1]) + 1
        self.reserve(size)
        self.present.data[ids] = True
        self.depth.data[ids] = depth
        self.expanded.data[ids] = expanded.astype(bool)
        self.grundy.data[ids] = grundy
        self.remote.data[ids] = remote
        self.height.data[ids] = height
        succ = Adjacency.from_edges(size, src, dst)
        self.edge_dst.extend(succ.target)
        self.out_start.data[:size] = succ.start
        self.out_count.data[:size] = succ.degree
        unsolved = self.grundy.data[:size] == UNKNOWN
        waits = unsolved[src] & unsolved[dst]
        self.pending.data[:size] = np.bincount(src[waits], minlength=size)
        self.waiting.add(dst[waits], src[waits], self.grundy.data)
        return size

    def add_new(self, first: int, end: int, src: np.ndarray, dst: np.ndarray) -> None:
        """Record the states numbered `first` to `end` - 1, found by the moves src -> dst: a
        new state is one deeper than the state that found it first.

        New states are numbered in the order the moves first reach them (the indexes of
        `explorer.generation.expansion` promise it), so a state is first reached where its id
        passes every id before it: found in one pass, not by sorting the moves.
        """
        self.reserve(end)
        self.present.data[first:end] = True
        self.reached.data[first:end] = True
        found = dst >= first
        new, finders = dst[found], src[found]
        firsts = np.ones(len(new), dtype=bool)
        firsts[1:] = new[1:] > np.maximum.accumulate(new)[:-1]
        assert np.array_equal(new[firsts], np.arange(first, end)), "numbered out of order"
        self.depth.data[first:end] = self.depth.data[finders[firsts]] + 1

    def reach(self, states: list[int], first_new: int, frontier: Frontier) -> None:
        """Mark stored states and everything stored below them as reached by this build; the
        unexpanded ones (stored, below `first_new`) join the `frontier`."""
        level = np.array([s for s in states if not self.reached.data[s]], dtype=np.int64)
        while level.size:
            self.reached.data[level] = True
            waiting = level[~self.expanded.data[level]]
            frontier.push_stored(waiting[waiting < first_new])
            inner = level[self.expanded.data[level]]
            below = self.edge_dst.data[
                ranges(self.out_start.data[inner], self.out_count.data[inner])
            ]
            below = np.unique(below)
            level = below[~self.reached.data[below]]

    def add_moves(self, states: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Record the moves src -> dst of the `states` just expanded (sorted, ids below the
        reserved size); return those of them ready to solve (every successor solved)."""
        self.expanded.data[states] = True
        # counted over the batch's range of ids, not every id: a pass over all states per
        # batch makes a build's time grow with the square of its size
        counts = counts_of(src, states)
        self.out_start.data[states] = self.edge_dst.size + np.cumsum(counts) - counts
        self.out_count.data[states] = counts
        self.edge_dst.extend(dst)
        open_end = self.grundy.data[dst] == UNKNOWN
        self.pending.data[states] += counts_of(src[open_end], states).astype(np.int32)
        self.waiting.add(dst[open_end], src[open_end], self.grundy.data)
        ready: np.ndarray = states[self.pending.data[states] == 0]
        return ready

    def leftovers(self, size: int) -> np.ndarray:
        """Stored states (ids below `size`) expanded, unsolved and ready to solve (an edit can
        leave such states)."""
        return np.flatnonzero(
            self.expanded.data[:size]
            & (self.grundy.data[:size] == UNKNOWN)
            & (self.pending.data[:size] == 0)
        )

    def solve(self, ready: np.ndarray, terminal: int) -> list[np.ndarray]:
        """Give values to `ready` states (all successors solved), then to whatever that frees,
        level by level; `terminal` is the value of a state without moves."""
        values = Values(self.grundy.data, self.remote.data, self.height.data)
        succ = Adjacency(self.out_start.data, self.out_count.data, self.edge_dst.data)
        solved = []
        for level in in_levels(ready, self.pending.data, self.waiting.sources):
            values.solve(level, succ, terminal=terminal)
            solved.append(level)
        return solved

    def let_go_of_moves(self) -> None:
        """Free the moves and the waiting edges once every move is written."""
        self.waiting = Waiting()
        self.edge_dst = Growable(np.int32, 0)
