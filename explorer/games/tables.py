"""Value tables G(row, column) of two-coordinate games by dynamic programming over the table.

A cell's options lie on earlier anti-diagonals (row + column smaller), so each anti-diagonal is
one numpy step: the values already seen along each row, column and diagonal are kept as bitsets
of 64-bit words, and a cell's value is the lowest bit missing from the OR of its bitsets.
"""

from __future__ import annotations

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


def _set_bits(bits: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """Set bit values[i] in bits[rows[i]] (rows distinct)."""
    bits[rows, values >> 6] |= _ONE << (values & 63).astype(np.uint64)


def wythoff_table(rows: int, cols: int, progress: TableProgress | None = None) -> np.ndarray:
    """G(r, c) of Wythoff's game (take from one heap, or equally from both) for r < rows, c < cols.

    Examples
    --------
    >>> wythoff_table(3, 4).tolist()
    [[0, 1, 2, 3], [1, 2, 0, 4], [2, 0, 1, 5]]
    """
    words = (rows + cols + min(rows, cols)) // 64 + 1  # G(r, c) <= r + c + min(r, c)
    row_bits = np.zeros((rows, words), dtype=np.uint64)
    col_bits = np.zeros((cols, words), dtype=np.uint64)
    diag_bits = np.zeros((rows + cols, words), dtype=np.uint64)
    table = np.zeros((rows, cols), dtype=np.int64)
    done = 0
    for s in range(rows + cols - 1):
        if progress is not None:
            progress(done, rows * cols)
        r = np.arange(max(0, s - cols + 1), min(rows, s + 1))
        done += r.size
        c = s - r
        d = c - r + rows - 1
        values = _lowest_zero_bit(row_bits[r] | col_bits[c] | diag_bits[d])
        table[r, c] = values
        _set_bits(row_bits, r, values)
        _set_bits(col_bits, c, values)
        _set_bits(diag_bits, d, values)
    if progress is not None:
        progress(done, rows * cols)
    return table


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
