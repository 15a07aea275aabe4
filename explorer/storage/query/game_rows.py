"""`GameRows`, what every read of one stored game starts from: the game row a spec names in a
convention (resolved once), a position's stored row, and the rows as plain dicts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import sqlalchemy as sa

from explorer.errors import ExplorerError, NotStoredError, SpecError
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.pyspec import stored_rules
from explorer.games.specs import GameSpec
from explorer.storage.backends.errors import shown_location, translated
from explorer.storage.query.damage import checked_state
from explorer.storage.query.neighbourhood import chunks
from explorer.storage.rows.records import changed_python_builds, lookup_game, stored_game
from explorer.storage.tables import edges, states

if TYPE_CHECKING:
    import networkx as nx

    from explorer.games.base import Game
    from explorer.storage.database import Database


@dataclass(frozen=True)
class GameRow:
    """A stored game's row, as a handle resolved it: its id, its spec as stored, and the
    convention of its build. What the writes of one game (edits, re-solves, checks) take."""

    id: int
    spec: str
    convention: Convention

    @property
    def shown(self) -> str:
        """The spec as shown and reported (see `GameSpec.shown`)."""
        return GameSpec.parse(self.spec).shown()


class QueryResult(dict[str, Any]):
    """What `StoredGame.state`, `StoredGame.states`, `StoredGame.successors` and
    `StoredGame.predecessors` return: a plain dict (their JSON form), shown as a table in a
    notebook."""


def state_dict(row: Any) -> dict[str, object]:
    """A state row as reads return it (see `checked_state`: a damaged value reads as None)."""
    return checked_state(row)


def _misere_flag(convention: Convention) -> str:
    """What a command line adds to name a game's misère build."""
    return " --misere" if convention == MISERE else ""


