"""The solver's compact-array form: game graphs as CSR arrays of state ids (`explorer.adjacency`),
solved level by level.

Owns the one per-level kernel (`level_values`: mex, remoteness, height of a group of states from
their successors' values; `state_value` is its plain-Python form for a few states, where numpy's
cost per call would dominate). Builds, imports, edits, full re-solves and the NetworkX form all
solve through here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from explorer.adjacency import Adjacency, Ints, in_levels, next_level, refuse_cycle

#: Fewer states than this are solved one by one in plain Python (`state_value`), not in numpy:
#: a level of one state is common in deep graphs, and numpy's cost per call (tens of
#: microseconds a level) made a 50,000-level chain ten times slower than plain Python.
FEW = 64

#: A remoteness no state has: what "no move to a P-position" looks like in a minimum. A numpy
#: scalar, not a Python int: beside 32-bit values (a build's arrays) a Python int takes their
#: type, and this one would wrap to -1.
_NEVER = np.int64(np.iinfo(np.int64).max)
#: The value of a state without moves: 0 in normal play; in misère play G⁻ = 1 there (the
#: player to move has no move, so the opponent moved last and lost: an N-position).
NORMAL_TERMINAL, MISERE_TERMINAL = 0, 1


# -- the kernel ------------------------------------------------------------------------------


#: Values below this many are the bits of one 64-bit word per group (the mex is the lowest
#: clear bit: no sort); larger ones are sorted group by group.
MASK_BITS = 63


def mex_by_group(counts: Ints, values: Ints) -> Ints:
    """The mex of each group of `values`, groups given by their sizes `counts`, in order.

    Examples
    --------
    >>> mex_by_group(np.array([3, 0, 2]), np.array([0, 1, 3, 1, 2])).tolist()
    [2, 0, 0]
    >>> mex_by_group(np.array([2, 1]), np.array([0, 100, 62])).tolist()
    [1, 0]
    """
    groups = len(counts)
    result = np.zeros(groups, dtype=np.int64)
    if values.size == 0:
        return result
    largest = int(values.max())
    if largest < MASK_BITS:
        # each group's values as the bits of one word; the mex is its lowest clear bit
        moving = counts > 0
        starts = (np.cumsum(counts) - counts)[moving]
        bits = np.left_shift(np.uint64(1), values.astype(np.uint64))
        masks = np.bitwise_or.reduceat(bits, starts)
        lowest_clear = ~masks & (masks + np.uint64(1))
        result[moving] = np.log2(lowest_clear).astype(np.int64)  # exact: a power of two
        return result
    width = largest + 2
    group_of = np.repeat(np.arange(groups, dtype=np.int64), counts)
    keys = np.unique(group_of * width + values)
    g, v = keys // width, keys % width
    first = np.searchsorted(g, np.arange(groups))
    rank = np.arange(len(keys)) - first[g]
    result[:] = np.bincount(g, minlength=groups)  # no gap: mex = number of distinct values
    gaps = np.flatnonzero(v != rank)
    if gaps.size:
        gapped, where = np.unique(g[gaps], return_index=True)
        result[gapped] = rank[gaps[where]]
    return result


def level_values(
    counts: Ints,
    grundy: Ints,
    remoteness: Ints,
    height: Ints | None = None,
    *,
    terminal: int = NORMAL_TERMINAL,
) -> tuple[Ints, Ints, Ints]:
    """Grundy value, remoteness and height of a group of states from their successors' values.

    The rule of the whole package, for any number of states at once: state i has ``counts[i]``
    successors, whose values are the next ``counts[i]`` entries of `grundy`, `remoteness` and
    `height`. Its Grundy value is their mex; a terminal state has remoteness and height 0; from
    an N-position the winner hurries (one more than the least remoteness of a P-successor), from
    a P-position the loser delays (one more than the greatest); its height is one more than the
    greatest successor height (zeros when `height` is not given). Fewer than `FEW` states go
    through `state_value` one by one, more through numpy (the tests hold the two equal).

    With ``terminal=MISERE_TERMINAL`` the values are misère play's: a terminal state has G⁻ = 1
    (an N-position), every other the mex of its successors' G⁻, so G⁻ = 0 exactly on misère
    P-positions and the remoteness is misère play's.

    Examples
    --------
    >>> g, r, h = level_values(np.array([2, 0]), np.array([0, 1]), np.array([0, 1]))
    >>> g.tolist(), r.tolist(), h.tolist()
    ([2, 0], [1, 0], [0, 0])
    >>> level_values(np.array([1, 0]), np.array([1]), np.array([0]), terminal=1)[0].tolist()
    [0, 1]
    """
    if len(counts) < FEW:
        return _values_one_by_one(counts, grundy, remoteness, height, terminal)
    return _values_in_numpy(counts, grundy, remoteness, height, terminal)


def _values_in_numpy(
    counts: Ints, grundy: Ints, remoteness: Ints, height: Ints | None, terminal: int
) -> tuple[Ints, Ints, Ints]:
    """`level_values` vectorised over the group (for many states)."""
    g = mex_by_group(counts, grundy)
    if terminal != NORMAL_TERMINAL:
        g[counts == 0] = terminal
    r = np.zeros(len(counts), dtype=np.int64)
    h = np.zeros(len(counts), dtype=np.int64)
    if grundy.size:
        moving = counts > 0
        starts = (np.cumsum(counts) - counts)[moving]
        fastest = np.minimum.reduceat(np.where(grundy == 0, remoteness, _NEVER), starts)
        slowest = np.maximum.reduceat(remoteness, starts)
        r[moving] = 1 + np.where(g[moving] > 0, fastest, slowest)
        if height is not None:
            h[moving] = 1 + np.maximum.reduceat(height, starts)
    return g, r, h


def state_value(
    grundy: Sequence[int],
    remoteness: Sequence[int],
    height: Sequence[int] | None = None,
    *,
    terminal: int = NORMAL_TERMINAL,
) -> tuple[int, int, int]:
    """`level_values` for one state, in plain Python: its Grundy value, remoteness and height
    from its successors' values (the same rule; numpy's cost per call dominates on a few states).

    Examples
    --------
    >>> state_value([0, 1], [0, 1], [0, 1]), state_value([], []), state_value([], [], terminal=1)
    ((2, 1, 2), (0, 0, 0), (1, 0, 0))
    """
    if not grundy:
        return terminal, 0, 0
    seen = set(grundy)
    g = 0
    while g in seen:
        g += 1
    if g:
        far = 1 + min(r for v, r in zip(grundy, remoteness, strict=True) if v == 0)
    else:
        far = 1 + max(remoteness)
    return g, far, 0 if height is None else 1 + max(height)


def _values_one_by_one(
    counts: Ints, grundy: Ints, remoteness: Ints, height: Ints | None, terminal: int
) -> tuple[Ints, Ints, Ints]:
    """`level_values` through `state_value`, a state at a time (for a few states)."""
    g, r, h = grundy.tolist(), remoteness.tolist(), None if height is None else height.tolist()
    solved, at = [], 0
    for count in counts.tolist():
        end = at + count
        part = None if h is None else h[at:end]
        solved.append(state_value(g[at:end], r[at:end], part, terminal=terminal))
        at = end
    found = np.array(solved, dtype=np.int64).reshape(-1, 3)
    return found[:, 0], found[:, 1], found[:, 2]


class Values(NamedTuple):
    """Grundy value, remoteness and height of every state, indexed by id (-1: not solved)."""

    grundy: Ints
    remoteness: Ints
    height: Ints

    @classmethod
    def unsolved(cls, size: int) -> Values:
        return cls(*(np.full(size, -1, dtype=np.int64) for _ in range(3)))

    def solve(self, level: Ints, succ: Adjacency, *, terminal: int = NORMAL_TERMINAL) -> None:
        """Give values to the states of `level`, every one of whose successors has one
        (misère values with ``terminal=MISERE_TERMINAL``, see `level_values`)."""
        targets = succ.of(level)
        self.grundy[level], self.remoteness[level], self.height[level] = level_values(
            succ.degree[level],
            self.grundy[targets],
            self.remoteness[targets],
            self.height[targets],
            terminal=terminal,
        )


def solve_adjacency(succ: Adjacency, *, name: Callable[[int], object] = int) -> Values:
    """Grundy value, remoteness and height of every state of a DAG, from its terminal states up.

    A state's level is its height: the longest sequence of moves from it to the end.

    Raises
    ------
    CyclicGraphError
        When the moves have a cycle; the error names one, each state as ``name(id)``.

    Examples
    --------
    >>> values = solve_adjacency(Adjacency.from_edges(3, [2, 1, 2], [1, 0, 0]))
    >>> [v.tolist() for v in values]
    [[0, 1, 2], [0, 1, 1], [0, 1, 2]]
    """
    values = Values.unsolved(succ.size)
    pending = succ.degree.copy()
    preds = succ.reversed()
    level = np.flatnonzero(pending == 0)
    while level.size:
        if len(level) < FEW:  # thin levels (a deep graph has thousands): state by state
            level = _solve_thin(level.tolist(), succ, preds, values, pending)
        else:
            values.solve(level, succ)
            level = next_level(level, pending, preds.of(level))
    if (values.grundy < 0).any():
        refuse_cycle(succ, values.grundy < 0, name)
    return values


def _solve_thin(
    level: list[int], succ: Adjacency, preds: Adjacency, values: Values, pending: Ints
) -> Ints:
    """`Values.solve` and `next_level` in plain Python while the levels have fewer than `FEW`
    states (numpy's cost per call would dominate); the first wider level (or an empty one).
    Memory views read and write the arrays element by element at Python's speed."""
    grundy, far, height = (v.data for v in values)
    start, degree, target = (a.data for a in succ)
    back, up, source = (a.data for a in preds)
    waiting = pending.data
    while level and len(level) < FEW:
        freed: list[int] = []
        for s in level:
            first = start[s]
            moves = target[first : first + degree[s]].tolist()
            grundy[s], far[s], height[s] = state_value(
                [grundy[t] for t in moves], [far[t] for t in moves], [height[t] for t in moves]
            )
            first = back[s]
            freed += source[first : first + up[s]].tolist()
        level = []
        for p in freed:
            waiting[p] -= 1
            if waiting[p] == 0:
                level.append(p)
        level.sort()
    return np.array(level, dtype=np.int64)


def levels(succ: Adjacency, *, name: Callable[[int], object] = int) -> list[Ints]:
    """The states of a DAG level by level from its sources: a state comes once every
    predecessor has (its level is the longest line of play reaching it).

    Raises
    ------
    CyclicGraphError
        When the moves have a cycle; the error names one, each state as ``name(id)``.
    """
    pending = succ.reversed().degree.copy()
    found = list(in_levels(np.flatnonzero(pending == 0), pending, succ.of))
    if sum(map(len, found)) < succ.size:
        # what no level reached lies on a cycle or below one
        reached = np.zeros(succ.size, dtype=bool)
        for level in found:
            reached[level] = True
        refuse_cycle(succ, ~reached, name)
    return found


def depths(succ: Adjacency) -> Ints:
    """Fewest moves to each state from the nearest state without predecessors (-1: none)."""
    depth = np.full(succ.size, -1, dtype=np.int64)
    frontier = np.flatnonzero(np.bincount(succ.target, minlength=succ.size) == 0)
    level = 0
    while frontier.size:
        depth[frontier] = level
        below = np.unique(succ.of(frontier))
        frontier = below[depth[below] < 0]
        level += 1
    return depth


# -- cycles ----------------------------------------------------------------------------------
