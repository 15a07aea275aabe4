"""The compiled kernel of the sparse-space method (numba): a block of heaps at a time.

A block's heaps n0 <= n < n0 + size depend on values below n0 through every pair but the few
whose larger part lies in the block. Phase 1 (runs of `RUN` heaps, each claimed by one member
of a team on numba's threads) marks, for each heap, the options made of values known before
the block: the rare pairs, then the verification scan from the least such pair up until each
value below the candidate is shown reached (marking only those values); without a sparse
split, every pair. Phase 2 (in heap order, by the first member to find every run done) adds
the options whose larger part lies in the block; if one of them reached the candidate, it
takes the next one and scans the known pairs again from the start, else it continues the scan
where phase 1 stopped while a value below the candidate is still not shown reached. One worker
runs `_extend_one`, a heap at a time, through the same scan; the tests compare the two kernels
and the naive method.

No member waits for another that the system has stopped (a busy machine): the team shares
runs through a state word per run, a member that runs out of work does a run still claimed by
another itself at once (whichever copy is done first is kept), and a member waiting for phase
2 naps after `SPIN` checks. One team serves a whole call: numba starts its threads once a
call, not once a block.

Imported only where values are computed: it loads numba.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from llvmlite import ir
from numba import config, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

#: Pairs a scan takes from each split in turn when a heap has several (one split: all at once).
STEP = 64
#: Heaps a team member claims at a time in a block's first phase.
RUN = 16
#: Unbounded, for a range without an end.
_ALL = 1 << 62
#: Checks a team member makes while another member does phase 2 before it naps.
SPIN = 20000
#: A waiting member's nap, in microseconds: its core goes to the member it waits for.
NAP = np.int32(50)

# A run's state: its block's number << _GEN, then free (0), claimed (_CLAIMED) or done by
# member m (_DONE_BY + m), its marks in that member's rows.
_GEN = 16
_CLAIMED = 1
_DONE_BY = 2
# The team's words: the block open to it (-1: stop), the last block whose phase 2 a member
# took, then the results: heaps done up to, rare count, largest value, pairs XORed.
_BLOCK, _PHASE2, _DONE, _RARE, _LARGEST, _PAIRS = range(6)
_TEAM = 6
# What phase 1 leaves of a heap for phase 2: splits, where its scan stopped, its candidate,
# the values still to be shown reached, the pairs XORed.
_SPLITS, _RESUME, _CANDIDATE, _NEED, _COUNTED = range(5)
_FOUND = 5


def kernel(workers: int) -> Any:
    """The kernel for `workers` threads (numba, cached on disk; compiled on first use): one
    heap at a time for one, the block kernel's team on numba's threads for more.

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
            # GNU OpenMP first, its threads sleeping at once when they wait: the team waits
            # in the kernel itself; an OpenMP thread spinning on (GOMP_SPINCOUNT=100000) held
            # a core that a busy machine's other processes needed (a run 4x the CPU time)
            os.environ.setdefault("OMP_WAIT_POLICY", "passive")
            setattr(config, "THREADING_LAYER_PRIORITY", ["omp", "workqueue", "tbb"])  # noqa: B010
        _compiled[threaded] = njit(cache=True, nogil=True, parallel=True)(_extend_blocks)
    return _compiled[threaded]


_compiled: dict[bool, Any] = {}  # numba's dispatchers, by whether they use threads


