"""Games whose rules are Python code: the decorators `heap_game` and `game`, and the adapter for
a subclass of `Game`. Every call into a user's rules goes through here, so a rule that fails is
one `RuleError` naming the file, the line and the position."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from explorer.errors import (
    GameCodeError,
    PositionError,
    RuleError,
)
from explorer.games.base import Decomposition, Game
from explorer.games.heaps import HeapGame, Heaps
from explorer.games.position_text import format_position, format_positions, parse_position
from explorer.games.rule_calls import (
    CHECK_EVERY,
    CHECK_FIRST,
    DEFAULT_MAX_MOVES,
    Rule,
    RuleGuard,
    RuleSource,
    call_rule,
    code_fingerprint,
    safe_text,
    shown_file,
    source_of,
    way_out,
)

#: Options of single heaps a heap game keeps, not to ask its rule again (about 100 MB at most).
CACHED_OPTIONS = 1_000_000


# -- the three forms -----------------------------------------------------------------------------
class PythonGame(Game[Any]):
    """A game from a function giving a position's successors (see `game`)."""

    family = "py"
    user_code = True
    parameters = "FILE.py, FILE.py:NAME or package.module:NAME"
    position_syntax = "ints, strings and tuples of them: 5, 3,5, (1,2),(3,)"
    summary = "your own game in Python (@explorer.game, @explorer.heap_game, a Game subclass)"
    example = ("py:data/stones.py", "10")

    @classmethod
    def canonical_piece(cls, piece: str, parameters: str | None) -> str:
        """Named by its file, never run to be named: the resolved file (or the module), the
        game's name and the fingerprint of the file as it is (see `canonical_python_spec`)."""
        from explorer.games.pyspec import canonical_python_spec

        return canonical_python_spec(piece)

    @classmethod
    def shown_piece(cls, piece: str, parameters: str | None) -> str:
        from explorer.games.pyspec import shown_python_spec

        return shown_python_spec(piece)

    def __init__(
        self,
        rule: Rule,
        *,
        example: str | None = None,
        parse: Callable[[str], Any] | None = None,
        format: Callable[[Any], str] | None = None,
        acyclic: bool = True,
        max_moves: int = DEFAULT_MAX_MOVES,
        source: RuleSource | None = None,
        tier: Callable[[Any], int] | None = None,
    ) -> None:
        self.rule = rule
        self.source = source or source_of(rule)
        self.start = example
        self._parse = parse
        self._format = format
        self._tier = tier
        self.cycles = not acyclic
        self.guard = RuleGuard(self.source, max_moves)
        self.__doc__ = getattr(rule, "__doc__", None)

    @property
    def spec(self) -> str:
        return self.source.spec

    def parse(self, text: str) -> Any:
        if self._parse is None:
            return parse_position(text)
        try:
            position = call_rule(self._parse, text)
        except PositionError:
            raise
        except BaseException as error:
            raise PositionError(
                f"bad position {text!r} for {self.source.name}: the game's parse {way_out(error)}"
            ) from None
        return hashable_position(position, self.source, text)

    def format(self, position: Any) -> str:
        if self._format is None:
            try:
                return format_position(position)
            except TypeError as error:  # a successor not checked in full (see `successors`)
                raise RuleError(
                    f"{self.source.shown}, line {self.source.line}: rule {self.source.name!r} "
                    f"gave a successor that is not a position: {error}"
                ) from None
        try:
            return call_rule(self._format, position)
        except BaseException as error:
            raise self.source.failure(error, safe_text(repr, position)) from None

    def format_many(self, positions: Sequence[Any]) -> list[str]:
        if self._format is not None:
            return list(map(self.format, positions))
        try:
            return format_positions(positions)
        except TypeError:  # a successor not checked in full: `format` names it
            return list(map(self.format, positions))

    def tier(self, position: Any) -> int | None:
        """The game's `tier` function's number for `position` (None without one)."""
        return None if self._tier is None else _tier_of(self._tier, position, self.source)

    def __call__(self, position: Any) -> list[Any]:
        """The successors of `position`, as a list (the rule called as it was written)."""
        return list(self.successors(position))

    def successors(self, position: Any) -> Iterator[Any]:
        moves = self.guard.moves(self.rule, position, self._text)
        self._check_moves(moves, position, hashed=True)
        return iter(moves)

    def successor_lists(self, positions: Iterable[Any], most: int) -> Iterator[list[Any]]:
        """The successors of each position, checked as `successors` checks them but for the
        hash of a tuple: the caller hashes every move anyway, and asks `successors` which
        move is wrong when one cannot be hashed."""
        moves_of, rule, text, check = self.guard.moves, self.rule, self._text, self._check_moves
        for position in positions:
            moves = moves_of(rule, position, text)
            check(moves, position, hashed=False)
            yield moves

    def _check_moves(self, moves: list[Any], position: Any, hashed: bool) -> None:
        """Refuse a move that is not a position (see `_check_text` and `_check_custom`); a
        tuple is hashed unless `hashed` is False."""
        whole = self.guard.calls <= CHECK_FIRST or self.guard.calls % CHECK_EVERY == 0
        if self._format is not None:
            for move in moves:
                self._check_custom(move, position, whole)
        elif whole or not _ints_and_tuples(moves, hashed):
            # every move is checked in full on the positions asked twice; on the others a
            # tuple is only hashed (its text, written when it is new, refuses what is wrong)
            for move in moves:
                kind = type(move)
                if kind is int:
                    continue
                if kind is tuple and not whole:
                    try:
                        hash(move)
                        continue
                    except TypeError:
                        pass
                self._check_text(move, position)

    def _text(self, position: Any) -> str:
        return self.format(position)

    def _check_text(self, move: Any, position: Any) -> None:
        try:
            format_position(move)
        except TypeError as error:
            raise self.source.bad_move(str(error), safe_text(self._text, position)) from None

    def _check_custom(self, move: Any, position: Any, whole: bool) -> None:
        """A move of a game with its own parse and format: hashable, and read back from its
        text when `whole` (on the positions whose answers are checked twice)."""
        try:
            hash(move)
        except TypeError:
            problem = f"{move!r} is a {type(move).__name__}, which is not hashable (use a tuple)"
            raise self.source.bad_move(problem, safe_text(self._text, position)) from None
        if whole:
            round_trip(self, move, self.source, position)


