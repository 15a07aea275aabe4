"""Commands over games and positions: games, solve, explain, sequence, table."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from functools import partial
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from explorer.cli.common import (
    MAX_SIDE,
    AsciiIntRange,
    console,
    json_option,
    max_memory_option,
    max_states_option,
    misere_flag,
    misere_option,
    print_json,
    print_table,
    progress_bar,
    search_progress,
    sequence_progress,
    shown,
    stored_option,
    upto_option,
    visible,
    workers_option,
    working,
)
from explorer.games import families, load_game
from explorer.games.base import Game
from explorer.games.convention import MISERE, Convention
from explorer.games.pictures import BoardPicture
from explorer.generation.graph import DEFAULT_MAX_STATES
from explorer.limits import MAX_STORED_INT
from explorer.viz.palette import VERDICTS, outcome_text

if TYPE_CHECKING:
    from explorer.analysis.results import Explanation, Solution
    from explorer.analysis.sequences import ValueSequence

#: Values of a sequence formatted at a time (a multiple of 20, the values a line shows).
STREAM_VALUES = 20 * 4096
#: Values past which `sequence --until-periodic` prints a summary, and the rows it then shows.
SUMMARY_VALUES, SUMMARY_ROWS = 2_000, 5
#: Moves listed by `explorer explain` before it says how many more there are.
EXPLAIN_ROWS = 50
#: Winning moves named by `explorer explain` below a table that could not list every move.
EXPLAIN_WINNING = 20


@click.command("games")
@json_option(
    "a list of objects, one per family: name, parameters, position, example, source, summary"
)
def games_command(as_json: bool) -> None:
    """List the game families, their parameters and position syntax.

    On a terminal, a table; into a pipe or a file, a header line and a line a family, its
    fields separated by tabs (aliases: kayles = octal:0.77, dawson = octal:0.07).

    \b
    Example:
      explorer games
    """
    from explorer.games.pyspec import PY_ROW, plugin_rows

    rows = [
        {
            "name": name,
            "parameters": cls.parameters,
            "position": cls.position_syntax,
            "example": shlex.join(cls.example),
            "summary": cls.summary,
            "source": "built-in",
        }
        for name, cls in families()
    ]
    rows += [{**PY_ROW, "source": "a Python file you write"}, *plugin_rows()]
    if as_json:
        print_json(rows)
        return
    columns = ("name", "parameters", "position", "example", "source")
    if not console.is_terminal:  # into a pipe or a file: a line a family, fields by tabs
        for line in [columns, *([row[c] for c in columns] for row in rows)]:
            click.echo("\t".join(visible(field) for field in line))
        return
    table = Table(title="game families (aliases: kayles = octal:0.77, dawson = octal:0.07)")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    print_table(table)


@click.command("solve")
@click.argument("spec")
@click.argument("position")
@click.option(
    "--method",
    type=click.Choice(["auto", "graph", "decompose", "pruned"]),
    default="auto",
    show_default=True,
    help="graph: whole game graph (gives remoteness); decompose: from the parts; pruned: "
    "the pruned nimber search (games on boards and graphs; auto takes it past small graphs).",
)
@misere_option
@max_states_option
@max_memory_option
@stored_option("Read and add to the part values a database stores (games on graphs and boards)")
@json_option(
    "one object: game, position, grundy, infinite, escapes, outcome, remoteness, winning_moves,"
    " drawing_moves, move_names (position reached -> the move in words), method, states, note,"
    " convention (and reduction_value for a reduction)"
)
def solve_command(
    spec: str,
    position: str,
    method: str,
    convention: Convention,
    max_states: int | None,
    max_memory: int | None,
    url: str | None,
    as_json: bool,
) -> None:
    """Grundy value, outcome, remoteness and winning moves of a POSITION of the game SPEC.

    In a game with cycles the value may be infinite, ∞(K) (K: the finite values one move
    away), and the outcome a draw (D). With --misere the last player to move loses.
    POSITION is written as `explorer games` shows for the family; in a graph game a lone
    name is a vertex, never a named graph's other spelling (G3x4: write 3x4) or a file
    (g.txt reads the file).

    \b
    Examples:
      explorer solve nim 3,4,5
      explorer solve "nim + kayles" "3,4 + 7" --json
      explorer solve "windup:5:1,3 + nim" "2 + 1"
      explorer solve nim 1,1,1 --misere
      explorer solve kayles 1000000000000
      explorer solve nodekayles 5x5 --db graphs.db
    """
    from explorer.analysis.solving import solve

    game = load_game(spec)
    if max_memory is not None:
        for part in game.summands() or (game,):
            heaps = part.heap_rules()
            if heaps is not None:
                heaps.max_memory_mb = max_memory
    parsed = game.parse(position)
    with ExitStack() as stack:
        if url is not None:  # the part values a database keeps, read first, added to after
            from explorer.build import open_database

            database = stack.enter_context(open_database(url or None))
            # the position's parts are valued into it even when its graph answers alone
            # (the pruned search stores the parts it values itself, as it goes)
            complete = method != "pruned"
            stack.enter_context(database.parts.building(game, parsed, complete, convention))
        stage = stack.enter_context(working(f"solving {visible(spec)}", enabled=not as_json))
        stack.enter_context(search_progress(stage, max_memory))
        result = solve(
            game,
            parsed,
            method=method,  # type: ignore[arg-type]
            max_states=max_states or DEFAULT_MAX_STATES,
            convention=convention,
        )
    if as_json:
        print_json(result.to_dict())
    else:
        _print_solution(result, game, parsed, convention)


def _print_solution(
    result: Solution, game: Game[Any], parsed: object, convention: Convention
) -> None:
    """A solved position as text: its value, outcome and remoteness, then its winning (or
    drawing) moves."""
    console.print(f"game        {visible(result.game)}")
    console.print(f"position    {shown(result.position)}")
    _print_board(game, parsed, "            ")
    if convention == MISERE:
        console.print("convention  misère (the player who moves last loses)")
    elif result.reduction_value is not None:
        console.print(
            f"reduction   {result.reduction_value} (the reduction's value keeps the outcome, not "
            "the Grundy value: --method graph computes that)"
        )
    else:
        console.print(f"grundy      {result.value}")
    console.print(f"outcome     {outcome_text(result.outcome)}")
    if result.remoteness is not None:
        console.print(f"remoteness  {result.remoteness}")
    console.print(f"method      {result.method}" + (f" ({result.note})" if result.note else ""))
    if result.winning_moves:
        first = result.winning_moves[:20]
        more = len(result.winning_moves) - len(first)
        console.print("winning moves:")
        for move in first:
            console.print(f"  {_move_line(move, result.move_names)}")
        if more:
            console.print(f"  ... and {more} more (use --json for all)")
    if result.drawing_moves:
        console.print("drawing moves (any other move loses):")
        for move in result.drawing_moves[:20]:
            console.print(f"  {_move_line(move, result.move_names)}")
        if len(result.drawing_moves) > 20:
            console.print(f"  ... and {len(result.drawing_moves) - 20} more (use --json for all)")


@click.command("explain")
@click.argument("spec")
@click.argument("position")
@click.option(
    "--method",
    type=click.Choice(["auto", "graph"]),
    default="auto",
    show_default=True,
    help="graph: the mex of every move's value, even for a sum of parts.",
)
@misere_option
@max_states_option
@json_option(
    "one object: game, position, grundy, infinite, escapes, outcome, method, successors "
    "([position, value] pairs), parts ([game, position, value]), changes (each part, game, "
    "value, target, moves), nim, move_names (position reached -> the move in words), note, "
    "stage, counter, convention (and reduction_value for a reduction)"
)
def explain_command(
    spec: str,
    position: str,
    method: str,
    convention: Convention,
    max_states: int | None,
    as_json: bool,
) -> None:
    """Show how a POSITION's Grundy value arises: the mex of its successors, or a XOR of parts.

    A sum shows its parts' values, their XOR in binary columns, and every move of a small
    position with its value (the winning moves of an N-position). In a game with cycles, it
    shows the stage of the labelling that fixed the value (and the counter); with --misere,
    the moves' misère outcomes.

    \b
    Examples:
      explorer explain subtraction:1,2,3 5
      explorer explain nim 3,4,5
      explorer explain nim 3,4,5 --method graph
      explorer explain windup:5:1,3 4
      explorer explain nim 1,2 --misere
    """
    from explorer.analysis.solving import explain

    game = load_game(spec)
    parsed = game.parse(position)
    with working(f"explaining {visible(spec)}", enabled=not as_json):  # a spinner on terminals
        result = explain(
            game,
            parsed,
            max_states=max_states or DEFAULT_MAX_STATES,
            method=method,  # type: ignore[arg-type]
            convention=convention,
        )
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"{visible(result.game)} at {shown(result.position)}")
    _print_board(game, parsed, "  ")
    if convention == MISERE:
        _print_moves(result, "misère outcome")
        console.print(result.note)
        return
    if result.method in ("decomposition", "reduction"):
        _print_sum(result)
    else:
        _print_moves(result, "grundy")
        console.print(result.reason())
        winning = _move_words(result.winning_moves, result.move_names)
        if winning:  # every N-position names its winning moves, listed above or not
            listed = "; ".join(winning[:EXPLAIN_WINNING])
            more = len(winning) - EXPLAIN_WINNING
            console.print(
                f"winning move{'' if len(winning) == 1 else 's'}: {listed}"
                + (f" and {more:,} more" if more > 0 else "")
            )
    console.print(VERDICTS[result.outcome])


def _print_sum(result: Explanation) -> None:
    """A sum's parts with their values in binary columns, the XOR, and its moves by value."""
    console.print(f"{result.note}:" if result.parts else result.note)
    reduced = result.reduction_value is not None
    total = result.reduction_value if reduced else result.grundy
    finite = [v for _, _, v in result.parts if isinstance(v, int)]
    binary = len(finite) == len(result.parts) and isinstance(total, int)
    width = max([*finite, total or 0, 1]).bit_length() if binary else 0
    if result.parts:
        table = Table("part", "game", "grundy", *(["binary"] if binary else []))
        for game_spec, text, value in result.parts:
            bits = [format(value, f"0{width}b")] if binary else []
            table.add_row(shown(text), visible(game_spec), str(value), *bits)
        if binary:
            table.add_section()
            table.add_row("XOR", "", str(total), format(total or 0, f"0{width}b"))
        print_table(table)
    xor = " XOR ".join(str(v) for _, _, v in result.parts) or "0 (no parts)"
    if reduced:
        console.print(
            f"reduction value = {xor} = {total} (0 exactly on P-positions; not the Grundy "
            "value of the game as played)"
        )
    else:
        console.print(f"G = {xor} = {result.value}")
    if result.changes:
        _print_changes(result, width)
    winning = _move_words(result.winning_moves, result.move_names)
    moves = len(result.successors)
    if moves and not (winning and moves == len(winning) and result.outcome == "N"):
        _print_moves(result, "reduction value" if reduced else "grundy")
    if result.outcome == "P" and moves:
        console.print(
            "every move changes one part's value, so the XOR of the parts is no longer 0: "
            "no move reaches a P-position"
        )
    elif winning:
        console.print(f"winning move{'s' if len(winning) > 1 else ''}: " + "; ".join(winning))


