"""The patterns and the misère quotient stored for a game, as ``explorer stats SPEC`` prints
them (``--json`` gives them as ``patterns`` and ``quotient``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table

from explorer.cli.common import console, print_table, visible

if TYPE_CHECKING:
    from explorer.storage import GameStats

#: Largest stored quotient whose multiplication table is printed.
TABLE_SIZE = 16
#: Elements of Φ printed on one line.
PHI_LINE = 10
#: Heaps whose Φ is printed (a quotient may be of a million heaps).
PHI_SHOWN = 1_000


def print_findings(stats: GameStats) -> None:
    """Print the stored patterns and misère quotient of a game's `StoredGame.stats`."""
    from explorer.storage.rows.findings import pattern_status, pattern_text

    if stats.patterns:
        console.print("patterns stored (explorer patterns --db):")
        for stored in stats.patterns:
            console.print(f"{stored['kind']:<18} {pattern_text(stored)}")
            console.print(f"{'':<18} {pattern_status(stored)}")
    if stats.quotient is None:
        return
    q: dict[str, Any] = stats.quotient.to_dict()
    names = q["elements"]
    console.print(
        f"misère quotient of heaps 0..{q['max_heap']}: {q['presentation']}, |Q| = {q['size']}, "
        f"|P| = {q['p_size']}, P = {{{', '.join(names[x] for x in q['p'])}}}, "
        f"{'tame' if q['tame'] else 'wild'}"
    )
    if q["size"] <= TABLE_SIZE:
        products = Table("", *names, title="products in the misère quotient")
        for i, row in enumerate(q["table"]):
            products.add_row(names[i], *(names[x] for x in row))
        print_table(products)
    console.print("pretending function Φ (heap: element):")
    phi = q["phi"][:PHI_SHOWN]
    for start in range(0, len(phi), PHI_LINE):
        chunk = " ".join(f"{names[x]:>6}" for x in phi[start : start + PHI_LINE])
        console.print(f"{start:>6}: {chunk}")
    if len(q["phi"]) > len(phi):
        console.print(f"... heaps {len(phi):,}..{q['max_heap']:,}: --json gives them all")


def print_stored_findings(findings: dict[str, dict[str, Any]]) -> None:
    """Print the games with stored patterns or quotients (`Database.findings`), one row each."""
    if not findings:
        return
    table = Table("game", "patterns", "misère quotient", title="patterns and quotients stored")
    for game, found in findings.items():
        patterns = ", ".join(f"{n} {status}" for status, n in found["patterns"].items())
        q = found["quotient"]
        table.add_row(
            visible(game),
            patterns or "none",
            "none" if q is None else f"|Q| = {q['size']:,}, heaps 0..{q['max_heap']:,}",
        )
    print_table(table)
