"""Checking a stored database: every value against its successors, every move against the rules.

`verify_database` streams through each stored game a range of state ids at a time (memory stays
bounded whatever the database's size) and recomputes, independently of the builder, what every
state's Grundy value, outcome, remoteness and height must be given its stored successors; for
games defined by rules it regenerates each expanded state's moves and compares them with the
stored ones. It checks depths, the per-game counts and stored sequences too
(`explorer.build.verify_checks`). On SQLite it also runs the file's own ``PRAGMA integrity_check``.

A misère build is checked by the misère rule: a state without moves has G⁻ = 1 (N: the
opponent moved last), any other the mex of its successors' G⁻, P exactly where that is 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.build.loopy import label_arrays, parse_escapes
from explorer.build.verify_checks import count_problems, depth_problems, loopy_move_problems
from explorer.errors import ExplorerError
from explorer.games import load_game, may_cycle
from explorer.games.base import Game as GameRules
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.pyspec import rules_changed, stored_rules
from explorer.games.specs import GameSpec
from explorer.solver.loopy import Infinite
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.backends.errors import reason
from explorer.storage.rows.counts import read_counts
from explorer.storage.rows.moves import read_moves
from explorer.storage.rows.records import key_index_present
from explorer.storage.rows.sequences import sequence_damage
from explorer.storage.schema.models import KEY_INDEX, GameTable, SequenceTable
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables import states as states_table

if TYPE_CHECKING:
    from explorer.storage.query.game_rows import GameRow

#: States read per step (with all their moves): bounds the memory a check needs.
CHUNK_STATES = 20_000
#: Moves read per step, about, in a game whose states have many (fewer states a step then).
CHUNK_EDGES = 200_000


@dataclass(frozen=True)
class Mismatch:
    """One thing found wrong: where, which check, and what was expected."""

    game: str
    position: str
    check: str
    detail: str
    convention: Convention = NORMAL

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class GameCheck:
    """What was checked in one game, and how many problems were found."""

    game: str
    states: int = 0
    edges: int = 0
    rules: str = ""
    problems: int = 0
    convention: Convention = NORMAL
    #: What `states` counts: states, or parts of a part table.
    unit: str = "states"


@dataclass
class Verification:
    """The result of `verify_database` (see `to_dict` for the JSON form).

    ``ok`` is true when the integrity check (where there is one) and every game passed.
    """

    url: str
    integrity: str
    integrity_problems: list[str] = field(default_factory=list)
    games: list[GameCheck] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    problems: int = 0
    #: Problems by kind of check (``grundy``, ``moves``, ``counts``, ``depth``, ...): how many,
    #: and the first few rows named (``game position``).
    kinds: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.problems == 0 and not self.integrity_problems

    def damage(self) -> list[str]:
        """One line per kind of damage found: the kind, how many, and the first rows."""
        return [
            f"{kind}: {_plural(found['problems'], 'problem')} ({', '.join(found['first'])}"
            + (", ..." if found["problems"] > len(found["first"]) else "")
            + ")"
            for kind, found in self.kinds.items()
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "database": self.url,
            "ok": self.ok,
            "integrity": self.integrity,
            "integrity_problems": self.integrity_problems,
            "problems": self.problems + len(self.integrity_problems),
            "games": [asdict(g) for g in self.games],
            "mismatches": [m.to_dict() for m in self.mismatches],
            "kinds": self.kinds,
        }


#: Rows named per kind of damage in `Verification.damage`.
FIRST_ROWS = 3


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def mex(values: set[int]) -> int:
    """The least non-negative integer not in `values` (written here again, on purpose: the
    check must not share code with the solver it checks)."""
    k = 0
    while k in values:
        k += 1
    return k


class _Checker:
    """The checks of one game, collecting up to `show` mismatches and counting all of them."""

    def __init__(self, result: Verification, check: GameCheck, show: int) -> None:
        self.result, self.check, self.show = result, check, show
        # what a state without moves is worth: 0 in normal play, G⁻ = 1 in misère play
        self.terminal = 1 if check.convention == MISERE else 0

    def fail(self, position: str, kind: str, detail: str) -> None:
        self.check.problems += 1
        self.result.problems += 1
        found = self.result.kinds.setdefault(kind, {"problems": 0, "first": []})
        found["problems"] += 1
        if len(found["first"]) < FIRST_ROWS:
            misere = " (misère)" if self.check.convention == MISERE else ""
            found["first"].append(f"{self.check.game}{misere} {position}")
        if len(self.result.mismatches) < self.show:
            self.result.mismatches.append(
                Mismatch(self.check.game, position, kind, detail, self.check.convention)
            )

    def counted(self, kind: str, number: int) -> None:
        """Count `number` more problems of a kind, found but not read (past the first)."""
        self.check.problems += number
        self.result.problems += number
        if number:
            self.result.kinds[kind]["problems"] += number

    def state(self, row: Any, moves: list[Any], rules: GameRules[Any] | None) -> None:
        """Check one stored state against its stored successors (``moves``) and the rules."""
        key, grundy = row.key, row.grundy
        if row.escapes is not None:
            self.fail(key, "value", f"an escape set {row.escapes!r} in a game whose play ends")
        if grundy is None:
            if row.outcome is not None or row.remoteness is not None or row.height is not None:
                self.fail(key, "value", "outcome, remoteness or height stored without a value")
        elif row.outcome != ("P" if grundy == 0 else "N"):
            self.fail(key, "outcome", f"stored {row.outcome!r}, but its {self._name} is {grundy}")
        if not row.expanded:
            if moves:
                self.fail(key, "moves", f"{len(moves)} moves stored for an unexpanded state")
            if grundy is not None:
                self.fail(key, "value", "a value stored for an unexpanded state")
            return
        missing = [m.dst for m in moves if m.key is None]
        for dst in missing:
            self.fail(key, "moves", f"a move to state id {dst}, which is not stored")
        if missing:
            return
        unsolved = [m.key for m in moves if m.grundy is None]
        if unsolved:
            if grundy is not None:
                self.fail(key, "value", f"a value stored although {unsolved[0]!r} has none")
        else:
            self._values(row, moves)
        if rules is not None:
            self._rules(key, [m.key for m in moves], rules)

    @property
    def _name(self) -> str:
        return "misère value G⁻" if self.terminal else "grundy value"

    def _values(self, row: Any, moves: list[Any]) -> None:
        key = row.key
        values = {m.grundy for m in moves}
        expected = mex(values) if moves else self.terminal
        if row.grundy is None:
            self.fail(
                key, "value", f"no value stored although every successor has one ({expected})"
            )
            return
        if row.grundy != expected:
            rule = (
                "the mex of its successors"
                if moves or not self.terminal
                else "a misère end of the game (no move)"
            )
            self.fail(key, "grundy", f"stored {row.grundy}, {rule} is {expected}")
        if not moves:
            remote = 0
        elif expected:
            # the winner moves to the nearest P-position (one exists when the mex is above 0)
            remote = 1 + min((m.remoteness for m in moves if m.grundy == 0), default=-2)
        else:
            remote = 1 + max(m.remoteness for m in moves)
        if row.remoteness != remote:
            self.fail(key, "remoteness", f"stored {row.remoteness}, its successors give {remote}")
        if any(m.height is None for m in moves):
            self.fail(key, "height", "a successor has a value but no height (NULL)")
            return
        below = max((m.height for m in moves), default=-1)
        if row.height is None or row.height <= below:
            self.fail(
                key,
                "height",
                f"stored {row.height}, not above its successors' highest ({below})",
            )

    def _rules(self, key: str, stored: list[str], rules: GameRules[Any]) -> None:
        try:
            position = rules.parse(key)
            canonical = rules.format(position)
        except ExplorerError as error:
            self.fail(key, "rules", f"the stored text is not a position: {error}")
            return
        if canonical != key:
            self.fail(key, "rules", f"the stored text is not canonical (expected {canonical!r})")
            return
        expected = {rules.format(p) for p in rules.successors(position)}
        have = set(stored)
        for lost in sorted(expected - have):
            self.fail(key, "moves", f"the move to {lost!r} is missing")
        for extra in sorted(have - expected):
            self.fail(key, "moves", f"a move to {extra!r}, which the rules do not allow")


def _ranges(conn: sa.Connection, game_id: int, chunk: int) -> Iterator[tuple[int, int]]:
    """Ranges of ids covering every stored state and every move's source state."""
    top = conn.execute(edges_table.LAST_ID, {"g": game_id}).scalar()
    for low in range(0, -1 if top is None else int(top) + 1, chunk):
        yield low, low + chunk


