"""`explorer serve`'s app: its pages and routes over a stored game database, read-only.

Every page has its own URL (the game and the position travel as query parameters, and
``convention=misere`` names a game's misère build) and is rendered on the server from
autoescaped jinja2 templates. The app serves its own scripts (its graph script, and vis-network
from pyvis' package data): a strict Content-Security-Policy (`explorer.web.middleware`) lets
nothing else load. The database is opened read-only by the caller; no route writes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus, urlencode

from explorer.errors import BadRequest, DatabaseError, ExplorerError, NotStoredError
from explorer.games.convention import MISERE, Convention
from explorer.limits import MAX_STORED_INT
from explorer.solver import outcome
from explorer.viz import templating
from explorer.viz.palette import (
    DEPTH_COLOUR,
    N_MARK,
    P_COLOUR,
    UNSOLVED_COLOUR,
    game_title,
    grundy_colour,
    outcome_text,
)
from explorer.web.cache import Counts
from explorer.web.charts import bars, game_charts, heat_colour, vis_graph
from explorer.web.findings import findings
from explorer.web.middleware import Guard, allowed_hosts
from explorer.web.params import Named, Names, convention_of, number, spec_of, text
from explorer.web.parts import StoredParts, stored_drawing

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.datastructures import QueryParams
    from starlette.requests import Request
    from starlette.responses import Response

    from explorer.storage import Database, GameStats
    from explorer.storage.stored_game import StoredGame

log = logging.getLogger(__name__)

templating.add_folder("serve", Path(__file__).with_name("templates"))

#: Most states drawn around a position; the nearest are kept and the page says so.
GRAPH_STATES = 200
#: Neighbourhood radius drawn by default, and the largest one a URL may ask for.
GRAPH_DEPTH, MAX_GRAPH_DEPTH = 2, 4
#: Moves and predecessors listed on a position page (the best moves, the first predecessors).
LISTED_MOVES, LISTED_PREDECESSORS = 200, 50
#: States per page of a filtered listing.
PAGE_STATES = 50
#: Longest game the play page replays (its positions travel in the URL).
MAX_PLAY_MOVES = 1_000
#: Largest heap of a plotted sequence, and largest side of a heat map.
SEQUENCE_HEAPS, TABLE_SIDE = 1_000, 64
#: Seconds after which a page still counting reloads itself.
RELOAD_SECONDS = 3

#: Files under /static/: our own (in ``templates/serve/``), and vis-network as pyvis ships it.
STATIC_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
OWN_FILES = ("serve.js", "serve.css", "favicon.svg")


def link(path: str, **params: object) -> str:
    """A URL of the app: `path` with its query parameters (lists repeat the parameter).

    Examples
    --------
    >>> link("/position", spec="nim", p="1,2")
    '/position?spec=nim&p=1%2C2'
    """
    pairs = []
    for name, value in params.items():
        values = value if isinstance(value, list | tuple) else [value]
        pairs += [(name, str(v)) for v in values if v is not None]
    return path + ("?" + urlencode(pairs) if pairs else "")


def _in_links(convention: Convention | None) -> Convention | None:
    """The ``convention`` parameter of the app's links: only for a misère build."""
    return MISERE if convention == MISERE else None


def _moves_text(state: Mapping[str, Any]) -> str:
    """What moving to `state` means for the player who moves there."""
    far = state.get("remoteness")
    after = "" if far is None else f" ({far} more {'move' if far == 1 else 'moves'})"
    if state.get("outcome") == "P":
        return "wins" + after
    if state.get("outcome") == "N":
        return "loses" + after
    if state.get("outcome") == "D":
        return "draws"
    return "not solved yet"


def _move_class(state: Mapping[str, Any]) -> str:
    return {"P": "win", "N": "lose", "D": "draw"}.get(str(state.get("outcome")), "unknown")


