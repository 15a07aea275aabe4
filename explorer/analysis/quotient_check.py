"""The check of a candidate misère quotient against the definition, by induction on sums of heaps
(see `explorer.analysis.quotient.misere_quotient`, Notes): for every sum X, with q = Φ(X) and T
the set of Φ of X's options, q is in P exactly when T is not empty and misses P. The pairs
(q, T) of X + h follow from those of X and from h (a `Letter`), so finitely many arise.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

from explorer.errors import QuotientTooLargeError

#: A (q, T) pair of the verification: an element and the set of its options' elements (a mask).
Node = tuple[int, int]
#: The pairs checked, each with the pair and the heap it was first reached from.
Checked = dict[Node, tuple[Node, int] | None]


class Letter:
    """How adding one heap acts on the checked pairs: q -> col[q], T -> col[T] | opt[q]."""

    __slots__ = ("col", "opt", "images", "key")

    def __init__(self, col: list[int], opt: list[int]) -> None:
        self.col = col
        self.opt = opt
        self.images: dict[int, int] = {}
        self.key = (tuple(col), tuple(opt))

    def image(self, mask: int) -> int:
        """The set `mask` (bits of elements) carried through col."""
        found = self.images.get(mask)
        if found is None:
            found = 0
            rest = mask
            while rest:
                low = rest & -rest
                found |= 1 << self.col[low.bit_length() - 1]
                rest ^= low
            self.images[mask] = found
        return found


def first_inconsistent(
    accept: list[bool],
    letters: list[Letter],
    nodes: Checked,
    todo: list[tuple[Node, Letter]],
    heap_of: dict[tuple[object, ...], int],
    limit: int,
) -> Node | None:
    """Explore the pairs (q, T) from `todo` (adding each found pair to `nodes` with its parent
    and heap); return the first pair where q is in P but T is empty or meets P, or q is not in
    P but T misses P and is not empty; None when every pair is consistent."""
    p_mask = sum(1 << q for q, a in enumerate(accept) if a)
    queue = deque(todo)
    while queue:
        (q, t), letter = queue.popleft()
        node = (letter.col[q], letter.image(t) | letter.opt[q])
        if node in nodes:
            continue
        nodes[node] = ((q, t), heap_of[letter.key])
        q2, t2 = node
        if accept[q2] != (t2 != 0 and not t2 & p_mask):
            return node
        if len(nodes) > limit:
            raise QuotientTooLargeError("", limit)
        queue.extend((node, other) for other in letters)
    return None


def check_all(
    accept: list[bool],
    heaps: int,
    column: Callable[[int], list[int]],
    options: Callable[[int, int], Iterable[int]],
    limit: int,
) -> tuple[Checked, list[Letter], dict[tuple[object, ...], int], Node | None]:
    """Check a candidate on every sum of heaps 1..heaps from scratch: the heap h moves q to
    column(h)[q], and its moves from q reach options(h, q). Returns the pairs found (with
    their parents), the distinct letters, a heap of each, and the first inconsistent pair.

    Examples
    --------
    Nim's heaps 0..1: classes 1 and a (= Φ(1)), a·a = 1, the heap of 1 moving to no heap.
    With P = {a} every pair checks; with P empty, the sum 1 (class a, T = {1}) does not.

    >>> check_all([False, True], 1, lambda h: [1, 0], lambda h, q: [q], 100)[3] is None
    True
    >>> check_all([False, False], 1, lambda h: [1, 0], lambda h, q: [q], 100)[3]
    (1, 1)
    """
    letters: list[Letter] = []
    heap_of: dict[tuple[object, ...], int] = {}
    for h in range(1, heaps + 1):
        opt = [sum({1 << t for t in options(h, q)}) for q in range(len(accept))]
        letter = Letter(column(h), opt)
        if letter.key not in heap_of:
            heap_of[letter.key] = h
            letters.append(letter)
    nodes: Checked = {(0, 0): None}
    todo = [((0, 0), letter) for letter in letters]
    bad = first_inconsistent(accept, letters, nodes, todo, heap_of, limit)
    return nodes, letters, heap_of, bad
