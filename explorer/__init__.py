"""explorer: impartial combinatorial games, their game graphs and Sprague-Grundy values.

>>> from explorer import load_game, solve
>>> game = load_game("nim")
>>> solve(game, game.parse("3,4,5")).grundy
2
"""

from __future__ import annotations

from explorer.analysis import Explanation, Solution, explain, grundy_value, solve, value_table
from explorer.errors import ExplorerError
from explorer.games import families, load_game
from explorer.graph import build_graph
from explorer.sequences import ValueSequence, find_period, value_sequence
from explorer.solver import grundy_values, mex, outcomes, remoteness, winning_moves

__version__ = "0.1.0"

__all__ = [
    "Explanation",
    "ExplorerError",
    "Solution",
    "ValueSequence",
    "build_graph",
    "explain",
    "families",
    "find_period",
    "grundy_value",
    "grundy_values",
    "load_game",
    "mex",
    "outcomes",
    "remoteness",
    "solve",
    "value_sequence",
    "value_table",
    "winning_moves",
]
