"""Periodicity proofs for heap games that only take tokens (the window and state lemmas), and
least arithmetic periods G(n + p) = G(n) + s, proven or observed, of value sequences.

Guy-Smith proofs of octal games are in `explorer.solver.periods`; these theorems need fewer
values for the games they cover, and the state lemma proves arithmetic periods (all-but games).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from explorer.games.removals import RemovalRule
from explorer.solver.periods import observed_period

#: The window lemma, as `Proof.theorem` names it.
WINDOW_LEMMA = "window lemma"
#: The state lemma, as `Proof.theorem` names it.
STATE_LEMMA = "state lemma"
#: Values above the far values' mex that the state lemma keeps track of; past this many it
#: gives up (such a sequence does not settle into a repeating state within the values).
MAX_ABOVE = 256


class Period(NamedTuple):
    """G(n + period) = G(n) + saltus for every n >= preperiod (saltus 0: a pure period)."""

    preperiod: int
    period: int
    saltus: int = 0


class Proof(NamedTuple):
    """A period proven by `theorem` from the values G(0..needed-1)."""

    period: Period
    theorem: str
    needed: int


def match_lengths(values: np.ndarray) -> np.ndarray:
    """z[p]: for how many n, going back from the last one, G(n + p) = G(n) holds (z[0] = L).

    The Z-function of the values read backwards, in O(L): the least preperiod of a period p
    the values show is ``L - p - z[p]``.

    Examples
    --------
    >>> match_lengths(np.array([5, 0, 1, 0, 1])).tolist()
    [5, 0, 2, 0, 0]
    """
    backwards = values[::-1].tolist()
    length = len(backwards)
    z = [0] * length
    if length:
        z[0] = length
    left = right = 0
    for i in range(1, length):
        m = min(right - i, z[i - left]) if i < right else 0
        while i + m < length and backwards[m] == backwards[i + m]:
            m += 1
        z[i] = m
        if i + m > right:
            left, right = i, i + m
    return np.array(z, dtype=np.int64)


def window_lemma(values: np.ndarray, rule: RemovalRule) -> Proof | None:
    """The least period and preperiod of a finite removal rule that the values prove.

    The window lemma: let m be the rule's largest removal. From some r on (r = m when every
    removal may also take a whole heap, else m + 1) a heap's options are exactly the heaps
    n - k, k in the rule, so G(n) is a function of G(n - m), ..., G(n - 1) alone. Hence if
    G(n + p) = G(n) for m consecutive n0 <= n < n0 + m with n0 + m >= r, then G(n + p) = G(n)
    for every n >= n0 (by induction on n: equal windows give equal values). The proof reads
    G(0..n0 + p + m - 1). The least p proven is the least period: the least period divides
    any period and its preperiod is no later, so its stretch is proven whenever p's is.

    Examples
    --------
    >>> v = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2])
    >>> window_lemma(v, RemovalRule.subtraction([1, 2]))
    Proof(period=Period(preperiod=0, period=3, saltus=0), theorem='window lemma', needed=5)
    """
    if rule.tail is not None:
        return None
    m = rule.largest
    start = m if rule.leave_one == rule.take_all else m + 1
    length = len(values)
    z = match_lengths(values)
    p = np.arange(length)
    first = np.maximum(length - p - z, start - m)  # the earliest window the recursion covers
    proven = np.flatnonzero((p >= 1) & (length - p - first >= m))
    if proven.size == 0:
        return None
    period = int(proven[0])
    preperiod = length - period - int(z[period])
    needed = int(first[period]) + period + m
    return Proof(Period(preperiod, period), WINDOW_LEMMA, needed)


def state_lemma(values: np.ndarray, rule: RemovalRule) -> Proof | None:
    """The least arithmetic period, preperiod and saltus of an all-but rule the values prove.

    The state lemma: with every removal from T on allowed (the rule's tail), a heap of
    n >= r = max(T, h + 1) (h the largest removal below T) has the options 0..n - T and
    n - k for the removals k < T. Let c(n) be the mex of F(n) = {G(0), ..., G(n - T)} (every
    value below c(n) is in F(n)), and the state S(n) the values of F(n) above c(n) and the
    window G(n - T + 1..n - 1), each less c(n) (window values below c(n) all alike). Then
    G(n) - c(n), c(n + 1) - c(n) and S(n + 1) are functions of S(n) alone; so if
    S(a + p) = S(a) for some a >= r, then G(n + p) = G(n) + s for every n >= a, with
    s = c(a + p) - c(a). The proof reads G(0..a + p - 1); the least period, preperiod and
    saltus then follow from the values, which the proven period extends as far as needed.

    Examples
    --------
    >>> v = np.array([0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5])  # take any number but 1 or 3
    >>> state_lemma(v, RemovalRule.all_but([1, 3]))
    Proof(period=Period(preperiod=0, period=2, saltus=1), theorem='state lemma', needed=6)
    """
    if rule.tail is None:
        return None
    tail = rule.tail
    head = max([k for k in rule.leave_one | rule.take_all if k < tail], default=0)
    start = max(tail, head + 1)
    g = values.tolist()
    far: set[int] = set(g[: max(start - tail + 1, 0)])
    mex = 0
    while mex in far:
        mex += 1
    above = {v for v in far if v > mex}
    seen: dict[tuple[frozenset[int], tuple[int, ...]], tuple[int, int]] = {}
    for n in range(start, len(g) + 1):
        window = tuple(v - mex if v >= mex else -1 for v in g[n - tail + 1 : n])
        key = (frozenset(v - mex for v in above), window)
        if key in seen:
            first, first_mex = seen[key]
            found = Period(first, n - first, mex - first_mex)
            return Proof(least_period(values, found), STATE_LEMMA, n)
        seen[key] = (n, mex)
        if n == len(g):
            break
        oldest = g[n - tail + 1]  # F(n + 1) = F(n) and G(n - T + 1)
        if oldest > mex:
            above.add(oldest)
        elif oldest == mex:
            mex += 1
            while mex in above:
                above.discard(mex)
                mex += 1
        if len(above) > MAX_ABOVE:
            return None
    return None


def least_period(values: np.ndarray, proven: Period) -> Period:
    """The least arithmetic period, its least preperiod and its saltus, of values proven to
    satisfy G(n + p) = G(n) + s from n = a on (`proven`).

    The differences G(n + 1) - G(n) are then periodic from a; the least period divides p and
    is checked over one period from a, the values past the computed ones following from the
    proven period; the preperiod goes back while the differences repeat.

    Examples
    --------
    >>> least_period(np.array([7, 0, 1, 0, 1, 0, 1, 0, 1]), Period(3, 4, 0))
    Period(preperiod=1, period=2, saltus=0)
    """
    a, p, s = proven
    need = a + 3 * p + 1
    g = np.asarray(values[: min(len(values), need)], dtype=np.int64)
    if len(g) < need:
        extended = np.empty(need, dtype=np.int64)
        extended[: len(g)] = g
        for n in range(len(g), need):
            extended[n] = extended[n - p] + s
        g = extended
    diff = np.diff(g)
    period = next(
        d
        for d in range(1, p + 1)
        if p % d == 0 and np.array_equal(diff[a + d : a + d + p], diff[a : a + p])
    )
    pre = a
    while pre > 0 and diff[pre - 1 + period] == diff[pre - 1]:
        pre -= 1
    return Period(pre, period, int(g[pre + period] - g[pre]))


def observed_arithmetic_period(values: np.ndarray) -> Period | None:
    """The least arithmetic period the values show (not a proof): that of their differences
    G(n + 1) - G(n), by the rule of `explorer.solver.periods.observed_period`.

    Examples
    --------
    >>> observed_arithmetic_period(np.array([0, 1, 1, 2, 2, 3, 3, 4, 4, 5]))
    Period(preperiod=0, period=2, saltus=1)
    >>> observed_arithmetic_period(np.array([3, 1, 4, 1, 5, 9, 2, 6])) is None
    True
    """
    g = np.asarray(values, dtype=np.int64)
    if len(g) < 3:
        return None
    found = observed_period(np.diff(g), len(g) - 1)
    if found is None:
        return None
    pre, period = found
    return Period(pre, period, int(g[pre + period] - g[pre]))


def removal_values(rule: RemovalRule, upto: int) -> np.ndarray:
    """G(0..upto) of a removal rule, by the mex rule over its options (the values far back,
    beyond the head of the rule, are kept as a set with its mex).

    Examples
    --------
    >>> removal_values(RemovalRule.all_but([1, 3]), 9).tolist()
    [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    >>> removal_values(RemovalRule.subtraction([1, 2]), 6).tolist()
    [0, 1, 2, 0, 1, 2, 0]
    """
    g = np.zeros(upto + 1, dtype=np.int64)
    tail = rule.tail if rule.tail is not None else upto + 2
    far: set[int] = set()
    far_mex = 0
    for n in range(1, upto + 1):
        if n - tail >= 0:  # heap n - tail is now a tail option of every later heap
            far.add(int(g[n - tail]))
            while far_mex in far:
                far_mex += 1
        near = {int(g[n - k]) for k in rule.leave_one if k < min(n, tail)}
        if n in rule.take_all and n < tail:
            near.add(0)
        value = far_mex
        while value in far or value in near:
            value += 1
        g[n] = value
    return g
