"""Reading graph files (JSON, edge lists, CSV, GraphML), stdlib only, with one error per problem:
the `dag:` and `graph:` games and ``explorer import`` read their graphs through `read_graph_file`.
"""

from __future__ import annotations

import csv
import gc
import io
import json
import os
import re
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from explorer.errors import CyclicGraphError, DuplicateKeyError, GameFileError

Edge = tuple[str, str]

#: File extensions by format (compared in lower case).
FORMATS = {
    ".json": "JSON",
    ".csv": "CSV",
    ".graphml": "GraphML",
    ".txt": "an edge list",
    ".edges": "an edge list",
}
_GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
_COMMENT = re.compile(r"(?:^|\s)#.*$")


def read_graph_file(
    path: str | os.PathLike[str], *, acyclic: bool = True, directed: bool = True
) -> tuple[list[str], list[Edge]]:
    """Read and validate a directed graph from a file: a DAG, or any digraph if not `acyclic`.

    Formats, chosen by extension:

    - ``.json``: ``{"vertices": [...], "edges": [[u, v], ...]}`` (an optional
      ``"description"`` string is ignored), an adjacency object ``{"a": ["b", "c"], ...}``
      whose keys declare the vertices (a sink is written ``"t": []``), or NetworkX's
      node-link JSON (``{"nodes": [{"id": ...}, ...], "edges": [{"source": ..., "target":
      ...}, ...]}``, or ``"links"``), which ``explorer export`` writes;
    - ``.txt`` / ``.edges``: one ``u v`` or ``u -> v`` per line (``->`` allows names with
      spaces), a lone name declares a vertex, ``#`` starts a comment;
    - ``.csv``: a ``source,target`` header, then one edge per row (an empty target declares
      a vertex); ``X.csv`` that does not exist beside the pair ``X.nodes.csv`` and
      ``X.edges.csv`` that ``explorer export -o X.csv`` writes is read from the pair;
    - ``.graphml``: ``<node id=...>`` and ``<edge source=... target=...>`` of one directed
      graph.

    Files are UTF-8. Vertex names are strings (JSON integers are turned into strings, a
    node-link list id such as ``[0, 1]``, NetworkX's tuple ``(0, 1)``, into ``0_1``).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    acyclic : bool
        Refuse cycles and self-loops (the default, for ``dag:``); ``graph:`` allows both.
    directed : bool
        Refuse undirected GraphML and node-link graphs (the default: a game's moves have a
        direction); a graph position (``nodekayles FILE``) takes either.

    Returns
    -------
    vertices : list of str
        In order of first appearance in the file.
    edges : list of (str, str)
        In file order, so each vertex's successors keep the order the file gives them.

    Raises
    ------
    GameFileError
        A missing or unreadable file, bad encoding, malformed content, a file that is not what
        its extension says, a self-loop (when `acyclic`), a duplicate vertex or edge, an edge
        to an undeclared vertex (JSON explicit and adjacency forms, GraphML), or no vertices.
    CyclicGraphError
        The graph has a cycle and `acyclic` is set; the message and the ``cycle`` attribute
        list its vertices.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.edges"
    >>> _ = path.write_text("# a tiny game\\nb -> a\\nc a\\n")
    >>> read_graph_file(path)
    (['b', 'a', 'c'], [('b', 'a'), ('c', 'a')])
    """
    name = os.fspath(path)
    pair = _csv_pair(name)
    if pair is not None:
        return _read_csv_pair(name, *pair, acyclic)
    text = _read_text(name)
    kind = FORMATS[Path(name).suffix.lower()]
    with collector_paused():
        return _read_graph_text(name, text, kind, acyclic, directed)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: millions of new strings, tuples and lists (none in a
    reference cycle) would otherwise trigger full collections over and over, doubling the time.

    Examples
    --------
    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def csv_paths(path: Path) -> tuple[Path, Path]:
    """The node table and the edge table a CSV export writes (and `read_graph_file` reads):
    ``X.nodes.csv``, ``X.edges.csv``.

    Examples
    --------
    >>> [p.name for p in csv_paths(Path("out/nim.csv"))]
    ['nim.nodes.csv', 'nim.edges.csv']
    """
    stem = path.with_suffix("") if path.suffix.lower() == ".csv" else path
    return stem.with_name(stem.name + ".nodes.csv"), stem.with_name(stem.name + ".edges.csv")


