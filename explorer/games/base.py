"""The game model: a game parses, formats and expands positions, and may split one into parts.

Games know nothing of graphs, solvers or storage; they only describe the rules.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, Self, TypeVar

import numpy as np

from explorer.errors import ExplorerError, PositionError, SpecError
from explorer.games.rule_calls import class_spec

if TYPE_CHECKING:
    from explorer.games.pictures import Picture
    from explorer.games.removals import RemovalRule, SplitRules

#: A position of some game, as code that handles every game sees it: immutable and hashable.
Position = Hashable
#: The position type of one game (``tuple[int, ...]`` heaps for Nim, a vertex name for a DAG).
P = TypeVar("P", bound=Hashable)


class Listed(list[P]):
    """Moves worth a value (`Game.moves_to_value`); `cut` says why the list may be short, ""
    when it is whole."""

    cut = ""


@dataclass(frozen=True)
class Part:
    """One summand of a decomposed position: a position of `game`."""

    game: Game[Any]
    position: Position


@dataclass(frozen=True)
class Decomposition:
    """A position written as a sum of parts.

    `exact` means the position *equals* the sum, so its Grundy value is the XOR of the parts'
    values. A reduction (`exact=False`) only preserves the outcome: the XOR decides P or N, and
    the value reported is that of the reduced game. `rebuild` turns a list of part positions back
    into a position of the whole game (used to express a move in one part as a whole move).
    """

    parts: tuple[Part, ...]
    rebuild: Callable[[Sequence[Any]], Any] = field(compare=False)
    exact: bool = True
    note: str = ""

    @classmethod
    def of_singles(
        cls,
        game: Game[Any],
        position: tuple[Any, ...],
        rebuild: Callable[[Sequence[Any]], Any],
        note: str,
    ) -> Decomposition | None:
        """A position of several heaps (coins, ...) as the exact sum of its single ones, each a
        position ``(item,)`` of `game`; None for fewer than two (nothing to split).

        Examples
        --------
        >>> from explorer.games import load_game
        >>> nim = load_game("nim")
        >>> split = Decomposition.of_singles(nim, (1, 2), sorted, "heaps")
        >>> [part.position for part in split.parts], Decomposition.of_singles(nim, (3,), sorted, "")
        ([(1,), (2,)], None)
        """
        if len(position) < 2:
            return None
        parts = tuple(Part(game, (item,)) for item in position)
        return cls(parts=parts, rebuild=rebuild, note=note)


@dataclass(frozen=True)
class NimHeaps:
    """A position that is a position of Nim move for move: its `heaps`, and `rebuild`, which
    turns heaps (in that order, 0 for an emptied heap) back into a position of the game."""

    heaps: list[int]
    rebuild: Callable[[Sequence[int]], Any] = field(compare=False)


@dataclass(frozen=True)
class Components:
    """A position as the components the pruned search values: groups of a rule set (an
    `explorer.solver.pruned.ComponentRules`) and the keys of its components there."""

    groups: tuple[tuple[Any, tuple[Hashable, ...]], ...]


#: Called now and then with (cells done, cells in all) while a value table is filled.
TableProgress = Callable[[int, int], None]


class HeapRules(Protocol):
    """A game played on heaps, as the code that reads one asks it (`Game.heap_rules`): a
    position is a row of heap sizes, worth the XOR of one sequence of single-heap values G(n),
    which the sequence engine computes and proves periodic, and which tables of two heaps,
    misère quotients, genera and the builds' heap index read."""

    #: Most memory the table of single-heap values may take, in MiB.
    max_memory_mb: int

    @property
    def spec(self) -> str:
        """The game's canonical spec."""

    @property
    def period(self) -> tuple[int, int] | None:
        """A proven (preperiod, period) of G(n), once known."""

    @property
    def split_rules(self) -> SplitRules | None:
        """The rules as the compiled sequence kernel reads them (splitting games only)."""

    @property
    def splits(self) -> bool:
        """Whether some move leaves two heaps where there was one."""

    @property
    def plain_keys(self) -> bool:
        """Whether positions are written and read as heap sizes in increasing order, comma
        separated (``0`` for none), so that keys are written many rows of heaps at once."""

    @property
    def tabulated(self) -> int:
        """How many single-heap values are known."""

    def parse(self, text: str) -> tuple[int, ...]:
        """The heaps a position's text names."""

    def format(self, position: tuple[int, ...]) -> str:
        """The canonical text of a row of heaps."""

    def heap_moves(self, heap: int) -> Iterator[tuple[int, ...]]:
        """What one heap of size `heap` can become (heaps of size 0 omitted)."""

    def heap_value(self, heap: int) -> int:
        """G(heap)."""

    def heap_values(self, upto: int) -> np.ndarray:
        """G(0..upto)."""

    def closed_form(self, heap: int) -> int | None:
        """G(heap) from a closed form, or None when the game has none."""

    def adopt(self, values: np.ndarray, period: tuple[int, int] | None = None) -> None:
        """Take single-heap values computed elsewhere (and their proven period)."""

    def heap_weights(self, largest: int) -> list[int]:
        """The tier weight of each heap 0..largest."""

    def octal_removal(self) -> int | None:
        """k when the game is an octal game removing at most k tokens, else None."""

    def guy_smith_parameters(self) -> tuple[int, ...] | None:
        """The Guy-Smith theorem's parameters proving the period from the values, or None."""

    def removal_rule(self) -> RemovalRule | None:
        """The removal rule, for a game whose moves take from one heap and never split it."""


