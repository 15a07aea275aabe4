"""Checking a stored database: every value against its successors, every move against the rules.

`verify_database` streams through each stored game a range of state ids at a time (memory stays
bounded whatever the database's size) and recomputes, independently of the builder, what every
state's Grundy value, outcome, remoteness and height must be given its stored successors, in
numpy (`explorer.build.verify_ranges`); for games defined by rules it regenerates each expanded
state's moves and compares them with the stored ones: a heap game's a range at a time by the
build's own expansion (`HeapIndex`, itself checked against brute force), any other's through
its rules' ``successors`` (`explorer.build.verify_states`). It checks depths, the per-game counts
(`explorer.build.verify_checks`), stored sequences and part tables
(`explorer.build.verify_parts`) too. On SQLite it also runs the file's own ``PRAGMA
integrity_check``. What it finds is a `Verification` (`explorer.build.verify_report`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.build.verify_parts import check_part_tables, families_of
from explorer.build.verify_report import GameCheck, Progress, Recorder, Verification
from explorer.build.verify_states import CHUNK_STATES, check_game
from explorer.games.convention import MISERE
from explorer.storage.backends.dialects import Dialect, dialect_of
from explorer.storage.backends.errors import dbapi_errors, reason
from explorer.storage.rows.records import key_index_present
from explorer.storage.rows.sequences import sequence_damage
from explorer.storage.schema.models import KEY_INDEX, GameTable, SequenceTable

if TYPE_CHECKING:
    from explorer.storage.query.game_rows import GameRow


def verify_database(
    engine: Engine,
    game: GameRow | None = None,
    *,
    rules: bool = True,
    show: int = 20,
    chunk: int = CHUNK_STATES,
    progress: Progress | None = None,
) -> Verification:
    """Check a stored database: values, outcomes, remoteness and heights, moves, file integrity.

    Every stored state's value is recomputed from its stored successors: the Grundy value is
    their mex, the outcome P exactly when it is 0, remoteness follows the winner-hurries rule,
    and the height is above every successor's. A state whose successors are not all solved has
    no value, and an unexpanded state no moves. For games defined by rules each expanded
    state's text is parsed and its moves regenerated; they must be exactly the stored moves.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        An open database (`explorer.storage.open_database(...).engine`).
    game : GameRow, optional
        The row of the game to check (see `StoredGame.row`), in its convention (a misère
        build by the misère rule); every stored game, in each convention, when None.
    rules : bool
        Regenerate moves from the rules (a heap game's a range at a time, any other's one
        ``successors`` call a state: the slow part).
    show : int
        Mismatches kept for the report (all are counted).
    chunk : int
        States read per step.
    progress : callable, optional
        Called as ``progress(game, states_checked, states_stored)`` before a game's first
        step and after every step (``states_stored`` from the game's stored counts), and as
        ``progress(stage, 0, 0)`` before a stage with no count (the file's integrity check).

    Returns
    -------
    Verification

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2,2")
    >>> result = verify_database(db.engine)
    >>> result.ok, result.games[0].states, result.integrity
    (True, 6, 'ok')
    >>> db.close()
    """
    url = engine.url.render_as_string(hide_password=True)
    dialect = dialect_of(engine)
    shown = (
        "ok" if dialect.checks_integrity else f"skipped ({dialect.title} has no integrity_check)"
    )
    result = Verification(url, shown)
    with engine.connect() as conn:
        games = _stored_games(conn, result, dialect, progress)
        if games is None:
            return result
        if game is not None:
            games = [g for g in games if g.id == game.id]
        _check_games(conn, result, games, rules=rules, show=show, chunk=chunk, progress=progress)
        _check_sequences(conn, result, {game_id for game_id, _, _ in games}, show)
        families = None
        if game is not None:
            misere = game.convention == MISERE  # parts are valued in normal play
            families = [] if misere or not rules else families_of(game.spec)
        check_part_tables(conn, result, families, rules=rules, show=show, progress=progress)
    return result


def _stored_games(
    conn: sa.Connection, result: Verification, dialect: Dialect, progress: Progress | None
) -> list[Any] | None:
    """The stored games' rows (id, spec, convention), after the file's own integrity check and
    the key index's; None when they cannot be read (said in `result`)."""
    if dialect.checks_integrity:
        if progress is not None:  # a stage with no count: said by name while it runs
            progress("the file's integrity", 0, 0)
        problems = dialect.integrity_problems(conn)
        if problems:
            result.integrity = "failed"
            result.integrity_problems = problems
    try:
        if not key_index_present(conn):
            result.integrity_problems.append(
                f"the unique index {KEY_INDEX} on states (game_id, key) is missing: a large "
                "build drops it while it writes and was killed (or is still writing); the "
                "next build, import or edit of any game creates it again"
            )
        return list(conn.execute(sa.text("SELECT id, spec, convention FROM games ORDER BY id")))
    except sa.exc.DatabaseError as error:
        result.integrity_problems.append(f"cannot read the games: {reason(error)}")
        return None


def _check_games(
    conn: sa.Connection,
    result: Verification,
    games: list[Any],
    *,
    rules: bool,
    show: int,
    chunk: int,
    progress: Progress | None,
) -> None:
    """Check each stored game; a game whose rows cannot be read or hold what no build writes
    is reported as damage, never a traceback."""
    for game_id, spec, convention in games:
        try:
            result.games.append(
                check_game(
                    conn,
                    result,
                    game_id,
                    spec,
                    convention=convention,
                    rules=rules,
                    show=show,
                    chunk=chunk,
                    progress=progress,
                )
            )
        except dbapi_errors(conn.engine) as error:  # ranges are read through the raw cursor
            result.integrity_problems.append(f"cannot read {spec!r}: {reason(error)}")
            conn.rollback()
        except (ValueError, TypeError, OverflowError) as error:
            # a row holding what no build writes (text in a number, a NULL where the
            # game's kind needs a value)
            result.integrity_problems.append(
                f"cannot check {spec!r}: a stored row holds what no build writes "
                f"({type(error).__name__}: {error})"
            )


def _check_sequences(
    conn: sa.Connection, result: Verification, game_ids: set[int], show: int
) -> None:
    """Check the stored sequences of the games checked: their chunks against their row."""
    try:
        rows = conn.execute(
            sa.select(SequenceTable, GameTable.spec).join(
                GameTable, GameTable.id == SequenceTable.game_id
            )
        ).all()
    except sa.exc.DatabaseError as error:
        result.integrity_problems.append(f"cannot read the sequences: {reason(error)}")
        return
    for row in rows:
        if row.game_id not in game_ids:
            continue
        damage = sequence_damage(conn, row)
        check = GameCheck(row.spec, rules="stored sequence")
        if damage is not None:
            Recorder(result, check, show).fail("G(0..)", "sequence", damage)
            result.games.append(check)
