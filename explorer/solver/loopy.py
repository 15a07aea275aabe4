"""Games whose graph may have cycles: the generalized Sprague-Grundy function γ (finite or ∞(K)),
its counter, P/N/D outcomes, the generalized nim-sum, and retrograde win/lose/draw analysis.

The labelling is Fraenkel and Yesha's (``/work/shared/LOOPY.md`` §6), iterative, in
O((Δ + 2)(|V| + |E|)) for maximum out-degree Δ; on acyclic graphs γ is the ordinary Grundy value.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from explorer.errors import NoAnswerError
from explorer.solver import outcome

if TYPE_CHECKING:  # NetworkX loads with the graphs that use it, not with this module
    import networkx as nx


@dataclass(frozen=True)
class Infinite:
    """The value ∞(K): no finite value; `escapes` K are the finite values among the followers.

    Examples
    --------
    >>> str(Infinite(frozenset({2, 0})))
    '∞(0,2)'
    >>> str(Infinite())
    '∞'
    """

    escapes: frozenset[int] = frozenset()

    def __str__(self) -> str:
        if not self.escapes:
            return "∞"
        return "∞(" + ",".join(map(str, sorted(self.escapes))) + ")"


#: A generalized Sprague-Grundy value: a non-negative int, or ∞(K).
Value = int | Infinite


def format_value(value: Value) -> str:
    """The value as text: ``3``, ``∞`` or ``∞(0,2)``."""
    return str(value)


def outcome_of(value: Value) -> str:
    """``"P"``, ``"N"`` or ``"D"`` (draw) from a generalized value (LOOPY.md §3).

    Examples
    --------
    >>> outcome_of(0), outcome_of(3), outcome_of(Infinite(frozenset({0}))), outcome_of(Infinite())
    ('P', 'N', 'N', 'D')
    """
    if isinstance(value, Infinite):
        return "N" if 0 in value.escapes else "D"
    return outcome(value)


def nim_sum(*values: Value) -> Value:
    """The generalized nim-sum (Smith 1966): the value of a sum from its components' values.

    Finite values XOR; one infinite component ∞(K) with the others' XOR a gives ∞(K ⊕ a);
    two or more infinite components give ∞ (a draw).

    Examples
    --------
    >>> nim_sum(3, 5)
    6
    >>> nim_sum(2, Infinite(frozenset({0, 3})))
    Infinite(escapes=frozenset({1, 2}))
    >>> nim_sum(Infinite(frozenset({0})), Infinite(frozenset({0})))
    Infinite(escapes=frozenset())
    """
    xor = 0
    infinite: Infinite | None = None
    for value in values:
        if isinstance(value, Infinite):
            if infinite is not None:
                return Infinite()
            infinite = value
        else:
            xor ^= value
    if infinite is None:
        return xor
    return Infinite(frozenset(k ^ xor for k in infinite.escapes))


@dataclass(frozen=True)
class Labelling:
    """γ of every vertex 0..n-1 of a graph given as successor lists.

    `values[v]` is γ(v) (an int or `Infinite`); `counters[v]` is the counter c(v) of a finite
    vertex (the order in which it was labelled; None for ∞): from a P-position, answer an
    escape with a value-0 follower of smaller counter. `stages[v]` is the stage of the
    labelling that fixed v (its value for a finite vertex).
    """

    values: list[Value]
    counters: list[int | None]
    stages: list[int]


_OPEN = -2  # unlabelled
_INF = -1


def label_vertices(successors: Sequence[Iterable[int]]) -> Labelling:
    """Fraenkel and Yesha's labelling on vertices 0..n-1; ``successors[v]`` lists v's followers.

    Self-loops and repeated edges are allowed. Stage i labels i every unlabelled vertex with no
    follower labelled i whose open followers (unlabelled or ∞) all have a follower labelled i,
    one at a time (the counter counts them); then ∞ every unlabelled vertex with no follower
    labelled i.

    Examples
    --------
    >>> label_vertices([[1, 2], [0], []]).values   # 0 -> 1, 0 -> 2, 1 -> 0: finite on a cycle
    [1, 0, 0]
    >>> label_vertices([[0]]).values                # a self-loop: a pass, never finite
    [Infinite(escapes=frozenset())]
    """
    return _label(*_follower_lists(successors))


def _follower_lists(
    successors: Sequence[Iterable[int]],
) -> tuple[list[list[int]], list[list[int]]]:
    """Each vertex's followers without repeats (in order), and its predecessors."""
    succ = [list(dict.fromkeys(s)) for s in successors]
    pred: list[list[int]] = [[] for _ in range(len(succ))]
    for u, followers in enumerate(succ):
        for v in followers:
            pred[v].append(u)
    return succ, pred


