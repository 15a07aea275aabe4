"""Writing a game graph, streamed in batches, to files other tools read: GraphML, GEXF, JSON, CSV;
each file replaced atomically, XML always valid (a position XML 1.0 cannot hold is refused).
"""

# Every file is written beside its destination under a temporary name and renamed over it only
# when complete: an export that fails (a full disk, say) leaves the previous file as it was. A
# destination that is a symbolic link is refused, never followed. Markup characters are escaped.

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from explorer.errors import ExportError
from explorer.files import replacing
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.graph_files import csv_paths

FORMATS = ("graphml", "gexf", "json", "csv")

#: Node attributes written, in this order (CSV columns after ``position``), with XML types.
NODE_ATTRIBUTES = ("grundy", "outcome", "remoteness", "depth", "height", "expanded")
_XML_TYPES = ("long", "string", "long", "long", "long", "boolean")

#: A node as the writers take it: position text, then `NODE_ATTRIBUTES` (None when unknown).
Node = tuple[Any, ...]


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


def export_paths(path: Path, fmt: str) -> list[Path]:
    """The files an export in `fmt` to `path` writes."""
    return list(csv_paths(path)) if fmt == "csv" else [path]


# -- XML text -------------------------------------------------------------------------------

#: Characters XML 1.0 cannot hold at all, not even as references.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: Characters escaped: markup, and white space an attribute value would otherwise normalise.
_ESCAPED = re.compile('[&<>"\t\n\r]')
_ENTITIES = {
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    '"': "&quot;",
    "\t": "&#9;",
    "\n": "&#10;",
    "\r": "&#13;",
}


def xml_text(text: str) -> str:
    """`text` escaped for an XML attribute value or element.

    Raises
    ------
    ExportError
        When `text` holds a character XML 1.0 cannot represent (most control characters).

    Examples
    --------
    >>> xml_text('a<b & "c"')
    'a&lt;b &amp; &quot;c&quot;'
    """
    if _NOT_XML.search(text):
        raise ExportError(
            f"position {text!r} holds a character XML cannot represent (a control character); "
            "export it as JSON or CSV instead"
        )
    return _ESCAPED.sub(lambda m: _ENTITIES[m.group()], text)


#: Any character `xml_text` would change or refuse.
_SPECIAL = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]')


def _xml_texts(texts: list[str]) -> list[str]:
    """`xml_text` of each, checked in one pass when none needs escaping (the usual case)."""
    if _SPECIAL.search(" ".join(texts)) is None:
        return texts
    return [xml_text(t) for t in texts]


def _xml_nodes(batch: list[Node]) -> Iterator[tuple[str, list[tuple[int, str]]]]:
    """Each node's escaped name and its known attributes as (index, XML text)."""
    names = _xml_texts([node[0] for node in batch])
    for name, node in zip(names, batch, strict=True):
        values = []
        for i, value in enumerate(node[1:]):
            if value is None:
                continue
            if i == 5:
                values.append((i, "true" if value else "false"))
            else:  # integers, and the outcome P or N: nothing to escape
                values.append((i, str(value)))
        yield name, values


# -- writers ------------------------------------------------------------------------------

#: Batches of nodes, then of edges, as the writers take them.
Batches = Iterable[list[Any]]


class _Writer:
    """Writes one graph: `begin`, then every batch of nodes, then of edges, then `end`."""

    def __init__(
        self, files: list[IO[str]], game: str, root: str | None, convention: Convention
    ) -> None:
        self.files, self.game, self.root, self.convention = files, game, root, convention

    def begin(self) -> None:
        pass

    def nodes(self, batches: Batches) -> None:
        raise NotImplementedError

    def edges(self, batches: Batches) -> None:
        raise NotImplementedError

    def end(self) -> None:
        pass


class _XML(_Writer):
    """GraphML and GEXF: the nodes in batches, each one element with its attributes."""

    def nodes(self, batches: Batches) -> None:
        for batch in batches:
            self.files[0].write("".join(self.node(*node) for node in _xml_nodes(batch)))

    def node(self, name: str, values: list[tuple[int, str]]) -> str:
        raise NotImplementedError


class _GraphML(_XML):
    def begin(self) -> None:
        keys = "".join(
            f'  <key id="d{i}" for="node" attr.name="{name}" attr.type="{kind}" />\n'
            for i, (name, kind) in enumerate(zip(NODE_ATTRIBUTES, _XML_TYPES, strict=True))
        )
        graph = [("game", self.game), ("convention", self.convention)]
        graph += [("root", self.root)] if self.root is not None else []
        keys += "".join(
            f'  <key id="g{i}" for="graph" attr.name="{name}" attr.type="string" />\n'
            for i, (name, _) in enumerate(graph)
        )
        data = "".join(
            f'    <data key="g{i}">{xml_text(value)}</data>\n' for i, (_, value) in enumerate(graph)
        )
        self.files[0].write(
            "<?xml version='1.0' encoding='utf-8'?>\n"
            '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
            'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
            f'{keys}  <graph edgedefault="directed">\n{data}'
        )

    def node(self, name: str, values: list[tuple[int, str]]) -> str:
        data = "".join(f'<data key="d{i}">{v}</data>' for i, v in values)
        return f'    <node id="{name}">{data}</node>\n'

    def edges(self, batches: Batches) -> None:
        for batch in batches:
            ends = _xml_texts([end for edge in batch for end in edge])
            self.files[0].write(
                "".join(
                    f'    <edge source="{a}" target="{b}" />\n'
                    for a, b in zip(ends[::2], ends[1::2], strict=True)
                )
            )

    def end(self) -> None:
        self.files[0].write("  </graph>\n</graphml>\n")


