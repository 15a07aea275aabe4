"""Pictures of values (matplotlib, imported lazily, Agg backend): PNG or SVG files.

A heap game's value sequence as a scatter, a two-coordinate game's value table as a heat map,
and the P-positions of a two-heap game.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from explorer.files import replacing
from explorer.solver import outcome
from explorer.viz.output import check_suffix
from explorer.viz.palette import GUIDE_COLOUR, N_MARK, P_COLOUR

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from explorer.analysis.sequences import ValueSequence

#: Image formats `explorer plot` writes, by file suffix.
IMAGE_SUFFIXES = (".png", ".svg")
#: Tables up to this many cells a side get their values written in the cells.
ANNOTATED_CELLS = 16
#: Sequences longer than this are drawn as rasterised points.
RASTER_FROM = 20_000

Table = list[list[int | None]]


def _figure(width: float, height: float) -> Figure:
    # a Figure without pyplot: no global state, no GUI backend, safe in threads and servers
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _save(figure: Figure, path: str | Path) -> Path:
    suffix = check_suffix(path, IMAGE_SUFFIXES)
    target = Path(path)
    with replacing([target], binary=True) as (file,):
        figure.savefig(file, format=suffix[1:], dpi=130)
    return target


def plot_sequence(sequence: ValueSequence, path: str | Path) -> Path:
    """Scatter G(n) against n, P-positions (G = 0) in red, the period's start marked.

    Parameters
    ----------
    sequence : ValueSequence
        From `explorer.analysis.sequences.value_sequence`.
    path : str or Path
        A ``.png`` or ``.svg`` file.

    Returns
    -------
    Path

    Raises
    ------
    OutputFileError
        When the suffix is neither, or the file cannot be written.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from explorer import load_game
    >>> from explorer.analysis.sequences import value_sequence
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "kayles.svg"
    >>> plot_sequence(value_sequence(load_game("kayles"), 100), out).read_text()[:5]
    '<?xml'
    """
    import numpy as np
    from matplotlib.ticker import MaxNLocator

    values = np.asarray(sequence.values)
    n = np.arange(sequence.start, sequence.start + len(values))
    figure = _figure(10, 4)
    axes = figure.add_subplot()
    zeros = outcome(values) == "P"
    size = 14 if len(values) <= 300 else 5 if len(values) <= RASTER_FROM else 0.5
    # past RASTER_FROM points the markers are drawn as one image (an SVG stays small) and so
    # small that density shows: a million values make a readable band, not a blot
    raster = len(values) > RASTER_FROM
    for chosen, scale, colour, marker, label, gid in (
        (~zeros, 1.0, N_MARK, "o", "N-position (G > 0)", "n-positions"),
        (zeros, 1.6, P_COLOUR, "s", "P-position (G = 0)", "p-positions"),
    ):
        axes.scatter(
            n[chosen],
            values[chosen],
            s=size * scale,
            color=colour,
            marker=marker,
            label=label,
            gid=gid,
            rasterized=raster,
            linewidths=0,
        )
    title = f"{sequence.game}: G(n) for n = {sequence.start}..{sequence.upto}"
    if sequence.period is not None and sequence.preperiod is not None:
        status = "proven" if sequence.proven else "observed"
        title += f"; period {sequence.period} from n = {sequence.preperiod} ({status})"
        if sequence.preperiod > 0:
            axes.axvline(
                sequence.preperiod - 0.5,
                color=GUIDE_COLOUR,
                linestyle="--",
                linewidth=1,
                label="start of the period",
            )
    axes.set_title(title)
    axes.set_xlabel("n (heap size)")
    axes.set_ylabel("Grundy value G(n)")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(sequence.start - 0.5, max(sequence.upto + 0.5, 1))
    axes.grid(alpha=0.3)
    figure.legend(loc="outside lower center", fontsize="small", ncols=3)  # never over data
    return _save(figure, path)


def plot_table(game: str, table: Table, path: str | Path) -> Path:
    """The value table G(r, c) as a heat map (Wythoff's picture), (0, 0) at the top left.

    Cells that are not positions are left blank; small tables have their values written in.

    Parameters
    ----------
    game : str
        The game's spec, for the title.
    table : list of lists
        From `explorer.analysis.solving.value_table`.
    path : str or Path
        A ``.png`` or ``.svg`` file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "nim.png"
    >>> plot_table("nim", [[0, 1], [1, 0]], out).read_bytes()[:4]
    b'\\x89PNG'
    """
    import numpy as np

    cells = np.ma.masked_invalid(
        np.array([[np.nan if v is None else v for v in row] for row in table], dtype=float)
    )
    rows, cols = cells.shape
    side = min(11.0, max(4.5, 0.3 * max(rows, cols)))
    figure = _figure(side + 1.6, side)
    axes = figure.add_subplot()
    image = axes.imshow(cells, cmap="viridis", interpolation="nearest", origin="upper")
    colour_bar = figure.colorbar(image, ax=axes, shrink=0.85)
    colour_bar.set_label("Grundy value")
    if max(rows, cols) <= ANNOTATED_CELLS:
        top = float(cells.max()) if cells.count() else 0.0
        for (r, c), value in np.ndenumerate(cells.filled(-1)):
            if value >= 0:
                axes.text(
                    c,
                    r,
                    f"{int(value)}",
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if value < 0.6 * top else "black",
                    gid=f"cell-{r}-{c}",
                )
    axes.set_title(f"{game}: G(row, column)")
    axes.set_xlabel("column")
    axes.set_ylabel("row")
    return _save(figure, path)


def plot_p_positions(game: str, table: Table, path: str | Path) -> Path:
    """The P-positions (G = 0) of a two-coordinate game as marked cells of the (row, column) grid.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "p.svg"
    >>> plot_p_positions("nim", [[0, 1], [1, 0]], out).suffix
    '.svg'
    """
    zeros = [
        (r, c)
        for r, row in enumerate(table)
        for c, v in enumerate(row)
        if v is not None and outcome(v) == "P"
    ]
    rows, cols = len(table), max((len(row) for row in table), default=0)
    side = min(10.0, max(4.5, 0.25 * max(rows, cols)))
    figure = _figure(side, side)
    axes = figure.add_subplot()
    cell = 0.8 * side * 72 / max(rows, cols, 1)  # points per cell, about
    size = max(4.0, (0.8 * cell) ** 2)
    axes.scatter(
        [c for _, c in zeros],
        [r for r, _ in zeros],
        s=size,
        marker="s",
        color=P_COLOUR,
        label=f"P-position ({len(zeros)} in the table)",
        gid="p-positions",
    )
    axes.set_xlim(-0.5, cols - 0.5)
    axes.set_ylim(rows - 0.5, -0.5)
    axes.set_aspect("equal")
    axes.set_title(f"{game}: P-positions (G = 0), {rows} × {cols} table")
    axes.set_xlabel("column")
    axes.set_ylabel("row")
    axes.grid(alpha=0.3)
    figure.legend(loc="outside lower center", fontsize="small")  # never over data
    return _save(figure, path)
