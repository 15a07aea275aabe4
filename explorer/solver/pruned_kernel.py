"""The compiled pruned search for grid games (numba): `explorer.solver.pruned`'s questions on
bit boards of at most 63 cells (Cram, Node-Kayles on grids), answered by Beling and
Rogalski's search over sets of values (see `search`), with its table of values in arrays
(open addressing).

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
#: A component's value is 62 or more: past what the search's sets of values hold.
TOO_LARGE = -4
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
    """The masks of the cells not in the first column and not in the last."""
    first = ((1 << (h * w)) - 1) // ((1 << w) - 1)  # bit 0 of each row
    board = first * ((1 << w) - 1)
    return board & ~first, board & ~(first << (w - 1))


#: Above every mask.
_ABOVE = (1 << 63) - 1


@njit(cache=True)
def _reversed(row: int, width: int) -> int:
    """The `width` low bits of `row` in reverse order."""
    if width > 32:
        turned = 0
        for c in range(width):
            if row >> c & 1:
                turned |= 1 << (width - 1 - c)
        return turned
    x = ((row >> 1) & 0x55555555) | ((row & 0x55555555) << 1)
    x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2)
    x = ((x >> 4) & 0x0F0F0F0F) | ((x & 0x0F0F0F0F) << 4)
    x = ((x >> 8) & 0x00FF00FF) | ((x & 0x00FF00FF) << 8)
    x = ((x >> 16) & 0xFFFF) | ((x & 0xFFFF) << 16)
    return x >> (32 - width)


@njit(cache=True)
def _least_flip(lines: np.ndarray, ph: int, pw: int, best: int) -> int:
    """The least of `best` and a picture's four mirror images (lines of `pw` bits, first
    line lowest), a line at a time."""
    same = 0
    rows_flipped = 0
    mirrored = 0
    both = 0
    for r in range(ph):
        line = lines[r]
        turned = _reversed(line, pw)
        same |= line << (r * pw)
        rows_flipped |= line << ((ph - 1 - r) * pw)
        mirrored |= turned << (r * pw)
        both |= turned << ((ph - 1 - r) * pw)
    return min(best, same, rows_flipped, mirrored, both)


@njit(cache=True)
def _canonical(h: int, w: int, m: int, lines: np.ndarray) -> tuple[int, int]:
    """The (height << 8 | width, mask) of a region's least picture (cropped, turned);
    `lines` is scratch space of `MAX_CELLS` + 1 lines."""
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
    crop_mask = (1 << cw) - 1
    best = _ABOVE
    if ch <= cw:  # the pictures as the crop lies (a square one turned too, below)
        for r in range(ch):
            lines[r] = (m >> ((r + top) * w + left)) & crop_mask
        best = _least_flip(lines, ch, cw, best)
    if ch >= cw:  # the pictures of the crop turned a quarter: its columns become lines
        for c in range(cw):
            lines[c] = 0
        for r in range(ch):
            row = (m >> ((r + top) * w + left)) & crop_mask
            while row:
                c = _low_index(row)
                row &= row - 1
                lines[c] |= 1 << r
        best = _least_flip(lines, cw, ch, best)
    ph = min(ch, cw)
    return ph << 8 | (ch + cw - ph), best


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
    keys_m: np.ndarray, keys_hw: np.ndarray, values: np.ndarray, state: np.ndarray,
    hw: int, m: int, value: int,
) -> int:  # fmt: skip
    """Keep a component's value; its slot."""
    i = _slot(keys_m, keys_hw, hw, m)
    if keys_hw[i] == 0:
        keys_hw[i] = hw
        keys_m[i] = m
        state[ENTRIES] += 1
        if state[ENTRIES] * 4 > len(keys_m) * 3:
            state[FULL] = 1
    values[i] = value
    return i


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
def _cram_reduced(w: int, m: int, not_first: int, not_last: int) -> int:
    """`explorer.games.grids.cram_reduced`: a Cram board less the cells that change no value."""
    right = m & ((m & not_first) >> 1)
    left = m & ((m & not_last) << 1)
    down = m & (m >> w)
    up = m & (m << w)
    several = (right & left) | (up & down) | ((right | left) & (up | down))
    ends = (right | left | down | up) & ~several
    if ends == 0:
        return m
    found = (ends << w) & m  # the end's neighbour below it, then right, above, left
    anchors = found
    found = ((ends & not_last) << 1) & m
    kept = m & ~((found & anchors) >> 1)
    anchors |= found
    found = (ends >> w) & m
    kept &= ~((found & anchors) << w)
    anchors |= found
    found = ((ends & not_first) >> 1) & m
    kept &= ~((found & anchors) << 1)
    anchors |= found
    inner = m & ~(ends | anchors)
    touching = ((inner & not_first) >> 1) | ((inner & not_last) << 1) | (inner << w) | (inner >> w)
    return kept & ~(inner & ~touching)


