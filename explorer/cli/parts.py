"""The part table in `explorer stats`: parts stored per family, look-ups and hit rate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table

from explorer.cli.common import console, print_json, print_table
from explorer.games.specs import GameSpec

if TYPE_CHECKING:
    from explorer.storage import Database


def part_rows(database: Database) -> list[dict[str, Any]]:
    """Each family of the part table: parts stored, look-ups and hits by the runs that saved
    there, and the hit rate (hits / look-ups, None before any look-up)."""
    rows = []
    for row in database.parts.counts():
        looked, hits = int(row["lookups"]), int(row["hits"])
        rows.append({**row, "hit_rate": round(hits / looked, 4) if looked else None})
    return rows


def game_part_rows(rows: list[dict[str, Any]], spec: str) -> list[dict[str, Any]]:
    """The rows of the families a stored game's parts are filed under: the families its spec
    names (``nodekayles`` for ``nodekayles:P`` and ``nodekayles + nim``), or the spec itself
    (a game of your own); read from the spec alone, so no rules file is opened."""
    try:
        names = {part.family for part in GameSpec.parse(spec).parts} | {spec}
    except ValueError:  # a stored spec older code wrote: it names no family of ours
        names = {spec}
    return [row for row in rows if row["family"] in names]


def print_part_table(rows: list[dict[str, Any]]) -> None:
    """The part table's rows as a table (nothing when there are none)."""
    if not rows:
        return
    shared = Table("family", "parts stored", "look-ups", "hit rate", title="part table")
    for row in rows:
        rate = "-" if row["hit_rate"] is None else f"{row['hit_rate']:.1%}"
        shared.add_row(str(row["family"]), f"{row['parts']:,}", f"{row['lookups']:,}", rate)
    print_table(shared)


def show_part_rows(rows: list[dict[str, Any]], as_json: bool) -> None:
    """``stats --parts``: the rows as JSON, or as a table (or a line saying there are none)."""
    if as_json:
        print_json(rows)
    elif rows:
        print_part_table(rows)
    else:
        console.print("the part table is empty")
