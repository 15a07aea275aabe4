"""The compiled kernel of the sparse-space method (numba): a block of heaps at a time.

A block's heaps n0 <= n < n0 + size depend on values below n0 through every pair but the few
whose larger part lies in the block. Phase 1 (``prange``: with several workers the heaps are
spread over numba's threads) marks, for each heap, every option made of values known before
the block: the rare pairs, then the verification scan from the least such pair up until each
value below the candidate is reached; without a sparse split, every pair. Phase 2 (in heap
order, on one thread) adds the options whose larger part lies in the block, moves the candidate
on if one of them reached it, and continues the scan where phase 1 stopped while a value below
the candidate is still not shown reached. One worker runs the same code compiled without
threads, so both give the same values.

Imported only where values are computed: it loads numba.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import config, njit, prange

#: Pairs a scan takes from each split in turn when a heap has several (one split: all at once).
STEP = 64
#: Unbounded, for a range without an end.
_ALL = 1 << 62


def kernel(workers: int) -> Any:
    """The kernel for `workers` threads (numba, cached on disk; compiled on first use): one
    heap at a time for one, the block kernel on numba's threads for more.

    Examples
    --------
    Kayles (take one or two tokens, and split what is left or not) by the naive method, in
    blocks of 4 heaps on two threads:

    >>> import numpy as np
    >>> values = np.zeros(13, dtype=np.uint16)
    >>> moves = np.array([1, 2], dtype=np.int64)
    >>> common, rare = np.zeros((2, 1 << 16), dtype=np.uint8), np.zeros(1, dtype=np.int64)
    >>> kernel(2)(values, 0, 13, moves, moves, moves, False, False, common, rare, 0, 16, 4)[0]
    13
    >>> values.tolist()
    [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]
    """
    threaded = workers > 1
    if _compiled.get(threaded) is None:
        if not threaded:
            _compiled[threaded] = njit(cache=True, nogil=True)(_extend_one)
            return _compiled[threaded]
        if "NUMBA_THREADING_LAYER" not in os.environ:
            # GNU OpenMP first: it starts a block's threads in about a microsecond where
            # numba's own pool takes about 100 us (thousands of blocks a run; measured);
            # "passive" puts a waiting thread to sleep at once instead of spinning on a core
            # that another process may need
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
            setattr(config, "THREADING_LAYER_PRIORITY", ["omp", "workqueue", "tbb"])  # noqa: B010
        _compiled[threaded] = njit(cache=True, nogil=True, parallel=True)(_extend_blocks)
    return _compiled[threaded]


_compiled: dict[bool, Any] = {}  # numba's dispatchers, by whether they use threads


@njit(cache=True, nogil=True)
def _scan(values: Any, row: Any, want: Any, t: int, a: int, hi: int, need: int) -> Any:
    """The verification scan of the pairs (a', t - a') for a <= a' <= hi: marks each XOR
    reached and stops once the `need` wanted values have all appeared. Returns the first a'
    not scanned and the values still needed."""
    while need > 0 and a + 3 <= hi:  # four pairs a step, one branch mostly
        b = t - a
        v0 = values[a] ^ values[b]
        v1 = values[a + 1] ^ values[b - 1]
        v2 = values[a + 2] ^ values[b - 2]
        v3 = values[a + 3] ^ values[b - 3]
        row[v0] = 1
        row[v1] = 1
        row[v2] = 1
        row[v3] = 1
        a += 4
        if want[v0] | want[v1] | want[v2] | want[v3]:
            for v in (v0, v1, v2, v3):
                if want[v]:
                    want[v] = 0
                    need -= 1
    while need > 0 and a <= hi:
        v = values[a] ^ values[t - a]
        row[v] = 1
        if want[v]:
            want[v] = 0
            need -= 1
        a += 1
    return a, need


@njit(cache=True, nogil=True)
def _scan_splits(
    values: Any, row: Any, want: Any, totals: Any, halves: Any, m: int, cand: int, a: int, n0: int
) -> Any:
    """The verification scan of one heap (splits `totals`, smaller parts up to `halves`) for
    the values below `cand` that `row` does not hold: the pairs whose larger part is below `n0`
    from the smaller part `a` up (the splits in turn, `STEP` pairs at a time), or with a = 0
    the pairs whose larger part is at least `n0`. Returns the smaller part from which nothing
    was scanned, the values still not reached and the pairs scanned."""
    need = 0
    for x in range(cand):
        if not row[x]:
            want[x] = 1
            need += 1
    step = _ALL if m == 1 or a == 0 else STEP
    top = 0
    for i in range(m):
        top = max(top, halves[i])
    pairs = 0
    start = max(a, 1)
    while need > 0 and start <= top:
        for i in range(m):
            t = totals[i]
            lo = start if a == 0 else max(start, t - n0 + 1)
            hi = min(halves[i], t - n0 if a == 0 else start + step - 1)
            if lo <= hi and need > 0:
                end, need = _scan(values, row, want, t, lo, hi, need)
                pairs += end - lo
                if m == 1:  # where one split's scan stopped
                    a = end
        if need > 0:
            start = top + 1 if step == _ALL else start + step
    if m > 1:
        a = start  # the pairs of the last step are scanned again if the scan goes on
    for x in range(cand):
        want[x] = 0
    return a, need, pairs


@njit(cache=True, nogil=True)
def _candidate(row: Any, common: Any, has0: bool, has1: bool, cand: int, span: int) -> Any:
    """The least value from `cand` on that no option reached and that is common at every
    split's parity (no pair of common values can reach it); and how many values below it, not
    reached, are still to be shown reached."""
    need = 0
    while cand < span:
        if not row[cand]:
            if (not has0 or common[0, cand]) and (not has1 or common[1, cand]):
                break
            need += 1
        cand += 1
    return cand, need


def _extend_blocks(  # type: ignore[no-untyped-def]
    values,
    start,
    stop,
    leave_one,
    take_all,
    split_after,
    unequal,
    sparse,
    common,
    rare,
    nrare,
    width,
    block,
):
    """Fill values[start:stop] a block of heaps at a time; returns (heaps done up to, rare
    count, largest value, pairs XORed). Stops early when the rare buffer is full.

    Every value is below `width` (a power of two) when the run starts, so every XOR of two is
    below 2 * width; the run stops after the first heap whose value reaches `width`, and the
    caller doubles it. reached[j, v] = 1 when heap n0 + j has an option of value v.
    """
    nsplit = max(split_after.shape[0], 1)
    span = 2 * width
    words = (span + 8) // 8  # a row as 64-bit words: cleared 8 values at a time
    cleared = np.zeros((block, words), dtype=np.uint64)
    reached = cleared.view(np.uint8)
    wanted = np.zeros((block, span + 1), dtype=np.uint8)
    totals = np.zeros((block, nsplit), dtype=np.int64)
    halves = np.zeros((block, nsplit), dtype=np.int64)
    splits = np.zeros(block, dtype=np.int64)
    resume = np.zeros(block, dtype=np.int64)
    cands = np.zeros(block, dtype=np.int64)
    needs = np.zeros(block, dtype=np.int64)
    counted = np.zeros(block, dtype=np.int64)
    largest = 0
    pairs = 0
    n0 = start
    while n0 < stop:
        size = min(block, stop - n0)
        known = nrare  # the rare positions below n0
        for j in prange(size):  # phase 1: the options made of values known before the block
            n = n0 + j
            row = reached[j]
            clear = cleared[j]
            for w in range(words):
                clear[w] = 0
            for i in range(take_all.shape[0]):
                if take_all[i] == n:
                    row[0] = 1
            for i in range(leave_one.shape[0]):
                k = leave_one[i]
                if k < n and n - k < n0:
                    row[values[n - k]] = 1
            m = 0
            has0 = False
            has1 = False
            for i in range(split_after.shape[0]):
                t = n - split_after[i]
                hi = (t - 1) >> 1 if unequal else t >> 1
                if t < 2 or hi < 1:
                    continue
                totals[j, m] = t
                halves[j, m] = hi
                m += 1
                has1 |= t & 1 == 1
                has0 |= t & 1 == 0
            splits[j] = m
            count = 0
            if not sparse:
                for i in range(m):
                    t = totals[j, i]
                    for a in range(max(1, t - n0 + 1), halves[j, i] + 1):
                        row[values[a] ^ values[t - a]] = 1
                        count += 1
                counted[j] = count
                continue
            for i in range(m):  # every pair with a rare part: the only ones reaching a common value
                t = totals[j, i]
                # the rare parts a <= t - n0 make pairs of the block (phase 2)
                for r in range(np.searchsorted(rare[:known], t - n0, side="right"), known):
                    a = rare[r]
                    if a >= t:
                        break
                    if unequal and a + a == t:
                        continue  # no pair at all
                    row[values[a] ^ values[t - a]] = 1
                    count += 1
            cand, need = _candidate(row, common, has0, has1, 0, span)
            a = 1
            if need > 0:
                a, need, scanned = _scan_splits(
                    values, row, wanted[j], totals[j], halves[j], m, cand, 1, n0
                )
                count += scanned
            resume[j] = a
            cands[j] = cand
            needs[j] = need
            counted[j] = count
        for j in range(size):  # phase 2, in heap order: the options of the block
            n = n0 + j
            row = reached[j]
            m = splits[j]
            count = counted[j]
            cand = cands[j]
            for i in range(leave_one.shape[0]):
                k = leave_one[i]
                if k < n and n - k >= n0:
                    row[values[n - k]] = 1
            has0 = False
            has1 = False
            for i in range(m):
                t = totals[j, i]
                has1 |= t & 1 == 1
                has0 |= t & 1 == 0
                if not sparse:  # every pair whose larger part lies in the block
                    for a in range(1, min(halves[j, i], t - n0) + 1):
                        row[values[a] ^ values[t - a]] = 1
                        count += 1
                    continue
                # the rare pairs of the block: a small rare part, or a rare part in the block
                for r in range(known):
                    a = rare[r]
                    if a > t - n0:
                        break
                    if not (unequal and a + a == t):
                        row[values[a] ^ values[t - a]] = 1
                        count += 1
                for r in range(known, nrare):
                    b = rare[r]
                    if b < t and not (unequal and b + b == t):
                        row[values[b] ^ values[t - b]] = 1
                        count += 1
            x = 0
            if not sparse:
                while row[x]:
                    x += 1
            else:
                need = needs[j]
                if row[cand]:  # a pair of the block reached the candidate: the next one
                    cand, more = _candidate(row, common, has0, has1, cand + 1, span)
                    need += more
                if need > 0:  # the pairs not scanned: those of the block, then known ones
                    _, need, scanned = _scan_splits(
                        values, row, wanted[j], totals[j], halves[j], m, cand, 0, n0
                    )
                    count += scanned
                if need > 0:
                    _, need, scanned = _scan_splits(
                        values, row, wanted[j], totals[j], halves[j], m, cand, resume[j], n0
                    )
                    count += scanned
                x = cand
                if need > 0:
                    x = 0
                    while row[x]:
                        x += 1
            values[n] = x
            pairs += count
            largest = max(largest, x)
            if sparse and common[n & 1, x] == 0:
                rare[nrare] = n
                nrare += 1
                if nrare == rare.shape[0]:
                    return n + 1, nrare, largest, pairs
            if x >= width or x >= 65535:  # past the marks, or the limit: the caller sees
                return n + 1, nrare, largest, pairs
        n0 += size
    return stop, nrare, largest, pairs


def _extend_one(  # type: ignore[no-untyped-def]
    values,
    start,
    stop,
    leave_one,
    take_all,
    split_after,
    unequal,
    sparse,
    common,
    rare,
    nrare,
    seen,
):
    """Fill values[start:stop] one heap at a time (one worker); returns (heaps done up to,
    rare count, largest value, pairs XORed).

    Stops early when the rare buffer is full or a value reaches the 16-bit limit.
    """
    largest = 0
    pairs = 0
    nsplit = split_after.shape[0]
    totals = np.zeros(max(nsplit, 1), dtype=np.int64)
    # the values still to be shown reached, as flags: one load per pair in the scans
    want = np.zeros(65538, dtype=np.uint8)
    halves = np.zeros(max(nsplit, 1), dtype=np.int64)

    def claim(value: int, mark: np.int32) -> int:
        # one value shown reached: 1 when it was still wanted, else 0 (numba inlines it)
        if want[value]:
            want[value] = 0
            seen[value] = mark
            return 1
        return 0

    for n in range(start, stop):
        mark = np.int32(n + 1)
        for i in range(take_all.shape[0]):
            if take_all[i] == n:
                seen[0] = mark
        for i in range(leave_one.shape[0]):
            k = leave_one[i]
            if k < n:
                seen[values[n - k]] = mark
        amax = 0
        has0 = False
        has1 = False
        m = 0  # splits with at least one pair, their totals and largest smaller parts
        for i in range(nsplit):
            t = n - split_after[i]
            if t < 2:
                continue
            hi = (t - 1) >> 1 if unequal else t >> 1
            if hi < 1:
                continue
            totals[m] = t
            halves[m] = hi
            m += 1
            amax = max(amax, hi)
            if t & 1:
                has1 = True
            else:
                has0 = True
        if not sparse:
            for i in range(m):
                t = totals[i]
                for a in range(1, halves[i] + 1):
                    seen[values[a] ^ values[t - a]] = mark
                pairs += halves[i]
            x = 0
            while seen[x] == mark:
                x += 1
        else:
            # every pair with a rare part: the only pairs that can reach a common value
            for i in range(m):
                t = totals[i]
                for j in range(nrare):
                    a = rare[j]
                    if a >= t:
                        break
                    if unequal and a + a == t:
                        continue  # Grundy's game: no split into equal heaps
                    seen[values[a] ^ values[t - a]] = mark
                    pairs += 1
            # the least value no common pair can reach and no rare pair reached
            need = 0
            cand = 0
            while True:
                if seen[cand] != mark:
                    if (not has0 or common[0, cand]) and (not has1 or common[1, cand]):
                        break
                    need += 1
                cand += 1
            # verification: every value below the candidate must be shown reached
            if need > 0:
                if m == 1:
                    t = totals[0]
                    hi = halves[0]
                    for x in range(cand):
                        if seen[x] != mark:
                            want[x] = 1
                    a = 1
                    while a + 3 <= hi and need > 0:
                        b = t - a
                        v0 = values[a] ^ values[b]
                        v1 = values[a + 1] ^ values[b - 1]
                        v2 = values[a + 2] ^ values[b - 2]
                        v3 = values[a + 3] ^ values[b - 3]
                        a += 4
                        if want[v0] | want[v1] | want[v2] | want[v3]:
                            need -= claim(v0, mark) + claim(v1, mark)
                            need -= claim(v2, mark) + claim(v3, mark)
                    while a <= hi and need > 0:
                        need -= claim(values[a] ^ values[t - a], mark)
                        a += 1
                    for x in range(cand):
                        want[x] = 0
                    pairs += a - 1
                else:
                    for x in range(cand):
                        if seen[x] != mark:
                            want[x] = 1
                    a = 1
                    while need > 0 and a <= amax:
                        for i in range(m):
                            if a > halves[i]:
                                continue
                            need -= claim(values[a] ^ values[totals[i] - a], mark)
                        pairs += m
                        a += 1
                    for x in range(cand):
                        want[x] = 0
            x = 0
            while x < cand and seen[x] == mark:
                x += 1
        values[n] = x
        if x > largest:
            largest = x
        if x >= 65535:
            return n + 1, nrare, largest, pairs
        if sparse and common[n & 1, x] == 0:
            rare[nrare] = n
            nrare += 1
            if nrare == rare.shape[0]:
                return n + 1, nrare, largest, pairs
    return stop, nrare, largest, pairs
