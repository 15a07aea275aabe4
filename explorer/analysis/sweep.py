"""Sweeps over a family of variants (``octal:0.??``, ``subtraction:{1..6}``, ``bash:2..20``):
the specs a pattern names, generated one at a time, and each variant's period as a table row.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from explorer.errors import ExplorerError, SweepError

#: Most variants one sweep may name (``--max-variants`` raises it).
MAX_VARIANTS = 100_000
#: Most numbers a ``{a..b}`` wildcard may hold (it names 2^k - 1 subsets).
MAX_SET = 20

#: A wildcard: every non-empty subset, an integer range, an octal digit; then stray syntax.
_TOKENS = re.compile(r"\{(\d+)\.\.(\d+)\}|(\d+)\.\.(\d+)|(\?)|([{}]|\.\.)", re.ASCII)

Choices = Callable[[], Iterable[str]]


@dataclass(frozen=True)
class SweepRow:
    """One variant of a sweep: its period (None: no period up to `upto`) and largest value."""

    spec: str
    upto: int
    period: int | None
    preperiod: int | None
    saltus: int | None
    status: str
    theorem: str | None
    largest: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "upto": self.upto,
            "period": self.period,
            "preperiod": self.preperiod,
            "saltus": self.saltus,
            "status": self.status,
            "theorem": self.theorem,
            "largest": self.largest,
        }

    def status_text(self) -> str:
        """``proved (Guy-Smith theorem)``, ``observed`` or ``no period up to N``."""
        if self.period is None:
            return f"no period up to {self.upto:,}"
        return f"proved ({self.theorem})" if self.theorem else "observed"


def variants(pattern: str, max_variants: int = MAX_VARIANTS) -> tuple[int, Iterator[str]]:
    """How many specs a sweep pattern names, and the specs, generated one at a time.

    ``?`` is an octal digit (0 or 4 before a point), ``{a..b}`` every non-empty subset of
    a..b (by size, then in order), ``a..b`` every integer from a to b.

    Raises
    ------
    SweepError
        When the pattern names no variant, has a malformed wildcard, or names more than
        `max_variants` specs.

    Examples
    --------
    >>> count, specs = variants("subtraction:{1..3}")
    >>> count, list(specs)[:4]
    (7, ['subtraction:1', 'subtraction:2', 'subtraction:3', 'subtraction:1,2'])
    >>> count, specs = variants("octal:?.?")
    >>> count, list(specs)[-2:]
    (16, ['octal:4.6', 'octal:4.7'])
    """
    wide = next((c for c in pattern if c.isdigit() and not c.isascii()), None)
    if wide is not None:  # as every spec and number refuses them
        raise SweepError(
            f"bad sweep pattern {pattern!r}: {wide!r} is not an ASCII digit (write numbers "
            "with 0-9)"
        )
    pieces: list[Choices] = []
    counts: list[int] = []
    at = 0
    for match in _TOKENS.finditer(pattern):
        literal = pattern[at : match.start()]
        pieces.append(lambda literal=literal: (literal,))  # type: ignore[misc]
        at = match.end()
        subset_lo, subset_hi, lo, hi, digit, stray = match.groups()
        if stray is not None:
            raise SweepError(
                f"bad sweep pattern {pattern!r}: stray {stray!r} (wildcards are ? for an octal "
                "digit, {a..b} for every non-empty subset, a..b for a range)"
            )
        if digit is not None:
            options = ("0", "4") if pattern[match.end() : match.end() + 1] == "." else "01234567"
            pieces.append(lambda options=options: options)  # type: ignore[misc]
            counts.append(len(options))
        elif subset_lo is not None:
            first, last = _range(pattern, subset_lo, subset_hi)
            if last - first + 1 > MAX_SET:
                raise SweepError(
                    f"bad sweep pattern {pattern!r}: {{{subset_lo}..{subset_hi}}} has more than "
                    f"{MAX_SET} numbers"
                )
            pieces.append(lambda first=first, last=last: _subsets(first, last))  # type: ignore[misc]
            counts.append(2 ** (last - first + 1) - 1)
        else:
            first, last = _range(pattern, lo, hi)
            pieces.append(lambda first=first, last=last: map(str, range(first, last + 1)))  # type: ignore[misc]
            counts.append(last - first + 1)
    if not counts:
        raise SweepError(
            f"sweep pattern {pattern!r} names no variants: use ? for an octal digit, {{a..b}} "
            "for every non-empty subset, a..b for a range (e.g. octal:0.??)"
        )
    tail = pattern[at:]
    pieces.append(lambda: (tail,))
    total = math.prod(counts)
    if total > max_variants:
        raise SweepError(
            f"sweep pattern {pattern!r} names {total:,} variants, over the limit of "
            f"{max_variants:,} (raise it with --max-variants)"
        )
    return total, ("".join(parts) for parts in _product(pieces))


def _range(pattern: str, lo: str, hi: str) -> tuple[int, int]:
    first, last = int(lo), int(hi)
    if first > last:
        raise SweepError(f"bad sweep pattern {pattern!r}: the range {lo}..{hi} is empty")
    return first, last


def _subsets(first: int, last: int) -> Iterator[str]:
    numbers = range(first, last + 1)
    for size in range(1, len(numbers) + 1):
        for subset in itertools.combinations(numbers, size):
            yield ",".join(map(str, subset))


def _product(pieces: list[Choices]) -> Iterator[list[str]]:
    """Every choice of one string per piece, the last piece varying fastest; each piece's
    choices are generated afresh, so nothing grows with the number of variants."""
    iterators = [iter(piece()) for piece in pieces]
    current: list[str] = []
    for iterator in iterators:
        first = next(iterator, None)
        if first is None:
            return
        current.append(first)
    while True:
        yield list(current)
        i = len(pieces) - 1
        while i >= 0:
            following = next(iterators[i], None)
            if following is not None:
                current[i] = following
                break
            iterators[i] = iter(pieces[i]())
            current[i] = next(iterators[i])
            i -= 1
        if i < 0:
            return


@dataclass(frozen=True)
class Sweep:
    """Every variant of a sweep, computed (`sweep_variants`)."""

    pattern: str
    upto: int
    rows: list[SweepRow]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern,
            "upto": self.upto,
            "rows": [r.to_dict() for r in self.rows],
        }

    def __repr__(self) -> str:
        return f"<Sweep {self.pattern} up to {self.upto:,}: {len(self.rows):,} variants>"


def sweep_variants(
    pattern: str,
    upto: int,
    *,
    max_variants: int = MAX_VARIANTS,
    max_memory_mb: int | None = None,
) -> Sweep:
    """Every variant of a family `pattern` names, each one's period and status, as one table.

    Examples
    --------
    >>> table = sweep_variants("bash:2..3", 50)
    >>> [(r.spec, r.period) for r in table.rows]
    [('bash:2', 3), ('bash:3', 4)]
    """
    _, rows = sweep(pattern, upto, max_variants=max_variants, max_memory_mb=max_memory_mb)
    return Sweep(pattern, upto, list(rows))


def sweep(
    pattern: str,
    upto: int,
    *,
    max_variants: int = MAX_VARIANTS,
    max_memory_mb: int | None = None,
    workers: int = 1,
) -> tuple[int, Iterator[SweepRow]]:
    """How many variants a pattern names, and each one's row, computed when asked for (only
    the variants being computed are held in memory). `workers` > 1 computes that many variants
    at a time in worker processes (`concurrent.futures`); the rows come in the same order.

    Examples
    --------
    >>> count, rows = sweep("bash:2..4", 50)
    >>> [(r.spec, r.period, r.status_text()) for r in rows]  # doctest: +NORMALIZE_WHITESPACE
    [('bash:2', 3, 'proved (window lemma)'), ('bash:3', 4, 'proved (window lemma)'),
     ('bash:4', 5, 'proved (window lemma)')]
    """
    count, named = variants(pattern, max_variants)
    specs = _games(pattern, named)
    if workers == 1:
        return count, (sweep_row(spec, upto, max_memory_mb) for spec in specs)
    return count, _in_processes(specs, upto, max_memory_mb, workers)


def _games(pattern: str, specs: Iterator[str]) -> Iterator[str]:
    """The specs a pattern names, each loaded once before any row is computed: a pattern naming
    one spec that is not a game is refused whole, not after rows were printed."""
    from explorer.games import load_game

    checked = list(specs)
    for spec in checked:
        try:
            load_game(spec)
        except ExplorerError as error:
            raise SweepError(f"sweep pattern {pattern!r} names {spec!r}: {error}") from None
    return iter(checked)


def _in_processes(
    specs: Iterator[str], upto: int, max_memory_mb: int | None, workers: int
) -> Iterator[SweepRow]:
    """The rows of `specs` in order, `workers` processes computing them, a few variants ahead
    of the one yielded (a bounded window: the pattern may name 100,000 variants)."""
    from collections import deque
    from concurrent.futures import Future, ProcessPoolExecutor

    ahead = 4 * workers
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending: deque[Future[SweepRow]] = deque()
        for spec in specs:
            pending.append(pool.submit(sweep_row, spec, upto, max_memory_mb))
            if len(pending) >= ahead:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def sweep_row(spec: str, upto: int, max_memory_mb: int | None = None) -> SweepRow:
    """The row of one variant: its (arithmetic) period and largest value up to `upto`."""
    from explorer.analysis.patterns import PROVED, analyse
    from explorer.games import load_game

    game = load_game(spec)
    found, values = analyse(game, upto, max_memory_mb)
    period = found.find("period") or found.find("arithmetic-period")
    largest = int(values.max(initial=0))
    if period is None:
        return SweepRow(game.spec, upto, None, None, None, "none", None, largest)
    f = period.fields
    theorem = period.theorem if period.status == PROVED else None
    return SweepRow(
        game.spec,
        upto,
        f["period"],
        f["preperiod"],
        f["saltus"],
        period.status,
        theorem,
        largest,
    )
