"""Games played on a simple graph: Node-Kayles, Arc-Kayles, and ``explorer.graph_game``.

A position is a graph, written as an edge list or as named graphs joined by ``+``; it splits
into its connected parts, and each part has a canonical label (`explorer.games.labels`), so
isomorphic parts are valued once.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

from explorer.errors import CyclicGraphError, PositionError, RuleError, SpecError
from explorer.games.base import Components, Decomposition, Game, Part
from explorer.games.grids import SHORTCUT_PATHS, grid_cells, grid_rules
from explorer.games.labels import graph_label, label_graph
from explorer.games.pictures import GraphPicture, cell_name

#: A vertex name in an edge list: letters, digits, ``_`` and ``.``.
NAME = re.compile(r"[A-Za-z0-9_.]+")
#: The text of the graph with no vertex.
EMPTY = "-"
#: Most vertices a named graph or a file may bring (positions are solved part by part, but
#: a part is a bit mask of its vertices).
MAX_VERTICES = 1_000
#: The named graphs, as `GRAPH_SYNTAX` and the errors list them.
NAMED_GRAPHS = "Pn, Cn, Kn, Km_n, Sn, Wn or RxC, as P5, C7, K4, K3_3, S4, W5, 3x4"
#: What a graph position looks like, for error messages.
GRAPH_SYNTAX = (
    "an edge list like a-b,b-c,d (a lone name is an isolated vertex; vertex names are "
    "letters, digits, _ and ., never spelled like a named graph or a graph file), named "
    f"graphs ({NAMED_GRAPHS}) joined by +, a graph file (.json, .txt, .csv, .graphml; a path "
    f"or a bare file name), or {EMPTY!r} for no vertex"
)
#: Other spellings of the named graphs (papers', other cases): never read as a vertex name.
_SPELLINGS = (
    (re.compile(r"(?:g|grid)?_?(\d+)_?x_?(\d+)", re.I | re.A), "{0}x{1}"),
    (re.compile(r"k_?(\d+)_(\d+)", re.I | re.A), "K{0}_{1}"),
    (re.compile(r"(p|c|k|s|w|path|cycle|complete|star|wheel)_?(\d+)", re.I | re.A), "{0}{1}"),
)


def named_spelling(name: str) -> str | None:
    """The named graph `name` is spelled like, in the spelling positions take, or None.

    Examples
    --------
    >>> [named_spelling(n) for n in ("G3x4", "k5", "Path_6", "K3_3", "a1", "12")]
    ['3x4', 'K5', 'P6', 'K3_3', None, None]
    """
    for pattern, spelling in _SPELLINGS:
        match = pattern.fullmatch(name)
        if match is not None:
            first, *rest = match.groups()
            if not first.isdigit():
                first = first[0].upper()
            return spelling.format(first, *(str(int(n)) for n in rest))
    return None


def _is_file_name(term: str) -> bool:
    """Whether a term of a graph text names a graph file, whether it exists or not: a path,
    or a name ending in a graph file's suffix (``g.txt``) and holding no comma (an edge list
    ending in one, ``a-b,g.txt``, is refused as such)."""
    if "/" in term or os.sep in term:
        return True
    if "." not in term or "," in term:
        return False
    from explorer.games.graph_files import FORMATS

    return os.path.splitext(term)[1].lower() in FORMATS


def vertex_name_problem(name: str) -> str | None:
    """Why `name` cannot name a vertex (None when it can): not letters, digits, ``_`` and
    ``.``, spelled like a named graph, or like a graph file."""
    if NAME.fullmatch(name) is None:
        return "is not a name of letters, digits, '_' and '.'"
    spelling = named_spelling(name)
    if spelling is not None:
        return f"is spelled like the named graph {spelling}"
    if _is_file_name(name):
        return "is spelled like a graph file"
    return None


def natural_key(name: str) -> tuple[int, int, str]:
    """Order vertex names with numbers first, by value, then the others as text."""
    return (0, int(name), "") if name.isdigit() else (1, 0, name)


@dataclass(frozen=True)
class Graph:
    """A simple undirected graph as a position: `names` in natural order and, for each
    vertex, the bit mask of its neighbours (bit j is ``names[j]``). Immutable and hashable;
    `adjacency` alone is the shape, which parts of the same shape share."""

    names: tuple[str, ...]
    adjacency: tuple[int, ...]

    @classmethod
    def from_edges(cls, vertices: Sequence[str], edges: Sequence[tuple[str, str]]) -> Graph:
        """The graph on `vertices` (and the ends of `edges`) with those edges; a loop or a
        repeated edge is refused by the caller."""
        names = tuple(sorted({*vertices, *(v for e in edges for v in e)}, key=natural_key))
        index = {name: i for i, name in enumerate(names)}
        adjacency = [0] * len(names)
        for u, v in edges:
            adjacency[index[u]] |= 1 << index[v]
            adjacency[index[v]] |= 1 << index[u]
        return cls(names, tuple(adjacency))

    @property
    def full(self) -> int:
        """The mask of every vertex."""
        return (1 << len(self.names)) - 1

    def edges(self) -> Iterator[tuple[int, int]]:
        """Each edge once, as (i, j) with i < j."""
        for i, mask in enumerate(self.adjacency):
            mask >>= i + 1
            j = i + 1
            while mask:
                if mask & 1:
                    yield i, j
                mask >>= 1
                j += 1

    def induced(self, keep: int) -> Graph:
        """The subgraph on the vertices of mask `keep`, numbered in the same order."""
        if keep == self.full:
            return self
        if not keep:
            return Graph((), ())
        start = (keep & -keep).bit_length() - 1
        if keep >> start & (keep >> start) + 1 == 0:  # one run of vertices: shift them down
            end = keep.bit_length()
            return Graph(
                self.names[start:end], tuple((m & keep) >> start for m in self.adjacency[start:end])
            )
        kept = [i for i in range(len(self.names)) if keep >> i & 1]
        new = {old: new for new, old in enumerate(kept)}
        adjacency = []
        for old in kept:
            mask, neighbours = self.adjacency[old] & keep, 0
            while mask:
                low = mask & -mask
                neighbours |= 1 << new[low.bit_length() - 1]
                mask ^= low
            adjacency.append(neighbours)
        return Graph(tuple(self.names[i] for i in kept), tuple(adjacency))

    def components(self, keep: int | None = None) -> list[int]:
        """The masks of the connected components of the vertices in `keep` (all by default),
        in order of their lowest vertex."""
        left = self.full if keep is None else keep
        found = []
        while left:
            grown = component = left & -left
            while grown:
                low = grown & -grown
                grown ^= low
                new = self.adjacency[low.bit_length() - 1] & left & ~component
                component |= new
                grown |= new
            found.append(component)
            left &= ~component
        return found


def graph_of_label(label: str) -> Graph:
    """The graph a part label (`explorer.games.labels`) was written from, its vertices
    named 0, 1, ...; ValueError when the label is no uncoloured graph's."""
    adjacency, colours = label_graph(label)
    if colours is not None:
        raise ValueError(f"{label!r} is no label of a graph game's part (it has colours)")
    return Graph(tuple(map(str, range(len(adjacency)))), adjacency)


