"""Checking one range of a stored game's states at once (`check_range`): every value against its
stored successors' values in numpy, and every expanded state's moves against the rules (a heap
game's a whole range at a time, expanded as a build expands it; any other's a state at a time).

The problems found are recorded in the order a check of one state after another finds them: by
state, then by check (`Found`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import sqlalchemy as sa

from explorer.games.base import Game as GameRules
from explorer.generation.expansion import HeapIndex
from explorer.generation.tiers import NOTHING_REACHED, heap_rows
from explorer.storage.backends.bulk import partitions
from explorer.storage.rows.moves import distinct, ends_of, stored_width, unpacked_rows
from explorer.storage.tables import states as states_table

#: A problem found: (state's place in its range, check's place, problem's place in that check,
#: position, kind of check, detail); sorted, they come in the order a state-by-state check
#: finds them.
Found = tuple[int, int, int, str, str, str]
#: The problems of one state's moves against the rules: ``rule_problems(key, stored successor
#: keys, rules)`` gives (kind, detail) pairs.
RuleProblems = Callable[[str, list[str], GameRules[Any]], list[tuple[str, str]]]
#: Above any count of moves or remoteness.
_FAR = np.iinfo(np.int64).max // 4


def _columns(rows: Sequence[Sequence[Any]], width: int) -> list[list[Any]]:
    """Rows as columns (a list a column: 3x faster than ``zip(*rows)`` here)."""
    return [[row[k] for row in rows] for k in range(width)]


def _ints(values: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """A column of integers and NULLs as (values, where NULL); text in it raises ValueError."""
    null = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    filled = np.array([0 if v is None else v for v in values], dtype=np.int64)
    return filled.reshape(len(values)), null


class RangeCheck:
    """The stored states of one range of ids as arrays: their columns, their moves (read
    from their successors' column) with what each move's end stores, and the moves into them
    (from their predecessors' column), all read with one query and the ends' by range."""

    def __init__(
        self, conn: sa.Connection, game_id: int, low: int, high: int, terminal: int
    ) -> None:
        params: dict[str, object] = {"g": game_id, "lo": low, "hi": high}
        statement = str(states_table.IN_RANGE_PACKED)
        rows = [r for part in partitions(conn, statement, params) for r in part]
        # the columns of `states_table.COLUMNS` (id, key, grundy, outcome, remoteness, depth,
        # height, expanded, escapes), then the successors and the predecessors
        columns = _columns(rows, 11)
        self.columns = columns[:9]
        self.ids = np.array(columns[0], dtype=np.int64)
        self.keys: list[str] = list(columns[1])
        self.grundy, self.no_grundy = _ints(columns[2])
        self.outcome = np.array(columns[3], dtype=object)
        self.remoteness, self.no_remoteness = _ints(columns[4])
        self.depth = np.array(columns[5], dtype=np.int64)
        self.height, self.no_height = _ints(columns[6])
        self.expanded = np.array([bool(e) for e in columns[7]], dtype=bool)
        self.escapes: list[Any] = list(columns[8])
        self.terminal = terminal
        width = stored_width(conn, game_id) or 1
        places = np.arange(len(self.ids), dtype=np.int64)
        moves = unpacked_rows(self.ids, [bytes(b or b"") for b in columns[9]], width)
        src = np.repeat(places, moves.degree)
        order = np.lexsort((moves.target, src))
        #: each move by (src, dst): the place of its source in the range, and its end's id
        self.src, self.dst = src[order], moves.target[order]
        self.moves = len(self.src)
        moves = unpacked_rows(self.ids, [bytes(b or b"") for b in columns[10]], width)
        #: each move its end's row holds: its source's id, and its end's
        self.back_src, self.back_dst = moves.target, np.repeat(self.ids, moves.degree)
        self.degree = np.bincount(self.src, minlength=len(self.ids))
        ends = ends_of(conn, game_id, distinct(self.dst))
        end_columns = _columns(ends, 5)
        end_ids = np.array(end_columns[0], dtype=np.int64)
        self.end_keys: list[str] = list(end_columns[1])
        at = np.minimum(np.searchsorted(end_ids, self.dst), max(len(end_ids) - 1, 0))
        self.stored = end_ids[at] == self.dst if len(end_ids) else np.zeros(len(at), bool)
        self.end = at
        self.end_ids = end_ids
        self.end_grundy, self.end_no_grundy = _ints(end_columns[2])
        self.end_remoteness, self.end_no_remoteness = _ints(end_columns[3])
        self.end_height, self.end_no_height = _ints(end_columns[4])

    def successor_keys(self, state: int) -> list[str]:
        """The keys of a state's stored successors, by id (every end stored)."""
        first = int(np.searchsorted(self.src, state))
        ends = self.end[first : first + int(self.degree[state])].tolist()
        return [self.end_keys[e] for e in ends]


def check_range(
    range_: RangeCheck, name: str, rules: GameRules[Any] | None, rule_problems: RuleProblems
) -> list[Found]:
    """Every problem of a range's states (`name`: what their value is called in a detail):
    the checks of `state_problems`, then each expanded state whose moves all lead to stored
    states against `rules`.

    Examples
    --------
    >>> from explorer import load_game, open_database
    >>> from explorer.build.verify_states import rule_problems
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("2,2")
    >>> with db.engine.connect() as conn:
    ...     range_ = RangeCheck(conn, 1, 0, 100, terminal=0)
    >>> len(range_.ids), range_.moves
    (6, 9)
    >>> check_range(range_, "grundy value", load_game("nim"), rule_problems)
    []
    >>> range_.grundy[0] = 7  # as if the root's value were 7
    >>> for found in check_range(range_, "grundy value", load_game("nim"), rule_problems):
    ...     print(found)
    (0, 1, 0, '2,2', 'outcome', "stored 'P', but its grundy value is 7")
    (0, 6, 1, '2,2', 'grundy', 'stored 7, the mex of its successors is 0')
    >>> db.close()
    """
    found, checked = state_problems(range_, name)
    if rules is not None:
        found += _rule_problems(range_, np.flatnonzero(checked), rules, rule_problems)
    return found


def state_problems(r: RangeCheck, name: str) -> tuple[list[Found], np.ndarray]:
    """The problems of each state's row, and of its value against its successors' values:
    the Grundy value (G⁻ for a misère build, `RangeCheck.terminal` without a move) is their
    mex, the outcome P exactly when it is 0, remoteness follows the winner-hurries rule, the
    height is above every successor's; no value where a successor has none, no move nor
    value for an unexpanded state. Also which states' moves the rules must be checked for:
    each expanded state whose moves all lead to stored states."""
    found: list[Found] = []
    keys = r.keys
    for i, escapes in enumerate(r.escapes):
        if escapes is not None:
            found.append(
                (i, 0, 0, keys[i], "value", f"an escape set {escapes!r} in a game whose play ends")
            )
    valued = ~r.no_grundy
    bare = r.no_grundy & ((r.outcome != None) | ~r.no_remoteness | ~r.no_height)  # noqa: E711
    for i in np.flatnonzero(bare).tolist():
        found.append(
            (i, 1, 0, keys[i], "value", "outcome, remoteness or height stored without a value")
        )
    want = np.where(r.grundy == 0, "P", "N")
    for i in np.flatnonzero(valued & (r.outcome != want)).tolist():
        detail = f"stored {r.outcome[i]!r}, but its {name} is {int(r.grundy[i])}"
        found.append((i, 1, 0, keys[i], "outcome", detail))
    for i in np.flatnonzero(~r.expanded & (r.degree > 0)).tolist():
        found.append(
            (i, 2, 0, keys[i], "moves", f"{int(r.degree[i])} moves stored for an unexpanded state")
        )
    for i in np.flatnonzero(~r.expanded & valued).tolist():
        found.append((i, 3, 0, keys[i], "value", "a value stored for an unexpanded state"))
    from_expanded = r.expanded[r.src]
    lost = np.flatnonzero(from_expanded & ~r.stored)
    for n, move in enumerate(lost.tolist()):
        i = int(r.src[move])
        found.append(
            (
                i,
                4,
                n,
                keys[i],
                "moves",
                f"a move to state id {int(r.dst[move])}, which is not stored",
            )
        )
    checked = r.expanded.copy()
    checked[r.src[lost]] = False
    moves = checked[r.src]
    unsolved = moves & r.end_no_grundy[r.end]
    first = np.zeros(len(r.ids), dtype=np.int64) - 1
    # the first unsolved successor of each state (moves are by (src, dst)): the last written
    np.put(first, r.src[unsolved][::-1], np.flatnonzero(unsolved)[::-1])
    for i in np.flatnonzero(valued & (first >= 0)).tolist():
        end = r.end_keys[int(r.end[first[i]])]
        found.append((i, 5, 0, keys[i], "value", f"a value stored although {end!r} has none"))
    found += _value_problems(r, name, checked & (first < 0))
    return found, checked


def _mex(r: RangeCheck, moves: np.ndarray) -> np.ndarray:
    """The mex of the successors' values of each state (0 for a state with no move here)."""
    mex = np.zeros(len(r.ids), dtype=np.int64)
    values = r.end_grundy[r.end[moves]]
    states = r.src[moves]
    keep = values >= 0  # a negative value never changes a mex
    values, states = values[keep], states[keep]
    if not len(values):
        return mex
    top = int(values.max()) + 1
    pairs = distinct(states * top + values)
    states, values = pairs // top, pairs % top
    starts = np.flatnonzero(np.r_[True, states[1:] != states[:-1]])
    sizes = np.diff(np.r_[starts, len(states)])
    rank = np.arange(len(values)) - np.repeat(starts, sizes)
    gaps = np.where(values != rank, rank, _FAR)
    mex[states[starts]] = np.minimum(np.minimum.reduceat(gaps, starts), sizes)
    return mex


def _value_problems(r: RangeCheck, name: str, solvable: np.ndarray) -> list[Found]:
    """The values of the states `solvable` (expanded, every successor stored and solved)
    against their successors'."""
    found: list[Found] = []
    keys = r.keys
    moves = solvable[r.src]
    expected = _mex(r, moves)
    leaf = r.degree == 0
    expected[leaf] = r.terminal
    for i in np.flatnonzero(solvable & r.no_grundy).tolist():
        detail = f"no value stored although every successor has one ({int(expected[i])})"
        found.append((i, 6, 0, keys[i], "value", detail))
    solvable = solvable & ~r.no_grundy
    for i in np.flatnonzero(solvable & (r.grundy != expected)).tolist():
        rule = (
            "the mex of its successors"
            if not leaf[i] or not r.terminal
            else "a misère end of the game (no move)"
        )
        detail = f"stored {int(r.grundy[i])}, {rule} is {int(expected[i])}"
        found.append((i, 6, 1, keys[i], "grundy", detail))
    # the winner moves to the nearest P-position, the loser to the farthest
    wins = expected[r.src] > 0
    to_p = moves & wins & (r.end_grundy[r.end] == 0)
    used = to_p | (moves & ~wins)
    if np.any(r.end_no_remoteness[r.end[used]]):
        raise TypeError("a solved successor's remoteness is NULL")
    far = r.end_remoteness[r.end]
    nearest = np.full(len(r.ids), _FAR, dtype=np.int64)
    np.minimum.at(nearest, r.src[to_p], far[to_p])
    farthest = np.full(len(r.ids), -1, dtype=np.int64)
    lose = moves & ~wins
    np.maximum.at(farthest, r.src[lose], far[lose])
    remote = np.where(expected > 0, np.where(nearest == _FAR, -1, 1 + nearest), 1 + farthest)
    remote[leaf] = 0
    wrong = solvable & (r.no_remoteness | (r.remoteness != remote))
    for i in np.flatnonzero(wrong).tolist():
        stored = None if r.no_remoteness[i] else int(r.remoteness[i])
        found.append(
            (
                i,
                6,
                2,
                keys[i],
                "remoteness",
                f"stored {stored}, its successors give {int(remote[i])}",
            )
        )
    no_height = np.zeros(len(r.ids), dtype=bool)
    no_height[r.src[moves & r.end_no_height[r.end]]] = True
    for i in np.flatnonzero(solvable & no_height).tolist():
        found.append((i, 6, 3, keys[i], "height", "a successor has a value but no height (NULL)"))
    below = np.full(len(r.ids), -1, dtype=np.int64)
    np.maximum.at(below, r.src[moves], r.end_height[r.end[moves]])
    low = solvable & ~no_height & (r.no_height | (r.height <= below))
    for i in np.flatnonzero(low).tolist():
        stored = None if r.no_height[i] else int(r.height[i])
        detail = f"stored {stored}, not above its successors' highest ({int(below[i])})"
        found.append((i, 6, 3, keys[i], "height", detail))
    return found


def _rule_problems(
    r: RangeCheck, states: np.ndarray, rules: GameRules[Any], rule_problems: RuleProblems
) -> list[Found]:
    """The moves of `states` (places in the range) against the rules: a heap game's all at
    once where they agree, and a state at a time where they may not (and in any other game)."""
    alike = _agreeing(r, states, rules)
    found: list[Found] = []
    for i in states[~alike].tolist():
        for n, (kind, detail) in enumerate(rule_problems(r.keys[i], r.successor_keys(i), rules)):
            found.append((i, 7, n, r.keys[i], kind, detail))
    return found


def _agreeing(r: RangeCheck, states: np.ndarray, rules: GameRules[Any]) -> np.ndarray:
    """Which of `states` are canonical texts of positions of a heap game whose stored moves
    are exactly those the rules give, all found at once as a build finds them
    (`HeapIndex.expand`); none for other games."""
    none = np.zeros(len(states), dtype=bool)
    keys = tuple(r.keys[i] for i in states.tolist())
    heaps = rules.heap_rules()
    if not keys or heaps is None or heaps.splits or not heaps.plain_keys:
        return none
    rows = heap_rows(keys)
    if rows is None:
        return none
    index = HeapIndex.of_shape(rules, rows.shape[1], 1 + int(rows.max()), table_bytes=0)
    if index is None:
        return none
    index.load_rows(rows)
    texts = index.keys(range(len(keys)))
    canonical = np.array([a == b for a, b in zip(texts, keys, strict=True)], dtype=bool)
    step = index.expand(np.arange(len(keys), dtype=np.int64), None, 0, NOTHING_REACHED)
    children = index.keys(range(index.size))
    # each position the expansion numbered, as the id of the stored state of its text (-1:
    # none), and so each successor the rules give
    stored_ids = dict(zip(r.end_keys, r.end_ids.tolist(), strict=True))
    numbered = np.fromiter((stored_ids.get(t, -1) for t in children), np.int64, len(children))
    found = numbered[step.dst]
    place = np.full(len(r.ids), -1, dtype=np.int64)
    place[states] = np.arange(len(states))
    mine = place[r.src] >= 0
    given = distinct(step.src << 32 | (found + 1))
    have = distinct(place[r.src[mine]] << 32 | (r.dst[mine] + 1))
    if np.array_equal(given, have):
        return canonical
    differ = np.setxor1d(given, have) >> 32
    alike = canonical.copy()
    alike[differ] = False
    return alike
