"""Checking one stored game's states: every value against its stored successors, every move
against the rules, a range of state ids at a time (`check_game`); a game with cycles is labelled
again whole. The counts and depths are checked by `explorer.build.verify_checks`.

A misère build is checked by the misère rule: a state without moves has G⁻ = 1 (N: the
opponent moved last), any other the mex of its successors' G⁻, P exactly where that is 0.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import sqlalchemy as sa

from explorer.build.loopy import label_arrays, parse_escapes
from explorer.build.verify_checks import (
    MovesBack,
    Tally,
    count_problems,
    depth_problems,
    loopy_move_problems,
    moves_back,
)
from explorer.build.verify_ranges import RangeCheck, check_range
from explorer.build.verify_report import GameCheck, Progress, Recorder, Verification
from explorer.errors import ExplorerError
from explorer.games import load_game, may_cycle
from explorer.games.base import Game as GameRules
from explorer.games.convention import MISERE, Convention
from explorer.games.pyspec import rules_changed, stored_rules
from explorer.games.specs import GameSpec
from explorer.solver.loopy import Infinite
from explorer.storage.rows.counts import read_counts
from explorer.storage.rows.moves import read_moves
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables import states as states_table

#: States read per step (with all their moves): bounds the memory a check needs.
CHUNK_STATES = 20_000
#: Moves read per step, about, in a game whose states have many (fewer states a step then).
CHUNK_EDGES = 200_000


class StateChecker(Recorder):
    """The checks of one game's states, each problem recorded."""

    def __init__(self, result: Verification, check: GameCheck, show: int) -> None:
        super().__init__(result, check, show)
        # what a state without moves is worth: 0 in normal play, G⁻ = 1 in misère play
        self.terminal = 1 if check.convention == MISERE else 0

    @property
    def name(self) -> str:
        """What a state's value is called in a detail."""
        return "misère value G⁻" if self.terminal else "grundy value"

    def moves(self, key: str, stored: list[str], rules: GameRules[Any]) -> None:
        """Check a state's text and its stored moves (successor keys) against the rules."""
        for kind, detail in rule_problems(key, stored, rules):
            self.fail(key, kind, detail)


def rule_problems(key: str, stored: list[str], rules: GameRules[Any]) -> list[tuple[str, str]]:
    """What is wrong with a state's text and its stored moves (successor keys) by the rules:
    (kind, detail) pairs."""
    try:
        position = rules.parse(key)
        canonical = rules.format(position)
    except ExplorerError as error:
        return [("rules", f"the stored text is not a position: {error}")]
    if canonical != key:
        return [("rules", f"the stored text is not canonical (expected {canonical!r})")]
    expected = {rules.format(p) for p in rules.successors(position)}
    have = set(stored)
    return [("moves", f"the move to {lost!r} is missing") for lost in sorted(expected - have)] + [
        ("moves", f"a move to {extra!r}, which the rules do not allow")
        for extra in sorted(have - expected)
    ]


def _ranges(conn: sa.Connection, game_id: int, chunk: int) -> Iterator[tuple[int, int]]:
    """Ranges of ids covering every stored state and every move's source state."""
    top = conn.execute(edges_table.LAST_ID, {"g": game_id}).scalar()
    for low in range(0, -1 if top is None else int(top) + 1, chunk):
        yield low, low + chunk


