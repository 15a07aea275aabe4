"""The patterns and the misère quotient stored for a game, as `StoredGame` reads and writes them
(see `explorer.storage.findings`); both are of the game's normal-play rules, kept on its
normal-play row, and a misère handle refuses them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explorer.games import load_game
from explorer.games.convention import NORMAL
from explorer.storage.engine import translated
from explorer.storage.findings import load_patterns, load_quotient, save_patterns, save_quotient
from explorer.storage.game_rows import GameRows
from explorer.storage.records import lookup_game, stored_game

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
    >>> from explorer.storage import open_database
    >>> db = open_database("sqlite://")
    >>> game = db.game("subtraction:1,2")
    >>> found, values = analyse(load_game("subtraction:1,2"), 30)
    >>> game.save_patterns(found, values)
    []
    >>> [(p["kind"], p["status"], p["upto"]) for p in game.patterns()][0]
    ('period', 'proved', 30)
    >>> db.close()
    """

    def _row(self, conn: Any, *, create: bool = False) -> int | None:
        if create:
            game = self.given if self.given is not None else load_game(self.spec)
            return stored_game(conn, game, NORMAL)
        found = lookup_game(conn, self.spec, NORMAL)
        return None if found is None else found[0]

    @translated("read")
    def patterns(self) -> list[dict[str, Any]]:
        """The stored patterns of the game (see `load_patterns`); [] when there are none."""
        self._normal_play("patterns")
        with self.engine.connect() as conn:
            game_id = self._row(conn)
            return [] if game_id is None else load_patterns(conn, game_id)

    @translated("write to")
    def save_patterns(self, found: Patterns, data: np.ndarray) -> list[Revision]:
        """Store the patterns of a run and revise those stored before (see `save_patterns`);
        one transaction."""
        self._normal_play("patterns")
        with self.engine.connect() as conn:
            with conn.begin():
                game_id = self._row(conn, create=True)
                assert game_id is not None
                return save_patterns(conn, game_id, found, data)

    @translated("read")
    def quotient(self) -> MisereQuotient | None:
        """The stored misère quotient of the game, or None."""
        self._normal_play("misère quotients")
        with self.engine.connect() as conn:
            game_id = self._row(conn)
            return None if game_id is None else load_quotient(conn, game_id)

    @translated("write to")
    def save_quotient(self, quotient: MisereQuotient) -> None:
        """Store the game's misère quotient, replacing the one stored."""
        self._normal_play("misère quotients")
        with self.engine.connect() as conn:
            with conn.begin():
                game_id = self._row(conn, create=True)
                assert game_id is not None
                save_quotient(conn, game_id, quotient)