class Game(ABC, Generic[P]):
    """An impartial game under normal play, whose positions are of type `P`.

    Subclasses set the class attributes used by `explorer games` and implement parsing,
    formatting and successor generation. Positions are immutable and hashable; the formatted
    text is canonical, so ``game.parse(game.format(p)) == p``. Code that handles any game
    takes a ``Game[Any]``.

    The other methods are capabilities a family may offer, each with a default that offers
    nothing: a closed form (`known_value`, `moves_to_value`), counts (`count_states`,
    `count_moves`), a sum (`decompose`, `summands`), canonical parts (`part_label`, and
    `picture` to draw them; `search_components` for the pruned search), moves in words
    (`move_name`), a value table (`value_table`), a sequence (`sequence_position`,
    `heap_rules`), a shortcut for misère play (`nim_heaps`), cycles (`may_cycle`) and tiers
    (`tier`, which lets a build run on every core). The analysis, generation and storage
    layers ask for them instead of testing a game's class, so a new family opts in by
    defining them.

    A game of your own (``explorer.Game``, loaded with ``py:FILE.py``) needs only `parse`,
    `format` and `successors`, and ``example = ("", "START")`` to name a start; its spec is
    its file's (see `spec`). Optional: `decompose` (a position as a sum of parts),
    `known_value` (a closed form), `count_states`, `count_moves`, `moves_to_value`,
    `sequence_position` (the position of size n, for ``explorer sequence``), `tier` (a
    number every move lowers, for builds on several cores), a class attribute ``cycles =
    True`` (or `may_cycle`) for a game whose play may loop, and ``max_moves`` (the most
    moves a position may have, a million by default). `explorer check` tests such a class.
    ``explorer.game`` and ``explorer.heap_game`` make a game from one function instead.

    Examples
    --------
    >>> class Countdown(Game):
    ...     def parse(self, text):
    ...         return int(text)
    ...     def format(self, position):
    ...         return str(position)
    ...     def successors(self, position):
    ...         return [position - k for k in (1, 2) if k <= position]
    >>> from explorer import solve
    >>> solve(Countdown(), 9).outcome
    'P'
    """

    #: The family's name in specs; a subclass that names none is a game of your own (``py``),
    #: named by its file (see `spec`).
    family: ClassVar[str] = "py"
    parameters: ClassVar[str] = "none"
    position_syntax: ClassVar[str]
    example: ClassVar[tuple[str, str]]
    summary: ClassVar[str] = ""

    @property
    def spec(self) -> str:
        """The canonical spec string naming this game: the family name, for a family without
        parameters (a family with parameters adds them, ``subtraction:1,3,4``); a subclass
        written outside explorer need not give one: it is named ``py:FILE:ClassName@FINGERPRINT``
        by its file."""
        family = type(self).named_family()
        return family if family is not None else class_spec(type(self))

    # -- naming rules: class-level, they never run a user's file (see `explorer.games.specs`) --
    #: Whether the family's parameters name a graph file (``dag:``, ``graph:``): the file is
    #: imported, and from then on the stored graph is the game.
    names_file: ClassVar[bool] = False
    #: Whether the family's parameters name a user's Python file or module (``py:``).
    user_code: ClassVar[bool] = False
    #: Whether positions are the cells ``"r,c"`` of a table of values (see `value_table`),
    #: which the web app draws as a heat map.
    table_positions: ClassVar[bool] = False
    #: Whether the family's spec alone says that play may loop (``graph:``); other games say
    #: it once loaded (`may_cycle`).
    loops: ClassVar[bool] = False

    @classmethod
    def canonical_piece(cls, piece: str, parameters: str | None) -> str:
        """The spec a game of the family is stored under, from one piece of a spec as typed
        (aliases resolved) and its parameters; the piece as typed when it does not load."""
        try:
            return cls.from_parameters(parameters).spec
        except ExplorerError:
            return piece

    @classmethod
    def older_piece(cls, piece: str, parameters: str | None) -> str:
        """The piece as databases written before a change of spelling stored it (by default
        as typed)."""
        return piece

    @classmethod
    def shown_piece(cls, piece: str, parameters: str | None) -> str:
        """A stored piece as shown and reported (by default as stored)."""
        return piece

    @classmethod
    def named_family(cls) -> str | None:
        """The family the class or a base below `Game` names, or None when none does (a game
        of your own, whose `family` is ``py`` by default)."""
        for base in cls.__mro__:
            if base is Game:
                break
            if "family" in vars(base):
                return str(vars(base)["family"])
        return None

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Self:
        """The game of a spec's parameters (the text after ``family:``, None without one),
        raising `SpecError` when they are not valid; `explorer.games.load_game` calls it for
        every registered family. By default a family takes no parameter (`no_parameters`)."""
        no_parameters(cls.family, parameters)
        return cls()

    @abstractmethod
    def parse(self, text: str) -> P:
        """Parse a position text, raising `PositionError` when it is not a position."""

    @abstractmethod
    def format(self, position: P) -> str:
        """Format a position as its canonical text."""

    @abstractmethod
    def successors(self, position: P) -> Iterator[P]:
        """Yield the positions one move away, in a deterministic order (duplicates allowed)."""

    def format_many(self, positions: Sequence[P]) -> list[str]:
        """The texts of many positions (a build writes its new states' keys so), as `format`
        writes them; a game that writes many faster than one by one overrides it."""
        return list(map(self.format, positions))

    def successor_lists(self, positions: Iterable[P], most: int) -> Iterator[list[P]]:
        """The successors of each position in turn, each as a list (of `most` + 1 at most
        here: its caller refuses a position with more than `most`). A build asks for a round
        of positions at once; a game that answers that faster than `successors` one by one
        overrides it (a game written in Python checks its rules' answers here in bulk). A
        list may hold a move that cannot be hashed: the caller then asks `successors`, whose
        checks refuse it."""
        for position in positions:
            yield list(islice(self.successors(position), most + 1))

    def decompose(self, position: P) -> Decomposition | None:
        """Split a position into a sum of parts, or None when it is not a sum."""
        return None

    def move_name(self, position: P, successor: P) -> str | None:
        """What the move from `position` to `successor` does, in a player's words (``take
        vertex 4``, ``domino on b2-b3``, ``take 1 from 7, leaving 3+3``), read from the rules;
        None when the family has no such words (the default: the successor's text names it).

        Examples
        --------
        >>> from explorer.games import load_game
        >>> kayles = load_game("kayles")
        >>> kayles.move_name((7,), (3, 3)), load_game("chomp").move_name((2,), (1,))
        ('take 1 from 7, leaving 3+3', None)
        """
        return None

    def part_label(self, position: P) -> str | None:
        """The canonical label of a part (a position that does not split): equal labels
        mean equal values, so `explorer.analysis.parts` values each label once and a part
        table stores it; None when the game has no labels (the default)."""
        return None

    def search_components(self, position: P) -> Components | None:
        """The position as canonical components for the pruned nimber search
        (`explorer.solver.pruned`): the rules that give each component's moves, and the
        keys of the position's components; None when the game has none (the default)."""
        return None

    @classmethod
    def search_rules(cls) -> list[Any]:
        """The rule sets (`explorer.solver.pruned.ComponentRules`) whose part families the
        pruned search of this family fills besides its own `part_family` (the grid tables):
        each rebuilds a stored component from its label (`canonical_key`), so that a stored
        value can be valued again; none by default."""
        return []

    def part_of_label(self, label: str) -> tuple[Game[Any], Any] | None:
        """A game and a part of it whose value is that of this game's parts labelled `label`
        (a part rebuilt from its label, so that a stored label can be valued again); None
        when the game cannot rebuild one (the default). ValueError when `label` is no label
        of this game."""
        return None

    def networkx_position(self, graph: Any) -> P | None:
        """The position a NetworkX graph stands for, in a game played on graphs (the Python
        API takes one wherever it takes a position); None in the others."""
        return None

    def picture(self, position: P) -> Picture | None:
        """How a part of this game looks, drawn beside its value on pages: its graph (vertices
        and edges) or its board (cells); None when the game has no picture (the default)."""
        return None

    def part_family(self) -> str:
        """The name a part table files this game's labels under: games whose parts are
        valued alike share it (``nodekayles`` and its sequence form ``nodekayles:P``)."""
        return self.spec

    def known_value(self, position: P) -> int | None:
        """The Grundy value from a closed form or a table, or None to solve the graph."""
        return None

    def count_states(self, position: P, limit: int) -> int | None:
        """How many positions are reachable from `position` (itself included), counted
        without generating them; any number above `limit` once the count is known to exceed
        it; None when the game cannot tell (graph generation then finds out)."""
        return None

    def list_states(self, position: P) -> list[P] | None:
        """The positions `count_states` counts, `position` first, listed without generating
        any move, when the game can; None otherwise (a graph's search then finds them)."""
        return None

    def count_moves(self, position: P) -> int | None:
        """How many moves `position` has at least, counted without listing them (exact where
        the game can count them all), or None when the game cannot tell cheaply. A build
        refuses a position with too many moves at once, before listing any."""
        return None

    def moves_to_value(self, position: P, target: int) -> list[P] | None:
        """Successors whose value is `target`, when a shortcut knows them (a `Listed` whose
        `cut` says when they are not all there); None otherwise."""
        return None

    def sequence_position(self, n: int) -> P | None:
        """The position of size `n` in the game's value sequence (a strip of n cells, say),
        or None when the game has no such sequence; heap games use their heap tables."""
        return None

    def heap_rules(self) -> HeapRules | None:
        """The game's rules as heaps (`HeapRules`), when its positions are rows of heaps worth
        the XOR of one sequence of single-heap values G(n); None otherwise (the default)."""
        return None

    def value_table(
        self, rows: int, cols: int, progress: TableProgress | None = None
    ) -> np.ndarray | list[list[int | None]] | None:
        """G(r, c) of the positions ``"r,c"`` for r < rows, c < cols, as an integer array (-1
        where ``"r,c"`` is not a position) or a list of rows (None there), by a method faster
        than solving each cell's graph; None when the game has none. `progress(done, total)`
        is called now and then with the cells filled."""
        return None

    def nim_heaps(self, position: P) -> NimHeaps | None:
        """The position as heaps of Nim when it is one move for move (Nim, a sum of Nim
        games), so that what is known of Nim applies, like Bouton's rule for misère play;
        None otherwise."""
        return None

    def summands(self) -> tuple[Game[Any], ...] | None:
        """The games this one is the sum of, when it is a sum (a position is then the tuple
        of their positions, in that order); None otherwise."""
        return None

    def tier(self, position: P) -> int | None:
        """A number that no move raises, or None when the game has none (the default).

        Every move must lower it, or, in a game whose play may loop (`may_cycle`), keep it.
        A build then cuts the graph into tiers (the positions of one number) and hands them
        to worker processes: ``explorer build --workers N``; a game without tiers is built in
        one process. Tokens for heap games, cells for Chomp, coordinate sums for Wythoff.

        Examples
        --------
        >>> from explorer.games import load_game
        >>> load_game("nim").tier((3, 4, 5)), load_game("chomp").tier((3, 2))
        (12, 5)
        """
        return None

    def may_cycle(self) -> bool:
        """Whether play may go on forever (the game graph may have cycles): values are then
        generalized, ∞(K) included, and outcomes may be draws. By default the class
        attribute ``cycles``, which games written in Python set."""
        return bool(getattr(self, "cycles", False))

    def __repr__(self) -> str:
        return f"load_game({self.spec!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash(self.spec)


