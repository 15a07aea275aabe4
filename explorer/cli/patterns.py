"""Commands over the patterns of values: patterns (one game), sweep (a family of variants)."""

from __future__ import annotations

import csv
import json
import sys
from typing import TYPE_CHECKING

import click

from explorer.cli.common import (
    AsciiIntRange,
    console,
    json_option,
    max_memory_option,
    print_json,
    progress_bar,
    stored_option,
    upto_option,
    visible,
    workers_option,
    working,
)
from explorer.limits import MAX_STORED_INT

if TYPE_CHECKING:
    from explorer.analysis.patterns import Patterns, Revision

#: The columns of a sweep's table, CSV and JSON rows.
SWEEP_COLUMNS = ("spec", "period", "preperiod", "saltus", "status", "largest")


@click.command("patterns")
@click.argument("spec")
@upto_option(
    "Last heap computed (default 1,000); for a game on two numbers, the last row and "
    "column (default 200).",
    default=None,
)
@click.option(
    "--genus",
    is_flag=True,
    help="The period of the sequence of misère genera (heaps 0..UPTO, default 40) instead.",
)
@max_memory_option
@stored_option(
    "Store the patterns beside the game in a database, checking those stored before "
    "(a longer run proves or refutes them)"
)
@json_option("one object: game, upto, patterns (each kind, status, fields, ...)")
def patterns_command(
    spec: str,
    upto: int | None,
    genus: bool,
    max_memory: int | None,
    url: str | None,
    as_json: bool,
) -> None:
    """The patterns in the values of the game SPEC, each proved or observed.

    One heap (or strip): the least period and preperiod, or arithmetic period and saltus
    G(n + p) = G(n) + s; the P-positions as residues; the common and rare values. Proved by
    the Guy-Smith theorem (octal games), the window lemma (finite subtraction sets) or the
    state lemma (all-but sets); otherwise "observed up to N". Two numbers (wythoff, sums of
    two games): P-positions on a diagonal or on Beatty pairs (floor(n*alpha), floor(n*beta))
    with alpha named, G(a, b) = G(a, 0) xor G(0, b), periodic rows.

    \b
    Examples:
      explorer patterns kayles
      explorer patterns subtraction:1,3,4 --upto 200 --json
      explorer patterns subtraction:1,2 --genus
      explorer patterns wythoff --upto 300
      explorer patterns "nim + subtraction:1,2" --upto 40
      explorer patterns kayles --upto 2000 --db games.db

    With --db the patterns are stored with their status and bound (stats and serve show
    them); a stored pattern a later, longer run contradicts is kept as refuted at the heap
    where the values break it, and one it proves is marked proved.
    """
    from explorer.analysis.patterns import analyse
    from explorer.games import load_game

    game = load_game(spec)
    if genus:
        if url is not None:
            raise click.UsageError("--genus patterns are not stored: drop --db")
        from explorer.analysis.genus import DEFAULT_GENUS_UPTO, genus_sequence

        with working("genus", enabled=not as_json):
            found = genus_sequence(game, upto or DEFAULT_GENUS_UPTO).patterns()
        _print_patterns(found, [], as_json=as_json, stored=False)
        return
    with working("patterns", enabled=not as_json):
        found, data = analyse(game, upto, max_memory)
    revisions = []
    if url is not None:
        from explorer.build import open_database

        with open_database(url or None) as database:
            revisions = database.game(game).save_patterns(found, data)
    _print_patterns(found, revisions, as_json=as_json, stored=url is not None)


def _print_patterns(
    found: Patterns, revisions: list[Revision], *, as_json: bool, stored: bool
) -> None:
    if as_json:
        print_json(
            {**found.to_dict(), "stored": [r.to_dict() for r in revisions]}
            if stored
            else found.to_dict()
        )
        return
    console.print(f"{visible(found.game)} up to {found.upto:,}:")
    if not found.patterns:
        console.print(f"no pattern found up to {found.upto:,}")
    for pattern in found.patterns:
        console.print(f"{pattern.kind:<18} {pattern.text()}")
        console.print(f"{'':<18} {pattern.status_text()}")
    for revision in revisions:
        console.print(f"stored before: {revision.text()}")


@click.command("sweep")
@click.argument("pattern")
@upto_option("Last heap computed for each variant.", default=1000)
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV rows (with a header).")
@click.option(
    "--max-variants",
    type=AsciiIntRange(min=1, max=MAX_STORED_INT),
    default=None,
    help="Most variants the pattern may name (default 100,000).",
)
@max_memory_option
@workers_option
@json_option(
    "one object: pattern, upto, rows (each spec, upto, period, preperiod, saltus, status, "
    "theorem, largest)"
)
def sweep_command(
    pattern: str,
    upto: int,
    as_csv: bool,
    max_variants: int | None,
    max_memory: int | None,
    workers: int,
    as_json: bool,
) -> None:
    """The period of every variant a PATTERN names, one row each, as they are computed.

    Wildcards: ? is an octal digit, {a..b} every non-empty subset of a..b, a..b every
    integer from a to b. Each row gives the (arithmetic) period, preperiod and saltus, the
    status (proved by a theorem, observed, or no period up to N) and the largest value.

    \b
    Examples:
      explorer sweep "octal:0.??" --upto 2000
      explorer sweep "subtraction:{1..6}" --csv
      explorer sweep bash:2..20 --json
      explorer sweep "octal:0.???" --upto 5000 --workers 2

    With --workers N, N variants are computed at a time, in worker processes.
    """
    from explorer.analysis.sweep import MAX_VARIANTS, sweep

    if as_csv and as_json:
        raise click.UsageError("choose one of --csv and --json")
    count, rows = sweep(
        pattern,
        upto,
        max_variants=max_variants or MAX_VARIANTS,
        max_memory_mb=max_memory,
        workers=workers,
    )
    out = sys.stdout  # click.get_text_stream is deprecated from click 8.5
    writer = csv.writer(out, lineterminator="\n") if as_csv else None
    fields = {"done": "{:>7,} variants", "spec": "{}"}
    with progress_bar("sweep", fields, total=count, enabled=not (as_csv or as_json)) as update:
        if writer is not None:
            writer.writerow(SWEEP_COLUMNS)
        elif as_json:
            out.write(json.dumps({"pattern": pattern, "upto": upto})[:-1] + ', "rows": [')
        else:
            console.print(_line(SWEEP_COLUMNS))
        for done, row in enumerate(rows, start=1):
            cells = _cells(row)
            if writer is not None:
                writer.writerow(cells)
            elif as_json:
                out.write((", " if done > 1 else "") + json.dumps(row.to_dict()))
            else:
                console.print(_line(cells))
            update(completed=done, done=done, spec=row.spec)
        if as_json:
            out.write("]}\n")
    if not (as_csv or as_json):
        console.print(f"{count:,} variants up to {upto:,}")


def _cells(row: object) -> tuple[str, ...]:
    from explorer.analysis.sweep import SweepRow

    assert isinstance(row, SweepRow)
    blank = "" if row.period is None else None
    return (
        visible(row.spec),
        blank if blank is not None else str(row.period),
        blank if blank is not None else str(row.preperiod),
        blank if blank is not None else str(row.saltus),
        row.status_text(),
        str(row.largest),
    )


def _line(cells: tuple[str, ...]) -> str:
    spec, period, preperiod, saltus, status, largest = cells
    return f"{spec:<22} {period:>8} {preperiod:>9} {saltus:>6}  {status:<28} {largest:>7}"


COMMANDS = [patterns_command, sweep_command]
