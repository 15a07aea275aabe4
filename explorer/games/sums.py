"""Sums of games: positions of any registered games played side by side.

A sum spec joins component specs with ``+`` (``nim + wythoff``); a sum position joins the
components' positions the same way (``3,4,5 + 2,3``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from explorer.errors import PositionError
from explorer.games.base import Decomposition, Game, NimHeaps, Part, Position

SEPARATOR = "+"


#: Most states of one part of a sum walked to count a sum's states (`SumGame.count_states`).
WALKED_STATES = 100_000


def _reachable(game: Game[Any], position: Position, limit: int) -> int | None:
    """The positions reachable from `position`, counted by walking them; `limit` + 1 once
    there are more than `limit` of them (the product of the parts' counts then exceeds the
    sum's limit), None past `WALKED_STATES`."""
    seen = {position}
    stack = [position]
    while stack:
        for moved in game.successors(stack.pop()):
            if moved not in seen:
                seen.add(moved)
                stack.append(moved)
                if len(seen) > limit:
                    return None if limit >= WALKED_STATES else limit + 1
    return len(seen)


def split_sum(spec: str) -> list[str]:
    """The specs a sum's spec joins: split at each '+' outside braces (the take-and-break code
    ``tb:0.{2+}`` is one game).

    Examples
    --------
    >>> split_sum("tb:0.{2+} + nim")
    ['tb:0.{2+} ', ' nim']
    """
    return re.split(r"\+(?![^{]*\})", spec)


class SumGame(Game[tuple[Position, ...]]):
    """The disjunctive sum of several games: a move is a move in exactly one component."""

    family = "sum"
    parameters = "component specs joined by +"
    position_syntax = "component positions joined by +, in the same order"
    example = ("nim + wythoff + kayles", "3,4 + 2,3 + 6")
    summary = "a sum of any games above, played side by side"

    def __init__(self, components: Sequence[Game[Any]]) -> None:
        self.components = tuple(components)

    @property
    def spec(self) -> str:
        return f" {SEPARATOR} ".join(g.spec for g in self.components)

    def parse(self, text: str) -> tuple[Position, ...]:
        pieces = text.split(SEPARATOR)
        if len(pieces) == len(self.components):
            return tuple(g.parse(piece) for g, piece in zip(self.components, pieces, strict=True))
        # a component's own position may hold '+' (graphs joined, ``P3+C4``): the first way
        # to share the pieces out in order, each component parsing its run of them
        grouped = self._grouped(pieces)
        if grouped is None:
            raise PositionError(
                f"bad position {text!r} for {self.spec}: {len(pieces)} part(s) for "
                f"{len(self.components)} games (join one position per game with '+')"
            )
        return grouped

    def _grouped(self, pieces: list[str]) -> tuple[Position, ...] | None:
        """The components' positions from runs of `pieces`, or None when no way parses."""
        # ways[i]: parsed positions of the first k components that used pieces[:i]
        ways: dict[int, tuple[Position, ...]] = {0: ()}
        for game in self.components:
            later: dict[int, tuple[Position, ...]] = {}
            for start, done in ways.items():
                for end in range(start + 1, len(pieces) + 1):
                    if end in later:
                        continue
                    try:
                        later[end] = (*done, game.parse(SEPARATOR.join(pieces[start:end])))
                    except PositionError:
                        continue
            ways = later
        return ways.get(len(pieces))

    def format(self, position: tuple[Position, ...]) -> str:
        return f" {SEPARATOR} ".join(
            g.format(p) for g, p in zip(self.components, position, strict=True)
        )

    def successors(self, position: tuple[Position, ...]) -> Iterator[tuple[Position, ...]]:
        for i, game in enumerate(self.components):
            for moved in game.successors(position[i]):
                yield position[:i] + (moved,) + position[i + 1 :]

    def move_name(
        self, position: tuple[Position, ...], successor: tuple[Position, ...]
    ) -> str | None:
        """The move in the one component it changes, named by that game after its spec."""
        changed = [i for i, (a, b) in enumerate(zip(position, successor, strict=True)) if a != b]
        if len(changed) != 1:
            return None
        (i,) = changed
        name = self.components[i].move_name(position[i], successor[i])
        return None if name is None else f"{self.components[i].spec}: {name}"

    def tier(self, position: tuple[Position, ...]) -> int | None:
        """The sum of the parts' tiers (a move lowers one part's), None when a part has none."""
        total = 0
        for game, part in zip(self.components, position, strict=True):
            tier = game.tier(part)
            if tier is None:
                return None
            total += tier
        return total

    def summands(self) -> tuple[Game[Any], ...]:
        return self.components

    def may_cycle(self) -> bool:
        return any(game.may_cycle() for game in self.components)

    def nim_heaps(self, position: tuple[Position, ...]) -> NimHeaps | None:
        """The heaps of every component, in order, when each component is Nim heaps.

        Examples
        --------
        >>> from explorer import load_game
        >>> game = load_game("nim + nim")
        >>> found = game.nim_heaps(((1, 2), (3,)))
        >>> found.heaps, found.rebuild([1, 0, 2])
        ([1, 2, 3], ((1,), (2,)))
        """
        found = [g.nim_heaps(p) for g, p in zip(self.components, position, strict=True)]
        if any(part is None for part in found):
            return None
        parts = [part for part in found if part is not None]

        def rebuild(heaps: Sequence[int]) -> tuple[Position, ...]:
            result = []
            start = 0
            for part in parts:
                result.append(part.rebuild(heaps[start : start + len(part.heaps)]))
                start += len(part.heaps)
            return tuple(result)

        return NimHeaps([h for part in parts for h in part.heaps], rebuild)

    def count_states(self, position: tuple[Position, ...], limit: int) -> int | None:
        """The product of the components' counts; one component known to exceed `limit` is
        enough (every other component has at least its own position)."""
        total: int | None = 1
        for game, component in zip(self.components, position, strict=True):
            count = game.count_states(component, limit)
            if count is None:  # walk the part itself, as far as the product could stay in
                count = _reachable(game, component, min(limit // (total or 1), WALKED_STATES))
            if count is not None and count > limit:
                return count
            total = None if count is None or total is None else min(total * count, limit + 1)
        return total

    def count_moves(self, position: tuple[Position, ...]) -> int | None:
        """A move is a move in one component: at least the sum of the counts known."""
        counts = [g.count_moves(c) for g, c in zip(self.components, position, strict=True)]
        known = [c for c in counts if c is not None]
        return sum(known) if known else None

    def decompose(self, position: tuple[Position, ...]) -> Decomposition:
        """Each component, itself split where its own decomposition is exact."""
        parts: list[Part] = []
        spans: list[tuple[int, Decomposition | None]] = []
        for game, component in zip(self.components, position, strict=True):
            inner = game.decompose(component)
            if inner is not None and inner.exact:
                spans.append((len(inner.parts), inner))
                parts.extend(inner.parts)
            else:
                spans.append((1, None))
                parts.append(Part(game, component))

        def rebuild(part_positions: Sequence[Position]) -> tuple[Position, ...]:
            result = []
            start = 0
            for size, inner in spans:
                chunk = part_positions[start : start + size]
                result.append(inner.rebuild(chunk) if inner is not None else chunk[0])
                start += size
            return tuple(result)

        return Decomposition(
            parts=tuple(parts),
            rebuild=rebuild,
            note="a sum of games: its value is the XOR of the components' values",
        )