def _print_changes(result: Explanation, width: int) -> None:
    """Bouton's arithmetic: the XOR's highest 1, and each part that changes to make it 0."""
    total = result.grundy or 0
    column = total.bit_length() - 1

    def bits(value: int) -> str:
        return format(value, f"0{width}b")

    console.print(
        f"to win, make the XOR 0: change one part to its value XOR {total} ({bits(total)}); "
        f"a part with a 1 in the XOR's highest column (the {2**column:,}s) can always go down"
    )
    for change in result.changes:
        value, target = change["value"], change["target"]
        arithmetic = f"{bits(value)} XOR {bits(total)} = {bits(target)}"
        first = change["moves"][:EXPLAIN_WINNING]
        if result.nim:
            console.print(
                f"  heap {visible(change['part'])}: {arithmetic}: take {value - target:,} from "
                f"the heap of {value:,}, leaving {target:,} -> {'; '.join(map(shown, first))}"
            )
        else:
            moves = "; ".join(_move_words(first, result.move_names))
            console.print(
                f"  part {visible(change['part'])} ({visible(change['game'])}, G {value}): "
                f"{arithmetic}: move it to a position of value {target} -> {moves}"
            )


#: Widest board `solve` and `explain` draw as text (in columns).
WIDEST_BOARD = 26


