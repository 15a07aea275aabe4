"""Patterns of games on two numbers (two heaps, Wythoff, ...) in their value table G(a, b):
P-positions on a diagonal or on Beatty pairs with a named quadratic irrational, sums
G(a, b) = G(a, 0) xor G(0, b), and rows that are ultimately (arithmetic-)periodic.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.errors import ExplorerError, GraphTooLargeError, SpecError
from explorer.games.base import Game
from explorer.solver.periodicity import observed_arithmetic_period

if TYPE_CHECKING:
    from explorer.analysis.patterns import Pattern

#: Fewest Beatty pairs (below the table's corner) before a fit is reported.
MIN_PAIRS = 8
#: Rows of a table compared at a time with the sum of its first row and column.
SUM_ROWS = 64
#: Rows (and columns) whose periods are looked for.
ROWS = 10
#: Largest denominator, coefficient of the root, and number under it, when naming alpha.
MAX_DENOMINATOR = 12
MAX_ROOT_COEFFICIENT = 6
MAX_RADICAND = 30
#: Widest interval of alphas that fit, for a name to be given to one of them.
WIDEST_NAMED = 0.05
#: The Sprague-Grundy theorem, as a sum pattern names it.
SPRAGUE_GRUNDY = "Sprague-Grundy theorem (the game is a sum of two games)"
#: Most memory a table may take by default, in MiB.
DEFAULT_TABLE_MEMORY_MB = 2048


def two_number_table(
    game: Game[Any], upto: int, max_memory_mb: int | None = None
) -> tuple[np.ndarray, str | None]:
    """G(a, b) for a, b <= upto (-1 where (a, b) is not a position), and the theorem that
    makes it a sum when the game says its positions are sums of two parts.

    A position of two numbers is written ``a,b`` (Wythoff, two heaps), or ``a + b`` for a sum
    of two one-number games.

    Examples
    --------
    >>> from explorer import load_game
    >>> table, theorem = two_number_table(load_game("nim + subtraction:1,2"), 3)
    >>> table[2].tolist(), theorem is not None
    ([2, 3, 0, 2], True)
    """
    from explorer.analysis.solving import value_array

    side = upto + 1
    limit = max_memory_mb or DEFAULT_TABLE_MEMORY_MB
    summands = game.summands()
    if summands is not None and len(summands) == 2:  # positions a + b, not a,b
        if 8 * side * side > limit * 2**20:
            raise GraphTooLargeError(
                f"a table of {side:,} x {side:,} cells is over the limit of {limit:,} MiB "
                "(raise it with --memory)",
                limit,
            )
        text = "{} + {}"
        table = _sum_table(summands, side)
        if (table < 0).all():
            raise SpecError(
                f"{game.spec} has no positions named by one or two numbers (patterns are for "
                "heap games, strips, coin rows and games on two numbers such as wythoff)"
            )
    else:
        text = "{},{}"
        table = value_array(game, side, side, max_memory_mb=limit)
    theorem = None
    try:
        parts = game.decompose(game.parse(text.format(1, 1)))
        if parts is not None and parts.exact and len(parts.parts) == 2:
            theorem = SPRAGUE_GRUNDY
    except ExplorerError:
        pass
    return table, theorem


def _sum_table(parts: tuple[Game[Any], ...], side: int) -> np.ndarray:
    """G(a + b) = G(a) xor G(b), a, b < side, of a sum of two games on one number, from the
    values of each (-1 past a part's first number that is not a position)."""
    from explorer.analysis.solving import finite_value

    first, second = (np.full(side, -1, dtype=np.int64) for _ in parts)
    for part, values in zip(parts, (first, second), strict=True):
        for n in range(side):
            try:
                values[n] = finite_value(part, part.parse(str(n)))
            except ExplorerError:
                break
    valid = (first >= 0)[:, None] & (second >= 0)[None, :]
    table: np.ndarray = np.where(valid, first[:, None] ^ second[None, :], -1)
    return table


def table_patterns(table: np.ndarray, upto: int, sum_theorem: str | None = None) -> list[Pattern]:
    """Every pattern of a value table G(a, b) (-1: not a position).

    Examples
    --------
    >>> a = np.arange(6)
    >>> [p.kind for p in table_patterns(a[:, None] ^ a[None, :], 5)]
    ['diagonal', 'sum']
    """
    from explorer.analysis.patterns import OBSERVED, PROVED, Pattern

    found: list[Pattern] = []
    line = _diagonal(table)
    if line is not None:
        found.append(Pattern("diagonal", OBSERVED, upto, line))
    else:
        beatty = _beatty(table)
        if beatty is not None:
            found.append(Pattern("beatty", OBSERVED, upto, beatty))
    residues = _periodic_p_positions(table)
    if residues is not None:
        found.append(Pattern("p-residues", OBSERVED, upto, residues))
    if _is_sum(table):
        if sum_theorem is None:
            found.append(Pattern("sum", OBSERVED, upto, {}))
        else:
            found.append(Pattern("sum", PROVED, upto, {}, sum_theorem, None))
    rows = _periodic_rows(table)
    if rows:
        found.append(Pattern("rows", OBSERVED, upto, {"rows": rows}))
    if not np.array_equal(table, table.T):
        columns = _periodic_rows(table.T)
        if columns:
            found.append(Pattern("columns", OBSERVED, upto, {"columns": columns}))
    return found


def describe_table_pattern(kind: str, f: dict[str, Any]) -> str:
    """One line saying what a table pattern says."""
    if kind == "diagonal":
        d = f["offset"]
        return "P-positions: exactly a = b" if d == 0 else f"P-positions: exactly |a - b| = {d}"
    if kind == "beatty":
        alpha, beta = (
            f"{name} = {text} = {f[name]:.6f}" if text else f"{name} ~ {f[name]:.6f}"
            for name, text in (("alpha", f["alpha_text"]), ("beta", f["beta_text"]))
        )
        return (
            f"P-positions: (floor(n*alpha), floor(n*beta)) and mirror images, {alpha}, {beta} "
            f"({f['pairs']:,} pairs)"
        )
    if kind == "p-residues":
        cells = ", ".join(f"({a}, {b})" for a, b in f["residues"][:12])
        more = f", ... ({len(f['residues']):,} in all)" if len(f["residues"]) > 12 else ""
        return (
            f"P-positions: (a, b) = {cells or 'none'}{more} (mod {f['modulus']}) "
            f"for a, b >= {f['from']}"
        )
    if kind == "sum":
        return "G(a, b) = G(a, 0) xor G(0, b): the game is a sum"
    if kind in ("rows", "columns"):
        shown = "; ".join(
            f"{r['index']}: period {r['period']}"
            + (f" saltus {r['saltus']}" if r["saltus"] else "")
            + f" from {r['preperiod']}"
            for r in f[kind]
        )
        return f"{kind} 0..{len(f[kind]) - 1} ultimately periodic ({shown})"
    raise SpecError(f"unknown pattern kind {kind!r}")


def _diagonal(table: np.ndarray) -> dict[str, Any] | None:
    """P-positions exactly on the lines |a - b| = d, if they are."""
    a, b = np.nonzero(table == 0)
    offsets = set(np.abs(b - a).tolist())
    if len(offsets) != 1:
        return None
    d = offsets.pop()
    # every P-position lies on the two diagonals |a - b| = d: is every position on them P?
    lines = [np.diagonal(table, k) for k in {d, -d}]
    return {"offset": d} if all((line[line >= 0] == 0).all() for line in lines) else None


def _beatty(table: np.ndarray) -> dict[str, Any] | None:
    """P-positions (0, 0) and (floor(n alpha), floor(n beta)), n >= 1, with the mirror images."""
    zero = table == 0
    if not zero[0, 0] or not np.array_equal(zero, zero.T) or np.trace(zero) != 1:
        return None
    a, b = np.nonzero(np.triu(zero, 1))
    if len(a) < MIN_PAIRS or len(set(a.tolist())) != len(a):
        return None
    n = np.arange(1, len(a) + 1)
    fits = []
    for side in (a, b):
        lo, hi = float(np.max(side / n)), float(np.min((side + 1) / n))
        if lo >= hi:
            return None
        fits.append((lo, hi))
    size = len(table)
    named = [_quadratic_name(lo, hi) if hi - lo < WIDEST_NAMED else None for lo, hi in fits]
    middle = [(lo + hi) / 2 for lo, hi in fits]
    named_floors = [
        _floors(q[1], size) if q else np.floor(np.arange(size) * m).astype(np.int64)
        for q, m in zip(named, middle, strict=True)
    ]
    if np.array_equal(_beatty_cells(named_floors, size), zero):
        values = [q[2] if q else m for q, m in zip(named, middle, strict=True)]
        texts = [q[0] if q else None for q in named]
    else:  # a name at the edge of the interval; its middle fits every pair seen
        floors = [np.floor(np.arange(size) * m).astype(np.int64) for m in middle]
        if not np.array_equal(_beatty_cells(floors, size), zero):
            return None
        values, texts = middle, [None, None]
    return {
        "alpha": values[0],
        "beta": values[1],
        "alpha_text": texts[0],
        "beta_text": texts[1],
        "pairs": len(a),
    }


def _beatty_cells(floors: list[np.ndarray], size: int) -> np.ndarray:
    """The cells (0, 0), (floor(n alpha), floor(n beta)) and mirror images, n >= 1, of a table
    of `size` x `size`, from the floors of n alpha and n beta for n < size."""
    cells = np.zeros((size, size), dtype=bool)
    cells[0, 0] = True
    for x, y in zip(floors[0][1:].tolist(), floors[1][1:].tolist(), strict=True):
        if x >= size:
            break
        if y < size:
            cells[x, y] = cells[y, x] = True
    return cells


Quadratic = tuple[int, int, int, int]


def _quadratic_name(lo: float, hi: float) -> tuple[str, Quadratic, float] | None:
    """The simplest (a + b sqrt(d)) / c (or a / c) in [lo, hi): the one whose minimal
    polynomial (integer, primitive) has the smallest coefficients, largest first, then sum."""
    best: tuple[tuple[int, int], Quadratic] | None = None
    radicands = [d for d in range(2, MAX_RADICAND + 1) if _squarefree(d)]
    roots = [(0, 0)] + [
        (s * k, d) for d in radicands for k in range(1, MAX_ROOT_COEFFICIENT + 1) for s in (1, -1)
    ]
    for c in range(1, MAX_DENOMINATOR + 1):
        for b, d in roots:
            shift = b * math.sqrt(d)
            a = math.ceil(c * lo - shift)
            if a >= c * hi - shift or math.gcd(math.gcd(a, b), c) != 1:
                continue
            cost = _height(a, b, c, d)
            if best is None or cost < best[0]:
                best = (cost, (a, b, c, d))
    if best is None:
        return None
    a, b, c, d = best[1]
    return _quadratic_text(a, b, c, d), best[1], (a + b * math.sqrt(d)) / c


def _height(a: int, b: int, c: int, d: int) -> tuple[int, int]:
    """The largest and the total absolute coefficient of the primitive integer polynomial of
    (a + b sqrt(d)) / c: c x - a, or c^2 x^2 - 2 a c x + a^2 - b^2 d.

    Examples
    --------
    >>> _height(1, 1, 2, 5), _height(3, 1, 2, 5), _height(-1, 3, 2, 2)  # x^2 - x - 1, ...
    ((1, 3), (3, 5), (17, 25))
    """
    coefficients = [c, -a] if b == 0 else [c * c, -2 * a * c, a * a - b * b * d]
    divisor = math.gcd(*coefficients)
    absolute = [abs(x) // divisor for x in coefficients]
    return max(absolute), sum(absolute)


def _squarefree(d: int) -> bool:
    return all(d % (k * k) for k in range(2, math.isqrt(d) + 1))


def _quadratic_text(a: int, b: int, c: int, d: int) -> str:
    """``(1+sqrt(5))/2``, ``sqrt(2)``, ``3/2``, ``2-sqrt(3)``."""
    terms = []
    if a or not b:
        terms.append(str(a))
    if b:
        root = f"sqrt({d})" if abs(b) == 1 else f"{abs(b)}*sqrt({d})"
        terms.append(("-" if b < 0 else ("+" if terms else "")) + root)
    numerator = "".join(terms)
    if c == 1:
        return numerator
    return f"({numerator})/{c}" if len(terms) > 1 else f"{numerator}/{c}"


def _floors(q: Quadratic, count: int) -> np.ndarray:
    """floor(n (a + b sqrt(d)) / c) for n < count, exactly (integer square roots)."""
    a, b, c, d = q
    out = np.zeros(count, dtype=np.int64)
    for n in range(count):
        if b == 0:
            out[n] = (n * a) // c
            continue
        root = math.isqrt(d * (n * b) ** 2)  # floor(n |b| sqrt(d)); never exact for n > 0
        exact_part = n * a + root if b > 0 else n * a - root - (1 if n else 0)
        out[n] = exact_part // c
    return out


def _periodic_p_positions(table: np.ndarray) -> dict[str, Any] | None:
    """The least modulus m, and from it the least start s, with (a, b) P exactly when
    (a + m, b) and (a, b + m) are, for every a, b >= s; the stretch from s must hold three
    periods and half of the table (cells that are not positions count as not P)."""
    zero = table == 0
    size = len(table)
    for m in range(1, size // 3 + 1):
        # at once, a shift that changes a cell of the last row or column far enough out to
        # rule m out (a start past size // 2, or fewer than three periods after it)
        edge = min(size // 2, size - 3 * m)
        if not (
            np.array_equal(zero[-1, edge:], zero[-1 - m, edge:])
            and np.array_equal(zero[edge:, -1], zero[edge:, -1 - m])
        ):
            continue
        start = 0
        for changed in (zero[m:, :] != zero[:-m, :], (zero[:, m:] != zero[:, :-m]).T):
            a, b = np.nonzero(changed)  # (a, b) and (a + m, b), or (b, a) and (b, a + m)
            if a.size:
                start = max(start, int(np.minimum(a, b).max()) + 1)
        if start <= size // 2 and size - start >= 3 * m:
            block = zero[start : start + m, start : start + m]
            found = [[int(a % m), int(b % m)] for a, b in np.argwhere(block) + start]
            return {"modulus": m, "from": start, "residues": sorted(found)}
    return None


def _is_sum(table: np.ndarray) -> bool:
    """G(a, b) = G(a, 0) xor G(0, b) xor G(0, 0) on every position of the table."""
    if (table[:, 0] < 0).any() or (table[0, :] < 0).any() or len(table) < 2:
        return False
    for first in range(0, len(table), SUM_ROWS):  # a table that is no sum fails early
        rows = table[first : first + SUM_ROWS]
        predicted = rows[:, :1] ^ table[:1, :] ^ table[0, 0]
        if not np.array_equal(predicted[rows >= 0], rows[rows >= 0]):
            return False
    return True


def _periodic_rows(table: np.ndarray) -> list[dict[str, int]]:
    """The first rows 0, 1, ... that are each ultimately (arithmetic-)periodic, while they are
    (none unless at least two)."""
    rows = []
    first = next((r for r in range(len(table)) if (table[r] >= 0).any()), len(table))
    for r in range(first, min(first + ROWS, len(table))):
        row = table[r][table[r] >= 0]
        found = observed_arithmetic_period(row)
        if found is None:
            break
        rows.append({"index": r, **found._asdict()})
    return rows if len(rows) >= 2 else []


def table_breaks_at(pattern: Pattern, table: np.ndarray) -> str | None:
    """The first cell ``a,b`` (by rows) where the table contradicts the pattern, or None."""
    f = pattern.fields
    zero = table == 0
    if pattern.kind == "diagonal":
        rows, cols = np.indices(table.shape)
        wrong = ((np.abs(cols - rows) == f["offset"]) & (table >= 0)) != zero
    elif pattern.kind == "beatty":
        n = np.arange(len(table))
        floors = [np.floor(n * f[name]).astype(np.int64) for name in ("alpha", "beta")]
        expected = _beatty_cells(floors, len(table))
        wrong = expected != zero
    elif pattern.kind == "p-residues":
        m, start = f["modulus"], f["from"]
        rows, cols = np.indices(table.shape)
        classes = np.zeros((m, m), dtype=bool)
        for a, b in f["residues"]:
            classes[a, b] = True
        inside = (rows >= start) & (cols >= start)
        wrong = inside & (classes[rows % m, cols % m] != zero)
    elif pattern.kind == "sum":
        predicted = table[:, :1] ^ table[:1, :] ^ table[0, 0]
        wrong = (predicted != table) & (table >= 0)
    elif pattern.kind in ("rows", "columns"):
        view = table if pattern.kind == "rows" else table.T
        wrong = np.zeros_like(zero)
        for r in f[pattern.kind]:
            row = view[r["index"]]
            pre, p, s = r["preperiod"], r["period"], r["saltus"]
            bad = np.flatnonzero(row[pre + p :] != row[pre : len(row) - p] + s)
            if bad.size:
                wrong[r["index"], int(bad[0]) + pre + p] = True
        if pattern.kind == "columns":
            wrong = wrong.T
    else:
        raise SpecError(f"a {pattern.kind!r} pattern is not one of a table")
    cells = np.argwhere(wrong)
    return None if len(cells) == 0 else f"{cells[0][0]},{cells[0][1]}"