def grid_places(graph: Graph) -> tuple[tuple[int, int], ...] | None:
    """The (row, column) of each vertex when the graph lies on a grid of numbered cells, as
    an ``RxC`` graph numbers them (row by row from 0) and as moves leave it: every edge joins
    i and i + 1 in one row, or i and i + C for one width C that some edge shows; None
    otherwise (a vertex not a number, no edge across rows).

    Examples
    --------
    >>> grid_places(parse_graph("2x3", "nodekayles"))
    ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2))
    >>> grid_places(parse_graph("0-3,4", "nodekayles")), grid_places(parse_graph("P3", "g"))
    (((0, 0), (1, 0), (1, 1)), None)
    """
    if not all(name.isascii() and name.isdigit() for name in graph.names):
        return None
    numbers = [int(name) for name in graph.names]
    pairs = [(numbers[i], numbers[j]) for i, j in graph.edges()]
    widths = {abs(a - b) for a, b in pairs} - {1}
    if len(widths) != 1:
        return None
    (width,) = widths
    for a, b in pairs:
        if abs(a - b) == 1 and min(a, b) % width == width - 1:
            return None  # an edge from a row's end to the next row's start: no such grid
    return tuple(divmod(n, width) for n in numbers)


def format_graph(graph: Graph) -> str:
    """The canonical text: edges ``u-v`` (u before v), then isolated vertices, or ``-``."""
    names = graph.names
    items = [f"{names[i]}-{names[j]}" for i, j in graph.edges()]
    items += [name for name, mask in zip(names, graph.adjacency, strict=True) if not mask]
    return ",".join(items) if items else EMPTY


