"""Take-and-break codes in CGSuite's grammar, the family ``tb:CODE``: digit j says how many
heaps removing j tokens from a heap may leave, and how those heaps may compare.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from explorer.errors import GraphTooLargeError, SpecError
from explorer.games.breaks import BreakSets
from explorer.games.heaps import (
    MAX_DIGITS,
    HeapGame,
    Heaps,
    _mask_of,
    extend_split_table,
    lowest_missing,
    split_mask,
)
from explorer.games.removals import RemovalRule, SplitRules
from explorer.machine import check_memory_need
from explorer.pace import pace

#: Digit characters: the value's bit i allows leaving exactly i heaps (CGSuite stops at V).
DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#: The most heaps an explicit count ``{...}`` may name (as CGSuite).
MAX_HEAP_COUNT = 63
#: Conditions on the heaps a move leaves: none, pairwise unequal, not all equal, all equal.
ANY, UNEQUAL, NOT_ALL_EQUAL, EQUAL = "", "!", "?", "="
#: Most ways, for one heap size, of choosing all but the last two heaps of a break into three
#: or more heaps (each way then costs one numpy step over the last two): a break into many
#: heaps has exponentially many forms, so the values stop there with an error.
MAX_HEADS = 50_000


@dataclass(frozen=True)
class Digit:
    """What removing j tokens may leave: heap counts with their conditions.

    ``counts[i]`` heaps may be left under ``conditions[i]`` (`ANY` for 0 or 1 heap, where no
    condition means anything); ``more`` (if not None) allows every count from ``more`` on,
    under ``more_condition``.
    """

    counts: tuple[int, ...] = ()
    conditions: tuple[str, ...] = ()
    more: int | None = None
    more_condition: str = ANY

    @property
    def is_zero(self) -> bool:
        return not self.counts and self.more is None

    @property
    def max_heaps(self) -> int | None:
        """The most heaps this digit leaves (None: no bound)."""
        return None if self.more is not None else max(self.counts, default=0)

    def allowed(self, total: int) -> Iterator[tuple[int, str]]:
        """The heap counts (with conditions) that `total` tokens may be left as."""
        for count, condition in zip(self.counts, self.conditions, strict=True):
            if count <= total:
                yield count, condition
        if self.more is not None:
            for count in range(self.more, min(2, total + 1)):
                yield count, ANY
            if self.more_condition == EQUAL:  # equal heaps: the counts that divide the total
                counts: Iterable[int] = (c for c in _divisors(total) if c >= self.more)
            else:
                counts = range(max(2, self.more), total + 1)
            for count in counts:
                yield count, self.more_condition

    def conditions_from_two(self) -> set[str]:
        """The conditions on the counts of two heaps or more."""
        found = {c for n, c in zip(self.counts, self.conditions, strict=True) if n >= 2}
        if self.more is not None:
            found.add(self.more_condition)
        return found

    def format(self) -> str:
        """The digit as the code writes it (a character where one says it all)."""
        if self.is_zero:
            return "0"
        kinds = self.conditions_from_two()
        beyond_two = {x for c, x in zip(self.counts, self.conditions, strict=True) if c >= 3}
        if kinds == {UNEQUAL, NOT_ALL_EQUAL} and UNEQUAL not in beyond_two | {self.more_condition}:
            kinds = {NOT_ALL_EQUAL}  # only two heaps are unequal: ? says that of two heaps
        uniform = len(kinds) <= 1
        common = next(iter(kinds)) if kinds else ANY
        mask = sum(1 << c for c in self.counts)
        if self.more is None and uniform and mask < len(DIGITS):
            return DIGITS[mask] + common
        items = list(zip(self.counts, self.conditions, strict=True))
        if self.more is not None:
            items.append((self.more, self.more_condition))
        text = ",".join(str(c) + ("" if uniform else x) for c, x in items)
        return (
            "{" + text + ("+" if self.more is not None else "") + "}" + (common if uniform else "")
        )


def make_digit(items: Sequence[tuple[int, str]], more: bool = False) -> Digit:
    """The canonical digit allowing these (count, condition) pairs; with `more`, the last
    pair's count and every larger one.

    Examples
    --------
    >>> make_digit([(1, ANY), (2, NOT_ALL_EQUAL)]).format()  # for two heaps ? is !
    '6!'
    >>> make_digit([(2, ANY), (3, ANY)], more=True).format()
    '{2+}'
    """
    items = list(items)
    run: tuple[int, str] | None = None
    if more:
        run = items.pop(max(range(len(items)), key=lambda i: items[i][0]))
    table: dict[int, str] = {}
    for count, condition in items:
        if count <= 1:
            condition = ANY  # one heap or none: nothing to compare
        elif count == 2 and condition == NOT_ALL_EQUAL:
            condition = UNEQUAL  # two heaps not both equal are unequal
        table[count] = condition
    if run is not None:
        table.pop(run[0], None)
    ordered = sorted((c, x) for c, x in table.items() if run is None or c < run[0])
    # a run from m after m - 1 under the same condition (or after 0 or 1 heap, where
    # conditions say nothing; or after two unequal heaps, when the run is ?) runs from m - 1
    while run is not None and ordered and ordered[-1][0] == run[0] - 1:
        count, condition = ordered[-1]
        same = condition == run[1] or (count, condition, run[1]) == (2, UNEQUAL, NOT_ALL_EQUAL)
        if not (same or count <= 1):
            break
        ordered.pop()
        run = (count, run[1])
    return Digit(
        tuple(c for c, _ in ordered),
        tuple(x for _, x in ordered),
        None if run is None else run[0],
        ANY if run is None else run[1],
    )


ZERO = Digit()


@dataclass(frozen=True)
class Code:
    """A take-and-break code: d0 (removing nothing), d1..dk, and a tail repeated for ever."""

    d0: Digit
    digits: tuple[Digit, ...]
    tail: tuple[Digit, ...] = ()

    def digit(self, removed: int) -> Digit:
        """The digit for removing `removed` tokens."""
        if removed == 0:
            return self.d0
        if removed <= len(self.digits):
            return self.digits[removed - 1]
        if self.tail:
            return self.tail[(removed - len(self.digits) - 1) % len(self.tail)]
        return ZERO

    def every_digit(self) -> tuple[Digit, ...]:
        return (self.d0, *self.digits, *self.tail)

    def format(self) -> str:
        body = "".join(d.format() for d in self.digits)
        if self.tail:
            body += "[" + "".join(d.format() for d in self.tail) + "]"
        return self.d0.format() + "." + (body or "0")


def canonical_code(d0: Digit, digits: Sequence[Digit], tail: Sequence[Digit]) -> Code:
    """The code with its tail shortest and earliest and no trailing zero digits.

    Examples
    --------
    >>> three = make_digit([(0, ANY), (1, ANY)])
    >>> canonical_code(ZERO, [three, three], [three, three]).format()
    '0.[3]'
    >>> canonical_code(ZERO, [three, ZERO], []).format()
    '0.3'
    """
    body = list(digits)
    cycle = list(tail)
    if all(d.is_zero for d in cycle):
        cycle = []
    if cycle:
        size = len(cycle)
        period = next(
            p for p in range(1, size + 1) if size % p == 0 and cycle == cycle[:p] * (size // p)
        )
        cycle = cycle[:period]
        while body and body[-1] == cycle[-1]:  # the tail starts one digit earlier
            cycle = [body.pop(), *cycle[:-1]]
    else:
        while body and body[-1].is_zero:
            body.pop()
    return Code(d0, tuple(body), tuple(cycle))


_MODIFIERS = "!?="


def _read_digit(text: str, at: int, code: str) -> tuple[Digit, int]:
    """The digit starting at text[at], and where the next one starts."""
    char = text[at]
    if char == "{":
        end = text.find("}", at)
        if end < 0:
            raise SpecError(f"bad take-and-break code {code!r}: a '{{' has no '}}'")
        digit, after = _read_list(text[at + 1 : end], code), end + 1
        common = text[after] if after < len(text) and text[after] in _MODIFIERS else ""
        if common:
            if any(x != ANY for _, x in digit[0]):
                raise SpecError(
                    f"bad take-and-break code {code!r}: a condition both inside and after "
                    f"{text[at:after]!r} (put it in one place)"
                )
            digit = ([(c, common) for c, _ in digit[0]], digit[1])
        return make_digit(*digit), after + len(common)
    if char == "&":
        end = text.find(";", at)
        number = text[at + 1 : end] if end > 0 else ""
        if not number.isdigit() or int(number) >= 1 << (MAX_HEAP_COUNT + 1):
            raise SpecError(f"bad take-and-break code {code!r}: expected &N; with N < 2^64")
        mask, after = int(number), end + 1
        counts = [i for i in range(mask.bit_length()) if mask >> i & 1]
        more = False
    elif char == "*":
        counts, more, after = [0], True, at + 1
    elif char.upper() in DIGITS:
        mask, after = DIGITS.index(char.upper()), at + 1
        counts = [i for i in range(mask.bit_length()) if mask >> i & 1]
        more = False
    else:
        raise SpecError(
            f"bad take-and-break code {code!r}: unexpected {char!r} (digits are 0-9 and A-Z, "
            "or {2,3} and {2+} heap counts, each maybe followed by !, ? or =)"
        )
    condition = text[after] if after < len(text) and text[after] in _MODIFIERS else ANY
    after += len(condition)
    return make_digit([(c, condition) for c in counts], more) if counts else ZERO, after


def _read_list(inside: str, code: str) -> tuple[list[tuple[int, str]], bool]:
    """The (count, condition) items of ``{...}`` and whether it ends with '+'."""
    more = inside.endswith("+")
    items = []
    for item in (inside[:-1] if more else inside).split(","):
        match = re.fullmatch(r"\s*(\d+)\s*([!?=]?)\s*", item)
        if not match:
            raise SpecError(
                f"bad heap counts {{{inside}}} in {code!r} (expected counts like {{2,3}} or {{2+}})"
            )
        count = int(match.group(1))
        if count > MAX_HEAP_COUNT:
            raise SpecError(f"{code!r} leaves {count} heaps (at most {MAX_HEAP_COUNT} in {{...}})")
        items.append((count, match.group(2)))
    return items, more


def _read_digits(text: str, code: str) -> list[Digit]:
    digits = []
    at = 0
    while at < len(text):
        digit, at = _read_digit(text, at, code)
        digits.append(digit)
    return digits


def parse_code(text: str) -> Code:
    """Read a take-and-break code (CGSuite's grammar), canonical.

    Examples
    --------
    >>> parse_code("4!.3303").format()
    '4!.3303'
    >>> parse_code("0.030[3]").format(), parse_code("0.{0,1}{0,1}[3]").format()
    ('0.030[3]', '0.[3]')
    """
    code = text.strip()
    before, point, after = code.partition(".")
    if not point or not before:
        raise SpecError(f"bad take-and-break code {text!r} (expected d0.d1d2..., e.g. 4!.3303)")
    first = _read_digits(before, code)
    if any(not d.is_zero for d in first[:-1]):
        raise SpecError(
            f"take-and-break code {text!r} adds tokens (more than one digit before the point): "
            "not supported"
        )
    d0 = first[-1]
    if any(c == 1 for c, _ in d0.allowed(1)):
        raise SpecError(
            f"take-and-break code {text!r}: a d0 leaving one heap would leave the heap as it is, "
            "and play could go on for ever (d0 may only split: 4, 8, C, ...)"
        )
    kept = [(c, x) for c, x in zip(d0.counts, d0.conditions, strict=True) if c >= 2]
    d0 = Digit(tuple(c for c, _ in kept), tuple(x for _, x in kept), d0.more, d0.more_condition)
    if "[" in after:
        head, bracket, rest = after.partition("[")
        if not rest.endswith("]") or "[" in rest[:-1] or "]" in rest[:-1] or not rest[:-1]:
            raise SpecError(f"bad take-and-break code {text!r}: the tail is [digits] at the end")
        digits, tail = _read_digits(head, code), _read_digits(rest[:-1], code)
    else:
        if "]" in after:
            raise SpecError(f"bad take-and-break code {text!r}: a ']' without '['")
        digits, tail = _read_digits(after, code), []
    if len(digits) + len(tail) > MAX_DIGITS:
        raise SpecError(
            f"take-and-break code of {len(digits) + len(tail):,} digits is too long "
            f"(at most {MAX_DIGITS:,})"
        )
    return canonical_code(d0, digits, tail)


def _heads(
    total: int, count: int, fixed: int, distinct: bool
) -> Iterator[tuple[tuple[int, ...], int]]:
    """The first `fixed` heaps (non-decreasing; increasing if `distinct`) of the ways to break
    `total` tokens into `count` non-empty heaps, each with the tokens left for the others."""
    step = int(distinct)

    def least(x: int, r: int) -> int:  # the fewest tokens r heaps from x upward take
        return r * x + step * r * (r - 1) // 2

    if count < 1 or least(1, count) > total:
        return
    if fixed == 0:
        yield (), total
        return
    parts = [1] * fixed
    left = [total] * (fixed + 1)
    i = 0
    while i >= 0:
        if least(parts[i], count - i) > left[i]:
            i -= 1
            if i >= 0:
                parts[i] += 1
            continue
        if i == fixed - 1:
            yield tuple(parts), left[i] - parts[i]
            parts[i] += 1
            continue
        left[i + 1] = left[i] - parts[i]
        parts[i + 1] = parts[i] + step
        i += 1


def breaks(total: int, count: int, condition: str) -> Iterator[Heaps]:
    """The ways (sorted heaps) to leave `total` tokens as `count` non-empty heaps under
    `condition`.

    Examples
    --------
    >>> list(breaks(6, 3, ANY)), list(breaks(6, 3, UNEQUAL)), list(breaks(6, 3, NOT_ALL_EQUAL))
    ([(1, 1, 4), (1, 2, 3), (2, 2, 2)], [(1, 2, 3)], [(1, 1, 4), (1, 2, 3)])
    """
    if count == 0:
        if total == 0:
            yield ()
        return
    if count == 1 or condition == EQUAL:
        if total >= count and total % count == 0:
            yield (total // count,) * count
        return
    for head, last in _heads(total, count, count - 1, condition == UNEQUAL):
        if condition == NOT_ALL_EQUAL and head[0] == last:
            continue  # every heap equal
        yield (*head, last)


def _divisors(n: int) -> list[int]:
    """The divisors of n >= 2 that are at least 2, in increasing order (none for n < 2).

    Examples
    --------
    >>> _divisors(12), _divisors(7), _divisors(1)
    ([2, 3, 4, 6, 12], [7], [])
    """
    low = [d for d in range(2, math.isqrt(n) + 1) if n % d == 0]
    high = [n // d for d in reversed(low) if d * d != n]
    return [*low, *high, *([n] if n >= 2 else [])]


class TakeBreak(HeapGame):
    """A take-and-break game given by its code, as CGSuite's ``TakeAndBreak``.

    Digit j (0-9, A-Z) is a sum of powers of two: 2^i allows removing j tokens from a heap and
    leaving exactly i non-empty heaps (1: take a whole heap of j; 2: leave one heap; 4: two;
    8: three...). ``{2,3}`` lists heap counts, ``{2+}`` allows 2 or more. After a digit, ``!``
    asks the heaps left to be pairwise unequal, ``?`` not all equal, ``=`` all equal (none of
    them says anything of one heap or none). d0, before the point, removes nothing, so it may
    only split. A ``[tail]`` is repeated for ever: ``0.[3]`` is Nim.

    Values: codes that leave at most two heaps, all splits alike, and finitely many non-zero
    digits run on the compiled sequence engine as octal games do; the others on a numpy
    table (breaks into three heaps or more are listed, the last two heaps at once).
    Periods are *proven* only for codes with finitely many non-zero digits and no condition
    on the heaps left: the Guy-Smith theorem (two heaps) and its generalisation to at most h
    heaps, h (n0 + p) + k values for removals up to k (the same proof: the largest heap of a
    break of n + p - k is at least (n + p - k) / h). A condition such as ``!`` breaks that
    proof (Grundy's game, ``4!.0``, has no known period), and so does an endless tail or
    ``{2+}``: their periods are only *observed*.
    """

    family = "tb"
    parameters = (
        "a take-and-break code d0.d1d2... (CGSuite's grammar): digits 0-9, A-Z, heap counts "
        "{2,3} or {2+}, conditions ! ? =, a [tail] repeated for ever, e.g. 4!.3303"
    )
    example = ("tb:4!.3303", "5,7")
    summary = "take-and-break codes (0.77 Kayles, 4!.0 Grundy's game, 0.[3] Nim, 0.{3} ...)"

    def __init__(self, code: str) -> None:
        super().__init__()
        self.code = parse_code(code)
        everything = self.code.every_digit()
        heaps = [d.max_heaps for d in everything]
        self.splits = any(h is None or h >= 2 for h in heaps)
        self.takes_one = {0, 1} <= {c for c, _ in self.code.digit(1).allowed(1)}
        finite = not self.code.tail and None not in heaps
        free = not any(d.conditions_from_two() - {ANY} for d in everything)
        if finite and free:
            most = max([2, *(h for h in heaps if h is not None)])
            self.periodicity = (len(self.code.digits), 1 if self.splits else 0, most)
        self.split_rules = self._split_rules()
        self._break_cache: dict[tuple[Digit, int], int] = {}
        self._runs: dict[Digit, list[int]] = {}
        # breaks into three heaps or more with no condition: from sets grown total by total
        exact = [
            c
            for d in everything
            for c, x in zip(d.counts, d.conditions, strict=True)
            if c >= 3 and not x
        ]
        runs = [max(d.more, 2) for d in everything if d.more is not None and not d.more_condition]
        self._sets: BreakSets | None = None
        if exact or runs:
            self._sets = BreakSets(
                exact=max(exact, default=0),
                run=max(runs, default=0),
                max_memory_mb=self.max_memory_mb,
                name=self.spec,
            )

    def _split_rules(self) -> SplitRules | None:
        """The rules as the compiled kernel reads them, when the code fits: finitely many
        digits, at most two heaps left, every split under the same condition (! or none)."""
        code = self.code
        if code.tail:
            return None
        kinds: set[str] = set()
        for digit in code.every_digit():
            if digit.max_heaps is None or digit.max_heaps > 2:
                return None
            kinds |= digit.conditions_from_two()
        if len(kinds) > 1 or EQUAL in kinds:
            return None

        def removals(count: int) -> tuple[int, ...]:
            return tuple(j for j in range(len(code.digits) + 1) if count in code.digit(j).counts)

        return SplitRules(
            leave_one=removals(1),
            take_all=removals(0),
            split_after=removals(2),
            unequal=UNEQUAL in kinds,
        )

    @property
    def spec(self) -> str:
        return f"tb:{self.code.format()}"

    @property
    def max_removal(self) -> int | None:
        """The most tokens a move removes (None: no bound, the code has a tail)."""
        return None if self.code.tail else len(self.code.digits)

    def removal_rule(self) -> RemovalRule | None:
        """The removal rule of a code whose moves only take tokens, leaving one heap or none
        (digits 0-3, a tail of 3s: the all-but games), for the periodicity proofs that read
        it; None for a code that splits heaps.

        Examples
        --------
        >>> TakeBreak("0.030[3]").removal_rule() == RemovalRule.all_but([1, 3])
        True
        >>> TakeBreak("4!.3303").removal_rule() is None
        True
        """
        code = self.code
        if self.splits or not code.d0.is_zero:
            return None
        if any(set(d.counts) != {0, 1} or d.more is not None for d in code.tail):
            return None
        leave = frozenset(k for k, d in enumerate(code.digits, 1) if 1 in d.counts)
        take = frozenset(k for k, d in enumerate(code.digits, 1) if 0 in d.counts)
        return RemovalRule(leave, take, len(code.digits) + 1 if code.tail else None)

    def heap_moves(self, heap: int) -> Iterator[Heaps]:
        last = heap if self.max_removal is None else min(heap, self.max_removal)
        for removed in range(last + 1):
            digit = self.code.digit(removed)
            for count, condition in digit.allowed(heap - removed):
                yield from breaks(heap - removed, count, condition)

    # values ---------------------------------------------------------------
    def _table_extend(self, table: np.ndarray, start: int) -> None:
        if self.split_rules is not None:
            extend_split_table(table, start, self.split_rules)
            return
        code = self.code
        tail = code.tail
        need = len(table) * (8 + 48 * len(set(tail)))
        what = f"the values of {self.spec} up to heap {len(table) - 1:,} need"
        check_memory_need(need, self.max_memory_mb, what, option="--max-memory")
        finite = [(j, d) for j, d in enumerate((code.d0, *code.digits)) if not d.is_zero]
        first_tail = len(code.digits) + 1
        period = len(tail)
        sets = self._sets
        if sets is not None:
            sets.max_memory_mb = self.max_memory_mb  # as --max-memory set it
            sets.prepare(table, start)
        self._fill_runs(table, start)
        longest = len(code.digits)
        check = pace(what.removesuffix(" need"), len(table))
        for n in range(start, len(table)):
            check(n)
            if sets is not None:
                sets.extend(table, n, upper=True)
            mask = 0
            for removed, digit in finite:
                if removed > n:
                    break
                mask |= self._digit_mask(digit, n - removed, table, cache=removed > 0)
            for i, digit in enumerate(tail):
                if n - first_tail - i >= 0:
                    mask |= self._runs[digit][n - first_tail - i]
            table[n] = lowest_missing(mask)
            if sets is not None:
                sets.extend(table, n, upper=False)
            self._extend_runs(table, n, period)
            self._break_cache_drop(n - longest - 1)

    def _break_cache_drop(self, total: int) -> None:
        for key in [k for k in self._break_cache if k[1] == total]:
            del self._break_cache[key]

    def _fill_runs(self, table: np.ndarray, stop: int) -> None:
        """Bring every tail digit's run masks up to heap `stop` - 1 (they may lag behind values
        adopted from elsewhere)."""
        for digit in set(self.code.tail):
            run = self._runs.setdefault(digit, [])
            if len(run) > stop:
                del run[stop:]
        for n in range(min((len(r) for r in self._runs.values()), default=stop), stop):
            self._extend_runs(table, n, len(self.code.tail))

    def _extend_runs(self, table: np.ndarray, n: int, period: int) -> None:
        """Run masks at n: the values a tail digit reaches from totals n, n - p, n - 2p, ..."""
        for digit, run in self._runs.items():
            if len(run) == n:
                mask = self._digit_mask(digit, n, table, cache=False)
                run.append(mask | (run[n - period] if n >= period else 0))

    def _digit_mask(self, digit: Digit, total: int, table: np.ndarray, *, cache: bool) -> int:
        """The values (a bit mask) `digit` reaches from `total` tokens left."""
        mask = 0
        for count, _ in digit.allowed(total):
            if count == 0:
                mask |= total == 0
            elif count == 1:
                mask |= 1 << int(table[total])
        key = (digit, total)
        found = self._break_cache.get(key) if cache else None
        if found is None:
            found = self._break_mask(digit, total, table)
            if cache:
                self._break_cache[key] = found
        return mask | found

    def _break_mask(self, digit: Digit, total: int, table: np.ndarray) -> int:
        """The values `digit` reaches from `total` tokens left as two heaps or more."""
        mask = 0
        heads = 0
        listed = total + 1
        if self._sets is not None and digit.more is not None and digit.more_condition == ANY:
            listed = max(digit.more, 2)  # every count from there on, at once
            if listed <= total:
                mask |= self._sets.run_mask(listed, total)
        for count, condition in digit.allowed(total):
            if count < 2 or count >= listed:
                continue
            if condition == EQUAL:
                if total % count == 0:
                    mask |= 1 << (int(table[total // count]) if count & 1 else 0)
                continue
            distinct = condition == UNEQUAL
            if count == 2:  # two heaps not all equal are unequal
                mask |= split_mask(table, total, unequal=condition != ANY)
                continue
            if condition == ANY and self._sets is not None:
                mask |= self._sets.exact_mask(count, total)
                continue
            for head, left in _heads(total, count, count - 2, distinct):
                heads += 1
                if heads > MAX_HEADS:
                    raise GraphTooLargeError(
                        f"{self.spec}: a heap breaks into {count} heaps in too many ways "
                        f"at {total:,} tokens (over {MAX_HEADS:,} to list): ask for fewer values",
                        MAX_HEADS,
                    )
                low = head[-1] + distinct
                high = (left - 1) // 2 if distinct else left // 2
                if high < low:
                    continue
                value = 0
                for h in head:
                    value ^= int(table[h])
                parts = np.arange(low, high + 1)
                values = table[parts] ^ table[left - parts] ^ value
                if condition == NOT_ALL_EQUAL and head[0] == low and left == 2 * low:
                    values = values[1:]  # (low, low) after a head all of low: every heap equal
                mask |= _mask_of(values)
        return mask

    def _heap_moves_to_value(self, heap: int, target: int) -> list[Heaps]:
        if heap >= len(self._table) and self.period is not None:
            return self._far_moves_to_value(heap, target)
        return super()._heap_moves_to_value(heap, target)

    @classmethod
    def from_parameters(cls, parameters: str | None) -> TakeBreak:
        if not parameters:
            raise SpecError("tb needs a take-and-break code, e.g. tb:4!.3303")
        return cls(parameters)
