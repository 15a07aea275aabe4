"""The compiled pruned search for grid games (numba): `explorer.solver.pruned`'s search on
bit boards of at most 63 cells (Cram, Node-Kayles on grids), with its table of values in
arrays (open addressing).

One call searches until it has an answer or has spent its budget of components: it then
returns `ABORT` and the caller (`CompiledGridSearch`) stores what is new, checks its bounds
and calls again; the values found stay in the table, so the next round goes further. A
table over three quarters full aborts too, and is grown by the caller up to its memory bound.
The rules and shortcuts are those of `explorer.games.grids` (the tests compare the two).

Imported only where a grid game is searched: it loads numba.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import njit

from explorer.errors import SearchMemoryError

#: A round stopped (its budget spent, or its table full): call again.
ABORT = -2
#: A round stopped at a stored value not checked yet (its slot in the state): check, call again.
UNCHECKED = -3
#: `exported` of a value read from a store and not checked yet.
STORED_UNCHECKED = 2
#: Most cells a compiled board may have (bit 63 stays clear).
MAX_CELLS = 63
#: Most moves of a component, and most components a move leaves.
MAX_MOVES = 128
MAX_PARTS = 12
#: Cells of each rule's shortcuts (`known`): path and cycle, half-turn symmetry.
PATHS, SYMMETRY = 6, 7
# places in the state array
BUDGET, FULL, ENTRIES, SEARCHED, CHECK = 0, 1, 2, 3, 4
STATE_SIZE = 8
CRAM, NODE_KAYLES = 0, 1


@njit(cache=True)
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(cache=True)
def _low_index(x: int) -> int:
    return _popcount((x & -x) - 1)


@njit(cache=True)
def _frame(h: int, w: int) -> tuple[int, int]:
    not_first = 0
    not_last = 0
    for r in range(h):
        for c in range(w):
            if c > 0:
                not_first |= 1 << (r * w + c)
            if c < w - 1:
                not_last |= 1 << (r * w + c)
    return not_first, not_last


@njit(cache=True)
def _canonical(h: int, w: int, m: int) -> tuple[int, int]:
    """The (height << 8 | width, mask) of a region's least picture (cropped, turned)."""
    row_mask = (1 << w) - 1
    top = -1
    bottom = 0
    used = 0
    for r in range(h):
        row = (m >> (r * w)) & row_mask
        if row:
            if top < 0:
                top = r
            bottom = r
            used |= row
    left = _low_index(used)
    right = 0
    for c in range(w):
        if used >> c & 1:
            right = c
    ch = bottom - top + 1
    cw = right - left + 1
    best_hw = 1 << 40
    best_m = 0
    for transpose in range(2):
        ph = cw if transpose else ch
        pw = ch if transpose else cw
        if ph > pw:
            continue
        for flip_r in range(2):
            for flip_c in range(2):
                mm = 0
                for r in range(ch):
                    row = (m >> ((r + top) * w + left)) & ((1 << cw) - 1)
                    while row:
                        c = _low_index(row)
                        row &= row - 1
                        rr = c if transpose else r
                        cc = r if transpose else c
                        if flip_r:
                            rr = ph - 1 - rr
                        if flip_c:
                            cc = pw - 1 - cc
                        mm |= 1 << (rr * pw + cc)
                hw = ph << 8 | pw
                if hw < best_hw or (hw == best_hw and mm < best_m):
                    best_hw = hw
                    best_m = mm
    return best_hw, best_m


@njit(cache=True)
def _slot(keys_m: np.ndarray, keys_hw: np.ndarray, hw: int, m: int) -> int:
    """The slot of a key in the table, or of the empty place where it would go."""
    mask = len(keys_m) - 1
    x = m * 0x2545F4914F6CDD1D + hw * 0x9E3779B1
    x ^= x >> 29
    i = x & mask
    while keys_hw[i] != 0 and (keys_hw[i] != hw or keys_m[i] != m):
        i = (i + 1) & mask
    return i


