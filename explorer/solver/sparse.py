"""Single-heap value sequences of splitting games at research scale: the sparse-space method.

For octal games with finitely many non-zero digits and Grundy's game. The values are split into
*common* and *rare* ones such that the XOR of two common values is never common (a parity mask
chosen from the value counts by a Walsh-Hadamard transform, optionally with the position's parity
as one more bit); each heap then XORs only the pairs involving a rare position, takes the least
common value not reached as its candidate, and verifies every rare value below it by scanning the
splits until each has appeared. Games without a sparse space get the naive method, in the same
compiled kernel (numba). Values are 16-bit.

With several workers, the block kernel (`explorer.solver.sparse_kernel`) computes heaps a block
at a time on numba's threads: the pairs of values known before the block in parallel, heap by
heap, then the few pairs whose larger part lies in the block in order; the same values as one
worker, in both the sparse and the naive (quadratic) method.

Memory: the whole sequence stays in memory (2 bytes a value); no kernel can keep a window.
The rare pairs read G(t - r) for every rare position r, as far back as the first one (and the
hard codes' rare positions never stop); the verification scan reads from G(1) up, and to the
middle of the sequence for each heap whose value is rare (an unreached value is shown so only
by every pair); the naive method reads every value; the period proof reads every value from
the preperiod on. Only games without splits (subtraction-like codes) read a bounded distance
back, and their period is proven within a few times that distance, where the run stops.
The --memory guard names the limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.errors import ValueLimitError
from explorer.games.base import HeapRules
from explorer.games.removals import SplitRules
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


def _kernel(workers: int) -> Any:
    """The compiled kernel for `workers` threads (numba's threads set to as many)."""
    from explorer.solver.sparse_kernel import kernel

    compiled = kernel(workers)
    if workers > 1:
        from numba import set_num_threads

        set_num_threads(workers)
    return compiled


def _team(workers: int, largest: int) -> tuple[int, int, int]:
    """What the team's kernel takes beyond the values and moves: the width of the values'
    marks (every value so far below it), the heaps of a block (its marks in a few MiB a
    worker), and the workers."""
    width = 1 << max(largest.bit_length(), 1)
    return width, max(16, min(BLOCK_HEAPS, (1 << 20) // (2 * width + 1))), workers


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
    compiled = _kernel(workers)
    # the octal digits' three cases, as the kernel takes them (see `explorer.solver.sparse_kernel`)
    moves = (
        np.array(rules.leave_one, dtype=np.int64),
        np.array(rules.take_all, dtype=np.int64),
        np.array(rules.split_after, dtype=np.int64),
        rules.unequal,
    )
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
        tail = (seen,) if workers == 1 else _team(workers, run.largest)
        reached, nrare, top, pairs = compiled(
            values, n, end, *moves, sparse, common, rare, nrare, *tail
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


def guy_smith(game: HeapRules) -> GuySmith | None:
    """The Guy-Smith theorem for this game, or None when it does not apply.

    It applies to every octal game with finitely many non-zero digits, ``4.`` codes included
    (the heap's own splits remove k = 0 tokens: the proof holds for removals 0..k), and to the
    take-and-break codes whose periodicity says so (at most h heaps left); a game says so by
    `HeapRules.guy_smith_parameters`.
    """
    found = game.guy_smith_parameters()
    return None if found is None else GuySmith(*found)


def heap_sequence(
    game: HeapRules,
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
    return _compiled_sequence(
        rules,
        previous,
        stored,
        upto,
        theorem=theorem,
        limit=limit,
        progress=progress,
        checkpoint=checkpoint,
        workers=workers,
    )


def _compiled_sequence(
    rules: SplitRules,
    previous: np.ndarray,
    stored: int,
    upto: int,
    *,
    theorem: GuySmith | None,
    limit: int,
    progress: Progress | None,
    checkpoint: Callable[[np.ndarray, int], None] | None,
    workers: int,
) -> HeapSequence:
    """G(0..upto) of a splitting game by the compiled kernel, after the `stored` values
    `previous`, or fewer when a period is proven (with a `theorem`); see `heap_sequence`."""
    proof: tuple[int, int] | None = None
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
    game: HeapRules,
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
