"""The interactive HTML page of a game graph (pyvis, imported lazily), self-contained and offline.

Positions are data: they reach the page only as JSON (escaped by pyvis' ``tojson``) or as escaped
HTML text, and a Content-Security-Policy lets no request leave the file and no inline handler run.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
import re
from bisect import bisect_left
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from explorer.viz.graphs import layers, layout
from explorer.viz.output import write_text

#: Fill of P-positions (Grundy value 0): a dark red no N-position uses.
P_COLOUR = "#b2182b"
#: Fills of N-positions by Grundy value 1, 2, ... (ColorBrewer Set3 without its red).
N_COLOURS = (
    "#8dd3c7",
    "#ffffb3",
    "#bebada",
    "#80b1d3",
    "#fdb462",
    "#b3de69",
    "#fccde5",
    "#bc80bd",
    "#ccebc5",
    "#ffed6f",
)
#: Fill of N-positions whose value is past the palette (the label still gives the value).
HIGH_COLOUR = "#d9d9d9"
#: Fill of states whose value is not known (a stored build that was stopped).
UNSOLVED_COLOUR = "#ffffff"
START_BORDER = "#1f4e9e"
MOVE_COLOUR = "#a0a0a0"
#: Height of a layer on the page, in vis-network units.
ROW = 110.0
#: About half the height of a state's two-line label box.
NODE_HALF_HEIGHT = 28.0
#: Pages with at most this many moves bend the moves that would cross a state.
CURVED_EDGES = 5_000
#: Longest position text written inside a node; the tooltip has the whole text.
LABEL_CHARS = 24


def _group_style(value: int | None) -> dict[str, Any]:
    """How states of one Grundy value look (a vis-network group, shared by all its nodes)."""
    if value == 0:
        hover = {"background": "#d6604d", "border": "#000000"}
        return {
            "shape": "box",
            "borderWidth": 3,
            "font": {"color": "#ffffff", "bold": True},
            "color": {
                "background": P_COLOUR,
                "border": "#000000",
                "highlight": hover,
                "hover": hover,
            },
        }
    fill = UNSOLVED_COLOUR if value is None else grundy_colour(value)
    hover = {"background": fill, "border": "#000000"}
    style = {
        "shape": "ellipse",
        "borderWidth": 1,
        "font": {"color": "#222222"},
        "color": {"background": fill, "border": "#555555", "highlight": hover, "hover": hover},
    }
    if value is None:
        style["shapeProperties"] = {"borderDashes": [4, 3]}
    return style


def grundy_colour(value: int) -> str:
    """The fill of a state with this Grundy value.

    Examples
    --------
    >>> grundy_colour(0) == P_COLOUR, grundy_colour(1)
    (True, '#8dd3c7')
    """
    if value == 0:
        return P_COLOUR
    return N_COLOURS[value - 1] if value <= len(N_COLOURS) else HIGH_COLOUR


def _group(value: int | None) -> str:
    if value is None:
        return "unsolved"
    if value > len(N_COLOURS):
        return "high"
    return "P" if value == 0 else f"G{value}"


GROUPS = {_group(v): _group_style(v) for v in [None, *range(len(N_COLOURS) + 2)]}

OPTIONS: dict[str, Any] = {
    "physics": {"enabled": False},
    "layout": {"improvedLayout": False},
    "interaction": {"hover": True, "tooltipDelay": 120, "hideEdgesOnDrag": True},
    "nodes": {"font": {"face": "sans-serif", "size": 14}, "margin": 8},
    "edges": {
        "arrows": {"to": {"enabled": True, "scaleFactor": 0.6}},
        "smooth": False,
        "color": {"color": MOVE_COLOUR, "inherit": False},
        "width": 1,
    },
    "groups": GROUPS,
}

PAGE_STYLE = """
body { font-family: sans-serif; margin: 0 12px; color: #222; }
.explorer-header h1 { font-size: 1.35em; margin: 10px 0 4px; }
.explorer-header p { margin: 2px 0; }
.explorer-note { color: #8a4b00; font-weight: bold; }
.explorer-legend { list-style: none; padding: 0; margin: 6px 0; display: flex;
  flex-wrap: wrap; gap: 4px 18px; font-size: 0.92em; }
.explorer-legend li { display: flex; align-items: center; gap: 6px; }
.explorer-swatch { display: inline-block; width: 22px; height: 16px; border: 1px solid #555;
  border-radius: 8px; }
.explorer-swatch.square { border-radius: 0; border: 3px solid #000; width: 18px; height: 12px; }
.explorer-line { display: inline-block; width: 26px; height: 0; border-top: 1px solid; }
#mynetwork { float: none !important; }
"""

# Runs before pyvis' script builds the network. pyvis shows node titles through innerHTML as
# soon as one contains "href", so tooltips travel as `tooltip` and become titles here, as text
# (vis-network puts a string title in with innerText). The first drawing is recorded for tests
# and benchmarks: it happens inside the Network constructor, before a listener could be added.
PAGE_SETUP = """
(function () {
  var DataSet = vis.DataSet;
  vis.DataSet = function (items, options) {
    (items || []).forEach(function (item) {
      if (typeof item.tooltip === "string") { item.title = item.tooltip; }
    });
    return new DataSet(items, options);
  };
  window.explorerFirstDraw = null;
  var emit = vis.Network.prototype.emit;
  vis.Network.prototype.emit = function (event) {
    if (event === "afterDrawing" && window.explorerFirstDraw === null) {
      window.explorerFirstDraw = performance.now();
    }
    return emit.apply(this, arguments);
  };
})();
"""


@dataclass(frozen=True)
class GraphPage:
    """A drawn page: its HTML and what it shows; displays inline in Jupyter."""

    html: str
    nodes: int
    edges: int
    states: int
    cut: bool
    note: str = ""
    #: Whether nodes are groups of states (`draw_condensed`) rather than states.
    condensed: bool = False

    def save(self, path: str | Path) -> Path:
        """Write the page to `path` (an ``.html`` file) and return the path."""
        return write_text(path, self.html, suffixes=(".html", ".htm"))

    def _repr_html_(self) -> str:
        # a sandboxed iframe keeps the page's scripts away from the notebook
        return (
            f'<iframe srcdoc="{html.escape(self.html)}" sandbox="allow-scripts" '
            'style="width: 100%; height: 640px; border: 1px solid #ddd"></iframe>'
        )


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _outcome_text(outcome: str | None) -> str:
    if outcome is None:
        return "unknown (not solved)"
    return "P (the player to move loses)" if outcome == "P" else "N (the player to move wins)"


def _swatch(value: int | None, text: str) -> str:
    style = GROUPS[_group(value)]
    square = " square" if style["shape"] == "box" else ""
    dashed = "; border-style: dashed" if value is None else ""
    return (
        f'<span class="explorer-swatch{square}" '
        f'style="background:{style["color"]["background"]}{dashed}"></span>{text}'
    )


def _legend(values: set[int | None], *, start: bool) -> list[str]:
    known = {v for v in values if v is not None}
    items = []
    if 0 in known:
        items.append(_swatch(0, "P-position, Grundy value 0: the player to move loses"))
    items += [_swatch(v, f"N-position, G = {v}") for v in sorted(known) if 0 < v <= len(N_COLOURS)]
    if any(v > len(N_COLOURS) for v in known):
        items.append(
            _swatch(len(N_COLOURS) + 1, f"N-position, G &gt; {len(N_COLOURS)} (value in the label)")
        )
    if None in values:
        items.append(_swatch(None, "not solved yet (the stored build stopped)"))
    items.append(
        f'<span class="explorer-line" style="border-top: 4px solid {P_COLOUR}"></span>'
        "winning move (into a P-position)"
    )
    items.append(
        f'<span class="explorer-line" style="border-color:{MOVE_COLOUR}"></span>other move'
    )
    if start:
        items.append(
            f'<span class="explorer-swatch" style="border: 4px solid {START_BORDER}"></span>'
            "where the drawing starts"
        )
    return items


def _tooltip(text: str, attrs: dict[str, Any], drawn: int) -> str:
    value, far, moves = attrs.get("grundy"), attrs.get("remoteness"), attrs.get("moves")
    if moves is None:
        counted = f"moves: {drawn} drawn, maybe more beyond the drawing"
    else:
        hidden = moves - drawn
        counted = f"moves: {moves}" + (f" ({hidden} not drawn)" if hidden > 0 else "")
    return "\n".join(
        [
            f"position: {text}",
            f"Grundy value: {'unknown' if value is None else value}",
            f"outcome: {_outcome_text(attrs.get('outcome'))}",
            f"remoteness: {'unknown' if far is None else far}",
            counted,
        ]
    )


def draw_graph(graph: nx.DiGraph, *, title: str | None = None) -> GraphPage:
    """Draw a solved graph as an interactive page.

    Colour gives the outcome and the Grundy value (P-positions are dark red boxes with a black
    border), each node's label is its position and value, its tooltip gives position, Grundy
    value, outcome, remoteness and moves; winning moves are thick red arrows. Layers run top
    to bottom (see `explorer.viz.graphs.layers`) and physics is off.

    Parameters
    ----------
    graph : networkx.DiGraph
        Nodes are position texts with attributes ``grundy`` and ``outcome`` (None when not
        solved), ``remoteness`` (None when unknown) and ``moves`` (None or missing when
        unknown); graph attributes ``game``, ``centre`` or ``root``, ``states`` and ``cut``
        (as `explorer.viz.graphs.cut` sets them) feed the heading.
    title : str, optional
        Heading; by default the game and the start position.

    Returns
    -------
    GraphPage

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("1", "0")])
    >>> g.add_nodes_from([("1", dict(grundy=1, outcome="N", remoteness=1)),
    ...                   ("0", dict(grundy=0, outcome="P", remoteness=0))])
    >>> page = draw_graph(g, title="a heap of one")
    >>> page.nodes, page.edges, "cdn" in page.html
    (2, 1, False)
    """
    meta = graph.graph
    start = meta.get("centre", meta.get("root"))
    level = layers(graph)
    widest = max((len(_short(str(n))) for n in graph), default=1)
    step = max(90.0, 8.0 * widest + 30.0)
    where = layout(graph, level, dx=step, dy=ROW)
    ids = {node: i for i, node in enumerate(graph)}
    values: set[int | None] = set()
    succ = graph._succ
    nodes = []
    for node, attrs in graph.nodes.items():
        text = str(node)
        value = attrs.get("grundy")
        values.add(value)
        x, y = where[node]
        item = {
            "id": ids[node],
            "group": _group(value),
            "position": text,
            "grundy": value,
            "outcome": attrs.get("outcome"),
            "x": x,
            "y": y,
            "level": level[node],
            "label": f"{_short(text)}\nG {'?' if value is None else value}",
            "tooltip": _tooltip(text, attrs, len(succ[node])),
        }
        if node == start:
            colour = GROUPS[item["group"]]["color"]
            item.update(borderWidth=5, color=dict(colour, border=START_BORDER))
        nodes.append(item)
    # a straight move through a state of a row it skips would seem to end there: bend it
    # (on smaller pages only: per-edge options slow the first drawing of big ones)
    bent = _bends(graph, level, where, row=ROW) if graph.number_of_edges() <= CURVED_EDGES else {}
    edges = []
    for a, b in graph.edges:
        edge: dict[str, Any] = {"from": ids[a], "to": ids[b]}
        if (a, b) in bent:
            kind, roundness = bent[a, b]
            edge["smooth"] = {"enabled": True, "type": kind, "roundness": roundness}
        if graph.nodes[b].get("grundy") == 0:
            edge.update(
                color={"color": P_COLOUR, "inherit": False},
                width=3.5,
                title=f"{a} → {b}: winning move (into a P-position)",
            )
        edges.append(edge)
    states = int(meta.get("states", graph.number_of_nodes()))
    heading = title or _heading(meta, start)
    summary = (
        f"{_count(len(nodes), 'state')} and {_count(len(edges), 'move')} drawn"
        f" ({_count(sum(1 for n in nodes if n['grundy'] == 0), 'P-position')}), one row per layer: "
        "every move goes down. Hover a state for its values; drag to pan, scroll to zoom."
    )
    note = _cut_note(len(nodes), states) if meta.get("cut") else ""
    page = _render(
        nodes,
        edges,
        heading=heading,
        lines=[summary],
        note=note,
        legend=_legend(values, start=start in ids),
    )
    return GraphPage(page, len(nodes), len(edges), states, bool(meta.get("cut")), note)


Point = tuple[float, float]


def _bends(
    graph: nx.DiGraph,
    level: Mapping[Hashable, int],
    where: Mapping[Hashable, Point],
    *,
    row: float,
) -> dict[tuple[Hashable, Hashable], tuple[str, float]]:
    """The curve (vis-network type and roundness) of each move whose straight line would cross
    a state in a row it skips, chosen so that the curve clears the states of those rows."""
    rows: dict[int, list[tuple[float, float]]] = {}
    for node, (x, _) in where.items():
        rows.setdefault(level[node], []).append((x, _half_width(str(node))))
    for states in rows.values():
        states.sort()
    starts = {k: [x for x, _ in states] for k, states in rows.items()}

    def clear(start: Point, control: Point, end: Point, top: int, bottom: int) -> bool:
        for between in range(top + 1, bottom):
            states, xs = rows.get(between, []), starts.get(between, [])
            for dy in (
                -NODE_HALF_HEIGHT,
                -NODE_HALF_HEIGHT / 2,
                0.0,
                NODE_HALF_HEIGHT / 2,
                NODE_HALF_HEIGHT,
            ):
                x = _bezier_x(start, control, end, between * row + dy)
                if x is None:
                    continue
                i = bisect_left(xs, x)
                for j in (i - 1, i):
                    if 0 <= j < len(states) and abs(states[j][0] - x) < states[j][1] + 4:
                        return False
        return True

    bends = {}
    for a, b in graph.edges:
        top, bottom = level[a], level[b]
        start, end = where[a], where[b]
        if bottom - top < 2 or clear(start, _midpoint(start, end), end, top, bottom):
            continue
        for roundness in (0.15, 0.3, 0.45):
            for kind in ("curvedCW", "curvedCCW"):
                if clear(start, _control(start, end, kind, roundness), end, top, bottom):
                    bends[a, b] = (kind, roundness)
                    break
            if (a, b) in bends:
                break
    return bends


def _half_width(text: str) -> float:
    """About half the width vis-network gives a state's label box (measured in Chromium)."""
    return max(26.0, 3.8 * len(_short(text)) + 12.0)


def _midpoint(start: Point, end: Point) -> Point:
    return ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)


