"""Importing a graph file into the database (`import_graph`): a new game stored whole and
solved, or, when the file is stored already, only the difference applied and re-solved
(`explorer.build.edits`).
"""

from __future__ import annotations

import time
from itertools import repeat

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.adjacency import Adjacency
from explorer.build.edits import METHOD, EditReport, apply_stored_edit, edit_report
from explorer.build.loopy import label_arrays, store_values
from explorer.games.base import Game
from explorer.games.dag import DagGame
from explorer.games.specs import GameSpec
from explorer.solver import outcome
from explorer.solver.arrays import depths, solve_adjacency
from explorer.solver.incremental import Edit, EditResult, edit_between
from explorer.storage.backends.bulk import Row, writer_for
from explorer.storage.backends.engine import writing
from explorer.storage.rows.counts import add_counts, histogram, recount, solved_counts
from explorer.storage.rows.moves import add_moves, key_pairs
from explorer.storage.rows.records import (
    BuildCounts,
    add_game,
    adopt_typed_game,
    edge_arrays,
    find_game,
    graph_fingerprint,
    insert_build,
    set_fingerprint,
)
from explorer.storage.tables import states as states_table
from explorer.version import __version__


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
        edit, result, reimport_build = _reimport(conn, game_id, spec, game, edges, fingerprint)
    counts = (len(vertices), len(edges))
    return edit_report(spec, "reimport", reimport_build, edit, result, counts, started)


def _reimport(
    conn: sa.Connection,
    game_id: int,
    spec: str,
    game: DagGame,
    edges: list[tuple[str, str]],
    fingerprint: str,
) -> tuple[Edit, EditResult, int | None]:
    """Apply the difference between a stored graph and its file, re-solving what it changes;
    the edit, what it did and its build id (None when the file changed nothing)."""
    stored_keys = [k for (k,) in conn.execute(states_table.KEYS, {"g": game_id})]
    stored_edges = [pair for batch in key_pairs(conn, game_id) for pair in batch]
    edit = edit_between(stored_keys, stored_edges, game.vertices, edges)
    set_fingerprint(conn, game_id, fingerprint)
    if not edit:
        return edit, EditResult(0), None
    summary = (
        f"re-import of {game.path}: +{len(edit.add_states)} -{len(edit.remove_states)} states, "
        f"+{len(edit.add_edges)} -{len(edit.remove_edges)} edges; {METHOD}"
    )
    result, build_id = apply_stored_edit(conn, game_id, spec, "reimport", edit, summary)
    return edit, result, build_id


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
