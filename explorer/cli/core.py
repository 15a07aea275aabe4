"""Commands over games and positions: games, solve, explain, sequence, table."""

from __future__ import annotations

import click
from rich.table import Table

from explorer.analysis import explain, solve, value_table
from explorer.cli.common import (
    console,
    json_option,
    max_states_option,
    misere_option,
    print_json,
    reports_errors,
    upto_option,
)
from explorer.games import families, load_game
from explorer.graph import DEFAULT_MAX_STATES
from explorer.misere import explain_misere, misere_sequence, solve_misere
from explorer.sequences import value_sequence
from explorer.viz.palette import VERDICTS, outcome_text

#: Moves listed by `explorer explain` before it says how many more there are.
EXPLAIN_ROWS = 50


@click.command("games")
@json_option
def games_command(as_json: bool) -> None:
    """List the game families, their parameters and position syntax.

    \b
    Example:
      explorer games
    """
    rows = [
        {
            "name": name,
            "parameters": cls.parameters,
            "position": cls.position_syntax,
            "example": f"{cls.example[0]} {cls.example[1]}",
            "summary": cls.summary,
        }
        for name, cls in families()
    ]
    if as_json:
        print_json(rows)
        return
    table = Table(title="game families (aliases: kayles = octal:0.77, dawson = octal:0.07)")
    for column in ("name", "parameters", "position", "example"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["name"], row["parameters"], row["position"], row["example"])
    console.print(table)


@click.command("solve")
@click.argument("spec")
@click.argument("position")
@click.option(
    "--method",
    type=click.Choice(["auto", "graph", "decompose"]),
    default="auto",
    show_default=True,
    help="graph: whole game graph (gives remoteness); decompose: from the parts.",
)
@misere_option
@max_states_option
@json_option
@reports_errors
def solve_command(
    spec: str, position: str, method: str, misere: bool, max_states: int | None, as_json: bool
) -> None:
    """Grundy value, outcome, remoteness and winning moves of a POSITION of the game SPEC.

    In a game with cycles the value may be infinite, ∞(K) (K: the finite values one move
    away), and the outcome a draw (D). With --misere the last player to move loses.

    \b
    Examples:
      explorer solve nim 3,4,5
      explorer solve "nim + kayles" "3,4 + 7" --json
      explorer solve "windup:5:1,3 + nim" "2 + 1"
      explorer solve nim 1,1,1 --misere
    """
    game = load_game(spec)
    solver = solve_misere if misere else solve
    result = solver(
        game,
        game.parse(position),
        method=method,  # type: ignore[arg-type]
        max_states=max_states or DEFAULT_MAX_STATES,
    )
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"game        {result.game}")
    console.print(f"position    {result.position}")
    if misere:
        console.print("convention  misère (the player who moves last loses)")
    else:
        console.print(f"grundy      {result.value}")
    console.print(f"outcome     {outcome_text(result.outcome)}")
    if result.remoteness is not None:
        console.print(f"remoteness  {result.remoteness}")
    console.print(f"method      {result.method}" + (f" ({result.note})" if result.note else ""))
    if result.winning_moves:
        shown = result.winning_moves[:20]
        more = len(result.winning_moves) - len(shown)
        console.print("winning moves:")
        for move in shown:
            console.print(f"  -> {move}")
        if more:
            console.print(f"  ... and {more} more (use --json for all)")
    if result.drawing_moves:
        console.print("drawing moves (any other move loses):")
        for move in result.drawing_moves[:20]:
            console.print(f"  -> {move}")
        if len(result.drawing_moves) > 20:
            console.print(f"  ... and {len(result.drawing_moves) - 20} more (use --json for all)")


