"""What the pages draw from counts and graphs: bar charts, heat-map colours, and the
vis-network data of a neighbourhood."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import networkx as nx

from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.solver import outcome
from explorer.viz.page import OPTIONS, graph_drawing
from explorer.viz.palette import (
    HIGH_COLOUR,
    MOVE_COLOUR,
    P_COLOUR,
    UNSOLVED_COLOUR,
    grundy_colour,
)

if TYPE_CHECKING:
    from explorer.storage import GameStats

#: Grundy values charted one bar each; larger ones share the last bar.
CHART_VALUES = 32


def bars(
    counts: Mapping[Any, int], colour: Callable[[Any], str], label: Callable[[Any], str]
) -> list[dict[str, Any]]:
    """Rows of a horizontal bar chart, the longest bar full width.

    Examples
    --------
    >>> [(b["label"], b["width"]) for b in bars({"P": 2, "N": 4}, lambda _: "#000", str)]
    [('P', 150.0), ('N', 300.0)]
    """
    items = list(counts.items())
    if len(items) > CHART_VALUES:
        rest = sum(n for _, n in items[CHART_VALUES - 1 :])
        items = [*items[: CHART_VALUES - 1], (None, rest)]
    top = max((n for _, n in items), default=1) or 1
    total = sum(n for _, n in items) or 1
    return [
        {
            "label": "more" if key is None else label(key),
            "count": n,
            "width": round(300 * n / top, 1),
            "share": n / total,
            "colour": HIGH_COLOUR if key is None else colour(key),
        }
        for key, n in items
    ]


def heat_colour(value: int | None, top: int) -> str:
    """A heat-map colour: P-positions in the P colour, others from light to dark blue-green."""
    if value is None:
        return UNSOLVED_COLOUR
    if outcome(value) == "P":
        return P_COLOUR
    stops = [(0xFF, 0xF7, 0xBC), (0x7F, 0xCD, 0xBB), (0x2C, 0x7F, 0xB8), (0x25, 0x34, 0x94)]
    t = (value - 1) / max(1, top - 1) * (len(stops) - 1)
    i = min(int(t), len(stops) - 2)
    f = t - i
    r, g, b = (round(a + (c - a) * f) for a, c in zip(stops[i], stops[i + 1], strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def vis_graph(graph: nx.DiGraph, url: Callable[[str], str]) -> dict[str, Any]:
    """The vis-network data of a neighbourhood, drawn as `explorer viz` draws it, with links.

    Nodes, edges, options and legend are those of `explorer.viz.page.graph_drawing`; each node
    also carries the `url` of its position's page.
    """
    drawing = graph_drawing(graph)
    nodes = [dict(node, url=url(node["position"])) for node in drawing.nodes]
    return {
        "nodes": nodes,
        "edges": drawing.edges,
        "options": OPTIONS,
        "legend": [item._asdict() for item in drawing.legend],
    }


def game_charts(stats: GameStats | None, convention: Convention = NORMAL) -> dict[str, Any]:
    """The bars of a game's counts by outcome and by Grundy value (G⁻ in a misère build), and
    where it starts."""
    if stats is None:
        return {"counting": True, "outcomes": [], "values": [], "root": None, "max_grundy": None}
    value = "G⁻" if convention == MISERE else "G"
    return {
        "counting": False,
        "outcomes": bars(_by_outcome(stats), _outcome_colour, str),
        "values": bars(stats.by_grundy, grundy_colour, lambda v: f"{value} {v}"),
        "root": _last_root(stats),
        "max_grundy": stats.max_grundy,
    }


def _by_outcome(stats: GameStats) -> dict[str, int]:
    """Counts by outcome, P first."""
    order = {"P": 0, "N": 1, "D": 2}
    return dict(sorted(stats.by_outcome.items(), key=lambda item: order.get(item[0], 3)))


def _outcome_colour(outcome: str) -> str:
    return P_COLOUR if outcome == "P" else grundy_colour(1) if outcome == "N" else MOVE_COLOUR


def _last_root(stats: GameStats) -> str | None:
    roots = [b.position for b in stats.builds if b.position is not None]
    return str(roots[-1]) if roots else None
