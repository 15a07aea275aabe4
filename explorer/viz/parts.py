"""The parts of a position on a graph or a board, each drawn as its graph or its board (an SVG
picture, no script) beside its Grundy value, and their XOR: on the graph page and the web app.

A game offers pictures by `explorer.games.base.Game.picture`; this module lays them out
(graphs by a seeded spring layout, Hackenbush graphs in layers above the ground, boards cell by
cell) and `parts.html` draws them, autoescaped.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from explorer.analysis.parts import PART_TABLE, PartTable
from explorer.games.base import Game, Position
from explorer.games.pictures import BoardPicture, GraphPicture, Picture, cell_name

#: Most parts a page draws (the others are counted).
MAX_DRAWN_PARTS = 24
#: Most vertices or cells a picture draws; a larger part is shown as text.
MAX_PICTURE_SIZE = 400
#: Margin around a picture, in pixels.
MARGIN = 12.0
#: Radius of a vertex, in pixels.
VERTEX = 5.0
#: How far apart two parallel edges bend, in pixels.
BEND = 12.0

#: A part's value, or None when it is not known (the page says so).
ValueOf = Callable[[Game[Any], Position], int | None]


@dataclass(frozen=True)
class PartDrawing:
    """One part: its text, game and value, and its picture as SVG shapes (in pixels) or none.

    ``paths`` are the edges (SVG path data), ``dots`` the vertices (``x``, ``y``, ``name``),
    ``cells`` the board's cells (``x``, ``y``, ``size``, ``empty``), ``ground`` the ground
    line (``x1``, ``x2``, ``y``) of a Hackenbush part.
    """

    game: str
    text: str
    value: int | None
    width: float = 0.0
    height: float = 0.0
    kind: str = "text"
    paths: list[str] = field(default_factory=list)
    dots: list[dict[str, Any]] = field(default_factory=list)
    cells: list[dict[str, Any]] = field(default_factory=list)
    ground: dict[str, float] | None = None
    #: The column letters and row numbers of a board or a grid (``x``, ``y``, ``text``), as
    #: moves name cells (``b2``).
    labels: list[dict[str, Any]] = field(default_factory=list)


def _grid_labels(
    centre: tuple[float, float], step: float, box: tuple[int, int, int, int], gap: float
) -> list[dict[str, Any]]:
    """Column letters above and row numbers left of a grid, `gap` from the centres of its
    outer cells: the cell (row, col) of `box` (top, left, bottom, right) is centred at
    `centre` + (col - left, row - top) * `step`."""
    x0, y0 = centre
    top, left, bottom, right = box
    labels = [
        {"x": x0 + (c - left) * step, "y": y0 - gap, "text": cell_name(0, c)[:-1]}
        for c in range(left, right + 1)
    ]
    labels += [
        {"x": x0 - gap, "y": y0 + (r - top) * step, "text": str(r + 1)}
        for r in range(top, bottom + 1)
    ]
    return labels


@dataclass(frozen=True)
class PartsView:
    """The parts of a position with their values and XOR (None when a value is unknown)."""

    parts: list[PartDrawing]
    total: int | None
    note: str
    #: Parts not drawn (beyond `MAX_DRAWN_PARTS`).
    more: int = 0

    @property
    def xor_text(self) -> str:
        """``1 XOR 0 XOR 3 = 2``, with ``?`` for a value not known; of one part, its value."""
        total = "?" if self.total is None else str(self.total)
        if len(self.parts) + self.more == 1:
            return total
        values = " XOR ".join("?" if p.value is None else str(p.value) for p in self.parts)
        more = f" XOR ({self.more:,} more parts)" if self.more else ""
        return f"{values}{more} = {total}"


def known_values(table: PartTable, most: int | None = None) -> ValueOf:
    """Part values from `table` (a database's, say), the missing ones computed into it; with
    `most`, only for parts whose tier (vertices, edges or cells) is at most `most`, and parts
    without labels only when their graph has at most `most` states, else None (unknown).

    Examples
    --------
    >>> from explorer import load_game
    >>> cram = load_game("cram")
    >>> value_of = known_values(PartTable(), most=4)
    >>> value_of(cram, cram.parse("2x2")), value_of(cram, cram.parse("3x3"))
    (0, None)
    """
    from explorer.analysis.parts import part_value
    from explorer.analysis.solving import grundy_value
    from explorer.errors import GraphTooLargeError

    def value_of(game: Game[Any], position: Position) -> int | None:
        label = game.part_label(position)
        if label is not None:
            known = label in table.family(game.part_family())
            if known or most is None or (game.tier(position) or 0) <= most:
                return part_value(game, position, table)  # a stored value checked first
            return None
        try:
            value = grundy_value(game, position, **({} if most is None else {"max_states": most}))
        except GraphTooLargeError:
            return None
        return value if isinstance(value, int) else None

    return value_of


def parts_view(
    game: Game[Any], position: Position, *, value_of: ValueOf | None = None
) -> PartsView | None:
    """The parts of `position`, each with its picture and value, when some part of it has a
    picture (a game on a graph or a board, alone or in a sum); else None.

    `value_of` gives a part's Grundy value, or None when it cannot tell (the web app, which
    reads stored values and values only small parts itself); by default each part is solved.

    Examples
    --------
    >>> from explorer import load_game
    >>> kayles = load_game("nodekayles")
    >>> view = parts_view(kayles, kayles.parse("P3+C4"))
    >>> [(p.kind, p.text, p.value, len(p.dots)) for p in view.parts], view.xor_text
    ([('graph', '0-1,1-2', 2, 3), ('graph', '3-4,3-6,4-5,5-6', 0, 4)], '2 XOR 0 = 2')
    >>> parts_view(load_game("nim"), (3, 4)) is None
    True
    """
    value_of = value_of or known_values(PART_TABLE)
    split = game.decompose(position)
    parts = [(game, position)] if split is None else [(p.game, p.position) for p in split.parts]
    pictures = [part_game.picture(part) for part_game, part in parts]
    if all(picture is None for picture in pictures):
        return None
    drawn: list[PartDrawing] = []
    total: int | None = 0
    for (part_game, part), picture in zip(parts, pictures, strict=True):
        value = value_of(part_game, part)
        total = None if value is None or total is None else total ^ value
        if len(drawn) < MAX_DRAWN_PARTS:
            drawn.append(_drawing(part_game, part, picture, value))
    if split is None:
        note = "one part"
    else:
        note = split.note if split.exact else f"{split.note} (reduced values)"
    return PartsView(drawn, total, note, more=len(parts) - len(drawn))


def position_drawing(
    game: Game[Any], position: Position, start: Position | None = None
) -> PartDrawing | None:
    """The whole of `position` as its board or graph (not split into parts, without a value),
    or None when the game has no picture of it; with `start`, a graph keeps the places its
    vertices had on the start's grid, so that the drawing stays put as play goes on (the
    play page).

    Examples
    --------
    >>> from explorer import load_game
    >>> kayles = load_game("nodekayles")
    >>> now = position_drawing(kayles, kayles.parse("0,2,6,8"), kayles.parse("3x3"))
    >>> [(d["x"], d["y"]) for d in now.dots], now.width
    ([(27.0, 27.0), (107.0, 27.0), (27.0, 107.0), (107.0, 107.0)], 134.0)
    >>> position_drawing(load_game("nim"), (3, 4)) is None
    True
    """
    picture = game.picture(position)
    before = None if start is None else game.picture(start)
    if (
        isinstance(picture, GraphPicture)
        and isinstance(before, GraphPicture)
        and before.places is not None
    ):
        place = dict(zip(before.vertices, before.places, strict=True))
        if all(name in place for name in picture.vertices):
            places = tuple(place[name] for name in picture.vertices)
            drawn = replace(picture, places=places)
            return _graph_drawing(
                game.spec, game.format(position), None, drawn, _box(before.places)
            )
    if picture is None:
        return None
    return _drawing(game, position, picture, None)


def _drawing(
    game: Game[Any], position: Position, picture: Picture | None, value: int | None
) -> PartDrawing:
    """A part's drawing from its picture (as text alone when it has none or is too large)."""
    text = game.format(position)
    if isinstance(picture, BoardPicture) and picture.rows * picture.cols <= MAX_PICTURE_SIZE:
        return _board_drawing(game.spec, text, value, picture)
    if isinstance(picture, GraphPicture) and len(picture.vertices) <= MAX_PICTURE_SIZE:
        return _graph_drawing(game.spec, text, value, picture)
    return PartDrawing(game.spec, text, value)