def _control(start: Point, end: Point, kind: str, roundness: float) -> Point:
    """The control point of vis-network 9's quadratic Bézier for a curvedCW/curvedCCW edge."""
    across, up = end[0] - start[0], start[1] - end[1]
    turn = roundness if kind == "curvedCW" else -roundness
    angle = math.atan2(up, across) + (0.5 * turn + 0.5) * math.pi
    reach = (0.5 * roundness + 0.5) * math.hypot(across, up)
    return (start[0] + reach * math.sin(angle), start[1] + reach * math.cos(angle))


def _bezier_x(start: Point, control: Point, end: Point, y: float) -> float | None:
    """Where the curve from `start` to `end` crosses height `y` (None if it does not)."""
    a = start[1] - 2 * control[1] + end[1]
    b = 2 * (control[1] - start[1])
    c = start[1] - y
    if abs(a) < 1e-9:
        roots = [-c / b] if b else []
    else:
        disc = b * b - 4 * a * c
        if disc < 0:
            return None
        roots = [(-b + sign * math.sqrt(disc)) / (2 * a) for sign in (1, -1)]
    for t in roots:
        if 0 <= t <= 1:
            return (1 - t) ** 2 * start[0] + 2 * (1 - t) * t * control[0] + t * t * end[0]
    return None


