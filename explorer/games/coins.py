"""Coin-turning games (Turning Turtles, Mock Turtles, Ruler, turn up to K coins).

A row is the sum of its single-head rows, whose values come from closed forms or a table.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np

from explorer.errors import GraphTooLargeError, PositionError, SpecError
from explorer.games.base import Decomposition, Game, natural_number

Row = tuple[int, ...]

#: Named rules: how many coins a move may turn at most (the ruler rule has no such bound).
RULE_SIZES = {"turtles": 2, "mock": 3}
RULER = "ruler"
#: Guard on a value table: table entries (levels times value range, or coins for the ruler).
MAX_TABLE_ENTRIES = 1 << 26


def is_odious(n: int) -> bool:
    """Whether n has an odd number of ones in binary (1, 2, 4, 7, 8, 11, ...).

    Examples
    --------
    >>> [n for n in range(12) if is_odious(n)]
    [1, 2, 4, 7, 8, 11]
    """
    return n.bit_count() % 2 == 1


class CoinTurning(Game[Row]):
    """A coin-turning game; a position is the tuple of coins showing heads (coin 1 leftmost).

    A move turns over a set of coins allowed by the rule; the turned coin furthest right must go
    from heads to tails. Turning coins is addition mod 2, so a row is the sum of its single
    heads, and two heads on one coin cancel.

    Examples
    --------
    >>> mock = CoinTurning.from_parameters("3")
    >>> mock.spec, mock.parse("thhth"), mock.format((2, 3, 5))
    ('turning:mock', (2, 3, 5), 'THHTH')
    >>> [mock.head_value(n) for n in range(1, 9)]
    [1, 2, 4, 7, 8, 11, 13, 14]
    """

    family = "turning"
    parameters = (
        "a rule: turtles (turn 1 or 2 coins), mock (1 to 3), ruler (any run of consecutive "
        "coins) or K (1 to K coins)"
    )
    position_syntax = "a row of H (heads) and T (tails), coin 1 leftmost, e.g. THHTH"
    example = ("turning:mock", "THHTH")
    summary = "coin turning: the turned coin furthest right goes from heads to tails"

    def __init__(self, most: int | None) -> None:
        """`most` coins at most per move, or None for the ruler rule (a run of coins)."""
        self.most = most
        self._values: list[int] = [0]
        self._reach: list[np.ndarray] = [np.ones(1, dtype=bool)]
        self._prefix: list[int] = [0]
        self._coin_of: dict[int, int] = {}

    @property
    def rule(self) -> str:
        """The rule's canonical name: ``turtles``, ``mock``, ``ruler`` or the number K."""
        if self.most is None:
            return RULER
        names = {size: name for name, size in RULE_SIZES.items()}
        return names.get(self.most, str(self.most))

    @property
    def spec(self) -> str:
        return f"turning:{self.rule}"

    # positions -----------------------------------------------------------
    def parse(self, text: str) -> Row:
        row = text.strip().upper()
        if not row:
            raise PositionError(f"empty position for {self.spec} (expected {self.position_syntax})")
        for coin in row:
            if coin not in "HT":
                raise PositionError(
                    f"bad position {text!r} for {self.spec}: {coin!r} is not H or T "
                    f"(expected {self.position_syntax})"
                )
        return tuple(i for i, coin in enumerate(row, start=1) if coin == "H")

    def format(self, position: Row) -> str:
        """The row up to its last head; the all-tails row is written ``T``."""
        if not position:
            return "T"
        row = ["T"] * position[-1]
        for coin in position:
            row[coin - 1] = "H"
        return "".join(row)

    def sequence_position(self, n: int) -> Row:
        """The row with one head, on coin n (n = 0: the all-tails row)."""
        return (n,) if n else ()

    # rules ---------------------------------------------------------------
    def companions(self, coin: int) -> Iterator[tuple[int, ...]]:
        """The sets of coins left of `coin` that a move turning `coin` may turn with it.

        Examples
        --------
        >>> list(CoinTurning.from_parameters("mock").companions(3))
        [(), (1,), (2,), (1, 2)]
        >>> list(CoinTurning.from_parameters("ruler").companions(3))
        [(), (2,), (1, 2)]
        """
        if self.most is None:
            for start in range(coin, 0, -1):
                yield tuple(range(start, coin))
            return
        for size in range(min(self.most, coin)):
            yield from combinations(range(1, coin), size)

    def tier(self, position: Row) -> int:
        """The row read as a binary number, coin n worth 2**n: a move turns the coin furthest
        right from heads to tails, and only coins to its left besides."""
        return sum(1 << coin for coin in position)

    def successors(self, position: Row) -> Iterator[Row]:
        showing = set(position)
        for coin in position:
            for others in self.companions(coin):
                yield tuple(sorted(showing.symmetric_difference((*others, coin))))

    def decompose(self, position: Row) -> Decomposition | None:
        note = "a row of coins is the sum of its single heads"
        return Decomposition.of_singles(self, position, _add_rows, note)

    # values --------------------------------------------------------------
    def known_value(self, position: Row) -> int | None:
        value = 0
        for coin in position:
            value ^= self.head_value(coin)
        return value

    def head_value(self, coin: int) -> int:
        """The Grundy value of a single head on `coin` (closed forms for the named rules).

        Turning Turtles is Nim (coin n is a heap of n); Mock Turtles gives the odious numbers
        (coin n: the n-th number with an odd count of binary ones); the ruler game gives the
        largest power of two dividing n. The tests check each against `head_values`.

        Examples
        --------
        >>> CoinTurning.from_parameters("ruler").head_value(24)
        8
        """
        if self.most == RULE_SIZES["turtles"]:
            return coin
        if self.most == RULE_SIZES["mock"]:
            doubled = 2 * (coin - 1)
            return doubled if is_odious(doubled) else doubled + 1
        if self.most is None:
            return coin & -coin
        return int(self.head_values(coin)[coin])

    def head_values(self, upto: int) -> np.ndarray:
        """G of one head on coins 0 (no head), 1, ..., `upto`, tabulated by the mex rule.

        Examples
        --------
        >>> CoinTurning.from_parameters("ruler").head_values(8).tolist()
        [0, 1, 2, 1, 4, 1, 2, 1, 8]
        """
        if self.most is None:
            self._extend_ruler(upto)
        else:
            self._extend_at_most(upto)
        return np.array(self._values[: upto + 1], dtype=np.int64)

    def _extend_at_most(self, upto: int) -> None:
        """Tabulate K-coin values: level j holds the XORs of at most j tabulated coins."""
        assert self.most is not None
        reach = self._reach
        index = np.arange(len(reach[0]))
        for coin in range(len(self._values), upto + 1):
            unseen = np.flatnonzero(~reach[-1])
            value = int(unseen[0]) if unseen.size else len(index)
            if value == len(index):
                # XORs of values below 2^b stay below 2^b; the new value needs one more bit
                size = 2 * len(index)
                levels = min(len(reach) + 1, self.most)
                if size * levels > MAX_TABLE_ENTRIES:
                    raise GraphTooLargeError(
                        f"coin {coin} is too far right for {self.spec}: its value table would "
                        f"pass {MAX_TABLE_ENTRIES:,} entries",
                        MAX_TABLE_ENTRIES,
                    )
                reach = [np.concatenate([r, np.zeros_like(r)]) for r in reach]
                index = np.arange(size)
            self._values.append(value)
            if len(reach) < self.most:
                reach.append(reach[-1].copy())
            # downwards, so each level adds this coin to sets that do not hold it yet
            for j in range(len(reach) - 1, 0, -1):
                reach[j] |= reach[j - 1][index ^ value]
            self._reach = reach

    def _extend_ruler(self, upto: int) -> None:
        """Tabulate ruler values: a move leaves a run of heads ending just left of the coin."""
        if upto > MAX_TABLE_ENTRIES // 1024:
            raise GraphTooLargeError(
                f"coin {upto} is too far right to tabulate {self.spec} values "
                f"(at most {MAX_TABLE_ENTRIES // 1024:,})",
                MAX_TABLE_ENTRIES // 1024,
            )
        known = len(self._values)
        if upto < known:
            return
        prefix = np.zeros(upto + 1, dtype=np.int64)
        prefix[:known] = self._prefix
        for coin in range(known, upto + 1):
            # the run start..coin-1 has value prefix[coin-1] ^ prefix[start-1]
            runs = prefix[:coin] ^ prefix[coin - 1]
            seen = np.zeros(coin + 2, dtype=bool)
            seen[runs[runs < coin + 2]] = True
            value = int(np.argmin(seen))
            self._values.append(value)
            prefix[coin] = prefix[coin - 1] ^ value
        self._prefix = prefix.tolist()

    def _coin_with_value(self, value: int, below: int) -> int | None:
        """The coin left of `below` whose single head has `value`, if any (values are distinct
        for K >= 2 since a head may move to any single head left of it)."""
        if value < 1:
            return None
        if self.most == RULE_SIZES["turtles"]:
            coin: int | None = value
        elif self.most == RULE_SIZES["mock"]:
            coin = value // 2 + 1 if is_odious(value) else None
        else:
            for c in range(len(self._coin_of) + 1, below):
                self._coin_of[self.head_value(c)] = c
            coin = self._coin_of.get(value)
        return coin if coin is not None and coin < below else None

    def moves_to_value(self, position: Row, target: int) -> list[Row] | None:
        """From a single head, the moves to value `target`, found without trying every move."""
        if len(position) != 1:
            return None if position else []
        (coin,) = position
        moves: list[Row] = []
        if self.most is None:
            value = 0
            for start in range(coin, 0, -1):
                if start < coin:
                    value ^= self.head_value(start)
                if value == target:
                    moves.append(tuple(range(start, coin)))
            return moves
        if target == 0:
            moves.append(())
        if self.most == 1:
            return moves
        # a set of companions is some smaller coins plus a last one the lookup finds
        for size in range(0, min(self.most - 1, coin - 1)):
            for first in combinations(range(1, coin), size):
                rest = target
                for c in first:
                    rest ^= self.head_value(c)
                last = self._coin_with_value(rest, coin)
                if last is not None and (not first or last > first[-1]):
                    moves.append((*first, last))
        return moves

    @classmethod
    def from_parameters(cls, parameters: str | None) -> CoinTurning:
        if parameters is None:
            raise SpecError(
                "turning needs a rule, e.g. turning:mock (turtles, mock, ruler or a number K "
                "of coins)"
            )
        rule = parameters.strip().lower()
        if rule == RULER:
            return cls(None)
        if rule in RULE_SIZES:
            return cls(RULE_SIZES[rule])
        coins = natural_number(rule, context="bad rule for turning", error=SpecError)
        if coins is not None and coins >= 1:
            return cls(coins)
        raise SpecError(
            f"bad rule {parameters!r} for turning (expected turtles, mock, ruler or a number "
            "K >= 1 of coins, e.g. turning:4)"
        )


def _add_rows(parts: Sequence[Row]) -> Row:
    """The sum of rows: a coin shows heads when an odd number of parts show it heads."""
    heads: set[int] = set()
    for part in parts:
        heads.symmetric_difference_update(part)
    return tuple(sorted(heads))