def _csv_pair(name: str) -> tuple[str, str] | None:
    """The node and edge tables a CSV export named `name` wrote, when `name` itself is no
    file and both tables are."""
    if Path(name).suffix.lower() != ".csv" or os.path.lexists(name):
        return None
    nodes, edges = csv_paths(Path(name))
    if nodes.is_file() and edges.is_file():
        return str(nodes), str(edges)
    return None


def _read_csv_pair(
    name: str, nodes_file: str, edges_file: str, acyclic: bool
) -> tuple[list[str], list[Edge]]:
    """A graph from a CSV export's two tables: its vertices from the first column of the node
    table (headed ``position``), its edges from the edge table."""
    nodes_text = _read_text(nodes_file)
    rows = csv.reader(io.StringIO(nodes_text))
    try:
        header = next(rows, [])
        if [cell.strip().lower() for cell in header][:1] != ["position"]:
            raise GameFileError(
                f"graph file {nodes_file!r} must start with the header 'position' (the node "
                f"table explorer export writes), got {','.join(header)!r}"
            )
        vertices = [row[0] for row in rows if row and row[0]]
    except csv.Error as error:
        raise GameFileError(
            f"graph file {nodes_file!r} is not valid CSV: {error} (line {rows.line_num})"
        ) from None
    with collector_paused():
        _, edges, _ = _read_csv(edges_file, _read_text(edges_file))
        return _validated(name, vertices, edges, True, acyclic)


def _read_graph_text(
    name: str, text: str, kind: str, acyclic: bool = True, directed: bool = True
) -> tuple[list[str], list[Edge]]:
    """Parse and validate the text of a graph file of the given kind."""
    if not text.strip():
        raise GameFileError(f"graph file {name!r} is empty")
    found = _sniff(text)
    if kind == "GraphML" and found is None:
        found = "plain text"
    if found is not None and found != kind and not (kind == "GraphML" and found == "XML"):
        raise GameFileError(f"graph file {name!r} holds {found}, not {kind} as its extension says")
    if kind == "JSON":
        vertices, edges, declared = _read_json(name, text, directed)
    elif kind == "CSV":
        vertices, edges, declared = _read_csv(name, text)
    elif kind == "GraphML":
        vertices, edges, declared = _read_graphml(name, text, directed)
    else:
        vertices, edges, declared = _read_edge_list(name, text)
    return _validated(name, vertices, edges, declared, acyclic)


