"""Solving positions: Grundy value, outcome, remoteness and winning moves, decomposing sums.

The entry points are `grundy_value`, `solve` and `explain`. A position is solved from its parts
when the game splits it (heaps, coin rows, sums of games, the reductions of note 002) and from
its whole game graph otherwise, or when the graph is small enough to give remoteness too.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import asdict, dataclass, field
from html import escape
from typing import Literal

from explorer.errors import ExplorerError, GraphTooLargeError, SpecError
from explorer.games.base import Decomposition, Game, Position
from explorer.graph import DEFAULT_MAX_STATES, build_graph
from explorer.solver import Outcome, grundy_values, mex, outcome, solve_graph, winning_moves

Method = Literal["auto", "graph", "decompose"]

#: In "auto", a position whose graph fits these budgets is solved whole (giving remoteness).
AUTO_GRAPH_STATES = 5_000
AUTO_GRAPH_EDGES = 50_000
#: ... and has at most this many parts (each move of a long sum costs as much as the sum).
AUTO_GRAPH_PARTS = 16
#: Largest value table `value_table` computes.
MAX_TABLE_CELLS = 1_000_000


@dataclass(frozen=True)
class Solution:
    """A solved position, as plain data (see `to_dict` for the JSON contract)."""

    game: str
    position: str
    grundy: int
    outcome: Outcome
    remoteness: int | None
    winning_moves: list[str]
    method: str
    states: int | None = None
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def _repr_html_(self) -> str:
        """A table for Jupyter; positions are escaped, they are data."""
        shown = self.winning_moves[:HTML_MOVES]
        moves = " &middot; ".join(escape(m) for m in shown) or "none"
        if len(self.winning_moves) > len(shown):
            moves += f" &hellip; and {len(self.winning_moves) - len(shown)} more"
        rows = [
            ("Grundy value", str(self.grundy)),
            ("outcome", escape(_OUTCOME_TEXT[self.outcome])),
            ("remoteness", "not computed" if self.remoteness is None else str(self.remoteness)),
            ("winning moves", moves),
            ("method", escape(self.method + (f" ({self.note})" if self.note else ""))),
        ]
        return _html_table(f"{self.game} at {self.position}", rows)


@dataclass(frozen=True)
class Explanation:
    """Why a position has its value: successors and their mex, or parts and their XOR."""

    game: str
    position: str
    grundy: int
    outcome: Outcome
    method: str
    successors: list[tuple[str, int]] = field(default_factory=list)
    parts: list[tuple[str, str, int]] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def _repr_html_(self) -> str:
        """The parts and their XOR, or the moves and their mex, as a table for Jupyter."""
        if self.parts:
            rows = [(escape(f"{text} ({spec})"), str(v)) for spec, text, v in self.parts]
            xor = " XOR ".join(str(v) for _, _, v in self.parts)
            rows.append((escape(self.note or "sum"), f"G = {xor} = {self.grundy}"))
        else:
            rows = [(escape(f"move to {text}"), str(v)) for text, v in self.successors]
            listed = ", ".join(str(v) for v in sorted({v for _, v in self.successors}))
            rows.append(("mex", f"G = mex{{{listed}}} = {self.grundy}"))
        rows.append(("outcome", escape(_OUTCOME_TEXT[self.outcome])))
        return _html_table(f"{self.game} at {self.position}", rows)


#: Most winning moves listed in a notebook's table of a solution.
HTML_MOVES = 20
_OUTCOME_TEXT = {"P": "P: the player to move loses", "N": "N: the player to move wins"}


def _html_table(caption: str, rows: list[tuple[str, str]]) -> str:
    """A two-column HTML table; `rows` are already escaped, the caption is escaped here."""
    body = "".join(f'<tr><th style="text-align:left">{k}</th><td>{v}</td></tr>' for k, v in rows)
    return f"<table><caption>{escape(caption)}</caption>{body}</table>"


def _cache(game: Game) -> dict[Hashable, int]:
    """Per-game memo of values solved from graphs (shared by every part of that game)."""
    try:
        return game.__dict__["_graph_values"]  # type: ignore[no-any-return]
    except KeyError:
        return game.__dict__.setdefault("_graph_values", {})  # type: ignore[no-any-return]


def graph_value(game: Game, position: Position, *, max_states: int = DEFAULT_MAX_STATES) -> int:
    """The Grundy value of `position` from its whole game graph (memoised per game)."""
    cache = _cache(game)
    if position not in cache:
        graph = build_graph(game, position, max_states=max_states)
        cache.update(grundy_values(graph))
    return cache[position]


def grundy_value(game: Game, position: Position, *, max_states: int = DEFAULT_MAX_STATES) -> int:
    """The Grundy value of a position, from its parts where the game splits it exactly.

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> grundy_value(nim, nim.parse("3,4,5"))
    2
    """
    known = game.known_value(position)
    if known is not None:
        return known
    parts = game.decompose(position)
    if parts is not None and parts.exact:
        return _xor_of_parts(parts, max_states)
    return graph_value(game, position, max_states=max_states)


def reduced_value(game: Game, position: Position, *, max_states: int = DEFAULT_MAX_STATES) -> int:
    """The value of the game's reduction where it has one (zero exactly on P-positions),
    else the Grundy value."""
    parts = game.decompose(position)
    if parts is not None and not parts.exact:
        return _xor_of_parts(parts, max_states)
    return grundy_value(game, position, max_states=max_states)


def _xor_of_parts(parts: Decomposition, max_states: int) -> int:
    value = 0
    for part in parts.parts:
        value ^= grundy_value(part.game, part.position, max_states=max_states)
    return value


def solve(
    game: Game,
    position: Position,
    *,
    method: Method = "auto",
    max_states: int = DEFAULT_MAX_STATES,
) -> Solution:
    """Solve a position: Grundy value, outcome, remoteness and winning moves.

    Parameters
    ----------
    game : Game
    position : Position
        As returned by ``game.parse``.
    method : {"auto", "graph", "decompose"}
        ``graph`` builds the whole game graph (remoteness included); ``decompose`` uses the
        parts (no remoteness); ``auto`` builds the graph when it is small and decomposes
        otherwise. For games solved through a reduction (``queens``, ``treblecross``) ``auto``
        always uses the reduction, whose value is the one the notes compute.
    max_states : int
        Size guard for graphs.

    Returns
    -------
    Solution

    Examples
    --------
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> s = solve(nim, nim.parse("1,2,3"))
    >>> s.grundy, s.outcome, s.remoteness
    (0, 'P', 6)
    >>> solve(nim, nim.parse("1000000,1")).winning_moves
    ['1,1']
    """
    parts = game.decompose(position)
    small_sum = parts is None or (parts.exact and len(parts.parts) <= AUTO_GRAPH_PARTS)
    if method == "graph" or (method == "auto" and small_sum):
        small = method == "auto"
        try:
            return _solve_graph(
                game,
                position,
                max_states=AUTO_GRAPH_STATES if small else max_states,
                max_edges=AUTO_GRAPH_EDGES if small else None,
            )
        except GraphTooLargeError:
            if not small:
                raise
    return _solve_decomposed(game, position, parts, max_states)


def _solve_graph(
    game: Game, position: Position, *, max_states: int, max_edges: int | None
) -> Solution:
    graph = build_graph(game, position, max_states=max_states, max_edges=max_edges)
    solved = solve_graph(graph)
    values = solved.grundy
    _cache(game).update(values)
    far = solved.remoteness
    return Solution(
        game=game.spec,
        position=game.format(position),
        grundy=values[position],
        outcome=outcome(values[position]),
        remoteness=far[position],
        winning_moves=[game.format(s) for s in winning_moves(graph, values, position)],
        method="graph",
        states=graph.number_of_nodes(),
    )


def _solve_decomposed(
    game: Game, position: Position, parts: Decomposition | None, max_states: int
) -> Solution:
    value = reduced_value(game, position, max_states=max_states)
    reduction = parts is not None and not parts.exact
    moves: list[Position]
    if value == 0:  # a P-position has no winning move: nothing to search
        moves = []
    elif parts is not None and parts.exact:
        moves = _moves_through_parts(parts, value, max_states)
    elif reduction:
        moves = [
            s
            for s in dict.fromkeys(game.successors(position))
            if reduced_value(game, s, max_states=max_states) == 0
        ]
    else:
        moves = _moves_to_value(game, position, 0, max_states)
    method = "reduction" if reduction else "decomposition"
    note = parts.note if parts is not None else ""
    return Solution(
        game=game.spec,
        position=game.format(position),
        grundy=value,
        outcome=outcome(value),
        remoteness=None,
        winning_moves=[game.format(m) for m in dict.fromkeys(moves)],
        method=method,
        note=note,
    )


def _moves_to_value(game: Game, position: Position, target: int, max_states: int) -> list[Position]:
    shortcut = game.moves_to_value(position, target)
    if shortcut is not None:
        return shortcut
    return [
        s
        for s in dict.fromkeys(game.successors(position))
        if grundy_value(game, s, max_states=max_states) == target
    ]


def _moves_through_parts(parts: Decomposition, total: int, max_states: int) -> list[Position]:
    """Winning moves of a sum: in part i, move to a position of value v_i XOR total.

    The target may exceed v_i (mex only promises the smaller values), so every part is tried.
    """
    if total == 0:
        return []
    positions = [p.position for p in parts.parts]
    moves = []
    seen: set[tuple[Hashable, Hashable]] = set()
    for i, part in enumerate(parts.parts):
        key = (part.game.spec, part.position)
        if key in seen:  # equal parts have the same moves
            continue
        seen.add(key)
        part_value = grundy_value(part.game, part.position, max_states=max_states)
        for moved in _moves_to_value(part.game, part.position, part_value ^ total, max_states):
            moves.append(parts.rebuild(positions[:i] + [moved] + positions[i + 1 :]))
    return moves


def explain(game: Game, position: Position, *, max_states: int = DEFAULT_MAX_STATES) -> Explanation:
    """Show how a position's value arises: the mex of its successors, or the XOR of its parts.

    Examples
    --------
    >>> from explorer import load_game
    >>> sub = load_game("subtraction:1,2,3")
    >>> e = explain(sub, sub.parse("5"))
    >>> e.successors, e.grundy
    ([('4', 0), ('3', 3), ('2', 2)], 1)
    """
    parts = game.decompose(position)
    if parts is not None:
        values = [
            (
                p.game.spec,
                p.game.format(p.position),
                grundy_value(p.game, p.position, max_states=max_states),
            )
            for p in parts.parts
        ]
        total = 0
        for _, _, v in values:
            total ^= v
        return Explanation(
            game=game.spec,
            position=game.format(position),
            grundy=total,
            outcome=outcome(total),
            method="decomposition" if parts.exact else "reduction",
            parts=values,
            note=parts.note,
        )
    successors = [
        (game.format(s), grundy_value(game, s, max_states=max_states))
        for s in dict.fromkeys(game.successors(position))
    ]
    value = mex(v for _, v in successors)
    return Explanation(
        game=game.spec,
        position=game.format(position),
        grundy=value,
        outcome=outcome(value),
        method="mex",
        successors=successors,
    )


def value_table(
    game: Game, rows: int, cols: int, *, max_states: int = DEFAULT_MAX_STATES
) -> list[list[int | None]]:
    """G(r, c) for 0 <= r < rows, 0 <= c < cols of a two-coordinate game.

    Works for games whose positions parse from ``"r,c"``: two heaps of a heap game, Wythoff,
    Ferguson. Cells that are not positions of the game (Ferguson's empty heaps) are None.
    """
    if rows * cols > MAX_TABLE_CELLS:
        raise SpecError(
            f"a table of {rows:,} x {cols:,} cells is too large (at most {MAX_TABLE_CELLS:,} cells)"
        )
    table: list[list[int | None]] = [[None] * cols for _ in range(rows)]
    # largest cells first: one graph from the far corner fills the memo for the rest
    for r in reversed(range(rows)):
        for c in reversed(range(cols)):
            try:
                position = game.parse(f"{r},{c}")
            except ExplorerError:
                continue
            table[r][c] = grundy_value(game, position, max_states=max_states)
    if all(v is None for row in table for v in row):
        raise SpecError(
            f"{game.spec} has no two-coordinate positions (tables are for wythoff, ferguson "
            "and two heaps of a heap game)"
        )
    return table
