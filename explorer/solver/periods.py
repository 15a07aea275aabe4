"""Periods of value sequences: the smallest (preperiod, period) the values prove or show.

Reading the values backwards, Z[p] (the longest stretch ending at the last value on which
G(n + p) = G(n)) gives every period's least preperiod at once: n0 = L - p - Z[p] for L values.
The Guy-Smith theorem (an octal game removing at most k tokens) proves the period once
G(n + p) = G(n) for n0 <= n < 2 n0 + p + k, that is once L >= 2 n0 + 2p + k; so the proof is
found with exactly the values the theorem needs, and the least such p is the true period.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

#: A period must repeat at least this many times in the computed values to be reported unproven.
MIN_REPEATS = 3
#: Sequences longer than this are scanned by the compiled kernel (numba) instead of Python.
COMPILED_FROM = 20_000


class GuySmith(NamedTuple):
    """The Guy-Smith theorem for one octal game: `k`, the most tokens a move removes, and
    `first`, the least preperiod it may start from (1 when heaps split: a split of the heap
    2p would otherwise lean on heap 0, which is no heap of a split).

    `heaps` generalises it to moves leaving at most h heaps, with no condition tying the heaps
    to each other: the largest heap a move of n + p leaves is at least (n + p - k) / h, so the
    same proof needs G(n + p) = G(n) for n0 <= n < h n0 + (h - 1) p + k, that is
    h (n0 + p) + k values (h = 2: Guy-Smith).
    """

    k: int
    first: int = 0
    heaps: int = 2


def _period_py(values: Any, length: int, z: Any, k: int, first: int, heaps: int) -> tuple[int, int]:
    """The smallest (preperiod, period) of G(0..length-1), or (-1, -1): proven by the Guy-Smith
    theorem for `k` (and least preperiod `first`) when k >= 0, else observed.

    z receives the Z-function of the values read backwards: z[p] is how far G(n + p) = G(n)
    holds going back from the last value. Only the periods that could qualify are computed
    (len(z) of them), and the values are read where they are (16-bit): no copy of the sequence.
    """
    count = len(z)
    if count == 0:
        return -1, -1
    z[0] = length
    left = 0
    right = 0
    last = length - 1
    for i in range(1, count):
        m = 0
        if i < right:
            m = min(right - i, z[i - left])
        while i + m < length and values[last - m] == values[last - i - m]:
            m += 1
        z[i] = m
        if i + m > right:
            left = i
            right = i + m
        pre = length - i - m
        if k >= 0:
            if heaps * (max(pre, first) + i) + k <= length:
                return pre, i
        elif 2 * (i + m) >= length and i + m >= MIN_REPEATS * i:
            return pre, i
    return -1, -1


_compiled: Callable[[Any, int, Any, int, int, int], tuple[int, int]] | None = None


def _smallest_period(
    values: np.ndarray, length: int, k: int, first: int, heaps: int = 2
) -> tuple[int, int] | None:
    """`_period_py` over the first `length` values, compiled (numba) for long sequences.

    Memory: one entry of z per candidate period (at most length / 2), 32-bit while the
    length allows, so a search over 2^24 values takes 32 MiB beside the values.
    """
    global _compiled
    if length < 2:
        return None
    # a proof needs h p + k <= length; an observed period 3p <= length
    count = (length - k) // heaps + 1 if k >= 0 else length // 3 + 1
    if count < 2:
        return None
    if length < COMPILED_FROM:
        found = _period_py(values[:length].tolist(), length, [0] * count, k, first, heaps)
    else:
        if _compiled is None:
            from numba import njit

            _compiled = njit(cache=True, nogil=True)(_period_py)
        z = np.zeros(count, dtype=np.int32 if length < 2**31 else np.int64)
        found = _compiled(values, length, z, k, first, heaps)
    pre, period = int(found[0]), int(found[1])
    return None if period < 0 else (pre, period)


def proven_period(values: np.ndarray, length: int, theorem: GuySmith) -> tuple[int, int] | None:
    """The smallest (preperiod, period) that G(0..length-1) prove by the Guy-Smith theorem.

    Parameters
    ----------
    values : array
        G(0), G(1), ... of an octal game with finitely many non-zero digits.
    length : int
        How many of them to use.
    theorem : GuySmith
        The game's k (most tokens a move removes) and least starting point.

    Examples
    --------
    >>> v = np.array([0, 1, 1, 0, 2, 1, 1, 0, 2, 1, 1, 0, 2, 1])
    >>> proven_period(v, 14, GuySmith(1))
    (1, 4)
    >>> proven_period(v, 9, GuySmith(1)) is None
    True
    """
    return _smallest_period(values, length, theorem.k, theorem.first, theorem.heaps)


def observed_period(values: np.ndarray, length: int) -> tuple[int, int] | None:
    """The smallest (preperiod, period) whose periodic stretch covers at least half of the
    values and `MIN_REPEATS` periods (not a proof).

    Examples
    --------
    >>> observed_period(np.array([5, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]), 11)
    (1, 3)
    >>> observed_period(np.arange(6), 6) is None
    True
    """
    return _smallest_period(values, length, -1, 0)


def proof_length(preperiod: int, period: int, theorem: GuySmith) -> int:
    """How many values (G(0) onwards) the Guy-Smith theorem needs to prove the period."""
    return theorem.heaps * (max(preperiod, theorem.first) + period) + theorem.k


def periodic_value(values: np.ndarray, preperiod: int, period: int, heap: int) -> int:
    """G(heap) of an eventually periodic sequence, from its first preperiod + period values."""
    if heap >= preperiod + period:
        heap = preperiod + (heap - preperiod) % period
    return int(values[heap])
