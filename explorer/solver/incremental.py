"""Incremental re-solving: apply an edit to a solved game graph and re-solve only what it changes.

Values are recomputed from the edited states towards their ancestors, in reverse topological
order, and stop wherever a state's Grundy value and remoteness come out unchanged.
"""

from __future__ import annotations

import heapq
from collections.abc import Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from explorer.errors import CyclicGraphError, EditError
from explorer.solver import Outcome, arrays, outcome, solve_graph

if TYPE_CHECKING:  # NetworkX loads with the graphs that use it, not with this module
    import networkx as nx

State = Hashable
Edge = tuple[State, State]


@dataclass(frozen=True, slots=True)
class StateValue:
    """What is solved about one state: its Grundy value and remoteness (the outcome follows)."""

    grundy: int
    remoteness: int

    @property
    def outcome(self) -> Outcome:
        """``"P"`` where the Grundy value is 0 (the player to move loses), else ``"N"``."""
        return outcome(self.grundy)


@dataclass(frozen=True)
class Edit:
    """A change to a game graph: states and moves (edges) to add and to remove.

    Removals happen before additions, so an edit may remove a move and add its reverse.
    Removing a state removes every move into and out of it.
    """

    add_states: tuple[State, ...] = ()
    remove_states: tuple[State, ...] = ()
    add_edges: tuple[Edge, ...] = ()
    remove_edges: tuple[Edge, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.add_states or self.remove_states or self.add_edges or self.remove_edges)

    def describe(self) -> str:
        """A one-line summary, as stored with every value the edit changes.

        Examples
        --------
        >>> Edit(add_edges=(("a", "b"),), remove_states=("c",)).describe()
        'remove state c; add edge a -> b'
        """
        parts = [f"remove edge {v} -> {w}" for v, w in self.remove_edges]
        parts += [f"remove state {s}" for s in self.remove_states]
        parts += [f"add state {s}" for s in self.add_states]
        parts += [f"add edge {v} -> {w}" for v, w in self.add_edges]
        return "; ".join(parts) if parts else "no change"


def edit_between(
    old_states: Iterable[State],
    old_edges: Iterable[Edge],
    new_states: Iterable[State],
    new_edges: Iterable[Edge],
) -> Edit:
    """The edit that turns one graph into another (what to apply when a file is re-imported).

    Moves into or out of a removed state are left out: removing the state removes them.

    Examples
    --------
    >>> edit = edit_between("abc", [("a", "b"), ("b", "c")], "abd", [("a", "b"), ("a", "d")])
    >>> edit.add_states, edit.remove_states, edit.add_edges, edit.remove_edges
    (('d',), ('c',), (('a', 'd'),), ())
    """
    old_set, new_set = set(old_states), set(new_states)
    old_edge_set, new_edge_set = set(old_edges), set(new_edges)
    removed = old_set - new_set
    dropped = (
        e for e in old_edge_set - new_edge_set if e[0] not in removed and e[1] not in removed
    )
    return Edit(
        add_states=tuple(sorted(new_set - old_set, key=str)),
        remove_states=tuple(sorted(removed, key=str)),
        add_edges=tuple(sorted(new_edge_set - old_edge_set, key=str)),
        remove_edges=tuple(sorted(dropped, key=str)),
    )


class SolvedGraphStore(Protocol):
    """Access to a solved game graph, a batch of states at a time.

    Every state carries a *height* with ``height(v) > height(w)`` on every edge ``v -> w``
    (any such numbering, not necessarily the longest path to a sink); it orders the re-solve.
    Reads see the graph as last written. `explorer.build.stored_graph` implements this over the
    database, `SolvedGraph` over a NetworkX graph.
    """

    def existing(self, states: Collection[State]) -> set[State]:
        """The given states that are in the graph."""
        ...

    def successors(self, states: Collection[State]) -> dict[State, list[State]]:
        """The successors of each given state (every given state is a key)."""
        ...

    def predecessors(self, states: Collection[State]) -> dict[State, list[State]]:
        """The predecessors of each given state (every given state is a key)."""
        ...

    def heights_of(self, states: Collection[State]) -> dict[State, int]:
        """The height of each given state."""
        ...

    def values_of(self, states: Collection[State]) -> dict[State, StateValue]:
        """The stored value of each given state that has one."""
        ...

    def change_structure(self, edit: Edit, heights: dict[State, int]) -> None:
        """Apply a validated edit's removals then additions, and set the given heights."""
        ...

    def write_values(self, values: dict[State, StateValue]) -> None:
        """Store new values (one batch of the re-solve)."""
        ...


