"""The patterns and the misère quotient stored for a game, as `StoredGame` reads and writes them
(see `explorer.storage.rows.findings`); both are of the game's normal-play rules, kept on its
normal-play row, and a misère handle refuses them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explorer.storage.backends.errors import translated
from explorer.storage.query.game_rows import GameRows
from explorer.storage.rows.findings import (
    load_patterns,
    load_quotient,
    save_patterns,
    save_quotient,
)

if TYPE_CHECKING:
    import numpy as np

    from explorer.analysis.patterns import Patterns, Revision
    from explorer.analysis.quotient import MisereQuotient


class Findings(GameRows):
    """`StoredGame`'s reads and writes of the game's stored patterns and misère quotient.

    Examples
    --------
    >>> from explorer.analysis.patterns import analyse
    >>> from explorer.games import load_game
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> game = db.game("subtraction:1,2")
    >>> found, values = analyse(load_game("subtraction:1,2"), 30)
    >>> game.save_patterns(found, values)
    []
    >>> [(p["kind"], p["status"], p["upto"]) for p in game.patterns()][0]
    ('period', 'proved', 30)
    >>> db.close()
    """

    @translated("read")
    def patterns(self) -> list[dict[str, Any]]:
        """The stored patterns of the game (see `load_patterns`); [] when there are none."""
        self._normal_play("patterns")
        with self.engine.connect() as conn:
            row = self._found_row(conn)
            return [] if row is None else load_patterns(conn, row.id)

    @translated("write to")
    def save_patterns(self, found: Patterns, data: np.ndarray) -> list[Revision]:
        """Store the patterns of a run and revise those stored before (see `save_patterns`);
        one transaction."""
        self._normal_play("patterns")
        with self.engine.connect() as conn:
            with conn.begin():
                game_id = self._created_row(conn)
                return save_patterns(conn, game_id, found, data)

    @translated("read")
    def quotient(self) -> MisereQuotient | None:
        """The stored misère quotient of the game, or None."""
        self._normal_play("misère quotients")
        with self.engine.connect() as conn:
            row = self._found_row(conn)
            return None if row is None else load_quotient(conn, row.id)

    @translated("write to")
    def save_quotient(self, quotient: MisereQuotient) -> None:
        """Store the game's misère quotient, replacing the one stored."""
        self._normal_play("misère quotients")
        with self.engine.connect() as conn:
            with conn.begin():
                game_id = self._created_row(conn)
                save_quotient(conn, game_id, quotient)