@njit(cache=True)
def _put(
    keys_m: np.ndarray,
    keys_hw: np.ndarray,
    values: np.ndarray,
    lower: np.ndarray,
    state: np.ndarray,
    hw: int,
    m: int,
    value: int,
    low: int,
) -> None:
    i = _slot(keys_m, keys_hw, hw, m)
    if keys_hw[i] == 0:
        keys_hw[i] = hw
        keys_m[i] = m
        values[i] = -1
        lower[i] = 0
        state[ENTRIES] += 1
        if state[ENTRIES] * 4 > len(keys_m) * 3:
            state[FULL] = 1
    if value >= 0:
        values[i] = value
    if low > lower[i]:
        lower[i] = low


@njit(cache=True)
def _known(rule: int, paths: np.ndarray, state: np.ndarray, hw: int, m: int) -> int:
    """A value without search: paths and cycles (octal), half-turn symmetry; else -1."""
    h = hw >> 8
    w = hw & 0xFF
    n = _popcount(m)
    if n == 1:
        return 1 if rule == NODE_KAYLES else 0
    not_first, not_last = _frame(h, w)
    right = m & ((m & not_first) >> 1)
    left = m & ((m & not_last) << 1)
    down = m & (m >> w)
    up = m & (m << w)
    pairs = _popcount(right) + _popcount(down)
    three = (left & right & (up | down)) | (up & down & (left | right))
    two = ((left & (right | up | down)) | (right & (up | down)) | (up & down)) & ~three
    if three == 0:
        if pairs == n - 1:
            state[PATHS] += 1
            return int(paths[n])
        if pairs == n and two == m:
            state[PATHS] += 1
            left_over = paths[n - 2] if rule == CRAM else paths[n - 3]
            return 1 if left_over == 0 else 0
    if h % 2 == 0 and w % 2 == 0 and _half_turn(m, h * w) == m:
        state[SYMMETRY] += 1
        return 0
    return -1


@njit(cache=True)
def _half_turn(m: int, cells: int) -> int:
    turned = 0
    for i in range(cells):
        if m >> i & 1:
            turned |= 1 << (cells - 1 - i)
    return turned


