"""Value tables G(row, column) of two-coordinate games by dynamic programming over the table:
the values already reached are kept as bitsets of 64-bit words, and a cell's value is the
lowest bit missing from the OR of the bitsets of its options.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from explorer.games.base import TableProgress

_ONE = np.uint64(1)


def _lowest_zero_bit(words: np.ndarray) -> np.ndarray:
    """Per row of a (cells, words) uint64 array: the index of its lowest bit that is 0."""
    inverted = ~words
    first = np.argmax(inverted != 0, axis=1)
    word = inverted[np.arange(len(words)), first]
    low = word & (~word + _ONE)  # the lowest set bit alone
    lowest: np.ndarray = first * 64 + np.log2(low.astype(np.float64)).astype(np.int64)
    return lowest


#: Tables of at least this many cells are filled by the compiled kernel (numba), the others by
#: the same function in Python.
COMPILED_CELLS = 1 << 14
#: Cells the compiled kernel fills between two returns to Python (progress, Ctrl-C, the work
#: bound: compiled code does not see signals).
BLOCK_CELLS = 1 << 20

_compiled: Any = None


def wythoff_table(rows: int, cols: int, progress: TableProgress | None = None) -> np.ndarray:
    """G(r, c) of Wythoff's game (take from one heap, or equally from both) for r < rows, c < cols.

    Row by row, each cell's value is the lowest bit missing from the OR of the bitsets of the
    values already in its row, column and diagonal; each bitset keeps the index of its first
    word not yet full, so the search starts past the words any one of them fills.

    Examples
    --------
    >>> wythoff_table(3, 4).tolist()
    [[0, 1, 2, 3], [1, 2, 0, 4], [2, 0, 1, 5]]
    """
    global _compiled
    words = (rows + cols + min(rows, cols)) // 64 + 1  # G(r, c) <= r + c + min(r, c)
    table = np.zeros((rows, cols), dtype=np.int64)
    bits = [np.zeros((n, words), dtype=np.uint64) for n in (rows, cols, rows + cols)]
    full = [np.zeros(n, dtype=np.int64) for n in (rows, cols, rows + cols)]
    fill = _wythoff_rows
    if rows * cols >= COMPILED_CELLS:
        if _compiled is None:
            from numba import njit

            _compiled = njit(cache=True, nogil=True)(_wythoff_rows)
        fill = _compiled
    step = max(1, BLOCK_CELLS // max(cols, 1))
    for first in range(0, rows, step):
        if progress is not None:
            progress(first * cols, rows * cols)
        fill(table, first, min(rows, first + step), *bits, *full)
    if progress is not None:
        progress(rows * cols, rows * cols)
    return table


def _wythoff_rows(
    table: np.ndarray,
    first: int,
    last: int,
    row_bits: np.ndarray,
    col_bits: np.ndarray,
    diag_bits: np.ndarray,
    row_full: np.ndarray,
    col_full: np.ndarray,
    diag_full: np.ndarray,
) -> None:
    """Fill rows first..last - 1 of a Wythoff table, the rows above them filled (compiled by
    numba for large tables: plain loops over arrays)."""
    rows, cols = table.shape
    everything = ~np.uint64(0)
    one = np.uint64(1)
    for r in range(first, last):
        for c in range(cols):
            d = c - r + rows - 1
            w = max(row_full[r], col_full[c], diag_full[d])
            missing = ~(row_bits[r, w] | col_bits[c, w] | diag_bits[d, w])
            while missing == 0:
                w += 1
                missing = ~(row_bits[r, w] | col_bits[c, w] | diag_bits[d, w])
            low = missing & (~missing + one)  # the lowest bit missing, alone
            value = w * 64 + int(np.log2(np.float64(low)))
            table[r, c] = value
            word, bit = value // 64, one << np.uint64(value % 64)
            row_bits[r, word] |= bit
            while row_bits[r, row_full[r]] == everything:
                row_full[r] += 1
            col_bits[c, word] |= bit
            while col_bits[c, col_full[c]] == everything:
                col_full[c] += 1
            diag_bits[d, word] |= bit
            while diag_bits[d, diag_full[d]] == everything:
                diag_full[d] += 1


def ferguson_table(rows: int, cols: int, progress: TableProgress | None = None) -> np.ndarray:
    """G(n, m) of Ferguson's game (empty one heap, split the other) for n < rows, m < cols;
    -1 where n or m is 0 (not a position).

    G(n, m) = mex(S(n) | S(m)), S(t) the values of the splits (a, t - a); the splits of a heap t
    are positions of sum t, so the sums are filled in increasing order.

    Examples
    --------
    >>> ferguson_table(3, 4).tolist()
    [[-1, -1, -1, -1], [-1, 0, 1, 0], [-1, 1, 1, 2]]
    """
    largest = max(rows, cols)
    words = 1  # the values stay small: the bitsets grow when they do not
    splits = np.zeros((largest + 1, words), dtype=np.uint64)  # S(t) as a bitset
    cells: dict[int, np.ndarray] = {}
    for t in range(2, largest + 1):
        if progress is not None:  # the splits are most of the work: the cells follow at once
            progress(rows * cols * t // (largest + 1), rows * cols)
        a = np.arange(1, t // 2 + 1)
        b = t - a
        union = splits[a] | splits[b]
        values = _lowest_zero_bit(union)
        top = int(values.max())
        if top >= 64 * splits.shape[1] - 1:
            grown = np.zeros((largest + 1, top // 64 + 2), dtype=np.uint64)
            grown[:, : splits.shape[1]] = splits
            splits = grown
        cells[t] = values
        bits = np.zeros(splits.shape[1], dtype=np.uint64)
        for v in np.unique(values).tolist():
            bits[v >> 6] |= _ONE << np.uint64(v & 63)
        splits[t] = bits
    table = np.full((rows, cols), -1, dtype=np.int64)
    n = np.arange(1, rows)[:, None]
    m = np.arange(1, cols)[None, :]
    if rows > 1 and cols > 1:
        union = splits[n] | splits[m]
        flat = union.reshape(-1, splits.shape[1])
        table[1:, 1:] = _lowest_zero_bit(flat).reshape(rows - 1, cols - 1)
    if progress is not None:
        progress(rows * cols, rows * cols)
    return table


def heap_pair_table(values: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """G(r) XOR G(c): two heaps of a heap game, from its single-heap values.

    Examples
    --------
    >>> heap_pair_table(np.arange(4), 2, 3).tolist()
    [[0, 1, 2], [1, 0, 3]]
    """
    v = np.asarray(values, dtype=np.int64)
    return v[:rows, None] ^ v[None, :cols]
