"""Where a state's box is and how a move curves around the states of the rows it skips: the
size of vis-network's label boxes, and its quadratic Bézier edges (the page and the notebook's
picture draw the same curves).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Hashable, Mapping

import networkx as nx

#: About half the height of a state's two-line label box.
NODE_HALF_HEIGHT = 28.0
#: Longest position text written inside a node; the tooltip has the whole text.
LABEL_CHARS = 24
Point = tuple[float, float]


def short_label(text: str) -> str:
    """A position's text as written inside its state's box (`LABEL_CHARS` at most).

    Examples
    --------
    >>> short_label("1,2,3,4,5,6,7,8,9,10,11,12,13")
    '1,2,3,4,5,6,7,8,9,10,11…'
    """
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def bends(
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
        rows.setdefault(level[node], []).append((x, half_width(str(node))))
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
                x = bezier_x(start, control, end, between * row + dy)
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
        if bottom - top < 2 or clear(start, midpoint(start, end), end, top, bottom):
            continue
        for roundness in (0.15, 0.3, 0.45):
            for kind in ("curvedCW", "curvedCCW"):
                if clear(start, control_point(start, end, kind, roundness), end, top, bottom):
                    bends[a, b] = (kind, roundness)
                    break
            if (a, b) in bends:
                break
    return bends


def half_width(text: str) -> float:
    """About half the width vis-network gives a state's label box (measured in Chromium)."""
    return max(26.0, 3.8 * len(short_label(text)) + 12.0)


def midpoint(start: Point, end: Point) -> Point:
    return ((start[0] + end[0]) / 2, (start[1] + end[1]) / 2)


def control_point(start: Point, end: Point, kind: str, roundness: float) -> Point:
    """The control point of vis-network 9's quadratic Bézier for a curvedCW/curvedCCW edge
    (the notebook's picture draws the same curves)."""
    across, up = end[0] - start[0], start[1] - end[1]
    turn = roundness if kind == "curvedCW" else -roundness
    angle = math.atan2(up, across) + (0.5 * turn + 0.5) * math.pi
    reach = (0.5 * roundness + 0.5) * math.hypot(across, up)
    return (start[0] + reach * math.sin(angle), start[1] + reach * math.cos(angle))


def bezier_x(start: Point, control: Point, end: Point, y: float) -> float | None:
    """Where the curve from `start` to `end` crosses height `y` (None if it does not).

    Examples
    --------
    >>> bezier_x((0.0, 0.0), (50.0, 110.0), (0.0, 220.0), 110.0)  # half way to the control
    25.0
    >>> bezier_x((0.0, 0.0), (50.0, 110.0), (0.0, 220.0), 300.0) is None
    True
    """
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