class Pages:
    """The routes of the app, over one read-only database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.counts = Counts(database)
        self.names = Names(database)
        self.parts = StoredParts(database)
        self.helpers = {
            "link": link,
            "outcome_text": outcome_text,
            "colour": self._colour,
            "moves_text": _moves_text,
            "move_class": _move_class,
            "database_url": database.url,
        }
        self.static = _static_files()

    @staticmethod
    def _colour(value: int | None) -> str:
        return UNSOLVED_COLOUR if value is None else grundy_colour(value)

    def render(self, name: str, status: int = 200, **context: Any) -> Response:
        from starlette.responses import HTMLResponse

        # the templates name the convention only of a misère build, as the links do
        context["convention"] = _in_links(context.get("convention"))
        page = templating.render(f"serve/{name}", **self.helpers, **context)
        return HTMLResponse(page, status_code=status)

    def error(self, status: int, message: str, **context: Any) -> Response:
        return self.render("error.html", status, message=message, title="Error", **context)

    # -- pages ------------------------------------------------------------------------------
    def games(self, request: Request) -> Response:
        building = self.database.building()
        listed = self.counts.games(bool(building))
        if listed is not None:  # a row of another convention (a damaged one) cannot be named
            listed = [row for row in listed if row["convention"] in set(Convention)]
        games = []
        handles = [self.database.game(row["game"], row["convention"]) for row in listed or []]
        for row, stored in zip(listed or [], handles, strict=True):
            # start every game's count at once, then wait for them
            self.counts.stats(stored, row["game"] in building, wait=0)
        for row, stored in zip(listed or [], handles, strict=True):
            convention = stored.convention
            stats = self.counts.stats(stored, row["game"] in building)
            games.append(
                {
                    **row,
                    "building": row["game"] in building,
                    "link_convention": _in_links(convention),
                    **game_charts(stats, convention),
                }
            )
        counting = listed is None or any(g["counting"] for g in games)
        return self.render(
            "games.html",
            games=games,
            listed=listed is not None,
            title="Stored games",
            reload=RELOAD_SECONDS if counting else None,
        )

    def game(self, request: Request) -> Response:
        convention = convention_of(request.query_params)
        named = self.names.game(spec_of(request.query_params), convention)
        spec = named.shown
        building = named.spec in self.database.building()
        stats = self.counts.stats(named.stored, building)
        title = game_title(spec, convention)
        if stats is None:
            return self.render(
                "game.html", title=title, spec=spec, stats=None, building=building,
                reload=RELOAD_SECONDS, convention=convention, example=_example(named.stored),
            )  # fmt: skip
        # the plots of one heap and of two coordinates show normal-play values
        return self.render(
            "game.html",
            title=title,
            spec=spec,
            convention=convention,
            stats=stats,
            building=building,
            depths=bars(stats.by_depth, lambda _: DEPTH_COLOUR, lambda d: f"depth {d}"),
            sequence=None if convention == MISERE else self._sequence(named, stats),
            table=None if convention == MISERE else self._table(named, stats),
            found=None if convention == MISERE else findings(named.stored),
            reload=None,
            example=_example(named.stored),
            **game_charts(stats, convention),
        )

    def position(self, request: Request) -> Response:
        params = request.query_params
        typed = spec_of(params)
        key = text(params, "p")
        if key is None:
            raise BadRequest("no position named (add &p=POSITION to the address)")
        depth = number(params, "depth", low=1, high=MAX_GRAPH_DEPTH) or GRAPH_DEPTH
        convention = convention_of(params)
        named = self.names.game(typed, convention)
        stored = named.stored
        state = _state(named, key)
        spec, key = str(state["game"]), str(state["position"])
        if params.get("p") != key or params.get("spec") != spec:
            return _redirect(
                link(
                    "/position",
                    spec=spec,
                    convention=_in_links(convention),
                    p=key,
                    depth=params.get("depth"),
                )
            )
        moves = stored.best_moves(key, limit=LISTED_MOVES)
        predecessors = stored.predecessors(key, limit=LISTED_PREDECESSORS)
        graph = stored.nearby(key, depth=depth, limit=GRAPH_STATES)
        prefix = link("/position", spec=spec, convention=_in_links(convention)) + "&p="
        drawn = vis_graph(graph, lambda p: prefix + quote_plus(p))
        graph_json = templating.trusted(templating.script_json(drawn))
        return self.render(
            "position.html",
            title=f"{game_title(spec, convention)} {key}",
            spec=spec,
            convention=convention,
            state=state,
            moves=moves,
            predecessors=predecessors,
            graph=drawn,
            graph_json=graph_json,
            depth=depth,
            max_depth=MAX_GRAPH_DEPTH,
            cut=graph.graph["cut"],
            graph_states=GRAPH_STATES,
            building=named.spec in self.database.building(),
            parts=self.parts.view(named, key),
            board=stored_drawing(named, key),
            example=_example(stored),
        )

    def search(self, request: Request) -> Response:
        params = request.query_params
        spec = spec_of(params)
        convention = convention_of(params)
        query = text(params, "q") or ""
        try:
            state = _state(self.names.game(spec, convention), query)
        except ExplorerError as error:
            return self.error(404, str(error), spec=spec, query=query, convention=convention)
        return _redirect(
            link(
                "/position",
                spec=state["game"],
                convention=_in_links(convention),
                p=state["position"],
            )
        )

    def states(self, request: Request) -> Response:
        params = request.query_params
        typed = spec_of(params)
        outcome = params.get("outcome", "").strip().upper() or None
        if outcome not in (None, "P", "N", "D"):
            raise BadRequest(f"outcome must be P, N or D, not {params.get('outcome')!r}")
        grundy = number(params, "grundy")
        depth = number(params, "depth")
        # the offset of the page's first state is stored in 64 bits too
        page = number(params, "page", low=1, high=MAX_STORED_INT // PAGE_STATES) or 1
        convention = convention_of(params)
        stored = self.names.game(typed, convention).stored
        found = stored.states(
            outcome=outcome,
            grundy=grundy,
            depth=depth,
            limit=PAGE_STATES,
            offset=(page - 1) * PAGE_STATES,
            count=False,
        )
        spec = found["game"]
        pages = None if found["total"] is None else _pages(found["total"])
        # past the last page: an empty page (as for filters no state matches), whose
        # previous page is the last one
        back = min(page - 1, pages or page - 1)
        filters = {
            "spec": spec,
            "convention": _in_links(convention),
            "outcome": outcome,
            "grundy": grundy,
            "depth": depth,
        }
        return self.render(
            "states.html",
            title=f"{game_title(spec, convention)} states",
            spec=spec,
            convention=convention,
            found=found,
            page=page,
            filters=filters,
            previous=link("/states", **filters, page=back) if page > 1 else None,
            following=link("/states", **filters, page=page + 1) if found["more"] else None,
            pages=pages,
            example=_example(stored),
        )

    def play(self, request: Request) -> Response:
        params = request.query_params
        typed = spec_of(params)
        line, app_side = _played(params)
        hints = params.get("hints") == "1"
        convention = convention_of(params)
        named = self.names.game(typed, convention)
        stored = named.stored
        start = _state(named, line[0])
        spec = str(start["game"])
        keys = [str(start["position"]), *line[1:]]
        illegal = stored.first_illegal_move(keys)
        if illegal is not None:
            raise BadRequest(
                f"move {illegal} of the game, to {keys[illegal]!r}, is not a stored move of "
                f"{spec} from {keys[illegal - 1]!r}"
            )

        def url(positions: list[str], side: str = app_side, show: bool = hints) -> str:
            return link(
                "/play",
                spec=spec,
                convention=_in_links(convention),
                app=side,
                hints="1" if show else None,
                p=positions,
            )

        if keys != line:
            return _redirect(url(keys))
        made = len(keys) - 1
        app_to_move = (made % 2 == 0) == (app_side == "first")
        current = stored.state(keys[-1], moves=0)
        # a position a stopped build never expanded has no stored move, yet the game goes on
        unexplored = not current["expanded"]
        at_limit = made >= MAX_PLAY_MOVES  # a game with cycles may go on for ever
        best = stored.best_moves(keys[-1], limit=1)
        if best["total"] and app_to_move and not at_limit:
            return _redirect(url([*keys, best["states"][0]["position"]]))
        if hints:
            choices = stored.best_moves(keys[-1], limit=LISTED_MOVES)
        else:
            choices = stored.successors(keys[-1], limit=LISTED_MOVES)
        history = _history(keys, stored.move_words(keys), app_side)
        finished = best["total"] == 0 and not unexplored
        winner = None
        if finished:
            # normal play: the player who cannot move loses; misère play: that player wins
            winner = "you" if app_to_move != (convention == MISERE) else "app"
        return self.render(
            "play.html",
            title=f"play {game_title(spec, convention)} from {keys[0]}",
            spec=spec,
            convention=convention,
            keys=keys,
            start=start,
            current=current,
            history=history,
            choices=(
                []
                if at_limit
                else [dict(s, url=url([*keys, s["position"]])) for s in choices["states"]]
            ),
            unexplored=unexplored,
            at_limit=at_limit,
            max_moves=MAX_PLAY_MOVES,
            total_choices=choices["total"],
            finished=finished,
            winner=winner,
            hints=hints,
            app_side=app_side,
            toggle_hints=url(keys, show=not hints),
            restart_first=url(keys[:1], side="first"),
            restart_second=url(keys[:1], side="second"),
            undo=url(keys[:-2]) if len(keys) > 2 else None,
            board=stored_drawing(named, keys[-1], keys[0]),
        )

    def static_file(self, request: Request) -> Response:
        from starlette.responses import Response

        name = request.path_params["name"]
        if name not in self.static:
            return self.error(404, f"no file {name!r}")
        body, kind = self.static[name]
        return Response(body, media_type=kind, headers={"cache-control": "max-age=3600"})

    # -- sequence and table ---------------------------------------------------------------
    def _sequence(self, named: Named, stats: GameStats) -> dict[str, Any] | None:
        """G(n) of single heaps stored for a heap game, as points of a scatter plot."""
        game = named.rules
        if game is None or game.heap_rules() is None:
            return None
        largest = 0
        for build in stats.builds:
            try:
                largest = max(largest, *game.parse(str(build.position)), 0)
            except (ExplorerError, TypeError):
                continue
        largest = min(largest, SEQUENCE_HEAPS)
        found = named.stored.lookup([game.format(game.parse(str(n))) for n in range(largest + 1)])
        points = []
        for n in range(largest + 1):
            state = found.get(str(n))
            if state is not None and state["grundy"] is not None:
                points.append((n, int(state["grundy"])))
        if len(points) < 2:
            return None
        top = max(g for _, g in points) or 1
        width, height = 640, 220
        return {
            "width": width,
            "height": height,
            "largest": largest,
            "top": top,
            "points": [
                {
                    "x": round(40 + (width - 50) * n / max(1, largest), 1),
                    "y": round(height - 25 - (height - 40) * g / top, 1),
                    "n": n,
                    "g": g,
                    "colour": P_COLOUR if outcome(g) == "P" else N_MARK,
                }
                for n, g in points
            ],
        }

    def _table(self, named: Named, stats: GameStats) -> dict[str, Any] | None:
        """G(r, c) of the stored positions of a two-coordinate game, as heat-map cells."""
        game = named.rules
        if game is None or not game.table_positions:
            return None
        side = 0
        for build in stats.builds:
            text = str(build.position)
            parts = text.split(",")
            if len(parts) == 2 and all(p.strip().isascii() and p.strip().isdigit() for p in parts):
                side = max(side, *(int(p) + 1 for p in parts))
        side = min(side, TABLE_SIDE)
        cells: dict[tuple[int, int], str] = {}
        for r in range(side):
            for c in range(side):
                try:
                    cells[r, c] = game.format(game.parse(f"{r},{c}"))
                except ExplorerError:
                    continue
        found = named.stored.lookup(list(cells.values()))
        values = {rc: found[key]["grundy"] for rc, key in cells.items() if key in found}
        if not values:
            return None
        top = max((int(v) for v in values.values() if v is not None), default=1)
        size = max(6, min(24, 640 // max(1, side)))
        return {
            "side": side,
            "size": size,
            "top": top,
            "width": 30 + size * side,
            "height": 30 + size * side,
            "cells": [
                {
                    "x": 30 + c * size,
                    "y": 30 + r * size,
                    "r": r,
                    "c": c,
                    "g": g,
                    "colour": heat_colour(g, top),
                }
                for (r, c), g in sorted(values.items())
            ],
        }


def _state(named: Named, key: str) -> Mapping[str, Any]:
    """A stored position of a named game; of a game on a graph file (whose rules are not
    loaded), as typed, else stripped, as the file's rules would read it."""
    try:
        return named.stored.state(key, moves=0)
    except NotStoredError:
        if named.rules is not None or key.strip() == key:
            raise
        return named.stored.state(key.strip(), moves=0)