def _print_board(game: Game[Any], position: object, indent: str) -> None:
    """A position on a board drawn as the board, its cells named as moves name them."""
    picture = game.picture(position)
    if isinstance(picture, BoardPicture) and 0 < picture.cols <= WIDEST_BOARD:
        for line in picture.lines():
            console.print(f"{indent}{line}")


def _move_line(text: str, names: Mapping[str, str]) -> str:
    """A move as `solve` lists it: its words, when the game has some, and where it goes."""
    name = names.get(text)
    return f"-> {shown(text)}" if name is None else f"{visible(name)} -> {shown(text)}"


def _move_words(moves: Sequence[str], names: Mapping[str, str]) -> list[str]:
    """Moves in a player's words where the game has some, else the positions they reach."""
    return [visible(names[m]) if m in names else shown(m) for m in moves]


def _print_moves(result: Explanation, column: str) -> None:
    """The first `EXPLAIN_ROWS` moves of an explanation, each with its `column` value (and
    its words, when the game has some)."""
    successors, names = result.successors, result.move_names
    table = Table(*(["move"] if names else []), "move to", column)
    for text, value in successors[:EXPLAIN_ROWS]:
        words = [visible(names.get(text, ""))] if names else []
        table.add_row(*words, shown(text), str(value))
    if successors:
        print_table(table)
    if len(successors) > EXPLAIN_ROWS:
        more = len(successors) - EXPLAIN_ROWS
        console.print(f"... and {more:,} more moves (use --json for all)")