@dataclass
class EditResult:
    """What an edit did: how many states it re-solved (``reexamined``), each value that changed
    as (old, new) with old None for a new state, the removed states, and how many states had
    their height raised (``reordered``) to keep the order under an added move."""

    reexamined: int
    changed: dict[State, tuple[StateValue | None, StateValue]] = field(default_factory=dict)
    removed: tuple[State, ...] = ()
    reordered: int = 0


def state_values(successor_values: Sequence[Collection[StateValue]]) -> list[StateValue]:
    """The value of each of several states from its successors' values (one kernel call).

    Examples
    --------
    >>> state_values([[StateValue(0, 0), StateValue(1, 1)], []])
    [StateValue(grundy=2, remoteness=1), StateValue(grundy=0, remoteness=0)]
    """
    if len(successor_values) < arrays.FEW:  # numpy's cost per call dominates on a few
        return [
            StateValue(*arrays.state_value([v.grundy for v in vs], [v.remoteness for v in vs])[:2])
            for vs in successor_values
        ]
    counts = np.fromiter(map(len, successor_values), dtype=np.int64, count=len(successor_values))
    flat = [(v.grundy, v.remoteness) for values in successor_values for v in values]
    grundy, far = np.array(flat, dtype=np.int64).reshape(-1, 2).T
    g, r, _ = arrays.level_values(counts, grundy, far)
    return [StateValue(*pair) for pair in zip(g.tolist(), r.tolist(), strict=True)]


def apply_edit(store: SolvedGraphStore, edit: Edit) -> EditResult:
    """Apply an edit to a solved graph and re-solve the states whose values it can change.

    The edit is checked first and nothing is written when it is refused. Then the states
    whose moves changed are re-solved, lowest height first; a state whose Grundy value or
    remoteness changes sends its predecessors to be re-solved, and one whose value comes out
    unchanged stops the propagation there (early cutoff).

    Parameters
    ----------
    store : SolvedGraphStore
        The solved graph, with a value and a height for every state.
    edit : Edit

    Returns
    -------
    EditResult
        ``reexamined`` counts the states whose value was recomputed; ``changed`` maps each
        state whose value changed (or is new) to its old and new value.

    Raises
    ------
    EditError
        When the edit removes something absent, adds something present, adds a self-loop,
        adds a move touching a state that is absent or removed, or names a state that has no
        value yet (left unsolved by a stopped build).
    CyclicGraphError
        When the edit would create a cycle; the message names it.

    Examples
    --------
    >>> import networkx as nx
    >>> solved = SolvedGraph(nx.DiGraph([("a", "b"), ("b", "c")]))
    >>> result = apply_edit(solved, Edit(add_edges=(("a", "c"),)))
    >>> result.reexamined, solved.values["a"]
    (1, StateValue(grundy=2, remoteness=1))
    >>> apply_edit(solved, Edit(add_edges=(("c", "a"),)))
    Traceback (most recent call last):
    ...
    explorer.errors.CyclicGraphError: the edit would create a cycle: 'a' -> 'c' -> 'a'
    """
    heights, dirty = _plan(store, edit)
    store.change_structure(edit, heights)
    result = resolve(store, dirty)
    result.removed = tuple(edit.remove_states)
    new_states = set(edit.add_states)
    result.reordered = sum(1 for s in heights if s not in new_states)
    return result


def _plan(store: SolvedGraphStore, edit: Edit) -> tuple[dict[State, int], set[State]]:
    """Check an edit without writing: the new heights it needs and the states to re-solve."""
    dirty = check_edit(store, edit)
    heights = _Overlay(store, edit).raise_for_new_edges()
    return heights, dirty


