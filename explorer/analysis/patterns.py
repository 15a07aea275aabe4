"""Patterns in computed values, each proved (naming the theorem and the values it read) or
observed up to N: periods, arithmetic periods, P-positions, rare values; and the check of a
pattern found earlier against a longer run (confirmed, proved, or refuted at a heap).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from explorer.errors import SpecError
from explorer.games.arguments import as_game
from explorer.games.base import Game
from explorer.games.heaps import DEFAULT_MAX_MEMORY_MB
from explorer.games.removals import RemovalRule, removal_rule
from explorer.machine import check_memory_need
from explorer.solver.periodicity import (
    Period,
    Proof,
    least_period,
    observed_arithmetic_period,
    state_lemma,
    window_lemma,
)

#: Where `patterns` stops by default: G(0..1000) of one heap ...
DEFAULT_UPTO = 1000
#: ... or a 201 x 201 table of a game on two numbers.
DEFAULT_TABLE_UPTO = 200
#: Memory the analysis of one value takes, about (the values as Python integers, the matches
#: of every period, the states of the state lemma less its window): 100 bytes.
BYTES_PER_VALUE = 100
#: The sparse-space split is reported when its rare positions are at most this share.
RARE_SHARE = 1 / 8
#: Status of a pattern that a theorem proves from the values.
PROVED = "proved"
#: Status of a pattern that holds in every value computed, without a proof.
OBSERVED = "observed"
#: The Guy-Smith theorem, as a pattern names it.
GUY_SMITH = "Guy-Smith theorem"


@dataclass(frozen=True)
class Pattern:
    """One hypothesis that holds in the values G(0..upto) (or the table up to `upto`).

    `status` is ``proved`` (then `theorem` names the theorem and `needed` how many values it
    read) or ``observed``; `fields` holds what the pattern says (``preperiod``, ``period``,
    ``saltus``; ``alpha``, ``alpha_text``; ...), as in ``explorer patterns --json``.
    """

    kind: str
    status: str
    upto: int
    fields: dict[str, Any] = field(default_factory=dict)
    theorem: str | None = None
    needed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: kind, status, theorem (when proved), upto, needed, then the fields.

        Examples
        --------
        >>> Pattern("period", "observed", 100, {"preperiod": 0, "period": 3}).to_dict()
        {'kind': 'period', 'status': 'observed', 'upto': 100, 'preperiod': 0, 'period': 3}
        """
        proof: dict[str, Any] = {"theorem": self.theorem} if self.status == PROVED else {}
        if self.needed is not None:
            proof["needed"] = self.needed
        return {"kind": self.kind, "status": self.status, **proof, "upto": self.upto, **self.fields}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pattern:
        """The pattern `to_dict` gave (a stored pattern read back)."""
        rest = {k: v for k, v in data.items() if k not in ("kind", "status", "upto")}
        theorem, needed = rest.pop("theorem", None), rest.pop("needed", None)
        return cls(data["kind"], data["status"], data["upto"], rest, theorem, needed)

    def status_text(self) -> str:
        """``proved: THEOREM, G(0..K)`` or ``observed up to N``."""
        if self.status == PROVED:
            read = f", G(0..{self.needed - 1})" if self.needed else ""
            return f"proved: {self.theorem}{read}"
        return f"observed up to {self.upto:,}"

    def text(self) -> str:
        """What the pattern says, in one line."""
        from explorer.analysis.pattern_tables import describe_table_pattern

        f = self.fields
        if self.kind == "period":
            return f"period {f['period']}, preperiod {f['preperiod']}"
        if self.kind == "arithmetic-period":
            return (
                f"G(n + {f['period']}) = G(n) + {f['saltus']} for n >= {f['preperiod']} "
                f"(arithmetic period {f['period']}, saltus {f['saltus']})"
            )
        if self.kind == "residues":
            before = _listed(f["before"])
            if not f["residues"] and self.status == PROVED:
                return f"P-positions: only {before}"
            if not f["residues"]:
                return f"P-positions: {before}; none from {f['from']:,} to {self.upto:,}"
            classes = ", ".join(map(str, f["residues"]))
            tail = f"; before that {before}" if f["before"] else ""
            return f"P-positions: n = {classes} (mod {f['modulus']}) for n >= {f['from']}{tail}"
        if self.kind == "values":
            rare = f"; rare (only before the period): {_listed(f['rare'])}" if f["rare"] else ""
            return f"common values {_listed(f['common'])}{rare}"
        if self.kind == "genus-period":
            return f"the genus repeats with period {f['period']} from heap {f['preperiod']}"
        if self.kind == "sparse-space":
            return (
                f"rare values (even parity of the bits {f['mask']:#b}): "
                f"{f['rare_positions']:,} positions, the last at {f['last_rare']:,}"
            )
        return describe_table_pattern(self.kind, f)


