"""The ``export`` command: a stored game graph, or a neighbourhood, written to a file."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn

from explorer.cli.common import (
    MAX_STATES_IN_MEMORY,
    AsciiIntRange,
    console,
    json_option,
    print_json,
    stderr_progress,
    visible,
)
from explorer.cli.stored_options import db_option, shown_game, stored_misere_option
from explorer.games import refuse_bad_position
from explorer.games.convention import Convention
from explorer.limits import MAX_STORED_INT


@click.command("export")
@click.argument("spec")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="File to write (CSV writes FILE.nodes.csv and FILE.edges.csv).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["graphml", "gexf", "json", "csv"]),
    help="Default: the file suffix.",
)
@click.option("--around", metavar="POSITION", help="Export the neighbourhood of POSITION.")
@click.option(
    "--depth",
    type=AsciiIntRange(min=0, max=MAX_STATES_IN_MEMORY),
    default=2,
    show_default=True,
    help="Moves from --around to include.",
)
@click.option(
    "--direction",
    type=click.Choice(["out", "in", "both"]),
    default="out",
    show_default=True,
    help="Follow moves forwards, backwards or both from --around.",
)
@click.option(
    "--limit",
    type=AsciiIntRange(min=1, max=MAX_STORED_INT),
    default=None,
    help="Most states to export: the first N in discovery order (default: all), or for "
    "--around the most the neighbourhood may have (default 2,000,000).",
)
@db_option
@stored_misere_option
@json_option("one object: game, convention, states, edges, stored_states, files")
def export_command(
    spec: str,
    output: Path,
    fmt: str | None,
    around: str | None,
    depth: int,
    direction: str,
    limit: int | None,
    url: str | None,
    convention: Convention,
    as_json: bool,
) -> None:
    """Write a stored game graph, or a neighbourhood, as GraphML, GEXF, JSON or CSV.

    Rows stream from the database to the file (memory stays flat whatever the graph's size);
    the file replaces OUTPUT only once it is complete, and a symbolic link is never followed.
    With --misere, the game's misère build (GraphML and JSON say so in the graph's
    ``convention`` attribute, GEXF in its description).

    \b
    Examples:
      explorer export nim -o nim.graphml
      explorer export nim --around 3,4,5 --depth 1 -o near.gexf
    """
    from explorer.build import open_database

    if around is not None:
        refuse_bad_position(spec, around)
    with open_database(url, create=False) as database, _export_progress(not as_json) as update:
        report = database.game(spec, convention).export(
            output,
            fmt,
            around=around,
            depth=depth,
            direction=direction,  # type: ignore[arg-type]
            limit=limit,
            progress=update,
        )
    if as_json:
        print_json(report.to_dict())
        return
    cut = (
        f" (the first {report.states:,} of {report.stored_states:,}: raise --limit)"
        if report.stored_states > report.states
        else ""
    )
    console.print(
        f"wrote {report.states:,} states and {report.edges:,} edges of "
        f"{shown_game(report.game, report.convention)}{cut} to "
        f"{visible(', '.join(report.files))}"
    )


@contextmanager
def _export_progress(enabled: bool) -> Iterator[Any]:
    """A progress bar on standard error: states written, then moves."""
    bar = stderr_progress(
        SpinnerColumn(),
        TextColumn("writing {task.description}"),
        BarColumn(),
        TextColumn("{task.completed:>12,} of {task.total:,}"),
        TimeElapsedColumn(),
        enabled=enabled,
    )
    tasks: dict[str, Any] = {}
    with bar:

        def update(what: str, done: int, total: int) -> None:
            if what not in tasks:
                tasks[what] = bar.add_task(what, total=total)
            bar.update(tasks[what], completed=done)

        yield update


COMMANDS = [export_command]