NAMED = re.compile(r"([PCKSW])(\d+)|K(\d+)_(\d+)|(\d+)x(\d+)")


def _named_edges(match: re.Match[str], text: str) -> tuple[int, list[tuple[int, int]]]:
    """The vertex count and edges (over 0..n-1) of a named graph."""
    kind, size, m, n, rows, cols = match.groups()
    if kind is not None:
        k = int(size)
        count = {"P": k, "C": k, "K": k, "S": k + 1, "W": k + 1}[kind]
    elif m is not None:
        count = int(m) + int(n)
    else:
        count = int(rows) * int(cols)
    if count > MAX_VERTICES:
        raise PositionError(f"graph {text!r} has {count:,} vertices, over {MAX_VERTICES:,}")
    if kind == "P":
        return count, [(i, i + 1) for i in range(count - 1)]
    if kind == "C":  # C1 and C2 are the simple graphs a cycle of 1 or 2 gives: K1, K2
        return count, sorted(
            {
                (min(i, (i + 1) % count), max(i, (i + 1) % count))
                for i in range(count)
                if count > 1 and (i + 1) % count != i
            }
        )
    if kind == "K":
        return count, [(i, j) for i in range(count) for j in range(i + 1, count)]
    if kind == "S":
        return count, [(0, i) for i in range(1, count)]
    if kind == "W":
        rim, _ = _named_edges(NAMED.fullmatch(f"C{count - 1}"), text)  # type: ignore[arg-type]
        return count, [(0, i) for i in range(1, count)] + [(1 + a, 1 + b) for a, b in _]
    if m is not None:
        a = int(m)
        return count, [(i, a + j) for i in range(a) for j in range(int(n))]
    r, c = int(rows), int(cols)
    cells = [(i * c + j, i * c + j + 1) for i in range(r) for j in range(c - 1)]
    return count, cells + [(i * c + j, (i + 1) * c + j) for i in range(r - 1) for j in range(c)]


def _file_edges(path: str, text: str) -> tuple[list[str], list[tuple[str, str]]]:
    from explorer.games.graph_files import read_graph_file

    vertices, edges = read_graph_file(path, acyclic=False, directed=False)
    if len(vertices) > MAX_VERTICES:
        raise PositionError(
            f"graph file {path!r} has {len(vertices):,} vertices, over {MAX_VERTICES:,}"
        )
    names = vertex_names(vertices)
    return [names[v] for v in vertices], [(names[u], names[v]) for u, v in edges]


def _node_name(node: object) -> str | None:
    """A graph node's vertex name: a name as it is, a natural number as its digits, a tuple
    of them joined by ``_`` (``(0, 1)`` is ``0_1``); None for any other node."""
    if isinstance(node, str):
        return node if vertex_name_problem(node) is None else None
    if isinstance(node, int) and not isinstance(node, bool) and node >= 0:
        return str(node)
    if isinstance(node, tuple) and node:
        parts = [_node_name(part) for part in node]
        if all(parts):
            joined = "_".join(cast(list[str], parts))
            return joined if vertex_name_problem(joined) is None else None
    return None


def vertex_names(nodes: Sequence[Hashable]) -> dict[Hashable, str]:
    """Vertex names for the nodes of a graph (a file's, a NetworkX graph's): each node's own
    name (see `_node_name`) when every node has one and no two share it, else the numbers
    0, 1, ... in the nodes' order.

    Examples
    --------
    >>> vertex_names([(0, 0), (0, 1)]), vertex_names(["a b", "c"])
    ({(0, 0): '0_0', (0, 1): '0_1'}, {'a b': '0', 'c': '1'})
    """
    names = {node: _node_name(node) for node in nodes}
    if all(names.values()) and len(set(names.values())) == len(names):
        return cast(dict[Hashable, str], names)
    return {node: str(i) for i, node in enumerate(names)}


