"""Growing sets kept as sorted arrays: runs merged like a binary counter, and lookups in them.

A build keeps two such sets: the codes of the heap positions it has numbered (`HeapIndex`, past
its lookup table) and the moves waiting for their end's value (`build_arrays.Waiting`). Sorting the
whole set again whenever it grows costs its size each time, the square of it in all (77 s of a
10M-state build's 200 s); runs each more than twice the size of the next, a new one merged with
the smaller ones as it catches up, cost n log n in all and are searched one `searchsorted` each.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

#: A run: keys sorted ascending, and one value per key.
Run = tuple[np.ndarray, np.ndarray]
#: Which entries of a merge to carry on, from their keys (None: all).
Keep = Callable[[np.ndarray], np.ndarray] | None


def merged(runs: list[Run], keep: Keep = None) -> Run:
    """One run of the runs' entries (those `keep` keeps); equal keys keep the runs' order.

    Examples
    --------
    >>> keys, values = merged([(np.array([1, 4]), np.array([10, 40])),
    ...                        (np.array([2, 4]), np.array([20, 41]))])
    >>> keys.tolist(), values.tolist()
    ([1, 2, 4, 4], [10, 20, 40, 41])
    """
    keys = np.concatenate([run[0] for run in runs])
    values = np.concatenate([run[1] for run in runs])
    if keep is not None:
        kept = keep(keys)
        keys, values = keys[kept], values[kept]
    # sorted runs one after the other: timsort ("stable") finds them and merges in linear time
    order = np.argsort(keys, kind="stable")
    return keys[order], values[order]


def push_run(runs: list[Run], run: Run, keep: Keep = None) -> None:
    """Add a sorted `run` to `runs` (largest first), merged with the last run while that is no
    more than twice its size, so that each run stays more than twice the size of the next.

    Examples
    --------
    >>> runs: list[Run] = []
    >>> for k in range(6):
    ...     push_run(runs, (np.array([k]), np.array([k])))
    >>> [len(keys) for keys, _ in runs]
    [5, 1]
    """
    while runs and len(runs[-1][0]) <= 2 * len(run[0]):
        run = merged([runs.pop(), run], keep)
    runs.append(run)


def find_sorted(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of `wanted` is in the sorted `keys`, and whether it is there at all (memory
    for `wanted` only, however many the keys: ``np.isin`` sorts both together).

    Examples
    --------
    >>> at, found = find_sorted(np.array([2, 5, 9]), np.array([5, 7, 9, 1]))
    >>> at[found].tolist(), found.tolist()
    ([1, 2], [True, False, True, False])
    """
    if not len(keys):
        return np.zeros(len(wanted), dtype=np.int64), np.zeros(len(wanted), dtype=bool)
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    found: np.ndarray = keys[at] == wanted
    return at, found
