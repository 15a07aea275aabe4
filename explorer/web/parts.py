"""The parts of a stored position on graphs or boards, drawn on its page (`explorer.viz.parts`),
valued from the database's part table, read once per game; a small part the table lacks is
valued in memory, a large one is shown without its value (the app never writes)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from explorer.analysis.parts import PartTable
from explorer.errors import ExplorerError
from explorer.games.convention import MISERE
from explorer.viz.parts import PartDrawing, PartsView, known_values, parts_view, position_drawing

if TYPE_CHECKING:
    from explorer.storage import Database
    from explorer.web.params import Named

#: Largest part (in vertices, edges or cells: its tier) a page values when the part table lacks
#: it: a few thousand positions at most, valued in well under a second.
MOST_VALUED = 16


class StoredParts:
    """Part pictures for the position pages of one read-only database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.lock = threading.Lock()
        self.tables: dict[str, PartTable] = {}

    def view(self, named: Named, key: str) -> PartsView | None:
        """The parts of the stored position `key` of a game with pictures; None for other
        games, for a game on a graph file (its rules are not loaded) and in misère play
        (whose outcomes do not come from the parts' values).

        Examples
        --------
        >>> from explorer.games.convention import NORMAL
        >>> from explorer import open_database
        >>> from explorer.web.params import Names
        >>> db = open_database("sqlite://")
        >>> _ = db.game("cram").build(".../##./...")
        >>> view = StoredParts(db).view(Names(db).game("cram", NORMAL), ".../##./...")
        >>> [(part.text, part.value) for part in view.parts], view.total
        ([('.../##./...', 1)], 1)
        >>> db.close()
        """
        rules = named.rules
        if rules is None or named.stored.convention == MISERE:
            return None
        try:
            position = rules.parse(key)
        except ExplorerError:  # a key older rules wrote: the page shows it without parts
            return None
        with self.lock:  # requests are served on several threads; the table grows in place
            table = self.tables.get(rules.spec)
            if table is None:
                table = self.tables[rules.spec] = self.database.parts.read(rules)
            return parts_view(rules, position, value_of=known_values(table, most=MOST_VALUED))


def stored_drawing(named: Named, key: str, start: str | None = None) -> PartDrawing | None:
    """The whole board or graph of the stored position `key`, on its page and the play page;
    with `start`, laid out as the start of the game is (a grid keeps its cells as play goes
    on); None for a game without pictures or whose rules are not loaded."""
    rules = named.rules
    if rules is None:
        return None
    try:
        return position_drawing(
            rules, rules.parse(key), None if start is None else rules.parse(start)
        )
    except ExplorerError:  # a key older rules wrote: the page plays it without a picture
        return None
