"""The interactive HTML page of a game graph: vis-network, inlined, from a template, offline.

Positions are data: they reach the page only as JSON (`explorer.viz.templating.script_json`) or
as autoescaped text, and a Content-Security-Policy lets no request leave the file and no inline
handler run. The page uses the copy of vis-network that pyvis ships; pyvis itself is not imported.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import networkx as nx

from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.solver import outcome
from explorer.viz import LARGE_BUDGET, templating
from explorer.viz.curves import bends, short_label
from explorer.viz.graphs import drawing_layers, layout
from explorer.viz.output import write_text
from explorer.viz.palette import (
    DRAW_COLOUR,
    INFINITE_COLOUR,
    MISERE_N_COLOUR,
    MOVE_COLOUR,
    N_BORDER,
    N_COLOURS,
    P_BORDER,
    P_COLOUR,
    P_HOVER,
    P_TEXT,
    START_BORDER,
    TEXT,
    UNSOLVED_COLOUR,
    grundy_colour,
    outcome_text,
)

if TYPE_CHECKING:
    from explorer.viz.notebook import InteractivePage
    from explorer.viz.parts import PartsView

#: Height of a layer on the page, in vis-network units.
ROW = 110.0
#: Pages with at most this many moves bend the moves that would cross a state.
CURVED_EDGES = 5_000
#: What the page says one can do with it.
HINT = "Hover a state or a move for its values; drag to pan, scroll to zoom."


def _group_style(value: int | None) -> dict[str, Any]:
    """How states of one Grundy value look (a vis-network group, shared by all its nodes)."""
    if value is not None and outcome(value) == "P":
        hover = {"background": P_HOVER, "border": P_BORDER}
        return {
            "shape": "box",
            "borderWidth": 3,
            "font": {"color": P_TEXT, "bold": True},
            "color": {
                "background": P_COLOUR,
                "border": P_BORDER,
                "highlight": hover,
                "hover": hover,
            },
        }
    fill = UNSOLVED_COLOUR if value is None else grundy_colour(value)
    hover = {"background": fill, "border": P_BORDER}
    style = {
        "shape": "ellipse",
        "borderWidth": 1,
        "font": {"color": TEXT},
        "color": {"background": fill, "border": N_BORDER, "highlight": hover, "hover": hover},
    }
    if value is None:
        style["shapeProperties"] = {"borderDashes": [4, 3]}
    return style


def _group(value: int | None) -> str:
    if value is None:
        return "unsolved"
    if value > len(N_COLOURS):
        return "high"
    return "P" if outcome(value) == "P" else f"G{value}"


def _plain_style(fill: str) -> dict[str, Any]:
    hover = {"background": fill, "border": P_BORDER}
    return {
        "shape": "ellipse",
        "borderWidth": 1,
        "font": {"color": TEXT},
        "color": {"background": fill, "border": N_BORDER, "highlight": hover, "hover": hover},
    }


GROUPS = {_group(v): _group_style(v) for v in [None, *range(len(N_COLOURS) + 2)]}
#: Games with cycles (draws, infinite values) and misère play have groups of their own.
GROUPS.update(
    D=_plain_style(DRAW_COLOUR),
    infinite=_plain_style(INFINITE_COLOUR),
    misereN=_plain_style(MISERE_N_COLOUR),
)


def _node_group(attrs: Mapping[str, Any], convention: Convention) -> str:
    """The group of a state: by outcome in misère play and for draws, ∞ apart, else by value."""
    outcome = attrs.get("outcome")
    if convention == MISERE:
        return {"P": "P", "N": "misereN", "D": "D"}.get(outcome or "", "unsolved")
    if outcome == "D":
        return "D"
    if attrs.get("escapes") is not None:
        return "infinite"
    return _group(attrs.get("grundy"))


def _value_text(attrs: Mapping[str, Any], convention: Convention) -> str:
    """The value in a state's label: ``G 3``, ``G ∞(0)``, ``G ?``; ``misère P`` in misère play."""
    if convention == MISERE:
        return f"misère {attrs.get('outcome') or '?'}"
    escapes = attrs.get("escapes")
    if escapes is not None:
        return "G " + ("∞(" + ",".join(map(str, escapes)) + ")" if escapes else "∞")
    value = attrs.get("grundy")
    return f"G {'?' if value is None else value}"


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


