"""Heap games: the heap-game model, Nim and octal games (Kayles, Dawson's Kayles, Bash,
subtraction games); Lasker's Nim, Grundy's game and take-at-least-half are in `splitting`.

A position is a sorted tuple of positive heap sizes; it is the sum of its single heaps, whose
values come from a table extended on demand (vectorised with numpy for the splitting games).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Any, ClassVar

import numpy as np

from explorer.errors import SpecError
from explorer.games.base import (
    Decomposition,
    Game,
    Listed,
    NimHeaps,
    natural_number,
    parse_int_list,
    young_diagrams,
    young_diagrams_under,
)
from explorer.games.removals import RemovalRule, SplitRules
from explorer.machine import check_memory_need
from explorer.pace import pace

Heaps = tuple[int, ...]

#: Default memory a table of single-heap values may take, in MiB (``--memory`` raises it).
DEFAULT_MAX_MEMORY_MB = 2048
#: Splits of a heap past the computed values listed as moves: smaller parts up to this.
PERIODIC_SPLIT_PARTS = 1_000
#: Heaps from this size on are not tabulated by games with a closed form.
FAR_HEAP = 1 << 20
#: Moves of such a far heap examined for winning moves.
FAR_MOVES = 10_000
#: Moves of any heap examined for winning moves: a game that breaks a heap into any number of
#: parts has more than a lifetime lists (tb:0.{2+} from 200: p(199) - 1, about 3.6×10^12).
LISTED_MOVES = 1_000_000
#: Most digits of an octal code (a Bash or subtraction game's largest move).
MAX_DIGITS = 10_000


def lowest_missing(mask: int) -> int:
    """The mex of a set of small non-negative integers given as a bit mask."""
    return (~mask & (mask + 1)).bit_length() - 1


def _mask_of(values: np.ndarray) -> int:
    """Bit mask of the distinct values in a non-negative integer array."""
    if values.size == 0:
        return 0
    mask = 0
    for v in np.flatnonzero(np.bincount(values)):
        mask |= 1 << int(v)
    return mask


def _split_values(table: np.ndarray, total: int, *, unequal: bool) -> np.ndarray:
    """G(a) XOR G(total - a) for a = 1, 2, ... up to the last split of `total` (a <= total - a)."""
    half = max((total - 1) // 2 if unequal else total // 2, 0)
    values: np.ndarray = table[1 : half + 1] ^ table[total - half : total][::-1]
    return values


def split_mask(table: np.ndarray, total: int, *, unequal: bool = False) -> int:
    """Mask of G(a) XOR G(total - a) over the splits of `total` into two non-empty heaps."""
    return _mask_of(_split_values(table, total, unequal=unequal))


def _splits_to_value(
    table: np.ndarray, total: int, target: int, *, unequal: bool = False
) -> list[Heaps]:
    """The splits (a, total - a) of `total` worth `target`, by increasing a."""
    found = np.flatnonzero(_split_values(table, total, unequal=unequal) == target) + 1
    return [(a, total - a) for a in found.tolist()]


def _single_heaps_to_value(table: np.ndarray, upto: int, target: int) -> list[Heaps]:
    """The single heaps (h,), 1 <= h <= upto, worth `target`, by increasing h."""
    found = np.flatnonzero(table[1 : upto + 1] == target) + 1
    return [(h,) for h in found.tolist()]


def extend_split_table(table: np.ndarray, start: int, rules: SplitRules) -> None:
    """Fill table[start:] in place for a game whose moves `rules` describe (numpy, per heap).

    Examples
    --------
    >>> kayles = SplitRules(leave_one=(1, 2), take_all=(1, 2), split_after=(1, 2))
    >>> table = np.zeros(8, dtype=np.int64)
    >>> extend_split_table(table, 1, kayles)
    >>> table.tolist()
    [0, 1, 2, 3, 1, 4, 3, 2]
    """
    split_cache: dict[int, int] = {}

    def splits(total: int) -> int:
        if total not in split_cache:
            split_cache[total] = split_mask(table, total, unequal=rules.unequal)
        return split_cache[total]

    # removals leaving one heap are looked up together: one numpy gather per heap size
    leave_one = np.array(rules.leave_one, dtype=np.int64)
    take_all = set(rules.take_all)
    longest = max((*rules.leave_one, *rules.take_all, *rules.split_after), default=0)
    for n in range(start, len(table)):
        mask = 1 if n in take_all else 0
        removals = leave_one[: np.searchsorted(leave_one, n)]
        if removals.size:
            mask |= _mask_of(table[n - removals])
        for k in rules.split_after:
            if n - k >= 2:
                mask |= splits(n - k)
        table[n] = lowest_missing(mask)
        split_cache.pop(n - longest - 1, None)


#: Heap games have tiers (`HeapGame.tier`) up to this many tokens in a heap.
MAX_TIER_HEAP = 2**16


class HeapGame(Game[Heaps]):
    """A game played on heaps where a move changes one heap into zero, one or more heaps."""

    position_syntax: ClassVar[str] = "heap sizes, e.g. 3,4,5 (0 for no heap)"
    _table: np.ndarray
    #: Most memory the table of single-heap values may take, in MiB.
    max_memory_mb: int = DEFAULT_MAX_MEMORY_MB
    #: A proven (preperiod, period) of the single-heap values, once known: any heap is then
    #: answered from the first preperiod + period values.
    period: tuple[int, int] | None = None
    #: The rules as the compiled sequence kernel reads them (splitting games only).
    split_rules: SplitRules | None = None
    #: When a periodicity theorem applies to the single-heap values: (k, the most tokens a
    #: move removes; the least preperiod it allows; h, the most heaps a move leaves).
    periodicity: tuple[int, int, int] | None = None

    def __init__(self) -> None:
        self._table = np.zeros(1, dtype=np.int64)

    #: Whether some move leaves two heaps where there was one (False: every move keeps or
    #: removes the heap it is made in). True unless a game says otherwise.
    splits: bool = True
    #: Whether every heap of n >= 1 can become a heap of n - 1 (or none, for n = 1): a game
    #: that also never splits then reaches exactly the positions Nim reaches.
    takes_one: bool = False
    #: Whether positions are written and read as here (heap sizes in increasing order, comma
    #: separated, ``0`` for none): builds then write and read keys many rows of heaps at once
    #: (`explorer.generation.expansion.HeapIndex`, the tiers' workers). False for a class that
    #: writes or reads its own, unless it says True.
    plain_keys: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "plain_keys" not in vars(cls) and ("format" in vars(cls) or "parse" in vars(cls)):
            cls.plain_keys = False

    def heap_rules(self) -> HeapGame:
        return self

    # rules ---------------------------------------------------------------
    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        """Yield what one heap of size `heap` can become (heaps of size 0 omitted)."""
        raise NotImplementedError

    def octal_removal(self) -> int | None:
        """k when the game is an octal game (a move removes at most k tokens from one heap
        and leaves at most two heaps of it), else None: the bound periodicity proofs of
        octal games (of values, of misère quotients) read."""
        return None

    def guy_smith_parameters(self) -> tuple[int, ...] | None:
        """(k, first) or (k, first, h) when the Guy-Smith theorem (or its generalisation to
        moves leaving at most h heaps) proves this game's period from its values: k the most
        tokens a move removes, first the least preperiod it may start from (1 when heaps
        split); None when no theorem applies. By default the game's `periodicity`."""
        return self.periodicity

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        """Fill table[start:] in place, by default from `heap_moves` and the mex rule."""
        check = pace(f"the values of {self.spec} up to heap {len(table) - 1:,}", len(table))
        for n in range(start, len(table)):
            check(n)
            mask = 0
            for result in self.heap_moves(n):
                value = 0
                for h in result:
                    value ^= int(table[h])
                mask |= 1 << value
            table[n] = lowest_missing(mask)

    # positions -----------------------------------------------------------
    def parse(self, text: str) -> Heaps:
        heaps = parse_int_list(text, what=self.position_syntax, game=self.spec)
        return tuple(sorted(h for h in heaps if h > 0))

    def format(self, position: Heaps) -> str:
        return ",".join(map(str, position)) if position else "0"

    def successors(self, position: Heaps) -> Iterator[Heaps]:
        for i, h in enumerate(position):
            if i and position[i - 1] == h:
                continue
            rest = position[:i] + position[i + 1 :]
            for result in self.heap_moves(h):
                yield tuple(sorted(rest + tuple(x for x in result if x > 0)))

    def move_name(self, position: Heaps, successor: Heaps) -> str | None:
        """The heap a move changes and what it leaves: ``take 2 from 3``, ``take 1 from 7,
        leaving 3+3``, ``split 7 into 3+4``; None when no one heap becomes the others.

        Examples
        --------
        >>> from explorer.games import load_game
        >>> nim = load_game("nim")
        >>> nim.move_name((3, 4, 5), (1, 4, 5)), nim.move_name((3, 4), (4,))
        ('take 2 from 3', 'take 3 from 3')
        >>> load_game("grundy").move_name((7,), (3, 4))
        'split 7 into 3+4'
        """
        removed = Counter(position) - Counter(successor)
        if sum(removed.values()) != 1:
            return None
        (heap,) = removed
        left = sorted((Counter(successor) - Counter(position)).elements())
        taken = heap - sum(left)
        if taken < 0:
            return None
        leaving = "+".join(map(str, left))
        if not taken:
            return f"split {heap} into {leaving}"
        if len(left) < 2:
            return f"take {taken} from {heap}"
        return f"take {taken} from {heap}, leaving {leaving}"

    def count_states(self, position: Heaps, limit: int) -> int | None:
        """For a game that never splits and takes one token at a time, the positions a
        position reaches are every row of heaps under it (`young_diagrams`); otherwise None.

        Examples
        --------
        >>> from explorer.games import load_game
        >>> load_game("subtraction:1,2").count_states((180, 180, 180), 10**7)
        1004731
        >>> load_game("kayles").count_states((5,), 100) is None  # Kayles splits heaps
        True
        """
        if self.splits or not self.takes_one:
            return None
        return young_diagrams(sorted(position, reverse=True), limit)

    def list_states(self, position: Heaps) -> list[Heaps] | None:
        """The rows of heaps under `position` (as `count_states` counts them), largest first.

        Examples
        --------
        >>> from explorer.games import load_game
        >>> load_game("nim").list_states((1, 2))
        [(1, 2), (2,), (1, 1), (1,), ()]
        """
        if self.splits or not self.takes_one:
            return None
        return list(young_diagrams_under(sorted(position, reverse=True)))[::-1]

    def tier(self, position: Heaps) -> int | None:
        """The sum of the heaps' weights, a weight per heap size that every move lowers
        (`heap_weights`): the tokens in Nim, subtraction, octal and most take-and-break games;
        None beyond `MAX_TIER_HEAP` tokens in a heap (the weights would take long to find).

        Examples
        --------
        >>> from explorer.games import load_game
        >>> load_game("subtraction:1,2").tier((3, 4)), load_game("grundy").tier((3, 4))
        (7, 3)
        """
        largest = max(position, default=0)
        if largest > MAX_TIER_HEAP:
            return None
        weights = self.heap_weights(largest)
        return sum(weights[h] for h in position)

    def heap_weights(self, largest: int) -> list[int]:
        """w(0..largest): w(h) = 1 + the most that the heaps one move leaves weigh together
        (0 for a heap without a move), so every move lowers a position's total weight. It is
        h in a game where a heap of h can always become one of h - 1 and never splits, and
        found from `heap_moves` otherwise (once per heap size, kept); it depends on the rules
        alone, so every process of a build finds the same tiers.

        Examples
        --------
        >>> from explorer.games import load_game
        >>> load_game("nim").heap_weights(4), load_game("grundy").heap_weights(6)
        ([0, 1, 2, 3, 4], [0, 0, 0, 1, 2, 3, 4])
        """
        weights: list[int] = self.__dict__.setdefault("_heap_weights", [0])
        if not self.splits and self.takes_one:
            return list(range(largest + 1))
        for heap in range(len(weights), largest + 1):
            heaviest = -1
            for result in self.heap_moves(heap):
                heaviest = max(heaviest, sum(weights[h] for h in result if h))
            weights.append(1 + heaviest if heaviest >= 0 else 0)
        return weights

    def decompose(self, position: Heaps) -> Decomposition | None:
        note = "a position of several heaps is the sum of its single heaps"
        return Decomposition.of_singles(self, position, _join_heaps, note)

    def known_value(self, position: Heaps) -> int | None:
        value = 0
        for h in position:
            value ^= self.heap_value(h)
        return value

    def moves_to_value(self, position: Heaps, target: int) -> list[Heaps] | None:
        """The successors of `position` worth `target`, in the order of `successors`.

        Each heap is asked for its moves to the value that makes the sum `target`, from the
        value table, instead of valuing every successor.

        Examples
        --------
        >>> from explorer import load_game
        >>> kayles = load_game("kayles")
        >>> kayles.moves_to_value((7,), 0)  # knock down one pin or two, splitting the row
        [(3, 3), (1, 4)]
        >>> kayles.moves_to_value((1, 7), 0)
        [(1, 2, 3)]
        """
        total = self.known_value(position)
        assert total is not None  # a heap game knows every value
        moves: Listed[Heaps] = Listed()
        if target == total:
            return moves  # a move keeping the total keeps its heap's value, which mex forbids
        for i, h in enumerate(position):
            if i and position[i - 1] == h:
                continue
            rest = position[:i] + position[i + 1 :]
            found = self._heap_moves_to_value(h, target ^ total ^ self.heap_value(h))
            if isinstance(found, Listed) and found.cut:
                moves.cut = found.cut
            moves += (tuple(sorted(rest + result)) if rest else result for result in found)
        # moves from heaps of different sizes could meet in one position (not in these games)
        moves[:] = dict.fromkeys(moves)
        return moves

    def _heap_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        """What one heap (>= 1) can become that is worth `target`: distinct, sorted, no zeros,
        in the order of `heap_moves`, among its first `LISTED_MOVES` (a `Listed` whose `cut`
        says so when it has more); subclasses vectorise it over their value table."""
        table = self.heap_values(heap)
        moves: dict[Heaps, None] = {}
        for count, move in enumerate(self.heap_moves(heap)):
            if count == LISTED_MOVES:
                cut: Listed[Heaps] = Listed(moves)
                cut.cut = f"moves listed among the first {LISTED_MOVES:,} of heap {heap:,}"
                return cut
            result = tuple(sorted(h for h in move if h > 0))
            if result and result[-1] >= len(table):
                table = self.heap_values(result[-1])
            value = 0
            for h in result:
                value ^= int(table[h])
            if value == target:
                moves[result] = None
        return list(moves)

    # values --------------------------------------------------------------
    @property
    def tabulated(self) -> int:
        """How many single-heap values are known without computing (G(0) .. G(tabulated - 1))."""
        return len(self._table)

    def heap_value(self, heap: int) -> int:
        """The Grundy value of a single heap (from the proven period when there is one)."""
        if heap >= len(self._table):
            closed = self.closed_form(heap)
            if closed is not None:
                return closed
            if self.period is not None:
                pre, period = self.period
                return int(self._table[pre + (heap - pre) % period])
        return int(self.heap_values(heap)[heap])

    def closed_form(self, heap: int) -> int | None:
        """G(heap) by a formula, for games with a proven one (else None)."""
        return None

    def removal_rule(self) -> RemovalRule | None:
        return None  # the rule of a game whose every move takes from one heap, leaving one or none

    def _far_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        """Moves of a heap too large to tabulate, worth `target`, by the closed form: among the
        first `FAR_MOVES` moves `heap_moves` yields (a far heap has more than can be listed)."""
        moves = []
        for result in itertools.islice(self.heap_moves(heap), FAR_MOVES):
            value = 0
            for h in result:
                value ^= self.heap_value(h)
            if value == target:
                moves.append(tuple(sorted(h for h in result if h > 0)))
        return list(dict.fromkeys(moves))

    def adopt(self, values: np.ndarray, period: tuple[int, int] | None = None) -> None:
        """Take values G(0), G(1), ... computed elsewhere (the sequence engine, the database),
        and a period they prove."""
        if len(values) > len(self._table):
            self._table = values
        if period is not None:
            pre, p = period
            if pre + p > len(self._table):
                raise ValueError(f"a period {period} needs {pre + p} values")
            self.period = period

    def heap_values(self, upto: int) -> np.ndarray:
        """The values G(0), ..., G(upto) of single heaps, as an integer array."""
        known = len(self._table)
        if upto >= known:
            size = max(upto + 1, 2 * known)
            what = f"the values of {self.spec} up to heap {upto:,} need"
            check_memory_need(8 * size, self.max_memory_mb, what, option="--memory")
            table = np.zeros(size, dtype=np.int64)
            table[:known] = self._table
            if self.period is not None:
                pre, period = self.period
                rest = np.arange(known, size, dtype=np.int64)
                table[known:] = table[pre + (rest - pre) % period]
            else:
                self._table_extend(table, known)
            self._table = table
        return self._table[: upto + 1]