def check_game(
    conn: sa.Connection,
    result: Verification,
    game_id: int,
    spec: str,
    *,
    convention: Convention,
    rules: bool,
    show: int,
    chunk: int,
    progress: Progress | None,
) -> GameCheck:
    """Check one stored game (in one convention), its problems recorded in `result`.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2,2")
    >>> result = Verification("sqlite://", "ok")
    >>> with db.engine.connect() as conn:
    ...     options = {"rules": True, "show": 5, "chunk": 2, "progress": None}
    ...     check = check_game(conn, result, 1, "nim", convention=Convention.NORMAL, **options)
    >>> check.states, check.edges, check.problems, check.rules
    (6, 9, 0, 'moves checked against the rules')
    >>> db.close()
    """
    check = GameCheck(spec, convention=convention)
    checker = StateChecker(result, check, show)
    game: GameRules[Any] | None = None
    parsed = GameSpec.parse(spec)
    if not parsed.loops:  # a graph: file may be gone: the stored edges are the game
        try:
            # without --rules a game's Python code is never run: a stand-in reads its positions
            game = load_game(spec) if rules else stored_rules(spec)
        except ExplorerError as error:
            check.rules = f"moves not checked: the game does not load ({error})"
    # a game built from its rules: its states are found only by builds (no edits)
    from_rules = game is not None and not parsed.only_file
    loopy = parsed.loops or (game is not None and may_cycle(game))
    if not rules and not loopy and parsed.user_code:
        # whether its rules may cycle is in its code: its build says it by storing no heights
        loopy = _stored_without_heights(conn, game_id)
    back: MovesBack | None = None  # the moves into states, when checked with the ranges
    tally = Tally()
    if loopy and not _unexpanded(conn, game_id):
        rules_game = game if rules else None
        _check_loopy_game(conn, checker, game_id, rules_game, tally)
        if game is not None:
            check.rules = (
                "moves checked against the rules; labelled whole"
                if rules_game is not None
                else "moves not checked (--no-rules); labelled whole"
            )
        if progress is not None:
            progress(spec, check.states, check.states)
    else:
        # a stopped build of a game with cycles: its level-by-level solve gave values only where
        # every successor had one (the mex), as in a game without cycles; nothing is labelled yet
        game = _rules_to_check(check, game, spec, rules)
        back = MovesBack(conn, game_id, found_by_builds=from_rules, show=show)
        _check_by_ranges(conn, checker, game_id, game, chunk, progress, back, tally)
        if not loopy and not _unexpanded(conn, game_id):
            _check_all_solved(conn, checker, game_id)
    _check_stored_rows(conn, checker, game_id, (from_rules, show), back, tally)
    return check


def _rules_to_check(
    check: GameCheck, game: GameRules[Any] | None, spec: str, rules: bool
) -> GameRules[Any] | None:
    """The rules a game's moves are checked against (None: not checked), said in the report."""
    if game is not None and GameSpec.parse(spec).only_file:
        # a graph imported from a file is the truth itself, and edits change it on purpose
        check.rules = "moves not checked: an imported graph's moves are its stored edges"
        return None
    if game is not None:
        check.rules = (
            "moves checked against the rules" if rules else "moves not checked (--no-rules)"
        )
        check.rules += rules_changed(spec, game.spec)
    return game if rules else None


