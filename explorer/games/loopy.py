"""Games whose graph may have cycles: `graph:FILE` (any digraph from a file, loops allowed) and
WindUp (`windup:N:S`, subtraction modulo N). Their values are the generalized ones (∞ allowed).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from explorer.errors import PositionError, SpecError
from explorer.games.base import Game, Position, natural_number
from explorer.games.dag import DagGame

#: Largest WindUp modulus (a position graph has N states and up to N·|S| moves).
MAX_WINDUP = 10_000_000


class GraphGame(DagGame):
    """A token on any digraph read from a file (cycles and self-loops allowed); play may go on
    forever, which is a draw.

    Examples
    --------
    >>> game = GraphGame("data/loopy.json")
    >>> list(game.successors(game.parse("d")))
    ['d', 't']
    """

    family = "graph"
    parameters = "FILE, a graph file as for dag (cycles and self-loops allowed)"
    position_syntax = "a vertex name from the file"
    example = ("graph:data/loopy.json", "f")
    summary = "a token on any digraph from a file (cycles and loops allowed: play may draw)"
    acyclic = False
    loops = True

    def may_cycle(self) -> bool:
        return True


def file_game(text: str) -> DagGame:
    """The game of a graph file to import: ``graph:FILE`` (cycles allowed), else ``dag:FILE``
    or a plain ``FILE`` (a DAG). The file is read and checked.

    Examples
    --------
    >>> type(file_game("graph:data/loopy.json")).__name__, file_game("data/note003.json").spec
    ('GraphGame', 'dag:data/note003.json')
    """
    family, colon, path = text.partition(":")
    if colon and family == GraphGame.family:
        return GraphGame(path)
    return DagGame(text.removeprefix(f"{DagGame.family}:"))


class WindUp(Game[Any]):
    """WindUp: positions 0..N-1; a move subtracts some s in S modulo N; 0 is terminal.

    Examples
    --------
    >>> game = WindUp(5, [3, 1])
    >>> game.spec, list(game.successors(1))
    ('windup:5:1,3', [0, 3])
    """

    family = "windup"
    parameters = "N:S, a modulus and a set of moves 1 <= s < N, e.g. 5:1,3"
    position_syntax = "a number 0..N-1"
    example = ("windup:5:1,3", "2")
    summary = "WindUp: subtract s in S modulo N, 0 is terminal (cycles: play may draw)"

    def __init__(self, modulus: int, moves: list[int]) -> None:
        self.modulus = modulus
        self.moves = tuple(sorted(set(moves)))

    @property
    def spec(self) -> str:
        return f"windup:{self.modulus}:" + ",".join(map(str, self.moves))

    def may_cycle(self) -> bool:
        return True

    def parse(self, text: str) -> int:
        expected = f"expected a number 0..{self.modulus - 1}"
        value = natural_number(text.strip(), context=f"bad position for {self.spec}")
        if value is None or value >= self.modulus:
            raise PositionError(f"bad position {text!r} for {self.spec} ({expected})")
        return value

    def format(self, position: Position) -> str:
        return str(position)

    def count_states(self, position: Position, limit: int) -> int | None:
        """Exact where 0 is out of reach: the moves then walk the whole coset of
        ``gcd(S, N)`` holding the position (every move can be undone by repeating it), N / g
        states. Otherwise a walk down by the smallest move alone already meets p // s + 1
        states; that many when it is above `limit`, else None (a build finds out).

        Examples
        --------
        >>> WindUp(6, [2, 4]).count_states(3, 100), WindUp(5, [1]).count_states(4, 100)
        (3, None)
        >>> WindUp(10**6, [1]).count_states(10**6 - 1, 1000)
        1000000
        """
        p: int = position  # type: ignore[assignment]
        if p == 0:
            return 1
        step = math.gcd(self.modulus, *self.moves)
        if p % step:
            return self.modulus // step
        walked = p // self.moves[0] + 1
        return walked if walked > limit else None

    def successors(self, position: Position) -> Iterator[int]:
        p: int = position  # type: ignore[assignment]
        if p == 0:
            return
        for s in self.moves:
            yield (p - s) % self.modulus

    @classmethod
    def from_parameters(cls, parameters: str | None) -> WindUp:
        usage = "expected N:S, a modulus and moves 1 <= s < N, e.g. windup:5:1,3"
        modulus_text, colon, moves_text = (parameters or "").partition(":")
        context = f"bad windup parameters {parameters!r}"
        numbers = [
            natural_number(x.strip(), context=context, error=SpecError)
            for x in [modulus_text, *moves_text.split(",")]
        ]
        if not colon or any(n is None for n in numbers):
            raise SpecError(f"{context} ({usage})")
        modulus, *moves = [n for n in numbers if n is not None]
        if modulus > MAX_WINDUP:
            raise SpecError(
                f"windup modulus {modulus_text.strip()!r} is too large (at most {MAX_WINDUP:,})"
            )
        if modulus < 2 or any(not 1 <= m < modulus for m in moves):
            raise SpecError(f"{context} ({usage})")
        return cls(modulus, moves)