#: Longest number a position or a parameter may hold (Python refuses to convert longer ones).
MAX_NUMBER_DIGITS = 4_000


def natural_number(
    text: str, *, context: str, error: type[ExplorerError] = PositionError
) -> int | None:
    """The non-negative integer written in `text` with ASCII digits only, else None.

    ``str.isdigit`` and ``int`` also accept superscripts and other scripts' digits
    (``"²"``, ``"３"``); positions and parameters are written in ASCII digits only.

    Raises
    ------
    ExplorerError
        `error` (a `PositionError` by default), its message starting with `context`, when
        the number has more than `MAX_NUMBER_DIGITS` digits.

    Examples
    --------
    >>> [natural_number(t, context="nim") for t in ("42", "３", "²", "-1", "")]
    [42, None, None, None, None]
    """
    if not text.isascii() or not text.isdigit():
        return None
    if len(text) > MAX_NUMBER_DIGITS:
        raise error(
            f"{context}: a number of {len(text):,} digits is too long "
            f"(at most {MAX_NUMBER_DIGITS:,})"
        )
    return int(text)


def parse_int_list(text: str, *, what: str, game: str, separator: str = ",") -> list[int]:
    """Parse ``"3,4,5"`` into non-negative integers, with a clear error naming the game."""
    stripped = text.strip()
    if not stripped:
        raise PositionError(f"empty position for {game} (expected {what})")
    values = []
    for item in stripped.split(separator):
        item = item.strip()
        value = natural_number(item, context=f"bad position for {game}")
        if value is None:
            raise PositionError(
                f"bad position {text!r} for {game}: {item!r} is not a non-negative integer "
                f"(expected {what})"
            )
        values.append(value)
    return values


