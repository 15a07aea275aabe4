"""Commands that draw: viz (an interactive HTML page of a game graph) and plot (PNG or SVG)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from explorer.cli.common import (
    MAX_SIDE,
    MAX_STATES_IN_MEMORY,
    AsciiIntRange,
    console,
    json_option,
    max_states_option,
    misere_option,
    print_json,
    stored_option,
    upto_option,
    visible,
    working,
)
from explorer.errors import ExplorerError, LimitError
from explorer.games import load_game
from explorer.games.convention import Convention
from explorer.generation.graph import DEFAULT_MAX_STATES
from explorer.viz import DEFAULT_BUDGET, DEFAULT_DEPTH, LARGE_BUDGET, draw_game, draw_stored
from explorer.viz.output import check_suffix
from explorer.viz.plots import IMAGE_SUFFIXES, Table

if TYPE_CHECKING:
    from explorer.viz.page import GraphPage

    _PathType = click.ParamType[Path]
else:  # click before 8.2 has no generic ParamType at run time
    _PathType = click.ParamType


class OutputFile(_PathType):
    """A file name with one of the given suffixes (checked before any work is done)."""

    name = "file"

    def __init__(self, suffixes: tuple[str, ...]) -> None:
        self.suffixes = suffixes

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        try:
            check_suffix(value, self.suffixes)
        except ExplorerError as error:
            self.fail(str(error), param, ctx)
        return Path(value)


def _report(page: GraphPage, path: Path, as_json: bool, **extra: object) -> None:
    if page.condensed:
        drawn = {"groups": page.nodes, "states": page.states}
        line = f"wrote {visible(path)}: {page.states:,} states in {page.nodes:,} groups"
    else:
        drawn = {"drawn_states": page.nodes, "drawn_moves": page.edges, "states": page.states}
        line = f"wrote {visible(path)}: {page.nodes:,} states and {page.edges:,} moves drawn"
    if as_json:
        print_json({"file": str(path), **extra, **drawn, "cut": page.cut, "note": page.note})
        return
    console.print(line)
    if page.note:
        console.print(visible(page.note))


@click.command("viz")
@click.argument("spec")
@click.argument("position")
@click.option(
    "-o",
    "--output",
    required=True,
    type=OutputFile((".html", ".htm")),
    help="The HTML page to write (it works offline).",
)
@click.option(
    "--budget",
    type=AsciiIntRange(min=1, max=MAX_STATES_IN_MEMORY),
    help=f"Most states drawn; the ones nearest the start are kept [default: {DEFAULT_BUDGET}, "
    f"which stays readable; {LARGE_BUDGET:,} still draw in a second or two].",
)
@click.option(
    "--around",
    metavar="POSITION",
    help="Draw the neighbourhood of this position (default depth 2).",
)
@click.option(
    "--depth",
    type=AsciiIntRange(min=0, max=MAX_STATES_IN_MEMORY),
    help="Neighbourhood radius in moves, forward and backward (around POSITION "
    "unless --around is given).",
)
@click.option(
    "--condensed",
    type=click.Choice(["grundy", "depth"]),
    help="Draw groups of states (by Grundy value or by depth) with counts.",
)
@click.option(
    "--db",
    "url",
    metavar="URL",
    help="Draw from this database (a path, sqlite:///FILE or postgresql://...) "
    "instead of generating the game: a neighbourhood (default depth 2), or with "
    "--condensed the whole stored game.",
)
@misere_option
@max_states_option
@json_option(
    "one object: file, game, position, drawn_states, drawn_moves, states, cut, note (a "
    "condensed page: groups instead of drawn_states and drawn_moves)"
)
def viz_command(
    spec: str,
    position: str,
    output: Path,
    budget: int | None,
    around: str | None,
    depth: int | None,
    condensed: str | None,
    url: str | None,
    convention: Convention,
    max_states: int | None,
    as_json: bool,
) -> None:
    """Draw the game graph of SPEC from POSITION as an interactive HTML page.

    Colour shows the outcome and the Grundy value (P-positions are dark red boxes), red arrows
    are winning moves, hovering a state shows its values; layers run top to bottom. In a game
    with cycles, draws (D) and infinite values (∞) have colours of their own; --misere draws
    misère outcomes (the last mover loses), from the rules or, with --db, from the game's
    misère build (explorer build --misere).

    \b
    Examples:
      explorer viz nim 1,2,3 -o nim.html
      explorer viz kayles 20 --around 10 --depth 2 -o kayles.html
      explorer viz nim 6,7,8,9 --condensed grundy -o nim-groups.html
      explorer viz kayles 30 --db kayles.db --around 12 --depth 1 -o near.html
      explorer viz windup:7:2,3 6 -o windup.html
      explorer viz kayles 6 --misere -o kayles-misere.html
      explorer viz nim 3,4,5 --db explorer.db --misere -o nim-misere.html
    """
    shown = spec
    if url is not None:
        from explorer.build import open_database  # only when drawing from a database

        with open_database(url, create=False) as database:
            page = draw_stored(
                database.game(spec, convention),
                around or position,
                depth=DEFAULT_DEPTH if depth is None else depth,
                budget=budget,
                condensed=condensed,  # type: ignore[arg-type]
                max_states=max_states or DEFAULT_MAX_STATES,
                wording="cli",
            )
    else:
        game = load_game(spec)
        shown = game.spec
        with working(f"drawing {visible(spec)}", enabled=not as_json):  # a spinner on terminals
            page = draw_game(
                game,
                game.parse(position),
                around=None if around is None else game.parse(around),
                depth=depth,
                budget=budget,
                condensed=condensed,  # type: ignore[arg-type]
                max_states=max_states or DEFAULT_MAX_STATES,
                convention=convention,
                wording="cli",
            )
    path = page.save(output)
    _report(page, path, as_json, game=shown, position=position)


#: Most values a sequence plot draws (a million draw in seconds as one raster image).
MAX_PLOTTED = 1_000_000

image_option = click.option(
    "-o",
    "--output",
    required=True,
    type=OutputFile(IMAGE_SUFFIXES),
    help="The image to write: .png or .svg.",
)


@click.group("plot")
def plot_group() -> None:
    """Pictures of values as PNG or SVG: value sequences, value tables, P-positions.

    \b
    Examples:
      explorer plot sequence kayles --upto 200 -o kayles.png
      explorer plot table wythoff --rows 40 --cols 40 -o wythoff.png
      explorer plot p-positions wythoff --rows 100 --cols 100 -o wythoff-p.svg
    """


def _wrote(path: Path, as_json: bool, **facts: object) -> None:
    if as_json:
        print_json({"file": str(path), **facts})
    else:
        console.print(f"wrote {visible(path)}")


@plot_group.command("sequence")
@click.argument("spec")
@upto_option(f"Plot G(0) .. G(UPTO) (at most {MAX_PLOTTED:,} values).")
@stored_option("Read the values stored by `explorer sequence --db` (and store what is computed)")
@image_option
@json_option("one object: file, game, period, preperiod")
def plot_sequence_command(
    spec: str, upto: int, url: str | None, output: Path, as_json: bool
) -> None:
    """Scatter the values G(0..N) of one heap (or strip, or coin) of SPEC.

    \b
    Examples:
      explorer plot sequence kayles --upto 200 -o kayles.png
      explorer plot sequence octal:0.16 --upto 100000 --db explorer.db -o sixteen.png
    """
    from explorer.analysis.sequences import stored_value_sequence, value_sequence
    from explorer.viz.plots import plot_sequence

    if upto + 1 > MAX_PLOTTED:
        raise LimitError(
            f"a plot of {upto + 1:,} values is too many to draw (at most {MAX_PLOTTED:,}): "
            "plot a smaller --upto, or print the values with explorer sequence"
        )
    game = load_game(spec)
    with working("plotting", enabled=not as_json) as stage, ExitStack() as stack:
        stage(f"computing G(0..{upto:,})")
        if url is None:
            sequence = value_sequence(game, upto)
        else:
            from explorer.build import open_database

            database = stack.enter_context(open_database(url or None))
            sequence = stored_value_sequence(database.game(game), game, upto)
        stage("drawing")
        path = plot_sequence(sequence, output)
    _wrote(path, as_json, game=sequence.game, period=sequence.period, preperiod=sequence.preperiod)


table_options = [
    click.option("--rows", type=AsciiIntRange(min=1, max=MAX_SIDE), default=30, show_default=True),
    click.option("--cols", type=AsciiIntRange(min=1, max=MAX_SIDE), default=30, show_default=True),
    max_states_option,
    image_option,
    json_option("one object: file, game"),
]


def _with_table_options(command: Any) -> Any:
    for option in reversed(table_options):
        command = option(command)
    return command


@plot_group.command("table")
@click.argument("spec")
@_with_table_options
def plot_table_command(
    spec: str, rows: int, cols: int, max_states: int | None, output: Path, as_json: bool
) -> None:
    """Heat map of the value table G(row, column) of a two-coordinate game.

    \b
    Example:
      explorer plot table wythoff --rows 40 --cols 40 -o wythoff.png
    """
    from explorer.viz.plots import plot_table

    _plot_values(spec, rows, cols, max_states, output, as_json, plot_table)


@plot_group.command("p-positions")
@click.argument("spec")
@_with_table_options
def plot_p_positions_command(
    spec: str, rows: int, cols: int, max_states: int | None, output: Path, as_json: bool
) -> None:
    """The P-positions (G = 0) of a two-heap game on its (row, column) grid.

    \b
    Example:
      explorer plot p-positions wythoff --rows 100 --cols 100 -o wythoff-p.svg
    """
    from explorer.viz.plots import plot_p_positions

    _plot_values(spec, rows, cols, max_states, output, as_json, plot_p_positions)


def _plot_values(
    spec: str,
    rows: int,
    cols: int,
    max_states: int | None,
    output: Path,
    as_json: bool,
    draw: Callable[[str, Table, Path], Path],
) -> None:
    """Compute the value table G(row, column) of `spec` and `draw` it to `output`."""
    from explorer.analysis.solving import value_table

    game = load_game(spec)
    with working("plotting", enabled=not as_json) as stage:
        stage(f"computing {rows:,} x {cols:,} values")
        table = value_table(game, rows, cols, max_states=max_states or DEFAULT_MAX_STATES)
        stage("drawing")
        path = draw(game.spec, table, output)
    _wrote(path, as_json, game=game.spec)


COMMANDS = [viz_command, plot_group]
