"""Single-heap value sequences of splitting games at research scale: the sparse-space method.

For octal games with finitely many non-zero digits and Grundy's game. The values are split into
*common* and *rare* ones such that the XOR of two common values is never common (a parity mask
chosen from the value counts by a Walsh-Hadamard transform, optionally with the position's parity
as one more bit); each heap then XORs only the pairs involving a rare position, takes the least
common value not reached as its candidate, and verifies every rare value below it by scanning the
splits until each has appeared. Games without a sparse space get the naive method, in the same
compiled kernel (numba). Values are 16-bit.

With several workers, the block kernel computes heaps a block at a time on numba's threads
(``prange``): the pairs of values known before the block in parallel, heap by heap, then the
few pairs whose larger part lies in the block in order; the same values as one worker, in both
the sparse and the naive (quadratic) method.

Memory: the whole sequence stays in memory (2 bytes a value). A window would do for the
verification scans, but not for the rare pairs, which read G(t - r) for every rare position r
(and the hard codes' rare positions never stop), nor for the naive method and the period search,
which read every value; the --memory guard names the limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.errors import ValueLimitError
from explorer.games.heaps import HeapGame, SplitRules
from explorer.machine import check_memory_need
from explorer.solver.periods import GuySmith, proof_length, proven_period

#: Values are stored as 16-bit integers; the value 65535 is refused (it would not fit the mex).
VALUE_LIMIT = 65_535
#: Extended values: the value in the low 16 bits, the position's parity in bit 16.
_PARITY_BIT = 1 << 16
#: The method is sparse when at most this share of positions is rare, else naive.
SPARSE_SHARE = 1 / 4
#: Heaps computed by the naive method before a split is first chosen.
FIRST_SPLIT = 256
#: Below this many values a sequence is computed by numpy (no compiler to start).
COMPILED_FROM = 30_000
#: Positions a numpy step over the whole sequence takes at a time (flat memory).
BLOCK = 1 << 16
#: Most heaps the parallel kernel computes as one block (its threads share a block's heaps).
BLOCK_HEAPS = 512

Progress = Callable[[int, int], None]


def _parity_split(rules: SplitRules) -> bool:
    """Whether the position's parity may join the split: every split total n - k then has the
    parity of n plus one fixed parity."""
    return len({k & 1 for k in rules.split_after}) == 1


def memory_needed(upto: int) -> int:
    """Bytes a sequence G(0..upto) needs: the 16-bit values, at most as many rare positions
    (int64, in a buffer twice their number) as the sparse method keeps before falling back to
    the naive one, and the period search's z (32-bit, for at most half of the values)."""
    return 2 * (upto + 1) + int(16 * SPARSE_SHARE * (upto + 1)) + 2 * (upto + 1) + (1 << 21)


def check_memory(upto: int, max_memory_mb: int) -> None:
    """Refuse a run whose arrays would exceed `max_memory_mb` MiB, saying what it needs."""
    what = f"G(0..{upto:,}) needs"
    check_memory_need(memory_needed(upto), max_memory_mb, what, option="--memory")


def _kernel() -> Any:
    """The compiled per-heap loop (numba, cached on disk; compiled on first use)."""
    global _compiled
    if _compiled is None:
        from numba import njit

        _compiled = njit(cache=True, nogil=True)(_extend_py)
    return _compiled


_compiled: Any = None  # numba's dispatcher, once compiled