def _listed(numbers: list[int], most: int = 12) -> str:
    shown = ", ".join(map(str, numbers[:most]))
    return shown + (f", ... ({len(numbers):,} in all)" if len(numbers) > most else "")


@dataclass(frozen=True)
class Patterns:
    """Every pattern found in a game's values up to `upto` (``explorer patterns --json``)."""

    game: str
    upto: int
    patterns: tuple[Pattern, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "upto": self.upto,
            "patterns": [p.to_dict() for p in self.patterns],
        }

    def __repr__(self) -> str:
        """One line: the game, how far, which patterns."""
        kinds = ", ".join(p.kind for p in self.patterns) or "none"
        return f"<Patterns of {self.game} up to {self.upto:,}: {kinds}>"

    def find(self, kind: str) -> Pattern | None:
        """The pattern of that kind, if one was found."""
        return next((p for p in self.patterns if p.kind == kind), None)

    def lines(self) -> list[str]:
        """The patterns as text, or ``no pattern found up to N``."""
        if not self.patterns:
            return [f"no pattern found up to {self.upto:,}"]
        return [f"{p.kind}: {p.text()} [{p.status_text()}]" for p in self.patterns]


def find_patterns(
    game: Game[Any] | str, upto: int | None = None, *, max_memory_mb: int | None = None
) -> Patterns:
    """Every pattern of a game's values up to `upto`: one heap G(0..upto), or the table
    G(a, b), a, b <= upto, of a game on two numbers (Wythoff, sums of two heaps, ...).

    Parameters
    ----------
    game : Game or str
        The game, or its spec.
    upto : int, optional
        The last heap (or row and column) computed: by default `DEFAULT_UPTO` (one heap),
        `DEFAULT_TABLE_UPTO` (two numbers).
    max_memory_mb : int, optional
        Most memory for the values (default: the game's, 2,048 MiB).

    Returns
    -------
    Patterns
        Its ``to_dict()`` is the JSON of ``explorer patterns --json``.

    Examples
    --------
    >>> found = find_patterns("subtraction:1,2,3", 100)
    >>> period = found.find("period")
    >>> period.fields, period.status, period.theorem
    ({'preperiod': 0, 'period': 4, 'saltus': 0}, 'proved', 'window lemma')
    >>> find_patterns("wythoff", 200).find("beatty").fields["alpha_text"]
    '(1+sqrt(5))/2'
    """
    found, _ = analyse(as_game(game), upto, max_memory_mb)
    return found


#: `find_patterns` as the package names it: ``explorer.patterns(game, upto=...)``.
patterns = find_patterns


def analyse(
    game: Game[Any], upto: int | None, max_memory_mb: int | None = None
) -> tuple[Patterns, np.ndarray]:
    """`find_patterns` and the values it read (one row of values, or a table)."""
    if upto is not None and upto < 0:
        raise SpecError(f"--upto must be non-negative, got {upto}")
    if game.heap_rules() is not None or game.sequence_position(0) is not None:
        upto = DEFAULT_UPTO if upto is None else upto
        rule = removal_rule(game)
        limit = max_memory_mb or DEFAULT_MAX_MEMORY_MB
        window = (rule.tail or 0) if rule is not None else 0
        need = (upto + 1) * (BYTES_PER_VALUE + 8 * window)
        what = f"the patterns of {game.spec} up to heap {upto:,} need"
        check_memory_need(need, limit, what, option="--memory")
        values, proof = _sequence(game, upto, max_memory_mb)
        return sequence_patterns(game.spec, values, proof=proof, rule=rule), values
    from explorer.analysis.pattern_tables import table_patterns, two_number_table

    upto = DEFAULT_TABLE_UPTO if upto is None else upto
    table, theorem = two_number_table(game, upto, max_memory_mb)
    return Patterns(game.spec, upto, tuple(table_patterns(table, upto, theorem))), table


def _sequence(
    game: Game[Any], upto: int, max_memory_mb: int | None
) -> tuple[np.ndarray, Proof | None]:
    """G(0..upto), and the Guy-Smith proof of its period when the sequence engine found one."""
    from explorer.analysis.sequences import value_sequence
    from explorer.solver.periods import proof_length
    from explorer.solver.sparse import guy_smith

    seq = value_sequence(game, upto, max_memory_mb=max_memory_mb)
    heaps = game.heap_rules()
    theorem = guy_smith(heaps) if heaps is not None else None
    proof = None
    if seq.proven and theorem is not None and seq.period and seq.preperiod is not None:
        needed = proof_length(seq.preperiod, seq.period, theorem)
        proof = Proof(Period(seq.preperiod, seq.period), GUY_SMITH, needed)
    return np.asarray(seq.values, dtype=np.int64), proof


