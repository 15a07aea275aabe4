"""Importing DAG files into the database and editing stored graphs, re-solving only what changes.

`import_graph` stores a graph file as a game (or, when it is stored already, applies only the
difference); `edit_game` adds and removes states and moves; `explorer.storage.Database` offers
them as ``db.import_graph`` and ``db.game(spec).edit``. Both re-solve through
`explorer.solver.incremental` over `StoredGraph`, which reads and writes a batch of states at a
time, so an edit never loads the whole graph. Every value an edit changes records it (its build
row).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.adjacency import Adjacency
from explorer.build.loopy import (
    LOOPY_METHOD,
    LoopyValue,
    apply_loopy_edit,
    label_arrays,
    parse_escapes,
    store_values,
)
from explorer.errors import EditError
from explorer.games.base import Game
from explorer.games.dag import DagGame
from explorer.games.specs import GameSpec
from explorer.solver import outcome
from explorer.solver.arrays import depths, solve_adjacency
from explorer.solver.incremental import (
    Edit,
    EditResult,
    State,
    StateValue,
    apply_edit,
    edit_between,
)
from explorer.solver.loopy import Infinite
from explorer.storage.backends.bulk import (
    Row,
    StateRow,
    read_int_columns,
    value_columns,
    writer_for,
)
from explorer.storage.backends.engine import writing
from explorer.storage.rows.counts import (
    CountChanges,
    add_counts,
    histogram,
    recount,
    replace_value_counts,
    solved_counts,
)
from explorer.storage.rows.moves import add_moves, moves_at, read_moves, remove_moves
from explorer.storage.rows.records import (
    BuildCounts,
    add_game,
    adopt_typed_game,
    edge_arrays,
    find_game,
    graph_fingerprint,
    insert_build,
    set_fingerprint,
    update_build,
)
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables import states as states_table
from explorer.version import __version__

if TYPE_CHECKING:
    from explorer.storage.query.game_rows import GameRow

#: Keys sent in one ``IN (...)`` list (well under SQLite's limit on bound parameters).
CHUNK = 5_000

METHOD = f"incremental re-solve with early cutoff (explorer {__version__})"


def _chunks(items: Collection[State]) -> Iterable[list[State]]:
    listed = list(items)
    for start in range(0, len(listed), CHUNK):
        yield listed[start : start + CHUNK]


# -- the database as a SolvedGraphStore -----------------------------------------------------


class StoredGraph:
    """One stored game seen as an `explorer.solver.incremental.SolvedGraphStore`, states by key.

    Every state met in a query is remembered with its id, value and height (kept up to date by
    the writes), so the re-solve of a batch costs three queries: successors, new values,
    predecessors. Queries go by id (the primary key: a state's row holds its moves both ways),
    never by a scan. Reads and writes go through the caller's connection: one transaction for
    the whole edit. The build row recording the edit is written with the first change, so an
    edit refused while it is checked writes nothing. The game's counts follow every write
    (``counts``, closed by `finish`).
    """

    def __init__(self, conn: sa.Connection, game_id: int, kind: str, method: str) -> None:
        self.conn = conn
        self.game_id = game_id
        self.kind = kind
        self.method = method
        self.build_id: int | None = None
        #: key -> [id, grundy, remoteness, height, escapes] of every state read or written
        self.rows: dict[State, list[int | None]] = {}
        self.counts = CountChanges(conn, game_id)

    def _id(self, state: State) -> int:
        return self.rows[state][0]  # type: ignore[return-value]

    def _by_id(self, statement: sa.TextClause, states: Collection[State]) -> list[Any]:
        """Rows of `statement` (which filters on ``IN :ids``) for the given stored states."""
        ids = [self._id(s) for s in self._known(states)]
        rows: list[Any] = []
        for chunk in _chunks(ids):
            rows += self.conn.execute(statement, {"g": self.game_id, "ids": chunk}).all()
        return rows

    def _known(self, states: Collection[State]) -> list[State]:
        """The given states that are stored, those not met yet looked up one key at a time.

        One equality per key: with ``key IN (...)`` SQLite, lacking statistics, scans the
        game's states instead of using the key index.
        """
        missing = [s for s in states if s not in self.rows]
        for key in missing:
            found = self.conn.execute(
                states_table.KEPT_BY_KEY, {"g": self.game_id, "k": key}
            ).one_or_none()
            if found is not None:
                self.rows[key] = list(found)
        return [s for s in states if s in self.rows]

    def existing(self, states: Collection[State]) -> set[State]:
        return set(self._known(states))

    def _linked(
        self, states: Collection[State], this: edges_table.End, other: edges_table.End
    ) -> dict[State, list[State]]:
        rows = self._by_id(edges_table.linked_kept(this, other), states)
        key_of = {self._id(s): s for s in states if s in self.rows}
        result: dict[State, list[State]] = {s: [] for s in states}
        for state, linked, *row in rows:
            result[key_of[state]].append(linked)
            self.rows[linked] = row
        return result

    def successors(self, states: Collection[State]) -> dict[State, list[State]]:
        return self._linked(states, "src", "dst")

    def predecessors(self, states: Collection[State]) -> dict[State, list[State]]:
        return self._linked(states, "dst", "src")

    def heights_of(self, states: Collection[State]) -> dict[State, int]:
        return {s: self.rows[s][3] for s in self._known(states)}  # type: ignore[misc]

    def values_of(self, states: Collection[State]) -> dict[State, StateValue]:
        """Stored values; an infinite one (a game with cycles) as a `LoopyValue`."""
        rows = ((s, self.rows[s]) for s in self._known(states))
        found: dict[State, Any] = {
            s: StateValue(r[1], r[2])  # type: ignore[arg-type]
            if r[4] is None
            else LoopyValue(None, parse_escapes(r[4]), r[2])  # type: ignore[arg-type]
            for s, r in rows
            if r[1] is not None or r[4] is not None
        }
        return found

    def _record(self) -> int:
        if self.build_id is None:
            self.build_id = insert_build(
                self.conn, game_id=self.game_id, kind=self.kind, method=self.method
            )
        return self.build_id

    def _each(self, statement: sa.TextClause, rows: Sequence[Mapping[str, object]]) -> int:
        """Run `statement` once per row; the number of rows it changed."""
        return self.conn.execute(statement, rows).rowcount if rows else 0

    def _remove_moves(self, edit: Edit) -> int:
        """Take the edit's removed moves, and every move of its removed states, out of the
        rows of their ends; the number of stored moves taken."""
        at = self._id
        asked = {(at(a), at(b)) for a, b in edit.remove_edges}
        ends = [i for pair in asked for i in pair]
        stored = moves_at(self.conn, self.game_id, ends)
        gone = moves_at(self.conn, self.game_id, [at(s) for s in edit.remove_states])
        taken = sorted((asked & stored) | gone)
        pairs = np.array(taken, dtype=np.int64).reshape(-1, 2)
        remove_moves(self.conn, self.game_id, pairs[:, 0], pairs[:, 1])
        return len(taken)

    def change_structure(self, edit: Edit, heights: Mapping[State, int | None]) -> None:
        build = self._record()
        game, at = self.game_id, self._id
        self._known({s for e in (*edit.remove_edges, *edit.add_edges) for s in e})
        removed = self._remove_moves(edit)
        gone = [{"g": game, "s": at(s)} for s in edit.remove_states]
        self.counts.before(at(s) for s in edit.remove_states)
        self._each(states_table.DELETE, gone)
        for s in edit.remove_states:
            del self.rows[s]
        if edit.add_states:
            self._insert_states(edit, heights, build)
        added = np.array([(at(a), at(b)) for a, b in edit.add_edges], dtype=np.int64)
        add_moves(self.conn, game, *added.reshape(-1, 2).T)
        self.counts.edges(len(added) - removed)
        raised = {s: h for s, h in heights.items() if s not in set(edit.add_states)}
        self.counts.before(at(s) for s in raised)
        self._each(
            states_table.SET_HEIGHT,
            [{"h": h, "g": game, "s": at(s)} for s, h in raised.items()],
        )
        for s, h in raised.items():
            self.rows[s][3] = h

    def _insert_states(self, edit: Edit, heights: Mapping[State, int | None], build: int) -> None:
        """New states get ids above the game's largest and a depth one below their shallowest
        stored predecessor (0 without one)."""
        new = set(edit.add_states)
        first = self.conn.execute(states_table.NEXT_ID, {"g": self.game_id}).scalar_one()
        preds = {v for v, w in edit.add_edges if w in new and v not in new}
        depth_of = dict(self._by_id(states_table.DEPTHS, preds))
        rows: list[StateRow] = []
        for offset, key in enumerate(edit.add_states):
            above = [depth_of[v] for v, w in edit.add_edges if w == key and v in depth_of]
            depth = 1 + min(above) if above else 0
            self.rows[key] = [first + offset, None, None, heights[key], None]
            rows.append(
                StateRow(
                    game_id=self.game_id,
                    id=first + offset,
                    key=str(key),
                    depth=depth,
                    expanded=True,
                    grundy=None,
                    outcome=None,
                    remoteness=None,
                    height=heights[key],
                    build_id=build,
                    value_build_id=None,
                )
            )
        self.counts.before(row.id for row in rows)  # none stored yet: counted at the end
        writer_for(self.conn).insert_states(rows)

    def write_values(self, values: dict[State, StateValue]) -> None:
        build = self._record()
        self.counts.before(self._id(s) for s in values)
        self._each(
            states_table.SET_VALUE,
            [
                {
                    "grundy": v.grundy,
                    "outcome": v.outcome,
                    "far": v.remoteness,
                    "b": build,
                    "g": self.game_id,
                    "s": self._id(s),
                }
                for s, v in values.items()
            ],
        )
        for s, v in values.items():
            self.rows[s][1:3] = [v.grundy, v.remoteness]

    def finish(self, edit: Edit, result: EditResult) -> None:
        """Close the build row with what the edit did, and count what it changed."""
        if self.build_id is None:
            return
        self.counts.finish()
        counts = BuildCounts(
            states_new=len(edit.add_states),
            edges_new=len(edit.add_edges),
            values_computed=result.reexamined,
        )
        update_build(self.conn, self.build_id, "complete", counts)


# -- reports ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChangedValue:
    """One value an edit changed (``old_*`` are None for a new state)."""

    position: str
    old_grundy: int | None
    old_outcome: str | None
    old_remoteness: int | None
    grundy: int | None
    outcome: str
    remoteness: int | None
    #: K of an infinite value ∞(K) in a game with cycles (``grundy`` is then None).
    old_escapes: list[int] | None = None
    escapes: list[int] | None = None

    @property
    def old_value(self) -> str | None:
        """The old value as text (``3``, ``∞(0,2)``), None for a new state."""
        if self.old_escapes is not None:
            return str(Infinite(frozenset(self.old_escapes)))
        return None if self.old_grundy is None else str(self.old_grundy)

    @property
    def value(self) -> str:
        """The new value as text."""
        if self.escapes is not None:
            return str(Infinite(frozenset(self.escapes)))
        return str(self.grundy)


@dataclass(frozen=True)
class EditReport:
    """What an import or edit did (see `to_dict` for the JSON form).

    ``kind`` is ``import`` (a new game), ``reimport`` (a stored file's difference applied) or
    ``edit``; ``build_id`` is the row in ``builds`` that the changed values point to (None when
    nothing changed). ``states`` and ``edges`` count the file's (None for an edit, which does
    not count the stored graph).
    """

    game: str
    kind: str
    build_id: int | None
    description: str
    states: int | None
    edges: int | None
    states_added: int
    states_removed: int
    edges_added: int
    edges_removed: int
    reexamined: int
    changed: int
    reordered: int
    seconds: float
    values: list[ChangedValue] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _report(
    game: str,
    kind: str,
    build_id: int | None,
    edit: Edit,
    result: EditResult,
    counts: tuple[int, int] | None,
    started: float,
) -> EditReport:
    values = [
        ChangedValue(
            str(s),
            None if old is None else old.grundy,
            None if old is None else old.outcome,
            None if old is None else old.remoteness,
            new.grundy,
            new.outcome,
            new.remoteness,
            _escapes(old),
            _escapes(new),
        )
        for s, (old, new) in result.changed.items()
    ]
    return EditReport(
        game=game,
        kind=kind,
        build_id=build_id,
        description=edit.describe(),
        states=None if counts is None else counts[0],
        edges=None if counts is None else counts[1],
        states_added=len(edit.add_states),
        states_removed=len(edit.remove_states),
        edges_added=len(edit.add_edges),
        edges_removed=len(edit.remove_edges),
        reexamined=result.reexamined,
        changed=len(result.changed),
        reordered=result.reordered,
        seconds=time.perf_counter() - started,
        values=values,
    )


def _escapes(value: object) -> list[int] | None:
    escapes = getattr(value, "escapes", None)
    return None if escapes is None else sorted(escapes)


# -- the entry points ------------------------------------------------------------------------


def _apply(
    conn: sa.Connection, game_id: int, spec: str, kind: str, edit: Edit, method: str
) -> tuple[EditResult, int | None]:
    store = StoredGraph(conn, game_id, kind, method)
    loopy = GameSpec.parse(spec).loops
    result = apply_loopy_edit(store, edit) if loopy else apply_edit(store, edit)
    store.finish(edit, result)
    return result, store.build_id


def edit_game(engine: Engine, game: GameRow, edit: Edit) -> EditReport:
    """Apply an edit to a stored game and re-solve the values it changes, in one transaction.

    Parameters
    ----------
    engine : sqlalchemy.Engine
        An open database (`explorer.storage.open_database(...).engine`).
    game : GameRow
        The stored game's row (see `StoredGame.row`), of a game on a graph file (``dag:``).
        Games defined by rules (``nim``) are refused: their graph follows from the rules.
    edit : Edit
        States are position keys as stored.

    Returns
    -------
    EditReport

    Raises
    ------
    EditError, CyclicGraphError
        When the edit is refused (see `explorer.solver.incremental.apply_edit`); nothing is written.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> game = db.game(import_graph(db.engine, "data/note003.json").game)
    >>> report = edit_game(db.engine, game.row(), Edit(remove_edges=(("b", "a"),)))
    >>> report.reexamined, report.changed, game.state("b")["grundy"]
    (1, 1, 1)
    """
    started = time.perf_counter()
    if not edit:
        raise EditError("the edit changes nothing (give states or moves to add or remove)")
    with writing(engine) as conn:
        game_id, parsed = game.id, GameSpec.parse(game.spec)
        method = f"{edit.describe()}; {LOOPY_METHOD if parsed.loops else METHOD}"
        spec = parsed.shown()
        if not parsed.only_file:
            # its moves come from rules: an edited copy would disagree with them, and a later
            # build would reuse the disagreeing values
            raise EditError(
                f"game {spec!r} is defined by rules, so its stored graph cannot be edited "
                "(edit a graph imported from a file: explorer import FILE)"
            )
        result, build_id = _apply(conn, game_id, spec, "edit", edit, method)
    return _report(spec, "edit", build_id, edit, result, None, started)


def import_graph(engine: Engine, source: str | DagGame) -> EditReport:
    """Store a graph file as the game ``dag:PATH``, solved; if stored already, apply the
    difference between the stored graph and the file and re-solve only what it changes.

    Parameters
    ----------
    engine : sqlalchemy.Engine
    source : str or DagGame
        The file, or the game already read from it. Read it first (``DagGame(path)``, which
        checks it) to refuse a bad file before opening the database, as ``explorer import``
        does: a rejected file then changes nothing, not even by creating a database.

    Returns
    -------
    EditReport
        ``kind`` is ``import`` for a new game, ``reimport`` for a stored one.

    Raises
    ------
    GameFileError, CyclicGraphError
        For a file that cannot be imported (see `explorer.games.dag.read_graph_file`).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from explorer import open_database
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "g.edges"
    >>> _ = path.write_text("a -> b\\nb -> c\\n")
    >>> db = open_database("sqlite://")
    >>> report = import_graph(db.engine, str(path))
    >>> report.kind, report.states, report.edges, db.game(report.game).state("a")["grundy"]
    ('import', 3, 2, 0)
    """
    started = time.perf_counter()
    game = source if isinstance(source, Game) else DagGame(source)  # read already, or a path
    path = game.path
    vertices = game.vertices
    edges = [(v, w) for v in vertices for w in game.successors(v)]
    src, dst = edge_arrays(vertices, edges)
    fingerprint = graph_fingerprint(vertices, src, dst)
    spec = GameSpec.parse(game.spec).reported()
    with writing(engine) as conn:
        game_id = find_game(conn, GameSpec.parse(game.spec).canonical())
        if game_id is None:
            game_id = adopt_typed_game(conn, game, fingerprint)
        if game_id is None:
            build_id = _store_new(conn, game, vertices, src, dst, fingerprint)
            return EditReport(
                game=spec,
                kind="import",
                build_id=build_id,
                description=f"import of {game.path}",
                states=len(vertices),
                edges=len(edges),
                states_added=len(vertices),
                states_removed=0,
                edges_added=len(edges),
                edges_removed=0,
                reexamined=len(vertices),
                changed=len(vertices),
                reordered=0,
                seconds=time.perf_counter() - started,
            )
        stored_keys = [k for (k,) in conn.execute(states_table.KEYS, {"g": game_id})]
        stored_edges = conn.execute(sa.text(edges_table.exported(False)), {"g": game_id}).all()
        edit = edit_between(stored_keys, map(tuple, stored_edges), vertices, edges)
        set_fingerprint(conn, game_id, fingerprint)
        if not edit:
            return _report(
                spec,
                "reimport",
                None,
                edit,
                EditResult(0),
                (len(vertices), len(edges)),
                started,
            )
        summary = (
            f"re-import of {path}: +{len(edit.add_states)} -{len(edit.remove_states)} states, "
            f"+{len(edit.add_edges)} -{len(edit.remove_edges)} edges; {METHOD}"
        )
        result, reimport_build = _apply(conn, game_id, spec, "reimport", edit, summary)
    return _report(
        spec, "reimport", reimport_build, edit, result, (len(vertices), len(edges)), started
    )


def _store_new(
    conn: sa.Connection,
    game: DagGame,
    vertices: list[str],
    src: np.ndarray,
    dst: np.ndarray,
    fingerprint: str,
) -> int:
    """Insert a new game with every state and edge, solved from scratch; return the build id.

    An acyclic game is solved level by level; a game with cycles gets generalized values (∞(K)
    with its escapes, outcome D for a draw) and no height, written after its states."""
    succ = Adjacency.from_edges(len(vertices), src, dst)
    size = len(vertices)
    if game.acyclic:
        solved = solve_adjacency(succ, name=vertices.__getitem__)
        grundy, remote, height = solved
        columns = [grundy.tolist(), outcome(grundy).tolist(), remote.tolist(), height.tolist()]
        how = "solved level by level"
    else:
        loopy = label_arrays(size, src, dst)
        columns = [[None] * size] * 4  # written by store_values, below
        how = "generalized Sprague-Grundy labelling"
    depth = depths(succ)
    game_id = add_game(conn, game, fingerprint)
    build_id = insert_build(
        conn,
        game_id=game_id,
        kind="import",
        status="complete",
        counts=BuildCounts(states_new=size, edges_new=len(src), values_computed=size),
        method=f"import of {game.path}; {how} (explorer {__version__})",
    )
    # plain tuples in `StateRow` order (see `explorer.storage.backends.bulk.Row`)
    rows: list[Row] = list(
        zip(
            repeat(game_id),
            range(size),
            vertices,
            depth.tolist(),
            repeat(True),
            *columns,
            repeat(build_id),
            repeat(build_id),
            strict=False,
        )
    )
    writer = writer_for(conn)
    writer.insert_states(rows)
    add_moves(conn, game_id, src, dst)
    if game.acyclic:
        totals = [("states", "", size), ("expanded", "", size), ("edges", "", len(src))]
        add_counts(conn, game_id, totals + histogram("depth", depth) + solved_counts(*solved))
    else:
        store_values(conn, game_id, build_id, loopy)
        recount(conn, game_id)
    return build_id


def solve_stored(engine: Engine, game: GameRow) -> int:
    """Re-solve every state of a stored game from its stored edges (a full re-solve).

    Values and heights are written back; the build row is kind ``solve``. Returns the number
    of states solved. This is what an edit avoids; the benchmark compares the two.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> nim = db.game("nim")
    >>> _ = nim.build("2,2")
    >>> solve_stored(db.engine, nim.row()), nim.state("2,2")["grundy"]
    (6, 0)
    """
    # read on a connection of its own: streaming reads leave it set to stream (server-side
    # cursors on PostgreSQL), which the writes below must not inherit
    game_id = game.id
    with engine.connect() as conn:
        (ids,) = read_int_columns(conn, states_table.by_id("id"), {"g": game_id}, 1)
        src, dst = read_moves(conn, game_id)
    size = int(ids[-1]) + 1 if ids.size else 0
    grundy, remote, height = solve_adjacency(Adjacency.from_edges(size, src, dst))
    with writing(engine) as conn:
        build_id = insert_build(
            conn,
            game_id=game_id,
            kind="solve",
            status="complete",
            counts=BuildCounts(states_reused=len(ids), values_computed=len(ids)),
            method=f"full re-solve level by level (explorer {__version__})",
        )
        writer_for(conn).update_values(
            value_columns(ids, grundy, remote, height, build_id=build_id, game_id=game_id)
        )
        counts = solved_counts(grundy[ids], remote[ids], height[ids])
        replace_value_counts(conn, game_id, [("expanded", "", len(ids)), *counts])
    return len(ids)