@njit(cache=True)
def _off_centre(h: int, w: int, cell: int) -> int:
    """How far a cell (a one-bit mask) is from the board's centre, in half cells."""
    index = _low_index(cell)
    return abs(2 * (index // w) - h + 1) + abs(2 * (index % w) - w + 1)


@njit(cache=True)
def _moves(
    rule: int,
    hw: int,
    m: int,
    parts_hw: np.ndarray,
    parts_m: np.ndarray,
    counts: np.ndarray,
    places: np.ndarray,
) -> int:
    """The distinct moves of a component: for each, its components' keys (sorted, equal
    pairs cancelled) in `parts_hw`, `parts_m`, their number in `counts`, and how far from
    the centre it is played in `places`. Returns the moves.

    Game families: Cram (`rule` CRAM: a domino on two free cells side by side, across then
    down; what is left is reduced (`_cram_reduced`) and a lone cell dropped, no move uses it)
    and Node-Kayles on a grid (a cell and its four neighbours taken). The step: each move's
    cells left, split into components, each brought to its canonical key (`_canonical`)."""
    h = hw >> 8
    w = hw & 0xFF
    not_first, not_last = _frame(h, w)
    after = np.empty(MAX_MOVES, dtype=np.int64)
    lines = np.empty(MAX_CELLS + 1, dtype=np.int64)
    count = 0
    if rule == CRAM:
        right = m & ((m & not_first) >> 1)
        while right:
            low = right & -right
            after[count] = m & ~(low | low << 1)
            places[count] = _off_centre(h, w, low)
            count += 1
            right ^= low
        down = m & (m >> w)
        while down:
            low = down & -down
            after[count] = m & ~(low | low << w)
            places[count] = _off_centre(h, w, low)
            count += 1
            down ^= low
    else:
        cells = m
        while cells:
            low = cells & -cells
            taken = low | ((low & not_first) >> 1) | ((low & not_last) << 1) | low << w | low >> w
            after[count] = m & ~taken
            places[count] = _off_centre(h, w, low)
            count += 1
            cells ^= low
    hashes = np.empty(count, dtype=np.int64)
    for k in range(count):
        left_cells = after[k]
        if rule == CRAM:
            left_cells = _cram_reduced(w, left_cells, not_first, not_last)
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
            phw, pm = _canonical(h, w, region, lines)
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
                places[write] = places[k]
                for t in range(counts[k]):
                    parts_hw[write, t] = parts_hw[k, t]
                    parts_m[write, t] = parts_m[k, t]
            write += 1
    return write


# what a frame of the search waits for
_START, _LOOP, _PART, _ASK, _TRY = 0, 1, 2, 3, 4
#: The answer "the value is not among those asked".
NOT_IN_SET = -1
#: Values a request can name (bits of a mask): every one of them is "what is the value?".
ANY_VALUE = (1 << 62) - 1


@njit(cache=True)
def _highest_bit(x: int) -> int:
    while x & (x - 1):
        x &= x - 1
    return x


@njit(cache=True)
def _xored_each(values: int, x: int) -> int:
    """The set {v ^ x : v in `values`} (both below 62), as a mask."""
    if x == 0:
        return values
    result = 0
    while values:
        low = values & -values
        values ^= low
        v = _low_index(low) ^ x
        if v < 62:
            result |= 1 << v
    return result


@njit(cache=True)
def search(
    rule: int,
    paths: np.ndarray,
    keys_m: np.ndarray,
    keys_hw: np.ndarray,
    values: np.ndarray,
    excluded: np.ndarray,
    state: np.ndarray,
    exported: np.ndarray,
    hardest_first: bool,
    root_hw: int,
    root_m: int,
    root_request: int,
) -> int:
    """The value of component (hw, m) when it is among the values of mask `request`, else
    `NOT_IN_SET` (a value outside it may come back too); `ABORT` when the round's budget is
    spent or the table is full.

    Game families: Cram and Node-Kayles on grids (`rule`), one component at a time.

    Beling and Rogalski's search: a component of n distinct moves keeps the set of values it
    may still have, {0..n} at first; each move takes one out (its value, or the largest when
    its value is not among them), so that one is left at the end. A move is asked only for
    the values still possible (less the largest), so it stops as soon as it knows it has none
    of them. The component searched (the root) tries one value at a time instead, asking each
    move whether it has it (their "aspiration set" is one value). Iterative, with a frame per
    component being searched: each frame's component is smaller than its parent's, so there
    are at most `MAX_CELLS` of them."""
    depth = MAX_CELLS + 2
    f_hw = np.zeros(depth, dtype=np.int64)
    f_m = np.zeros(depth, dtype=np.int64)
    f_request = np.zeros(depth, dtype=np.int64)
    f_stage = np.zeros(depth, dtype=np.int64)
    f_possible = np.zeros(depth, dtype=np.int64)  # values still possible, below 62
    f_above = np.zeros(depth, dtype=np.int64)  # how many possible values from 62 up
    f_exact = np.zeros(depth, dtype=np.bool_)
    f_count = np.zeros(depth, dtype=np.int64)
    f_index = np.zeros(depth, dtype=np.int64)
    f_aspire = np.zeros(depth, dtype=np.bool_)  # one value at a time, asked of each move
    f_value = np.zeros(depth, dtype=np.int64)  # the value tried
    f_skip = np.zeros(depth, dtype=np.int64)  # values some move has (not the component's)
    alive = np.zeros((depth, MAX_MOVES), dtype=np.bool_)
    parts_hw = np.empty((depth, MAX_MOVES, MAX_PARTS), dtype=np.int64)
    parts_m = np.empty((depth, MAX_MOVES, MAX_PARTS), dtype=np.int64)
    counts = np.empty((depth, MAX_MOVES), dtype=np.int64)
    xors = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    left = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    pending = np.zeros((depth, MAX_MOVES), dtype=np.int64)
    weight = np.zeros(MAX_MOVES, dtype=np.int64)
    places = np.zeros(MAX_MOVES, dtype=np.int64)
    sp = 0
    f_hw[0] = root_hw
    f_m[0] = root_m
    f_request[0] = root_request
    f_stage[0] = _START
    result = 0
    while True:
        hw = f_hw[sp]
        m = f_m[sp]
        request = f_request[sp]
        stage = f_stage[sp]
        answered = False
        if stage == _START:
            i = _slot(keys_m, keys_hw, hw, m)
            if keys_hw[i] != 0 and values[i] >= 0:
                if exported[i] == STORED_UNCHECKED:
                    state[CHECK] = i
                    return UNCHECKED
                result = values[i]
                answered = True
            else:
                known = _known(rule, paths, state, hw, m)
                if known >= 0:  # a shortcut's value: kept, never stored as a part
                    exported[_put(keys_m, keys_hw, values, state, hw, m, known)] = 1
                    result = known
                    answered = True
                else:
                    if keys_hw[i] != 0:  # values it was shown not to have
                        request &= ~excluded[i]
                    if _lower_bound(rule, state, hw, m) > 0:
                        request &= ~1  # not 0
                    f_request[sp] = request
                    if request == 0:
                        result = NOT_IN_SET
                        answered = True
            if not answered:
                if state[BUDGET] <= 0 or state[FULL]:
                    return ABORT
                state[BUDGET] -= 1
                state[SEARCHED] += 1
                moves = _moves(rule, hw, m, parts_hw[sp], parts_m[sp], counts[sp], places)
                # the values possible: 0..moves
                possible = ANY_VALUE if moves >= 62 else (1 << (moves + 1)) - 1
                above = moves - 61 if moves >= 62 else 0
                count = 0
                reached = 0
                for k in range(moves):
                    total = 0
                    n = 0
                    weight[k] = places[k]  # ties: nearer the centre first
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
                                exported[_put(keys_m, keys_hw, values, state, phw, pm, value)] = 1
                        if value >= 0:
                            total ^= value
                        else:
                            parts_hw[sp, k, n] = phw
                            parts_m[sp, k, n] = pm
                            size = _popcount(pm)
                            weight[k] += size * size * 256
                            n += 1
                    xors[sp, k] = total
                    left[sp, k] = n
                    if n == 0:  # its value is known: it is not the component's
                        if total < 62:
                            reached |= 1 << total
                        if total < 62 and possible >> total & 1:
                            possible ^= 1 << total
                        elif above > 0:
                            above -= 1
                        else:
                            possible ^= _highest_bit(possible)
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
                # easiest moves first (fewest cells left to search, then nearest the centre),
                # or hardest first for a check by another order
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
                f_possible[sp] = possible
                f_above[sp] = above
                f_exact[sp] = True
                f_count[sp] = count
                f_index[sp] = 0
                f_aspire[sp] = sp == 0 and request | 1 == ANY_VALUE
                f_value[sp] = 0 if request & 1 else 1
                f_skip[sp] = reached
                for a in range(count):
                    alive[sp, a] = True
                stage = _LOOP
        if not answered and stage == _PART:  # a smaller component of a move was valued
            if result < 0:
                return TOO_LARGE
            k = pending[sp, f_index[sp]]
            xors[sp, k] ^= result
            left[sp, k] -= 1
            stage = _LOOP
        elif not answered and stage == _ASK:  # the largest component of a move answered
            k = pending[sp, f_index[sp]]
            possible = f_possible[sp]
            value = result ^ xors[sp, k] if result >= 0 else 62
            if value < 62 and possible >> value & 1:
                possible ^= 1 << value
            elif f_above[sp] > 0:
                f_above[sp] -= 1
            else:
                possible ^= _highest_bit(possible)
            if result < 0:
                f_exact[sp] = False
            f_possible[sp] = possible
            f_index[sp] += 1
            stage = _LOOP
        elif not answered and stage == _TRY:  # a move answered whether it has the value tried
            a = f_index[sp]
            if result >= 0:
                alive[sp, a] = False
                value = result ^ xors[sp, pending[sp, a]]
                if value == f_value[sp]:  # not the component's value: try the next
                    f_value[sp] += 1
                    f_index[sp] = 0
                else:
                    if value < 62:
                        f_skip[sp] |= 1 << value
                    f_index[sp] = a + 1
            else:
                f_index[sp] = a + 1
            stage = _LOOP
        if not answered and stage == _LOOP and f_aspire[sp]:
            value = f_value[sp]
            while value < 62 and f_skip[sp] >> value & 1:
                value += 1
                f_index[sp] = 0
            f_value[sp] = value
            a = f_index[sp]
            while a < f_count[sp] and not alive[sp, a]:
                a += 1
            f_index[sp] = a
            if a == f_count[sp] or value >= 62:  # no move has the value tried: it is this one's
                if value >= 62:
                    return TOO_LARGE
                _put(keys_m, keys_hw, values, state, hw, m, value)
                result = value
                answered = True
            else:
                k = pending[sp, a]
                child = sp + 1
                if left[sp, k] > 1:  # value the smallest component left of this move
                    n = left[sp, k] - 1
                    f_hw[child] = parts_hw[sp, k, n]
                    f_m[child] = parts_m[sp, k, n]
                    f_request[child] = ANY_VALUE
                    f_stage[sp] = _PART
                else:
                    asked = value ^ xors[sp, k]
                    f_hw[child] = parts_hw[sp, k, 0]
                    f_m[child] = parts_m[sp, k, 0]
                    f_request[child] = 1 << asked if asked < 62 else 0
                    f_stage[sp] = _TRY
                f_stage[child] = _START
                sp = child
                continue
        elif not answered and stage == _LOOP:
            possible = f_possible[sp]
            if possible & request == 0:  # kept: it has none of the values asked
                excluded[_put(keys_m, keys_hw, values, state, hw, m, -1)] |= request
                result = NOT_IN_SET
                answered = True
            elif f_index[sp] == f_count[sp]:  # one value is left: the component's
                upto = _highest_bit(request)
                upto |= upto - 1
                if f_exact[sp] or possible & upto:
                    result = _low_index(possible) if possible else 62
                    _put(keys_m, keys_hw, values, state, hw, m, result)
                else:  # kept: its value is above every value asked
                    excluded[_put(keys_m, keys_hw, values, state, hw, m, -1)] |= upto
                    result = NOT_IN_SET
                answered = True
            else:
                k = pending[sp, f_index[sp]]
                child = sp + 1
                if left[sp, k] > 1:  # value the smallest component left of this move
                    n = left[sp, k] - 1
                    f_hw[child] = parts_hw[sp, k, n]
                    f_m[child] = parts_m[sp, k, n]
                    f_request[child] = ANY_VALUE
                    f_stage[sp] = _PART
                else:
                    if f_above[sp] > 0:
                        below_largest = possible
                    else:
                        below_largest = possible ^ _highest_bit(possible)
                    upto = _highest_bit(request)
                    upto |= upto - 1
                    f_hw[child] = parts_hw[sp, k, 0]
                    f_m[child] = parts_m[sp, k, 0]
                    f_request[child] = _xored_each(below_largest & upto, xors[sp, k])
                    f_stage[sp] = _ASK
                f_stage[child] = _START
                sp = child
                continue
        if answered:
            if sp == 0:
                return result
            sp -= 1


@njit(cache=True)
def _rehash(
    keys_m: np.ndarray,
    keys_hw: np.ndarray,
    values: np.ndarray,
    excluded: np.ndarray,
    exported: np.ndarray,
    new_m: np.ndarray,
    new_hw: np.ndarray,
    new_values: np.ndarray,
    new_excluded: np.ndarray,
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
            new_excluded[j] = excluded[i]
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
    keys_m: np.ndarray, keys_hw: np.ndarray, values: np.ndarray, exported: np.ndarray,
    state: np.ndarray, hw: int, m: int, value: int, flag: int,
) -> None:  # fmt: skip
    exported[_put(keys_m, keys_hw, values, state, hw, m, value)] = flag


#: Components a round searches before it hands back (progress, bounds, signals).
ROUND = 200_000
#: Slots of a new table (it doubles when three quarters full).
FIRST_CAPACITY = 1 << 16
#: Bytes a slot takes in the table's arrays.
BYTES_PER_SLOT = 26


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
        #: Per component, a mask of values it was shown not to have.
        self.excluded = np.zeros(capacity, dtype=np.int64)
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
        old = (self.keys_m, self.keys_hw, self.values, self.excluded, self.exported)
        self._allocate(capacity)
        self.state[ENTRIES] = _rehash(
            *old, self.keys_m, self.keys_hw, self.values, self.excluded, self.exported
        )
        self.state[FULL] = 0

    def _search(self, key: int, request: int) -> int:
        from explorer.games.grids import SHORTCUT_PATHS, SHORTCUT_SYMMETRY, unkey

        h, w, mask = unkey(key)
        self._grow(len(self.keys_m))  # the table as it is must fit the bound too
        while True:
            self.state[BUDGET] = ROUND
            before = self.state.copy()
            answer = search(
                self.rule, self.paths, self.keys_m, self.keys_hw, self.values, self.excluded,
                self.state, self.exported, self.hardest_first, h << 8 | w, mask, request,
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
            elif answer == TOO_LARGE:
                raise ValueError(
                    f"a part of {self.rules.label(key)!r} has a value of 62 or more, past what "
                    "the compiled search holds"
                )
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
        found = self._search(key, ANY_VALUE)
        if found < 0:
            raise ValueError(
                f"{self.rules.label(key)!r} has a value of 62 or more, past what the compiled "
                "search holds"
            )
        return found

    def has_value(self, key: int, target: int) -> bool:
        if target >= 62:
            return self.value(key) == target
        return self._search(key, 1 << target) == target

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
                self.keys_m, self.keys_hw, self.values, self.exported,
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
