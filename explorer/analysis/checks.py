"""Self-tests of a game definition (`check_game`) and of a claim about its values
(`check_claim`): what ``explorer check`` runs, as plain data."""

from __future__ import annotations

import ast
import math
import random
from collections import deque
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from explorer.adjacency import Adjacency, find_cycle
from explorer.errors import ExplorerError, GraphTooLargeError, RuleError, SpecError, UsageError
from explorer.games import may_cycle
from explorer.games.base import Game, Position

#: Positions a check explores from its start unless told otherwise.
DEFAULT_CHECK_STATES = 20_000
#: Positions whose decomposition is compared with their whole graph.
DECOMPOSITION_SAMPLES = 20
#: Counterexamples to a claim listed.
SHOWN_COUNTEREXAMPLES = 5
#: Names a claim may use besides the position's: small pure functions.
CLAIM_FUNCTIONS: dict[str, Any] = {
    name: getattr(math, name) for name in ("gcd", "isqrt", "floor", "ceil", "log2", "sqrt")
} | {
    "abs": abs,
    "all": all,
    "any": any,
    "bin": bin,
    "divmod": divmod,
    "len": len,
    "max": max,
    "min": min,
    "pow": pow,
    "sorted": sorted,
    "sum": sum,
    "xor": lambda *values: _xor(values),
}


def _xor(values: Any) -> int:
    total = 0
    for value in values:
        total ^= value
    return total


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a game definition: which check, where, what."""

    check: str
    position: str
    detail: str


@dataclass
class GameReport:
    """What `check_game` checked and found."""

    game: str
    start: str
    positions: int = 0
    moves: int = 0
    complete: bool = True
    acyclic: bool | None = None
    decompositions: int = 0
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def _reachable(
    game: Game[Any], start: Position, limit: int, report: GameReport
) -> tuple[list[Position], list[int], list[int]]:
    """The positions reachable from `start` (the first `limit`, breadth first), checking
    each one's text and its moves' determinism on the way; the moves as two id lists (those
    of the positions expanded before the limit was met)."""
    ids: dict[Position, int] = {start: 0}
    order = [start]
    src: list[int] = []
    dst: list[int] = []
    queue = deque([start])
    while queue and report.complete:  # past the limit, no more moves are listed
        position = queue.popleft()
        text = _round_trip(game, position, report)
        try:
            first = list(game.successors(position))
            second = list(game.successors(position))
        except RuleError as error:  # the rules' own guard found it first
            report.problems.append(Problem("rules", text, str(error)))
            continue
        if first != second:
            report.problems.append(
                Problem(
                    "deterministic",
                    text,
                    f"asked twice, the rules gave {_listed(game, first)} then "
                    f"{_listed(game, second)}",
                )
            )
        for move in dict.fromkeys(first):
            if move not in ids:
                if len(order) >= limit:
                    report.complete = False
                    continue
                ids[move] = len(order)
                order.append(move)
                queue.append(move)
            src.append(ids[position])
            dst.append(ids[move])
    return order, src, dst


def _listed(game: Game[Any], moves: list[Any]) -> str:
    texts = [_text(game, m) for m in moves[:6]]
    more = f", ... {len(moves)} in all" if len(moves) > 6 else ""
    return "[" + ", ".join(texts) + more + "]"


def _text(game: Game[Any], position: Position) -> str:
    try:
        return game.format(position)
    except Exception:
        return repr(position)


def _round_trip(game: Game[Any], position: Position, report: GameReport) -> str:
    """A position's text, after checking that parse and format give each other back."""
    try:
        text = game.format(position)
    except ExplorerError:
        raise
    except Exception as error:
        report.problems.append(
            Problem("round trip", repr(position), f"format raised {type(error).__name__}: {error}")
        )
        return repr(position)
    try:
        back = game.parse(text)
    except ExplorerError as error:
        report.problems.append(Problem("round trip", text, f"its text does not parse: {error}"))
        return text
    if back != position:
        report.problems.append(
            Problem("round trip", text, f"{position!r} is written {text!r}, read back {back!r}")
        )
    elif game.format(back) != text:
        report.problems.append(
            Problem("round trip", text, f"written again as {game.format(back)!r}")
        )
    return text


