"""Value sequences of one-parameter games (heaps, strips, rows) and their periodicity.

`value_sequence` computes G(0..N) (splitting heap games through the compiled sparse-space
kernel), proves the period of octal games by the Guy-Smith theorem as soon as the values allow,
and answers the values past the proof from the period; `find_period` reads a period off values.

Memory stays near the values: 2 bytes a value, and 4 bytes a candidate period while the period
is looked for, beside about 180 MiB of Python, numpy and the kernels (Grundy's game to 2^24
peaked at 246 MiB, whole process; ``tests/benchmarks/bench_sequences.py``). ``octal:0.16`` is
proven to have preperiod 105,351 and period 149,459 from 509,622 values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from explorer.analysis.solving import finite_value, searching
from explorer.errors import SpecError
from explorer.games.arguments import as_count, as_game
from explorer.games.base import Game, HeapRules
from explorer.solver.periods import observed_period, proof_length
from explorer.solver.sparse import (
    BLOCK,
    HeapSequence,
    Progress,
    SummaryRows,
    check_memory,
    fletcher32,
    guy_smith,
    heap_sequence,
    summary_rows,
)


@dataclass(frozen=True)
class ValueSequence:
    """G(start), ..., G(upto) with the period found, if any.

    ``values`` holds G(start..upto); G(0..computed-1) were computed (or read from the database,
    ``stored`` of them), and every value from ``computed`` on follows from the proven period.
    """

    game: str
    values: np.ndarray
    period: int | None
    preperiod: int | None
    proven: bool
    start: int = 0
    computed: int = 0
    method: str = "table"
    stored: int = 0
    #: For a game whose period a theorem can prove, and has not yet: how many values the
    #: proof needs (of the period the values show), or 0 when they show none yet.
    needed: int | None = None
    #: The public tables' summary rows of the computed values G(0..computed-1) (of the values
    #: shown, from G(0), when nothing was computed), or None when they are not at hand.
    rows: SummaryRows | None = None

    @property
    def upto(self) -> int:
        return self.start + len(self.values) - 1

    @property
    def symbol(self) -> str:
        """What the values are called: ``G`` (Grundy values), or ``R`` for the values of a
        reduction (method ``reduction``), which are 0 exactly on P-positions and no more."""
        return "R" if self.method == "reduction" else "G"

    @property
    def checksum(self) -> int | None:
        """Fletcher-32 of the values shown, as 16-bit words (None when one does not fit)."""
        if len(self.values) and int(self.values.max()) > 0xFFFF:
            return None
        return fletcher32(self.values)

    def to_dict(self, *, values: bool = True) -> dict[str, object]:
        """The JSON contract of ``explorer sequence --json`` (without the values when `values`
        is false: the CLI streams them)."""
        checksum = self.checksum
        return {
            "game": self.game,
            "start": self.start,
            "upto": self.upto,
            **({"values": self.values.tolist()} if values else {}),
            "period": self.period,
            "preperiod": self.preperiod,
            "proven": self.proven,
            "computed": self.computed,
            "method": self.method,
            "stored": self.stored,
            "checksum": None if checksum is None else f"{checksum:08x}",
            **(self.rows.to_dict() if self.rows is not None else {"largest": None, "rare": None}),
        }

    def rows_text(self) -> str | None:
        """The summary rows as one line, or None when there are none."""
        rows = self.rows
        if rows is None:
            return None
        last = (self.computed or len(self.values)) - 1
        text = f"over {self.symbol}(0..{last:,}): largest {rows.largest:,} at {rows.at:,}"
        if rows.mask is not None:
            text += (
                f"; rare mask {rows.mask_text}: {rows.rare:,} rare positions, the last at "
                f"{rows.last:,}"
            )
        return text

    def summary(self) -> str:
        """One line: the period found and whether it is proven."""
        last = self.start + len(self.values) - 1 if self.computed == 0 else self.computed - 1
        if self.needed == 0:
            return (
                f"no period up to {last:,}: the Guy-Smith theorem needs 2n0 + p + k values for "
                f"a period p from n0; try --upto {2 * (last + 1)}"
            )
        if self.period is None:
            return "no period found in these values"
        if self.proven:
            return f"period {self.period}, preperiod {self.preperiod}: proven (Guy-Smith theorem)"
        if self.needed is not None:
            return (
                f"period {self.period}, preperiod {self.preperiod}: observed, not proven up to "
                f"{last:,}; the Guy-Smith theorem needs {self.needed:,} values: try "
                f"--upto {self.needed - 1}"
            )
        return (
            f"period {self.period}, preperiod {self.preperiod}: observed to G({last}), not proven"
        )

    def __repr__(self) -> str:
        """One line, never the values: the range, the period and the checksum."""
        checksum = self.checksum
        return (
            f"<ValueSequence {self.game} G({self.start}..{self.upto}): {self.summary()}"
            + ("" if checksum is None else f", checksum {checksum:08x}")
            + ">"
        )


def find_period(values: list[int] | np.ndarray) -> tuple[int, int] | None:
    """The (preperiod, period) the values show, or None.

    The smallest period p is taken whose periodic stretch (from the preperiod to the end)
    covers at least half of the values and at least three periods; the preperiod is the first
    index from which G(n + p) = G(n) holds to the end.

    Examples
    --------
    >>> find_period([5, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
    (1, 3)
    >>> find_period([0, 1, 2, 3, 4, 5]) is None
    True
    """
    v = np.asarray(values)
    return observed_period(v, len(v))


def value_sequence(
    game: Game[Any] | str,
    upto: int,
    *,
    start: int = 0,
    until_periodic: bool = False,
    known: np.ndarray | None = None,
    progress: Progress | None = None,
    checkpoint: Callable[[np.ndarray, int], None] | None = None,
    max_memory_mb: int | None = None,
    workers: int = 1,
) -> ValueSequence:
    """G(start), ..., G(upto) of a one-parameter game, with its period when one shows.

    Supported: heap games (G of one heap of n) and games with a ``sequence_position(n)``
    method (a strip of n cells, a row with one coin at n). For octal games the values are
    computed only until the Guy-Smith theorem proves a period; the rest follow from it.
    With `until_periodic`, the values stop there (`upto` is then only the bound). `workers`
    threads share the compiled kernel's work (the same values, the same checksum).

    `game` is a `Game` or its spec; anything else raises `ArgumentTypeError`.

    Examples
    --------
    >>> value_sequence("kayles", 2000).period
    12
    >>> from explorer import load_game
    >>> seq = value_sequence(load_game("subtraction:1,2,3"), 20)
    >>> seq.values[:8].tolist(), seq.period, seq.preperiod, seq.proven, seq.computed
    ([0, 1, 2, 3, 0, 1, 2, 3], 4, 0, True, 11)
    >>> value_sequence(load_game("kayles"), 10**18, start=10**18).values.tolist()
    [1]
    """
    game = as_game(game)
    upto, start = as_count(upto, "upto"), as_count(start, "start")
    if upto < 0 or start < 0:
        raise SpecError(f"--upto must be non-negative, got {upto}")
    if start > upto:
        raise SpecError(f"--from {start} is past --upto {upto}")
    heaps = game.heap_rules()
    if heaps is not None:
        return _heap_value_sequence(
            heaps, upto, start, until_periodic, known, progress, checkpoint, max_memory_mb, workers
        )
    if game.sequence_position(0) is None:
        raise SpecError(
            f"{game.spec} has no one-parameter positions (sequences are for heap games, "
            "treblecross strips, coin rows and games on graphs given a form: nodekayles:P, "
            '@explorer.graph_game(form="P"))'
        )
    check_memory(upto, max_memory_mb or 2048)
    positions = [game.sequence_position(n) for n in range(upto + 1)]
    with searching():  # boards and graphs: the pruned search
        values = np.array([finite_value(game, p) for p in positions], dtype=np.int64)
    found = observed_period(values, len(values))
    pre, period = found if found is not None else (None, None)
    # a reduction (treblecross's safe runs) keeps the outcome, not the value: said apart
    reduced = any(not parts.exact for parts in map(game.decompose, positions) if parts)
    return ValueSequence(
        game.spec,
        values[start:],
        period,
        pre,
        False,
        start,
        len(values),
        "reduction" if reduced else "graph",
        rows=summary_rows(values, None),
    )


def _heap_value_sequence(
    game: HeapRules,
    upto: int,
    start: int,
    until_periodic: bool,
    known: np.ndarray | None,
    progress: Progress | None,
    checkpoint: Callable[[np.ndarray, int], None] | None,
    max_memory_mb: int | None,
    workers: int = 1,
) -> ValueSequence:
    limit = max_memory_mb or game.max_memory_mb
    if not until_periodic:  # the values shown; a run itself checks what it allocates
        check_memory(upto - start, limit)
    if game.closed_form(upto) is not None:
        # a proven formula: nothing to compute, every value follows from it
        values = np.fromiter(
            (game.closed_form(n) for n in range(start, upto + 1)), np.int64, upto - start + 1
        )
        found = observed_period(values, len(values)) if start == 0 else None
        pre, period = found if found is not None else (None, None)
        rows = summary_rows(values, game.split_rules) if start == 0 else None
        return ValueSequence(
            game.spec, values, period, pre, found is not None, start, 0, "closed form", rows=rows
        )
    # octal games stop computing at a proof; the values asked for past it follow from it
    result: HeapSequence = heap_sequence(
        game,
        upto,
        until_periodic=guy_smith(game) is not None,
        known=known,
        progress=progress,
        checkpoint=checkpoint,
        max_memory_mb=limit,
        workers=workers,
    )
    computed = result.computed
    rows = summary_rows(result.values, game.split_rules)
    if result.proof is not None:
        pre, period = result.proof
        game.adopt(result.values, result.proof)
        last = min(upto, computed - 1) if until_periodic else upto
        if until_periodic:
            start = min(start, last)
        values = _from_period(result.values, pre, period, start, last)
        return ValueSequence(
            game.spec,
            values,
            period,
            pre,
            True,
            start,
            computed,
            result.method,
            result.stored,
            rows=rows,
        )
    game.adopt(result.values)
    found = observed_period(result.values, computed)
    pre, period = found if found is not None else (None, None)
    theorem = guy_smith(game)
    needed = None
    if theorem is not None:
        needed = 0 if found is None else proof_length(*found, theorem)
    return ValueSequence(
        game.spec,
        result.values[start : upto + 1],
        period,
        pre,
        False,
        start,
        computed,
        result.method,
        result.stored,
        needed,
        rows,
    )


def _from_period(values: np.ndarray, pre: int, period: int, start: int, last: int) -> np.ndarray:
    """G(start..last) from the computed values and the period they prove (a block of indexes
    at a time: the result is the only array as long as the range)."""
    shown = np.empty(last - start + 1, dtype=values.dtype)
    for first in range(start, last + 1, BLOCK):
        n = np.arange(first, min(first + BLOCK, last + 1), dtype=np.int64)
        index = np.where(n >= pre + period, pre + (n - pre) % period, n)
        shown[first - start : first - start + n.size] = values[index]
    return shown


class SequenceStore(Protocol):
    """Where a game's sequence is kept (`explorer.storage.StoredGame`, ``db.game(spec)``)."""

    def sequence(self) -> Any: ...

    def save_sequence(
        self,
        values: Any,
        computed: int,
        *,
        period: tuple[int, int] | None = None,
        checksum: int,
        method: str,
    ) -> None: ...


def stored_value_sequence(
    store: SequenceStore,
    game: Game[Any],
    upto: int,
    *,
    start: int = 0,
    until_periodic: bool = False,
    progress: Progress | None = None,
    max_memory_mb: int | None = None,
    workers: int = 1,
) -> ValueSequence:
    """`value_sequence`, continuing from the values `store` holds and storing what it computes
    (every few seconds while it runs, so that a killed run resumes from its last save).

    Examples
    --------
    >>> from explorer import load_game
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> kayles = load_game("kayles")
    >>> stored_value_sequence(db.game(kayles), kayles, 1000).computed
    168
    >>> again = stored_value_sequence(db.game(kayles), kayles, 1000)
    >>> again.method, again.stored, again.period
    ('stored', 168, 12)
    >>> db.close()
    """
    heaps = game.heap_rules()
    if heaps is None or heaps.closed_form(0) is not None:
        return value_sequence(
            game, upto, start=start, until_periodic=until_periodic, max_memory_mb=max_memory_mb
        )
    stored = store.sequence()
    known = None if stored is None else stored.values

    def checkpoint(values: np.ndarray, done: int) -> None:
        part = values[:done]
        store.save_sequence(part, done, checksum=fletcher32(part), method="partial")

    result = value_sequence(
        game,
        upto,
        start=start,
        until_periodic=until_periodic,
        known=known,
        progress=progress,
        checkpoint=checkpoint,
        max_memory_mb=max_memory_mb,
        workers=workers,
    )
    had = 0 if stored is None else len(stored.values)
    newly_proven = result.proven and (stored is None or stored.period is None)
    if result.computed > had or newly_proven:
        values = heaps.heap_values(result.computed - 1)[: result.computed]
        if int(values.max(initial=0)) <= 0xFFFF:
            period = (result.preperiod, result.period) if result.proven else None
            store.save_sequence(
                values,
                result.computed,
                period=period,  # type: ignore[arg-type]
                checksum=fletcher32(values),
                method=result.method,
            )
    return result