def _board_drawing(spec: str, text: str, value: int | None, board: BoardPicture) -> PartDrawing:
    size = max(8.0, min(24.0, 240.0 / max(board.rows, board.cols, 1)))
    cells = [
        {
            "x": MARGIN + c * size,
            "y": MARGIN + r * size,
            "size": size,
            "empty": (r, c) in board.empty,
        }
        for r in range(board.rows)
        for c in range(board.cols)
    ]
    box = (0, 0, board.rows - 1, board.cols - 1)
    centre = (MARGIN + size / 2, MARGIN + size / 2)
    return PartDrawing(
        spec,
        text,
        value,
        width=2 * MARGIN + board.cols * size,
        height=2 * MARGIN + board.rows * size,
        kind="board",
        cells=cells,
        labels=_grid_labels(centre, size, box, size / 2 + 6) if size >= LABELLED_CELL else [],
    )


def _spot(vertices: int) -> float:
    """The side of the square a graph of this many vertices is drawn in, in pixels."""
    return max(60.0, min(320.0, 48.0 * math.sqrt(vertices)))


#: Distance between neighbouring cells of a graph drawn on its grid, in pixels.
GRID_STEP = 40.0
#: Room for the column letters and row numbers of a grid, in pixels.
LABEL_ROOM = 10.0
#: Smallest board cell, in pixels, whose row and column are labelled.
LABELLED_CELL = 14.0


