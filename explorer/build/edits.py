"""Editing stored graphs, re-solving only what changes, and the report of an edit or import.

`edit_game` adds and removes states and moves (`explorer.build.graph_import` stores a graph
file, or applies only its difference); `explorer.storage.Database` offers them as
``db.game(spec).edit`` and ``db.import_graph``. Both re-solve through
`explorer.solver.incremental` over `explorer.build.stored_graph.StoredGraph`, which reads and
writes a batch of states at a time, so an edit never loads the whole graph. Every value an edit
changes records it (its build row). `solve_stored` re-solves a stored game whole: what an edit
avoids.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.adjacency import Adjacency
from explorer.build.loopy import LOOPY_METHOD, apply_loopy_edit
from explorer.build.stored_graph import StoredGraph
from explorer.errors import EditError
from explorer.games.specs import GameSpec
from explorer.solver.arrays import solve_adjacency
from explorer.solver.incremental import Edit, EditResult, apply_edit
from explorer.solver.loopy import Infinite
from explorer.storage.backends.bulk import read_int_columns, value_columns, writer_for
from explorer.storage.backends.engine import writing
from explorer.storage.rows.counts import replace_value_counts, solved_counts
from explorer.storage.rows.moves import read_moves
from explorer.storage.rows.records import BuildCounts, insert_build
from explorer.storage.tables import states as states_table
from explorer.version import __version__

if TYPE_CHECKING:
    from explorer.storage.query.game_rows import GameRow

METHOD = f"incremental re-solve with early cutoff (explorer {__version__})"

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


def edit_report(
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


def apply_stored_edit(
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
    >>> game = db.game(db.import_graph("data/note003.json").game)
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
        result, build_id = apply_stored_edit(conn, game_id, spec, "edit", edit, method)
    return edit_report(spec, "edit", build_id, edit, result, None, started)


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
