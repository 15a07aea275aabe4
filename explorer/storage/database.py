"""`Database`, the one way into a stored database: build, import, edit, re-solve and export
games, and read them back (a position's value and moves, filtered and paginated listings,
statistics, NetworkX subgraphs fetched level by level).

Reads return plain data (dicts and lists) or `networkx.DiGraph` objects; writes return reports.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, TypedDict, TypeVar, Unpack

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.errors import DatabaseError, ExplorerError, NotStoredError
from explorer.games import load_game
from explorer.solver.misere import MISERE, NORMAL, Convention
from explorer.storage.counts import read_counts
from explorer.storage.engine import (
    create_engine,
    database_error,
    dbapi_errors,
    release_page_cache,
    writing,
)
from explorer.storage.loopy import parse_escapes
from explorer.storage.neighbourhood import Direction, chunks, edges_among, neighbourhood_ids
from explorer.storage.records import canonical_spec, lookup_game, shown_spec, shown_status
from explorer.storage.sequences import (
    StoredSequence,
    delete_sequence,
    load_sequence,
    save_sequence,
    stored_sequences,
)

if TYPE_CHECKING:  # building, editing and exporting load in the methods that do them
    import networkx as nx

    from explorer.games.dag import DagGame
    from explorer.solver.incremental import Edit
    from explorer.storage.building import BuildProgress, BuildReport
    from explorer.storage.edits import EditReport
    from explorer.storage.export import ExportReport, Progress

#: Largest graph `neighbourhood` and `subgraph` put in memory unless told otherwise.
MAX_GRAPH_STATES = 200_000
#: Keys looked up per query by `Database.lookup` (SQLite allows 32,766 parameters).
LOOKUP_CHUNK = 500

#: Largest neighbourhood `export` holds the ids of unless told otherwise (whole graphs stream).
MAX_EXPORT_NEIGHBOURHOOD = 2_000_000

_STATE_FIELDS = (
    "s.id, s.key, s.grundy, s.outcome, s.remoteness, s.depth, s.height, s.expanded, s.escapes"
)
#: States reached by moves: edges first, then each state by its key. SQLite plans a CROSS JOIN
#: in the order written; without it, and without statistics, it may walk every state of the game
#: in id order looking for the few a move reaches (seconds on a million states).
_EDGES_THEN_STATES = "edges AS e CROSS JOIN states AS s WHERE s.game_id = e.game_id"


class BuildOptions(TypedDict, total=False):
    """The options `Database.build` passes on to `explorer.storage.building.build_position`,
    which gives their defaults."""

    max_states: int | None
    batch_states: int
    memory: int | None
    progress: Callable[[BuildProgress], None] | None
    misere: bool
    defer_key_index_at: int | None


P = ParamSpec("P")
T = TypeVar("T")


def _translated(
    verb: str,
) -> Callable[[Callable[Concatenate[Database, P], T]], Callable[Concatenate[Database, P], T]]:
    """Run a `Database` method with its database errors translated (see `Database._errors`)."""

    def decorate(
        method: Callable[Concatenate[Database, P], T],
    ) -> Callable[Concatenate[Database, P], T]:
        @functools.wraps(method)
        def wrapper(self: Database, /, *args: P.args, **kwargs: P.kwargs) -> T:
            with self._errors(verb):
                return method(self, *args, **kwargs)

        return wrapper

    return decorate


class QueryResult(dict[str, Any]):
    """What `Database.state`, `Database.states`, `Database.successors` and
    `Database.predecessors` return: a plain dict (their JSON form), shown as a table in a
    notebook."""

    def _repr_html_(self) -> str:
        # the notebook's table lives with every other view (imported only when shown)
        from explorer.viz.notebook import query_view

        return query_view(self)


def _state_dict(row: Any) -> dict[str, object]:
    escapes = parse_escapes(row.escapes)
    return {
        "position": row.key,
        "grundy": row.grundy,
        "outcome": row.outcome,
        "remoteness": row.remoteness,
        "depth": row.depth,
        "height": row.height,
        "expanded": bool(row.expanded),
        "infinite": escapes is not None,
        "escapes": None if escapes is None else sorted(escapes),
    }


def _convention(misere: bool) -> Convention:
    return MISERE if misere else NORMAL


def _misere_flag(misere: bool) -> str:
    """What a command line adds to name a game's misère build."""
    return " --misere" if misere else ""


def _import_argument(spec: str) -> str:
    """What `explorer import` takes for a file game: the file (``dag:``) or the spec."""
    return spec.removeprefix("dag:")