#: The rows and columns a grid drawing spans: (top, left, bottom, right), inclusive.
Box = tuple[int, int, int, int]


def _box(places: tuple[tuple[int, int], ...]) -> Box:
    """The rows and columns `places` span (one cell for none)."""
    rows = [r for r, _ in places] or [0]
    cols = [c for _, c in places] or [0]
    return min(rows), min(cols), max(rows), max(cols)


def _graph_drawing(
    spec: str, text: str, value: int | None, graph: GraphPicture, box: Box | None = None
) -> PartDrawing:
    count = len(graph.vertices)
    side = _spot(count)
    labels: list[dict[str, Any]] = []
    if graph.places is not None:  # a graph on a grid is drawn on it, row 1 at the top
        box = box or _box(graph.places)
        top, left, bottom, right = box
        inset = MARGIN + VERTEX + LABEL_ROOM
        labels = _grid_labels((inset, inset), GRID_STEP, box, LABEL_ROOM + VERTEX + 2)
        where = [
            (inset + (c - left) * GRID_STEP, inset + (r - top) * GRID_STEP) for r, c in graph.places
        ]
        width = 2 * inset + (right - left) * GRID_STEP
        height = 2 * inset + (bottom - top) * GRID_STEP
        ground = None
    elif graph.ground is None:
        unit = _spring(count, graph.edges)
        where = [(MARGIN + x * side, MARGIN + y * side) for x, y in unit]
        width = height = side + 2 * MARGIN
        ground = None
    else:
        where, width, height = _grounded(count, graph.edges, graph.ground)
        ground = {"x1": MARGIN / 2, "x2": width - MARGIN / 2, "y": where[graph.ground][1]}
    paths = _edge_paths(where, graph.edges)
    dots = [
        {"x": x, "y": y, "name": name}
        for i, ((x, y), name) in enumerate(zip(where, graph.vertices, strict=True))
        if i != graph.ground
    ]
    return PartDrawing(
        spec,
        text,
        value,
        width=width,
        height=height,
        kind="graph",
        paths=paths,
        dots=dots,
        ground=ground,
        labels=labels,
    )