def labels_and_remoteness(
    successors: Sequence[Iterable[int]],
) -> tuple[Labelling, list[int | None]]:
    """`label_vertices` and the remoteness of `retrograde` (normal play) together, the
    followers and predecessors listed once for both.

    Examples
    --------
    >>> labels, far = labels_and_remoteness([[1], [0, 2], []])
    >>> labels.values, far
    ([0, 1, 0], [2, 1, 0])
    """
    succ, pred = _follower_lists(successors)
    return _label(succ, pred), _retrograde(succ, pred, "P")[1]


def _label(succ: list[list[int]], pred: list[list[int]]) -> Labelling:
    """`label_vertices` on followers without repeats and their predecessors."""
    n = len(succ)
    label = [_OPEN] * n
    counter: list[int | None] = [None] * n
    stage_of = [0] * n
    has_i = [False] * n  # v has a follower labelled i (the current stage)
    bad = [0] * n  # open followers of v without a follower labelled i
    unlabelled = list(range(n))
    m = 0
    stage = 0
    while unlabelled:
        marked: list[int] = []
        candidates = []
        for u in unlabelled:
            count = 0
            for v in succ[u]:
                if label[v] < 0:
                    count += 1
            bad[u] = count
            if count == 0:
                candidates.append(u)
        while candidates:
            u = candidates.pop()
            if label[u] != _OPEN or has_i[u] or bad[u]:
                continue
            label[u] = stage
            counter[u] = m
            stage_of[u] = stage
            m += 1
            for p in pred[u]:
                if has_i[p]:
                    continue
                has_i[p] = True
                marked.append(p)
                if label[p] < 0:  # p was an open follower without an answer; now it has one
                    for q in pred[p]:
                        if label[q] == _OPEN:
                            bad[q] -= 1
                            if bad[q] == 0 and not has_i[q]:
                                candidates.append(q)
        remaining = []
        for u in unlabelled:
            if label[u] == _OPEN:
                if has_i[u]:
                    remaining.append(u)
                else:
                    label[u] = _INF
                    stage_of[u] = stage
        for p in marked:
            has_i[p] = False
        unlabelled = remaining
        stage += 1
    values: list[Value] = []
    for u in range(n):
        if label[u] >= 0:
            values.append(label[u])
        else:
            values.append(Infinite(frozenset(label[v] for v in succ[u] if label[v] >= 0)))
    return Labelling(values, counter, stage_of)


@dataclass(frozen=True)
class LoopySolution:
    """γ, counters, stages, outcomes and remoteness of every node of a game graph."""

    values: dict[Hashable, Value]
    counters: dict[Hashable, int | None]
    stages: dict[Hashable, int]
    outcomes: dict[Hashable, str]
    remoteness: dict[Hashable, int | None]


def _indexed(graph: nx.DiGraph) -> tuple[list[Hashable], list[list[int]]]:
    nodes = list(graph)
    index = {node: i for i, node in enumerate(nodes)}
    succ = graph._succ  # adjacency dicts: several times faster than graph.successors()
    return nodes, [[index[s] for s in succ[node]] for node in nodes]


def loopy_values(graph: nx.DiGraph) -> dict[Hashable, Value]:
    """γ of every node of a game graph that may have cycles and self-loops.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "t"), ("d", "d"), ("d", "t"), ("e", "d")])
    >>> g.add_edge("c", "c")
    >>> {node: str(value) for node, value in sorted(loopy_values(g).items())}
    {'a': '0', 'b': '1', 'c': '∞', 'd': '∞(0)', 'e': '0', 't': '0'}
    """
    nodes, succ = _indexed(graph)
    return dict(zip(nodes, label_vertices(succ).values, strict=True))