def declared_example(game: Game[Any]) -> str | None:
    """The example position a game declares: a rule's own ``example=`` (a rule written in
    Python, whose family's registry example is another game's), else its family's example."""
    if hasattr(game, "start"):  # a rule's own: None when it declares none
        start: str | None = game.start
        return start
    example: tuple[str, str | None] = getattr(game, "example", ("", None))
    return example[1]


def start_position(game: Game[Any], position: str | None) -> Position:
    """The position to start from: the one given, else the example the game declares."""
    if position is None:
        position = declared_example(game)
    if position is None:
        raise UsageError(
            f"{game.spec} declares no example position: give a POSITION (explorer check SPEC "
            "POSITION), or declare one (@explorer.game(example=...))"
        )
    parsed: Position = game.parse(position)
    return parsed


def counts_up(game: Game[Any]) -> bool:
    """Whether the game has one-parameter positions 0, 1, 2, ... for ``--upto``: single heaps,
    strips of n cells, or positions that are single numbers (as its declared example shows;
    without one, nothing says that 0..N are positions)."""
    if game.heap_rules() is not None or game.sequence_position(0) is not None:
        return True
    example = declared_example(game)
    if example is None:  # nothing says what its positions are: 0..N may not be positions
        return False
    try:
        return isinstance(game.parse(example), int)
    except ExplorerError:
        return False


def check_game(
    game: Game[Any],
    position: str | None = None,
    *,
    max_states: int = DEFAULT_CHECK_STATES,
    samples: int = DECOMPOSITION_SAMPLES,
    seed: int = 0,
) -> GameReport:
    """Check a game definition on the positions reachable from a start.

    Every position's text must parse back to it and be written again the same way; asked
    twice, the rules must give the same moves; a game that does not declare cycles must have
    none; and where a position splits exactly into parts, the XOR of the parts' values must be
    the value of its whole graph (on `samples` random positions).

    Parameters
    ----------
    game : Game
    position : str, optional
        The start (the game's example when None).
    max_states : int
        Positions explored at most (the report says when there were more).
    samples : int
        Positions whose decomposition is checked.
    seed : int
        Seed of the random choice of those positions.

    Returns
    -------
    GameReport

    Examples
    --------
    >>> from explorer import load_game
    >>> report = check_game(load_game("nim"), "2,3")
    >>> report.ok, report.positions, report.acyclic
    (True, 9, True)
    """
    from explorer.analysis.solving import solve

    start = start_position(game, position)
    report = GameReport(game.spec, _text(game, start))
    order, src, dst = _reachable(game, start, max_states, report)
    report.positions, report.moves = len(order), len(src)
    cycle = find_cycle(Adjacency.from_edges(len(order), src, dst))
    report.acyclic = cycle is None
    if cycle is not None and not may_cycle(game):
        path = " -> ".join(_text(game, order[i]) for i in cycle)
        report.problems.append(
            Problem("acyclic", _text(game, order[cycle[0]]), f"play loops ({path}) in a game "
                    "not declared to have cycles (declare it: @explorer.game(acyclic=False))")
        )  # fmt: skip
    split = [p for p in order if _exact_parts(game, p)]
    for chosen in random.Random(seed).sample(split, min(samples, len(split))):
        try:
            whole = solve(game, chosen, method="graph", max_states=max_states)
        except GraphTooLargeError:
            continue
        parts = solve(game, chosen, method="decompose", max_states=max_states)
        report.decompositions += 1
        if whole.value != parts.value:
            report.problems.append(
                Problem(
                    "decomposition",
                    _text(game, chosen),
                    f"its whole graph gives {whole.value}, the XOR of its parts {parts.value}",
                )
            )
    return report


def _exact_parts(game: Game[Any], position: Position) -> bool:
    parts = game.decompose(position)
    return parts is not None and parts.exact and len(parts.parts) > 1


# -- claims --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Counterexample:
    """A position where a claim fails: its value, what the claim said, a winning move."""

    position: str
    value: str
    claim: object
    winning_move: str | None


@dataclass
class ClaimReport:
    """What `check_claim` checked and found."""

    game: str
    claim: str
    kind: str
    positions: int = 0
    failures: int = 0
    counterexamples: list[Counterexample] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return self.failures == 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "holds": self.holds}