def _heading(meta: dict[str, Any], start: Hashable | None) -> str:
    game = meta.get("game", "game")
    if start is None:
        return str(game)
    radius = meta.get("radius")
    if radius is not None:
        return f"{game} around {start}, within {_count(radius, 'move')}"
    return f"{game} from {start}"


def _cut_note(drawn: int, states: int) -> str:
    return (
        f"The graph was cut: showing the {drawn:,} states nearest the start out of {states:,}. "
        "Raise --budget, draw a neighbourhood (--around POSITION --depth K) "
        "or a condensed view (--condensed grundy)."
    )


def draw_condensed(graph: nx.DiGraph, *, title: str | None = None) -> GraphPage:
    """Draw a condensed graph (`explorer.viz.graphs.condense`): one node per group, with counts.

    Grouped by Grundy value, the groups stand in a row by value, coloured like states; moves
    down in value arc below the row and moves up arc above it. Grouped by depth, the depths run
    top to bottom as boxes as wide as their share of the states. An arrow a -> b counts the
    moves between the groups (wider for more); arrows into the P-positions' group are red.

    Examples
    --------
    >>> from explorer import load_game
    >>> from explorer.viz.graphs import condensed_graph
    >>> nim = load_game("nim")
    >>> page = draw_condensed(condensed_graph(nim, nim.parse("2,3")))
    >>> page.nodes, page.edges, page.states
    (4, 12, 9)
    """
    meta = graph.graph
    by_value = meta.get("by", "grundy") == "grundy"
    ids = {key: i for i, key in enumerate(graph)}
    nodes, values = [], set()
    widest = max((count for _, count in graph.nodes(data="states")), default=1)
    for key, attrs in graph.nodes.items():
        count, zeros, inner = attrs["states"], attrs["p_positions"], attrs.get("inner_moves")
        if by_value:
            shade = key
            label = f"G {key}\n{_count(count, 'state')}"
            tooltip = f"Grundy value: {key}\noutcome: {_outcome_text('P' if key == 0 else 'N')}"
            x, y = 190.0 * key, 0.0
        else:
            shade = 0 if zeros == count else 1
            label = f"depth {key}: {_count(count, 'state')}, {zeros:,} P"
            tooltip = f"depth: {key} (moves from the start, fewest)\nP-positions: {zeros:,}"
            if inner is not None:
                tooltip += f"\nmoves within this depth: {inner:,}"
            x, y = 0.0, 38.0 * key
        values.add(shade)
        item: dict[str, Any] = {
            "id": ids[key],
            "group": _group(shade),
            "label": label,
            "tooltip": f"{tooltip}\nstates: {count:,}",
            "x": x,
            "y": y,
            "group_key": key,
            "states": count,
            "p_positions": zeros,
        }
        if not by_value:
            # a box as wide as its share of the states: the column draws the graph's profile
            width = max(12.0 * len(label) + 30.0, 900.0 * count / widest)
            item.update(
                shape="box",
                widthConstraint={"minimum": width, "maximum": width},
                font={"size": 20},
                margin=5,
            )
        nodes.append(item)
    edges = []
    biggest = max((m for _, _, m in graph.edges(data="moves")), default=1)
    for a, b, moves in graph.edges(data="moves"):
        # arcs grow with the distance they span, so arrows between far groups stay apart
        bend = min(0.6, 0.2 + 0.06 * (abs(b - a) - 1))
        edge: dict[str, Any] = {
            "from": ids[a],
            "to": ids[b],
            "title": f"{_count(moves, 'move')} from {a} to {b}",
            "width": 1 + 4 * (moves / biggest) ** 0.5,
            "smooth": {"enabled": True, "type": "curvedCW", "roundness": bend},
        }
        if by_value and b == 0:
            edge["color"] = {"color": P_COLOUR, "inherit": False}
        if not by_value:  # arrowheads would sit on the labels; the tooltip gives the direction
            edge["arrows"] = {"to": {"enabled": False}}
        edges.append(edge)
    states = int(meta.get("states", sum(n["states"] for n in nodes)))
    moves_total = _count(int(meta.get("moves", 0)), "move")
    heading = title or _heading(meta, meta.get("root")) + (
        ": states by Grundy value" if by_value else ": states by depth"
    )
    if by_value:
        summary = (
            f"{_count(states, 'state')} and {moves_total} in {_count(len(nodes), 'group')}. "
            "Moves down in value arc below the row, moves up arc above it: every group of "
            "value G > 0 reaches each lower value (the mex), none reaches its own."
        )
        legend = _legend(values, start=False)
    else:
        summary = (
            f"{_count(states, 'state')} and {moves_total} at {_count(len(nodes), 'depth')} "
            "(the fewest moves from the start); each box is as wide as its number of states."
        )
        legend = [
            _swatch(0, "a depth holding P-positions only"),
            _swatch(1, "a depth holding N-positions"),
            f'<span class="explorer-line" style="border-color:{MOVE_COLOUR}"></span>'
            "moves between two depths (wider: more)",
        ]
    note = str(meta.get("note", ""))
    page = _render(nodes, edges, heading=heading, lines=[summary], note=note, legend=legend)
    return GraphPage(page, len(nodes), len(edges), states, bool(note), note, condensed=True)