@njit(cache=True)
def _lower_bound(rule: int, state: np.ndarray, hw: int, m: int) -> int:
    h = hw >> 8
    w = hw & 0xFF
    odd = h % 2 + w % 2
    if odd != (1 if rule == CRAM else 2):
        return 0
    if _half_turn(m, h * w) != m:
        return 0
    if rule == CRAM:
        if h % 2 == 0:
            centre = 1 << ((h // 2 - 1) * w + w // 2) | 1 << (h // 2 * w + w // 2)
        else:
            centre = 1 << (h // 2 * w + w // 2 - 1) | 1 << (h // 2 * w + w // 2)
    else:
        centre = 1 << (h // 2 * w + w // 2)
    if m & centre == centre:
        state[SYMMETRY] += 1
        return 1
    return 0


@njit(cache=True)
def _moves(
    rule: int, hw: int, m: int, parts_hw: np.ndarray, parts_m: np.ndarray, counts: np.ndarray
) -> int:
    """The distinct moves of a component: for each, its components' keys (sorted, equal
    pairs cancelled) in `parts_hw`, `parts_m`, their number in `counts`. Returns the moves.

    Game families: Cram (`rule` CRAM: a domino on two free cells side by side, across then
    down; a lone cell left is dropped, no move uses it) and Node-Kayles on a grid (a cell and
    its four neighbours taken). The step: each move's cells left, split into components,
    each brought to its canonical key (`_canonical`)."""
    h = hw >> 8
    w = hw & 0xFF
    not_first, not_last = _frame(h, w)
    after = np.empty(MAX_MOVES, dtype=np.int64)
    count = 0
    if rule == CRAM:
        right = m & ((m & not_first) >> 1)
        while right:
            low = right & -right
            after[count] = m & ~(low | low << 1)
            count += 1
            right ^= low
        down = m & (m >> w)
        while down:
            low = down & -down
            after[count] = m & ~(low | low << w)
            count += 1
            down ^= low
    else:
        cells = m
        while cells:
            low = cells & -cells
            taken = low | ((low & not_first) >> 1) | ((low & not_last) << 1) | low << w | low >> w
            after[count] = m & ~taken
            count += 1
            cells ^= low
    hashes = np.empty(count, dtype=np.int64)
    for k in range(count):
        left_cells = after[k]
        n = 0
        while left_cells:
            region = left_cells & -left_cells
            while True:
                grown = (
                    region
                    | ((region << 1) & not_first)
                    | ((region >> 1) & not_last)
                    | (region << w)
                    | (region >> w)
                ) & left_cells
                if grown == region:
                    break
                region = grown
            left_cells ^= region
            if rule == CRAM and region & (region - 1) == 0:
                continue
            phw, pm = _canonical(h, w, region)
            # insertion in order, an equal one cancels
            j = n
            while j > 0 and (
                parts_hw[k, j - 1] > phw or (parts_hw[k, j - 1] == phw and parts_m[k, j - 1] > pm)
            ):
                j -= 1
            if j > 0 and parts_hw[k, j - 1] == phw and parts_m[k, j - 1] == pm:
                for t in range(j - 1, n - 1):
                    parts_hw[k, t] = parts_hw[k, t + 1]
                    parts_m[k, t] = parts_m[k, t + 1]
                n -= 1
                continue
            for t in range(n, j, -1):
                parts_hw[k, t] = parts_hw[k, t - 1]
                parts_m[k, t] = parts_m[k, t - 1]
            parts_hw[k, j] = phw
            parts_m[k, j] = pm
            n += 1
        counts[k] = n
        x = n
        for t in range(n):
            x = (x * 0x100000001B3) ^ parts_m[k, t]
            x = (x * 0x100000001B3) ^ parts_hw[k, t]
        hashes[k] = x
    # one of each move (moves equal under the component's symmetries are tried once)
    order = np.argsort(hashes)
    kept = 0
    keep = np.zeros(count, dtype=np.bool_)
    for a in range(count):
        k = order[a]
        duplicate = False
        b = a - 1
        while b >= 0 and hashes[order[b]] == hashes[k]:
            o = order[b]
            if counts[o] == counts[k]:
                same = True
                for t in range(counts[k]):
                    if parts_hw[o, t] != parts_hw[k, t] or parts_m[o, t] != parts_m[k, t]:
                        same = False
                        break
                if same and keep[o]:
                    duplicate = True
                    break
            b -= 1
        if not duplicate:
            keep[k] = True
            kept += 1
    # pack the kept moves first
    write = 0
    for k in range(count):
        if keep[k]:
            if write != k:
                counts[write] = counts[k]
                for t in range(counts[k]):
                    parts_hw[write, t] = parts_hw[k, t]
                    parts_m[write, t] = parts_m[k, t]
            write += 1
    return write


# what a frame of the search waits for
_START, _LOOP, _PART, _ASK = 0, 1, 2, 3


@njit(cache=True)
def search(
    rule: int,
    paths: np.ndarray,
    keys_m: np.ndarray,
    keys_hw: np.ndarray,
    values: np.ndarray,
    lower: np.ndarray,
    state: np.ndarray,
    exported: np.ndarray,
    hardest_first: bool,
    root_hw: int,
    root_m: int,
    root_target: int,
) -> int:
    """The value of component (hw, m) when `target` < 0, else 1 if its value is `target` and
    0 if not; `ABORT` when the round's budget is spent or the table is full.

    Iterative, with a frame per component being searched: each frame's component is smaller
    than its parent's, so there are at most `MAX_CELLS` of them.

    Game families: Cram and Node-Kayles on grids (`rule`), one component at a time. The step
    of a frame: for each candidate value v in turn (from a lower bound, skipping those the
    moves already valued reach), a move's smaller components are valued (a frame each, target
    -1) and its largest is asked whether it is v XOR their nim-sum (a frame with that target);
    the value is the first v no move reaches (the mex)."""
    depth = MAX_CELLS + 2
    f_hw = np.zeros(depth, dtype=np.int64)
    f_m = np.zeros(depth, dtype=np.int64)
    f_target = np.zeros(depth, dtype=np.int64)
    f_stage = np.zeros(depth, dtype=np.int64)
    f_value = np.zeros(depth, dtype=np.int64)
    f_reached = np.zeros(depth, dtype=np.int64)
    f_count = np.zeros(depth, dtype=np.int64)
    f_index = np.zeros(depth, dtype=np.int64)
    parts_hw = np.empty((depth, MAX_MOVES, MAX_PARTS), dtype=np.int64)
    parts_m = np.empty((depth, MAX_MOVES, MAX_PARTS), dtype=np.int64)
    counts = np.empty((depth, MAX_MOVES), dtype=np.int64)
    xors = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    left = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    pending = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    alive = np.zeros((depth, MAX_MOVES), dtype=np.bool_)
    weight = np.zeros(MAX_MOVES, dtype=np.int64)
    sp = 0
    f_hw[0] = root_hw
    f_m[0] = root_m
    f_target[0] = root_target
    f_stage[0] = _START
    result = 0
    while True:
        hw = f_hw[sp]
        m = f_m[sp]
        target = f_target[sp]
        stage = f_stage[sp]
        answered = False
        if stage == _START:
            i = _slot(keys_m, keys_hw, hw, m)
            low = 0
            if keys_hw[i] != 0 and values[i] >= 0:
                if exported[i] == STORED_UNCHECKED:
                    state[CHECK] = i
                    return UNCHECKED
                result = values[i] if target < 0 else (1 if values[i] == target else 0)
                answered = True
            else:
                if keys_hw[i] != 0:
                    low = lower[i]
                else:
                    known = _known(rule, paths, state, hw, m)
                    if known >= 0:  # a shortcut's value: kept, never stored as a part
                        _put(keys_m, keys_hw, values, lower, state, hw, m, known, 0)
                        exported[_slot(keys_m, keys_hw, hw, m)] = 1
                        result = known if target < 0 else (1 if known == target else 0)
                        answered = True
                    else:
                        low = _lower_bound(rule, state, hw, m)
                if not answered and 0 <= target < low:
                    result = 0
                    answered = True
            if not answered:
                if state[BUDGET] <= 0 or state[FULL]:
                    return ABORT
                state[BUDGET] -= 1
                state[SEARCHED] += 1
                moves = _moves(rule, hw, m, parts_hw[sp], parts_m[sp], counts[sp])
                reached = 0
                count = 0
                for k in range(moves):
                    total = 0
                    n = 0
                    weight[k] = 0
                    for t in range(counts[sp, k]):
                        phw = parts_hw[sp, k, t]
                        pm = parts_m[sp, k, t]
                        j = _slot(keys_m, keys_hw, phw, pm)
                        value = -1
                        if keys_hw[j] != 0:
                            value = values[j]
                            if value >= 0 and exported[j] == STORED_UNCHECKED:
                                state[CHECK] = j
                                return UNCHECKED
                        else:
                            value = _known(rule, paths, state, phw, pm)
                            if value >= 0:
                                _put(keys_m, keys_hw, values, lower, state, phw, pm, value, 0)
                                exported[_slot(keys_m, keys_hw, phw, pm)] = 1
                        if value >= 0:
                            total ^= value
                        else:
                            parts_hw[sp, k, n] = phw
                            parts_m[sp, k, n] = pm
                            size = _popcount(pm)
                            weight[k] += size * size
                            n += 1
                    xors[sp, k] = total
                    left[sp, k] = n
                    if n == 0:
                        if total < 62:
                            reached |= 1 << total
                    else:  # the largest first: it is asked, the others valued
                        for a in range(1, n):
                            b = a
                            while b > 0 and _popcount(parts_m[sp, k, b]) > _popcount(
                                parts_m[sp, k, b - 1]
                            ):
                                x = parts_m[sp, k, b]
                                parts_m[sp, k, b] = parts_m[sp, k, b - 1]
                                parts_m[sp, k, b - 1] = x
                                x = parts_hw[sp, k, b]
                                parts_hw[sp, k, b] = parts_hw[sp, k, b - 1]
                                parts_hw[sp, k, b - 1] = x
                                b -= 1
                        pending[sp, count] = k
                        count += 1
                # easiest moves first (or hardest, for a check by another order)
                for a in range(1, count):
                    b = a
                    while b > 0 and (
                        weight[pending[sp, b]] > weight[pending[sp, b - 1]]
                        if hardest_first
                        else weight[pending[sp, b]] < weight[pending[sp, b - 1]]
                    ):
                        x = pending[sp, b]
                        pending[sp, b] = pending[sp, b - 1]
                        pending[sp, b - 1] = x
                        b -= 1
                for a in range(count):
                    alive[sp, a] = True
                f_count[sp] = count
                f_reached[sp] = reached
                if target >= 0 and (
                    (target < 62 and reached >> target & 1) or count + _popcount(reached) < target
                ):
                    result = 0
                    answered = True
                else:
                    f_value[sp] = low
                    f_index[sp] = 0
                    f_stage[sp] = _LOOP
                    stage = _LOOP
        if not answered and stage == _PART:  # a smaller component of a move was valued
            k = pending[sp, f_index[sp]]
            xors[sp, k] ^= result
            left[sp, k] -= 1
            stage = _LOOP
        elif not answered and stage == _ASK:  # the largest was asked
            if result == 1:
                alive[sp, f_index[sp]] = False
                if target >= 0 and f_value[sp] == target:  # the target is reached
                    _put(keys_m, keys_hw, values, lower, state, hw, m, -1, target + 1)
                    result = 0
                    answered = True
                else:
                    f_value[sp] += 1
                    f_index[sp] = 0
                    stage = _LOOP
            else:
                f_index[sp] += 1
                stage = _LOOP
        if not answered and stage == _LOOP:
            value = f_value[sp]
            final = target >= 0 and value == target
            while not final and value < 62 and f_reached[sp] >> value & 1:
                value += 1
                f_index[sp] = 0
                final = target >= 0 and value == target
            f_value[sp] = value
            a = f_index[sp]
            while a < f_count[sp] and not alive[sp, a]:
                a += 1
            f_index[sp] = a
            if a < f_count[sp]:
                k = pending[sp, a]
                child = sp + 1
                if left[sp, k] > 1:  # value the smallest component left of this move
                    n = left[sp, k] - 1
                    f_hw[child] = parts_hw[sp, k, n]
                    f_m[child] = parts_m[sp, k, n]
                    f_target[child] = -1
                    f_stage[sp] = _PART
                else:
                    f_hw[child] = parts_hw[sp, k, 0]
                    f_m[child] = parts_m[sp, k, 0]
                    f_target[child] = value ^ xors[sp, k]
                    f_stage[sp] = _ASK
                f_stage[child] = _START
                sp = child
                continue
            # no move reaches this value: it is the value
            if final:
                _put(keys_m, keys_hw, values, lower, state, hw, m, target, 0)
                result = 1
            else:
                _put(keys_m, keys_hw, values, lower, state, hw, m, value, 0)
                result = value if target < 0 else 0
            answered = True
        if answered:
            if sp == 0:
                return result
            sp -= 1


@njit(cache=True)
def _rehash(
    keys_m: np.ndarray,
    keys_hw: np.ndarray,
    values: np.ndarray,
    lower: np.ndarray,
    exported: np.ndarray,
    new_m: np.ndarray,
    new_hw: np.ndarray,
    new_values: np.ndarray,
    new_lower: np.ndarray,
    new_exported: np.ndarray,
) -> int:
    """Move every entry into a larger table; how many there are."""
    entries = 0
    for i in range(len(keys_m)):
        if keys_hw[i] != 0:
            j = _slot(new_m, new_hw, keys_hw[i], keys_m[i])
            new_hw[j] = keys_hw[i]
            new_m[j] = keys_m[i]
            new_values[j] = values[i]
            new_lower[j] = lower[i]
            new_exported[j] = exported[i]
            entries += 1
    return entries


@njit(cache=True)
def _fresh(
    keys_m: np.ndarray, keys_hw: np.ndarray, values: np.ndarray, exported: np.ndarray
) -> np.ndarray:
    """The slots of exact values not yet exported, marked exported."""
    found = np.empty(len(keys_m), dtype=np.int64)
    count = 0
    for i in range(len(keys_m)):
        if keys_hw[i] != 0 and values[i] >= 0 and not exported[i]:
            exported[i] = 1
            found[count] = i
            count += 1
    return found[:count]


@njit(cache=True)
def _insert(
    keys_m: np.ndarray,
    keys_hw: np.ndarray,
    values: np.ndarray,
    lower: np.ndarray,
    exported: np.ndarray,
    state: np.ndarray,
    hw: int,
    m: int,
    value: int,
    flag: int,
) -> None:
    _put(keys_m, keys_hw, values, lower, state, hw, m, value, 0)
    exported[_slot(keys_m, keys_hw, hw, m)] = flag


#: Components a round searches before it hands back (progress, bounds, signals).
ROUND = 200_000
#: Slots of a new table (it doubles when three quarters full).
FIRST_CAPACITY = 1 << 16
#: Bytes a slot takes in the table's arrays.
BYTES_PER_SLOT = 19


class CompiledGridSearch:
    """`explorer.solver.pruned.PrunedSearch` for grid rules (`explorer.games.grids`), on
    components of at most `MAX_CELLS` cells, compiled: the same questions, the same answers
    (the tests compare them), a table in arrays under a memory bound.

    Examples
    --------
    >>> from explorer.games.grids import GridRules
    >>> rules = GridRules("cram")
    >>> CompiledGridSearch(rules).total(rules.board_components(4, 5, (1 << 20) - 1))
    2
    """

    def __init__(
        self, rules: Any, *, max_memory_mb: int | None = None, hardest_first: bool = False
    ) -> None:
        from explorer.solver.pruned import DEFAULT_SEARCH_MEMORY_MB, SearchStats

        self.rules = rules
        self.rule = CRAM if rules.rule == "cram" else NODE_KAYLES
        self.paths = np.array([rules._octal(n) for n in range(MAX_CELLS + 1)], dtype=np.int64)
        self.hardest_first = hardest_first
        self.max_memory_mb = max_memory_mb or DEFAULT_SEARCH_MEMORY_MB
        self.stats = SearchStats()
        self.adopted = 0
        #: Labels of stored values not checked yet (shared with the part table).
        self.unchecked_labels: set[str] = set()
        self.report: Callable[[Any], None] | None = None
        self.report_every = 2.0
        self._next_report = time.monotonic() + self.report_every
        self.state = np.zeros(STATE_SIZE, dtype=np.int64)
        self._allocate(FIRST_CAPACITY)

    def _allocate(self, capacity: int) -> None:
        self.keys_m = np.zeros(capacity, dtype=np.int64)
        self.keys_hw = np.zeros(capacity, dtype=np.int64)
        self.values = np.full(capacity, -1, dtype=np.int8)
        self.lower = np.zeros(capacity, dtype=np.int8)
        self.exported = np.zeros(capacity, dtype=np.int8)

    @staticmethod
    def fits(key: int) -> bool:
        """Whether a grid key is small enough for the compiled search."""
        from explorer.games.grids import unkey

        h, w, _ = unkey(key)
        return h * w <= MAX_CELLS

    def size(self) -> int:
        """Components with an entry in the table."""
        return int(self.state[ENTRIES])

    def memory_bytes(self) -> int:
        return BYTES_PER_SLOT * len(self.keys_m)

    def _grow(self, capacity: int) -> None:
        """Move the table into `capacity` slots, within the memory bound."""
        if BYTES_PER_SLOT * capacity > self.max_memory_mb * 2**20:
            raise SearchMemoryError(
                f"the pruned search's table holds {self.size():,} components in "
                f"{self.memory_bytes() / 2**20:,.1f} MiB and needs "
                f"{BYTES_PER_SLOT * capacity / 2**20:,.1f} MiB, over the limit of "
                f"{self.max_memory_mb:,} MiB (raise it with --memory; the values found are "
                "kept with --db)"
            )
        if capacity == len(self.keys_m):
            return
        old = (self.keys_m, self.keys_hw, self.values, self.lower, self.exported)
        self._allocate(capacity)
        self.state[ENTRIES] = _rehash(
            *old, self.keys_m, self.keys_hw, self.values, self.lower, self.exported
        )
        self.state[FULL] = 0

    def _search(self, key: int, target: int) -> int:
        from explorer.games.grids import SHORTCUT_PATHS, SHORTCUT_SYMMETRY, unkey

        h, w, mask = unkey(key)
        self._grow(len(self.keys_m))  # the table as it is must fit the bound too
        while True:
            self.state[BUDGET] = ROUND
            before = self.state.copy()
            answer = search(
                self.rule, self.paths, self.keys_m, self.keys_hw, self.values, self.lower,
                self.state, self.exported, self.hardest_first, h << 8 | w, mask, target,
            )  # fmt: skip
            self.stats.searched = int(self.state[SEARCHED])
            if self.state[PATHS] > before[PATHS]:
                self.rules.used.add(SHORTCUT_PATHS)
            if self.state[SYMMETRY] > before[SYMMETRY]:
                self.rules.used.add(SHORTCUT_SYMMETRY)
            if self.state[FULL]:
                self._grow(2 * len(self.keys_m))
            now = time.monotonic()
            if self.report is not None and now >= self._next_report:
                self._next_report = now + self.report_every
                self.report(self)
            if answer == UNCHECKED:
                self._check_stored(int(self.state[CHECK]))
            elif answer != ABORT:
                return int(answer)

    def _check_stored(self, slot: int) -> None:
        """Check a stored value by asking the search whether it is the component's value,
        over its moves (each stored value they use checked in turn): a wrong one is refused,
        and the table keeps the value found instead."""
        from explorer.errors import StoredPartError
        from explorer.games.grids import key_of

        hw, m, stored = int(self.keys_hw[slot]), int(self.keys_m[slot]), int(self.values[slot])
        self.values[slot] = -1  # unknown to the search that checks it
        key = key_of(hw >> 8, hw & 0xFF, m)
        label = self.rules.label(key)
        if not self.has_value(key, stored):
            raise StoredPartError.of(self.rules.family, label, stored, self.value(key))
        self.exported[_slot(self.keys_m, self.keys_hw, hw, m)] = 1  # stored already
        self.unchecked_labels.discard(label)

    def value(self, key: int) -> int:
        return self._search(key, -1)

    def has_value(self, key: int, target: int) -> bool:
        return self._search(key, target) == 1

    def total(self, keys: Sequence[int]) -> int:
        result = 0
        for key in keys:
            result ^= self.value(key)
        return result

    def sum_is(self, keys: Sequence[int], target: int) -> bool:
        if not keys:
            return target == 0
        ordered = sorted(keys, key=self.rules.size, reverse=True)
        rest = self.total(ordered[1:])
        return self.has_value(ordered[0], target ^ rest)

    def adopt(self, labelled: dict[str, int], unchecked: set[str] | None = None) -> int:
        """`explorer.solver.pruned.PrunedSearch.adopt`: stored values in `unchecked` are
        checked when the search first uses them (the search stops at one to check it)."""
        from explorer.games.grids import unkey

        new = 0
        self.unchecked_labels = set() if unchecked is None else unchecked
        for label, value in labelled.items():
            h, w, mask = unkey(self.rules.key(label))
            if h * w > MAX_CELLS:
                continue
            if self.state[FULL]:
                self._grow(2 * len(self.keys_m))
            _insert(
                self.keys_m, self.keys_hw, self.values, self.lower, self.exported,
                self.state, h << 8 | w, mask, value,
                STORED_UNCHECKED if label in self.unchecked_labels else 1,
            )  # fmt: skip
            new += 1
        return new

    def take_fresh(self) -> list[tuple[str, int]]:
        slots = _fresh(self.keys_m, self.keys_hw, self.values, self.exported)
        return [
            (
                f"{self.keys_hw[i] >> 8}x{self.keys_hw[i] & 0xFF}:{int(self.keys_m[i]):x}",
                int(self.values[i]),
            )
            for i in slots
        ]