#: The kinds of move `_ints_and_tuples` lets through.
_INT_AND_TUPLE = frozenset((int, tuple))


def _ints_and_tuples(moves: list[Any], hashed: bool) -> bool:
    """Whether every move is an int or a tuple (hashable, if `hashed`), found in C (``map``,
    one hash of them all) rather than by a loop in Python over the moves."""
    if not _INT_AND_TUPLE.issuperset(map(type, moves)):
        return False
    if hashed:
        try:
            hash(tuple(moves))
        except TypeError:
            return False
    return True


def hashable_position(position: Any, source: RuleSource, text: str) -> Any:
    """A position a game's own parse gave, refused when it cannot be hashed (a build numbers
    positions by their hash)."""
    try:
        hash(position)
    except Exception:
        raise RuleError(
            f"{source.shown}, line {source.line}: the parse of {source.name!r} gave "
            f"{safe_text(repr, position)} for {text!r}, a {type(position).__name__}, which is "
            "not hashable (write positions as tuples, strings or ints)"
        ) from None
    return position


def round_trip(game: Game[Any], move: Any, source: RuleSource, position: Any) -> None:
    """Refuse a move that its game's format and parse do not give back."""
    where = safe_text(game.format, position)
    try:
        text = game.format(move)
        back = game.parse(text)
    except RuleError:
        raise
    except BaseException as error:
        raise source.bad_move(
            f"{safe_text(repr, move)} cannot be written and read back ({way_out(error)})", where
        ) from None
    if back != move:
        raise source.bad_move(f"{move!r} is written {text!r}, which reads back as {back!r}", where)


def _tier_of(function: Callable[[Any], Any], position: Any, source: RuleSource) -> int:
    """A game's own tier function's number for `position`, refused unless an int."""
    try:
        tier = function(position)
    except Exception as error:
        raise source.failure(error, repr(position)) from None
    if type(tier) is not int:
        raise RuleError(
            f"{source.shown}, line {source.line}: the tier of position {position!r} is "
            f"{tier!r}, a {type(tier).__name__}, not an int (fix the tier, then run again)"
        )
    return tier


