"""Game graphs as compressed sparse rows of state ids (`Adjacency`), the one CSR constructor
(`Adjacency.from_degrees`), the level loop every solve and check runs (`in_levels`) and the one
cycle finder (`find_cycle`). The rules (graph files), generation, the solver and the build stage
all read graphs through here; it imports nothing of theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple, NoReturn

import numpy as np
import numpy.typing as npt

from explorer.errors import CyclicGraphError

#: An array of state ids, counts or values.
Ints = npt.NDArray[np.int64]


def ranges(starts: Ints, counts: Ints) -> Ints:
    """The concatenation of ``arange(s, s + c)`` for each start s and count c.

    Examples
    --------
    >>> ranges(np.array([5, 0]), np.array([2, 3])).tolist()
    [5, 6, 0, 1, 2]
    """
    if len(counts) == 1:  # one state: a slice (levels of one state are common in deep graphs)
        return np.arange(starts[0], starts[0] + counts[0], dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    offsets = np.cumsum(counts) - counts
    return np.repeat(starts - offsets, counts) + np.arange(total)


class Adjacency(NamedTuple):
    """Compressed sparse rows: the moves of state s are ``target[start[s] : start[s] + degree[s]]``.

    Examples
    --------
    >>> succ = Adjacency.from_edges(3, np.array([2, 1, 2]), np.array([1, 0, 0]))
    >>> succ.degree.tolist(), succ.of(np.array([2])).tolist()
    ([0, 1, 2], [1, 0])
    """

    start: Ints
    degree: Ints
    target: Ints

    @classmethod
    def from_edges(cls, size: int, src: npt.ArrayLike, dst: npt.ArrayLike) -> Adjacency:
        """The successors of states ``0 .. size-1`` from edges ``src[i] -> dst[i]``; each
        state's successors keep the order of the edges."""
        src = np.asarray(src, dtype=np.int64)
        dst = np.asarray(dst, dtype=np.int64)
        return cls.from_degrees(
            np.bincount(src, minlength=size), dst[np.argsort(src, kind="stable")]
        )

    @classmethod
    def from_degrees(cls, degree: Ints, target: Ints) -> Adjacency:
        """The successors of states ``0 .. len(degree)-1``: state s has ``degree[s]`` moves,
        the next ones of `target` (listed state by state)."""
        return cls(np.cumsum(degree) - degree, degree, target)

    @property
    def size(self) -> int:
        return len(self.degree)

    def of(self, states: Ints) -> Ints:
        """The targets of `states`, state by state, concatenated."""
        return self.target[ranges(self.start[states], self.degree[states])]

    def reversed(self) -> Adjacency:
        """The same graph with every move turned around (predecessors)."""
        every = np.arange(self.size, dtype=np.int64)
        return Adjacency.from_edges(self.size, self.of(every), np.repeat(every, self.degree))


def in_levels(ready: Ints, pending: Ints, freed_by: Callable[[Ints], Ints]) -> Iterator[Ints]:
    """States level by level, each one once all of its successors came in an earlier level.

    `ready` is the first level; `pending` counts, per state, the successors still to come
    (decremented here); ``freed_by(level)`` lists the predecessors waiting for the states of a
    level, once per move. The caller solves each level before asking for the next.
    """
    ready = np.unique(ready)
    while ready.size:
        yield ready
        ready = next_level(ready, pending, freed_by(ready))


def next_level(level: Ints, pending: Ints, freed: Ints) -> Ints:
    """The states `freed` (listed once per move) that waited for nothing but `level`, in
    increasing order."""
    if freed.size > 1:
        lo = int(freed.min())
        span = int(freed.max()) - lo + 1
        if span <= SPAN_PER_STATE * freed.size:  # counted over their range: no sort
            times = np.bincount(freed - lo, minlength=span)
            at = np.flatnonzero(times)
            freed, times = (at + lo).astype(freed.dtype), times[at]  # the type it came in
        else:
            freed, times = np.unique(freed, return_counts=True)
        pending[freed] -= times
    else:
        pending[freed] -= 1
    ready: Ints = freed[pending[freed] == 0]
    return ready


#: `next_level` counts the states freed over their range of ids when it is at most this many
#: times their number (a level's predecessors are mostly close together), else sorts them.
SPAN_PER_STATE = 8


def find_cycle(succ: Adjacency) -> list[int] | None:
    """A cycle of the graph as state ids, first state repeated at the end, or None for a DAG.

    The cycle named is the first one a depth-first search meets, taking states and each
    state's moves in order; peeling off the states that reach no cycle (in numpy) comes first,
    so a DAG costs no search.

    Examples
    --------
    >>> find_cycle(Adjacency.from_edges(4, [0, 1, 2, 3], [1, 2, 1, 0]))
    [1, 2, 1]
    >>> find_cycle(Adjacency.from_edges(2, [1], [0])) is None
    True
    """
    pending = succ.degree.copy()
    done = np.zeros(succ.size, dtype=bool)
    for level in in_levels(np.flatnonzero(pending == 0), pending, succ.reversed().of):
        done[level] = True
    return None if done.all() else _cycle_through(succ, ~done)


def refuse_cycle(
    succ: Adjacency, open_: npt.NDArray[np.bool_], name: Callable[[int], object]
) -> NoReturn:
    """Raise `CyclicGraphError` naming the first cycle among the `open_` states (every state
    on a cycle must be open), each state as ``name(id)``."""
    cycle = [name(s) for s in _cycle_through(succ, open_)]
    raise CyclicGraphError("the graph has a cycle: " + " -> ".join(map(str, cycle)), cycle)


def _cycle_through(succ: Adjacency, open_: npt.NDArray[np.bool_]) -> list[int]:
    """The first cycle a depth-first search meets among the `open_` states, which include a
    cycle's (and leave out no state that reaches one)."""
    start, count, target = succ.start.tolist(), succ.degree.tolist(), succ.target.tolist()
    is_open = open_.tolist()
    on_path = [False] * succ.size
    for root in np.flatnonzero(open_).tolist():
        path = [root]
        on_path[root] = True
        stack = [iter(range(start[root], start[root] + count[root]))]
        while stack:
            for edge in stack[-1]:
                child = target[edge]
                if on_path[child]:
                    return [*path[path.index(child) :], child]
                if is_open[child]:
                    path.append(child)
                    on_path[child] = True
                    stack.append(iter(range(start[child], start[child] + count[child])))
                    break
            else:
                stack.pop()
                finished = path.pop()
                on_path[finished] = False
                is_open[finished] = False
    raise AssertionError("no cycle among the open states")  # pragma: no cover