def graph_from_networkx(graph: Any, what: str) -> Graph:
    """The simple graph a NetworkX graph draws, its vertices named by `vertex_names`; `what`
    names the graph in errors (``"a position of nodekayles"``).

    Raises
    ------
    PositionError
        For a directed graph or a multigraph, a loop, or more than `MAX_VERTICES` vertices.

    Examples
    --------
    >>> import networkx as nx
    >>> format_graph(graph_from_networkx(nx.grid_2d_graph(1, 3), "a position"))
    '0_0-0_1,0_1-0_2'
    """
    if graph.is_directed() or graph.is_multigraph():
        kind = "directed graph" if graph.is_directed() else "multigraph"
        raise PositionError(
            f"{what} is a {kind}, not a simple undirected graph (networkx.Graph(graph) is "
            "its simple undirected graph)"
        )
    if graph.number_of_nodes() > MAX_VERTICES:
        raise PositionError(
            f"{what} has {graph.number_of_nodes():,} vertices, over {MAX_VERTICES:,}"
        )
    names = vertex_names(list(graph.nodes))
    edges = [(names[u], names[v]) for u, v in graph.edges]
    loop = next((u for u, v in edges if u == v), None)
    if loop is not None:
        raise PositionError(f"{what} has the loop {loop}-{loop} (graphs are simple)")
    return Graph.from_edges(list(names.values()), edges)


def parse_edge_terms(
    text: str, game: str, *, loops: bool = False
) -> tuple[list[str], list[tuple[str, str]]]:
    """The vertices and edges (repeats kept) of a graph text: edge lists, named graphs and
    files joined by ``+``; named graphs are numbered with integers no other term uses."""
    stripped = text.strip()
    if stripped == EMPTY:
        return [], []
    if not stripped:
        raise PositionError(f"empty position for {game} (expected {GRAPH_SYNTAX})")
    vertices: list[str] = []
    edges: list[tuple[str, str]] = []
    named: list[tuple[int, list[tuple[int, int]]]] = []
    for term in (t.strip() for t in stripped.split("+")):
        match = NAMED.fullmatch(term)
        if match is not None:
            named.append(_named_edges(match, text))
        elif _is_file_name(term):
            more_vertices, more_edges = _file_edges(term, text)
            vertices += more_vertices
            edges += more_edges
        else:
            for item in (i.strip() for i in term.split(",")):
                ends = item.split("-")
                if len(ends) > 2 or not all(NAME.fullmatch(e) for e in ends):
                    raise PositionError(
                        f"bad position {text!r} for {game}: {item!r} is not a vertex or an "
                        f"edge u-v (expected {GRAPH_SYNTAX})"
                    )
                for end in ends:
                    _refuse_lookalike(end, term if len(ends) == 1 else None, text, game)
                if len(ends) == 2:
                    edges.append((ends[0], ends[1]))
                else:
                    vertices.append(ends[0])
    if not loops:
        for u, v in edges:
            if u == v:
                raise PositionError(f"bad position {text!r} for {game}: loop {u}-{v}")
    used = {*vertices, *(v for e in edges for v in e)}
    fresh = 0
    for count, named_edges in named:
        numbers: list[str] = []
        while len(numbers) < count:
            if str(fresh) not in used:
                numbers.append(str(fresh))
            fresh += 1
        vertices += numbers
        edges += [(numbers[a], numbers[b]) for a, b in named_edges]
    if len({*vertices, *(v for e in edges for v in e)}) > MAX_VERTICES:
        raise PositionError(f"graph {text[:40]!r} has over {MAX_VERTICES:,} vertices")
    return vertices, edges


def _refuse_lookalike(name: str, term: str | None, text: str, game: str) -> None:
    """Refuse a vertex name spelled like a named graph or a graph file, saying how to write
    what it looks like; `term` is the term a lone name stands in (None for an edge's end)."""
    spelling = named_spelling(name)
    if spelling is not None:
        if term is None:
            advice = "name the vertex otherwise"
        elif name == term:  # the whole term: another spelling of a named graph
            advice = f"write {spelling}"
        else:
            advice = f"a named graph is a term of its own, joined to others by + (a-b+{spelling})"
            if re.search(r"K\d+,\d+", text, re.I | re.A):
                advice += "; the complete bipartite graph Km,n is written Km_n (K3_3)"
        raise PositionError(
            f"bad position {text!r} for {game}: {name!r} is spelled like the named graph "
            f"{spelling}, not a vertex name: {advice} (named graphs: {NAMED_GRAPHS})"
        )
    if _is_file_name(name):
        advice = "name the vertex otherwise" if term is None else "a graph file is a term of "
        if term is not None:
            advice += f"its own, joined to others by + (a-b+{name})"
        raise PositionError(
            f"bad position {text!r} for {game}: {name!r} is spelled like a graph file, not a "
            f"vertex name: {advice}"
        )