def _render(
    nodes: list[dict[str, Any]],
    edges: list[dict[str, Any]],
    *,
    heading: str,
    lines: list[str],
    note: str,
    legend: list[str],
) -> str:
    """The pyvis page with our heading, legend and script, made offline and locked down."""
    from pyvis.network import Network  # type: ignore[import-untyped]  # pulls in IPython: lazily

    net = Network(
        height="calc(100vh - 150px)", width="100%", directed=True, cdn_resources="in_line"
    )
    # filled directly: add_node/add_edge are quadratic
    net.nodes = nodes
    net.node_ids = [n["id"] for n in nodes]
    net.edges = edges
    net.options = OPTIONS
    page = _offline(net.generate_html())
    header = (
        '<header class="explorer-header">'
        f"<h1>{html.escape(heading)}</h1>"
        + "".join(f"<p>{html.escape(line)}</p>" for line in lines)
        + (f'<p class="explorer-note">{html.escape(note)}</p>' if note else "")
        + '<ul class="explorer-legend">'
        + "".join(f"<li>{i}</li>" for i in legend)
        + "</ul>"
        + "</header>"
    )
    page = _insert(page, "<body>", header, after=True)
    page = _insert(
        page, '<script type="text/javascript">', f"<script>{PAGE_SETUP}</script>", after=False
    )
    page = _insert(page, "</head>", f"<style>{PAGE_STYLE}</style>", after=False)
    head = (
        f"<title>{html.escape(heading)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
    )
    page = _insert(page, '<meta charset="utf-8">', head, after=True)
    return _lock_down(page)