def _element(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """A pointer to array[index], the first two of `args` (code generation)."""
    array = context.make_array(sig.args[0])(context, builder, args[0])
    pointer = cgutils.get_item_pointer  # untyped in numba
    return pointer(context, builder, sig.args[0], array, [args[1]])  # type: ignore[no-untyped-call]


def _load_typed(typingctx: Any, array: Any, index: Any) -> Any:
    """array[index] read once, seeing every write made before the store that wrote it."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.load_atomic(_element(context, builder, sig, args), "acquire", 8)

    return types.int64(array, index), codegen


_load: Any = intrinsic(_load_typed)


def _store_typed(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    """array[index] = value, after every write made before it."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        builder.store_atomic(args[2], _element(context, builder, sig, args), "release", 8)
        return context.get_dummy_value()

    return types.void(array, index, types.int64), codegen


_store: Any = intrinsic(_store_typed)


def _swap_typed(typingctx: Any, array: Any, index: Any, old: Any, new: Any) -> Any:
    """array[index] = new if it holds old, in one step; whether it did."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        pointer = _element(context, builder, sig, args)
        pair = builder.cmpxchg(pointer, args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return types.boolean(array, index, types.int64, types.int64), codegen


_swap: Any = intrinsic(_swap_typed)


def _nap_typed(typingctx: Any, micros: Any) -> Any:
    """Sleep about `micros` microseconds (the C library's usleep)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        kind = ir.FunctionType(ir.IntType(32), [ir.IntType(32)])
        declare = cgutils.get_or_insert_function  # untyped in numba
        usleep = declare(builder.module, kind, "usleep")  # type: ignore[no-untyped-call]
        return builder.call(usleep, args)

    return types.int32(types.int32), codegen


_nap: Any = intrinsic(_nap_typed)


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
    want,
    totals,
    halves,
    found,
):
    """Phase 1 for heap n0 + j: its options made of values known before the block (below
    n0), into reached[j], and in found[j] its splits, where its verification scan stopped,
    its candidate, the values still needed and the pairs XORed.

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
    found[j, _SPLITS] = m
    count = 0
    if not sparse:
        for i in range(m):
            t = totals[j, i]
            for a in range(max(1, t - n0 + 1), halves[j, i] + 1):
                row[_pair(values, a, t)] = 1
                count += 1
        found[j, _COUNTED] = count
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
        a, need, scanned = _scan_splits(values, row, want, totals[j], halves[j], m, cand, 1, n0)
        count += scanned
    found[j, _RESUME] = a
    found[j, _CANDIDATE] = cand
    found[j, _NEED] = need
    found[j, _COUNTED] = count


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
    members,
):
    """Fill values[start:stop] a block of heaps at a time by a team of `members` members;
    returns (heaps done up to, rare count, largest value, pairs XORed). Stops early when the
    rare buffer is full.

    Every value is below `width` (a power of two) when the run starts, so every XOR of two is
    below 2 * width; the run stops after the first heap whose value reaches `width`, and the
    caller doubles it. Each member marks its runs' options in its own rows:
    reached[member, j, v] = 1 when heap n0 + j has an option of value v.

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
    cleared = np.zeros((members, block, words), dtype=np.uint64)
    reached = cleared.view(np.uint8)
    wanted = np.zeros((members, 8 * words), dtype=np.uint8)
    totals = np.zeros((members, block, nsplit), dtype=np.int64)
    halves = np.zeros((members, block, nsplit), dtype=np.int64)
    found = np.zeros((members, block, _FOUND), dtype=np.int64)
    # a run's state and the team's counters, each on a cache line of its own
    runs = (block + RUN - 1) // RUN
    state = np.zeros(8 * runs, dtype=np.int64)
    team = np.zeros(8 * _TEAM, dtype=np.int64)
    if start >= stop:
        return start, nrare, 0, 0
    for c in range(runs):
        state[8 * c] = 1 << _GEN
    team[8 * _BLOCK] = 1
    team[8 * _RARE] = nrare
    for member in prange(members):
        _member(
            member,
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
            block,
            span,
            state,
            team,
            cleared,
            reached,
            wanted,
            totals,
            halves,
            found,
        )
    # read through _load: numba moves plain reads of an array its loop hands on above the loop
    done, count = _load(team, 8 * _DONE), _load(team, 8 * _RARE)
    return done, count, _load(team, 8 * _LARGEST), _load(team, 8 * _PAIRS)


@njit(cache=True, nogil=True)
def _member(  # type: ignore[no-untyped-def]
    me,
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
    block,
    span,
    state,
    team,
    cleared,
    reached,
    wanted,
    totals,
    halves,
    found,
):
    """One member of the team: claims the free runs of the block's phase 1, then does a run
    still claimed by a member that does not finish it in time (one the system has stopped),
    and phase 2 when it is the first to find every run done; then waits for the next block.
    No member ever needs another to run: alone, a member does every block.

    Octal-digit cases: all three bits of a digit d_k, one array each. Bit 1 (take a whole heap
    of exactly k) is `take_all`; bit 2 (leave one heap n - k > 0) is `leave_one`; bit 4 (split
    the rest n - k into two non-empty heaps) is `split_after`, with `unequal` for a split whose
    two heaps must differ (Grundy's game); only bit 4 goes through the sparse scan.
    """
    while True:
        g = _load(team, 8 * _BLOCK)
        if g < 0:
            return
        known = _load(team, 8 * _RARE)  # the rare positions below n0 (stale only if the
        # block has moved on, and then every claim and result for block g is refused)
        n0 = start + (g - 1) * block
        size = min(block, stop - n0)
        runs = (size + RUN - 1) // RUN
        tag = g << _GEN
        for copy in range(2):  # the free runs, each claimed by one member; then the runs
            # other members still hold (stopped by the system, or slower) done again here:
            # the first copy done is kept, and a copy stops once the run is done
            for c in range(runs):
                if copy:
                    go = _load(state, 8 * c) == tag | _CLAIMED
                else:
                    go = _load(state, 8 * c) == tag and _swap(state, 8 * c, tag, tag | _CLAIMED)
                if go:
                    _run(
                        me,
                        c,
                        g,
                        copy,
                        values,
                        n0,
                        size,
                        leave_one,
                        take_all,
                        split_after,
                        unequal,
                        sparse,
                        common,
                        rare,
                        known,
                        span,
                        state,
                        cleared,
                        reached,
                        wanted,
                        totals,
                        halves,
                        found,
                    )
        if _swap(team, 8 * _PHASE2, g - 1, g):  # every run done: the first member here
            _phase2(
                me,
                g,
                values,
                n0,
                size,
                stop,
                leave_one,
                split_after,
                unequal,
                sparse,
                common,
                rare,
                known,
                span,
                state,
                team,
                reached,
                wanted,
                totals,
                halves,
                found,
            )
            continue
        waited = 0  # the member doing phase 2 may have been stopped: nap, not spin
        while _load(team, 8 * _BLOCK) == g:
            waited += 1
            if waited > SPIN:
                _nap(NAP)


@njit(cache=True, nogil=True)
def _run(  # type: ignore[no-untyped-def]
    me,
    c,
    g,
    copy,
    values,
    n0,
    size,
    leave_one,
    take_all,
    split_after,
    unequal,
    sparse,
    common,
    rare,
    known,
    span,
    state,
    cleared,
    reached,
    wanted,
    totals,
    halves,
    found,
):
    """Phase 1 for run c of block g into the member's own rows, then the run marked done by
    the member, unless another member's copy of the run was done first. A `copy` of a run
    another member claimed stops as soon as the run is done."""
    tag = g << _GEN
    for j in range(c * RUN, min(c * RUN + RUN, size)):
        if copy and _load(state, 8 * c) != tag | _CLAIMED:
            return
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
            cleared[me],
            reached[me],
            wanted[me],
            totals[me],
            halves[me],
            found[me],
        )
    _swap(state, 8 * c, tag | _CLAIMED, tag | (_DONE_BY + me))