class _GEXF(_XML):
    def begin(self) -> None:
        attributes = "".join(
            f'      <attribute id="{i}" title="{name}" type="{kind}" />\n'
            for i, (name, kind) in enumerate(zip(NODE_ATTRIBUTES, _XML_TYPES, strict=True))
        )
        self.files[0].write(
            "<?xml version='1.0' encoding='utf-8'?>\n"
            '<gexf xmlns="http://www.gexf.net/1.2draft" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://www.gexf.net/1.2draft '
            'http://www.gexf.net/1.2draft/gexf.xsd" version="1.2">\n'
            f"  <meta><creator>explorer</creator><description>{xml_text(self.game)}"
            f"{' (misère play)' if self.convention == MISERE else ''}</description></meta>\n"
            '  <graph defaultedgetype="directed" mode="static">\n'
            f'    <attributes class="node" mode="static">\n{attributes}    </attributes>\n'
            "    <nodes>\n"
        )
        self.edge_id = 0

    def node(self, name: str, values: list[tuple[int, str]]) -> str:
        data = "".join(f'<attvalue for="{i}" value="{v}" />' for i, v in values)
        return f'      <node id="{name}" label="{name}"><attvalues>{data}</attvalues></node>\n'

    def edges(self, batches: Batches) -> None:
        self.files[0].write("    </nodes>\n    <edges>\n")
        for batch in batches:
            ends = _xml_texts([end for edge in batch for end in edge])
            first = self.edge_id
            self.edge_id += len(batch)
            self.files[0].write(
                "".join(
                    f'      <edge id="{i}" source="{a}" target="{b}" />\n'
                    for i, a, b in zip(
                        range(first, self.edge_id), ends[::2], ends[1::2], strict=True
                    )
                )
            )

    def end(self) -> None:
        self.files[0].write("    </edges>\n  </graph>\n</gexf>\n")


class _NodeLink(_Writer):
    """NetworkX's node-link JSON (``networkx.node_link_graph(data, edges="edges")``)."""

    def begin(self) -> None:
        graph = json.dumps(
            {"game": self.game, "convention": self.convention, "root": self.root},
            ensure_ascii=False,
        )
        self.files[0].write(
            f'{{"directed": true, "multigraph": false, "graph": {graph}, "nodes": ['
        )
        self.separator = "\n"

    def _batch(self, items: list[str]) -> None:
        if items:
            self.files[0].write(self.separator + ",\n".join(items))
            self.separator = ",\n"

    def nodes(self, batches: Batches) -> None:
        def item(node: Node) -> str:
            data = {name: node[i + 1] for i, name in enumerate(NODE_ATTRIBUTES)}
            data["expanded"] = None if node[6] is None else bool(node[6])
            data["id"] = node[0]
            return json.dumps(data, ensure_ascii=False)

        for batch in batches:
            self._batch([item(node) for node in batch])

    def edges(self, batches: Batches) -> None:
        self.files[0].write('], "edges": [')
        self.separator = "\n"

        def text(position: str) -> str:
            return json.dumps(position, ensure_ascii=False)

        for batch in batches:
            self._batch([f'{{"source": {text(a)}, "target": {text(b)}}}' for a, b in batch])

    def end(self) -> None:
        self.files[0].write("]}\n")


class _CSV(_Writer):
    def begin(self) -> None:
        self.node_rows = csv.writer(self.files[0])
        self.edge_rows = csv.writer(self.files[1])
        self.node_rows.writerow(("position", *NODE_ATTRIBUTES))
        self.edge_rows.writerow(("source", "target"))

    def nodes(self, batches: Batches) -> None:
        for batch in batches:
            self.node_rows.writerows(
                (*node[:6], None if node[6] is None else bool(node[6])) for node in batch
            )

    def edges(self, batches: Batches) -> None:
        for batch in batches:
            self.edge_rows.writerows(batch)


_WRITERS: dict[str, type[_Writer]] = {
    "graphml": _GraphML,
    "gexf": _GEXF,
    "json": _NodeLink,
    "csv": _CSV,
}


def write_graph(
    path: Path,
    fmt: str,
    game: str,
    root: str | None,
    nodes: Batches,
    edges: Batches,
    convention: Convention = NORMAL,
) -> list[Path]:
    """Stream batches of `nodes` then of `edges` into the file(s) of an export, replaced
    atomically.

    A node is its position text then the `NODE_ATTRIBUTES` (None where unknown); an edge is
    two position texts. Returns the files written. GraphML and JSON carry the game, its
    `convention` and the root as graph attributes; GEXF names the game and a misère
    convention in its description; CSV holds the nodes and edges only.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     out = write_graph(Path(tmp) / "g.graphml", "graphml", "nim", "1",
    ...                       [[("1", 1, "N", 1, 0, 1, True), ("0", 0, "P", 0, 1, 0, True)]],
    ...                       [[("1", "0")]])
    ...     g = nx.read_graphml(out[0])
    >>> sorted(g.edges), g.nodes["0"]["outcome"], g.graph["game"], g.graph["convention"]
    ([('1', '0')], 'P', 'nim', 'normal')
    """
    paths = export_paths(path, fmt)
    with replacing(paths, error=ExportError) as files:
        writer = _WRITERS[fmt](files, game, root, convention)
        writer.begin()
        writer.nodes(nodes)
        writer.edges(edges)
        writer.end()
    return paths
