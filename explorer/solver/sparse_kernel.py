"""The compiled kernel of the sparse-space method (numba): a block of heaps at a time.

A block's heaps n0 <= n < n0 + size depend on values below n0 through every pair but the few
whose larger part lies in the block. Phase 1 (``prange``: the block's heaps are shared out over
numba's threads in interleaved runs of `RUN`) marks, for each heap, the options made of values
known before the block: the rare pairs, then the verification scan from the least such pair up
until each value below the candidate is shown reached (marking only those values); without a
sparse split, every pair. Phase 2 (in heap order, on one thread) adds the options whose larger
part lies in the block; if one of them reached the candidate, it takes the next one and scans
the known pairs again from the start, else it continues the scan where phase 1 stopped while a
value below the candidate is still not shown reached. One worker runs `_extend_one`, a heap at
a time, through the same scan; the tests compare the two kernels and the naive method.

Imported only where values are computed: it loads numba.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import config, njit, prange

#: Pairs a scan takes from each split in turn when a heap has several (one split: all at once).
STEP = 64
#: Heaps a thread takes in turn in a block's first phase (runs of them interleave).
RUN = 16
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
    >>> kernel(2)(values, 0, 13, moves, moves, moves, False, False, common, rare, 0, 16, 4, 2)[0]
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
            # "passive" with a spin count: a waiting thread spins through the short serial
            # phase 2 between two blocks (a block 6 % faster at 2^22 than sleeping at once),
            # then sleeps instead of holding a core that another process may need
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
            os.environ.setdefault("GOMP_SPINCOUNT", "100000")
            setattr(config, "THREADING_LAYER_PRIORITY", ["omp", "workqueue", "tbb"])  # noqa: B010
        _compiled[threaded] = njit(cache=True, nogil=True, parallel=True)(_extend_blocks)
    return _compiled[threaded]


_compiled: dict[bool, Any] = {}  # numba's dispatchers, by whether they use threads


@njit(cache=True, nogil=True, inline="always")
def _pair(values: Any, a: int, t: int) -> int:
    """The XOR of the pair (a, t - a), both parts at least 0: unsigned indices spare each load
    numba's test for a negative index."""
    return values[np.uint64(a)] ^ values[np.uint64(t - a)]  # type: ignore[no-any-return]


@njit(cache=True, nogil=True, inline="always")
def _claim(row: Any, want: Any, v: int, mark: Any) -> int:
    """Value v shown reached: 1 when it was still wanted (now marked in `row`), else 0."""
    if want[v]:
        want[v] = 0
        row[v] = mark
        return 1
    return 0


@njit(cache=True, nogil=True)
def _scan(values: Any, row: Any, want: Any, t: int, a: int, hi: int, need: int, mark: Any) -> Any:
    """The verification scan of the pairs (a', t - a') for a <= a' <= hi (a >= 1): stops once
    the `need` values flagged in `want` have all appeared, each marked `mark` in `row` as it
    appears (the other values reached are not marked). Returns the first a' not scanned and
    the values still needed."""
    # unsigned indices: no test for a negative index (numba's wraparound) on every load
    one, two, three, four = np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4)
    x = np.uint64(a)
    y = np.uint64(t - a)
    while need > 0 and a + 3 <= hi:  # four pairs a step, one branch mostly
        v0 = values[x] ^ values[y]
        v1 = values[x + one] ^ values[y - one]
        v2 = values[x + two] ^ values[y - two]
        v3 = values[x + three] ^ values[y - three]
        a += 4
        x += four
        y -= four
        if want[v0] | want[v1] | want[v2] | want[v3]:
            need -= _claim(row, want, v0, mark) + _claim(row, want, v1, mark)
            need -= _claim(row, want, v2, mark) + _claim(row, want, v3, mark)
    while need > 0 and a <= hi:
        need -= _claim(row, want, values[x] ^ values[y], mark)
        a += 1
        x += one
        y -= one
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
                end, need = _scan(values, row, want, t, lo, hi, need, 1)
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