def _extend_py(  # type: ignore[no-untyped-def]
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
    """Fill values[start:stop]; returns (heaps done up to, rare count, largest value, pairs).

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


def _parallel_kernel() -> Any:
    """The block kernel, its heaps spread over numba's threads (compiled on first use)."""
    global _parallel, prange
    if _parallel is None:
        import os

        from numba import config, njit, prange

        if "NUMBA_THREADING_LAYER" not in os.environ:
            # numba's own pool: its threads sleep at the end of a block, where OpenMP's spin
            # (4 to 5 times the CPU time on a loaded machine, measured) and wait for a core
            setattr(config, "THREADING_LAYER", "workqueue")  # noqa: B010 (not typed)
        _parallel = njit(cache=True, nogil=True, parallel=True)(_extend_blocks_py)
    return _parallel


_parallel: Any = None  # numba's dispatcher of the block kernel, once compiled
prange = range  # numba's parallel range once the block kernel is compiled (numba reads globals)


def _extend_blocks_py(  # type: ignore[no-untyped-def]
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
    """Fill values[start:stop] a block of heaps at a time, as `_extend_py` does one by one;
    returns the same (heaps done up to, rare count, largest value, pairs).

    A block's heaps n0 <= n < n0 + block depend on values below n0 through every pair but the
    few whose larger part lies in the block. Phase 1 (``prange``: the heaps spread over
    numba's threads) marks, for each heap, every option made of known values: the rare pairs
    and the verification scan (from the least known pair up, until each value below the
    candidate is reached), or every pair without a sparse split. Phase 2 (in heap order) adds
    the pairs whose larger part lies in the block, takes the candidate again and continues the
    scan where phase 1 stopped when a larger candidate needs more values verified.

    Every value is below `width` (a power of two) when the run starts, so every XOR of two is
    below 2 * width; the run stops after the first heap whose value reaches `width`, and the
    caller doubles it. The marks are per heap of the block: mark[j, v] = 1 when v is reached.
    """
    nsplit = split_after.shape[0]
    span = 2 * width
    mark = np.zeros((block, span + 1), dtype=np.uint8)
    totals = np.zeros((block, max(nsplit, 1)), dtype=np.int64)
    halves = np.zeros((block, max(nsplit, 1)), dtype=np.int64)
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
        for j in prange(size):
            n = n0 + j
            stamp = 1
            row = mark[j]
            row[:] = 0
            for i in range(take_all.shape[0]):
                if take_all[i] == n:
                    row[0] = stamp
            for i in range(leave_one.shape[0]):
                k = leave_one[i]
                if k < n and n - k < n0:
                    row[values[n - k]] = stamp
            m = 0
            has0 = False
            has1 = False
            amax = 0
            for i in range(nsplit):
                t = n - split_after[i]
                if t < 2:
                    continue
                hi = (t - 1) >> 1 if unequal else t >> 1
                if hi < 1:
                    continue
                totals[j, m] = t
                halves[j, m] = hi
                m += 1
                amax = max(amax, hi)
                if t & 1:
                    has1 = True
                else:
                    has0 = True
            splits[j] = m
            count = 0
            if not sparse:
                for i in range(m):
                    t = totals[j, i]
                    for a in range(max(1, t - n0 + 1), halves[j, i] + 1):
                        row[values[a] ^ values[t - a]] = stamp
                        count += 1
                counted[j] = count
                continue
            for i in range(m):
                t = totals[j, i]
                for r in range(known):
                    a = rare[r]
                    if a >= t:
                        break
                    if t - a >= n0 or (unequal and a + a == t):
                        continue  # a pair of the block (phase 2), or no pair at all
                    row[values[a] ^ values[t - a]] = stamp
                    count += 1
            need = 0
            cand = 0
            while cand < span:  # a common value below 2 * width is never reached
                if row[cand] != stamp:
                    if (not has0 or common[0, cand]) and (not has1 or common[1, cand]):
                        break
                    need += 1
                cand += 1
            a = 1
            if m == 1:  # one split: the scan in its simplest form
                t = totals[j, 0]
                hi = halves[j, 0]
                a = max(1, t - n0 + 1)
                while need > 0 and a + 3 <= hi:  # four pairs a step: one branch mostly
                    b = t - a
                    v0 = values[a] ^ values[b]
                    v1 = values[a + 1] ^ values[b - 1]
                    v2 = values[a + 2] ^ values[b - 2]
                    v3 = values[a + 3] ^ values[b - 3]
                    a += 4
                    if (
                        (row[v0] != stamp)
                        | (row[v1] != stamp)
                        | (row[v2] != stamp)
                        | (row[v3] != stamp)
                    ):
                        for v in (v0, v1, v2, v3):
                            if row[v] != stamp:
                                row[v] = stamp
                                if v < cand:
                                    need -= 1
                while need > 0 and a <= hi:
                    v = values[a] ^ values[t - a]
                    if row[v] != stamp:
                        row[v] = stamp
                        if v < cand:
                            need -= 1
                    a += 1
                count += a - 1
            else:
                while need > 0 and a <= amax:
                    for i in range(m):
                        t = totals[j, i]
                        if a > halves[j, i] or t - a >= n0:
                            continue
                        v = values[a] ^ values[t - a]
                        if row[v] != stamp:
                            row[v] = stamp
                            if v < cand:
                                need -= 1
                    count += m
                    a += 1
            resume[j] = a
            cands[j] = cand
            needs[j] = need
            counted[j] = count
        for j in range(size):
            n = n0 + j
            stamp = 1
            row = mark[j]
            m = splits[j]
            count = 0
            cand = cands[j]
            need = needs[j]
            moved = False  # whether a move of the block reached phase 1's candidate
            for i in range(leave_one.shape[0]):
                k = leave_one[i]
                if k < n and n - k >= n0:
                    v = values[n - k]
                    if row[v] != stamp:
                        row[v] = stamp
                        if v < cand:
                            need -= 1
                        elif v == cand:
                            moved = True
            has0 = False
            has1 = False
            amax = 0
            for i in range(m):
                t = totals[j, i]
                amax = max(amax, halves[j, i])
                if t & 1:
                    has1 = True
                else:
                    has0 = True
                if not sparse:  # every pair whose larger part lies in the block
                    for a in range(1, min(halves[j, i], t - n0) + 1):
                        row[values[a] ^ values[t - a]] = stamp
                        count += 1
                    continue
                # the rare pairs of the block: a small rare part, or a rare part in the block
                for r in range(known):
                    a = rare[r]
                    if a > t - n0:
                        break
                    if not (unequal and a + a == t):
                        v = values[a] ^ values[t - a]
                        if row[v] != stamp:
                            row[v] = stamp
                            if v < cand:
                                need -= 1
                            elif v == cand:
                                moved = True
                        count += 1
                for r in range(known, nrare):
                    b = rare[r]
                    if b < t and not (unequal and b + b == t):
                        v = values[b] ^ values[t - b]
                        if row[v] != stamp:
                            row[v] = stamp
                            if v < cand:
                                need -= 1
                            elif v == cand:
                                moved = True
                        count += 1
            x = 0
            if not sparse:
                while row[x] == stamp:
                    x += 1
            else:
                # phase 1's candidate stands unless a pair of the block reached it
                if moved:
                    cand += 1
                    while cand < span:
                        if row[cand] != stamp:
                            if (not has0 or common[0, cand]) and (not has1 or common[1, cand]):
                                break
                            need += 1
                        cand += 1
                # the pairs not yet scanned: known ones from where phase 1 stopped, and the
                # pairs of the block
                a = 1
                first = resume[j]
                while need > 0 and a <= amax:
                    for i in range(m):
                        t = totals[j, i]
                        if a > halves[j, i] or (a < first and t - a < n0):
                            continue
                        v = values[a] ^ values[t - a]
                        if row[v] != stamp:
                            row[v] = stamp
                            if v < cand:
                                need -= 1
                    count += m
                    a += 1
                if need == 0:
                    x = cand
                else:
                    while x < cand and row[x] == stamp:
                        x += 1
            counted[j] += count
            values[n] = x
            pairs += counted[j]
            if x > largest:
                largest = x
            if sparse and common[n & 1, x] == 0:
                rare[nrare] = n
                nrare += 1
                if nrare == rare.shape[0]:
                    return n + 1, nrare, largest, pairs
            if x >= width or x >= 65535:  # past the marks, or the limit: the caller sees
                return n + 1, nrare, largest, pairs
        n0 += size
    return stop, nrare, largest, pairs


def _walsh_hadamard(counts: np.ndarray) -> np.ndarray:
    """The Walsh-Hadamard transform of a histogram whose length is a power of two."""
    h = counts.astype(np.int64)
    size = h.size
    step = 1
    while step < size:
        h = h.reshape(-1, 2, step)
        h = np.concatenate([h[:, 0] + h[:, 1], h[:, 0] - h[:, 1]], axis=1).reshape(-1)
        step *= 2
    return h


def choose_mask(
    values: np.ndarray, upto: int, *, parity: bool, first: int = 1, offset: int = 0
) -> tuple[int, int]:
    """The parity mask (bit 16: the position's parity, XOR `offset`) with the fewest rare
    positions among first..upto-1, and that number. A position is common when
    popcount(extended value & mask) is odd; the XOR of two common values is then never common.
    Of masks as good, the least is taken (ordered by value mask, then without the parity bit).

    Examples
    --------
    >>> choose_mask(np.array([0, 1, 2, 1, 2, 1, 2], dtype=np.uint16), 7, parity=False)
    (3, 0)
    """
    bits = max(int(values[first:upto].max(initial=0)).bit_length(), 1)
    counts = np.zeros(1 << (bits + parity), dtype=np.int64)
    for start, part in _blocks(values, upto, first):
        extended = part.astype(np.int64)
        if parity:
            positions = np.arange(start, start + part.size, dtype=np.int64) ^ offset
            extended |= (positions & 1) << bits
        counts += np.bincount(extended, minlength=counts.size)
    transform = _walsh_hadamard(counts)
    # rare(m) = (positions + H(m)) / 2: the fewest rare positions where H is least
    transform[0] = np.iinfo(np.int64).max
    order = transform.reshape(1 + parity, 1 << bits).T.reshape(-1)  # value mask, then parity
    at = int(np.argmin(order))
    mask, with_parity = at >> parity, at & parity
    rare = (max(upto - first, 0) + int(order[at])) // 2
    return mask | (_PARITY_BIT if with_parity else 0), rare


def _blocks(values: np.ndarray, upto: int, first: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """values[first:upto] a block at a time, with each block's first position: whole-sequence
    temporaries of 64-bit integers would take 4x the 16-bit values."""
    for start in range(first, upto, BLOCK):
        yield start, values[start : min(start + BLOCK, upto)]


def common_table(mask: int) -> np.ndarray:
    """common[p, v]: whether value v at parity p (of a position or a split's total) is common."""
    v = np.arange(1 << 16, dtype=np.int64)
    table = np.empty((2, 1 << 16), dtype=np.uint8)
    for p in (0, 1):
        bits = (v | (p << 16)) & mask
        table[p] = _popcount(bits) & 1
    return table


def _popcount(x: np.ndarray) -> np.ndarray:
    count = np.zeros_like(x)
    while x.any():
        count += x & 1
        x = x >> 1
    return count


@dataclass
class SparseRun:
    """The state of one run: the values so far and how the last heaps were computed."""

    values: np.ndarray
    done: int
    largest: int
    method: str = "naive"
    mask: int = 0
    rare: int = 0
    pairs: int = 0


def extend_values(
    rules: SplitRules,
    values: np.ndarray,
    done: int,
    upto: int,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[int], bool] | None = None,
    naive: bool = False,
    workers: int = 1,
) -> SparseRun:
    """Compute values[done..upto] of a splitting game in place (values: uint16, length > upto).

    The split between common and rare values is revised at every power of two and whenever the
    rare positions outgrow their buffer. `progress(heaps_done, largest)` is called between chunks;
    `should_stop(heaps_done)` ends the run early (the values up to the returned ``done`` are
    final). `naive` computes every pair of every heap (the reference the tests compare with).
    `workers` > 1 computes blocks of heaps on that many of numba's threads (the same values).

    Examples
    --------
    >>> from explorer import load_game
    >>> rules = load_game("kayles").split_rules
    >>> v = np.zeros(13, dtype=np.uint16)
    >>> extend_values(rules, v, 0, 12).done, v.tolist()
    (13, [0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4])
    """
    kernel = _kernel() if workers == 1 else _parallel_kernel()
    if workers > 1:
        from numba import set_num_threads

        set_num_threads(workers)
    leave_one = np.array(rules.leave_one, dtype=np.int64)
    take_all = np.array(rules.take_all, dtype=np.int64)
    split_after = np.array(rules.split_after, dtype=np.int64)
    seen = np.zeros(VALUE_LIMIT + 2, dtype=np.int32)
    largest = int(values[:done].max(initial=0))
    run = SparseRun(values, done, largest)
    common = np.zeros((2, 1 << 16), dtype=np.uint8)
    rare = np.zeros(1, dtype=np.int64)
    nrare = 0
    sparse = False
    revise_at = upto + 1 if naive else max(done, 1)
    chunk = 4096
    stop_at = upto + 1
    while run.done < stop_at:
        n = run.done
        if n >= revise_at and not naive:
            sparse, common, rare, nrare = _revise(rules, values, n, run)
            revise_at = max(FIRST_SPLIT, 1 << n.bit_length())
        end = min(stop_at, revise_at, n + chunk)
        began = time.perf_counter()
        if workers == 1:
            tail: tuple[Any, ...] = (seen,)
        else:  # every value so far below width, a block's marks in a few MiB
            width = 1 << max(run.largest.bit_length(), 1)
            tail = (width, max(16, min(BLOCK_HEAPS, (1 << 20) // (2 * width + 1))))
        reached, nrare, top, pairs = kernel(
            values,
            n,
            end,
            leave_one,
            take_all,
            split_after,
            rules.unequal,
            sparse,
            common,
            rare,
            nrare,
            *tail,
        )
        run.pairs += pairs
        run.done = reached
        run.largest = max(run.largest, int(top))
        run.rare = nrare
        if run.largest >= VALUE_LIMIT:
            raise ValueLimitError(
                f"G({reached - 1:,}) reaches {VALUE_LIMIT:,}: values past 16 bits are not supported"
            )
        if sparse and nrare == rare.size and reached < stop_at:
            revise_at = reached  # buffer full: choose again, with room to grow
        spent = time.perf_counter() - began
        # chunks of about a quarter of a second keep the progress bar live
        chunk = int(min(max(chunk * (0.25 / spent if spent > 0 else 2), 64), 1 << 20))
        if progress is not None:
            progress(run.done, run.largest)
        if should_stop is not None and should_stop(run.done):
            break
    return run


def _revise(
    rules: SplitRules, values: np.ndarray, n: int, run: SparseRun
) -> tuple[bool, np.ndarray, np.ndarray, int]:
    """Choose the split for the heaps from n on; naive when too many positions would be rare."""
    if n < FIRST_SPLIT or not rules.split_after:
        run.method, run.mask = "naive", 0
        return False, np.zeros((2, 1 << 16), dtype=np.uint8), np.zeros(1, dtype=np.int64), 0
    mask, rare_count = choose_mask(values, n, parity=_parity_split(rules))
    if rare_count > SPARSE_SHARE * n:
        run.method, run.mask = "naive", 0
        return False, np.zeros((2, 1 << 16), dtype=np.uint8), np.zeros(1, dtype=np.int64), 0
    common = common_table(mask)
    rare_positions = np.concatenate(
        [np.zeros(0, dtype=np.int64)]
        + [
            first + np.flatnonzero(common[(first + np.arange(part.size)) & 1, part] == 0)
            for first, part in _blocks(values, n)
        ]
    )
    capacity = max(2 * rare_positions.size, 1024)
    rare = np.zeros(capacity, dtype=np.int64)
    rare[: rare_positions.size] = rare_positions
    run.method, run.mask = "sparse", mask
    return True, common, rare, int(rare_positions.size)


@dataclass(frozen=True)
class SummaryRows:
    """The summary rows of a value sequence G(0..N-1), in the sense of the public octal-game
    tables (T. Czajka's): the largest value and the first heap where it falls; the parity mask
    that makes the fewest positions rare (a position is rare when popcount(G(n) & mask) is
    even, the position's parity counting as one more bit where the game's splits allow it),
    how many of the N positions are rare under it, and the last of them. No rare row for games
    that do not split heaps."""

    largest: int
    at: int
    mask: int | None = None
    rare: int | None = None
    last: int | None = None

    @property
    def mask_text(self) -> str | None:
        """The mask as the tables write it: hex digits, ``+pos`` with the parity bit."""
        if self.mask is None:
            return None
        text = f"{self.mask & (_PARITY_BIT - 1):x}"
        return text + "+pos" if self.mask & _PARITY_BIT else text

    def to_dict(self) -> dict[str, object]:
        """``largest: {value, at}`` and ``rare: {mask, count, last}`` (None without splits)."""
        rare = None
        if self.mask is not None:
            rare = {"mask": self.mask_text, "count": self.rare, "last": self.last}
        return {"largest": {"value": self.largest, "at": self.at}, "rare": rare}


def summary_rows(values: np.ndarray, rules: SplitRules | None) -> SummaryRows:
    """The summary rows of G(0..len(values)-1) (see `SummaryRows`); with the position's parity
    taken as n XOR the parity of the tokens a split removes, as the tables do.

    Examples
    --------
    >>> from explorer import load_game
    >>> kayles = load_game("kayles")
    >>> summary_rows(kayles.heap_values(99), kayles.split_rules)
    SummaryRows(largest=8, at=27, mask=15, rare=10, last=70)
    """
    count = len(values)
    at = int(np.argmax(values)) if count else 0
    largest = int(values[at]) if count else 0
    if rules is None or not rules.split_after or largest > VALUE_LIMIT:
        return SummaryRows(largest, at)
    parity = _parity_split(rules)
    offset = rules.split_after[0] & 1 if parity else 0
    mask, rare = choose_mask(values, count, parity=parity, first=0, offset=offset)
    common = common_table(mask)
    last = 0
    for start, part in _blocks(values, count, 0):
        flags = common[((start + np.arange(part.size)) ^ offset) & 1, part] == 0
        if flags.any():
            last = start + int(np.flatnonzero(flags)[-1])
    return SummaryRows(largest, at, mask, rare, last)


def fletcher32(values: np.ndarray) -> int:
    """Fletcher-32 of a sequence of 16-bit values (sums modulo 65535, from 0).

    Examples
    --------
    >>> hex(fletcher32(np.array([0x6261, 0x6463, 0x0065], dtype=np.uint16)))  # "abcde"
    '0xf04fc729'
    """
    words = np.asarray(values)
    count = words.size
    sum1 = 0
    sum2 = 0
    for start in range(0, count, BLOCK):
        part = words[start : start + BLOCK].astype(np.int64)  # a block at a time: flat memory
        # word i contributes to sum2 once for every prefix that contains it
        weights = (count - start - np.arange(part.size, dtype=np.int64)) % 65535
        sum1 = (sum1 + int(part.sum())) % 65535
        sum2 = (sum2 + int((weights * part).sum() % 65535)) % 65535
    return (sum2 << 16) | sum1


@dataclass
class HeapSequence:
    """G(0..len(values)-1) of one heap, how they were computed, and the period they prove."""

    values: np.ndarray
    method: str
    proof: tuple[int, int] | None = None
    stored: int = 0

    @property
    def computed(self) -> int:
        return len(self.values)


def guy_smith(game: HeapGame) -> GuySmith | None:
    """The Guy-Smith theorem for this game, or None when it does not apply.

    It applies to every octal game with finitely many non-zero digits, ``4.`` codes included
    (the heap's own splits remove k = 0 tokens: the proof holds for removals 0..k), and to the
    take-and-break codes whose periodicity says so (at most h heaps left); a game says so by
    `HeapGame.guy_smith_parameters`.
    """
    found = game.guy_smith_parameters()
    return None if found is None else GuySmith(*found)


def heap_sequence(
    game: HeapGame,
    upto: int,
    *,
    until_periodic: bool = False,
    known: np.ndarray | None = None,
    progress: Progress | None = None,
    checkpoint: Callable[[np.ndarray, int], None] | None = None,
    max_memory_mb: int | None = None,
    workers: int = 1,
) -> HeapSequence:
    """G(0), ..., G(upto) of a heap game, or fewer when `until_periodic` and a period is proven.

    Splitting games (octal games, Grundy's game) past `COMPILED_FROM` values go through the
    compiled sparse-space kernel; the rest through the game's own table. `known` values (from
    the database) are taken as they are and the run continues after them; `checkpoint(values,
    done)` is called now and then with the values final so far, so a killed run can resume.
    `workers` threads share the compiled kernel's heaps (the same values).

    Examples
    --------
    >>> from explorer import load_game
    >>> seq = heap_sequence(load_game("kayles"), 10**6, until_periodic=True)
    >>> seq.proof, seq.computed
    ((71, 12), 168)
    """
    theorem = guy_smith(game) if until_periodic else None
    limit = max_memory_mb or game.max_memory_mb
    if theorem is None:
        check_memory(upto, limit)
    previous = np.zeros(0, dtype=np.uint16) if known is None else known
    stored = len(previous)
    proof: tuple[int, int] | None = None
    if theorem is not None and stored:
        proof = proven_period(previous, stored, theorem)
        if proof is not None:
            length = proof_length(*proof, theorem)
            return HeapSequence(previous[:length], "stored", proof, stored)
    if stored > upto:
        return HeapSequence(previous[: upto + 1], "stored", None, stored)
    rules = game.split_rules
    if rules is None or (upto < COMPILED_FROM and not stored):
        return _small_sequence(game, upto, theorem, progress, limit)
    if theorem is not None and not stored:
        # most proofs come early: look for one before starting the compiler
        first = _small_sequence(game, COMPILED_FROM - 1, theorem, progress, limit)
        if first.proof is not None:
            return first
        previous, stored = first.values, first.computed
    # a run that may stop at a proof grows its array by doubling, so a far bound costs nothing
    size = upto + 1 if theorem is None else min(upto + 1, max(2 * stored, 1 << 16))
    check_memory(size - 1, limit)
    values = np.zeros(size, dtype=np.uint16)
    values[:stored] = previous
    checked = max(stored, 16)
    saved = [stored, time.monotonic()]

    def should_stop(done: int) -> bool:
        nonlocal proof, checked
        if checkpoint is not None and time.monotonic() - saved[1] > CHECKPOINT_SECONDS:
            checkpoint(values, done)
            saved[:] = [done, time.monotonic()]
        if theorem is not None and done >= checked * 1.0625:
            checked = done
            proof = proven_period(values, done, theorem)
            return proof is not None
        return False

    done = stored
    method = "stored"
    while True:
        run = extend_values(
            rules,
            values,
            done,
            size - 1,
            progress=progress,
            should_stop=should_stop,
            workers=workers,
        )
        done = run.done
        method = run.method
        if proof is not None or done > upto:
            break
        size = min(upto + 1, 2 * size)
        check_memory(size - 1, limit)
        grown = np.zeros(size, dtype=np.uint16)
        grown[:done] = values[:done]
        values = grown
    if theorem is not None and proof is None:
        proof = proven_period(values, done, theorem)
    if theorem is not None and proof is not None:
        done = min(done, proof_length(*proof, theorem))
    if checkpoint is not None and done > saved[0]:
        checkpoint(values, done)
    return HeapSequence(values[:done], method, proof, stored)


#: Seconds between two checkpoints of a long run.
CHECKPOINT_SECONDS = 2.0


def _small_sequence(
    game: HeapGame,
    upto: int,
    theorem: GuySmith | None,
    progress: Progress | None,
    limit: int,
) -> HeapSequence:
    """Through the game's own table (numpy): doubling while looking for a proof."""
    if theorem is None:
        check_memory(upto, limit)
        table = game.heap_values(upto)
        if progress is not None:
            progress(upto + 1, int(table.max(initial=0)))
        return HeapSequence(table, "table")
    size = 64
    while True:
        size = min(size, upto + 1)
        check_memory(size - 1, limit)
        table = game.heap_values(size - 1)
        proof = proven_period(table, size, theorem)
        if progress is not None:
            progress(size, int(table.max(initial=0)))
        if proof is not None:
            return HeapSequence(table[: proof_length(*proof, theorem)], "table", proof)
        if size > upto:
            return HeapSequence(table, "table")
        size *= 2