def _spring(count: int, edges: tuple[tuple[int, int], ...]) -> list[tuple[float, float]]:
    """Vertex places in the unit square: a seeded spring layout (the same every time)."""
    if count == 1:
        return [(0.5, 0.5)]
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(count))
    graph.add_edges_from((u, v) for u, v in edges if u != v)
    # start from a circle: a cycle stays round, a path opens out
    start = {
        i: (math.cos(2 * math.pi * i / count), math.sin(2 * math.pi * i / count)) for i in graph
    }
    placed = nx.spring_layout(graph, pos=start, seed=7, iterations=80)
    xs = [float(placed[i][0]) for i in range(count)]
    ys = [float(placed[i][1]) for i in range(count)]
    span = max(max(xs) - min(xs), max(ys) - min(ys)) or 1.0
    return [((x - min(xs)) / span, (y - min(ys)) / span) for x, y in zip(xs, ys, strict=True)]


def _grounded(
    count: int, edges: tuple[tuple[int, int], ...], ground: int
) -> tuple[list[tuple[float, float]], float, float]:
    """Vertex places in layers above the ground by their distance from it, and the size."""
    touching: dict[int, set[int]] = {i: set() for i in range(count)}
    for u, v in edges:
        touching[u].add(v)
        touching[v].add(u)
    layers, layer_of = [[ground]], {ground: 0}
    while layers[-1]:
        above = sorted({w for v in layers[-1] for w in touching[v] if w not in layer_of})
        for w in above:
            layer_of[w] = len(layers)
        layers.append(above)
    layers.pop()
    widest = max(len(layer) for layer in layers[1:]) if len(layers) > 1 else 1
    step = 44.0
    width = max(80.0, step * (widest + 1)) + 2 * MARGIN
    height = step * len(layers) + 2 * MARGIN
    where = [(width / 2, height - MARGIN - step / 2)] * count
    for k, layer in enumerate(layers[1:], start=1):
        for j, v in enumerate(layer):
            x = MARGIN + (width - 2 * MARGIN) * (j + 1) / (len(layer) + 1)
            where[v] = (x, height - MARGIN - step / 2 - k * step)
    return where, width, height


def _edge_paths(where: list[tuple[float, float]], edges: tuple[tuple[int, int], ...]) -> list[str]:
    """SVG path data for each edge: parallel edges bend apart, a loop is a small circle."""
    seen: dict[tuple[int, int], int] = {}
    for u, v in edges:
        key = (min(u, v), max(u, v))
        seen[key] = seen.get(key, 0) + 1
    paths = []
    for (u, v), times in seen.items():
        (x1, y1), (x2, y2) = where[u], where[v]
        for k in range(times):
            if u == v:  # a loop above its vertex, each a little larger
                r = 7.0 + 4.0 * k
                paths.append(
                    f"M {x1:.1f} {y1:.1f} C {x1 - 2 * r:.1f} {y1 - 3 * r:.1f} "
                    f"{x1 + 2 * r:.1f} {y1 - 3 * r:.1f} {x1:.1f} {y1:.1f}"
                )
                continue
            offset = (k - (times - 1) / 2) * BEND
            length = math.hypot(x2 - x1, y2 - y1) or 1.0
            cx = (x1 + x2) / 2 - (y2 - y1) / length * offset * 2
            cy = (y1 + y2) / 2 + (x2 - x1) / length * offset * 2
            paths.append(f"M {x1:.1f} {y1:.1f} Q {cx:.1f} {cy:.1f} {x2:.1f} {y2:.1f}")
    return paths
