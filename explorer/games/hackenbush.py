"""Green Hackenbush: a move deletes an edge, and what no longer reaches the ground falls.

A position is a multigraph with the ground vertex ``g`` (parallel edges and loops allowed).
It splits into the parts that meet only at the ground, each labelled canonically (the graph
with each edge subdivided, so parallel edges and loops keep their count, the ground marked).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias

from explorer.errors import PositionError
from explorer.games.base import Decomposition, Game, Part
from explorer.games.graphs import (
    EMPTY,
    MAX_VERTICES,
    natural_key,
    parse_edge_terms,
    vertex_names,
)
from explorer.games.labels import graph_label, label_graph
from explorer.games.pictures import GraphPicture

GROUND = "g"
#: A position: its edges (u, v) with u before v in natural order, sorted, repeats kept.
Edges: TypeAlias = tuple[tuple[str, str], ...]
HACKENBUSH_SYNTAX = (
    f"an edge list with the ground {GROUND!r}, like g-a,a-b,a-b,b-b (parallel edges and "
    f"loops allowed; edges not connected to the ground fall), or {EMPTY!r} for none"
)


def _edge(u: str, v: str) -> tuple[str, str]:
    return (u, v) if natural_key(u) <= natural_key(v) else (v, u)


def grounded(edges: list[tuple[str, str]]) -> Edges:
    """The edges still connected to the ground, in canonical order."""
    touching: dict[str, list[str]] = {}
    for u, v in edges:
        touching.setdefault(u, []).append(v)
        touching.setdefault(v, []).append(u)
    reached = {GROUND}
    todo = [GROUND]
    while todo:
        for w in touching.get(todo.pop(), ()):
            if w not in reached:
                reached.add(w)
                todo.append(w)
    kept = [_edge(u, v) for u, v in edges if u in reached]
    return tuple(sorted(kept, key=lambda e: (natural_key(e[0]), natural_key(e[1]))))


class Hackenbush(Game[Edges]):
    """Green Hackenbush.

    Examples
    --------
    >>> game = Hackenbush()
    >>> [game.format(p) for p in game.successors(game.parse("g-a,a-b,a-b"))]
    ['a-b,a-g', '-']
    """

    family = "hackenbush"
    position_syntax = HACKENBUSH_SYNTAX
    example = ("hackenbush", "g-a,a-b,b-g,b-c,c-c")
    summary = "Green Hackenbush: cut an edge; what leaves the ground falls"

    def parse(self, text: str) -> Edges:
        vertices, edges = parse_edge_terms(text, self.spec, loops=True)
        if vertices:
            raise PositionError(
                f"bad position {text!r} for hackenbush: lone vertex {vertices[0]!r} (expected "
                f"{HACKENBUSH_SYNTAX})"
            )
        if edges and GROUND not in {v for e in edges for v in e}:
            raise PositionError(
                f"bad position {text!r} for hackenbush: no edge meets the ground {GROUND!r}"
            )
        return grounded(edges)

    def networkx_position(self, graph: Any) -> Edges:
        """A NetworkX graph or multigraph whose node ``"g"`` is the ground (its vertices named
        by `explorer.games.graphs.vertex_names`, the ground kept ``g``)."""
        if graph.is_directed():
            raise PositionError(
                "a position of hackenbush is an undirected graph, not a directed one "
                "(networkx.MultiGraph(graph) is its undirected multigraph)"
            )
        if GROUND not in graph:
            raise PositionError(f"a graph for hackenbush needs the ground, a node {GROUND!r}")
        if graph.number_of_nodes() > MAX_VERTICES:
            raise PositionError(
                f"a graph for hackenbush has {graph.number_of_nodes():,} vertices, over "
                f"{MAX_VERTICES:,}"
            )
        names = {**vertex_names(list(graph.nodes)), GROUND: GROUND}
        return grounded([(names[u], names[v]) for u, v in graph.edges()])

    def format(self, position: Edges) -> str:
        return ",".join(f"{u}-{v}" for u, v in position) if position else EMPTY

    def successors(self, position: Edges) -> Iterator[Edges]:
        for k in range(len(position)):
            if k and position[k] == position[k - 1]:
                continue  # cutting either of two parallel edges leaves the same position
            yield grounded(list(position[:k] + position[k + 1 :]))

    def tier(self, position: Edges) -> int | None:
        return len(position)  # a move cuts an edge at least

    def move_name(self, position: Edges, successor: Edges) -> str | None:
        """``cut edge a-b``, and what falls with it.

        Examples
        --------
        >>> game = Hackenbush()
        >>> game.move_name(game.parse("g-a,a-b"), game.parse("-"))
        'cut edge a-g, a,b fall'
        """
        for k, (u, v) in enumerate(position):
            if grounded(list(position[:k] + position[k + 1 :])) == successor:
                kept = {w for e in successor for w in e} | {GROUND}
                fallen = sorted({w for e in position for w in e} - kept, key=natural_key)
                falls = f", {','.join(fallen)} fall{'s' if len(fallen) == 1 else ''}"
                return f"cut edge {u}-{v}" + (falls if fallen else "")
        return None

    def _parts(self, position: Edges) -> list[Edges]:
        """The parts meeting only at the ground (each ground loop is one)."""
        root: dict[str, str] = {}

        def find(v: str) -> str:
            while root.setdefault(v, v) != v:
                v = root[v]
            return v

        for u, v in position:
            if GROUND not in (u, v):
                root[find(u)] = find(v)
        groups: dict[object, list[tuple[str, str]]] = {}
        for k, (u, v) in enumerate(position):
            inner = v if u == GROUND else u
            key: object = k if inner == GROUND else find(inner)
            groups.setdefault(key, []).append((u, v))
        return [tuple(edges) for edges in groups.values()]

    def decompose(self, position: Edges) -> Decomposition | None:
        parts = self._parts(position)
        if len(parts) == 1:
            return None

        def rebuild(moved: Sequence[Edges]) -> Edges:
            return grounded([e for part in moved for e in part])

        return Decomposition(
            parts=tuple(Part(self, p) for p in parts),
            rebuild=rebuild,
            note=f"{len(parts)} parts meeting at the ground, each valued once per shape",
        )

    def picture(self, position: Edges) -> GraphPicture:
        names = sorted({v for e in position for v in e} | {GROUND}, key=natural_key)
        index = {name: i for i, name in enumerate(names)}
        edges = tuple((index[u], index[v]) for u, v in position)
        return GraphPicture(tuple(names), edges, ground=index[GROUND])

    def part_label(self, position: Edges) -> str | None:
        picture = self.picture(position)
        count, edges = len(picture.vertices), picture.edges
        # every edge becomes a vertex of colour 2 joined to its ends (one end for a loop)
        adjacency = [0] * (count + len(edges))
        for k, (u, v) in enumerate(edges):
            middle = count + k
            for end in {u, v}:
                adjacency[middle] |= 1 << end
                adjacency[end] |= 1 << middle
        colours = [int(i == picture.ground) for i in range(count)] + [2] * len(edges)
        return graph_label(tuple(adjacency), tuple(colours))

    def part_of_label(self, label: str) -> tuple[Game[Any], Any] | None:
        adjacency, colours = label_graph(label)
        if colours is None or colours.count(1) != 1 or not set(colours) <= {0, 1, 2}:
            raise ValueError(f"{label!r} is no label of a hackenbush part (no ground)")
        names = [GROUND if colour == 1 else str(i) for i, colour in enumerate(colours)]
        edges = []
        for mask, colour in zip(adjacency, colours, strict=True):
            ends = [names[i] for i in range(len(names)) if mask >> i & 1]
            if colour == 2:  # an edge, joined to its ends (to one end for a loop)
                if not 1 <= len(ends) <= 2 or any(colours[names.index(e)] == 2 for e in ends):
                    raise ValueError(f"{label!r} is no label of a hackenbush part")
                edges.append(_edge(ends[0], ends[-1]))
        return self, grounded(edges)