@click.command("sequence")
@click.argument("spec")
@upto_option("Compute G(0) .. G(UPTO) (with --until-periodic: the most values to compute).")
@click.option(
    "--from",
    "start",
    type=AsciiIntRange(min=0, max=MAX_STORED_INT),
    default=0,
    help="Print G(FROM) .. G(UPTO) only (far values of a proven period cost nothing).",
)
@click.option(
    "--until-periodic",
    is_flag=True,
    help="Stop as soon as the values prove a period (octal games); --upto is the bound. "
    f"Past {SUMMARY_VALUES:,} values it prints a summary (--values prints them all).",
)
@click.option(
    "--rebuild",
    is_flag=True,
    help="With --db: delete the stored values first and compute them again.",
)
@click.option(
    "--values",
    "all_values",
    is_flag=True,
    help="Print every value, even of a long --until-periodic run.",
)
@misere_flag("Misère values G⁻ of one heap (the last mover loses; 0 exactly on P-positions).")
@click.option(
    "--genus",
    is_flag=True,
    help="The misère genus of each heap in Conway's notation (g^γ0γ1…, e.g. 4^146).",
)
@max_memory_option
@workers_option
@stored_option("Store the values in a database and continue from it")
@json_option(
    "one object: game, start, upto, values, computed, period, preperiod, proven, largest, rare,"
    " checksum, method, stored"
)
def sequence_command(
    spec: str,
    upto: int,
    start: int,
    until_periodic: bool,
    rebuild: bool,
    all_values: bool,
    convention: Convention,
    genus: bool,
    max_memory: int | None,
    workers: int,
    url: str | None,
    as_json: bool,
) -> None:
    """The values G(0..N) of one heap (or strip, or coin) of a game, and their period.

    Octal games are computed until the Guy-Smith theorem proves their period; later values
    follow from it. Splitting games use the compiled sparse-space method past 30,000 values.

    \b
    Examples:
      explorer sequence kayles --upto 2000
      explorer sequence octal:0.16 --until-periodic --upto 10000000
      explorer sequence kayles --from 1000000000000 --upto 1000000000020 --json
      explorer sequence grundy --upto 1048576 --db explorer.db
      explorer sequence kayles --upto 40 --misere
      explorer sequence grundy --upto 4194304 --workers 2
      explorer sequence kayles --upto 40 --genus

    With --db the values are stored (the same database as builds): a larger --upto continues
    from them, a killed run resumes, and a stored sequence is read back without computing.

    With --workers N the compiled kernel computes blocks of heaps on N threads: each heap's
    pairs of values known before the block in parallel, then the few pairs inside the block
    in order (the same values and checksum as one worker). The progress bar shows the
    values a second and, with --upto, the time left.

    Memory: the whole sequence, 2 bytes a value, under --memory. No window: the rare pairs,
    the verification scans (to the middle for a rare value), the naive method and the period
    proof read values back to the start; only games without splits read a bounded distance
    back, and their period is proven soon after it.

    --genus gives each heap's genus g^γ0γ1…: g its normal value, γk = G⁻(heap + k copies of
    *2), written up to where it alternates for ever (Conway's notation; computed on the
    sums' game trees until γ repeats with period 2 twice, so it stays small: tens of heaps).

    The summary rows follow the public octal-game tables (T. Czajka's), over the values
    computed, G(0..N-1): the largest value and the first heap where it falls; the parity
    mask m that makes the fewest positions rare (a position n is rare when popcount(G(n) & m)
    is even; "+pos" when n's parity, XOR the parity of the tokens a split removes, counts as
    one more bit of the value), the number of rare positions among the N, and the last one.
    """
    if genus:
        _genus_sequence(spec, upto, as_json)
        return
    if convention == MISERE:
        _misere_sequence(spec, upto, as_json)
        return
    game = load_game(spec)
    result, kept = _sequence_of(
        game,
        upto,
        url=url,
        rebuild=rebuild,
        as_json=as_json,
        start=start,
        until_periodic=until_periodic,
        max_memory=max_memory,
        workers=workers,
    )
    if as_json:
        _write_sequence_json(result)
    else:
        _write_sequence(result, until_periodic and not all_values, kept)


