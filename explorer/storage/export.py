"""Writing a stored graph (or a neighbourhood) to files other tools read: GraphML, GEXF, JSON, CSV.

GraphML and GEXF (Gephi, Cytoscape) go through the NetworkX writers; JSON is NetworkX's
node-link form; CSV is a node table and an edge table.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import networkx as nx

from explorer.errors import ExportError

FORMATS = ("graphml", "gexf", "json", "csv")

#: Node attributes written, in this order (CSV columns after ``position``).
NODE_ATTRIBUTES = ("grundy", "outcome", "remoteness", "depth", "height", "expanded")


def export_format(path: Path, fmt: str | None) -> str:
    """The format named, or else the one the file's suffix says.

    Examples
    --------
    >>> export_format(Path("nim.gexf"), None)
    'gexf'
    """
    chosen = (fmt or path.suffix.lstrip(".")).lower()
    if chosen not in FORMATS:
        raise ExportError(
            f"unknown export format {chosen or path.name!r} (expected one of "
            f"{', '.join(FORMATS)}, given by --format or the file suffix)"
        )
    return chosen


def csv_paths(path: Path) -> tuple[Path, Path]:
    """The node table and the edge table a CSV export writes: ``X.nodes.csv``, ``X.edges.csv``.

    Examples
    --------
    >>> [p.name for p in csv_paths(Path("out/nim.csv"))]
    ['nim.nodes.csv', 'nim.edges.csv']
    """
    stem = path.with_suffix("") if path.suffix.lower() == ".csv" else path
    return stem.with_name(stem.name + ".nodes.csv"), stem.with_name(stem.name + ".edges.csv")


def _clean(graph: nx.DiGraph) -> nx.DiGraph:
    """A copy without None attributes (GraphML and GEXF have no null) and with string names."""
    copy = nx.DiGraph()
    copy.graph.update({k: str(v) for k, v in graph.graph.items() if v is not None})
    for node, data in graph.nodes(data=True):
        copy.add_node(str(node), **{k: data[k] for k in NODE_ATTRIBUTES if data.get(k) is not None})
    copy.add_edges_from((str(a), str(b)) for a, b in graph.edges)
    return copy


def export_graph(graph: nx.DiGraph, path: str | Path, fmt: str | None = None) -> list[Path]:
    """Write a game graph (from `Database.subgraph` or `Database.neighbourhood`) to files.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are position texts with the stored attributes.
    path : str or Path
        The file to write; for CSV, ``X.csv`` gives ``X.nodes.csv`` and ``X.edges.csv``.
    fmt : {"graphml", "gexf", "json", "csv"}, optional
        Defaults to the file's suffix.

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    ExportError
        For an unknown format or a file that cannot be written.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.DiGraph([("1", "0")])
    >>> g.nodes["1"].update(grundy=1, outcome="N"); g.nodes["0"].update(grundy=0, outcome="P")
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     [p.name for p in export_graph(g, Path(tmp) / "g.csv")]
    ['g.nodes.csv', 'g.edges.csv']
    """
    path = Path(path)
    chosen = export_format(path, fmt)
    try:
        if chosen == "graphml":
            nx.write_graphml(_clean(graph), path)
            return [path]
        if chosen == "gexf":
            nx.write_gexf(_clean(graph), path)
            return [path]
        if chosen == "json":
            data = nx.node_link_data(graph, edges="edges")
            path.write_text(json.dumps(data, ensure_ascii=False, default=str), encoding="utf-8")
            return [path]
        nodes, edges = csv_paths(path)
        with nodes.open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(("position", *NODE_ATTRIBUTES))
            for node, data in graph.nodes(data=True):
                writer.writerow((node, *(data.get(k) for k in NODE_ATTRIBUTES)))
        with edges.open("w", newline="", encoding="utf-8") as file:
            writer = csv.writer(file)
            writer.writerow(("source", "target"))
            writer.writerows(graph.edges)
        return [nodes, edges]
    except OSError as error:
        raise ExportError(f"cannot write {str(path)!r}: {error.strerror}") from None