def no_parameters(family: str, parameters: str | None) -> None:
    """Refuse a parameter given to a family that takes none."""
    if parameters is not None:
        raise SpecError(f"{family} takes no parameter, got {parameters!r} (use just {family!r})")


def young_diagrams(rows: Sequence[int], limit: int) -> int:
    """How many non-increasing sequences lie under `rows` (non-increasing): a_i <= rows[i],
    a_1 >= a_2 >= ... >= 0, the all-zero one included; any number above `limit` once the
    count is known to exceed it.

    They are the Young diagrams inside a Chomp board, and the positions a Nim position reaches
    (its heaps sorted largest first, a heap of 0 being no heap). Counted row by row with a
    prefix sum per row; the cells plus one (each cell is the far corner of a different
    rectangle) bound the count from below, so a position with more is refused uncounted.

    Examples
    --------
    >>> young_diagrams([2, 2], 100)  # 0; 1; 2; 1,1; 2,1; 2,2
    6
    >>> young_diagrams([10**100], 1000) > 1000
    True
    """
    cells = sum(rows)
    if cells + 1 > limit or not rows:
        return cells + 1
    cap = limit + 1
    # ways[m]: choices of the rows below this one when this row keeps m cells
    ways = np.ones(rows[-1] + 1, dtype=np.int64)
    for above, below in zip(rows[-2::-1], rows[:0:-1], strict=True):
        reach = np.minimum(np.cumsum(ways), cap)
        ways = reach[np.minimum(np.arange(above + 1), below)]
    return min(int(np.sum(ways)), cap)


def young_diagrams_under(rows: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every non-increasing sequence that `young_diagrams` counts under `rows`, in
    lexicographic order, each written smallest first without its zeros (a row of heaps).

    Examples
    --------
    >>> list(young_diagrams_under([2, 2]))
    [(), (1,), (1, 1), (2,), (1, 2), (2, 2)]
    """
    current = [0] * len(rows)
    while True:
        yield tuple(x for x in reversed(current) if x)
        i = len(rows) - 1
        while i >= 0 and not (current[i] < rows[i] and (i == 0 or current[i] < current[i - 1])):
            i -= 1
        if i < 0:
            return
        current[i] += 1
        current[i + 1 :] = [0] * (len(rows) - i - 1)