def check_edit(store: SolvedGraphStore, edit: Edit, *, loops: bool = False) -> set[State]:
    """Refuse a bad edit without writing; return the states whose moves it changes (the
    states to re-solve). Self-loops are refused unless `loops` (games with cycles)."""
    for what, items in (
        ("state", edit.add_states),
        ("state", edit.remove_states),
        ("edge", edit.add_edges),
        ("edge", edit.remove_edges),
    ):
        seen: set[object] = set()
        for item in items:
            if item in seen:
                raise EditError(f"the edit names the {what} {_show(item)} twice")
            seen.add(item)
    for v, w in edit.add_edges:
        if v == w and not loops:
            raise EditError(f"self-loop {v!r} -> {w!r}: a move must lead to another state")
    for s in (*edit.add_states, *(end for edge in edit.add_edges for end in edge)):
        if not s:  # an empty name could never be typed as a position again
            raise EditError("a state needs a non-empty name")
    mentioned = set(edit.add_states) | set(edit.remove_states)
    for v, w in (*edit.add_edges, *edit.remove_edges):
        mentioned.update((v, w))
    present = store.existing(mentioned)
    added, removed = set(edit.add_states), set(edit.remove_states)
    for s in edit.add_states:
        if s in present:
            raise EditError(f"state {s!r} already exists")
    for s in edit.remove_states:
        if s not in present:
            raise EditError(f"no state {s!r} in the graph")
    unsolved = sorted(present - store.values_of(present).keys(), key=str)
    if unsolved:
        raise EditError(
            f"state {unsolved[0]!r} has no value yet (a build of the game stopped early): "
            "finish building it before editing"
        )
    sources = {v for v, _ in (*edit.add_edges, *edit.remove_edges) if v in present}
    old_successors = {v: set(ws) for v, ws in store.successors(sources).items()}
    for v, w in edit.remove_edges:
        if w not in old_successors.get(v, ()):
            raise EditError(f"no edge {v!r} -> {w!r} in the graph")
    dropped = set(edit.remove_edges)
    for v, w in edit.add_edges:
        for end in (v, w):
            if end in removed:
                raise EditError(f"edge {v!r} -> {w!r} uses state {end!r}, which the edit removes")
            if end not in present and end not in added:
                raise EditError(f"no state {end!r} in the graph (add it in the same edit)")
        if w in old_successors.get(v, ()) and (v, w) not in dropped:
            raise EditError(f"edge {v!r} -> {w!r} already exists")
    dirty = {v for v, _ in edit.remove_edges} | {v for v, _ in edit.add_edges} | added
    for preds in store.predecessors(list(removed)).values():
        dirty.update(preds)
    return dirty - removed


def _show(item: object) -> str:
    if isinstance(item, tuple) and len(item) == 2:
        return f"{item[0]!r} -> {item[1]!r}"
    return repr(item)


class _Overlay:
    """The edited graph seen through the store before anything is written: removals hidden,
    added moves and raised heights held in memory."""

    def __init__(self, store: SolvedGraphStore, edit: Edit) -> None:
        self.store = store
        self.edit = edit
        self.removed_states = set(edit.remove_states)
        self.removed_edges = set(edit.remove_edges)
        self.new_states = set(edit.add_states)
        self.added_predecessors: dict[State, list[State]] = {}
        self.height: dict[State, int] = {s: 0 for s in edit.add_states}
        self.raised: dict[State, int] = dict(self.height)

    def heights_of(self, states: Collection[State]) -> dict[State, int]:
        missing = [s for s in states if s not in self.height]
        if missing:
            self.height.update(self.store.heights_of(missing))
        return {s: self.height[s] for s in states}

    def predecessors(self, states: Collection[State]) -> dict[State, list[State]]:
        stored = self.store.predecessors([s for s in states if s not in self.new_states])
        result: dict[State, list[State]] = {}
        for s in states:
            preds = [
                u
                for u in stored.get(s, ())
                if u not in self.removed_states and (u, s) not in self.removed_edges
            ]
            result[s] = preds + self.added_predecessors.get(s, [])
        return result

    def raise_for_new_edges(self) -> dict[State, int]:
        """Add the new moves one by one, raising heights where a move would go upward.

        Returns the heights to store (new states and raised states). A raise that reaches
        the head of the new move means the move closes a cycle.
        """
        for v, w in self.edit.add_edges:
            known = self.heights_of([v, w])
            if known[v] <= known[w]:
                self._raise(v, w, known[w] + 1)
            self.added_predecessors.setdefault(w, []).append(v)
        return self.raised

    def _raise(self, tail: State, head: State, height: int) -> None:
        # Lowest current height first: all of a state's raised successors are settled
        # before it, so each state is raised once, to its final height.
        required = {tail: height}
        parent: dict[State, State] = {}
        pending: dict[int, set[State]] = {self.height[tail]: {tail}}
        keys = [self.height[tail]]
        while keys:
            batch = pending.pop(heapq.heappop(keys))
            preds = self.predecessors(batch)
            preds_height = self.heights_of({u for us in preds.values() for u in us})
            for x in batch:
                new = required[x]
                self.height[x] = self.raised[x] = new
                for u in preds[x]:
                    if preds_height[u] > new:
                        continue
                    parent.setdefault(u, x)
                    if u == head:
                        cycle = [head]
                        while cycle[-1] != tail:
                            cycle.append(parent[cycle[-1]])
                        cycle.append(head)
                        raise CyclicGraphError(
                            "the edit would create a cycle: " + " -> ".join(map(repr, cycle)),
                            cycle,
                        )
                    if required.get(u, -1) < new + 1:
                        required[u] = new + 1
                    key = preds_height[u]
                    if key not in pending:
                        pending[key] = set()
                        heapq.heappush(keys, key)
                    pending[key].add(u)


