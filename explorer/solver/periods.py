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
    2p would otherwise lean on heap 0, which is no heap of a split)."""

    k: int
    first: int = 0


def _z_reversed_py(values: Any, length: int) -> Any:
    """Z-function of values[length-1], values[length-2], ..., values[0]: z[p] is how far
    G(n + p) = G(n) holds going back from the last value (z[0] = length)."""
    z = np.zeros(length + 1, dtype=np.int64)
    z[0] = length
    left = 0
    right = 0
    last = length - 1
    for i in range(1, length):
        k = 0
        if i < right:
            k = min(right - i, z[i - left])
        while i + k < length and values[last - k] == values[last - i - k]:
            k += 1
        z[i] = k
        if i + k > right:
            left = i
            right = i + k
    return z


_z_compiled: Callable[[Any, int], Any] | None = None


def reversed_z(values: np.ndarray, length: int) -> np.ndarray:
    """The Z-function of the first `length` values read backwards (compiled for long ones)."""
    global _z_compiled
    if length < COMPILED_FROM:
        return _z_reversed_py(values[:length].tolist(), length)  # type: ignore[no-any-return]
    if _z_compiled is None:
        from numba import njit

        _z_compiled = njit(cache=True, nogil=True)(_z_reversed_py)
    return _z_compiled(values, length)  # type: ignore[no-any-return]


def proven_period(
    values: np.ndarray, length: int, theorem: GuySmith, z: np.ndarray | None = None
) -> tuple[int, int] | None:
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
    if length < 2:
        return None
    z = reversed_z(values, length) if z is None else z
    p = np.arange(1, length, dtype=np.int64)
    pre = length - p - z[1:length]
    ok = np.flatnonzero(2 * np.maximum(pre, theorem.first) + 2 * p + theorem.k <= length)
    if ok.size == 0:
        return None
    return int(pre[ok[0]]), int(ok[0]) + 1


def observed_period(
    values: np.ndarray, length: int, z: np.ndarray | None = None
) -> tuple[int, int] | None:
    """The smallest (preperiod, period) whose periodic stretch covers at least half of the
    values and `MIN_REPEATS` periods (not a proof).

    Examples
    --------
    >>> observed_period(np.array([5, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]), 11)
    (1, 3)
    >>> observed_period(np.arange(6), 6) is None
    True
    """
    if length < 2:
        return None
    z = reversed_z(values, length) if z is None else z
    p = np.arange(1, length, dtype=np.int64)
    stretch = p + z[1:length]
    ok = np.flatnonzero((2 * stretch >= length) & (stretch >= MIN_REPEATS * p))
    if ok.size == 0:
        return None
    period = int(ok[0]) + 1
    return length - period - int(z[period]), period


def proof_length(preperiod: int, period: int, theorem: GuySmith) -> int:
    """How many values (G(0) onwards) the Guy-Smith theorem needs to prove the period."""
    return 2 * max(preperiod, theorem.first) + 2 * period + theorem.k


def periodic_value(values: np.ndarray, preperiod: int, period: int, heap: int) -> int:
    """G(heap) of an eventually periodic sequence, from its first preperiod + period values."""
    if heap >= preperiod + period:
        heap = preperiod + (heap - preperiod) % period
    return int(values[heap])