def parse_graph(text: str, game: str) -> Graph:
    """A simple graph from its text (`GRAPH_SYNTAX`); a loop or a repeated edge is an error."""
    vertices, edges = parse_edge_terms(text, game)
    seen: set[frozenset[str]] = set()
    for u, v in edges:
        if frozenset((u, v)) in seen:
            raise PositionError(
                f"bad position {text!r} for {game}: edge {u}-{v} twice (graphs are simple)"
            )
        seen.add(frozenset((u, v)))
    return Graph.from_edges(vertices, edges)


def _rebuild(graph: Graph, parts: Sequence[Graph], rest: int) -> Graph:
    """The whole graph from its (moved) parts and the vertices of `rest` no part holds."""
    vertices = [graph.names[i] for i in range(len(graph.names)) if rest >> i & 1]
    edges: list[tuple[str, str]] = []
    for part in parts:
        vertices += part.names
        edges += [(part.names[i], part.names[j]) for i, j in part.edges()]
    return Graph.from_edges(vertices, edges)


class GraphFamily(Game[Graph]):
    """A game on a simple graph whose moves stay inside one connected part: a position is
    the sum of its parts, and each part is valued by its canonical label (shared by every
    isomorphic part). Subclasses give `graph_moves` (the graphs one move leaves, as vertex
    masks kept, or whole graphs) and whether isolated vertices count (`lone_vertices_move`)."""

    parameters = "optional sequence form: P, C, S, W or K (the value sequence on Pn, Cn, ...)"
    position_syntax = GRAPH_SYNTAX
    #: The sequence forms this family offers (the graph of size n for each).
    forms: ClassVar[str] = "PCSWK"
    #: Whether an isolated vertex has a move (Node-Kayles) or is worth nothing (Arc-Kayles).
    lone_vertices_move: ClassVar[bool] = True
    #: The octal game the family is on paths (a path of n vertices is its heap of n), which
    #: the pruned search reads instead of searching paths and cycles; None if unknown.
    path_code: ClassVar[str | None] = None
    #: Vertices a move takes from a cycle (which leaves a path), with `path_code`.
    cycle_takes: ClassVar[int] = 0
    #: The grid rule (`explorer.games.grids`) the family plays on a grid graph, if any.
    grid_rule: ClassVar[Literal["cram", "nodekayles"] | None] = None

    def __init__(self, form: str | None = None) -> None:
        self.form = form

    @classmethod
    def from_parameters(cls, parameters: str | None) -> GraphFamily:
        return cls(cls.sequence_form(parameters, cls.family))

    @classmethod
    def sequence_form(cls, parameters: str | None, game: str) -> str | None:
        """The sequence form `parameters` name (None for none), checked."""
        if parameters is None or parameters == "":
            return None
        form = parameters.strip().upper()
        if len(form) != 1 or form not in cls.forms:
            raise SpecError(
                f"bad sequence form {parameters!r} for {game} (expected one of "
                f"{', '.join(cls.forms)}: the values on Pn, Cn, ...)"
            )
        return form

    @property
    def spec(self) -> str:
        return self.family if self.form is None else f"{self.family}:{self.form}"

    def parse(self, text: str) -> Graph:
        return parse_graph(text, self.spec)

    def format(self, position: Graph) -> str:
        return format_graph(position)

    def graph_moves(self, graph: Graph) -> Iterator[Graph]:
        """The graphs one move leaves."""
        raise NotImplementedError

    def successors(self, position: Graph) -> Iterator[Graph]:
        return self.graph_moves(position)

    def parts(self, graph: Graph) -> list[Graph]:
        """The connected parts that carry a value (in order of their lowest vertex)."""
        masks = graph.components()
        if not self.lone_vertices_move:
            masks = [m for m in masks if m & (m - 1)]
        return [graph.induced(m) for m in masks]

    def decompose(self, position: Graph) -> Decomposition | None:
        parts = self.parts(position)
        if len(parts) == 1 and parts[0] is position:
            return None

        def rebuild(moved: Sequence[Graph]) -> Graph:
            index = {name: i for i, name in enumerate(position.names)}
            rest = position.full
            for part in parts:
                for name in part.names:
                    rest &= ~(1 << index[name])
            return _rebuild(position, moved, rest)

        return Decomposition(
            parts=tuple(Part(self, p) for p in parts),
            rebuild=rebuild,
            note=f"{len(parts)} connected part{'s' if len(parts) != 1 else ''}, each valued "
            "once per shape (canonical label)",
        )

    @classmethod
    def search_rules(cls) -> list[Any]:
        return [] if cls.grid_rule is None else [grid_rules(cls.grid_rule)]

    def search_components(self, position: Graph) -> Components | None:
        graph_rules = GraphRules(self)
        grid_keys: list[int] = []
        graph_keys: list[str] = []
        for part in self.parts(position):
            cells = None if self.grid_rule is None else grid_cells(part.names, part.adjacency)
            if cells is None:
                graph_keys.append(graph_rules.label_of(part))
            else:
                grid_keys += grid_rules(self.grid_rule).board_components(*cells)
        groups: list[tuple[Any, tuple[Hashable, ...]]] = []
        if grid_keys:
            groups.append((grid_rules(self.grid_rule), tuple(sorted(grid_keys))))
        if graph_keys or not groups:
            groups.append((graph_rules, tuple(sorted(graph_keys))))
        return Components(tuple(groups))

    def networkx_position(self, graph: Any) -> Graph:
        return graph_from_networkx(graph, f"a position of {self.spec}")

    def part_family(self) -> str:
        # a user's graph game names no family (its class's is ``py``, every user game's):
        # its parts are filed under its spec, which its code's fingerprint makes its own
        family = type(self).named_family()
        return self.spec if family is None else family

    def part_label(self, position: Graph) -> str | None:
        return graph_label(position.adjacency)

    def part_of_label(self, label: str) -> tuple[Game[Any], Any] | None:
        return self, graph_of_label(label)

    def picture(self, position: Graph) -> GraphPicture:
        edges = tuple(position.edges())
        return GraphPicture(position.names, edges, places=grid_places(position))

    def vertices_named(self, graph: Graph, indices: Sequence[int]) -> str:
        """Vertices as a player names them, joined by ``-``: their names, and their cells
        (``b2``) on a grid."""
        names = "-".join(graph.names[i] for i in indices)
        places = grid_places(graph)
        if places is None:
            return names
        return f"{names} ({'-'.join(cell_name(*places[i]) for i in indices)})"

    def sequence_position(self, n: int) -> Graph | None:
        if self.form is None:
            return None
        return self.parse(f"{self.form}{n}")


