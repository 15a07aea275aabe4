"""explorer: impartial combinatorial games, their game graphs and Sprague-Grundy values.

>>> from explorer import load_game, solve
>>> game = load_game("nim")
>>> solve(game, game.parse("3,4,5")).grundy
2

The names below load on first use (a module-level ``__getattr__``), so that a command that
only reads a database does not import NetworkX and numpy at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.errors import ExplorerError
from explorer.lazy import lazy_members

if TYPE_CHECKING:
    from explorer.analysis import Explanation, Solution, explain, grundy_value, solve, value_table
    from explorer.games import families, load_game
    from explorer.games.base import Game
    from explorer.games.python import game, heap_game
    from explorer.graph import build_graph
    from explorer.sequences import ValueSequence, find_period, value_sequence
    from explorer.solver import grundy_values, mex, outcomes, remoteness, winning_moves

__version__ = "0.1.0"

#: Where each public name lives: the module is imported when the name is first asked for.
_HOMES = {
    "Explanation": "explorer.analysis",
    "Solution": "explorer.analysis",
    "explain": "explorer.analysis",
    "grundy_value": "explorer.analysis",
    "solve": "explorer.analysis",
    "value_table": "explorer.analysis",
    "families": "explorer.games",
    "load_game": "explorer.games",
    "Game": "explorer.games.base",
    "game": "explorer.games.python",
    "heap_game": "explorer.games.python",
    "build_graph": "explorer.graph",
    "ValueSequence": "explorer.sequences",
    "find_period": "explorer.sequences",
    "value_sequence": "explorer.sequences",
    "grundy_values": "explorer.solver",
    "mex": "explorer.solver",
    "outcomes": "explorer.solver",
    "remoteness": "explorer.solver",
    "winning_moves": "explorer.solver",
}


__getattr__, __dir__ = lazy_members(globals(), _HOMES)


__all__ = [
    "Explanation",
    "ExplorerError",
    "Game",
    "Solution",
    "ValueSequence",
    "build_graph",
    "explain",
    "families",
    "find_period",
    "game",
    "grundy_value",
    "grundy_values",
    "heap_game",
    "load_game",
    "mex",
    "outcomes",
    "remoteness",
    "solve",
    "value_sequence",
    "value_table",
    "winning_moves",
]