def sequence_patterns(
    game: str,
    values: np.ndarray,
    *,
    proof: Proof | None = None,
    rule: RemovalRule | None = None,
) -> Patterns:
    """The patterns of the values G(0..N) of a one-parameter game.

    A finite removal `rule` is proved periodic by the window lemma, an all-but rule
    arithmetic-periodic by the state lemma (`explorer.solver.periodicity`); a `proof` found
    elsewhere (Guy-Smith, by the sequence engine) is taken as it is; otherwise what the
    values show is reported as observed.

    Examples
    --------
    >>> from explorer.solver.periodicity import removal_values
    >>> rule = RemovalRule.all_but([1, 3])
    >>> found = sequence_patterns("all but 1, 3", removal_values(rule, 100), rule=rule)
    >>> first = found.patterns[0]
    >>> first.kind, first.fields, first.theorem
    ('arithmetic-period', {'preperiod': 0, 'period': 2, 'saltus': 1}, 'state lemma')
    """
    values = np.asarray(values, dtype=np.int64)
    upto = len(values) - 1
    if rule is not None:
        proof = window_lemma(values, rule) or state_lemma(values, rule) or proof
    period = proof.period if proof is not None else observed_arithmetic_period(values)

    def pattern(kind: str, fields: dict[str, Any]) -> Pattern:
        if proof is None:
            return Pattern(kind, OBSERVED, upto, fields)
        return Pattern(kind, PROVED, upto, fields, proof.theorem, proof.needed)

    found: list[Pattern] = []
    if period is not None:
        kind = "period" if period.saltus == 0 else "arithmetic-period"
        found.append(pattern(kind, period._asdict()))
    residues = _residues(values, period, proof is not None)
    if residues is not None:
        found.append(
            pattern("residues", residues)
            if period
            else Pattern("residues", OBSERVED, upto, residues)
        )
    if period is not None and period.saltus == 0:
        found.append(pattern("values", _common(values, period)))
    elif period is None:
        sparse = sparse_space(values)
        if sparse is not None:
            found.append(Pattern("sparse-space", OBSERVED, upto, sparse))
    return Patterns(game, upto, tuple(found))


def _residues(values: np.ndarray, period: Period | None, proved: bool) -> dict[str, Any] | None:
    """The P-positions as residues modulo their least period: exact when the values' period
    is proved, else what the P-positions alone show (None when they show no period)."""
    zero = (values == 0).astype(np.int64)
    if period is not None and proved:
        if period.saltus:  # values grow: no P-position after the first period
            outcome = least_period(zero, Period(period.preperiod + period.period, 1))
        else:
            outcome = least_period(zero, Period(period.preperiod, period.period))
    else:
        found = observed_arithmetic_period(zero)
        if found is None or found.saltus:
            return None
        outcome = found
    pre, modulus = outcome.preperiod, outcome.period
    residues = sorted({n % modulus for n in range(pre, pre + modulus) if zero[n]})
    return {
        "modulus": modulus,
        "from": pre,
        "residues": residues,
        "before": np.flatnonzero(zero[:pre]).tolist(),
    }


def _common(values: np.ndarray, period: Period) -> dict[str, Any]:
    """The values of one period (each taken infinitely often) and those only before it."""
    pre, p = period.preperiod, period.period
    common = sorted(set(values[pre : pre + p].tolist()))
    rare = sorted(set(values[:pre].tolist()) - set(common))
    return {"preperiod": pre, "common": common, "rare": rare, "largest": int(values.max(initial=0))}


def sparse_space(values: np.ndarray) -> dict[str, Any] | None:
    """The split of the values into rare and common ones by the parity of the bits a mask
    selects (rare: even, so that common XOR common is never common), with the mask giving the
    fewest rare positions (a Walsh-Hadamard transform of the value counts); None unless the
    rare positions are at most `RARE_SHARE` of all.

    Examples
    --------
    >>> v = np.array([0, 1, 2, 1, 2, 4, 1, 7, 2, 1, 4, 2, 1, 4, 7, 2, 1, 4, 2, 7])
    >>> sparse_space(v)
    {'mask': 7, 'rare_values': [0], 'rare_positions': 1, 'last_rare': 0}
    """
    counts = np.bincount(values)
    size = 1 << max(int(len(counts) - 1).bit_length(), 1)
    transform = np.zeros(size, dtype=np.int64)
    transform[: len(counts)] = counts
    h = 1
    while h < size:  # in place: each butterfly turns (x, y) into (x + y, x - y)
        view = transform.reshape(-1, 2 * h)
        left, right = view[:, :h].copy(), view[:, h:].copy()
        view[:, :h], view[:, h:] = left + right, left - right
        h *= 2
    transform[0] = len(values) + 1  # the empty mask makes every value rare
    mask = int(np.argmin(transform))
    rare_count = (len(values) + int(transform[mask])) // 2
    if rare_count > RARE_SHARE * len(values) or rare_count == 0:
        return None
    parity = np.array([bin(v & mask).count("1") % 2 for v in range(len(counts))])
    rare = parity[values] == 0
    positions = np.flatnonzero(rare)
    return {
        "mask": mask,
        "rare_values": sorted(set(values[rare].tolist())),
        "rare_positions": int(positions.size),
        "last_rare": int(positions[-1]),
    }