def _played(params: QueryParams) -> tuple[list[str], str]:
    """The positions of a game played so far (``p``, the start first) and the side the app
    plays (``app``: first or second), checked."""
    line = params.getlist("p")
    if not line:
        raise BadRequest("no start position (add &p=POSITION to the address)")
    if any("\x00" in key for key in line):
        raise BadRequest("p must not hold a NUL character")
    if len(line) > MAX_PLAY_MOVES + 1:
        raise BadRequest(f"a game of more than {MAX_PLAY_MOVES:,} moves cannot be replayed")
    app_side = params.get("app", "second")
    if app_side not in ("first", "second"):
        raise BadRequest(f"app must be first or second, not {app_side!r}")
    return line, app_side


def _history(keys: list[str], words: list[str | None], app_side: str) -> list[dict[str, Any]]:
    """The moves of a game played so far: their number, who made each, where it went and the
    move in words."""
    history = []
    for i, (key, move) in enumerate(zip(keys[1:], words, strict=True), start=1):
        mover_is_app = ((i - 1) % 2 == 0) == (app_side == "first")
        by = "app" if mover_is_app else "you"
        history.append({"number": i, "by": by, "position": key, "move": move})
    return history


def _example(stored: StoredGame) -> str:
    """A position of the game for a search box to suggest: the first stored start."""
    first = stored.states(depth=0, limit=1, count=False)["states"]
    return str(first[0]["position"]) if first else ""