def _join_heaps(parts: Sequence[Heaps]) -> Heaps:
    return tuple(sorted(chain.from_iterable(parts)))


def _nim_position(heaps: Sequence[int]) -> Heaps:
    return tuple(sorted(h for h in heaps if h))


class Nim(HeapGame):
    """Nim: remove any positive number of tokens from one heap."""

    family = "nim"
    example = ("nim", "3,4,5")
    summary = "Nim: take any number from one heap"

    splits = False
    takes_one = True

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        for k in range(heap):
            yield (k,) if k else ()

    def closed_form(self, heap: int) -> int | None:
        return heap

    def removal_rule(self) -> RemovalRule:
        return RemovalRule.all_but(())

    def nim_heaps(self, position: Heaps) -> NimHeaps:
        return NimHeaps(list(position), _nim_position)

    def heap_value(self, heap: int) -> int:
        return heap  # Bouton: a single Nim heap of n is *n (checked against the table in tests)

    def count_moves(self, position: Heaps) -> int:
        """A heap of h has h moves; equal heaps give the same successors (listed once).

        Examples
        --------
        >>> Nim().count_moves((2, 2, 3)), len(set(Nim().successors((2, 2, 3))))
        (5, 5)
        """
        return sum(set(position))

    def known_value(self, position: Heaps) -> int:
        value = 0
        for h in position:
            value ^= h
        return value

    def moves_to_value(self, position: Heaps, target: int) -> list[Heaps] | None:
        change = target ^ self.known_value(position)
        moves: list[Heaps] = []
        for i, h in enumerate(position):
            if (i and position[i - 1] == h) or h ^ change >= h:
                continue
            rest = position[:i] + position[i + 1 :]
            moves.append(tuple(sorted(rest + ((h ^ change,) if h ^ change else ()))))
        return moves