@njit(cache=True, nogil=True)
def _phase2(  # type: ignore[no-untyped-def]
    me,
    g,
    values,
    n0,
    size,
    stop,
    leave_one,
    split_after,
    unequal,
    sparse,
    common,
    rare,
    known,
    span,
    state,
    team,
    reached,
    wanted,
    totals,
    halves,
    found,
):
    """Phase 2 of the block at n0, in heap order, from the rows of the member that did each
    run; then the next block opened to the team (or the team told to stop).

    Octal-digit cases: the options phase 1 could not know, those reaching into the block.
    Bit 2 (`leave_one`: leave one heap n - k) when n - k >= n0; bit 4 (`split_after`: split
    n - k into two heaps, `unequal` for Grundy's game) for the pairs whose larger heap lies in
    the block, then the sparse scan resumed. Bit 1 (`take_all`, value 0) is phase 1's alone.
    """
    nrare = known
    largest = team[8 * _LARGEST]
    pairs = team[8 * _PAIRS]
    want = wanted[me]
    o = 0
    for j in range(size):
        if j % RUN == 0:
            o = (_load(state, 8 * (j // RUN)) & ((1 << _GEN) - 1)) - _DONE_BY
        n = n0 + j
        row = reached[o, j]
        heap = found[o, j]
        m = heap[_SPLITS]
        count = heap[_COUNTED]
        cand = heap[_CANDIDATE]
        for i in range(leave_one.shape[0]):
            k = leave_one[i]
            if k < n and n - k >= n0:
                row[values[n - k]] = 1
        has0 = False
        has1 = False
        for i in range(m):
            t = totals[o, j, i]
            has1 |= t & 1 == 1
            has0 |= t & 1 == 0
            if not sparse:  # every pair whose larger part lies in the block
                for a in range(1, min(halves[o, j, i], t - n0) + 1):
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
            need = heap[_NEED]
            a = heap[_RESUME]
            if row[cand]:  # a pair of the block reached the candidate: the next one, and
                # its values below not shown reached may be among the pairs phase 1 passed
                cand, more = _candidate(row, common, has0, has1, cand + 1, span)
                need += more
                a = 1
            if need > 0:  # the pairs not scanned: those of the block, then known ones
                _, need, scanned = _scan_splits(
                    values, row, want, totals[o, j], halves[o, j], m, cand, 0, n0
                )
                count += scanned
            if need > 0:
                _, need, scanned = _scan_splits(
                    values, row, want, totals[o, j], halves[o, j], m, cand, a, n0
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
        full = False
        if sparse and common[n & 1, x] == 0:
            rare[nrare] = n
            nrare += 1
            full = nrare == rare.shape[0]
        # the rare buffer full, or a value past the marks or at the limit: the caller sees
        if full or x >= span // 2 or x >= 65535 or n + 1 == stop:
            team[8 * _DONE] = n + 1
            team[8 * _RARE] = nrare
            team[8 * _LARGEST] = largest
            team[8 * _PAIRS] = pairs
            _store(team, 8 * _BLOCK, -1)
            return
    team[8 * _LARGEST] = largest
    team[8 * _PAIRS] = pairs
    _store(team, 8 * _RARE, nrare)
    tag = (g + 1) << _GEN
    for c in range(state.shape[0] // 8):
        _store(state, 8 * c, tag)
    _store(team, 8 * _BLOCK, g + 1)


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
