"""Parts of one stored game's graph: NetworkX subgraphs (a neighbourhood, the top of the graph)
and the streams of states and moves an export writes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from explorer.storage.backends.errors import translated
from explorer.storage.query.game_rows import GameRows
from explorer.storage.query.neighbourhood import Direction, edges_among, neighbourhood_ids
from explorer.storage.tables import edges, states

if TYPE_CHECKING:
    import networkx as nx
    import sqlalchemy as sa

    from explorer.storage.query.export import ExportReport, Progress, Streams

#: Largest graph `neighbourhood` and `subgraph` put in memory unless told otherwise.
MAX_GRAPH_STATES = 200_000
#: Largest neighbourhood `export` holds the ids of unless told otherwise (whole graphs stream).
MAX_EXPORT_NEIGHBOURHOOD = 2_000_000


class Subgraphs(GameRows):
    """Subgraphs and exports of one stored game (see `StoredGame`)."""

    @translated("read")
    def neighbourhood(
        self,
        position: str,
        depth: int,
        direction: Direction = "out",
        *,
        max_states: int = MAX_GRAPH_STATES,
    ) -> nx.DiGraph:
        """The states within `depth` moves of a position, and the moves among them.

        Fetched by one recursive SQL query, never by loading the whole graph. Nodes are the
        position texts, with attributes ``grundy``, ``outcome``, ``remoteness``, ``depth``,
        ``height`` and ``expanded``; graph attributes ``game``, ``root`` and ``convention``
        (``misere`` for the game's misère build, its ``grundy`` being G⁻).

        Parameters
        ----------
        direction : {"out", "in", "both"}
            Follow moves forwards (successors), backwards (predecessors), or both ways.

        Raises
        ------
        NotStoredError
            When the game or position is not stored.
        GraphTooLargeError
            When the neighbourhood has more than `max_states` states.

        Examples
        --------
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("1,2")
        >>> sorted(nim.neighbourhood("1,2", depth=1))
        ['1', '1,1', '1,2', '2']
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, spec, root = self._located(conn, position)
            near = neighbourhood_ids(
                conn,
                game_id,
                root.id,
                depth,
                direction,
                max_states=max_states,
                what=f"the neighbourhood of {root.key!r}",
            )
            ids = [state for state, _ in near]
            rows = self._rows_by_id(conn, game_id, ids)
            moves = list(edges_among(conn, game_id, ids))
        return self._graph(spec, root.key, rows, moves)

    @translated("read")
    def subgraph(self, limit: int = MAX_GRAPH_STATES) -> nx.DiGraph:
        """The first `limit` stored states of a game (in discovery order) and their moves.

        Builds discover states breadth first, so this is the top of the game graph; with a
        `limit` at least the number of states it is the whole stored graph. Node attributes
        are those of `neighbourhood`.
        """
        with self.engine.connect() as conn:
            game_id, spec = self._resolved(conn)
            params = {"g": game_id, "n": limit}
            rows = conn.execute(states.TOP, params).all()
            among = conn.execute(edges.AMONG_TOP, params).all()
        return self._graph(spec, rows[0].key if rows else None, rows, among)

    @translated("read")
    def export(
        self,
        path: str | Path,
        fmt: str | None = None,
        *,
        around: str | None = None,
        depth: int = 2,
        direction: Direction = "out",
        limit: int | None = None,
        progress: Progress | None = None,
    ) -> ExportReport:
        """Stream a stored game graph, or a neighbourhood, into GraphML, GEXF, JSON or CSV.

        Rows go from the database to the file as they are read, so the whole graph of a
        large game exports in constant memory; the file replaces `path` only once complete.

        Parameters
        ----------
        path : str or Path
            The file; for CSV, ``X.csv`` gives ``X.nodes.csv`` and ``X.edges.csv``.
        fmt : {"graphml", "gexf", "json", "csv"}, optional
            Defaults to the file's suffix.
        around : str, optional
            Export the states within `depth` moves of this position (`direction` as in
            `neighbourhood`) instead of the whole graph.
        limit : int, optional
            The whole graph: the first `limit` states in discovery order (all by default). A
            neighbourhood: the most states it may have (2,000,000 by default).
        progress : callable, optional
            Called as ``progress(what, done, total)``, what being ``"states"`` or ``"moves"``.

        Raises
        ------
        NotStoredError
            When the game or the position is not stored.
        ExportError
            For an unknown format, a destination that is a symbolic link, a position XML cannot
            hold, or a failed write (the previous file is then unchanged).
        GraphTooLargeError
            When the neighbourhood has more than `limit` states.

        Examples
        --------
        >>> import tempfile, networkx as nx
        >>> from explorer import open_database
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("1,2")
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     report = nim.export(Path(tmp) / "nim.graphml")
        ...     graph = nx.read_graphml(report.files[0])
        >>> report.states, report.edges, graph.nodes["1,1"]["grundy"]
        (5, 7, 0)
        >>> db.close()
        """
        path = Path(path)
        from explorer.formats.writing import export_format
        from explorer.storage.query.export import whole_graph, write_export

        chosen = export_format(path, fmt)
        with self.engine.connect() as conn:
            if around is None:
                game_id, spec = self._resolved(conn)
                root, nodes, links, stored, streamed, moves = whole_graph(conn, game_id, limit)
                streams = (nodes, links, stored, streamed, moves)
            else:
                spec, root, streams = self._near_streams(conn, around, depth, direction, limit)
            return write_export(path, chosen, spec, root, streams, self.convention, progress)

    def _near_streams(
        self,
        conn: sa.Connection,
        around: str,
        depth: int,
        direction: Direction,
        limit: int | None,
    ) -> tuple[str, str, Streams]:
        """The game's spec, the position `around` and the streams of an export of its
        neighbourhood (see `export`)."""
        from explorer.storage.query.export import near_graph

        game_id, spec, start = self._located(conn, around)
        near = neighbourhood_ids(
            conn,
            game_id,
            start.id,
            depth,
            direction,
            max_states=MAX_EXPORT_NEIGHBOURHOOD if limit is None else limit,
            what=f"the neighbourhood of {start.key!r}",
        )
        nodes, links, moves = near_graph(
            conn,
            game_id,
            [i for i, _ in near],
            lambda ids: self._rows_by_id(conn, game_id, ids),
        )
        return spec, start.key, (nodes, links, len(near), len(near), moves)