@click.command("explain")
@click.argument("spec")
@click.argument("position")
@misere_option
@max_states_option
@json_option
@reports_errors
def explain_command(
    spec: str, position: str, misere: bool, max_states: int | None, as_json: bool
) -> None:
    """Show how a POSITION's Grundy value arises: the mex of its successors, or a XOR of parts.

    In a game with cycles, it shows the stage of the labelling that fixed the value (and the
    counter); with --misere, the moves' misère outcomes.

    \b
    Examples:
      explorer explain subtraction:1,2,3 5
      explorer explain windup:5:1,3 4
      explorer explain nim 1,2 --misere
    """
    game = load_game(spec)
    explainer = explain_misere if misere else explain
    result = explainer(game, game.parse(position), max_states=max_states or DEFAULT_MAX_STATES)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"{result.game} at {result.position}")
    if misere:
        table = Table("move to", "misère outcome")
        for text, outcome in result.successors[:EXPLAIN_ROWS]:
            table.add_row(text, str(outcome))
        if result.successors:
            console.print(table)
        if len(result.successors) > EXPLAIN_ROWS:
            more = len(result.successors) - EXPLAIN_ROWS
            console.print(f"... and {more:,} more moves (use --json for all)")
        console.print(result.note)
        return
    if result.method in ("decomposition", "reduction"):
        console.print(f"{result.note}:" if result.parts else result.note)
        if result.parts:
            table = Table("part", "game", "grundy")
            for game_spec, text, value in result.parts:
                table.add_row(text, game_spec, str(value))
            console.print(table)
        xor = " XOR ".join(str(v) for _, _, v in result.parts) or "0 (no parts)"
        console.print(f"G = {xor} = {result.value}")
    else:
        table = Table("move to", "grundy")
        for text, value in result.successors[:EXPLAIN_ROWS]:
            table.add_row(text, str(value))
        if result.successors:
            console.print(table)
        if len(result.successors) > EXPLAIN_ROWS:
            more = len(result.successors) - EXPLAIN_ROWS
            console.print(f"... and {more:,} more moves (use --json for all)")
        console.print(result.reason())
    console.print(VERDICTS[result.outcome])


@click.command("sequence")
@click.argument("spec")
@upto_option("Compute G(0) .. G(UPTO).")
@click.option(
    "--misere",
    is_flag=True,
    help="Misère values G⁻ of one heap (the last mover loses; 0 exactly on P-positions).",
)
@json_option
@reports_errors
def sequence_command(spec: str, upto: int, misere: bool, as_json: bool) -> None:
    """The values G(0..N) of one heap (or strip, or coin) of a game, and their period.

    \b
    Examples:
      explorer sequence kayles --upto 2000
      explorer sequence kayles --upto 40 --misere
    """
    if misere:
        _misere_sequence(spec, upto, as_json)
        return
    result = value_sequence(load_game(spec), upto)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"{result.game}: G(0..{upto})")
    for start in range(0, len(result.values), 20):
        chunk = " ".join(f"{v:>3}" for v in result.values[start : start + 20])
        console.print(f"{start:>6}: {chunk}")
    if result.period is None:
        console.print("no period found in these values")
    else:
        status = "proven (Guy-Smith theorem)" if result.proven else "observed, not proven"
        console.print(f"period {result.period}, preperiod {result.preperiod}: {status}")


def _misere_sequence(spec: str, upto: int, as_json: bool) -> None:
    result = misere_sequence(load_game(spec), upto)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"{result.game}: misère G⁻(0..{upto}) (0 exactly on misère P-positions)")
    for start in range(0, len(result.values), 20):
        chunk = " ".join(f"{v:>3}" for v in result.values[start : start + 20])
        console.print(f"{start:>6}: {chunk}")
    if result.period is None:
        console.print("no period found in these values")
    else:
        console.print(f"period {result.period}, preperiod {result.preperiod}: observed, not proven")


@click.command("table")
@click.argument("spec")
@click.option("--rows", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--cols", type=click.IntRange(min=1), default=10, show_default=True)
@max_states_option
@json_option
@reports_errors
def table_command(spec: str, rows: int, cols: int, max_states: int | None, as_json: bool) -> None:
    """The value table G(r, c) of a two-coordinate game (wythoff, ferguson, two heaps).

    \b
    Example:
      explorer table wythoff --rows 8 --cols 8
    """
    game = load_game(spec)
    values = value_table(game, rows, cols, max_states=max_states or DEFAULT_MAX_STATES)
    if as_json:
        print_json({"game": game.spec, "values": values})
        return
    table = Table(title=f"{game.spec}: G(row, column)")
    table.add_column("")
    for c in range(cols):
        table.add_column(str(c), justify="right")
    for r, row in enumerate(values):
        table.add_row(str(r), *("·" if v is None else str(v) for v in row))
    console.print(table)


COMMANDS = [games_command, solve_command, explain_command, sequence_command, table_command]