class Database:
    """An open explorer database. Use `open_database` to get one; `close` it when done.

    Examples
    --------
    >>> db = open_database("sqlite://")  # in memory
    >>> db.build("nim", "1,2").states_new
    5
    >>> db.state("nim", "2,1")["grundy"]
    3
    >>> sorted(db.neighbourhood("nim", "1,2", depth=1))
    ['1', '1,1', '1,2', '2']
    >>> db.close()
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.url = engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Release every connection."""
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"open_database({self.url!r})"

    # -- errors ---------------------------------------------------------------------------
    @contextmanager
    def _errors(self, verb: str) -> Iterator[None]:
        """Every SQLAlchemy and driver error as one `DatabaseError` (read-only, locked, full,
        damaged, a lost server); errors of ours pass unchanged, anything else is a bug.

        Every public method goes through here, so no command shows a raw database error.
        """
        try:
            yield
        except ExplorerError:
            raise
        except sa.exc.IntegrityError:
            raise DatabaseError(
                f"another build, import or edit wrote to {self._shown_url()!r} at the same "
                "time; run one at a time, then run this one again to finish"
            ) from None
        except dbapi_errors(self.engine) as error:
            raise database_error(error, self._shown_url(), verb) from None

    # -- names --------------------------------------------------------------------------
    def _shown_url(self) -> str:
        if self.engine.dialect.name == "sqlite":
            return self.engine.url.database or ":memory:"
        return self.url

    def _position(self, spec: str, position: str) -> tuple[str, str, str | None]:
        """The stored spelling of a spec and a position, and why the position did not parse.

        A position the rules refuse may still be stored: an edit adds states to a DAG game
        that its file does not list. Such a position is looked up as typed, and the reason is
        kept for the error if it is not stored either.
        """
        try:
            game = load_game(spec)
        except ExplorerError:
            return spec.strip(), position, None
        try:
            return game.spec, game.format(game.parse(position)), None
        except ExplorerError as error:
            return game.spec, position, str(error)

    def _game(self, conn: sa.Connection, spec: str, misere: bool = False) -> tuple[int, str]:
        """The id of the game a spec names in normal play (or its misère build), and its spec
        as shown (see `shown_spec`)."""
        found = lookup_game(conn, spec, _convention(misere))
        if found is not None:
            return found[0], shown_spec(found[1])
        shown = shown_spec(canonical_spec(spec))
        if lookup_game(conn, spec, _convention(not misere)) is not None:
            other = "only its normal-play build" if misere else "only its misère build"
            flag = "" if misere else " (add --misere)"
            raise NotStoredError(
                f"the {'misère' if misere else 'normal-play'} game {shown!r} is not stored in "
                f"{self._shown_url()!r}: {other} is{flag} (build a position of it: explorer "
                f"build {shown!r} POSITION{_misere_flag(misere)})"
            )
        hint = f"build a position first: explorer build {shown!r} POSITION{_misere_flag(misere)}"
        family = shown.partition(":")[0]
        if family in ("dag", "graph"):
            name = os.path.basename(shown.partition(":")[2])
            others = [
                shown_spec(s)
                for (s,) in conn.execute(
                    sa.text("SELECT spec FROM games WHERE family = :f ORDER BY id"), {"f": family}
                )
                if os.path.basename(s) == name
            ]
            hint = (
                f"stored from files named {name!r}: {', '.join(others)}"
                if others
                else f"import it first: explorer import {_import_argument(shown)!r}"
            )
        which = "the misère game" if misere else "game"
        raise NotStoredError(f"{which} {shown!r} is not stored in {self._shown_url()!r} ({hint})")

    def _state_row(
        self,
        conn: sa.Connection,
        game_id: int,
        spec: str,
        key: str,
        problem: str | None = None,
        misere: bool = False,
    ) -> Any:
        row = conn.execute(
            sa.text(f"SELECT {_STATE_FIELDS} FROM states AS s WHERE game_id = :g AND key = :k"),
            {"g": game_id, "k": key},
        ).one_or_none()
        if row is None and problem is not None:
            raise NotStoredError(
                f"position {key!r} of {spec} is not stored in {self._shown_url()!r}: {problem}"
            )
        if row is None:
            raise NotStoredError(
                f"position {key!r} of {spec} is not stored in {self._shown_url()!r} "
                f"(build it first: explorer build {spec!r} {key!r}{_misere_flag(misere)})"
            )
        return row

    # -- building -----------------------------------------------------------------------
    @_translated("write to")
    def build(self, spec: str, position: str, **options: Unpack[BuildOptions]) -> BuildReport:
        """Build the game graph of a position into this database (see `build_position`, which
        takes the same keyword options, `max_states`, `batch_states`, `memory`, `progress`,
        `misere` and `defer_key_index_at`, and gives their defaults).

        Stored states and values are reused; a build stopped by `max_states`, by the `memory`
        budget (bytes the process may use; None for none) or killed continues where it
        stopped when run again. With `misere` the game's misère build is made, a game of its
        own beside the normal-play one (its states hold G⁻, misère outcomes and misère
        remoteness); every read below takes `misere` to name it.

        Raises
        ------
        DatabaseError
            When the database refuses the writes (read-only, full, locked, or another build
            of the same game writing at the same time); what was committed stays consistent.
        """
        from explorer.storage.building import build_position

        return build_position(self.engine, spec, position, **options)

    # -- imports, edits, re-solves --------------------------------------------------------
    @_translated("write to")
    def import_graph(self, source: str | DagGame) -> EditReport:
        """Store a graph file as the game ``dag:PATH``, solved; if it is stored already, apply
        only the difference and re-solve what it changes (see `explorer.storage.edits`).

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> report = db.import_graph("data/note003.json")
        >>> report.kind, db.state(report.game, "b")["grundy"]
        ('import', 2)
        >>> db.close()
        """
        from explorer.storage.edits import import_graph

        return import_graph(self.engine, source)

    @_translated("write to")
    def edit(self, spec: str, edit: Edit) -> EditReport:
        """Add and remove states and moves of a stored DAG game, re-solving only what changes.

        Raises
        ------
        NotStoredError
            When the game is not stored.
        EditError, CyclicGraphError
            When the edit is refused; nothing is written.

        Examples
        --------
        >>> from explorer.solver.incremental import Edit
        >>> db = open_database("sqlite://")
        >>> game = db.import_graph("data/note003.json").game
        >>> report = db.edit(game, Edit(remove_edges=(("b", "a"),)))
        >>> report.reexamined, report.changed, db.state(game, "b")["grundy"]
        (1, 1, 1)
        >>> db.close()
        """
        from explorer.storage.edits import edit_game

        return edit_game(self.engine, spec, edit)

    @_translated("write to")
    def solve(self, spec: str) -> int:
        """Re-solve every stored state of a game from its stored edges; returns how many.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "2,2")
        >>> db.solve("nim"), db.state("nim", "2,2")["grundy"]
        (6, 0)
        >>> db.close()
        """
        from explorer.storage.edits import solve_stored

        return solve_stored(self.engine, spec)

    # -- single positions ---------------------------------------------------------------
    @_translated("read")
    def state(
        self, spec: str, position: str, *, moves: int = 100, misere: bool = False
    ) -> QueryResult:
        """A stored position: its values, its first `moves` moves, and how many there are.

        With `misere`, in the game's misère build: ``grundy`` is G⁻ (0 exactly on misère
        P-positions), ``outcome`` and ``remoteness`` misère play's; ``convention`` says which.

        Raises
        ------
        NotStoredError
            When the game or the position is not stored.
        """
        spec, key, problem = self._position(spec, position)
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            row = self._state_row(conn, game_id, spec, key, problem, misere)
            result = QueryResult(game=spec, convention=_convention(misere), **_state_dict(row))
            successors = self._linked(conn, game_id, row.id, "out", moves, 0)
            result["moves"] = successors["total"]
            result["successors"] = successors["states"]
            result["winning_moves"] = [
                s["position"] for s in successors["states"] if s["outcome"] == "P"
            ]
            result["predecessors"] = conn.execute(
                sa.text("SELECT COUNT(*) FROM edges WHERE game_id = :g AND dst = :s"),
                {"g": game_id, "s": row.id},
            ).scalar_one()
        return result

    def _linked(
        self,
        conn: sa.Connection,
        game_id: int,
        state: int,
        direction: Literal["out", "in"],
        limit: int,
        offset: int,
    ) -> dict[str, Any]:
        near, far = ("src", "dst") if direction == "out" else ("dst", "src")
        total = conn.execute(
            sa.text(f"SELECT COUNT(*) FROM edges WHERE game_id = :g AND {near} = :s"),
            {"g": game_id, "s": state},
        ).scalar_one()
        rows = conn.execute(
            sa.text(
                f"SELECT {_STATE_FIELDS} FROM {_EDGES_THEN_STATES} AND s.id = e.{far} "
                f"AND e.game_id = :g AND e.{near} = :s ORDER BY e.{far} LIMIT :n OFFSET :o"
            ),
            {"g": game_id, "s": state, "n": limit, "o": offset},
        )
        return {"total": total, "states": [_state_dict(r) for r in rows]}

    @_translated("read")
    def successors(
        self, spec: str, position: str, *, limit: int = 20, offset: int = 0, misere: bool = False
    ) -> QueryResult:
        """One page of the stored moves from a position: ``{"total", "states", ...}``."""
        return self._neighbours(spec, position, "out", limit, offset, misere)

    @_translated("read")
    def predecessors(
        self, spec: str, position: str, *, limit: int = 20, offset: int = 0, misere: bool = False
    ) -> QueryResult:
        """One page of the stored positions with a move to this one."""
        return self._neighbours(spec, position, "in", limit, offset, misere)

    def _neighbours(
        self,
        spec: str,
        position: str,
        direction: Literal["out", "in"],
        limit: int,
        offset: int,
        misere: bool,
    ) -> QueryResult:
        spec, key, problem = self._position(spec, position)
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            row = self._state_row(conn, game_id, spec, key, problem, misere)
            page = self._linked(conn, game_id, row.id, direction, limit, offset)
        return QueryResult(
            game=spec,
            convention=_convention(misere),
            position=key,
            direction=direction,
            offset=offset,
            limit=limit,
            **page,
        )

    # -- listings -------------------------------------------------------------------------
    @_translated("read")
    def states(
        self,
        spec: str,
        *,
        outcome: str | None = None,
        grundy: int | None = None,
        depth: int | None = None,
        infinite: bool | None = None,
        limit: int = 20,
        offset: int = 0,
        count: bool = True,
        misere: bool = False,
    ) -> QueryResult:
        """One page of a game's stored states, filtered, in discovery order.

        `outcome` is ``"P"``, ``"N"`` or ``"D"`` (a draw, in a game with cycles); `infinite`
        True keeps the states of value ∞(K), False the finite ones. Returns ``{"game",
        "total", "offset", "limit", "states": [...]}`` where ``total`` counts every state
        matching the filters. Counting reads every state of the game; with ``count=False`` it
        is skipped (``total`` is None) and ``"more"`` says whether states follow this page.
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
            params["g"], spec = self._game(conn, spec, misere)
            total = None
            if count:
                total = conn.execute(
                    sa.text(f"SELECT COUNT(*) FROM states WHERE {condition}"), params
                ).scalar_one()
            else:
                params["n"] = limit + 1
            rows = conn.execute(
                sa.text(
                    f"SELECT {_STATE_FIELDS} FROM states AS s WHERE {condition} "
                    "ORDER BY id LIMIT :n OFFSET :o"
                ),
                params,
            )
            found = [_state_dict(r) for r in rows]
        more = len(found) > limit if total is None else offset + len(found) < total
        return QueryResult(
            game=spec,
            convention=_convention(misere),
            total=total,
            offset=offset,
            limit=limit,
            states=found[:limit],
            more=more,
        )

    @_translated("read")
    def games(self) -> list[dict[str, Any]]:
        """Every stored game with its convention (``normal``, or ``misere`` for a misère
        build), its numbers of states and edges, and its stored value sequence (None when there
        is none)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT g.spec, g.convention, "
                    "(SELECT COALESCE(SUM(c.count), 0) FROM state_counts AS c "
                    "WHERE c.game_id = g.id AND c.kind = 'states') AS states, "
                    "(SELECT COALESCE(SUM(c.count), 0) FROM state_counts AS c "
                    "WHERE c.game_id = g.id AND c.kind = 'edges') AS edges "
                    "FROM games AS g ORDER BY g.id"
                )
            ).all()
            sequences = stored_sequences(conn)
        return [
            {
                "game": shown_spec(r.spec),
                "convention": r.convention,
                "states": int(r.states),
                "edges": int(r.edges),
                # sequences are of normal play (misère ones are computed, not stored)
                "sequence": sequences.get(r.spec) if r.convention == NORMAL else None,
            }
            for r in rows
        ]

    @_translated("read")
    def sequence(self, spec: str) -> StoredSequence | None:
        """The stored single-heap value sequence of a game, or None.

        Examples
        --------
        >>> import numpy as np
        >>> db = open_database("sqlite://")
        >>> db.save_sequence("nim", np.arange(5, dtype=np.uint16), 5, checksum=0, method="table")
        >>> db.sequence("nim").values.tolist()
        [0, 1, 2, 3, 4]
        >>> db.close()
        """
        with self.engine.connect() as conn:
            stored = load_sequence(conn, canonical_spec(spec))
            release_page_cache(conn)
            return stored

    @_translated("write to")
    def delete_sequence(self, spec: str) -> bool:
        """Delete the stored single-heap value sequence of a game; whether there was one."""
        with writing(self.engine) as conn:  # waits for another writer, as every writer does
            return delete_sequence(conn, canonical_spec(spec))

    @_translated("write to")
    def save_sequence(
        self,
        spec: str,
        values: Any,
        computed: int,
        *,
        period: tuple[int, int] | None = None,
        checksum: int,
        method: str,
    ) -> None:
        """Store G(0..computed-1) of a game's single heap (one transaction), and its period."""
        with writing(self.engine) as conn:  # waits for another writer, as every writer does
            save_sequence(
                conn,
                canonical_spec(spec),
                values,
                computed,
                period=period,
                checksum=checksum,
                method=method,
            )
            release_page_cache(conn)

    @_translated("read")
    def stats(self, spec: str, *, misere: bool = False) -> dict[str, Any]:
        """Counts by outcome, Grundy value and depth, extremes, and the build history of a game
        (of its misère build with `misere`: values G⁻ and misère outcomes).

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "1,2")
        >>> db.stats("nim")["by_outcome"]
        {'N': 3, 'P': 2}
        >>> db.close()
        """
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            params = {"g": game_id}
            counts = read_counts(conn, game_id)

            def histogram(kind: str) -> dict[Any, int]:
                numbers = counts[kind]
                values = sorted(numbers) if kind == "outcome" else sorted(map(int, numbers))
                return {value: numbers[str(value)] for value in values}

            def total(kind: str) -> int:
                return counts[kind].get("", 0)

            by_outcome, by_grundy, by_depth = (
                histogram("outcome"),
                histogram("grundy"),
                histogram("depth"),
            )
            remoteness, height = histogram("remoteness"), histogram("height")
            builds = [
                {
                    "id": r.id,
                    "kind": r.kind,
                    "position": r.root,
                    "status": shown_status(r.status, r.host, r.pid),
                    "started_at": str(r.started_at),
                    "finished_at": None if r.finished_at is None else str(r.finished_at),
                    "states_new": r.states_new,
                    "states_reused": r.states_reused,
                    "edges_new": r.edges_new,
                    "values_computed": r.values_computed,
                    "host": r.host,
                    "pid": r.pid,
                }
                for r in conn.execute(
                    sa.text("SELECT * FROM builds WHERE game_id = :g ORDER BY id"), params
                )
            ]
        return {
            "game": spec,
            "convention": _convention(misere),
            "states": total("states"),
            "edges": total("edges"),
            "expanded": total("expanded"),
            "solved": total("solved"),
            "unsolved": total("states") - total("solved"),
            "by_outcome": by_outcome,
            "by_grundy": by_grundy,
            "by_depth": by_depth,
            "max_grundy": max(by_grundy, default=None),
            "max_depth": max(by_depth, default=None),
            "max_remoteness": max(remoteness, default=None),
            "max_height": max(height, default=None),
            "builds": builds,
        }

    # -- browsing (explorer serve): bounded reads, one page at a time --------------------
    @_translated("read")
    def building(self) -> set[str]:
        """The games with a build still marked running (running now, or killed while running)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT DISTINCT g.spec FROM builds AS b JOIN games AS g ON g.id = b.game_id "
                    "WHERE b.status = 'running'"
                )
            )
            return {r.spec for r in rows}

    @_translated("read")
    def version(self) -> tuple[object, ...]:
        """Changes whenever a build, import or edit starts or finishes (for caches of counts)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.text(
                    "SELECT COUNT(*) AS n, MAX(id) AS last, MAX(finished_at) AS finished, "
                    "SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS running FROM builds"
                )
            ).one()
        return (row.n, row.last, str(row.finished), row.running)

    @_translated("read")
    def best_moves(
        self, spec: str, position: str, *, limit: int = 100, offset: int = 0, misere: bool = False
    ) -> dict[str, Any]:
        """One page of the moves from a position, best first for the player making them.

        Moves into P-positions (winning moves) come first, quickest win first; then draws;
        then moves into N-positions, longest defence first; moves into unsolved states last.
        Returns ``{"game", "position", "total", "offset", "limit", "states": [...]}``.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "1,2")
        >>> [s["position"] for s in db.best_moves("nim", "1,2")["states"]]
        ['1,1', '2', '1']
        >>> db.close()
        """
        spec, key, problem = self._position(spec, position)
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            row = self._state_row(conn, game_id, spec, key, problem, misere)
            params = {"g": game_id, "s": row.id, "n": limit, "o": offset}
            total = conn.execute(
                sa.text("SELECT COUNT(*) FROM edges WHERE game_id = :g AND src = :s"), params
            ).scalar_one()
            rows = conn.execute(
                sa.text(
                    f"SELECT {_STATE_FIELDS} FROM {_EDGES_THEN_STATES} AND s.id = e.dst "
                    "AND e.game_id = :g AND e.src = :s "
                    "ORDER BY CASE s.outcome WHEN 'P' THEN 0 WHEN 'D' THEN 1 WHEN 'N' THEN 2 "
                    "ELSE 3 END, CASE WHEN s.outcome = 'P' THEN s.remoteness "
                    "ELSE -s.remoteness END, s.id LIMIT :n OFFSET :o"
                ),
                params,
            )
            found = [_state_dict(r) for r in rows]
        return {
            "game": spec,
            "convention": _convention(misere),
            "position": key,
            "total": total,
            "offset": offset,
            "limit": limit,
            "states": found,
        }

    @_translated("read")
    def lookup(
        self, spec: str, keys: Sequence[str], *, misere: bool = False
    ) -> dict[str, dict[str, Any]]:
        """The stored states among `keys` (canonical texts), by key; keys not stored are left out.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "2")
        >>> sorted((k, v["grundy"]) for k, v in db.lookup("nim", ["1", "2", "3"]).items())
        [('1', 1), ('2', 2)]
        >>> db.close()
        """
        found: dict[str, dict[str, Any]] = {}
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            query = sa.text(
                f"SELECT {_STATE_FIELDS} FROM states AS s WHERE game_id = :g AND key IN :keys"
            ).bindparams(sa.bindparam("keys", expanding=True))
            unique = list(dict.fromkeys(keys))
            for start in range(0, len(unique), LOOKUP_CHUNK):
                chunk = unique[start : start + LOOKUP_CHUNK]
                for row in conn.execute(query, {"g": game_id, "keys": chunk}):
                    found[row.key] = _state_dict(row)
        return found

    @_translated("read")
    def first_illegal_move(
        self, spec: str, keys: Sequence[str], *, misere: bool = False
    ) -> int | None:
        """Where a line of play (canonical position texts) leaves the stored moves, or None.

        Returns the index ``i`` of the first position that is not stored, or (for ``i > 0``)
        not reached by a stored move from position ``i - 1``.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "3")
        >>> db.first_illegal_move("nim", ["3", "1", "0"]), db.first_illegal_move("nim", ["1", "2"])
        (None, 1)
        >>> db.close()
        """
        query = sa.text(
            "SELECT id, key FROM states WHERE game_id = :g AND key IN :keys"
        ).bindparams(sa.bindparam("keys", expanding=True))
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            unique = list(dict.fromkeys(keys))
            ids: dict[str, int] = {}
            for start in range(0, len(unique), LOOKUP_CHUNK):
                chunk = unique[start : start + LOOKUP_CHUNK]
                ids.update(
                    (r.key, r.id) for r in conn.execute(query, {"g": game_id, "keys": chunk})
                )
            for i, key in enumerate(keys):
                if key not in ids:
                    return i
                if (
                    i
                    and not conn.execute(
                        sa.text("SELECT 1 FROM edges WHERE game_id = :g AND src = :a AND dst = :b"),
                        {"g": game_id, "a": ids[keys[i - 1]], "b": ids[key]},
                    ).first()
                ):
                    return i
        return None

    @_translated("read")
    def nearby(
        self, spec: str, position: str, *, depth: int = 2, limit: int = 200, misere: bool = False
    ) -> nx.DiGraph:
        """At most `limit` states nearest a position (moves followed both ways) and their moves.

        Breadth first, `depth` moves at most, forward moves before backward ones at each
        distance; each step reads at most the states still wanted, so a state with a million
        predecessors costs no more than one with ten. Nodes and attributes are those of
        `neighbourhood`, plus ``moves`` (the number of moves from the state, when it is
        drawn); graph attributes ``game``, ``centre``, ``radius`` and ``cut`` (True when
        states within `depth` moves were left out).

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "1,2,3")
        >>> graph = db.nearby("nim", "1,2", depth=1, limit=5)
        >>> graph.number_of_nodes(), graph.graph["cut"]
        (5, True)
        >>> db.close()
        """
        spec, key, problem = self._position(spec, position)
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            root = self._state_row(conn, game_id, spec, key, problem, misere)
            rows = {root.id: root}
            frontier, cut = [root.id], False
            for _ in range(depth):
                found: list[int] = []
                for near, far in (("src", "dst"), ("dst", "src")):
                    wanted = limit - len(rows)
                    if wanted <= 0:
                        cut = cut or bool(frontier)
                        break
                    step = conn.execute(
                        sa.text(
                            f"SELECT DISTINCT {_STATE_FIELDS} FROM {_EDGES_THEN_STATES} "
                            f"AND s.id = e.{far} AND e.game_id = :g AND e.{near} IN :ids "
                            f"AND e.{far} NOT IN :seen "
                            "LIMIT :n"
                        ).bindparams(
                            sa.bindparam("ids", expanding=True),
                            sa.bindparam("seen", expanding=True),
                        ),
                        {"g": game_id, "ids": frontier, "seen": list(rows), "n": wanted + 1},
                    ).all()
                    # no ORDER BY: it would read every neighbour of a hub before the LIMIT
                    if len(step) > wanted:
                        cut, step = True, step[:wanted]
                    for row in step:
                        rows[row.id] = row
                        found.append(row.id)
                frontier = found
                if not frontier:
                    break
            ids = list(rows)
            edges = conn.execute(
                sa.text(
                    "SELECT src, dst FROM edges WHERE game_id = :g AND src IN :ids AND dst IN :ids"
                ).bindparams(sa.bindparam("ids", expanding=True)),
                {"g": game_id, "ids": ids},
            ).all()
            moves: dict[int, int] = dict(
                conn.execute(
                    sa.text(
                        "SELECT src, COUNT(*) FROM edges WHERE game_id = :g AND src IN :ids "
                        "GROUP BY src"
                    ).bindparams(sa.bindparam("ids", expanding=True)),
                    {"g": game_id, "ids": ids},
                ).all()
            )
        graph = self._graph(spec, key, list(rows.values()), edges, misere)
        for row in rows.values():
            graph.nodes[row.key]["moves"] = moves.get(row.id, 0) if row.expanded else None
        graph.graph.update(centre=key, radius=depth, cut=cut)
        return graph

    # -- NetworkX subgraphs ---------------------------------------------------------------
    @_translated("read")
    def neighbourhood(
        self,
        spec: str,
        position: str,
        depth: int,
        direction: Direction = "out",
        *,
        max_states: int = MAX_GRAPH_STATES,
        misere: bool = False,
    ) -> nx.DiGraph:
        """The states within `depth` moves of a position, and the moves among them.

        Fetched by one recursive SQL query, never by loading the whole graph. Nodes are the
        position texts, with attributes ``grundy``, ``outcome``, ``remoteness``, ``depth``,
        ``height`` and ``expanded``; graph attributes ``game``, ``root`` and ``convention``
        (``misere`` with `misere`: the game's misère build, its ``grundy`` being G⁻).

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
        """
        spec, key, problem = self._position(spec, position)
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            root = self._state_row(conn, game_id, spec, key, problem, misere)
            near = neighbourhood_ids(
                conn,
                game_id,
                root.id,
                depth,
                direction,
                max_states=max_states,
                what=f"the neighbourhood of {key!r}",
            )
            ids = [state for state, _ in near]
            rows = self._rows_by_id(conn, game_id, ids)
            edges = list(edges_among(conn, game_id, ids))
        return self._graph(spec, key, rows, edges, misere)

    @_translated("read")
    def subgraph(
        self, spec: str, limit: int = MAX_GRAPH_STATES, *, misere: bool = False
    ) -> nx.DiGraph:
        """The first `limit` stored states of a game (in discovery order) and their moves.

        Builds discover states breadth first, so this is the top of the game graph; with a
        `limit` at least the number of states it is the whole stored graph. Node attributes
        are those of `neighbourhood`.
        """
        top = "WITH top AS (SELECT id FROM states WHERE game_id = :g ORDER BY id LIMIT :n) "
        with self.engine.connect() as conn:
            game_id, spec = self._game(conn, spec, misere)
            params = {"g": game_id, "n": limit}
            rows = conn.execute(
                sa.text(
                    top + f"SELECT {_STATE_FIELDS} FROM top JOIN states AS s "
                    "ON s.game_id = :g AND s.id = top.id ORDER BY s.id"
                ),
                params,
            ).all()
            edges = conn.execute(
                sa.text(
                    top + "SELECT e.src, e.dst FROM edges AS e JOIN top AS a ON a.id = e.src "
                    "JOIN top AS b ON b.id = e.dst WHERE e.game_id = :g"
                ),
                params,
            ).all()
        return self._graph(spec, rows[0].key if rows else None, rows, edges, misere)

    @staticmethod
    def _rows_by_id(conn: sa.Connection, game_id: int, ids: Sequence[int]) -> list[Any]:
        """The state rows of `ids`, in the order given."""
        statement = sa.text(
            f"SELECT {_STATE_FIELDS} FROM states AS s WHERE s.game_id = :g AND s.id IN :ids"
        ).bindparams(sa.bindparam("ids", expanding=True))
        found: dict[int, Any] = {}
        for chunk in chunks(ids):
            found.update(
                (row.id, row) for row in conn.execute(statement, {"g": game_id, "ids": chunk})
            )
        return [found[i] for i in ids]

    # -- export ---------------------------------------------------------------------------
    @_translated("read")
    def export(
        self,
        spec: str,
        path: str | Path,
        fmt: str | None = None,
        *,
        around: str | None = None,
        depth: int = 2,
        direction: Direction = "out",
        limit: int | None = None,
        progress: Progress | None = None,
        misere: bool = False,
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
        >>> db = open_database("sqlite://")
        >>> _ = db.build("nim", "1,2")
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     report = db.export("nim", Path(tmp) / "nim.graphml")
        ...     graph = nx.read_graphml(report.files[0])
        >>> report.states, report.edges, graph.nodes["1,1"]["grundy"]
        (5, 7, 0)
        >>> db.close()
        """
        path = Path(path)
        from explorer.storage.export import ExportReport, export_format, write_graph

        chosen = export_format(path, fmt)
        counted = {"states": 0, "moves": 0}

        def counting(batches: Iterator[list[Any]], what: str, total: int) -> Iterator[list[Any]]:
            for batch in batches:
                yield batch
                counted[what] += len(batch)
                if progress is not None:
                    progress(what, counted[what], total)

        with self.engine.connect() as conn:
            if around is None:
                game_id, spec = self._game(conn, spec, misere)
                root, nodes, edges, stored, states, moves = self._whole(conn, game_id, limit)
            else:
                spec, key, problem = self._position(spec, around)
                game_id, spec = self._game(conn, spec, misere)
                root = key
                start = self._state_row(conn, game_id, spec, key, problem, misere)
                near = neighbourhood_ids(
                    conn,
                    game_id,
                    start.id,
                    depth,
                    direction,
                    max_states=MAX_EXPORT_NEIGHBOURHOOD if limit is None else limit,
                    what=f"the neighbourhood of {key!r}",
                )
                nodes, edges, moves = self._near(conn, game_id, [i for i, _ in near])
                stored = states = len(near)
            files = write_graph(
                path,
                chosen,
                spec,
                root,
                counting(nodes, "states", states),
                counting(edges, "moves", moves),
                _convention(misere),
            )
        return ExportReport(
            spec,
            counted["states"],
            counted["moves"],
            stored,
            [str(f) for f in files],
            _convention(misere),
        )

    def _whole(
        self, conn: sa.Connection, game_id: int, limit: int | None
    ) -> tuple[str | None, Iterator[Any], Iterator[Any], int, int, int]:
        """Streams of the first `limit` states and the moves among them, with their counts."""
        params: dict[str, object] = {"g": game_id}
        stored = conn.execute(
            sa.text("SELECT COUNT(*) FROM states WHERE game_id = :g"), params
        ).scalar_one()
        root = conn.execute(
            sa.text("SELECT key FROM states WHERE game_id = :g ORDER BY id LIMIT 1"), params
        ).scalar()
        within = ""
        if limit is not None and limit < stored:
            params["cut"] = conn.execute(
                sa.text("SELECT id FROM states WHERE game_id = :g ORDER BY id LIMIT 1 OFFSET :n"),
                {**params, "n": limit - 1},
            ).scalar_one()
            within = " AND e.src <= :cut AND e.dst <= :cut"
        moves = conn.execute(
            sa.text(f"SELECT COUNT(*) FROM edges AS e WHERE e.game_id = :g{within}"), params
        ).scalar_one()
        nodes_sql = (
            "SELECT key, grundy, outcome, remoteness, depth, height, expanded FROM states "
            "WHERE game_id = :g" + (" AND id <= :cut" if within else "") + " ORDER BY id"
        )
        edges_sql = (
            "SELECT a.key, b.key FROM edges AS e "
            "JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src "
            "JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst "
            f"WHERE e.game_id = :g{within} ORDER BY e.src, e.dst"
        )

        from explorer.storage.bulk import partitions

        def stream(sql: str) -> Iterator[list[Any]]:
            for partition in partitions(conn, sql, params):
                yield list(partition)

        states = stored if not within else min(stored, limit or stored)
        return root, stream(nodes_sql), stream(edges_sql), stored, states, moves

    def _near(
        self, conn: sa.Connection, game_id: int, ids: list[int]
    ) -> tuple[Iterator[Any], Iterator[Any], int]:
        """Streams of the states `ids` (in that order) and the moves among them."""
        keys: dict[int, str] = {}

        def nodes() -> Iterator[list[Any]]:
            for chunk in chunks(ids):
                rows = self._rows_by_id(conn, game_id, chunk)
                keys.update((row.id, row.key) for row in rows)
                yield [
                    (r.key, r.grundy, r.outcome, r.remoteness, r.depth, r.height, r.expanded)
                    for r in rows
                ]

        def edges() -> Iterator[list[Any]]:
            for chunk in chunks(pairs):
                yield [(keys[a], keys[b]) for a, b in chunk]

        pairs: list[tuple[int, int]] = list(edges_among(conn, game_id, ids))
        return nodes(), edges(), len(pairs)

    @staticmethod
    def _graph(
        spec: str, root: str | None, rows: Sequence[Any], edges: Sequence[Any], misere: bool
    ) -> nx.DiGraph:
        import networkx as nx  # only the commands that return graphs load it

        graph = nx.DiGraph(game=spec, root=root, convention=_convention(misere))
        names = {}
        for row in rows:
            names[row.id] = row.key
            graph.add_node(row.key, **_state_dict(row))
            del graph.nodes[row.key]["position"]
        graph.add_edges_from((names[a], names[b]) for a, b in edges)
        return graph


def open_database(
    url: str | None = None, *, create: bool = True, read_only: bool = False
) -> Database:
    """Open (creating or upgrading as needed) the database a URL or file path names.

    Parameters
    ----------
    url : str or None
        A file path (SQLite), ``sqlite:///FILE``, ``postgresql://USER@HOST/DB``, or None for
        ``$EXPLORER_DB`` or else ``./explorer.db``. ``sqlite://`` is a database in memory.
    create : bool
        With False, a SQLite file that does not exist is an error (for commands that read).
    read_only : bool
        With True, the database must exist at the newest schema, and every write through this
        object fails (the connection itself is read-only): for servers and viewers.

    Returns
    -------
    Database

    Raises
    ------
    DatabaseURLError, DatabaseError, SchemaTooNewError
        See `explorer.storage.database.create_engine`; nothing is written when they are raised.

    Examples
    --------
    >>> with open_database("sqlite://") as db:
    ...     db.games()
    []
    """
    return Database(create_engine(url, create=create, read_only=read_only))