@njit(cache=True, nogil=True)
def _known_options(  # type: ignore[no-untyped-def]
    values,
    n0,
    j,
    leave_one,
    take_all,
    split_after,
    unequal,
    sparse,
    common,
    rare,
    known,
    span,
    cleared,
    reached,
    wanted,
    totals,
    halves,
    splits,
    resume,
    cands,
    needs,
    counted,
):
    """Phase 1 for heap n0 + j: its options made of values known before the block (below
    n0), into reached[j], and where its verification scan stopped.

    Octal-digit cases: all three bits of a digit d_k, one array each. Bit 1 (take a whole heap
    of exactly k) is `take_all`; bit 2 (leave one heap n - k > 0) is `leave_one`; bit 4 (split
    the rest n - k into two non-empty heaps) is `split_after`, with `unequal` for a split whose
    two heaps must differ (Grundy's game); only bit 4 goes through the sparse scan.
    """
    words = cleared.shape[1]
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
                row[_pair(values, a, t)] = 1
                count += 1
        counted[j] = count
        return
    for i in range(m):  # every pair with a rare part: the only ones reaching a common value
        t = totals[j, i]
        # the rare parts a <= t - n0 make pairs of the block (phase 2)
        for r in range(np.searchsorted(rare[:known], t - n0, side="right"), known):
            a = rare[r]
            if a >= t:
                break
            if unequal and a + a == t:
                continue  # no pair at all
            row[_pair(values, a, t)] = 1
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
    shares,
):
    """Fill values[start:stop] a block of heaps at a time; returns (heaps done up to, rare
    count, largest value, pairs XORed). Stops early when the rare buffer is full.

    Every value is below `width` (a power of two) when the run starts, so every XOR of two is
    below 2 * width; the run stops after the first heap whose value reaches `width`, and the
    caller doubles it. reached[j, v] = 1 when heap n0 + j has an option of value v.

    Octal-digit cases: all three bits of a digit d_k, one array each. Bit 1 (take a whole heap
    of exactly k) is `take_all`; bit 2 (leave one heap n - k > 0) is `leave_one`; bit 4 (split
    the rest n - k into two non-empty heaps) is `split_after`, with `unequal` for a split whose
    two heaps must differ (Grundy's game); only bit 4 goes through the sparse scan.
    """
    nsplit = max(split_after.shape[0], 1)
    span = 2 * width
    # a row as 64-bit words, cleared 8 values at a time, in whole cache lines: two threads
    # never write to one line
    words = ((span + 8) // 8 + 7) & ~7
    cleared = np.zeros((block, words), dtype=np.uint64)
    reached = cleared.view(np.uint8)
    wanted = np.zeros((block, 8 * words), dtype=np.uint8)
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
        runs = (size + RUN - 1) // RUN
        # phase 1: the options made of values known before the block, each thread taking every
        # threads-th run of heaps (a heap's work drifts across a block: even shares)
        for share in prange(shares):
            for c in range(share, runs, shares):
                for j in range(c * RUN, min(c * RUN + RUN, size)):
                    _known_options(
                        values,
                        n0,
                        j,
                        leave_one,
                        take_all,
                        split_after,
                        unequal,
                        sparse,
                        common,
                        rare,
                        known,
                        span,
                        cleared,
                        reached,
                        wanted,
                        totals,
                        halves,
                        splits,
                        resume,
                        cands,
                        needs,
                        counted,
                    )
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
                        row[_pair(values, a, t)] = 1
                        count += 1
                    continue
                # the rare pairs of the block: a small rare part, or a rare part in the block
                for r in range(known):
                    a = rare[r]
                    if a > t - n0:
                        break
                    if not (unequal and a + a == t):
                        row[_pair(values, a, t)] = 1
                        count += 1
                for r in range(known, nrare):
                    b = rare[r]
                    if b < t and not (unequal and b + b == t):
                        row[_pair(values, b, t)] = 1
                        count += 1
            x = 0
            if not sparse:
                while row[x]:
                    x += 1
            else:
                need = needs[j]
                a = resume[j]
                if row[cand]:  # a pair of the block reached the candidate: the next one, and
                    # its values below not shown reached may be among the pairs phase 1 passed
                    cand, more = _candidate(row, common, has0, has1, cand + 1, span)
                    need += more
                    a = 1
                if need > 0:  # the pairs not scanned: those of the block, then known ones
                    _, need, scanned = _scan_splits(
                        values, row, wanted[j], totals[j], halves[j], m, cand, 0, n0
                    )
                    count += scanned
                if need > 0:
                    _, need, scanned = _scan_splits(
                        values, row, wanted[j], totals[j], halves[j], m, cand, a, n0
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

    Octal-digit cases: all three bits of a digit d_k, one array each. Bit 1 (take a whole heap
    of exactly k) is `take_all`; bit 2 (leave one heap n - k > 0) is `leave_one`; bit 4 (split
    the rest n - k into two non-empty heaps) is `split_after`, with `unequal` for a split whose
    two heaps must differ (Grundy's game); only bit 4 goes through the sparse scan.
    """
    largest = 0
    pairs = 0
    nsplit = split_after.shape[0]
    totals = np.zeros(max(nsplit, 1), dtype=np.int64)
    # the values still to be shown reached, as flags: one load per pair in the scans
    want = np.zeros(65538, dtype=np.uint8)
    halves = np.zeros(max(nsplit, 1), dtype=np.int64)

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
                    seen[_pair(values, a, t)] = mark
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
                    seen[_pair(values, a, t)] = mark
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
                    for x in range(cand):
                        if seen[x] != mark:
                            want[x] = 1
                    a, need = _scan(values, seen, want, totals[0], 1, halves[0], need, mark)
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
                            # by hand, not _claim: through it this loop ran 4-10x slower
                            v = _pair(values, a, totals[i])
                            if want[v]:
                                want[v] = 0
                                seen[v] = mark
                                need -= 1
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