class GameRows:
    """One game of a database in one convention (see `StoredGame`, which adds the reads and
    writes). Its game row is looked up on first use, and kept once found; a game not stored
    says what is stored and how to store it.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2")
    >>> from explorer.errors import NotStoredError
    >>> try:
    ...     db.game("nim", "misere").stats()
    ... except NotStoredError as error:
    ...     print(str(error).split(": ")[1])
    only its normal-play build is (build a position of it
    >>> db.close()
    """

    def __init__(
        self,
        database: Database,
        game: str | Game[Any],
        convention: Convention | str = NORMAL,
        *,
        rules: bool = True,
    ) -> None:
        self.database = database
        self.engine = database.engine
        if not isinstance(game, str):
            from explorer.games.arguments import as_game  # loads numpy: only for a Game

            game = as_game(game)
        try:
            self.convention = Convention(convention)
        except ValueError:
            raise SpecError(f"unknown convention {convention!r} (use normal or misere)") from None
        self._rules: Game[Any] | None = None
        # without the rules, positions are looked up as typed (a graph file is never read)
        self._rules_tried = not rules
        #: The rules given as an object (a game written in a notebook, say), built from as given.
        self.given: Game[Any] | None = None if isinstance(game, str) else game
        if isinstance(game, str):
            self.spec = game
        else:
            self.spec, self._rules, self._rules_tried = game.spec, game, True
        self._row: GameRow | None = None

    def __repr__(self) -> str:
        return f"{self.database!r}.game({self.spec!r}, {str(self.convention)!r})"

    def _normal_play(self, what: str) -> None:
        """Refuse an operation of the normal-play game on a misère handle (never crossed).

        Raises
        ------
        SpecError
            When the handle is of the game's misère build.
        """
        if self.convention != NORMAL:
            raise SpecError(
                f"{what} are of a game's normal-play build, not of its misère build: "
                f"use db.game({self.spec!r})"
            )

    # -- the game row -----------------------------------------------------------------------
    def _found_row(self, conn: sa.Connection) -> GameRow | None:
        """The game's row in the handle's convention, looked up until found, then kept; None
        while the game is not stored."""
        if self._row is None:
            found = lookup_game(conn, self.spec, self.convention)
            if found is not None:
                self._row = GameRow(found[0], found[1], self.convention)
        return self._row

    def _row_in(self, conn: sa.Connection) -> GameRow:
        """The game's row in the handle's convention (looked up once).

        Raises
        ------
        NotStoredError
            When the game is not stored in this convention; the message says what is stored
            and how to store it (the one message of every method of a handle).
        """
        found = self._found_row(conn)
        if found is None:
            raise self._not_stored(conn)
        return found

    @translated("read")
    def row(self) -> GameRow:
        """The game's row in the handle's convention, looked up once: what the writes of one
        game take (`explorer.build.edits.edit_game`, `verify_database`, ...).

        Raises
        ------
        NotStoredError
            When the game is not stored in this convention.

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> _ = db.game("kayles", "misere").build("3")
        >>> db.game("kayles", "misere").row()
        GameRow(id=1, spec='octal:0.77', convention=<Convention.MISERE: 'misere'>)
        >>> db.close()
        """
        with self.engine.connect() as conn:
            return self._row_in(conn)

    def _created_row(self, conn: sa.Connection) -> int:
        """The id of the game's row, stored now (in `conn`'s transaction) if it is not."""
        found = self._found_row(conn)
        if found is not None:
            return found.id
        return stored_game(conn, self._rules_to_store(), self.convention)

    def _rules_to_store(self) -> Game[Any]:
        from explorer.games import load_game

        return self.given if self.given is not None else load_game(self.spec)

    def _resolved(self, conn: sa.Connection) -> tuple[int, str]:
        """The id of the game row, and the game's spec as shown (see `row`)."""
        found = self._row_in(conn)
        return found.id, found.shown

    def _not_stored(self, conn: sa.Connection) -> NotStoredError:
        misere = self.convention == MISERE
        flag = _misere_flag(self.convention)
        where = shown_location(self.engine)
        shown = GameSpec.parse(self.spec).reported()
        if lookup_game(conn, self.spec, NORMAL if misere else MISERE) is not None:
            other = "only its normal-play build" if misere else "only its misère build"
            add = "" if misere else " (add --misere)"
            return NotStoredError(
                f"the {'misère' if misere else 'normal-play'} game {shown!r} is not stored in "
                f"{where!r}: {other} is{add} (build a position of it: explorer "
                f"build {shown!r} POSITION{flag})"
            )
        changed = changed_python_builds(conn, self.spec, self.convention)
        if changed is not None:
            return NotStoredError(f"{shown!r} is not stored in {where!r}: {changed}")
        hint = f"build a position first: explorer build {shown!r} POSITION{flag}"
        file = GameSpec.parse(shown).file_part
        if file is not None:
            name = os.path.basename(file.parameters or "")
            others = [
                GameSpec.parse(s).shown()
                for (s,) in conn.execute(
                    sa.text("SELECT spec FROM games WHERE family = :f ORDER BY id"),
                    {"f": file.family},
                )
                if os.path.basename(s) == name
            ]
            hint = (
                f"stored from files named {name!r}: {', '.join(others)}"
                if others
                else f"import it first: explorer import {file.import_argument()!r}"
            )
        which = "the misère game" if misere else "game"
        return NotStoredError(f"{which} {shown!r} is not stored in {where!r} ({hint})")

    # -- positions --------------------------------------------------------------------------
    def _key(self, position: str) -> tuple[str, str | None]:
        """The stored spelling of a position, and why it did not parse.

        A position the rules refuse may still be stored: an edit adds states to a DAG game
        that its file does not list. Such a position is looked up as typed, and the reason is
        kept for the error if it is not stored either.
        """
        if not self._rules_tried:
            self._rules_tried = True
            try:
                # a game with Python rules is read without running them
                self._rules = stored_rules(self.spec)
            except ExplorerError:
                self._rules = None
        if self._rules is None:
            return position, None
        try:
            return self._rules.format(self._rules.parse(position)), None
        except ExplorerError as error:
            return position, str(error)

    def move_words(self, line: Sequence[str]) -> list[str | None]:
        """Each move of a line of play (stored keys, the start first) in a player's words
        (`Game.move_name`), None where the rules have none or are not read.

        Examples
        --------
        >>> from explorer.storage import open_database
        >>> db = open_database("sqlite://")
        >>> db.game("nim").move_words(["3,4", "1,4", "1,1"])
        ['take 2 from 3', 'take 3 from 4']
        >>> db.close()
        """
        words: list[str | None] = []
        for before, after in zip(line, line[1:], strict=False):
            moved = self._named(before, [{"position": after}])
            words.append(moved[0]["move"])
        return words

    def _named(self, key: str, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The states a move from `key` reaches, each with its ``move`` in a player's words
        (`Game.move_name`; None where the rules have none or are not read)."""
        self._key(key)  # reads the rules, once
        rules, position = self._rules, None
        if rules is not None:
            try:
                position = rules.parse(key)
            except ExplorerError:
                rules = None
        for state in moves:
            state["move"] = None
            if rules is not None:
                try:
                    state["move"] = rules.move_name(position, rules.parse(state["position"]))
                except ExplorerError:  # a state an edit added, which the rules do not read
                    pass
        return moves

    def _located(self, conn: sa.Connection, position: str) -> tuple[int, str, Any]:
        """The game's id and shown spec, and the stored row of a position.

        Raises
        ------
        NotStoredError
            When the game or the position is not stored.
        """
        key, problem = self._key(position)
        game_id, spec = self._resolved(conn)
        row = conn.execute(states.BY_KEY, {"g": game_id, "k": key}).one_or_none()
        where = shown_location(self.engine)
        if row is None and problem is not None:
            raise NotStoredError(
                f"position {key!r} of {spec} is not stored in {where!r}: {problem}"
            )
        if row is None:
            raise NotStoredError(
                f"position {key!r} of {spec} is not stored in {where!r} "
                f"(build it first: explorer build {spec!r} {key!r}{_misere_flag(self.convention)})"
            )
        return game_id, spec, row

    # -- rows -------------------------------------------------------------------------------
    @staticmethod
    def _rows_by_id(conn: sa.Connection, game_id: int, ids: Sequence[int]) -> list[Any]:
        """The state rows of `ids`, in the order given."""
        found: dict[int, Any] = {}
        for chunk in chunks(ids):
            found.update(
                (row.id, row) for row in conn.execute(states.BY_IDS, {"g": game_id, "ids": chunk})
            )
        return [found[i] for i in ids]

    @staticmethod
    def _linked(
        conn: sa.Connection,
        game_id: int,
        state: int,
        direction: Literal["out", "in"],
        limit: int,
        offset: int,
        order: str | None = None,
    ) -> dict[str, Any]:
        """One page of the states one move from (``out``) or to (``in``) a state, in the SQL
        `order` of the state rows ``s`` (by default by id)."""
        near, far = edges.ends(direction)
        total = conn.execute(edges.count_at(near), {"g": game_id, "s": state}).scalar_one()
        rows = conn.execute(
            edges.linked_page(near, far, order),
            {"g": game_id, "s": state, "n": limit, "o": offset},
        )
        return {"total": total, "states": [state_dict(r) for r in rows]}

    def _graph(
        self, spec: str, root: str | None, rows: Sequence[Any], edges: Sequence[Any]
    ) -> nx.DiGraph:
        """A NetworkX graph of state rows and the moves among them (pairs of state ids)."""
        import networkx as nx  # only the reads that return graphs load it

        graph = nx.DiGraph(game=spec, root=root, convention=self.convention)
        names = {}
        for row in rows:
            state = state_dict(row)
            names[row.id] = key = str(state.pop("position"))
            graph.add_node(key, **state)
        graph.add_edges_from((names[a], names[b]) for a, b in edges)
        return graph