class PythonHeapGame(HeapGame):
    """A heap game from a function giving what one heap may become (see `heap_game`)."""

    family = "py"
    parameters = PythonGame.parameters
    summary = PythonGame.summary
    example = PythonGame.example

    def __init__(
        self,
        rule: Callable[[int], Iterable[int | tuple[int, ...]]],
        *,
        example: str | None = None,
        max_moves: int = DEFAULT_MAX_MOVES,
        source: RuleSource | None = None,
    ) -> None:
        super().__init__()
        self.rule = rule
        self.source = source or source_of(rule)
        self.start = example
        self.guard = RuleGuard(self.source, max_moves)
        self._cache: dict[int, tuple[Heaps, ...]] = {}
        self._cached = 0
        self.__doc__ = getattr(rule, "__doc__", None)

    @property
    def spec(self) -> str:
        return self.source.spec

    def __call__(self, heap: int) -> list[Heaps]:
        return list(self.heap_moves(heap))

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        found = self._cache.get(heap)
        if found is None:
            found = self._options(heap)
            # heaps are asked for again and again (each position of a build asks for its
            # heaps' options): kept while they hold few options in all
            if self._cached + len(found) <= CACHED_OPTIONS:
                self._cache[heap] = found
                self._cached += len(found)
        return iter(found)

    def _options(self, heap: int) -> tuple[Heaps, ...]:
        options = []
        for option in self.guard.moves(self.rule, heap, str):
            if type(option) is int:
                heaps: Heaps = (option,) if option else ()
            elif type(option) is tuple and all(type(h) is int for h in option):
                heaps = tuple(h for h in option if h)
            else:
                problem = (
                    f"{option!r} is a {type(option).__name__} (an option is an int, one heap "
                    "left, or a tuple of ints, several heaps)"
                )
                raise self.source.bad_move(problem, str(heap))
            if any(not 0 < h < heap for h in heaps):
                raise self.source.bad_move(
                    f"{option!r} leaves a heap that is negative or not smaller than {heap} "
                    "(write a game whose heaps may grow with @explorer.game)",
                    str(heap),
                )
            options.append(heaps)
        return tuple(options)


class ClassGame(Game[Any]):
    """A user's `Game` subclass loaded from a file: its own rules, called through the guard."""

    family = "py"
    parameters = PythonGame.parameters
    summary = PythonGame.summary
    example = PythonGame.example

    def __init__(self, inner: Game[Any], source: RuleSource) -> None:
        self.inner = inner
        self.source = source
        self.start = getattr(inner, "example", ("", None))[1]
        self.syntax = getattr(inner, "position_syntax", PythonGame.position_syntax)
        self.cycles = bool(getattr(inner, "cycles", False))
        self.guard = RuleGuard(source, int(getattr(inner, "max_moves", DEFAULT_MAX_MOVES)))

    @property
    def spec(self) -> str:
        return self.source.spec

    def parse(self, text: str) -> Any:
        try:
            position = call_rule(self.inner.parse, text)
        except PositionError:
            raise
        except BaseException as error:
            raise self.source.failure(error, text) from None
        return hashable_position(position, self.source, text)

    def format(self, position: Any) -> str:
        try:
            return call_rule(self.inner.format, position)
        except BaseException as error:
            raise self.source.failure(error, safe_text(repr, position)) from None

    def successors(self, position: Any) -> Iterator[Any]:
        moves = self.guard.moves(self.inner.successors, position, self.format)
        for move in moves:
            try:
                hash(move)
            except TypeError:
                problem = f"{move!r} is a {type(move).__name__}, which is not hashable"
                raise self.source.bad_move(problem, self.format(position)) from None
            if self.guard.calls <= CHECK_FIRST or self.guard.calls % CHECK_EVERY == 0:
                round_trip(self, move, self.source, position)
        return iter(moves)

    def decompose(self, position: Any) -> Decomposition | None:
        try:
            return call_rule(self.inner.decompose, position)
        except BaseException as error:
            raise self.source.failure(error, self.format(position)) from None

    def tier(self, position: Any) -> int | None:
        """The class's own `tier` method's number, when it has one."""
        method = getattr(self.inner, "tier", None)
        if method is None or getattr(type(self.inner), "tier", None) is Game.tier:
            return None
        return _tier_of(method, position, self.source)

    def known_value(self, position: Any) -> int | None:
        return self.inner.known_value(position)


# -- the decorators ------------------------------------------------------------------------------
def heap_game(
    rule: Callable[[int], Iterable[int | tuple[int, ...]]] | None = None,
    *,
    example: str | None = None,
    max_moves: int = DEFAULT_MAX_MOVES,
) -> Any:
    """Make a heap game from a function giving what one heap of n tokens may become.

    Each option is an int (one heap left; 0 for none) or a tuple of ints (several heaps).
    Positions are heaps written ``3,5``: a sum of single heaps, so sequences, tables and
    solving work as for the built-in heap games. Every heap an option leaves must be smaller
    than n. A period found for such a rule is observed, not proven. What the rule prints
    goes to standard error (explorer's own output, ``--json`` too, stays on standard output).

    Parameters
    ----------
    rule : callable
        ``rule(n)`` yields (or returns) the options of a heap of n, n >= 1.
    example : str, optional
        A start position for ``explorer games`` and ``explorer check``.
    max_moves : int
        Options a heap may have before the rule is taken for one that never ends.

    Returns
    -------
    PythonHeapGame
        A game; calling it still gives the options (as tuples of heaps).

    Examples
    --------
    >>> @heap_game
    ... def stones(n):
    ...     yield from (n - k for k in (1, 2, 4) if k <= n)
    ...     yield from ((a, n - a) for a in range(1, (n + 1) // 2) if 2 * a != n)
    >>> stones.heap_values(9).tolist()
    [0, 1, 2, 0, 3, 4, 0, 2, 1, 3]
    """

    def make(function: Callable[[int], Iterable[int | tuple[int, ...]]]) -> PythonHeapGame:
        return PythonHeapGame(function, example=example, max_moves=max_moves)

    return make if rule is None else make(rule)


