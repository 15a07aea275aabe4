"""`StoredGame`, one game of a database in one convention (``db.game("nim")``): its states,
moves and counts as plain data, its sequence and findings (the build stage's
`explorer.build.StoredGame` adds the builds, edits, re-solves and checks).

The game row is looked up once, on first use; every method then reads or writes that game.
"""

from __future__ import annotations

from typing import Any, Literal

import sqlalchemy as sa

from explorer.games.specs import GameSpec
from explorer.storage.backends.engine import release_page_cache, writing
from explorer.storage.backends.errors import translated
from explorer.storage.query.browsing import Browsing
from explorer.storage.query.game_rows import QueryResult, state_dict
from explorer.storage.query.game_stats import GameStats, read_game_stats
from explorer.storage.query.stored_findings import Findings
from explorer.storage.query.subgraphs import Subgraphs
from explorer.storage.rows.counts import read_counts
from explorer.storage.rows.sequences import (
    StoredSequence,
    delete_sequence,
    load_sequence,
    save_sequence,
)
from explorer.storage.tables import edges
from explorer.storage.tables import states as states_table


class StoredGame(Browsing, Subgraphs, Findings):
    """One game of a database in one convention: what `Database.game` returns.

    Reads return plain data (dicts and lists) or `networkx.DiGraph` objects; writes return
    reports. A game's misère build (``convention=MISERE``) is a game of its own beside the
    normal-play one: its states hold G⁻, misère outcomes and misère remoteness.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")  # in memory
    >>> nim = db.game("nim")
    >>> nim.build("1,2").states_new
    5
    >>> nim.state("2,1")["grundy"]
    3
    >>> db.game("nim", "misere").build("1,1,1").outcome
    'P'
    >>> db.close()
    """

    # -- single positions -------------------------------------------------------------------
    @translated("read")
    def state(self, position: str, *, moves: int = 100) -> QueryResult:
        """A stored position: its values, its first `moves` moves, and how many there are.

        In a misère build ``grundy`` is G⁻ (0 exactly on misère P-positions), ``outcome`` and
        ``remoteness`` misère play's; ``convention`` says which.

        Raises
        ------
        NotStoredError
            When the game or the position is not stored.
        """
        with self.engine.connect() as conn:
            game_id, spec, row = self._located(conn, position)
            result = QueryResult(game=spec, convention=self.convention, **state_dict(row))
            successors = self._linked(conn, game_id, row.id, "out", moves, 0)
            result["moves"] = successors["total"]
            result["successors"] = self._named(row.key, successors["states"])
            # a depth counts moves from the start of the build that stored the state: after
            # builds from several starts, each state says which
            keys = [row.key, *(state["position"] for state in result["successors"])]
            starts = self._depth_starts(conn, game_id, keys)
            result["depth_from"] = starts.get(row.key)
            for state in result["successors"]:
                state["depth_from"] = starts.get(state["position"])
            result["winning_moves"] = [
                s["position"] for s in successors["states"] if s["outcome"] == "P"
            ]
            result["predecessors"] = conn.execute(
                edges.count_at("dst"), {"g": game_id, "s": row.id}
            ).scalar_one()
        return result

    @staticmethod
    def _depth_starts(conn: sa.Connection, game_id: int, keys: list[str]) -> dict[str, str]:
        """The start of the build that stored each of `keys` (its depth counts from there)."""
        rows = conn.execute(states_table.DEPTH_STARTS, {"g": game_id, "keys": keys})
        return {key: root for key, root in rows if root is not None}

    @translated("read")
    def successors(self, position: str, *, limit: int = 20, offset: int = 0) -> QueryResult:
        """One page of the stored moves from a position: ``{"total", "states", ...}``."""
        return self._neighbours(position, "out", limit, offset)

    @translated("read")
    def predecessors(self, position: str, *, limit: int = 20, offset: int = 0) -> QueryResult:
        """One page of the stored positions with a move to this one."""
        return self._neighbours(position, "in", limit, offset)

    def _neighbours(
        self, position: str, direction: Literal["out", "in"], limit: int, offset: int
    ) -> QueryResult:
        with self.engine.connect() as conn:
            game_id, spec, row = self._located(conn, position)
            page = self._linked(conn, game_id, row.id, direction, limit, offset)
        if direction == "out":
            self._named(row.key, page["states"])
        return QueryResult(
            game=spec,
            convention=self.convention,
            position=row.key,
            direction=direction,
            offset=offset,
            limit=limit,
            **page,
        )

    # -- listings and counts ----------------------------------------------------------------
    @translated("read")
    def states(
        self,
        *,
        outcome: str | None = None,
        grundy: int | None = None,
        depth: int | None = None,
        infinite: bool | None = None,
        limit: int = 20,
        offset: int = 0,
        count: bool = True,
    ) -> QueryResult:
        """One page of the game's stored states, filtered, in discovery order.

        `outcome` is ``"P"``, ``"N"`` or ``"D"`` (a draw, in a game with cycles); `infinite`
        True keeps the states of value ∞(K), False the finite ones. Returns ``{"game",
        "total", "offset", "limit", "states": [...]}`` where ``total`` counts every state
        matching the filters. Counting reads every state of the game; with ``count=False`` it
        is skipped unless the stored counts give it (no filter, or one of `outcome`, `grundy`
        and `depth`), else ``total`` is None and ``"more"`` says whether states follow.
        """
        where = ["game_id = :g"]
        params: dict[str, object] = {"n": limit, "o": offset}
        if outcome is not None:
            where.append("outcome = :outcome")
            params["outcome"] = outcome.upper()
        if grundy is not None:
            where.append("grundy = :grundy")
            params["grundy"] = grundy
        if depth is not None:
            where.append("depth = :depth")
            params["depth"] = depth
        if infinite is not None:
            where.append("escapes IS NOT NULL" if infinite else "grundy IS NOT NULL")
        condition = " AND ".join(where)
        with self.engine.connect() as conn:
            params["g"], spec = self._resolved(conn)
            total = None
            if count:
                total = conn.execute(states_table.count_where(condition), params).scalar_one()
            else:
                total = _counted_total(conn, params, infinite)
                params["n"] = limit + 1
            rows = conn.execute(states_table.page_where(condition), params)
            found = [state_dict(r) for r in rows]
        more = len(found) > limit if not count else offset + len(found) < (total or 0)
        return QueryResult(
            game=spec,
            convention=self.convention,
            total=total,
            offset=offset,
            limit=limit,
            states=found[:limit],
            more=more,
        )

    @translated("read")
    def stats(self) -> GameStats:
        """Counts by outcome, Grundy value and depth, extremes, and the build history of the
        game (in a misère build, values G⁻ and misère outcomes), each build's ``workers``;
        ``tiers`` (each tier's states, moves and seconds to expand and to solve) when a build
        in tiers stored them, ``patterns`` and ``quotient`` when `save_patterns` or
        `save_quotient` stored them (see `GameStats`; ``to_dict()`` for ``--json``).

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("1,2")
        >>> nim.stats().by_outcome
        {'N': 3, 'P': 2}
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, spec = self._resolved(conn)
            return read_game_stats(conn, game_id, spec, self.convention)

    # -- value sequences of one heap (normal play) ------------------------------------------
    @translated("read")
    def sequence(self) -> StoredSequence | None:
        """The stored single-heap value sequence of the game, or None.

        Examples
        --------
        >>> import numpy as np
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> from explorer.solver.sparse import fletcher32
        >>> values = np.arange(5, dtype=np.uint16)
        >>> nim.save_sequence(values, 5, checksum=fletcher32(values), method="table")
        >>> nim.sequence().values.tolist()
        [0, 1, 2, 3, 4]
        >>> db.close()
        """
        self._normal_play("value sequences")
        with self.engine.connect() as conn:
            stored = load_sequence(conn, GameSpec.parse(self.spec).canonical())
            release_page_cache(conn)
            return stored

    @translated("write to")
    def delete_sequence(self) -> bool:
        """Delete the game's stored single-heap value sequence; whether there was one."""
        self._normal_play("value sequences")
        with writing(self.engine) as conn:  # waits for another writer, as every writer does
            return delete_sequence(conn, GameSpec.parse(self.spec).canonical())

    @translated("write to")
    def save_sequence(
        self,
        values: Any,
        computed: int,
        *,
        period: tuple[int, int] | None = None,
        checksum: int,
        method: str,
    ) -> None:
        """Store G(0..computed-1) of the game's single heap (one transaction), and its period."""
        self._normal_play("value sequences")
        with writing(self.engine) as conn:  # waits for another writer, as every writer does
            save_sequence(
                conn,
                GameSpec.parse(self.spec).canonical(),
                values,
                computed,
                period=period,
                checksum=checksum,
                method=method,
            )
            release_page_cache(conn)


def _counted_total(
    conn: sa.Connection, params: dict[str, object], infinite: bool | None
) -> int | None:
    """The number of states a listing's filters match, from the game's stored counts (a few
    rows, not every state): known with no filter or with one of outcome, grundy and depth."""
    filters = [k for k in ("outcome", "grundy", "depth") if k in params]
    if infinite is not None or len(filters) > 1:
        return None
    counts = read_counts(conn, int(params["g"]))  # type: ignore[call-overload]
    if not filters:
        return counts.get("states", {}).get("", 0)
    kind = filters[0]
    return counts.get(kind, {}).get(str(params[kind]), 0)
