"""explorer: impartial combinatorial games, their game graphs and Sprague-Grundy values.

>>> from explorer import solve
>>> solve("nim", "3,4,5").grundy
2

The names below load on first use (a module-level ``__getattr__``), so that a command that
only reads a database does not import NetworkX and numpy at start-up. In IPython and Jupyter,
importing explorer registers the notebook views of its results (`load_ipython_extension`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from explorer.errors import ExplorerError
from explorer.lazy import lazy_members

if TYPE_CHECKING:
    from explorer.analysis.genus import GenusSequence, genus_sequence
    from explorer.analysis.graph_answers import grundy_values, outcomes, remoteness, winning_moves
    from explorer.analysis.patterns import patterns
    from explorer.analysis.quotient import MisereQuotient, misere_quotient
    from explorer.analysis.results import Explanation, Solution
    from explorer.analysis.sequences import ValueSequence, find_period, value_sequence
    from explorer.analysis.solving import explain, grundy_value, solve, value_table
    from explorer.analysis.sweep import Sweep, sweep_variants
    from explorer.build import open_database
    from explorer.games import Convention, families, load_game
    from explorer.games.base import Game
    from explorer.games.graphs import graph_game
    from explorer.games.python import game, heap_game
    from explorer.generation.graph import build_graph
    from explorer.solver import mex
    from explorer.version import __version__ as __version__
    from explorer.viz import draw_game

#: Where each public name lives: the module is imported when the name is first asked for.
_HOMES = {
    "__version__": "explorer.version",
    "Explanation": "explorer.analysis.results",
    "Solution": "explorer.analysis.results",
    "explain": "explorer.analysis.solving",
    "grundy_value": "explorer.analysis.solving",
    "solve": "explorer.analysis.solving",
    "value_table": "explorer.analysis.solving",
    "Convention": "explorer.games.convention",
    "families": "explorer.games",
    "load_game": "explorer.games",
    "Game": "explorer.games.base",
    "game": "explorer.games.python",
    "heap_game": "explorer.games.python",
    "graph_game": "explorer.games.graphs",
    "build_graph": "explorer.generation.graph",
    "patterns": "explorer.analysis.patterns",
    "ValueSequence": "explorer.analysis.sequences",
    "find_period": "explorer.analysis.sequences",
    "value_sequence": "explorer.analysis.sequences",
    "grundy_values": "explorer.analysis.graph_answers",
    "mex": "explorer.solver",
    "outcomes": "explorer.analysis.graph_answers",
    "remoteness": "explorer.analysis.graph_answers",
    "winning_moves": "explorer.analysis.graph_answers",
    "MisereQuotient": "explorer.analysis.quotient",
    "GenusSequence": "explorer.analysis.genus",
    "genus_sequence": "explorer.analysis.genus",
    "Sweep": "explorer.analysis.sweep",
    "sweep_variants": "explorer.analysis.sweep",
    "misere_quotient": "explorer.analysis.quotient",
    "open_database": "explorer.build",
    "draw_game": "explorer.viz",
}


__getattr__, __dir__ = lazy_members(globals(), _HOMES)


#: The notebook view of each result class: the class by module and name, and its view's name in
#: `explorer.viz.notebook` (which loads when a result is first shown).
NOTEBOOK_VIEWS = {
    ("explorer.analysis.results", "Solution"): "solution_view",
    ("explorer.analysis.results", "Explanation"): "explanation_view",
    ("explorer.analysis.sequences", "ValueSequence"): "sequence_view",
    ("explorer.analysis.patterns", "Patterns"): "patterns_view",
    ("explorer.analysis.quotient", "MisereQuotient"): "quotient_view",
    ("explorer.analysis.sweep", "Sweep"): "sweep_view",
    ("explorer.analysis.genus", "GenusSequence"): "genus_view",
    ("explorer.build.options", "BuildReport"): "build_view",
    ("explorer.build.edits", "EditReport"): "edit_view",
    ("explorer.storage.query.game_rows", "QueryResult"): "query_view",
}


def load_ipython_extension(ipython: Any) -> None:
    """Show explorer's results as tables in IPython (``%load_ext explorer``): each class of
    `NOTEBOOK_VIEWS` gets its view as the HTML formatter's, by name, so that the classes never
    import the drawing code and nothing loads before a result is shown. ``import explorer``
    calls it when IPython is running.

    Examples
    --------
    >>> from IPython.core.formatters import DisplayFormatter
    >>> from explorer import solve
    >>> from types import SimpleNamespace
    >>> shell = SimpleNamespace(display_formatter=DisplayFormatter())
    >>> load_ipython_extension(shell)
    >>> data, _ = shell.display_formatter.format(solve("nim", "1,2"))
    >>> data["text/html"].startswith("<table")
    True
    """
    html = ipython.display_formatter.formatters["text/html"]
    for (module, name), view in NOTEBOOK_VIEWS.items():
        html.for_type_by_name(module, name, _shown_by(view))


def _shown_by(view: str) -> Callable[[Any], str]:
    """The HTML of a result by the view of that name, loading `explorer.viz.notebook` then."""

    def shown(value: Any) -> str:
        from explorer.viz import notebook

        html: str = getattr(notebook, view)(value)
        return html

    return shown


def _in_ipython() -> None:
    """Register the notebook views when explorer is imported in a running IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        load_ipython_extension(shell)


_in_ipython()


__all__ = [
    "Convention",
    "Explanation",
    "ExplorerError",
    "Game",
    "GenusSequence",
    "MisereQuotient",
    "Solution",
    "Sweep",
    "ValueSequence",
    "build_graph",
    "draw_game",
    "explain",
    "families",
    "find_period",
    "game",
    "genus_sequence",
    "graph_game",
    "grundy_value",
    "grundy_values",
    "heap_game",
    "load_ipython_extension",
    "load_game",
    "mex",
    "misere_quotient",
    "open_database",
    "outcomes",
    "patterns",
    "remoteness",
    "solve",
    "sweep_variants",
    "value_sequence",
    "value_table",
    "winning_moves",
]