class LegendItem(NamedTuple):
    """One entry of a legend: a mark, its colour, and what it stands for."""

    #: ``"swatch"`` (an N-position's ellipse), ``"box"`` (a P-position), ``"line"`` (a move) or
    #: ``"start"`` (the border of the start)
    mark: str
    colour: str
    text: str
    dashed: bool = False
    thick: bool = False


@dataclass(frozen=True)
class Drawing:
    """What a page shows, as data: its heading, lines, note, legend, and vis-network's nodes and
    edges (with ``x``, ``y``); the page, the notebook view and the web app are made from it."""

    heading: str
    lines: list[str]
    note: str
    legend: list[LegendItem]
    nodes: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    parts: PartsView | None = None  # a position on graphs or boards: its parts drawn


@dataclass(frozen=True)
class GraphPage:
    """A drawn page: its HTML and what it shows.

    In a notebook it shows as a light, static picture (`explorer.viz.notebook`);
    ``page.interactive()`` shows the page itself, ``page.save("game.html")`` writes it.

    Examples
    --------
    >>> from explorer import load_game
    >>> from explorer.viz import draw_game
    >>> nim = load_game("nim")
    >>> draw_game(nim, nim.parse("1,2"))  # doctest: +ELLIPSIS
    <GraphPage 'nim from 1,2': 5 states and 7 moves drawn; ... kB of HTML>
    """

    html: str = field(repr=False)
    nodes: int
    edges: int
    states: int
    cut: bool
    note: str = ""
    #: Whether nodes are groups of states (`draw_condensed`) rather than states.
    condensed: bool = False
    drawing: Drawing | None = field(default=None, repr=False, compare=False)

    def save(self, path: str | Path) -> Path:
        """Write the page to `path` (an ``.html`` file) and return the path."""
        return write_text(path, self.html, suffixes=(".html", ".htm"))

    def __repr__(self) -> str:
        """One line, never the page: what is drawn and how big the HTML is."""
        if self.condensed:
            drawn = f"{_count(self.states, 'state')} in {_count(self.nodes, 'group')}"
        else:
            drawn = f"{_count(self.nodes, 'state')} and {_count(self.edges, 'move')} drawn"
            drawn += f" of {self.states:,}" if self.cut else ""
        heading = "" if self.drawing is None else f" {self.drawing.heading!r}:"
        return f"<GraphPage{heading} {drawn}; {len(self.html) / 1e3:,.0f} kB of HTML>"

    def _repr_html_(self) -> str:
        from explorer.viz.notebook import page_view

        return page_view(self)

    def interactive(self, *, standalone: bool = False) -> InteractivePage:
        """The page itself for a notebook, in a sandboxed frame. The first one a kernel shows
        carries the drawing library, which the later ones share (their outputs hold only their
        own drawing); a `standalone` one holds everything itself (as heavy as the page)."""
        from explorer.viz.notebook import InteractivePage

        return InteractivePage(self.html, standalone)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def _swatch(value: int | None, text: str) -> LegendItem:
    style = GROUPS[_group(value)]
    mark = "box" if style["shape"] == "box" else "swatch"
    return LegendItem(mark, style["color"]["background"], text, dashed=value is None)


def _legend(
    values: set[int | None],
    *,
    start: bool,
    groups: Collection[str] = (),
    convention: Convention = NORMAL,
) -> list[LegendItem]:
    if convention == MISERE:
        return _misere_legend(groups, start=start)
    known = {v for v in values if v is not None}
    items = []
    if 0 in known:
        items.append(_swatch(0, "P-position, Grundy value 0: the player to move loses"))
    items += [_swatch(v, f"N-position, G = {v}") for v in sorted(known) if 0 < v <= len(N_COLOURS)]
    if any(v > len(N_COLOURS) for v in known):
        items.append(
            _swatch(len(N_COLOURS) + 1, f"N-position, G > {len(N_COLOURS)} (value in the label)")
        )
    if "infinite" in groups:
        items.append(
            LegendItem("swatch", INFINITE_COLOUR, "N-position of infinite value ∞(K), 0 in K")
        )
    if "D" in groups:
        items.append(LegendItem("swatch", DRAW_COLOUR, "D-position, ∞(K) with 0 not in K: a draw"))
    if "unsolved" in groups or (not groups and None in values):
        items.append(_swatch(None, "not solved yet (the stored build stopped)"))
    items.append(LegendItem("line", P_COLOUR, "winning move (into a P-position)", thick=True))
    items.append(LegendItem("line", MOVE_COLOUR, "other move"))
    if start:
        items.append(LegendItem("start", START_BORDER, "where the drawing starts"))
    return items