def _insert(page: str, marker: str, text: str, *, after: bool) -> str:
    at = page.find(marker)
    if at < 0:
        raise RuntimeError(f"pyvis page has no {marker!r}: an unsupported pyvis version?")
    at += len(marker) if after else 0
    return page[:at] + text + page[at:]


# Bootstrap from a CDN (only pyvis' unused menus need it) and a commented-out script tag
_UNWANTED = re.compile(
    r'<link\b[^>]*\bhref="https?://[^"]*"[^>]*>'
    r'|<script\b[^>]*\bsrc="https?://[^"]*"[^>]*>\s*</script>'
    r"|<!--.*?-->",
    re.DOTALL,
)
_REMOTE_REFERENCE = re.compile(r"""\b(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)
_EMPTY_HEADING = re.compile(r"<center>\s*<h1>\s*</h1>\s*</center>")
_SCRIPT = re.compile(r"<script(?:\s[^>]*)?>(.*?)</script>", re.DOTALL)


def _offline(page: str) -> str:
    """Drop what pyvis links from CDNs, and check that no markup outside scripts still does."""

    def script_spans(text: str) -> list[tuple[int, int]]:
        return [m.span() for m in _SCRIPT.finditer(text)]

    spans = script_spans(page)

    def drop(match: re.Match[str]) -> str:
        inside = any(a < match.start() < b for a, b in spans)
        return match.group(0) if inside else ""

    page = _EMPTY_HEADING.sub("", _UNWANTED.sub(drop, page))
    spans = script_spans(page)
    for match in _REMOTE_REFERENCE.finditer(page):
        if not any(a < match.start() < b for a, b in spans):
            raise RuntimeError(
                f"the pyvis page still links {page[match.start() : match.start() + 80]!r}: "
                "an unsupported pyvis version?"
            )
    return page


def _lock_down(page: str) -> str:
    """Add a Content-Security-Policy allowing exactly the page's own scripts and nothing remote.

    Scripts are allowed by hash, so markup that slipped into the page could not run an inline
    handler, and ``default-src 'none'`` stops every request.
    """
    hashes = sorted(
        {
            "'sha256-"
            + base64.b64encode(hashlib.sha256(m.group(1).encode()).digest()).decode()
            + "'"
            for m in _SCRIPT.finditer(page)
        }
    )
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src {' '.join(hashes)}"
    )
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
    return _insert(page, '<meta charset="utf-8">', meta, after=True)