class NodeKayles(GraphFamily):
    """Node-Kayles: a move takes a vertex with its neighbours.

    Examples
    --------
    >>> game = NodeKayles()
    >>> [game.format(g) for g in game.successors(game.parse("P3"))]
    ['2', '-', '0']
    """

    family = "nodekayles"
    example = ("nodekayles", "a-b,b-c,c-d,d-a,e")
    summary = "Node-Kayles: take a vertex of a graph with its neighbours"
    path_code = "octal:0.137"  # Dawson's chess
    cycle_takes = 3
    grid_rule = "nodekayles"

    def tier(self, position: Graph) -> int | None:
        return len(position.names)  # a move takes at least one vertex

    def graph_moves(self, graph: Graph) -> Iterator[Graph]:
        full = graph.full
        for v, neighbours in enumerate(graph.adjacency):
            yield graph.induced(full & ~(neighbours | 1 << v))

    def move_name(self, position: Graph, successor: Graph) -> str | None:
        """``take vertex 4``: the vertex whose neighbourhood the move took.

        Examples
        --------
        >>> game = NodeKayles()
        >>> grid = game.parse("3x3")
        >>> game.move_name(grid, next(iter(game.successors(grid))))
        'take vertex 0 (a1)'
        """
        kept = set(successor.names)
        taken = sum(1 << i for i, name in enumerate(position.names) if name not in kept)
        for v, neighbours in enumerate(position.adjacency):
            if neighbours | 1 << v == taken:
                return f"take vertex {self.vertices_named(position, [v])}"
        return None