class OctalGame(HeapGame):
    """An octal game d0.d1d2...: digit dk says what removing k tokens may leave."""

    family = "octal"
    parameters = "an octal code d0.d1d2... with d0 in {0, 4} and digits 0-7, e.g. 0.77"
    example = ("octal:0.137", "10,7")
    summary = "octal games (Kayles 0.77, Dawson's Kayles 0.07, Dawson's chess 0.137, ...)"

    def __init__(self, code: str) -> None:
        super().__init__()
        match = re.fullmatch(r"([0-7])\.([0-7]*)", code.strip())
        if not match:
            raise SpecError(
                f"bad octal code {code!r} (expected digits 0-7 like 0.77, 0.137 or 4.07)"
            )
        first, rest = match.groups()
        if first not in "04":
            raise SpecError(f"bad octal code {code!r}: the digit before the point must be 0 or 4")
        self.splits_without_removal = first == "4"
        self.digits = tuple(int(d) for d in rest.rstrip("0"))
        if len(self.digits) > MAX_DIGITS:
            raise SpecError(
                f"octal code of {len(self.digits):,} digits is too long (at most {MAX_DIGITS:,})"
            )
        split_after = [k for k, d in enumerate(self.digits, 1) if d & 4]
        self.split_rules = SplitRules(
            leave_one=tuple(k for k, d in enumerate(self.digits, 1) if d & 2),
            take_all=tuple(k for k, d in enumerate(self.digits, 1) if d & 1),
            split_after=(0, *split_after) if self.splits_without_removal else tuple(split_after),
        )
        # the removals k by what they may leave: one heap, nothing, or two heaps
        self._leave_one = np.array([k for k, d in enumerate(self.digits, 1) if d & 2], np.int64)
        self._take_all = {k for k, d in enumerate(self.digits, 1) if d & 1}
        self._split_after = [k for k, d in enumerate(self.digits, 1) if d & 4]
        self.splits = self.splits_without_removal or bool(self._split_after)
        self.takes_one = bool(self.digits) and self.digits[0] & 3 == 3

    @property
    def code(self) -> str:
        return ("4." if self.splits_without_removal else "0.") + (
            "".join(map(str, self.digits)) or "0"
        )

    @property
    def spec(self) -> str:
        return f"octal:{self.code}"

    def removal_rule(self) -> RemovalRule | None:
        return None if self.splits else RemovalRule.octal(self.digits)

    @property
    def max_removal(self) -> int:
        """The largest number of tokens a move removes (the k of the Guy-Smith theorem)."""
        return len(self.digits)

    def octal_removal(self) -> int:
        return self.max_removal

    def guy_smith_parameters(self) -> tuple[int, ...]:
        """The theorem holds for every octal game, ``4.`` codes included (their own splits
        remove no token: the proof holds for removals 0..k).

        Examples
        --------
        >>> OctalGame("0.77").guy_smith_parameters(), OctalGame("4.07").guy_smith_parameters()
        ((2, 1), (2, 1))
        """
        assert self.split_rules is not None
        return (self.max_removal, 1 if self.split_rules.split_after else 0)

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        if self.splits_without_removal:
            yield from ((a, heap - a) for a in range(1, heap // 2 + 1))
        for k, digit in enumerate(self.digits, start=1):
            rest = heap - k
            if rest < 0:
                break
            if digit & 1 and rest == 0:
                yield ()
            if digit & 2 and rest > 0:
                yield (rest,)
            if digit & 4 and rest >= 2:
                yield from ((a, rest - a) for a in range(1, rest // 2 + 1))

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        assert self.split_rules is not None
        extend_split_table(table, start, self.split_rules)

    def _heap_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        if heap >= len(self._table) and self.period is not None:
            return self._periodic_moves_to_value(heap, target)
        table = self.heap_values(heap)
        moves = _splits_to_value(table, heap, target) if self.splits_without_removal else []
        if self._split_after:
            # splits come between the single heaps, removal by removal: keep that order
            for k, digit in enumerate(self.digits[: heap - 1], start=1):
                if digit & 2 and table[heap - k] == target:
                    moves.append((heap - k,))
                if digit & 4:
                    moves += _splits_to_value(table, heap - k, target)
        else:
            removals = self._leave_one[: np.searchsorted(self._leave_one, heap)]
            found = removals[table[heap - removals] == target]
            moves += [(heap - k,) for k in found.tolist()]
        if heap in self._take_all and target == 0:
            moves.append(())
        return moves

    def _periodic_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        """Moves of a heap past the computed values, worth `target`, from the proven period.

        A heap that far has more splits than can be listed: those whose smaller part is within
        the computed values are (`PERIODIC_SPLIT_PARTS`), by increasing smaller part.
        """
        assert self.period is not None
        moves: list[Heaps] = []
        parts = np.arange(1, min(len(self._table), PERIODIC_SPLIT_PARTS + 1), dtype=np.int64)
        pre, period = self.period
        base = pre + period + len(parts)
        # d0 = 4: the heap itself splits, removing nothing
        first = [(0, 4)] if self.splits_without_removal else []
        for k, digit in itertools.chain(first, enumerate(self.digits, start=1)):
            rest = heap - k
            if digit & 2 and self.heap_value(rest) == target:
                moves.append((rest,))
            if digit & 4:
                # a heap past 64 bits: the same values at a small heap of the same residue
                near = rest if rest <= base + period else base + (rest - base) % period
                found = parts[(self._table[parts] ^ self._values_at(near - parts)) == target]
                moves += [(int(a), rest - int(a)) for a in found.tolist()]
        return moves

    def _values_at(self, heaps: np.ndarray) -> np.ndarray:
        """G of many heaps at once, from the table and the proven period."""
        assert self.period is not None
        pre, period = self.period
        index = np.where(heaps >= pre + period, pre + (heaps - pre) % period, heaps)
        return self._table[index]

    @classmethod
    def from_parameters(cls, parameters: str | None) -> OctalGame:
        if not parameters:
            raise SpecError("octal needs a code, e.g. octal:0.77")
        return cls(parameters)


class Bash(OctalGame):
    """The Bash game: remove 1 to M tokens from a heap (the octal game 0.33...3, M threes)."""

    family = "bash"
    parameters = "M, the most tokens one move may take (M >= 1)"
    example = ("bash:3", "10")
    summary = "Bash game: take 1..M"

    def __init__(self, most: int) -> None:
        self.most = most
        super().__init__("0." + "3" * most)

    @property
    def spec(self) -> str:
        return f"bash:{self.most}"

    def closed_form(self, heap: int) -> int | None:
        return heap % (self.most + 1)

    def _table_extend(self, table: np.ndarray, start: int) -> None:
        # G(n) = n mod (M+1); the octal table agrees (tests), this is only faster for big M
        table[start:] = np.arange(start, len(table)) % (self.most + 1)

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Bash:
        if parameters is None:
            raise SpecError("bash needs M, the most tokens a move takes, e.g. bash:3")
        text = parameters.strip()
        most = natural_number(text, context="bad parameter for bash", error=SpecError)
        if most is None or most < 1:
            raise SpecError(f"bad parameter {parameters!r} for bash (expected M >= 1, e.g. bash:3)")
        if most > MAX_DIGITS:
            raise SpecError(f"bash:{text} takes too many tokens a move (M at most {MAX_DIGITS:,})")
        return cls(most)


class Subtraction(OctalGame):
    """A subtraction game: remove s tokens from one heap, s in a finite set S."""

    family = "subtraction"
    parameters = "S, a set of positive integers, e.g. 1,3,4"
    example = ("subtraction:1,3,4", "10,7")
    summary = "subtraction game S (S-Nim)"

    def __init__(self, moves: Sequence[int]) -> None:
        self.moves = tuple(sorted(set(moves)))
        digits = ["0"] * max(self.moves)
        for s in self.moves:
            digits[s - 1] = "3"
        super().__init__("0." + "".join(digits))

    @property
    def spec(self) -> str:
        return "subtraction:" + ",".join(map(str, self.moves))

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Subtraction:
        if parameters is None:
            raise SpecError("subtraction needs a set of moves, e.g. subtraction:1,3,4")
        moves = []
        for item in parameters.split(","):
            move = natural_number(item.strip(), context="bad subtraction set", error=SpecError)
            if not move:  # None (not a number) or 0
                raise SpecError(
                    f"bad subtraction set {parameters!r} (expected positive integers, "
                    "e.g. subtraction:1,3,4)"
                )
            moves.append(move)
        if max(moves) > MAX_DIGITS:
            raise SpecError(
                f"subtraction set {parameters!r} takes too many tokens a move "
                f"(at most {MAX_DIGITS:,})"
            )
        return cls(moves)
