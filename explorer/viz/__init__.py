"""Seeing games: interactive graph pages (vis-network, from templates) and value plots (matplotlib).

The only place importing jinja2 and matplotlib, both lazily, when a page or a plot is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from explorer.errors import OutputFileError, SpecError
from explorer.games.arguments import as_game, as_position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.generation.graph import DEFAULT_MAX_STATES
from explorer.lazy import lazy_members

if TYPE_CHECKING:
    import networkx as nx

    from explorer.games.base import Game, Position
    from explorer.storage import GameStats, StoredGame
    from explorer.viz.graphs import (
        GroupBy,
        condense,
        condensed_graph,
        cut,
        game_graph,
        layers,
        layout,
        nearest,
        solved_graph,
    )
    from explorer.viz.page import GraphPage, draw_condensed, draw_graph
    from explorer.viz.parts import PartsView
    from explorer.viz.plots import plot_p_positions, plot_sequence, plot_table

#: Where each name drawn from a submodule lives: the submodule (and NetworkX, jinja2 or
#: matplotlib behind it) is imported when the name is first asked for, so that the palette and
#: the other light modules here can be used without them.
_HOMES = {
    **dict.fromkeys(
        (
            "GroupBy",
            "condense",
            "condensed_graph",
            "cut",
            "game_graph",
            "layers",
            "layout",
            "nearest",
            "solved_graph",
        ),
        "explorer.viz.graphs",
    ),
    **dict.fromkeys(("GraphPage", "draw_condensed", "draw_graph"), "explorer.viz.page"),
    **dict.fromkeys(("plot_p_positions", "plot_sequence", "plot_table"), "explorer.viz.plots"),
}


__getattr__, __dir__ = lazy_members(globals(), _HOMES)


#: Whose words a cut page uses to say how to draw more: Python's keywords or the CLI's flags.
Wording = Literal["python", "cli"]
#: Neighbourhood radius drawn when only a centre is given.
DEFAULT_DEPTH = 2
#: States drawn when no budget is given: a small game whole (the 48 of nim 3,4,5), and a page
#: still readable at its first zoom (2,000 states of Kayles 30 drew a grey smear).
DEFAULT_BUDGET = 50
#: A budget Chromium still draws in one to two seconds (bench_viz.py), for those who want more.
LARGE_BUDGET = 2_000

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_DEPTH",
    "LARGE_BUDGET",
    "GraphPage",
    "OutputFileError",
    "condense",
    "condensed_graph",
    "cut",
    "draw_condensed",
    "draw_game",
    "draw_graph",
    "draw_stored",
    "game_graph",
    "layers",
    "layout",
    "nearest",
    "plot_p_positions",
    "plot_sequence",
    "plot_table",
    "solved_graph",
]


def draw_game(
    game: Game[Any] | str,
    position: Position | str | int,
    *,
    around: Position | str | int | None = None,
    depth: int | None = None,
    budget: int | None = None,
    condensed: GroupBy | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    convention: Convention = NORMAL,
    wording: Wording = "python",
) -> GraphPage:
    """The page of a game from `position`, generated and solved in memory.

    A game with cycles shows its draws and infinite values in colours of their own; with
    ``convention=MISERE`` the states are drawn by their misère outcome (the last mover loses).

    Draws the whole graph cut to `budget` states (by default `DEFAULT_BUDGET`, which keeps a
    big game's page readable, and the page says so), the neighbourhood of `around` within
    `depth` moves, or with `condensed` its states grouped by ``"grundy"`` value or ``"depth"``. In a
    notebook the returned page shows inline; ``page.save("game.html")`` writes it.

    `game` and `position` (and `around`) are taken as by `explorer.solve`: objects, or a spec
    and a position text.

    Examples
    --------
    >>> page = draw_game("nim", "1,2,3")
    >>> page.nodes, page.edges, page.cut
    (14, 38, False)
    >>> from explorer import load_game
    >>> nim = load_game("nim")
    >>> draw_game(nim, nim.parse("1,2,3"), budget=5).note[:22]
    'The graph was cut: sho'
    """
    from explorer.viz.graphs import condensed_graph, game_graph
    from explorer.viz.page import draw_condensed, draw_graph

    game = as_game(game)
    position = as_position(game, position)
    if around is not None:
        around = as_position(game, around)
    if condensed is not None:
        if convention == MISERE:
            raise SpecError("--condensed groups normal-play values; draw misère play without it")
        return draw_condensed(condensed_graph(game, position, by=condensed, max_states=max_states))
    if around is not None and depth is None:
        depth = DEFAULT_DEPTH
    if depth is not None and around is None:
        around = position
    graph = game_graph(
        game,
        position,
        around=around,
        depth=depth,
        budget=budget,
        max_states=max_states,
        convention=convention,
    )
    graph.graph["wording"] = wording
    if convention == NORMAL:  # a position on graphs or boards: its parts drawn, valued
        from explorer.viz.parts import parts_view

        graph.graph["parts"] = parts_view(game, position if around is None else around)
    return draw_graph(graph)


def draw_stored(
    game: StoredGame,
    position: str,
    *,
    depth: int = DEFAULT_DEPTH,
    budget: int | None = None,
    condensed: GroupBy | None = None,
    max_states: int = DEFAULT_MAX_STATES,
    wording: Wording = "python",
) -> GraphPage:
    """The page of a stored game (``db.game(spec)``): the neighbourhood of `position`, or the
    game condensed.

    A misère build (``db.game(spec, MISERE)``, from ``explorer build --misere``) has its states
    drawn by their misère outcome as `draw_game` draws misère play.

    The neighbourhood holds the states within `depth` moves of `position`, forward or
    backward, fetched from the database alone (nothing is generated), cut to `budget` states
    (by default `DEFAULT_BUDGET`).
    With `condensed`, the stored states are grouped by ``"grundy"`` value or ``"depth"``;
    a stored game of more than `max_states` states is not loaded: its groups are counted by
    the database, and the moves between them are left out (the page says so).

    Raises
    ------
    NotStoredError
        When the game or the position is not stored.
    GraphTooLargeError
        When the neighbourhood has more than `max_states` states.

    Examples
    --------
    >>> from explorer import open_database
    >>> with open_database("sqlite://") as db:
    ...     nim = db.game("nim")
    ...     _ = nim.build("1,2,3")
    ...     page = draw_stored(nim, "1,2", depth=1)
    >>> page.nodes, page.edges
    (10, 24)
    """
    from explorer.viz.graphs import condense, cut
    from explorer.viz.page import draw_condensed, draw_graph

    if condensed is not None:
        if game.convention == MISERE:
            raise SpecError("--condensed groups normal-play values; draw misère play without it")
        stats = game.stats()
        if stats.states > max_states:
            return draw_condensed(_counted_groups(game, stats, condensed, max_states))
        return draw_condensed(condense(game.subgraph(limit=max_states), by=condensed))
    graph = game.neighbourhood(position, depth, "both", max_states=max_states)
    drawn = cut(
        graph, graph.graph["root"], budget=budget, radius=depth, both_ways=True, complete=False
    )
    drawn.graph["wording"] = wording
    drawn.graph["parts"] = _stored_parts(game, str(graph.graph["root"]))
    return draw_graph(drawn)


def _stored_parts(game: StoredGame, position: str) -> PartsView | None:
    """The parts of a stored position of a game whose rules load (not one on a graph file),
    valued with the part values the database stores; None in misère play."""
    from explorer.games import load_game
    from explorer.games.specs import GameSpec
    from explorer.storage.rows.part_values import SharedParts
    from explorer.viz.parts import known_values, parts_view

    if game.convention == MISERE or GameSpec.parse(game.spec).names_file:
        return None
    rules = game.given if game.given is not None else load_game(game.spec)
    table = SharedParts(game.engine).read(rules)
    return parts_view(rules, rules.parse(position), value_of=known_values(table))


def _counted_groups(game: StoredGame, stats: GameStats, by: GroupBy, max_states: int) -> nx.DiGraph:
    """The groups of a stored game too big to load, counted in the database, without moves."""
    import networkx as nx

    groups = nx.DiGraph(
        game=stats.game,
        by=by,
        states=stats.states,
        moves=stats.edges,
        note=(
            f"The {stats.states:,} stored states are more than --max-states "
            f"{max_states:,}: the groups are counted in the database and the moves between them "
            "are not drawn (raise --max-states to draw them)."
        ),
    )
    counts = stats.by_grundy if by == "grundy" else stats.by_depth
    for key, count in sorted(counts.items()):
        if by == "grundy":
            zeros = count if key == 0 else 0
        else:
            zeros = game.states(outcome="P", depth=key, limit=0)["total"]
        groups.add_node(key, states=count, p_positions=zeros)
    return groups
