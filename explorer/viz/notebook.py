"""Notebook views: the light, static HTML Jupyter shows for pages and results (no script).

A drawn page shows as an SVG picture of the same drawing, a few kB instead of the page's 0.5 MB
(hover a state for its values); `InteractivePage` is the page itself, on request. Solutions,
explanations, value sequences, build and edit reports and stored states show as small tables.
The result classes of lower layers know nothing of this module: `explorer.load_ipython_extension`
(run by ``import explorer`` in IPython) registers each view with IPython's HTML formatter, and
this module loads when a result is first shown. The results stay plain data, every piece of
notebook HTML lives here and in the templates, and computation never imports drawing (as in
NetworkX).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.viz import templating
from explorer.viz.palette import MOVE_COLOUR, game_title, outcome_text

if TYPE_CHECKING:
    from explorer.analysis.genus import GenusSequence
    from explorer.analysis.patterns import Patterns
    from explorer.analysis.quotient import MisereQuotient
    from explorer.analysis.results import Explanation, Solution
    from explorer.analysis.sequences import ValueSequence
    from explorer.analysis.sweep import Sweep
    from explorer.build import BuildReport, EditReport
    from explorer.storage import QueryResult
    from explorer.viz.page import GraphPage

#: Most states and moves drawn as a picture in a notebook (beyond, the page says how to see it).
PICTURE_STATES = 300
PICTURE_MOVES = 3_000
#: Most winning moves listed in a solution's table, values in a sequence's table, changed
#: values in an edit report's.
LISTED_MOVES = 20
LISTED_VALUES = 400
LISTED_CHANGES = 20
#: The columns of stored states in a query's table.
STATE_COLUMNS = ("position", "grundy", "outcome", "remoteness", "depth")

# ids of arrowhead markers must be unique among all the outputs of a notebook
_pictures = itertools.count(1)


class _Kernel:
    """What this Python process (a notebook's kernel) has shown already."""

    #: Whether an interactive page's output holds the drawing library, which the later ones
    #: share (reading it from that output) instead of each carrying its 0.5 MB.
    library_shown = False


@dataclass(frozen=True)
class InteractivePage:
    """A page for a notebook in a sandboxed frame, which keeps its scripts from the notebook.

    The first one a kernel shows carries the drawing library (vis-network, 0.5 MB) in a data
    block of its output; the later ones carry only their own page (a few tens of kB) and a
    line of script that puts the library back into it from that block. With `standalone`, the
    output holds the whole page, library included, and needs no other output.
    `explorer.viz.GraphPage.interactive` returns one on request; the light picture is the
    default view.
    """

    html: str
    standalone: bool = False

    def __repr__(self) -> str:
        """One line, never the page."""
        return f"<InteractivePage: {len(self.html) / 1e3:,.0f} kB of HTML in a sandboxed frame>"

    def _repr_html_(self) -> str:
        library = templating.vis_network()
        if self.standalone or library not in self.html:
            return templating.render("frame.html", page=self.html)
        before, after = self.html.split(library, 1)
        first, _Kernel.library_shown = not _Kernel.library_shown, True
        digest = hashlib.sha256(library.encode()).hexdigest()[:16]
        return templating.render(
            "interactive.html",
            frame=f"explorer-frame-{uuid.uuid4().hex}",
            library_id=f"explorer-vis-network-{digest}",
            library=templating.trusted(library) if first else None,
            parts=templating.trusted(templating.script_json([before, after])),
        )


def page_view(page: GraphPage) -> str:
    """The notebook view of a drawn page: its header and legend, and a picture of the drawing."""
    drawing = page.drawing
    if drawing is None:  # a page made from HTML alone: all there is to show is the page
        return InteractivePage(page.html)._repr_html_()
    small = len(drawing.nodes) <= PICTURE_STATES and len(drawing.edges) <= PICTURE_MOVES
    return templating.render(
        "notebook-page.html",
        style=templating.asset("header.css"),
        heading=drawing.heading,
        lines=drawing.lines,
        note=drawing.note,
        legend=drawing.legend,
        picture=_picture(drawing.nodes, drawing.edges) if small else None,
        nodes=len(drawing.nodes),
        edges=len(drawing.edges),
    )


def _picture(nodes: list[dict[str, Any]], edges: list[dict[str, Any]]) -> dict[str, Any]:
    """States and moves as SVG shapes, laid out where vis-network puts them."""
    from explorer.viz.curves import control_point
    from explorer.viz.page import GROUPS, OPTIONS

    default_font = OPTIONS["nodes"]["font"]["size"]
    states, where = [], {}
    for node in nodes:
        style = GROUPS[node["group"]]
        colours = node.get("color", style["color"])
        size = node.get("font", {}).get("size", default_font)
        lines = str(node["label"]).split("\n")
        box = node.get("shape", style["shape"]) == "box"
        if "widthConstraint" in node:
            rx = node["widthConstraint"]["maximum"] / 2
        else:  # about what vis-network measures for the label, plus its margin
            rx = 0.3 * size * max(len(line) for line in lines) + (8 if box else 14)
        ry = 0.575 * size * len(lines) + (6 if box else 10)
        x, y = float(node["x"]), float(node["y"])
        where[node["id"]] = (x, y, rx, ry, box)
        states.append(
            {
                "x": x,
                "y": y,
                "rx": rx,
                "ry": ry,
                "box": box,
                "fill": colours["background"],
                "stroke": colours["border"],
                "border": node.get("borderWidth", style["borderWidth"]),
                "dashed": "shapeProperties" in style,
                "ink": style["font"]["color"],
                "bold": bool(style["font"].get("bold")),
                "size": size,
                "lines": lines,
                # the first line's baseline, so that the lines sit around the centre
                "top": y - 0.575 * size * (len(lines) - 1) + 0.35 * size,
                "title": node["tooltip"],
            }
        )
    picture = next(_pictures)
    markers: dict[str, str] = {}
    moves = []
    for edge in edges:
        start, end = where[edge["from"]], where[edge["to"]]
        smooth = edge.get("smooth")
        a, b = (start[0], start[1]), (end[0], end[1])
        bend = (
            control_point(a, b, smooth["type"], smooth["roundness"])
            if smooth
            else ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        )
        # the arrow ends where the curve enters the target's shape
        t = _entry(a, bend, end)
        tip = _bezier(a, bend, b, t)
        mid = ((1 - t) * a[0] + t * bend[0], (1 - t) * a[1] + t * bend[1])
        colour = edge.get("color", {}).get("color", MOVE_COLOUR)
        arrow = edge.get("arrows", {}).get("to", {}).get("enabled", True)
        if arrow:
            markers.setdefault(colour, f"explorer-{picture}-arrow-{len(markers)}")
        moves.append(
            {
                "path": f"M {a[0]:.1f} {a[1]:.1f} Q {mid[0]:.1f} {mid[1]:.1f} "
                f"{tip[0]:.1f} {tip[1]:.1f}",
                "colour": colour,
                "width": edge.get("width", 1),
                "marker": markers[colour] if arrow else None,
                "title": edge.get("title"),
            }
        )
    left = min((s["x"] - s["rx"] for s in states), default=0.0) - 20
    top = min((s["y"] - s["ry"] for s in states), default=0.0) - 20
    right = max((s["x"] + s["rx"] for s in states), default=0.0) + 20
    bottom = max((s["y"] + s["ry"] for s in states), default=0.0) + 20
    for move in moves:  # arcs may reach beyond the states
        numbers = [float(n) for n in move["path"].replace("M", "").replace("Q", "").split()]
        left, right = min(left, *numbers[0::2]), max(right, *numbers[0::2])
        top, bottom = min(top, *numbers[1::2]), max(bottom, *numbers[1::2])
    box = [round(left), round(top), round(right - left), round(bottom - top)]
    return {"box": box, "width": box[2], "markers": markers, "moves": moves, "states": states}


def _bezier(
    a: tuple[float, float], c: tuple[float, float], b: tuple[float, float], t: float
) -> tuple[float, float]:
    u = 1 - t
    return (
        u * u * a[0] + 2 * u * t * c[0] + t * t * b[0],
        u * u * a[1] + 2 * u * t * c[1] + t * t * b[1],
    )


def _entry(
    a: tuple[float, float], c: tuple[float, float], end: tuple[float, float, float, float, bool]
) -> float:
    """Where (as t from 0 to 1) the curve from `a` bent towards `c` enters the shape `end`."""
    x, y, rx, ry, box = end

    def inside(t: float) -> bool:
        px, py = _bezier(a, c, (x, y), t)
        dx, dy = abs(px - x), abs(py - y)
        return dx <= rx and dy <= ry if box else math.hypot(dx / rx, dy / ry) <= 1

    low, high = 0.0, 1.0  # outside at low (unless the shapes overlap), inside at high
    for _ in range(24):
        middle = (low + high) / 2
        low, high = (low, middle) if inside(middle) else (middle, high)
    return low


def _table(caption: str, rows: Iterable[tuple[str, Any]], note: str = "") -> str:
    return templating.render("notebook-table.html", caption=caption, rows=list(rows), note=note)


def solution_view(solution: Solution) -> str:
    """A solved position as a table: value, outcome, remoteness, winning moves, method."""
    shown = solution.winning_moves[:LISTED_MOVES]
    more = len(solution.winning_moves) - len(shown)
    moves: list[str] = [*shown, f"… and {more} more"] if more else shown
    method = solution.method + (f" ({solution.note})" if solution.note else "")
    remoteness = "not computed" if solution.remoteness is None else solution.remoteness
    return _table(
        f"{solution.game} at {solution.position}",
        [
            ("Grundy value", solution.value),
            ("outcome", outcome_text(solution.outcome)),
            ("remoteness", remoteness),
            ("winning moves", moves or "none"),
            ("method", method),
        ],
    )


def explanation_view(explanation: Explanation) -> str:
    """Why a position has its value: its parts and their XOR, or its moves and their mex."""
    rows: list[tuple[str, Any]]
    if explanation.parts:
        rows = [(f"{text} ({spec})", str(value)) for spec, text, value in explanation.parts]
        xor = " XOR ".join(str(value) for _, _, value in explanation.parts)
        rows.append((explanation.note or "sum", f"G = {xor} = {explanation.value}"))
    else:
        rows = [(f"move to {text}", str(value)) for text, value in explanation.successors]
        rows.append(("value", explanation.reason()))
    rows.append(("outcome", outcome_text(explanation.outcome)))
    return _table(f"{explanation.game} at {explanation.position}", rows)


def sequence_view(sequence: ValueSequence) -> str:
    """G(0..N) in rows of 20, P-positions in bold red, and the period found."""
    shown = sequence.values[:LISTED_VALUES]
    if sequence.period is None:
        found = "no period found in these values"
    else:
        status = "proven (Guy-Smith theorem)" if sequence.proven else "observed, not proven"
        found = f"period {sequence.period}, preperiod {sequence.preperiod}: {status}"
    more = len(sequence.values) - len(shown)
    if more:
        found += f"; {more} more values not shown"
    return templating.render(
        "notebook-sequence.html",
        caption=f"{sequence.game}: G(0..{len(sequence.values) - 1})",
        rows=[(start, shown[start : start + 20]) for start in range(0, len(shown), 20)],
        found=found,
    )


def build_view(report: BuildReport) -> str:
    """What a build did, as a table: the states it stored and the start's values."""
    solved = report.grundy is not None
    misere = report.convention == "misere"
    return _table(
        f"{'misère ' if misere else ''}build of {report.game} from {report.position}: "
        f"{report.status}",
        [
            ("states stored", f"{report.states_stored:,}"),
            ("new states", f"{report.states_new:,}"),
            ("states already stored", f"{report.states_reused:,}"),
            ("new moves", f"{report.edges_new:,}"),
            ("values computed", f"{report.values_computed:,}"),
            ("states left to expand", f"{report.frontier:,}"),
            (
                "misère value G⁻" if misere else "Grundy value",
                report.grundy if solved else "not solved yet",
            ),
            ("outcome", outcome_text(report.outcome)),
            ("remoteness", "unknown" if report.remoteness is None else report.remoteness),
            ("seconds", f"{report.seconds:.2f}"),
        ],
        "" if report.status == "complete" else "The build stopped: building again continues it.",
    )


def edit_view(report: EditReport) -> str:
    """What an import or edit did: states and moves added and removed, values changed."""
    rows: list[tuple[str, Any]] = []
    if report.states is not None:
        rows.append(("states in the file", f"{report.states:,}"))
    if report.edges is not None:
        rows.append(("moves in the file", f"{report.edges:,}"))
    rows += [
        ("states added, removed", f"{report.states_added:,}, {report.states_removed:,}"),
        ("moves added, removed", f"{report.edges_added:,}, {report.edges_removed:,}"),
        ("states re-examined", f"{report.reexamined:,}"),
        ("values changed", f"{report.changed:,}"),
        ("seconds", f"{report.seconds:.2f}"),
    ]
    for change in report.values[:LISTED_CHANGES]:
        was = "new" if change.old_grundy is None else f"G {change.old_grundy}"
        rows.append((change.position, f"{was} → G {change.grundy} ({change.outcome})"))
    more = len(report.values) - LISTED_CHANGES
    note = f"{more:,} more changed values: to_dict() has them all." if more > 0 else ""
    return _table(f"{report.kind} of {report.game}: {report.description}", rows, note)


def query_view(result: QueryResult) -> str:
    """A stored state with its moves, or one page of stored states, as tables."""
    game = game_title(result["game"], result.get("convention"))
    if "successors" in result:  # one state
        value = result["grundy"]
        name = "misère value G⁻" if result.get("convention") == "misere" else "Grundy value"
        state = _table(
            f"{game} at {result['position']}",
            [
                (name, "not solved yet" if value is None else value),
                ("outcome", outcome_text(result["outcome"])),
                ("remoteness", result["remoteness"]),
                ("depth", result["depth"]),
                ("moves", f"{result['moves']:,}"),
                ("predecessors", f"{result['predecessors']:,}"),
                ("winning moves", result["winning_moves"] or "none"),
            ],
        )
        shown = len(result["successors"])
        return state + _states(
            f"moves from {result['position']}",
            result["successors"],
            _more(result["moves"] - shown, "moves", "moves=N"),
        )
    states, offset, total = result["states"], result["offset"], result["total"]
    if "direction" in result:
        towards = "from" if result["direction"] == "out" else "into"
        what = f"{game}: moves {towards} {result['position']}"
    else:
        what = f"{game}: stored states"
    span = f"{offset + 1:,} to {offset + len(states):,}" if states else "none"
    rest = _more(total - offset - len(states), "states", "offset=N")
    return _states(f"{what} ({span} of {total:,})", states, rest)


def _states(caption: str, states: list[dict[str, Any]], note: str) -> str:
    return templating.render(
        "notebook-states.html", caption=caption, columns=STATE_COLUMNS, states=states, note=note
    )


def _more(count: int, what: str, option: str) -> str:
    return f"{count:,} more {what} not shown (ask with {option})." if count > 0 else ""


def _grid(
    caption: str, columns: Iterable[str], rows: Iterable[Iterable[Any]], note: str = ""
) -> str:
    return templating.render(
        "notebook-grid.html",
        caption=caption,
        columns=list(columns),
        rows=[list(row) for row in rows],
        note=note,
    )


def patterns_view(found: Patterns) -> str:
    """Each pattern found, what it says, and whether a theorem proved it."""
    if not found.patterns:
        return _table(f"{found.game} up to {found.upto:,}", [("patterns", "none found")])
    return _grid(
        f"{found.game}: patterns up to {found.upto:,}",
        ("pattern", "what it says", "status"),
        ((p.kind, p.text(), p.status_text()) for p in found.patterns),
    )


def quotient_view(quotient: MisereQuotient) -> str:
    """A misère quotient: its presentation and sizes, P, Φ by heap, and its multiplication."""
    names = quotient.elements
    period = (
        f"period {quotient.period} from heap {quotient.preperiod}"
        + (" (proven)" if quotient.period_proven else " (observed)")
        if quotient.period is not None
        else "none seen"
    )
    summary = _table(
        f"{quotient.game}: misère quotient of heaps 0..{quotient.max_heap:,}",
        [
            ("presentation", quotient.presentation),
            ("|Q|, |P|", f"{quotient.size}, {quotient.p_size}"),
            ("Q", names),
            ("P", [names[x] for x in quotient.p]),
            ("period of Φ", period),
        ],
    )
    phi = _grid(
        "Φ: each heap's element",
        ("heap", *range(min(len(quotient.phi), LISTED_VALUES // 10))),
        [("Φ", *(names[x] for x in quotient.phi[: LISTED_VALUES // 10]))],
    )
    if quotient.size > LISTED_MOVES:
        return summary + phi
    products = _grid(
        "products in Q",
        ("×", *names),
        ((names[i], *(names[x] for x in row)) for i, row in enumerate(quotient.table)),
    )
    return summary + phi + products


def sweep_view(sweep: Sweep) -> str:
    """Each variant of a sweep: its period, preperiod, saltus, status and largest value."""
    return _grid(
        f"{sweep.pattern}: {len(sweep.rows):,} variants up to {sweep.upto:,}",
        ("variant", "period", "preperiod", "saltus", "status", "largest value"),
        ((r.spec, r.period, r.preperiod, r.saltus, r.status_text(), r.largest) for r in sweep.rows),
    )


def genus_view(sequence: GenusSequence) -> str:
    """The genus of each heap, in Conway's notation, and the period of the genera if seen."""
    return _grid(
        f"{sequence.game}: genus of heaps 0..{len(sequence.genera) - 1:,}",
        ("heap", "genus", "G", "G⁻"),
        (
            (n, g.text(), g.normal, g.misere[0] if g.misere else None)
            for n, g in enumerate(sequence.genera[:LISTED_VALUES])
        ),
        sequence.summary(),
    )
