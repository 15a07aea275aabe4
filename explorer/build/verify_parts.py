"""Checking a part table (`explorer.analysis.parts`): every stored part rebuilt from its label,
its value the mex over its moves (`check_part_tables`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import sqlalchemy as sa

from explorer.build.verify_checks import mex
from explorer.build.verify_report import GameCheck, Progress, Recorder, Verification
from explorer.errors import ExplorerError
from explorer.games import load_game
from explorer.games.base import Game as GameRules
from explorer.storage.backends.errors import reason


def families_of(spec: str) -> list[str]:
    """The part families of a stored game (none when its rules do not load).

    Examples
    --------
    >>> families_of("cram"), families_of("nim")
    (['cram', 'cram-grid'], [])
    """
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


def check_part_tables(
    conn: sa.Connection,
    result: Verification,
    families: list[str] | None,
    *,
    rules: bool,
    show: int,
    progress: Progress | None,
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
        _check_parts(conn, Recorder(result, check, show), family, moves_of)
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


def _check_parts(conn: sa.Connection, checker: Recorder, family: str, moves_of: LabelMoves) -> None:
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