def claim_names(game: Game[Any], position: Position, width: int = 0) -> dict[str, Any]:
    """The names a claim sees at a position: ``p`` the position, ``n`` a single heap (or an
    int position), ``a``, ``b``, ``c``, ... the parts of a tuple. A heap game's heaps are
    padded with empty heaps in front to `width` (heaps are sorted, smallest first).

    Examples
    --------
    >>> from explorer import load_game
    >>> claim_names(load_game("nim"), (3, 5), width=3)
    {'p': (3, 5), 'a': 0, 'b': 3, 'c': 5}
    >>> claim_names(load_game("nim"), (4,))["n"]
    4
    """
    names: dict[str, Any] = {"p": position}
    if isinstance(position, int):
        names["n"] = position
    elif isinstance(position, tuple):
        parts = position
        if game.heap_rules() is not None:
            if len(position) <= 1:
                names["n"] = position[0] if position else 0
            parts = (0,) * (width - len(position)) + position
        for letter, part in zip("abcdefghijklm", parts, strict=False):
            names[letter] = part
    return names


#: Most bits of a number a claim computes, and most items of a sequence it repeats: Python's
#: big numbers are multiplied in C, where the work bound (a signal) waits for the product, so
#: ``9 ** 9 ** 9`` would run for hours past it.
CLAIM_MAX_BITS = 1 << 20
CLAIM_MAX_ITEMS = 1 << 20


def _too_large(what: str, size: int, unit: str, limit: int) -> OverflowError:
    return OverflowError(
        f"{what} has about {size:,} {unit}: a claim computes with at most {limit:,}"
    )


def _claim_power(base: Any, exponent: Any, modulus: Any = None) -> Any:
    if (
        modulus is None
        and isinstance(base, int)
        and isinstance(exponent, int)
        and exponent > 0
        and abs(base) > 1
    ):
        bits = exponent * math.log2(abs(base))
        if bits > CLAIM_MAX_BITS:
            raise _too_large(f"{base} ** {exponent}", math.ceil(bits), "bits", CLAIM_MAX_BITS)
    return pow(base, exponent, modulus)


def _claim_product(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int):
        bits = left.bit_length() + right.bit_length()
        if bits > CLAIM_MAX_BITS:
            raise _too_large("a product", bits, "bits", CLAIM_MAX_BITS)
    for times, items in ((left, right), (right, left)):
        if isinstance(times, int) and isinstance(items, str | bytes | tuple | list):
            if times * len(items) > CLAIM_MAX_ITEMS:
                raise _too_large(
                    "a repeated sequence", times * len(items), "items", CLAIM_MAX_ITEMS
                )
    return left * right


def _claim_shift(left: Any, right: Any) -> Any:
    if isinstance(left, int) and isinstance(right, int) and left and right > 0:
        bits = left.bit_length() + right
        if bits > CLAIM_MAX_BITS:
            raise _too_large(f"{left} << {right}", bits, "bits", CLAIM_MAX_BITS)
    return left << right


#: The operators a claim computes through a guard, and the guards.
_GUARDED = {ast.Pow: "_claim_power", ast.Mult: "_claim_product", ast.LShift: "_claim_shift"}
_GUARDS: dict[str, Any] = {
    "_claim_power": _claim_power,
    "_claim_product": _claim_product,
    "_claim_shift": _claim_shift,
    "pow": _claim_power,
}


class _Guard(ast.NodeTransformer):
    """Rewrites ``a ** b``, ``a * b`` and ``a << b`` as calls of their guards."""

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        guard = _GUARDED.get(type(node.op))
        if guard is None:
            return node
        call = ast.Call(ast.Name(guard, ast.Load()), [node.left, node.right], [])
        return ast.copy_location(call, node)


def _claim(expression: str) -> Callable[[dict[str, Any]], Any]:
    try:
        tree = _Guard().visit(ast.parse(expression, "<claim>", "eval"))
        code = compile(ast.fix_missing_locations(tree), "<claim>", "eval")
    except SyntaxError as error:
        raise SpecError(f"bad claim {expression!r}: {error.msg} (a Python expression)") from None

    def evaluate(names: dict[str, Any]) -> Any:
        return eval(code, {"__builtins__": {}, **CLAIM_FUNCTIONS, **_GUARDS}, names)  # noqa: S307

    return evaluate