def _misere_legend(groups: Collection[str], *, start: bool) -> list[LegendItem]:
    items = []
    if "P" in groups:
        items.append(_swatch(0, "misère P-position: the player to move loses"))
    if "misereN" in groups:
        items.append(LegendItem("swatch", MISERE_N_COLOUR, "misère N-position"))
    if "D" in groups:
        items.append(LegendItem("swatch", DRAW_COLOUR, "D-position: a draw"))
    items.append(
        LegendItem("line", P_COLOUR, "winning move (into a misère P-position)", thick=True)
    )
    items.append(LegendItem("line", MOVE_COLOUR, "other move"))
    if start:
        items.append(LegendItem("start", START_BORDER, "where the drawing starts"))
    return items


def _tooltips() -> Any:
    """The macros of ``tooltips.txt``: the text of each state's, group's and move's tooltip."""
    return templating.environment().get_template("tooltips.txt").module


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
    drawing = graph_drawing(graph, title=title)
    return GraphPage(
        _render(drawing),
        len(drawing.nodes),
        len(drawing.edges),
        int(meta.get("states", graph.number_of_nodes())),
        bool(meta.get("cut")),
        drawing.note,
        False,
        drawing,
    )


#: Fewest states a row of the drawing holds before a wider layer is folded onto more rows.
FOLD_AT = 8