def _sequence_of(
    game: Game[Any],
    upto: int,
    *,
    url: str | None,
    rebuild: bool,
    as_json: bool,
    start: int,
    until_periodic: bool,
    max_memory: int | None,
    workers: int,
) -> tuple[ValueSequence, dict[str, Any] | None]:
    """The values G(0..upto) of one heap, computed (with a database: read, computed and
    stored as needed), and what the database keeps of them after (None without one)."""
    from explorer.analysis.sequences import stored_value_sequence, value_sequence

    with ExitStack() as stack:
        compute = value_sequence
        if url is not None:  # the values kept in a database, computed and stored as needed
            from explorer.build import open_database

            database = stack.enter_context(open_database(url or None))
            stack.enter_context(database.parts.shared(game))
            stored = database.game(game)
            if rebuild:
                stored.delete_sequence()
            compute = partial(stored_value_sequence, stored)
        result = compute(
            game,
            upto,
            start=start,
            until_periodic=until_periodic,
            progress=stack.enter_context(sequence_progress(not as_json, upto + 1)),
            max_memory_mb=max_memory,
            workers=workers,
        )
        kept = None
        if url is not None and not as_json:
            kept = next((g["sequence"] for g in database.games() if g["game"] == game.spec), None)
    return result, kept


def _write_sequence_json(result: ValueSequence) -> None:
    """The sequence as one JSON object, its values streamed: a list of 16 million Python ints
    would take 130 MB."""
    out = sys.stdout  # click.get_text_stream is deprecated from click 8.5
    out.write(json.dumps(result.to_dict(values=False))[:-1] + ', "values": [')
    for offset in range(0, len(result.values), STREAM_VALUES):
        part = result.values[offset : offset + STREAM_VALUES].tolist()
        out.write((", " if offset else "") + ", ".join(map(str, part)))
    out.write("]}\n")