def _check_game(
    conn: sa.Connection,
    result: Verification,
    game_id: int,
    spec: str,
    *,
    convention: Convention,
    rules: bool,
    show: int,
    chunk: int,
    progress: Callable[[str, int, int], None] | None,
) -> GameCheck:
    check = GameCheck(spec, convention=convention)
    checker = _Checker(result, check, show)
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
    if loopy and not _unexpanded(conn, game_id):
        rules_game = game if rules else None
        _check_loopy_game(conn, checker, game_id, rules_game)
        if game is not None:
            check.rules = (
                "moves checked against the rules; labelled whole"
                if rules_game is not None
                else "moves not checked (--no-rules); labelled whole"
            )
        if progress is not None:
            progress(spec, check.states, check.states)
        _check_stored_rows(conn, checker, game_id, from_rules, show)
        return check
    # a stopped build of a game with cycles: its level-by-level solve gave values only where
    # every successor had one (the mex), as in a game without cycles; nothing is labelled yet
    if game is not None and parsed.only_file:
        # a graph imported from a file is the truth itself, and edits change it on purpose
        check.rules = "moves not checked: an imported graph's moves are its stored edges"
        game = None
    elif game is not None:
        check.rules = (
            "moves checked against the rules" if rules else "moves not checked (--no-rules)"
        )
        check.rules += rules_changed(spec, game.spec)
    if not rules:
        game = None
    # the stored count gives the total at once (counting the rows took seconds on big games)
    counts = read_counts(conn, game_id)
    total = counts.get("states", {}).get("")
    if total is None:
        total = conn.execute(states_table.COUNT, {"g": game_id}).scalar_one()
    edges = counts.get("edges", {}).get("")
    if total and edges:  # a wide game: fewer states a step, for about `CHUNK_EDGES` moves
        chunk = max(1, min(chunk, CHUNK_EDGES * total // edges))
    if progress is not None:
        progress(spec, 0, total)
    for low, high in _ranges(conn, game_id, chunk):
        params = {"g": game_id, "lo": low, "hi": high}
        states = conn.execute(states_table.IN_RANGE, params).all()
        moves: dict[int, list[Any]] = {}
        for move in conn.execute(edges_table.FROM_RANGE, params).all():
            moves.setdefault(move.src, []).append(move)
            check.edges += 1
        for row in states:
            checker.state(row, moves.pop(row.id, []), game)
        for src, orphans in moves.items():
            checker.fail(f"id {src}", "moves", f"{len(orphans)} moves from a state not stored")
        check.states += len(states)
        if progress is not None:
            progress(spec, check.states, total)
    if not loopy and not _unexpanded(conn, game_id):
        _check_all_solved(conn, checker, game_id)
    _check_stored_rows(conn, checker, game_id, from_rules, show)
    return check


def _check_all_solved(conn: sa.Connection, checker: _Checker, game_id: int) -> None:
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
    conn: sa.Connection, checker: _Checker, game_id: int, from_rules: bool, show: int
) -> None:
    """The game's counts against its rows, its moves into states against its moves from
    states, and its states' depths."""
    for name, kind, detail in count_problems(conn, game_id):
        checker.fail(name, kind, detail)
    src, dst = read_moves(conn, game_id)
    back = read_moves(conn, game_id, "predecessors")
    if not (np.array_equal(src, back[0]) and np.array_equal(dst, back[1])):
        checker.fail(
            "moves into states",
            "moves",
            f"the predecessors' columns hold {len(back[0]):,} moves that are not the "
            f"{len(src):,} of the successors' read backwards",
        )
    total, first = depth_problems(conn, game_id, found_by_builds=from_rules, show=show)
    for name, kind, detail in first:
        checker.fail(name, kind, detail)
    checker.counted("depth", total - len(first))


def _check_loopy_game(
    conn: sa.Connection, checker: _Checker, game_id: int, rules: GameRules[Any] | None
) -> None:
    """A game with cycles: γ is not local (without the labelling's counters no state can be
    checked from its successors alone), so its stored moves are labelled again, in memory, and
    every stored value, escape set, outcome and remoteness compared; heights must be NULL."""
    check = checker.check
    check.rules = "moves not checked: an imported graph's moves are its stored edges"
    rows = conn.execute(states_table.ALL, {"g": game_id}).all()
    src, dst = read_moves(conn, game_id)
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
        loopy_move_problems(rows, moves, lambda key, have: checker._rules(key, have, rules))
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


def verify_database(
    engine: Engine,
    game: GameRow | None = None,
    *,
    rules: bool = True,
    show: int = 20,
    chunk: int = CHUNK_STATES,
    progress: Callable[[str, int, int], None] | None = None,
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
        Regenerate moves from the rules (the slow part: one ``successors`` call per state).
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
            games = conn.execute(
                sa.text("SELECT id, spec, convention FROM games ORDER BY id")
            ).all()
        except sa.exc.DatabaseError as error:
            result.integrity_problems.append(f"cannot read the games: {reason(error)}")
            return result
        if game is not None:
            games = [g for g in games if g.id == game.id]
        for game_id, game_spec, game_convention in games:
            try:
                result.games.append(
                    _check_game(
                        conn,
                        result,
                        game_id,
                        game_spec,
                        convention=game_convention,
                        rules=rules,
                        show=show,
                        chunk=chunk,
                        progress=progress,
                    )
                )
            except sa.exc.DatabaseError as error:
                result.integrity_problems.append(f"cannot read {game_spec!r}: {reason(error)}")
                conn.rollback()
            except (ValueError, TypeError, OverflowError) as error:
                # a row holding what no build writes (text in a number, a NULL where the
                # game's kind needs a value): the damage is reported, never a traceback
                result.integrity_problems.append(
                    f"cannot check {game_spec!r}: a stored row holds what no build writes "
                    f"({type(error).__name__}: {error})"
                )
        _check_sequences(conn, result, {game_id for game_id, _, _ in games}, show)
        families = None
        if game is not None:
            misere = game.convention == MISERE  # parts are valued in normal play
            families = [] if misere or not rules else _part_families(game.spec)
        _check_part_tables(conn, result, families, rules=rules, show=show, progress=progress)
    return result


def _part_families(spec: str) -> list[str]:
    """The part families of a stored game (none when its rules do not load)."""
    from explorer.analysis.parts import part_families, search_families

    try:
        game = load_game(spec)
        return part_families(game) + search_families(game)
    except ExplorerError:
        return []


#: Parts of a part table checked per step (with the values of what their moves leave).
CHUNK_PARTS = 2_000
#: Labels looked up per statement.
LOOKUP_LABELS = 500


def _check_part_tables(
    conn: sa.Connection,
    result: Verification,
    families: list[str] | None,
    *,
    rules: bool,
    show: int,
    progress: Callable[[str, int, int], None] | None,
) -> None:
    """Check the part table (of `families`, or of every family stored): each stored part is
    rebuilt from its label, which must be its canonical label, and its value must be the mex
    over its moves of the XOR of the values of the parts each leaves (stored ones, or valued
    here again from nothing). By induction on size every stored value is then right. Read a
    chunk of parts at a time: memory stays bounded whatever the table's size."""
    try:
        stored = conn.execute(
            sa.text("SELECT family, COUNT(*) FROM part_values GROUP BY family ORDER BY family")
        ).all()
    except sa.exc.DatabaseError as error:
        result.integrity_problems.append(f"cannot read the part table: {reason(error)}")
        return
    for family, count in stored:
        if families is not None and family not in families:
            continue
        check = GameCheck(f"part table {family}", unit="parts")
        result.games.append(check)
        if not rules:
            check.rules = "part values not checked (--no-rules)"
            continue
        moves_of = _label_moves(family)
        if isinstance(moves_of, str):
            check.rules = f"part values not checked: {moves_of}"
            continue
        check.rules = "part values checked against their moves"
        if progress is not None:
            progress(check.game, 0, int(count))
        _check_parts(conn, _Checker(result, check, show), family, moves_of)
        if progress is not None:
            progress(check.game, check.states, int(count))


#: The moves of a stored part, from its label: each move as the labels of the parts it leaves,
#: each with a way to value that part from nothing (when it is not stored). ValueError when
#: the label is not a canonical label of the family.
LabelMoves = Callable[[str], list[list[tuple[str, Callable[[], int]]]]]


def _label_moves(family: str) -> LabelMoves | str:
    """How the parts of a family are rebuilt from their labels: by the game the family is
    named after (`Game.part_of_label`), or by the pruned search's rules a registered game
    offers for it (`Game.search_rules`: ``cram-grid``, ``nodekayles-grid``); why not, when
    neither can."""
    from explorer.analysis.parts import PartTable, part_value, parts_of
    from explorer.games import search_rules_of

    search_rules = search_rules_of(family)
    if search_rules is not None:
        return _search_moves(search_rules)
    try:
        game = load_game(family)
    except ExplorerError as error:
        return f"the game does not load ({error})"
    if type(game).part_of_label is GameRules.part_of_label:
        return "its game rebuilds no part from a label"

    def moves(label: str) -> list[list[tuple[str, Callable[[], int]]]]:
        try:
            rebuilt = game.part_of_label(label)
            assert rebuilt is not None
            rules, part = rebuilt
            canonical = rules.part_label(part)
        except (ValueError, ExplorerError) as error:
            raise ValueError(f"the label is no part's label ({error})") from None
        if canonical != label:
            raise ValueError(f"the label is not canonical ({canonical!r})")
        return [
            [
                (rules.part_label(piece) or "", partial(part_value, rules, piece, PartTable()))
                for piece in parts_of(rules, successor)
            ]
            for successor in dict.fromkeys(rules.successors(part))
        ]

    return moves


def _search_moves(rules: Any) -> LabelMoves:
    """The moves of a component of the pruned search (`ComponentRules`), from its label;
    what a move leaves that is not stored is valued by a search of its own."""
    from explorer.solver.pruned import PrunedSearch

    search = PrunedSearch(rules)

    def moves(label: str) -> list[list[tuple[str, Callable[[], int]]]]:
        key = rules.canonical_key(label)
        return [
            [(rules.label(piece), partial(search.total, (piece,))) for piece in move]
            for move in rules.moves(key)
        ]

    return moves


#: A chunk of a family's parts, in order of label, after label ``:after``.
PARTS_AFTER = sa.text(
    "SELECT label, value FROM part_values WHERE family = :f AND label > :after "
    "ORDER BY label LIMIT :n"
)
#: The stored values of some labels of a family.
PART_VALUES_OF = sa.text(
    "SELECT label, value FROM part_values WHERE family = :f AND label IN :labels"
).bindparams(sa.bindparam("labels", expanding=True))


def _check_parts(conn: sa.Connection, checker: _Checker, family: str, moves_of: LabelMoves) -> None:
    check, after = checker.check, ""
    while True:
        rows = conn.execute(PARTS_AFTER, {"f": family, "after": after, "n": CHUNK_PARTS}).all()
        if not rows:
            return
        after = rows[-1].label
        moves: dict[str, list[list[tuple[str, Callable[[], int]]]]] = {}
        for label, _ in rows:
            try:
                moves[label] = moves_of(label)
            except ValueError as error:
                checker.fail(label, "part", str(error))
                continue
            check.edges += len(moves[label])
        wanted = sorted({piece for found in moves.values() for m in found for piece, _ in m})
        values: dict[str, int] = {}
        for start in range(0, len(wanted), LOOKUP_LABELS):
            batch = wanted[start : start + LOOKUP_LABELS]
            found = conn.execute(PART_VALUES_OF, {"f": family, "labels": batch})
            values.update((label, int(value)) for label, value in found)
        for label, value in rows:
            if label not in moves:
                continue
            reached = set()
            for move in moves[label]:
                total = 0
                for piece_label, valued in move:
                    if piece_label not in values:  # not stored: valued here from nothing
                        values[piece_label] = valued()
                    total ^= values[piece_label]
                reached.add(total)
            expected = mex(reached)
            if int(value) != expected:
                checker.fail(label, "part", f"stored {value}, the mex over its moves is {expected}")
        check.states += len(rows)


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
            _Checker(result, check, show).fail("G(0..)", "sequence", damage)
            result.games.append(check)