def _check_by_ranges(
    conn: sa.Connection,
    checker: StateChecker,
    game_id: int,
    game: GameRules[Any] | None,
    chunk: int,
    progress: Progress | None,
    back: MovesBack,
    tally: Tally,
) -> None:
    """Check every stored state against its stored moves (and `game`'s rules), and its moves
    into it against its sources' moves (`back`, finished), a range of ids at a time; count
    the rows into `tally`."""
    check = checker.check
    # the stored count gives the total at once (counting the rows took seconds on big games)
    counts = read_counts(conn, game_id)
    total = counts.get("states", {}).get("")
    if total is None:
        total = conn.execute(states_table.COUNT, {"g": game_id}).scalar_one()
    edges = counts.get("edges", {}).get("")
    if total and edges:  # a wide game: fewer states a step, for about `CHUNK_EDGES` moves
        chunk = max(1, min(chunk, CHUNK_EDGES * total // edges))
    if progress is not None:
        progress(check.game, 0, total)
    for low, high in _ranges(conn, game_id, chunk):
        range_ = RangeCheck(conn, game_id, low, high, checker.terminal)
        found = check_range(range_, checker.name, game, rule_problems)
        for *_, key, kind, detail in sorted(found):
            checker.fail(key, kind, detail)
        # the range's moves into its states, against the successors of their sources
        forward = range_.ids[range_.src] << 32 | range_.dst
        back.read.remember(range_.ids, range_.depth, forward)
        back.add(range_.ids, range_.depth, range_.keys, range_.back_src, range_.back_dst)
        tally.add(range_.columns, range_.moves)
        check.states += len(range_.ids)
        check.edges += range_.moves
        if progress is not None:
            progress(check.game, check.states, total)
    back.finish()


def _check_all_solved(conn: sa.Connection, checker: StateChecker, game_id: int) -> None:
    """In a game whose play ends, every state is solved once every state is expanded: a state
    left without a value is on or above a cycle of its stored moves."""
    for _, key in conn.execute(states_table.UNSOLVED_KEYS, {"g": game_id}):
        checker.fail(
            key,
            "value",
            "no value although every state is expanded: its moves lead into a cycle, in a game "
            "whose rules say play always ends",
        )


def _stored_without_heights(conn: sa.Connection, game_id: int) -> bool:
    """Whether a game's solved states have no heights (a build of a game with cycles)."""
    params = {"g": game_id}
    return (
        conn.execute(states_table.ANY_SOLVED, params).first() is not None
        and conn.execute(states_table.ANY_HEIGHT, params).first() is None
    )


def _unexpanded(conn: sa.Connection, game_id: int) -> bool:
    """Whether a game has a state not expanded yet (a build stopped at --max-states)."""
    return conn.execute(states_table.ANY_UNEXPANDED, {"g": game_id}).first() is not None


def _check_stored_rows(
    conn: sa.Connection,
    checker: StateChecker,
    game_id: int,
    depths: tuple[bool, int],
    back: MovesBack | None,
    tally: Tally,
) -> None:
    """The game's counts against its rows (`tally`), its moves into states against its moves
    from states (`back`, when checked already), and its states' depths (`depths`: whether
    its states are found only by builds, and how many problems to name)."""
    from_rules, show = depths
    for name, kind, detail in count_problems(conn, game_id, tally):
        checker.fail(name, kind, detail)
    if back is None:
        back = moves_back(conn, game_id, CHUNK_STATES, found_by_builds=from_rules, show=show)
    if not back.transposed:
        checker.fail(
            "moves into states",
            "moves",
            f"the predecessors' columns hold {back.predecessors:,} moves that are not the "
            f"{back.successors:,} of the successors' read backwards",
        )
    total, first = depth_problems(conn, game_id, back, found_by_builds=from_rules, show=show)
    for name, kind, detail in first:
        checker.fail(name, kind, detail)
    checker.counted("depth", total - len(first))


def _check_loopy_game(
    conn: sa.Connection,
    checker: StateChecker,
    game_id: int,
    rules: GameRules[Any] | None,
    tally: Tally,
) -> None:
    """A game with cycles: γ is not local (without the labelling's counters no state can be
    checked from its successors alone), so its stored moves are labelled again, in memory, and
    every stored value, escape set, outcome and remoteness compared; heights must be NULL."""
    check = checker.check
    check.rules = "moves not checked: an imported graph's moves are its stored edges"
    rows = conn.execute(states_table.ALL, {"g": game_id}).all()
    src, dst = read_moves(conn, game_id)
    tally.add(list(zip(*rows, strict=True)) or [[]] * len(states_table.COLUMNS), len(src))
    position = {r.id: n for n, r in enumerate(rows)}
    missing = [int(i) for i in {*src.tolist(), *dst.tolist()} if i not in position]
    for i in sorted(missing):
        checker.fail(f"id {i}", "moves", "a move from or to a state not stored")
    check.states, check.edges = len(rows), len(src)
    if missing:
        return
    if rules is not None:
        moves: dict[int, list[int]] = {}
        for s, d in zip(src.tolist(), dst.tolist(), strict=True):
            moves.setdefault(s, []).append(d)
        loopy_move_problems(rows, moves, lambda key, have: checker.moves(key, have, rules))
    values = label_arrays(
        len(rows),
        np.array([position[i] for i in src.tolist()], dtype=np.int64),
        np.array([position[i] for i in dst.tolist()], dtype=np.int64),
    )
    for row, value in zip(rows, values, strict=True):
        try:
            escapes = parse_escapes(row.escapes)
        except ValueError:
            checker.fail(
                row.key, "value", f"an escape set {row.escapes!r} that is no set of values"
            )
            continue
        stored = (row.grundy, escapes, row.outcome, row.remoteness)
        expected = (value.grundy, value.escapes, value.outcome, value.remoteness)
        if stored != expected:
            checker.fail(
                row.key,
                "value",
                f"stored {_shown(*stored)}, the labelling of the stored moves gives "
                f"{_shown(*expected)}",
            )
        if row.height is not None:
            checker.fail(row.key, "height", "a game with cycles has no height (NULL)")


def _shown(
    grundy: int | None, escapes: frozenset[int] | None, outcome: str | None, far: int | None
) -> str:
    value = str(Infinite(escapes)) if escapes is not None else str(grundy)
    return f"{value} {outcome} (remoteness {far})"