def _pages(total: int) -> int:
    """The pages a listing of `total` states fills (at least one, even when empty)."""
    return max(1, -(-total // PAGE_STATES))


def _redirect(url: str) -> Response:
    from starlette.responses import RedirectResponse

    return RedirectResponse(url, status_code=303)


def _static_files() -> dict[str, tuple[bytes, str]]:
    """Our script, style and icon, and vis-network as pyvis ships it, read once."""
    files = {
        name: (templating.asset(f"serve/{name}").encode(), STATIC_TYPES[Path(name).suffix])
        for name in OWN_FILES
    }
    files["vis-network.min.js"] = (templating.vis_network().encode(), STATIC_TYPES[".js"])
    return files


def create_app(database: Database, *, host: str = "127.0.0.1", port: int = 8000) -> Starlette:
    """The web app over an open (read-only) database, answering to `host` and `port` only.

    Parameters
    ----------
    database : Database
        Open it with ``open_database(url, read_only=True)``: the app never writes, and a
        read-only connection makes sure of it.
    host, port : str, int
        The address the server is bound to: requests naming another host get 421.

    Returns
    -------
    starlette.applications.Starlette
        Run it with uvicorn (``explorer serve`` does).
    """
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    pages = Pages(database)

    def page(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def guarded(request: Request) -> Response:
            try:
                return handler(request)
            except BadRequest as error:
                return pages.error(400, str(error))
            except NotStoredError as error:
                return pages.error(404, str(error))
            except DatabaseError as error:  # unreadable, locked, damaged: not the request's fault
                return pages.error(503, str(error))
            except ExplorerError as error:
                return pages.error(400, str(error))
            except Exception:  # a bug: logged with its traceback, and a plain page, no details
                log.exception("%s %s failed", request.method, request.url.path)
                return PlainTextResponse("internal error: see the server's log\n", 500)

        return guarded

    routes = [
        Route("/", page(pages.games), methods=["GET", "HEAD"]),
        Route("/game", page(pages.game), methods=["GET", "HEAD"]),
        Route("/position", page(pages.position), methods=["GET", "HEAD"]),
        Route("/search", page(pages.search), methods=["GET", "HEAD"]),
        Route("/states", page(pages.states), methods=["GET", "HEAD"]),
        Route("/play", page(pages.play), methods=["GET", "HEAD"]),
        Route("/static/{name}", pages.static_file, methods=["GET", "HEAD"]),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(Guard, hosts=allowed_hosts(host, port))],
    )