def claim_positions(
    game: Game[Any], position: str | None, upto: int | None, max_states: int
) -> list[Position]:
    """The positions a claim is checked on: every one reachable from `position`, or the
    game's one-parameter positions 0 .. `upto` (single heaps, or ints)."""
    if position is not None:
        start = game.parse(position)
        counted = game.count_states(start, max_states)
        if counted is not None and counted > max_states:
            order = None
        else:
            listed = game.list_states(start) if counted is not None else None
            order = listed if listed is not None else _within(game, start, max_states)
        if order is None:
            raise GraphTooLargeError(
                f"position {position!r} of {game.spec} reaches more than {max_states:,} "
                "positions (raise --max-states)",
                max_states,
            )
        return order
    if upto is None:
        raise SpecError("give a POSITION or --upto N: the positions the claim is checked on")
    if game.heap_rules() is not None:
        return [(n,) if n else () for n in range(upto + 1)]
    if game.sequence_position(0) is not None:
        return [game.sequence_position(n) for n in range(upto + 1)]
    if not counts_up(game):
        example = declared_example(game)
        shown = f"are like {example!r}" if example is not None else "are not declared"
        raise UsageError(
            f"--upto checks the positions 0..N of a game of single numbers (heaps, strips); "
            f"the positions of {game.spec} {shown}: give a POSITION instead"
            + ("" if example is not None else ", or declare example='10' in its rule")
        )
    return [game.parse(str(n)) for n in range(upto + 1)]


def _within(game: Game[Any], start: Position, limit: int) -> list[Position] | None:
    """The positions reachable from `start`, breadth first, or None as soon as there are more
    than `limit` (the moves of the positions past it are never listed)."""
    order = [start]
    seen = {start}
    for position in order:  # grows as it is read
        for move in game.successors(position):
            if move not in seen:
                if len(order) >= limit:
                    return None
                seen.add(move)
                order.append(move)
    return order


def check_claim(
    game: Game[Any],
    expression: str,
    kind: Literal["p", "value"],
    *,
    position: str | None = None,
    upto: int | None = None,
    max_states: int = DEFAULT_CHECK_STATES,
    shown: int = SHOWN_COUNTEREXAMPLES,
) -> ClaimReport:
    """Check a claim about a game's values on many positions.

    With `kind` ``p`` the expression must be true exactly at the P-positions; with ``value``
    it must equal the Grundy value. It is Python, in the names of `claim_names`.

    Examples
    --------
    >>> from explorer import load_game
    >>> check_claim(load_game("nim"), "a ^ b ^ c == 0", "p", position="3,4,5").holds
    True
    >>> wrong = check_claim(load_game("bash:3"), "n % 3", "value", upto=10)
    >>> wrong.failures, wrong.counterexamples[0].position, wrong.counterexamples[0].value
    (8, '3', '3')
    """
    from explorer.analysis.solving import grundy_value, prepare_heaps, solve
    from explorer.solver.loopy import Infinite

    evaluate = _claim(expression)
    report = ClaimReport(game.spec, expression, kind)
    places = claim_positions(game, position, upto, max_states)
    if upto is not None and places:
        prepare_heaps(game, places[-1])  # every heap's value at once, not table after table
    width = max((len(p) for p in places if isinstance(p, tuple)), default=0)
    for place in places:
        value = grundy_value(game, place, max_states=max_states)
        names = claim_names(game, place, width)
        try:
            said = evaluate(names)
        except Exception as error:
            from explorer.games.rule_calls import way_out

            raise SpecError(
                f"the claim {expression!r} {way_out(error)} at position "
                f"{_text(game, place)!r} (names: {', '.join(names)})"
            ) from None
        if isinstance(said, np.generic):
            said = said.item()
        finite = not isinstance(value, Infinite)
        right = (bool(said) == (value == 0)) if kind == "p" else (finite and said == value)
        report.positions += 1
        if right:
            continue
        report.failures += 1
        if len(report.counterexamples) < shown:
            moves = solve(game, place, max_states=max_states).winning_moves
            report.counterexamples.append(
                Counterexample(_text(game, place), str(value), said, moves[0] if moves else None)
            )
    return report