def game(
    rule: Rule | None = None,
    *,
    example: str | None = None,
    parse: Callable[[str], Any] | None = None,
    format: Callable[[Any], str] | None = None,
    acyclic: bool = True,
    max_moves: int = DEFAULT_MAX_MOVES,
    tier: Callable[[Any], int] | None = None,
) -> Any:
    """Make a game from a function giving the positions one move away.

    Positions are ints, strings or tuples of them, written ``5``, ``3,5`` or ``(1,2),(3,)``
    and read back the same way; `parse` and `format` replace that for other positions (any
    hashable value, with ``parse(format(p)) == p``). What the rule prints goes to standard
    error (explorer's own output, ``--json`` too, stays on standard output); a rule that raises
    anything, or calls ``sys.exit`` or ``os._exit``, is one error naming the file, the line
    and the position, and a build it stops is taken back whole.

    Parameters
    ----------
    rule : callable
        ``rule(position)`` yields (or returns) the successors.
    example : str, optional
        A start position, as text.
    parse, format : callable, optional
        Text to position and back.
    acyclic : bool
        False declares that play may go on for ever (values are then generalized, with draws).
    max_moves : int
        Moves a position may have before the rule is taken for one that never ends.
    tier : callable, optional
        ``tier(position)``: a number that every move lowers (or keeps, with
        ``acyclic=False``), the stones left, say; builds then run on every core
        (``explorer build --workers N``). Without it a build runs in one process.

    Returns
    -------
    PythonGame

    Examples
    --------
    >>> @game(example="3,3")
    ... def two_heaps(p):
    ...     a, b = p
    ...     return [(a - k, b) for k in (1, 2) if k <= a] + [(a, b - k) for k in (1, 2) if k <= b]
    >>> from explorer import solve
    >>> solve(two_heaps, two_heaps.parse("3,3")).outcome
    'P'
    """

    def make(function: Rule) -> PythonGame:
        return PythonGame(
            function,
            example=example,
            parse=parse,
            format=format,
            acyclic=acyclic,
            max_moves=max_moves,
            tier=tier,
        )

    return make if rule is None else make(rule)


def adopt(value: object, name: str, path: str | None, target: str | None) -> Game[Any] | None:
    """The game a module attribute holds, named as a spec names it, or None if it holds none:
    a decorated function, or a subclass of `Game` (made with no arguments) or an instance."""
    if isinstance(value, PythonGame | PythonHeapGame):
        line = value.source.line
        value.source = RuleSource(name, path or value.source.path, line, target)
        value.source.fingerprint = code_fingerprint(value.source.path)
        value.guard.source = value.source
        return value
    from explorer.games.graphs import UserGraphGame

    if isinstance(value, UserGraphGame):
        line = value.source.line
        value.source = RuleSource(name, path or value.source.path, line, target)
        value.source.fingerprint = code_fingerprint(value.source.path)
        return value
    if (
        isinstance(value, type)
        and issubclass(value, Game)
        and value.__module__
        not in (
            "explorer.games.base",
            __name__,
        )
    ):
        if getattr(value, "__abstractmethods__", None):
            return None
        try:
            value = call_rule(lambda cls: cls(), value)
        except BaseException as error:
            raise GameCodeError(
                f"{name!r} in {(shown_file(path) if path else target)!r} cannot be made: "
                f"{name}() {way_out(error)} (a Game subclass is made with no arguments: give "
                "its __init__ defaults)"
            ) from None
    if isinstance(value, Game) and type(value).__module__.startswith("explorer."):
        return None
    if isinstance(value, Game):
        code = getattr(type(value).successors, "__code__", None)
        source = RuleSource(name, path, 0 if code is None else code.co_firstlineno, target)
        source.fingerprint = code_fingerprint(source.path)
        return ClassGame(value, source)
    return None
