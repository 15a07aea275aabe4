"""Commands that change or compare games: import (DAG files), edit (stored graphs), diff."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click
from rich.table import Table

from explorer.cli.common import (
    MAX_STATES_IN_MEMORY,
    AsciiIntRange,
    console,
    json_option,
    print_json,
    print_table,
    visible,
)
from explorer.cli.stored_options import db_option
from explorer.games import load_game
from explorer.games.loopy import file_game

if TYPE_CHECKING:  # the database layer is imported by the commands that use it
    from explorer.build import EditReport

#: Changed values listed by ``explorer import`` and ``explorer edit`` (``--json`` has all).
SHOWN_CHANGES = 20

#: Range compared by ``explorer diff`` when neither --upto nor --position is given.
DEFAULT_UPTO = 100


@click.command("diff")
@click.argument("spec_a")
@click.argument("spec_b")
@click.option(
    "--upto",
    type=AsciiIntRange(min=0, max=MAX_STATES_IN_MEMORY),
    default=None,
    help=f"Compare one heap (strip, row) of size 0..UPTO [default: {DEFAULT_UPTO}].",
)
@click.option(
    "-p",
    "--position",
    "positions",
    multiple=True,
    help="Compare this position instead of a range (repeat for several).",
)
@json_option("one object: game_a, game_b, compared, differ, outcome_differ, differences")
def diff_command(
    spec_a: str, spec_b: str, upto: int | None, positions: tuple[str, ...], as_json: bool
) -> None:
    """The positions where the games SPEC_A and SPEC_B differ in Grundy value or outcome.

    \b
    Examples:
      explorer diff subtraction:1,3,4 subtraction:1,4 --upto 30
      explorer diff nim bash:3 -p 3,4 -p 5 --json
    """
    from explorer.analysis.variants import compare_positions, compare_range

    game_a, game_b = load_game(spec_a), load_game(spec_b)
    if positions and upto is not None:
        raise click.UsageError("give --upto or --position, not both")
    if positions:
        result = compare_positions(game_a, game_b, positions)
    else:
        result = compare_range(game_a, game_b, DEFAULT_UPTO if upto is None else upto)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(
        f"{visible(result.game_a)} vs {visible(result.game_b)}: "
        f"{len(result.differences)} of {result.compared} "
        f"positions differ ({result.outcome_differences} in outcome)"
    )
    if not result.differences:
        return
    table = Table("position", visible(result.game_a), visible(result.game_b), "outcome")
    for d in result.differences:
        table.add_row(
            visible(d.position),
            f"{d.grundy_a} {d.outcome_a}",
            f"{d.grundy_b} {d.outcome_b}",
            "differs" if d.outcome_differs else "same",
        )
    print_table(table)


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _print_edit(report: EditReport) -> None:
    build = f" (build {report.build_id})" if report.build_id is not None else ""
    game = visible(report.game)
    if report.kind == "import":
        console.print(
            f"imported {game}{build}: {report.states:,} states, {report.edges:,} edges, solved"
        )
        return
    if report.kind == "reimport":
        if report.build_id is None:
            console.print(f"{game}: the stored graph already matches the file; no change")
            return
        console.print(
            f"re-imported {game}{build}: states +{report.states_added} "
            f"-{report.states_removed}, edges +{report.edges_added} -{report.edges_removed}"
        )
    else:
        console.print(f"edited {game}{build}: {visible(report.description)}")
    console.print(
        f"re-examined {_count(report.reexamined, 'state')}, "
        f"{_count(report.changed, 'value')} changed, "
        f"{_count(report.reordered, 'height')} raised"
    )
    if not report.values:
        return
    table = Table("position", "grundy", "outcome", "remoteness")
    for v in report.values[:SHOWN_CHANGES]:
        if v.old_value is None:
            table.add_row(
                visible(v.position), f"new {v.value}", f"new {v.outcome}", f"new {v.remoteness}"
            )
        else:
            table.add_row(
                visible(v.position),
                f"{v.old_value} -> {v.value}",
                f"{v.old_outcome} -> {v.outcome}",
                f"{v.old_remoteness} -> {v.remoteness}",
            )
    print_table(table)
    more = len(report.values) - SHOWN_CHANGES
    if more > 0:
        console.print(f"... and {more:,} more (use --json for all)")


@click.command("import")
@click.argument("file")
@db_option
@json_option(
    "one object: game, build_id, kind, description, states, edges, states_added, "
    "states_removed, edges_added, edges_removed, values, changed, reexamined, reordered, "
    "seconds"
)
def import_command(file: str, url: str | None, as_json: bool) -> None:
    """Store the DAG in FILE as the game dag:FILE, solved; a stored one gets only the difference.

    FILE is JSON, CSV, an edge list (.txt, .edges) or GraphML (see `explorer games`). It is
    checked before the database is opened: a rejected file changes nothing. Importing a file
    whose game is stored already applies only what changed in it and re-solves only the
    values that change. Written graph:FILE, the file may have cycles and self-loops: it is
    stored as the game graph:FILE with generalized values (∞(K), draws).

    \b
    Examples:
      explorer import data/note003.json
      explorer import my_game.csv --db games.db --json
      explorer import graph:data/loopy.json
    """
    from explorer.build import open_database

    game = file_game(file)
    with open_database(url) as database:
        report = database.import_graph(game)
    if as_json:
        print_json(report.to_dict())
        return
    _print_edit(report)


@click.command("edit")
@click.argument("spec")
@click.option("--add-state", "add_states", multiple=True, metavar="STATE", help="Add a state.")
@click.option(
    "--remove-state",
    "remove_states",
    multiple=True,
    metavar="STATE",
    help="Remove a state and its moves.",
)
@click.option(
    "--add-edge",
    "add_edges",
    multiple=True,
    nargs=2,
    metavar="FROM TO",
    help="Add the move FROM -> TO.",
)
@click.option(
    "--remove-edge",
    "remove_edges",
    multiple=True,
    nargs=2,
    metavar="FROM TO",
    help="Remove the move FROM -> TO.",
)
@db_option
@json_option(
    "one object: game, build_id, kind, description, states, edges, states_added, "
    "states_removed, edges_added, edges_removed, values, changed, reexamined, reordered, "
    "seconds"
)
def edit_command(
    spec: str,
    add_states: tuple[str, ...],
    remove_states: tuple[str, ...],
    add_edges: tuple[tuple[str, str], ...],
    remove_edges: tuple[tuple[str, str], ...],
    url: str | None,
    as_json: bool,
) -> None:
    """Add or remove states and moves of the stored game SPEC and re-solve what changes.

    States are named by their stored keys (as `explorer query` shows them). Removals happen
    before additions. Only the states whose moves changed are re-solved, then their
    predecessors while values keep changing; every changed value records this edit. An edit
    that would create a cycle, or names a missing state or move, is refused and changes
    nothing.

    \b
    Examples:
      explorer edit dag:data/note003.json --add-edge c t3
      explorer edit dag:data/note003.json --add-state z --add-edge z b --json
    """
    from explorer.solver.incremental import Edit

    edit = Edit(
        add_states=add_states,
        remove_states=remove_states,
        add_edges=tuple(add_edges),
        remove_edges=tuple(remove_edges),
    )
    from explorer.build import open_database

    with open_database(url) as database:
        report = database.game(spec).edit(edit)
    if as_json:
        print_json(report.to_dict())
        return
    _print_edit(report)


COMMANDS = [import_command, edit_command, diff_command]