def _read_text(name: str) -> str:
    """The file's text, after checking it exists, is a known type and is UTF-8."""
    if not os.path.exists(name):
        raise GameFileError(f"graph file {name!r} not found")
    if os.path.isdir(name):
        raise GameFileError(f"graph file {name!r} is a directory")
    if not os.path.isfile(name):  # a FIFO or a device: reading it could block forever
        raise GameFileError(f"graph file {name!r} is not a regular file")
    suffix = Path(name).suffix.lower()
    if suffix not in FORMATS:
        known = ", ".join(FORMATS)
        what = f"type {suffix!r}" if suffix else "type (no extension)"
        raise GameFileError(f"unknown graph file {what} for {name!r} (expected {known})")
    try:
        data = Path(name).read_bytes()
    except OSError as error:
        raise GameFileError(
            f"cannot read graph file {name!r}: {error.strerror or error}".rstrip()
        ) from None
    if b"\x00" in data:
        raise GameFileError(
            f"graph file {name!r} holds binary data, not {FORMATS[suffix]} as its extension says"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise GameFileError(
            f"graph file {name!r} is not UTF-8 text: byte 0x{data[error.start]:02x} at "
            f"offset {error.start}"
        ) from None


def _sniff(text: str) -> str | None:
    """What the text looks like: JSON, XML, CSV (a source,target header), or None."""
    start = text.lstrip()[:1]
    if start in ("{", "["):
        return "JSON"
    if start == "<":
        return "XML"
    first_line = text.lstrip().split("\n", 1)[0]
    if [cell.strip().lower() for cell in first_line.split(",")][:2] == ["source", "target"]:
        return "CSV"
    return None


# ----------------------------------------------------------------------------- JSON
def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(key)
        result[key] = value
    return result


def _vertex_name(name: str, value: object, where: str, lists: bool = False) -> str:
    """A JSON vertex name as a string (integers allowed, as their decimal text; with `lists`,
    a list of names, as node-link JSON writes a tuple, joined by ``_``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if lists and isinstance(value, list) and value:
        return "_".join(_vertex_name(name, part, where) for part in value)
    raise GameFileError(
        f"bad vertex name {value!r} {where} in graph file {name!r} (expected a string)"
    )


def _is_node_link(data: dict[str, Any]) -> bool:
    """Whether a JSON object is NetworkX's node-link form: a list of node objects, and edges
    (``"edges"`` or, before NetworkX 3.4, ``"links"``)."""
    nodes = data.get("nodes")
    return (
        isinstance(nodes, list)
        and all(isinstance(node, dict) for node in nodes)
        and ("edges" in data or "links" in data)
    )


def _read_node_link(
    name: str, data: dict[str, Any], directed: bool
) -> tuple[list[str], list[Edge], bool]:
    if directed and data.get("directed") is False:
        raise GameFileError(
            f"graph file {name!r} holds an undirected graph (a game graph needs directed "
            'edges: "directed": true)'
        )
    vertices = []
    for node in data["nodes"]:
        if "id" not in node:
            raise GameFileError(f"a node in graph file {name!r} has no id: {node!r}")
        vertices.append(_vertex_name(name, node["id"], "as a node id", lists=True))
    listed = data.get("edges", data.get("links"))
    if not isinstance(listed, list):
        raise GameFileError(
            f"the edges of graph file {name!r} must be a list of objects with a source and a "
            f"target, got {listed!r}"
        )
    edges = []
    for edge in listed:
        if not isinstance(edge, dict) or "source" not in edge or "target" not in edge:
            raise GameFileError(
                f"bad edge {edge!r} in graph file {name!r} (expected an object with a source "
                "and a target)"
            )
        where = f"in the edge {edge!r}"
        edges.append(
            (
                _vertex_name(name, edge["source"], where, lists=True),
                _vertex_name(name, edge["target"], where, lists=True),
            )
        )
    return vertices, edges, True


def _read_json(name: str, text: str, directed: bool = True) -> tuple[list[str], list[Edge], bool]:
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except DuplicateKeyError as error:
        raise GameFileError(
            f"graph file {name!r} declares vertex {error.args[0]!r} twice"
        ) from None
    except json.JSONDecodeError as error:
        raise GameFileError(
            f"graph file {name!r} is not valid JSON: {error.msg} at line {error.lineno} "
            f"column {error.colno}"
        ) from None
    except ValueError:  # what Python refuses to turn into an int
        raise GameFileError(
            f"graph file {name!r} holds a number of more than {sys.get_int_max_str_digits():,} "
            "digits (vertex names are strings, or integers of fewer digits)"
        ) from None
    except RecursionError:
        raise GameFileError(
            f"graph file {name!r} nests JSON too deeply to read (a graph needs three levels: "
            '{"vertices": [...], "edges": [[u, v], ...]})'
        ) from None
    if not isinstance(data, dict):
        raise GameFileError(
            f"graph file {name!r} holds a JSON {type(data).__name__}, expected an object "
            '({"vertices": [...], "edges": [...]} or {"a": ["b", ...], ...})'
        )
    if {"vertices", "edges"} <= data.keys() <= {"vertices", "edges", "description"}:
        return _read_json_lists(name, data)
    if _is_node_link(data):
        return _read_node_link(name, data, directed)
    edges = []
    for source, targets in data.items():
        if not isinstance(targets, list):
            raise GameFileError(
                f"bad successors {targets!r} of vertex {source!r} in graph file {name!r} "
                "(expected a list of vertex names)"
            )
        for target in targets:
            if type(target) is not str:
                target = _vertex_name(name, target, f"among the successors of {source!r}")
            edges.append((source, target))
    return list(data), edges, True


def _read_json_lists(name: str, data: dict[str, Any]) -> tuple[list[str], list[Edge], bool]:
    declared, listed = data["vertices"], data["edges"]
    if not isinstance(declared, list):
        raise GameFileError(
            f'"vertices" in graph file {name!r} must be a list of names, got {declared!r}'
        )
    if not isinstance(listed, list):
        raise GameFileError(
            f'"edges" in graph file {name!r} must be a list of [source, target] pairs, '
            f"got {listed!r}"
        )
    vertices = [_vertex_name(name, v, 'in "vertices"') for v in declared]
    edges = []
    for edge in listed:
        if type(edge) is list and len(edge) == 2 and type(edge[0]) is type(edge[1]) is str:
            edges.append((edge[0], edge[1]))  # the usual case, without building error texts
            continue
        if not isinstance(edge, list) or len(edge) != 2:
            raise GameFileError(
                f"bad edge {edge!r} in graph file {name!r} (expected a [source, target] pair)"
            )
        edges.append(
            (
                _vertex_name(name, edge[0], f"in the edge {edge!r}"),
                _vertex_name(name, edge[1], f"in the edge {edge!r}"),
            )
        )
    return vertices, edges, True


# ----------------------------------------------------------------------------- edge lists
def _read_edge_list(name: str, text: str) -> tuple[list[str], list[Edge], bool]:
    vertices: list[str] = []
    edges: list[Edge] = []
    for number, line in enumerate(text.splitlines(), start=1):
        content = _COMMENT.sub("", line) if "#" in line else line
        arrow = "->" in content
        names = [part.strip() for part in content.split("->")] if arrow else content.split()
        if len(names) == 2 and names[0] and names[1]:
            vertices += names
            edges.append((names[0], names[1]))
        elif len(names) == 1 and not arrow:
            vertices.append(names[0])
        elif names:
            raise GameFileError(
                f"bad line {number} in graph file {name!r}: {line.strip()!r} "
                "(expected 'u v' or 'u -> v')"
            )
    return list(dict.fromkeys(vertices)), edges, False


# ----------------------------------------------------------------------------- CSV
def _read_csv(name: str, text: str) -> tuple[list[str], list[Edge], bool]:
    rows = csv.reader(io.StringIO(text))
    vertices: list[str] = []
    edges: list[Edge] = []
    try:
        header = next(rows)
        if [cell.strip().lower() for cell in header][:2] != ["source", "target"]:
            raise GameFileError(
                f"graph file {name!r} must start with the header 'source,target', "
                f"got {','.join(header)!r}"
            )
        for row in rows:
            cells = [cell.strip() for cell in row]
            if not any(cells):
                continue
            if len(cells) > max(len(header), 2) and any(cells[len(header) :]):
                raise GameFileError(
                    f"bad row {rows.line_num} in graph file {name!r}: {','.join(row)!r} has "
                    f"{len(cells)} cells, its header {len(header)} (expected source,target)"
                )
            source = cells[0]
            target = cells[1] if len(cells) > 1 else ""
            if not source:
                raise GameFileError(
                    f"bad row {rows.line_num} in graph file {name!r}: {','.join(row)!r} "
                    "(expected source,target with a source)"
                )
            vertices.append(source)
            if target:
                vertices.append(target)
                edges.append((source, target))
    except csv.Error as error:
        raise GameFileError(
            f"graph file {name!r} is not valid CSV: {error} (line {rows.line_num})"
        ) from None
    return list(dict.fromkeys(vertices)), edges, False


# ----------------------------------------------------------------------------- GraphML
def _local(tag: str) -> str:
    """A tag without its namespace, for GraphML files written with or without one."""
    namespace, _, local = tag.rpartition("}")
    return local if namespace in ("", "{" + _GRAPHML_NS) else tag


def _read_graphml(
    name: str, text: str, directed: bool = True
) -> tuple[list[str], list[Edge], bool]:
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        # entities expand: a few lines can name a vertex with gigabytes of text
        raise GameFileError(
            f"graph file {name!r} declares a DOCTYPE or XML entities, which GraphML does not use"
        )
    try:
        # from text, not bytes: the file was decoded as UTF-8 whatever its declaration says
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as error:
        raise GameFileError(f"graph file {name!r} is not valid XML: {error}") from None
    if _local(root.tag) != "graphml":
        raise GameFileError(
            f"graph file {name!r} is XML but not GraphML (its root element is "
            f"<{_local(root.tag)}>, expected <graphml>)"
        )
    graphs = [child for child in root if _local(child.tag) == "graph"]
    if len(graphs) != 1:
        raise GameFileError(
            f"graph file {name!r} holds {len(graphs)} <graph> elements (expected one)"
        )
    (graph,) = graphs
    directed_by_default = graph.get("edgedefault", "directed") == "directed"
    vertices: list[str] = []
    edges: list[Edge] = []
    for element in graph:
        tag = _local(element.tag)
        if tag == "node":
            vertex = element.get("id")
            if vertex is None:
                raise GameFileError(f"a <node> in graph file {name!r} has no id")
            vertices.append(vertex)
        elif tag == "edge":
            source, target = element.get("source"), element.get("target")
            if source is None or target is None:
                raise GameFileError(f"an <edge> in graph file {name!r} lacks a source or a target")
            marked = element.get("directed")
            undirected = marked == "false" or (marked is None and not directed_by_default)
            if undirected and directed:
                raise GameFileError(
                    f"the edge {source!r} -- {target!r} in graph file {name!r} is undirected "
                    '(a game graph needs directed edges: edgedefault="directed")'
                )
            edges.append((source, target))
    return vertices, edges, True


# ----------------------------------------------------------------------------- checks
def _validated(
    name: str, vertices: list[str], edges: list[Edge], declared: bool, acyclic: bool = True
) -> tuple[list[str], list[Edge]]:
    """Refuse empty names, repeated vertices or edges, unknown ends, and (when `acyclic`)
    self-loops and cycles."""
    if not vertices:
        raise GameFileError(f"graph file {name!r} has no vertices")
    known: set[str] = set()
    for vertex in vertices:
        if not vertex:
            raise GameFileError(f"graph file {name!r} has a vertex with an empty name")
        if vertex in known:
            raise GameFileError(f"graph file {name!r} declares vertex {vertex!r} twice")
        known.add(vertex)
    seen: set[Edge] = set()
    for source, target in edges:
        if declared:
            for end in (source, target):
                if end not in known:
                    raise GameFileError(
                        f"graph file {name!r} has an edge {source!r} -> {target!r} to the "
                        f"undeclared vertex {end!r}"
                    )
        if source == target and acyclic:
            raise GameFileError(
                f"graph file {name!r} has a self-loop on vertex {source!r} (a DAG move must "
                f"change the position; play it as graph:{name}, which allows loops)"
            )
        if (source, target) in seen:
            raise GameFileError(
                f"graph file {name!r} lists the edge {source!r} -> {target!r} twice"
            )
        seen.add((source, target))
    if acyclic:
        _refuse_cycles(name, vertices, edges)
    return vertices, edges


def _refuse_cycles(name: str, vertices: list[str], edges: list[Edge]) -> None:
    """Refuse a graph with a cycle, naming the first one a depth-first search in file order
    meets."""
    # the solver's cycle finder, imported here: reading a file is the one place the rules
    # need it, and the solver imports the games
    from explorer.adjacency import Adjacency, find_cycle

    number = {v: i for i, v in enumerate(vertices)}
    src = [number[source] for source, _ in edges]
    dst = [number[target] for _, target in edges]
    found = find_cycle(Adjacency.from_edges(len(vertices), src, dst))
    if found is not None:
        cycle: list[object] = [vertices[i] for i in found]
        raise CyclicGraphError(
            f"graph file {name!r} has a cycle: "
            + " -> ".join(map(repr, cycle))
            + f" (play it as graph:{name}, which allows cycles)",
            cycle,
        )