def solve_loopy(graph: nx.DiGraph) -> LoopySolution:
    """γ with counters and stages, and the outcome and remoteness of every node.

    Outcomes come from γ (LOOPY.md §3); remoteness from retrograde analysis (None on draws).
    """
    nodes, succ = _indexed(graph)
    labels, far = labels_and_remoteness(succ)
    return LoopySolution(
        values=dict(zip(nodes, labels.values, strict=True)),
        counters=dict(zip(nodes, labels.counters, strict=True)),
        stages=dict(zip(nodes, labels.stages, strict=True)),
        outcomes={node: outcome_of(v) for node, v in zip(nodes, labels.values, strict=True)},
        remoteness=dict(zip(nodes, far, strict=True)),
    )


def retrograde(
    successors: Sequence[Iterable[int]], terminal: str = "P"
) -> tuple[list[str], list[int | None]]:
    """Win/lose/draw by retrograde analysis, with remoteness, on vertices 0..n-1.

    Terminal vertices get `terminal` (``"P"`` in normal play, ``"N"`` in misère play) and
    remoteness 0; a vertex with a P follower is N (1 + the least such remoteness); one whose
    followers are all N is P (1 + the greatest); what is left is a draw ``"D"`` (remoteness
    None). Vertices are settled breadth first, so remoteness is settled in increasing order.

    Examples
    --------
    >>> retrograde([[1], [0, 2], []])
    (['P', 'N', 'P'], [2, 1, 0])
    >>> retrograde([[1], [0]])
    (['D', 'D'], [None, None])
    >>> retrograde([[1], []], terminal="N")
    (['P', 'N'], [1, 0])
    """
    if terminal not in ("P", "N"):
        raise ValueError(f"terminal outcome must be 'P' or 'N', got {terminal!r}")
    return _retrograde(*_follower_lists(successors), terminal)


def _retrograde(
    succ: list[list[int]], pred: list[list[int]], terminal: str
) -> tuple[list[str], list[int | None]]:
    """`retrograde` on followers without repeats and their predecessors."""
    n = len(succ)
    outcome = ["D"] * n
    far: list[int | None] = [None] * n
    left = [len(s) for s in succ]  # followers not yet known to be N
    queue: deque[int] = deque()
    for v in range(n):
        if not succ[v]:
            outcome[v] = terminal
            far[v] = 0
            queue.append(v)
    while queue:
        v = queue.popleft()
        r = far[v]
        assert r is not None
        if outcome[v] == "P":
            for u in pred[v]:
                if outcome[u] == "D":
                    outcome[u] = "N"
                    far[u] = r + 1
                    queue.append(u)
        else:
            for u in pred[v]:
                if outcome[u] == "D":
                    left[u] -= 1
                    if left[u] == 0:
                        outcome[u] = "P"
                        far[u] = r + 1
                        queue.append(u)
    return outcome, far


def drawing_moves(
    graph: nx.DiGraph, values: dict[Hashable, Value], node: Hashable
) -> list[Hashable]:
    """From a D-position, the followers that are D too (moving anywhere else loses)."""
    if outcome_of(values[node]) != "D":
        return []
    return [s for s in graph.successors(node) if outcome_of(values[s]) == "D"]


def counter_answer(
    graph: nx.DiGraph, solution: LoopySolution, left: Hashable, moved_to: Hashable
) -> Hashable:
    """The answer from P-position `left` after the opponent moved to `moved_to`.

    Condition B: a follower w of `moved_to` with γ(w) = 0 and c(w) < c(left). Answering with
    any value-0 follower can loop forever and turn the win into a draw.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("a", "b"), ("b", "a"), ("b", "t")])
    >>> s = solve_loopy(g)
    >>> counter_answer(g, s, "a", "b")
    't'
    """
    values, counters = solution.values, solution.counters
    bound = counters[left]
    if outcome_of(values[left]) != "P" or bound is None:
        raise NoAnswerError(f"{left!r} is not a P-position")
    best: tuple[int, Hashable] | None = None
    for w in graph.successors(moved_to):
        c = counters[w]
        if (
            outcome_of(values[w]) == "P"
            and c is not None
            and c < bound
            and (best is None or c < best[0])
        ):
            best = (c, w)
    if best is None:
        raise NoAnswerError(f"no answer from {moved_to!r} lowers the counter below {bound}")
    return best[1]