def folded_rows(graph: nx.DiGraph, level: Mapping[Hashable, int]) -> dict[Hashable, int]:
    """The row each state is drawn on: its layer's, a layer wider than one and a half times
    the square root of the states (`FOLD_AT` at least) folded onto as many rows as it needs, in the
    graph's order, so that a page is about as wide as it is tall.

    Examples
    --------
    >>> import networkx as nx
    >>> star = nx.DiGraph([(0, k) for k in range(1, 31)])
    >>> rows = folded_rows(star, {n: min(n, 1) for n in star})
    >>> rows[0], rows[1], rows[9], rows[10], rows[30]  # 30 states on rows of 9
    (0, 1, 1, 2, 4)
    """
    wrap = max(FOLD_AT, math.ceil(1.5 * math.sqrt(graph.number_of_nodes())))
    layers: dict[int, list[Hashable]] = {}
    for node in graph:
        layers.setdefault(level[node], []).append(node)
    row, first = {}, 0
    for k in sorted(layers):
        nodes = layers[k]
        for i, node in enumerate(nodes):
            row[node] = first + i // wrap
        first += -(-len(nodes) // wrap)
    return row


def graph_drawing(graph: nx.DiGraph, *, title: str | None = None) -> Drawing:
    """What `draw_graph` shows, as data: nodes and edges styled and laid out, and the words.

    The page is made from it, and so is each position page of `explorer serve`.

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.DiGraph([("1", "0")])
    >>> g.add_nodes_from([("1", dict(grundy=1, outcome="N", remoteness=1)),
    ...                   ("0", dict(grundy=0, outcome="P", remoteness=0))])
    >>> drawing = graph_drawing(g)
    >>> [(n["position"], n["group"], n["y"]) for n in drawing.nodes]
    [('1', 'G1', 0.0), ('0', 'P', 110.0)]
    """
    meta = graph.graph
    start = meta.get("centre", meta.get("root"))
    convention = MISERE if meta.get("convention") == MISERE else NORMAL
    level = drawing_layers(graph, start)
    row = folded_rows(graph, level)
    widest = max((len(short_label(str(n))) for n in graph), default=1)
    step = max(90.0, 8.0 * widest + 30.0)
    where = layout(graph, row, dx=step, dy=ROW)
    ids = {node: i for i, node in enumerate(graph)}
    values: set[int | None] = set()
    groups: set[str] = set()
    succ = graph._succ
    tooltips = _tooltips()
    nodes = []
    for node, attrs in graph.nodes.items():
        text = str(node)
        value = attrs.get("grundy")
        group = _node_group(attrs, convention)
        values.add(value)
        groups.add(group)
        x, y = where[node]
        shown = _value_text(attrs, convention)
        item = {
            "id": ids[node],
            "group": group,
            "position": text,
            "grundy": value,
            "outcome": attrs.get("outcome"),
            "x": x,
            "y": y,
            "level": level[node],
            "label": f"{short_label(text)}\n{shown}",
            "tooltip": tooltips.state(
                text,
                None if group == "unsolved" else shown.removeprefix("G "),
                outcome_text(attrs.get("outcome")),
                attrs.get("remoteness"),
                attrs.get("moves"),
                len(succ[node]),
            ),
        }
        if node == start:
            colour = GROUPS[item["group"]]["color"]
            item.update(borderWidth=5, color=dict(colour, border=START_BORDER))
        nodes.append(item)
    edges = _drawn_edges(graph, ids, row, where, tooltips)
    states = int(meta.get("states", graph.number_of_nodes()))
    heading = title or _heading(meta, start)
    p_positions = sum(1 for n in nodes if n["outcome"] == "P")
    summary = (
        f"{_count(len(nodes), 'state')} and {_count(len(edges), 'move')} drawn"
        f" ({_count(p_positions, 'P-position')}), {_rows_text(graph, level, row)}"
        + (" Misère play: the player who moves last loses." if convention == MISERE else "")
    )
    note = _cut_note(len(nodes), states, meta) if meta.get("cut") else ""
    legend = _legend(values, start=start in ids, groups=groups, convention=convention)
    return Drawing(heading, [summary], note, legend, nodes, edges, meta.get("parts"))


def _drawn_edges(
    graph: nx.DiGraph,
    ids: dict[Hashable, int],
    row: Mapping[Hashable, int],
    where: Mapping[Hashable, tuple[float, float]],
    tooltips: Any,
) -> list[dict[str, Any]]:
    """The moves as the page draws them: a winning move (to a P-position) thick, a move that
    would pass through a state of a row it skips bent."""
    # a straight move through a state of a row it skips would seem to end there: bend it
    # (on smaller pages only: per-edge options slow the first drawing of big ones)
    bent = bends(graph, row, where, row=ROW) if graph.number_of_edges() <= CURVED_EDGES else {}
    edges = []
    for a, b in graph.edges:
        edge: dict[str, Any] = {"from": ids[a], "to": ids[b]}
        if (a, b) in bent:
            kind, roundness = bent[a, b]
            edge["smooth"] = {"enabled": True, "type": kind, "roundness": roundness}
        if graph.nodes[b].get("outcome") == "P":
            edge.update(
                color={"color": P_COLOUR, "inherit": False},
                width=3.5,
                title=tooltips.winning_move(a, b),
            )
        edges.append(edge)
    return edges


def _rows_text(
    graph: nx.DiGraph, level: Mapping[Hashable, int], row: Mapping[Hashable, int]
) -> str:
    """What the rows of a drawing are, in words."""
    if not _acyclic(level, graph):
        return "rows by fewest moves from the start (the graph has cycles: some moves go up)."
    if len(set(row.values())) > len(set(level.values())):
        return "one row per layer (a wide layer folded onto several): every move goes down."
    return "one row per layer: every move goes down."


def _acyclic(level: Mapping[Hashable, int], graph: nx.DiGraph) -> bool:
    return all(level[a] < level[b] for a, b in graph.edges)


def _heading(meta: dict[str, Any], start: Hashable | None) -> str:
    game = meta.get("game", "game")
    if start is None:
        return str(game)
    radius = meta.get("radius")
    if radius is not None:
        return f"{game} around {start}, within {_count(radius, 'move')}"
    return f"{game} from {start}"


#: How a cut page says to draw more, in the words of the interface that drew it.
CUT_HINTS = {
    "python": (
        "Draw more with draw_game(..., budget=N) ({large:,} draw in a second or two), a "
        'neighbourhood (around=POSITION, depth=K) or a condensed view (condensed="grundy")'
    ),
    "cli": (
        "Draw more with --budget N ({large:,} draw in a second or two), a neighbourhood "
        "(--around POSITION --depth K) or a condensed view (--condensed grundy)"
    ),
}


def _cut_note(drawn: int, states: int, meta: Mapping[str, Any]) -> str:
    """What a cut drawing shows and leaves out, and how to draw more."""
    within = meta.get("whole_within", -1)
    shown = (
        f"every state within {_count(within, 'move')} of the start, then the P-positions and "
        "winning moves first"
        if within >= 0
        else "the P-positions and winning moves nearest the start first"
    )
    hint = CUT_HINTS[meta.get("wording", "python")].format(large=LARGE_BUDGET)
    left = states - drawn
    p_left = meta.get("p_left_out", 0)
    big = "A big graph" if meta.get("default_budget") else "The graph was cut"
    if meta.get("states_at_least"):  # explored only as far as drawn, valued state by state
        return (
            f"{big}: showing {drawn:,} of more than {states:,} states ({shown}); the rest was "
            f"not explored, and each state drawn was valued alone (its parts or its heap's "
            f"value sequence), so remoteness is unknown. {hint}."
        )
    some = "at least " if meta.get("p_left_out_at_least") else ""
    return (
        f"{big}: showing {drawn:,} of {states:,} states ({shown}); left out: "
        f"{_count(left, 'state')}, {some}{_count(p_left, 'P-position')} among them. {hint}."
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
    tooltips = _tooltips()
    nodes, values = _condensed_nodes(graph, ids, tooltips, by_value=by_value)
    edges = _condensed_edges(graph, ids, tooltips, by_value=by_value)
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
            LegendItem("line", MOVE_COLOUR, "moves between two depths (wider: more)"),
        ]
    note = str(meta.get("note", ""))
    drawing = Drawing(heading, [summary], note, legend, nodes, edges)
    return GraphPage(
        _render(drawing), len(nodes), len(edges), states, bool(note), note, True, drawing
    )


def _condensed_nodes(
    graph: nx.DiGraph, ids: dict[Hashable, int], tooltips: Any, *, by_value: bool
) -> tuple[list[dict[str, Any]], set[int | None]]:
    """The groups of a condensed graph as the page draws them (in a row by value, or as boxes
    down by depth), and the shades they take."""
    nodes: list[dict[str, Any]] = []
    values: set[int | None] = set()
    widest = max((count for _, count in graph.nodes(data="states")), default=1)
    for key, attrs in graph.nodes.items():
        count, zeros, inner = attrs["states"], attrs["p_positions"], attrs.get("inner_moves")
        if by_value:
            shade = key
            label = f"G {key}\n{_count(count, 'state')}"
            tooltip = tooltips.value_group(key, outcome_text(outcome(key)), count)
            x, y = 190.0 * key, 0.0
        else:
            shade = 0 if zeros == count else 1
            label = f"depth {key}: {_count(count, 'state')}, {zeros:,} P"
            tooltip = tooltips.depth_group(key, zeros, inner, count)
            x, y = 0.0, 38.0 * key
        values.add(shade)
        item: dict[str, Any] = {
            "id": ids[key],
            "group": _group(shade),
            "label": label,
            "tooltip": tooltip,
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
    return nodes, values


def _condensed_edges(
    graph: nx.DiGraph, ids: dict[Hashable, int], tooltips: Any, *, by_value: bool
) -> list[dict[str, Any]]:
    """The arrows between a condensed graph's groups, wider for more moves."""
    edges = []
    biggest = max((m for _, _, m in graph.edges(data="moves")), default=1)
    for a, b, moves in graph.edges(data="moves"):
        # arcs grow with the distance they span, so arrows between far groups stay apart
        bend = min(0.6, 0.2 + 0.06 * (abs(b - a) - 1))
        edge: dict[str, Any] = {
            "from": ids[a],
            "to": ids[b],
            "title": tooltips.moves_between(moves, a, b),
            "width": 1 + 4 * (moves / biggest) ** 0.5,
            "smooth": {"enabled": True, "type": "curvedCW", "roundness": bend},
        }
        if by_value and outcome(b) == "P":
            edge["color"] = {"color": P_COLOUR, "inherit": False}
        if not by_value:  # arrowheads would sit on the labels; the tooltip gives the direction
            edge["arrows"] = {"to": {"enabled": False}}
        edges.append(edge)
    return edges


def _render(drawing: Drawing) -> str:
    """The page: the header and legend from the template, then vis-network, locked down.

    Four scripts, each allowed by its hash: vis-network, the set-up (``setup.js``), the data
    (nodes, edges and options as JSON) and the drawing (``draw.js``).
    """
    data = (
        f"var nodes = new vis.DataSet({templating.script_json(drawing.nodes)});\n"
        f"var edges = new vis.DataSet({templating.script_json(drawing.edges)});\n"
        f"var options = {templating.script_json(OPTIONS)};\n"
    )
    head = [templating.vis_network(), templating.asset("setup.js")]
    body = [data, templating.asset("draw.js")]
    return templating.render(
        "page.html",
        policy=templating.trusted(templating.content_security_policy(head + body)),
        style=templating.asset("header.css") + templating.asset("page.css"),
        head_scripts=[templating.trusted(script) for script in head],
        body_scripts=[templating.trusted(script) for script in body],
        heading=drawing.heading,
        lines=[*drawing.lines, HINT],
        note=drawing.note,
        legend=drawing.legend,
        parts=drawing.parts,
    )
