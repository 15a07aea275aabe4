"""The reads the web app (`explorer serve`) makes of one stored game, each bounded: the best
moves of a position, the states nearest it, a line of play checked, states looked up by key."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa

from explorer.storage.backends.errors import translated
from explorer.storage.query.damage import stored_key
from explorer.storage.query.game_rows import GameRows, state_dict
from explorer.storage.query.neighbourhood import chunks
from explorer.storage.tables import edges, states

if TYPE_CHECKING:
    import networkx as nx

#: Keys looked up per query by `Browsing.lookup` (SQLite allows 32,766 parameters).
LOOKUP_CHUNK = 500
#: The order of `Browsing.best_moves`: winning moves (into P-positions) quickest first, then
#: draws, then losing ones longest first, then unsolved states.
BEST_FIRST = (
    "CASE s.outcome WHEN 'P' THEN 0 WHEN 'D' THEN 1 WHEN 'N' THEN 2 ELSE 3 END, "
    "CASE WHEN s.outcome = 'P' THEN s.remoteness ELSE -s.remoteness END, s.id"
)


class Browsing(GameRows):
    """Bounded reads of one stored game, one page at a time (see `StoredGame`)."""

    @translated("read")
    def best_moves(self, position: str, *, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """One page of the moves from a position, best first for the player making them.

        Moves into P-positions (winning moves) come first, quickest win first; then draws;
        then moves into N-positions, longest defence first; moves into unsolved states last.
        Returns ``{"game", "position", "total", "offset", "limit", "states": [...]}``.

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("1,2")
        >>> [s["position"] for s in nim.best_moves("1,2")["states"]]
        ['1,1', '2', '1']
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, spec, row = self._located(conn, position)
            page = self._linked(conn, game_id, row.id, "out", limit, offset, order=BEST_FIRST)
        return {
            "game": spec,
            "convention": self.convention,
            "position": row.key,
            "total": page["total"],
            "offset": offset,
            "limit": limit,
            "states": self._named(row.key, page["states"]),
        }

    @translated("read")
    def lookup(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The stored states among `keys` (canonical texts), by key; keys not stored are left out.

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("2")
        >>> sorted((k, v["grundy"]) for k, v in nim.lookup(["1", "2", "3"]).items())
        [('1', 1), ('2', 2)]
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, _ = self._resolved(conn)
            return {
                row.key: state_dict(row) for row in _rows_by_key(conn, game_id, keys, states.FIELDS)
            }

    @translated("read")
    def first_illegal_move(self, keys: Sequence[str]) -> int | None:
        """Where a line of play (canonical position texts) leaves the stored moves, or None.

        Returns the index ``i`` of the first position that is not stored, or (for ``i > 0``)
        not reached by a stored move from position ``i - 1``.

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("3")
        >>> nim.first_illegal_move(["3", "1", "0"]), nim.first_illegal_move(["1", "2"])
        (None, 1)
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, _ = self._resolved(conn)
            ids = {r.key: r.id for r in _rows_by_key(conn, game_id, keys, "s.id, s.key")}
            for i, key in enumerate(keys):
                if key not in ids:
                    return i
                if (
                    i
                    and not conn.execute(
                        edges.MOVE, {"g": game_id, "a": ids[keys[i - 1]], "b": ids[key]}
                    ).first()
                ):
                    return i
        return None

    @translated("read")
    def nearby(self, position: str, *, depth: int = 2, limit: int = 200) -> nx.DiGraph:
        """At most `limit` states nearest a position (moves followed both ways) and their moves.

        Breadth first, `depth` moves at most, forward moves before backward ones at each
        distance; each step reads at most the states still wanted, so a state with a million
        predecessors costs no more than one with ten. Nodes and attributes are those of
        `StoredGame.neighbourhood`, plus ``moves`` (the number of moves from the state, when
        it is drawn); graph attributes ``game``, ``centre``, ``radius`` and ``cut`` (True when
        states within `depth` moves were left out).

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("1,2,3")
        >>> graph = nim.nearby("1,2", depth=1, limit=5)
        >>> graph.number_of_nodes(), graph.graph["cut"]
        (5, True)
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, spec, root = self._located(conn, position)
            rows = {root.id: root}
            frontier, cut = [root.id], False
            for _ in range(depth):
                found: list[int] = []
                for near, far in (edges.ends("out"), edges.ends("in")):
                    wanted = limit - len(rows)
                    if wanted <= 0:
                        cut = cut or bool(frontier)
                        break
                    step = conn.execute(
                        edges.step(near, far),
                        {"g": game_id, "ids": frontier, "seen": list(rows), "n": wanted + 1},
                    ).all()
                    if len(step) > wanted:
                        cut, step = True, step[:wanted]
                    for row in step:
                        rows[row.id] = row
                        found.append(row.id)
                frontier = found
                if not frontier:
                    break
            ids = list(rows)
            among = conn.execute(edges.AMONG, {"g": game_id, "ids": ids}).all()
            moves: dict[int, int] = dict(
                conn.execute(edges.MOVES_FROM, {"g": game_id, "ids": ids}).all()
            )
        graph = self._graph(spec, root.key, list(rows.values()), among)
        for row in rows.values():
            node = graph.nodes[stored_key(row.key)]
            node["moves"] = moves.get(row.id, 0) if node["expanded"] else None
        graph.graph.update(centre=root.key, radius=depth, cut=cut)
        return graph


def _rows_by_key(
    conn: sa.Connection, game_id: int, keys: Sequence[str], fields: str
) -> Iterator[Any]:
    """The `fields` of the stored states ``s`` among `keys`, each key asked for once and
    `LOOKUP_CHUNK` keys a query; keys not stored have no row."""
    for chunk in chunks(list(dict.fromkeys(keys)), LOOKUP_CHUNK):
        wanted = {f"k{n}": key for n, key in enumerate(chunk)}
        yield from conn.execute(states.by_keys(len(chunk), fields), {"g": game_id, **wanted})