class ArcKayles(GraphFamily):
    """Arc-Kayles: a move takes an edge with both its ends.

    Examples
    --------
    >>> game = ArcKayles()
    >>> [game.format(g) for g in game.successors(game.parse("P4"))]
    ['2-3', '0,3', '0-1']
    """

    family = "arckayles"
    example = ("arckayles", "P3+C4")
    summary = "Arc-Kayles: take an edge of a graph with both its ends"
    lone_vertices_move = False
    path_code = "octal:0.07"  # Dawson's Kayles
    cycle_takes = 2
    grid_rule = "cram"  # Arc-Kayles on a grid graph is Cram on its board

    def tier(self, position: Graph) -> int | None:
        return sum(map(int.bit_count, position.adjacency)) // 2  # a move takes an edge or more

    def graph_moves(self, graph: Graph) -> Iterator[Graph]:
        full = graph.full
        for i, j in graph.edges():
            yield graph.induced(full & ~(1 << i | 1 << j))

    def move_name(self, position: Graph, successor: Graph) -> str | None:
        """``take edge 0-1``: the edge the move took, with both its ends.

        Examples
        --------
        >>> game = ArcKayles()
        >>> game.move_name(game.parse("P4"), game.parse("0,3"))
        'take edge 1-2'
        """
        kept = set(successor.names)
        taken = [i for i, name in enumerate(position.names) if name not in kept]
        if len(taken) != 2 or not position.adjacency[taken[0]] >> taken[1] & 1:
            return None
        return f"take edge {self.vertices_named(position, taken)}"


class GraphRules:
    """The components of a graph game for the pruned search (`explorer.solver.pruned`):
    a component is its canonical label (`explorer.games.labels`), the key the family's part
    table stores, so the search and the full walk share their values."""

    def __init__(self, game: GraphFamily) -> None:
        self.game = game
        self.family = game.part_family()
        #: The shortcuts the search took (each named in the answer's method).
        self.used: set[str] = set()

    def label_of(self, graph: Graph) -> str:
        """The key of a connected graph."""
        return graph_label(graph.adjacency)

    def label(self, key: str) -> str:
        return key

    def graph(self, key: str) -> Graph:
        """The graph of a key (its vertices named 0, 1, ...)."""
        adjacency = tuple(int(mask, 16) for mask in key.split(".")) if key else ()
        return Graph(tuple(map(str, range(len(adjacency)))), adjacency)

    def moves(self, key: str) -> list[tuple[str, ...]]:
        found: dict[tuple[str, ...], None] = {}
        whole = self.graph(key)
        for moved in self.game.graph_moves(whole):
            parts = self.game.parts(moved)
            self._refuse_growth(whole, parts)
            labels = sorted(self.label_of(part) for part in parts)
            kept: list[str] = []
            for label in labels:  # equal parts cancel: X + X is worth 0
                if kept and kept[-1] == label:
                    kept.pop()
                else:
                    kept.append(label)
            found[tuple(kept)] = None
        return list(found)

    def _refuse_growth(self, whole: Graph, parts: Sequence[Graph]) -> None:
        """Refuse a move that leaves a part as large as the one it moved in (a user's game
        may): the search recurses on ever smaller parts, and a part that comes back has no
        value."""
        for part in parts:
            if len(part.names) < len(whole.names):
                continue
            shown = format_graph(whole)[:60]
            if graph_label(part.adjacency) == graph_label(whole.adjacency):
                raise CyclicGraphError(
                    f"{self.game.spec}: a part shaped as {shown!r} comes back among the parts "
                    "its own moves leave: the game has a cycle, so its parts have no Grundy "
                    "values"
                )
            raise RuleError(
                f"{self.game.spec}: a move from the part {shown!r} leaves a part of "
                f"{len(part.names):,} vertices, no fewer than its {len(whole.names):,}: parts "
                "are valued one by one when moves leave smaller ones (solve it with --method "
                "graph)"
            )

    def known(self, key: str) -> int | None:
        if not key:
            return 0
        code = self.game.path_code
        if code is None:
            return None
        adjacency = [int(mask, 16) for mask in key.split(".")]
        degrees = [mask.bit_count() for mask in adjacency]
        n, pairs = len(adjacency), sum(degrees) // 2
        if max(degrees) > 2:
            return None
        from explorer.games import load_game

        heaps = load_game(code).heap_rules()
        assert heaps is not None
        if pairs == n - 1:
            self.used.add(SHORTCUT_PATHS)
            return heaps.heap_value(n)
        if pairs == n:  # a cycle: every move leaves a path
            self.used.add(SHORTCUT_PATHS)
            return 1 if heaps.heap_value(n - self.game.cycle_takes) == 0 else 0
        return None

    def lower_bound(self, key: str) -> int:
        return 0

    def size(self, key: str) -> int:
        return key.count(".") + 1 if key else 0

    def key(self, label: str) -> str:
        return label


