"""The quotient command: the misère quotient of a heap game, printed as MisereSolver prints it."""

from __future__ import annotations

from contextlib import ExitStack
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
    progress_bar,
    stored_option,
)
from explorer.games import load_game
from explorer.limits import QUOTIENT_MAX_SIZE, QUOTIENT_MAX_STATES

if TYPE_CHECKING:
    from explorer.analysis.quotient import MisereQuotient

#: Largest quotient whose multiplication table is printed (the JSON always has it).
TABLE_SIZE = 16
#: Elements of Φ printed on one line.
PHI_LINE = 10
#: Largest --max-heap (the moves of every heap are listed, so large heaps cost their square).
MAX_HEAP = 1_000_000


@click.command("quotient")
@click.argument("spec")
@click.option(
    "--max-heap",
    type=AsciiIntRange(min=0, max=MAX_HEAP),
    default=20,
    show_default=True,
    help="The quotient of the sums of heaps up to this size.",
)
@click.option(
    "--max-size",
    type=AsciiIntRange(min=1, max=1_000_000),
    default=QUOTIENT_MAX_SIZE,
    show_default=True,
    help="Most elements before stopping (a quotient growing with the heaps stops here).",
)
@click.option(
    "--max-states",
    type=AsciiIntRange(min=1, max=MAX_STATES_IN_MEMORY),
    default=QUOTIENT_MAX_STATES,
    show_default=True,
    help="Most positions solved and pairs checked while computing.",
)
@stored_option(
    "Store the quotient in a database; one stored for at least --max-heap heaps is read "
    "back without computing"
)
@json_option(
    "one object: game, max_heap, size, p_size, tame, elements, table, p, phi, generators, "
    "relations, presentation, changed_at, sizes, period, preperiod, period_proven, proof_heap"
)
def quotient_command(
    spec: str, max_heap: int, max_size: int, max_states: int, url: str | None, as_json: bool
) -> None:
    """The misère quotient of the heap game SPEC, restricted to heaps up to --max-heap.

    A sum of heaps is a misère P-position exactly when the product of its heaps' elements
    (the pretending function Φ) lies in P: printed are the presentation (or the tame quotient's
    name Tn), |Q| and |P|, Φ heap by heap, the heap where the presentation last changed,
    whether it is tame, and whether Φ is periodic (proven for octal games once enough heaps
    are computed). --json gives size, p_size, tame, elements (the identity first), table
    (table[i][j] is the product of elements i and j), p and phi.

    \b
    Examples:
      explorer quotient octal:0.75 --max-heap 16
      explorer quotient nim --max-heap 7 --json
      explorer quotient kayles --max-heap 11
      explorer quotient octal:0.75 --max-heap 40 --db games.db

    With --db the quotient is stored beside the game (stats and serve show it): a larger
    --max-heap later computes it again and replaces it; a smaller one prints the stored
    quotient (of more heaps, so it answers every sum of heaps up to --max-heap) at once.
    """
    from explorer.analysis.quotient import misere_quotient
    from explorer.errors import SpecError

    game = load_game(spec)
    if game.heap_rules() is None:
        raise SpecError(
            f"misère quotients are for heap games (nim, octal, kayles, ...), not {game.spec!r}"
        )
    quotient: MisereQuotient | None = None
    with ExitStack() as stack:
        stored = None
        if url is not None:
            from explorer.build import open_database

            stored = stack.enter_context(open_database(url or None)).game(game)
            quotient = stored.quotient()
        if quotient is None or quotient.max_heap < max_heap:
            fields = {"heap": "heap {:>7,}"}
            with progress_bar("quotient", fields, total=max_heap, enabled=not as_json) as bar:

                def added(heap: int, last: int) -> None:
                    bar(completed=heap, heap=heap)

                quotient = misere_quotient(
                    game, max_heap, max_size=max_size, max_states=max_states, progress=added
                )
            if stored is not None:
                stored.save_quotient(quotient)
        elif not as_json:
            console.print(
                f"stored: the quotient of heaps 0..{quotient.max_heap} (covers heaps up to "
                f"{max_heap}; a larger --max-heap computes it again)"
            )
    if as_json:
        print_json(quotient.to_dict())
        return
    _print_quotient(quotient)


def _print_quotient(q: MisereQuotient) -> None:
    names = q.elements
    console.print(f"{q.game}: misère quotient of heaps 0..{q.max_heap}")
    console.print(f"presentation  {q.presentation}")
    if q.tame and q.relations:
        rels = ", ".join(f"{lhs} = {rhs}" for lhs, rhs in q.relations)
        console.print(f"              <{', '.join(q.generators)} | {rels}>")
    console.print(f"|Q| = {q.size}, |P| = {q.p_size}")
    console.print("Q = {" + ", ".join(names) + "}")
    console.print("P = {" + ", ".join(names[x] for x in q.p) + "}")
    if q.size <= TABLE_SIZE:
        table = Table(title="products")
        table.add_column("")
        for name in names:
            table.add_column(name, justify="right")
        for i, row in enumerate(q.table):
            table.add_row(names[i], *(names[x] for x in row))
        print_table(table)
    console.print("pretending function Φ (heap: element):")
    for start in range(0, len(q.phi), PHI_LINE):
        chunk = " ".join(f"{names[x]:>6}" for x in q.phi[start : start + PHI_LINE])
        console.print(f"{start:>6}: {chunk}")
    console.print(f"presentation last changed at heap {q.changed_at}")
    console.print("tame: " + ("yes" if q.tame else "no"))
    console.print(_period_text(q))


def _period_text(q: MisereQuotient) -> str:
    if q.period is None:
        return "period of Φ: none seen in these heaps"
    text = f"period of Φ: {q.period} from heap {q.preperiod}"
    if q.period_proven:
        return text + " (proven: Q is the quotient of every heap size)"
    if q.proof_heap is not None:
        return text + f" (observed; --max-heap {q.proof_heap} would prove it)"
    return text + " (observed)"


COMMANDS = [quotient_command]