@dataclass(frozen=True)
class Revision:
    """A pattern found earlier, checked against a longer run: ``confirmed`` (still observed,
    now up to `upto`), ``proved`` (the longer run proves it) or ``refuted`` (`at` names the
    first heap, or cell ``a,b``, that breaks it)."""

    verdict: str
    upto: int
    pattern: Pattern
    at: int | str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "upto": self.upto,
            "at": self.at,
            "pattern": self.pattern.to_dict(),
        }

    def text(self) -> str:
        if self.verdict == "refuted":
            return f"{self.pattern.kind}: refuted at {self.at} ({self.pattern.text()})"
        return f"{self.pattern.kind}: {self.verdict} ({self.pattern.status_text()})"


def revisit(old: Pattern, game: Game[Any] | str, upto: int) -> Revision:
    """Check a pattern found earlier against the values up to `upto` (a longer run).

    Examples
    --------
    >>> old = find_patterns("kayles", 150).find("period")
    >>> old.fields["period"], old.status, revisit(old, "kayles", 1000).verdict
    (12, 'observed', 'proved')
    >>> wrong = Pattern("period", "observed", 10, {"preperiod": 0, "period": 5, "saltus": 0})
    >>> revisit(wrong, "subtraction:1,2", 50).at
    5
    """
    game = as_game(game)
    found, data = analyse(game, upto)
    return revise(old, found, data)


def revise(old: Pattern, found: Patterns, data: np.ndarray) -> Revision:
    """`revisit` from a longer run already made: its patterns and the values they read (a
    stored sequence or table, say).

    Examples
    --------
    >>> old = Pattern("period", "observed", 5, {"preperiod": 0, "period": 2, "saltus": 0})
    >>> values = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2])
    >>> revise(old, sequence_patterns("g", values), values).text()
    'period: refuted at 10 (period 2, preperiod 0)'
    """
    broken = breaks_at(old, data)
    if broken is not None:
        return Revision("refuted", found.upto, old, broken)
    now = found.find(old.kind)
    if now is not None and now.status == PROVED and now.fields == old.fields:
        return Revision("proved", found.upto, now)
    return Revision("confirmed", found.upto, replace(old, upto=max(found.upto, old.upto)))


def breaks_at(pattern: Pattern, data: np.ndarray) -> int | str | None:
    """The first heap (or cell ``a,b`` of a table) where the values contradict the pattern,
    or None when they all agree with it.

    Examples
    --------
    >>> p = Pattern("period", "observed", 10, {"preperiod": 1, "period": 2, "saltus": 0})
    >>> breaks_at(p, np.array([5, 0, 1, 0, 1, 0, 1, 2]))
    7
    """
    if data.ndim == 2:
        from explorer.analysis.pattern_tables import table_breaks_at

        return table_breaks_at(pattern, data)
    return next(_sequence_breaks(pattern, np.asarray(data, dtype=np.int64)), None)


def _sequence_breaks(pattern: Pattern, g: np.ndarray) -> Iterator[int]:
    f = pattern.fields
    if pattern.kind in ("period", "arithmetic-period"):
        pre, p, s = f["preperiod"], f["period"], f["saltus"]
        bad = np.flatnonzero(g[pre + p :] != g[pre : len(g) - p] + s)
        yield from (int(n) + pre + p for n in bad[:1])
    elif pattern.kind == "residues":
        n = np.arange(len(g))
        predicted = np.isin(n % f["modulus"], f["residues"]) & (n >= f["from"])
        predicted[np.asarray(f["before"], dtype=np.int64)] = True
        yield from (int(i) for i in np.flatnonzero(predicted != (g == 0))[:1])
    elif pattern.kind == "values":
        late = np.flatnonzero(~np.isin(g[f["preperiod"] :], f["common"]))
        yield from (int(i) + f["preperiod"] for i in late[:1])
    elif pattern.kind == "sparse-space":
        parity = np.array([bin(int(v) & f["mask"]).count("1") % 2 for v in g])
        late = np.flatnonzero(parity[f["last_rare"] + 1 :] == 0)
        yield from (int(i) + f["last_rare"] + 1 for i in late[:1])
    else:
        raise SpecError(f"a {pattern.kind!r} pattern is not one of a value sequence")