def _write_sequence(result: ValueSequence, summary: bool, kept: dict[str, Any] | None) -> None:
    """The sequence as text, 20 values a row (with `summary`, the first rows only of a long
    one), then its period, summary rows, checksum and what a database keeps of it."""
    out = sys.stdout
    g = result.symbol
    if g == "R":
        out.write(
            f"{result.game}: reduction values R({result.start}..{result.upto}) (0 exactly on "
            "P-positions; they keep the outcome, not the Grundy value)\n"
        )
    else:
        out.write(f"{result.game}: G({result.start}..{result.upto})\n")
    shown = len(result.values)
    if summary and shown > SUMMARY_VALUES:
        shown = SUMMARY_ROWS * 20
    for offset in range(0, shown, STREAM_VALUES):
        values = result.values[offset : min(offset + STREAM_VALUES, shown)].tolist()
        lines = []
        for row in range(0, len(values), 20):
            chunk = " ".join(f"{v:>3}" for v in values[row : row + 20])
            lines.append(f"{result.start + offset + row:>6}: {chunk}\n")
        out.write("".join(lines))
    if shown < len(result.values):
        out.write(
            f"... {g}({result.start + shown}..{result.upto}) not shown: --values prints them, "
            "--json gives them\n"
        )
    if result.proven and result.computed <= result.upto:
        out.write(
            f"computed G(0..{result.computed - 1}) ({result.method}); the rest follow from the "
            "period\n"
        )
    rows = result.rows_text()
    if rows is not None:
        out.write(rows + "\n")
    checksum = result.checksum
    if checksum is not None:
        out.write(f"Fletcher-32 {checksum:08x} of {g}({result.start}..{result.upto})\n")
    if kept is not None:
        out.write(
            f"stored: G(0..{kept['values'] - 1}), Fletcher-32 {kept['checksum']} of them "
            "(as stats shows)\n"
        )
    out.write(result.summary() + "\n")


def _misere_sequence(spec: str, upto: int, as_json: bool) -> None:
    from explorer.analysis.misere import misere_sequence

    game = load_game(spec)
    with sequence_progress(not as_json) as progress:
        result = misere_sequence(game, upto, progress=progress)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"{visible(result.game)}: misère G⁻(0..{upto}) (0 exactly on misère P-positions)")
    for start in range(0, len(result.values), 20):
        chunk = " ".join(f"{v:>3}" for v in result.values[start : start + 20])
        console.print(f"{start:>6}: {chunk}")
    if result.period is None:
        console.print("no period found in these values")
    else:
        console.print(f"period {result.period}, preperiod {result.preperiod}: observed, not proven")


def _genus_sequence(spec: str, upto: int, as_json: bool) -> None:
    from explorer.analysis.genus import genus_sequence

    game = load_game(spec)
    with sequence_progress(not as_json, upto + 1) as progress:
        result = genus_sequence(game, upto, progress=progress)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(
        f"{visible(result.game)}: genus of heaps 0..{upto} (g^γ0γ1…, γk = G⁻(heap + k·*2))"
    )
    texts = [g.text() for g in result.genera]
    for start in range(0, len(texts), 10):
        row = " ".join(f"{t:<9}" for t in texts[start : start + 10])
        console.print(f"{start:>6}: {row.rstrip()}")
    console.print(result.summary())


@click.command("table")
@click.argument("spec")
@click.option("--rows", type=AsciiIntRange(min=1, max=MAX_SIDE), default=10, show_default=True)
@click.option("--cols", type=AsciiIntRange(min=1, max=MAX_SIDE), default=10, show_default=True)
@max_states_option
@max_memory_option
@json_option("one object: game, values (a list of rows, null where a cell is no position)")
def table_command(
    spec: str, rows: int, cols: int, max_states: int | None, max_memory: int | None, as_json: bool
) -> None:
    """The value table G(r, c) of a two-coordinate game (wythoff, ferguson, two heaps).

    Wythoff and Ferguson are filled by dynamic programming over the table, two heaps of a heap
    game from its value sequence: 1000 x 1000 takes about a second.

    \b
    Examples:
      explorer table wythoff --rows 8 --cols 8
      explorer table wythoff --rows 1000 --cols 1000 --json
    """
    from explorer.analysis.solving import value_table

    game = load_game(spec)
    fields = {"cells": "{:>11,} cells"}
    with progress_bar("table", fields, total=rows * cols, enabled=not as_json) as update:
        values = value_table(
            game,
            rows,
            cols,
            max_states=max_states or DEFAULT_MAX_STATES,
            progress=lambda done, total: update(completed=done, cells=done),
            **({"max_memory_mb": max_memory} if max_memory else {}),
        )
    if as_json:
        print_json({"game": game.spec, "values": values})
        return
    table = Table(title=f"{visible(game.spec)}: G(row, column)")
    table.add_column("")
    for c in range(cols):
        table.add_column(str(c), justify="right")
    for r, row in enumerate(values):
        table.add_row(str(r), *("·" if v is None else str(v) for v in row))
    print_table(table)


COMMANDS = [games_command, solve_command, explain_command, sequence_command, table_command]