def graph_game(
    options: Callable[[Any], Sequence[Any]] | None = None,
    *,
    name: str | None = None,
    form: str | None = None,
) -> Any:
    """Make a game on graphs from one function: a networkx ``Graph`` to its options (the
    graphs one move leaves). The game is played part by part: a position's connected parts
    are played side by side (the function sees one connected graph at a time), and each part
    is valued once per shape, by its canonical label.

    Usable as ``@graph_game`` or ``@graph_game(name="...", form="P")``; positions are
    written as for ``nodekayles`` (edge lists, named graphs, graph files, or NetworkX graphs
    in the Python API). A `form` (P, C, S, W or K) gives the game one-parameter positions,
    as ``nodekayles:P`` has: position n is Pn (Cn, ...), so ``explorer sequence`` takes it.

    Examples
    --------
    >>> import explorer
    >>> @explorer.graph_game
    ... def node_kayles(graph):
    ...     return [graph.subgraph(set(graph) - {v, *graph[v]}) for v in graph]
    >>> explorer.solve(node_kayles, node_kayles.parse("P5")).grundy
    3
    >>> on_paths = explorer.graph_game(node_kayles.function, form="P")
    >>> explorer.value_sequence(on_paths, 6).values.tolist()
    [0, 1, 1, 2, 0, 3, 1]
    """

    def wrap(function: Callable[[Any], Sequence[Any]]) -> Game[Graph]:
        shown = name or function.__name__
        return UserGraphGame(function, shown, UserGraphGame.sequence_form(form, shown))

    return wrap if options is None else wrap(options)


class UserGraphGame(GraphFamily):
    """A game on graphs from a user's function (`graph_game`)."""

    position_syntax = GRAPH_SYNTAX
    example = ("", "P4")
    forms = "PCSWK"

    def __init__(
        self, function: Callable[[Any], Sequence[Any]], name: str, form: str | None = None
    ) -> None:
        from explorer.games.rule_calls import source_of

        super().__init__(form)
        self.function = self.rule = function
        self.name = name
        self.source = source_of(function, name)

    @property
    def spec(self) -> str:
        return self.source.spec

    def graph_moves(self, graph: Graph) -> Iterator[Graph]:
        import networkx as nx

        whole = nx.Graph()
        whole.add_nodes_from(graph.names)
        whole.add_edges_from((graph.names[i], graph.names[j]) for i, j in graph.edges())
        # the game on a disconnected graph is the sum of the games on its parts
        parts = graph.components()
        for k, mask in enumerate(parts):
            part = whole.subgraph(
                [graph.names[i] for i in range(len(graph.names)) if mask >> i & 1]
            )
            others = [m for m2, m in enumerate(parts) if m2 != k]
            kept = [graph.induced(m) for m in others]
            elsewhere = {name for other in kept for name in other.names}
            for option in self.function(part):
                if not isinstance(option, nx.Graph):
                    raise PositionError(
                        f"{self.name} returned {option!r} for {format_graph(graph)!r} "
                        "(expected undirected networkx graphs)"
                    )
                what = f"the graph {self.name} returned for {format_graph(graph)[:40]!r}"
                moved = graph_from_networkx(option, what)
                shared = elsewhere.intersection(moved.names)
                if shared:  # the parts would merge at that vertex: another game
                    raise PositionError(
                        f"{what} names a vertex {min(shared, key=natural_key)!r} of another "
                        "part of the position (new vertices need names of their own)"
                    )
                yield _rebuild(graph, [*kept, moved], 0)