def resolve(store: SolvedGraphStore, states: Iterable[State]) -> EditResult:
    """Re-solve `states` and, while values change, their ancestors, lowest height first.

    A state is re-solved only after every successor that might change, because successors
    are lower. Its predecessors are queued only when its value changed (early cutoff).

    Examples
    --------
    >>> import networkx as nx
    >>> solved = SolvedGraph(nx.DiGraph([("a", "b")]))
    >>> resolve(solved, ["a", "b"]).changed
    {}
    """
    pending: dict[int, set[State]] = {}
    keys: list[int] = []

    def queue(batch: Collection[State]) -> None:
        for s, h in store.heights_of(batch).items():
            if h not in pending:
                pending[h] = set()
                heapq.heappush(keys, h)
            pending[h].add(s)

    queue(set(states))
    result = EditResult(reexamined=0)
    while keys:
        batch = pending.pop(heapq.heappop(keys))
        result.reexamined += len(batch)
        successors = store.successors(batch)
        needed = set(batch).union(*successors.values())
        known = store.values_of(needed)
        # a state a stopped build left waiting for unsolved states still waits
        ready = [s for s in batch if s in known or all(w in known for w in successors[s])]
        new_values = state_values([[known[w] for w in successors[s]] for s in ready])
        changed: dict[State, StateValue] = {}
        for s, new in zip(ready, new_values, strict=True):
            old = known.get(s)
            if new != old:
                changed[s] = new
                result.changed[s] = (old, new)
        if changed:
            store.write_values(changed)
            above = set().union(*store.predecessors(list(changed)).values())
            queue(above)
    return result


class SolvedGraph:
    """A NetworkX game graph with its values and heights: the in-memory `SolvedGraphStore`.

    `apply_edit` changes ``graph``, ``values`` and ``height`` in place.

    Parameters
    ----------
    graph : networkx.DiGraph
        Solved from scratch on construction (a cyclic graph raises `CyclicGraphError`).

    Examples
    --------
    >>> import networkx as nx
    >>> solved = SolvedGraph(nx.DiGraph([(2, 1), (1, 0), (2, 0)]))
    >>> solved.values[2]
    StateValue(grundy=2, remoteness=1)
    """

    def __init__(self, graph: nx.DiGraph) -> None:
        self.graph = graph
        solved = solve_graph(graph)
        self.values = {s: StateValue(solved.grundy[s], solved.remoteness[s]) for s in graph}
        self.height = solved.height

    def existing(self, states: Collection[State]) -> set[State]:
        return {s for s in states if s in self.graph}

    def successors(self, states: Collection[State]) -> dict[State, list[State]]:
        succ = self.graph._succ
        return {s: list(succ[s]) if s in succ else [] for s in states}

    def predecessors(self, states: Collection[State]) -> dict[State, list[State]]:
        pred = self.graph._pred
        return {s: list(pred[s]) if s in pred else [] for s in states}

    def heights_of(self, states: Collection[State]) -> dict[State, int]:
        return {s: self.height[s] for s in states}

    def values_of(self, states: Collection[State]) -> dict[State, StateValue]:
        return {s: self.values[s] for s in states if s in self.values}

    def change_structure(self, edit: Edit, heights: dict[State, int]) -> None:
        self.graph.remove_edges_from(edit.remove_edges)
        self.graph.remove_nodes_from(edit.remove_states)
        for s in edit.remove_states:
            del self.values[s], self.height[s]
        self.graph.add_nodes_from(edit.add_states)
        self.graph.add_edges_from(edit.add_edges)
        self.height.update(heights)

    def write_values(self, values: dict[State, StateValue]) -> None:
        self.values.update(values)
