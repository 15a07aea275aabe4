"""`explorer serve`: a local web app over a stored game database, read-only (Starlette).

Every page has its own URL (the game and the position travel as query parameters, and
``convention=misere`` names a game's misère build) and is
rendered on the server from autoescaped jinja2 templates. The app serves its own scripts (its
graph script, and vis-network from pyvis' package data): a strict Content-Security-Policy lets
nothing else load, and requests naming a host other than the bound address are refused (DNS
rebinding). The database is opened read-only by the caller; no route writes.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus, urlencode

import networkx as nx

from explorer.errors import DatabaseError, ExplorerError
from explorer.games.base import Game
from explorer.games.heaps import HeapGame
from explorer.games.pyspec import stored_rules
from explorer.solver import outcome
from explorer.solver.misere import MISERE, NORMAL
from explorer.viz import templating
from explorer.viz.page import OPTIONS, graph_drawing
from explorer.viz.palette import (
    DEPTH_COLOUR,
    HIGH_COLOUR,
    MOVE_COLOUR,
    N_MARK,
    P_COLOUR,
    UNSOLVED_COLOUR,
    game_title,
    grundy_colour,
    outcome_text,
)

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from explorer.storage import Database

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
#: Grundy values charted one bar each; larger ones share the last bar.
CHART_VALUES = 32
#: Seconds the counts of a game stay cached while one of its builds runs.
BUILDING_TTL = 5.0
#: Seconds a page waits for counts before it shows what it has (and reloads itself).
COUNT_WAIT = 1.0
#: Seconds after which a page still counting reloads itself.
RELOAD_SECONDS = 3

#: Only what the app itself serves may load; nothing inline runs; no frame may embed a page.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]

#: Files under /static/: our own (in ``templates/serve/``), and vis-network as pyvis ships it.
STATIC_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
OWN_FILES = ("serve.js", "serve.css", "favicon.svg")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def allowed_hosts(host: str, port: int) -> set[str]:
    """The Host headers the app answers when bound to `host` and `port`.

    The bound address itself (with its port, or without it on port 80), and ``localhost`` when
    the address is a loopback one; any other name could be an attacker's DNS name rebound to
    this address.

    Examples
    --------
    >>> sorted(allowed_hosts("127.0.0.1", 8000))
    ['127.0.0.1:8000', 'localhost:8000']
    """
    address = f"[{host}]" if ":" in host else host
    names = {address.lower()}
    if is_loopback(host):
        names.add("localhost")
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:
        hosts |= names
    return hosts


class Guard:
    """ASGI middleware: refuse foreign Host headers; add the security headers and the server's
    time (``Server-Timing``) to every response."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        started = time.perf_counter()

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                # the server's own time, for browsers' developer tools and the benchmark
                spent = f"app;dur={(time.perf_counter() - started) * 1000:.2f}".encode()
                message["headers"] = [
                    *message.get("headers", []),
                    *SECURITY_HEADERS,
                    (b"server-timing", spent),
                ]
            await send(message)

        host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1").lower()
        if host not in self.hosts:
            body = (
                b"refused: this server answers only to "
                + ", ".join(sorted(self.hosts)).encode()
                + b"\n"
            )
            await secured(
                {
                    "type": "http.response.start",
                    "status": 421,
                    "headers": [
                        (b"content-type", b"text/plain; charset=utf-8"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await secured({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, secured)


class BadRequest(ExplorerError, ValueError):
    """A page was asked for with missing or malformed parameters."""


class ServeError(ExplorerError, OSError):
    """The server cannot listen on the address asked for."""


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


@dataclass
class _Cached:
    value: Any
    version: tuple[object, ...]
    at: float
    building: bool


class Counts:
    """The counts of the stored games (`Database.games`, `Database.stats`), computed in the
    background and kept until the database changes.

    Counting reads every state of a game (seconds on millions of states), so a page never waits
    for it more than `COUNT_WAIT` seconds: it shows what was counted before, or nothing yet,
    and a fresh count is made in a thread of its own. Counts are kept until a build, import or
    edit starts or ends, and for `BUILDING_TTL` seconds only while a build runs.
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self.lock = threading.Lock()
        self.cache: dict[str, _Cached] = {}
        self.running: dict[str, threading.Event] = {}
        self.failed: dict[str, BaseException] = {}

    def stats(
        self, spec: str, building: bool, wait: float = COUNT_WAIT, *, misere: bool = False
    ) -> dict[str, Any] | None:
        """`Database.stats` of a game (of its misère build with `misere`), or None while it is
        being counted."""
        found: dict[str, Any] | None = self._get(
            f"stats {'misere' if misere else 'normal'} {spec}",
            building,
            lambda: self.database.stats(spec, misere=misere),
            wait,
        )
        return found

    def games(self, building: bool) -> list[dict[str, Any]] | None:
        """`Database.games` (each game with its numbers of states and edges), or None."""
        found: list[dict[str, Any]] | None = self._get(
            "games", building, self.database.games, COUNT_WAIT
        )
        return found

    def _get(self, name: str, building: bool, compute: Callable[[], Any], wait: float) -> Any:
        version = self.database.version()
        now = time.monotonic()
        with self.lock:
            if name in self.failed:
                raise self.failed.pop(name)
            hit = self.cache.get(name)
            if (
                hit is not None
                and hit.version == version
                and not (hit.building and now - hit.at > BUILDING_TTL)
            ):
                return hit.value
            done = self.running.get(name)
            if done is None:
                done = self.running[name] = threading.Event()
                worker = threading.Thread(
                    target=self._count, args=(name, compute, version, building, done), daemon=True
                )
                worker.start()
        done.wait(wait)
        with self.lock:
            if name in self.failed and done.is_set():
                raise self.failed.pop(name)
            hit = self.cache.get(name)
        return None if hit is None else hit.value

    def _count(
        self,
        name: str,
        compute: Callable[[], Any],
        version: tuple[object, ...],
        building: bool,
        done: threading.Event,
    ) -> None:
        try:
            value = compute()
        except BaseException as error:  # handed to the page that asks next
            with self.lock:
                self.failed[name] = error
                del self.running[name]
            done.set()
            return
        with self.lock:
            self.cache[name] = _Cached(value, version, time.monotonic(), building)
            del self.running[name]
        done.set()


def _int(
    params: Mapping[str, str], name: str, *, low: int = 0, high: int | None = None
) -> int | None:
    text = params.get(name, "").strip()
    if not text:
        return None
    if not text.isdigit() or (high is not None and int(text) > high) or int(text) < low:
        bound = f" from {low} to {high}" if high is not None else f" of at least {low}"
        raise BadRequest(f"{name} must be a whole number{bound}, not {text!r}")
    return int(text)


def _spec(params: Mapping[str, str]) -> str:
    spec = params.get("spec", "").strip()
    if not spec:
        raise BadRequest("no game named (add ?spec=GAME to the address)")
    return spec


def _misere(params: Mapping[str, str]) -> bool:
    """Whether the address names a game's misère build (``convention=misere``)."""
    convention = params.get("convention", "").strip()
    if convention not in ("", NORMAL, MISERE):
        raise BadRequest(f"convention must be normal or misere, not {convention!r}")
    return convention == MISERE


def _convention(misere: bool) -> str | None:
    """The ``convention`` parameter of the app's links: only for a misère build."""
    return MISERE if misere else None


def _game(spec: str) -> Game[Any] | None:
    """The rules of a stored game, when they load (a DAG game's file may be gone); a game
    with Python rules is never run to be shown (see `stored_rules`)."""
    try:
        return stored_rules(spec)
    except ExplorerError:
        return None


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


def _bars(
    counts: Mapping[Any, int], colour: Callable[[Any], str], label: Callable[[Any], str]
) -> list[dict[str, Any]]:
    """Rows of a horizontal bar chart, the longest bar full width."""
    items = list(counts.items())
    if len(items) > CHART_VALUES:
        rest = sum(n for _, n in items[CHART_VALUES - 1 :])
        items = [*items[: CHART_VALUES - 1], (None, rest)]
    top = max((n for _, n in items), default=1) or 1
    total = sum(n for _, n in items) or 1
    return [
        {
            "label": "more" if key is None else label(key),
            "count": n,
            "width": round(300 * n / top, 1),
            "share": n / total,
            "colour": HIGH_COLOUR if key is None else colour(key),
        }
        for key, n in items
    ]


def _heat(value: int | None, top: int) -> str:
    """A heat-map colour: P-positions in the P colour, others from light to dark blue-green."""
    if value is None:
        return UNSOLVED_COLOUR
    if outcome(value) == "P":
        return P_COLOUR
    stops = [(0xFF, 0xF7, 0xBC), (0x7F, 0xCD, 0xBB), (0x2C, 0x7F, 0xB8), (0x25, 0x34, 0x94)]
    t = (value - 1) / max(1, top - 1) * (len(stops) - 1)
    i = min(int(t), len(stops) - 2)
    f = t - i
    r, g, b = (round(a + (c - a) * f) for a, c in zip(stops[i], stops[i + 1], strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def vis_graph(graph: nx.DiGraph, url: Callable[[str], str]) -> dict[str, Any]:
    """The vis-network data of a neighbourhood, drawn as `explorer viz` draws it, with links.

    Nodes, edges, options and legend are those of `explorer.viz.page.graph_drawing`; each node
    also carries the `url` of its position's page.
    """
    drawing = graph_drawing(graph)
    nodes = [dict(node, url=url(node["position"])) for node in drawing.nodes]
    return {
        "nodes": nodes,
        "edges": drawing.edges,
        "options": OPTIONS,
        "legend": [item._asdict() for item in drawing.legend],
    }


class Pages:
    """The routes of the app, over one read-only database."""

    def __init__(self, database: Database) -> None:
        self.database = database
        self.counts = Counts(database)
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

        context.setdefault("convention", None)
        page = templating.render(f"serve/{name}", **self.helpers, **context)
        return HTMLResponse(page, status_code=status)

    def error(self, status: int, message: str, **context: Any) -> Response:
        return self.render("error.html", status, message=message, title="Error", **context)

    # -- pages ------------------------------------------------------------------------------
    def games(self, request: Request) -> Response:
        building = self.database.building()
        listed = self.counts.games(bool(building))
        games = []
        for row in listed or []:  # start every game's count at once, then wait for them
            misere = row["convention"] == MISERE
            self.counts.stats(row["game"], row["game"] in building, wait=0, misere=misere)
        for row in listed or []:
            misere = row["convention"] == MISERE
            stats = self.counts.stats(row["game"], row["game"] in building, misere=misere)
            games.append(
                {
                    **row,
                    "building": row["game"] in building,
                    "link_convention": _convention(misere),
                    **_charts(stats, misere),
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
        spec = _spec(request.query_params)
        misere = _misere(request.query_params)
        game = _game(spec)
        spec = spec if game is None else game.spec
        building = spec in self.database.building()
        stats = self.counts.stats(spec, building, misere=misere)
        title = spec + (" (misère)" if misere else "")
        convention = _convention(misere)
        if stats is None:
            return self.render(
                "game.html", title=title, spec=spec, stats=None, building=building,
                reload=RELOAD_SECONDS, convention=convention,
            )  # fmt: skip
        # the plots of one heap and of two coordinates show normal-play values
        return self.render(
            "game.html",
            title=title,
            spec=spec,
            convention=convention,
            stats=stats,
            building=building,
            depths=_bars(stats["by_depth"], lambda _: DEPTH_COLOUR, lambda d: f"depth {d}"),
            sequence=None if misere else self._sequence(spec, game, stats),
            table=None if misere else self._table(spec, game, stats),
            reload=None,
            **_charts(stats, misere),
        )

    def position(self, request: Request) -> Response:
        params = request.query_params
        spec = _spec(params)
        key = params.get("p")
        if key is None:
            raise BadRequest("no position named (add &p=POSITION to the address)")
        depth = _int(params, "depth", low=1, high=MAX_GRAPH_DEPTH) or GRAPH_DEPTH
        misere = _misere(params)
        convention = _convention(misere)
        state = self.database.state(spec, key, moves=0, misere=misere)
        spec, key = str(state["game"]), str(state["position"])
        if params.get("p") != key or params.get("spec") != spec:
            return _redirect(
                link(
                    "/position",
                    spec=spec,
                    convention=convention,
                    p=key,
                    depth=params.get("depth"),
                )
            )
        moves = self.database.best_moves(spec, key, limit=LISTED_MOVES, misere=misere)
        predecessors = self.database.predecessors(
            spec, key, limit=LISTED_PREDECESSORS, misere=misere
        )
        graph = self.database.nearby(spec, key, depth=depth, limit=GRAPH_STATES, misere=misere)
        prefix = link("/position", spec=spec, convention=convention) + "&p="
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
            building=spec in self.database.building(),
        )

    def search(self, request: Request) -> Response:
        params = request.query_params
        spec = _spec(params)
        misere = _misere(params)
        query = params.get("q", "")
        try:
            state = self.database.state(spec, query, moves=0, misere=misere)
        except ExplorerError as error:
            return self.error(
                404, str(error), spec=spec, query=query, convention=_convention(misere)
            )
        return _redirect(
            link(
                "/position",
                spec=state["game"],
                convention=_convention(misere),
                p=state["position"],
            )
        )

    def states(self, request: Request) -> Response:
        params = request.query_params
        spec = _spec(params)
        outcome = params.get("outcome", "").strip().upper() or None
        if outcome not in (None, "P", "N", "D"):
            raise BadRequest(f"outcome must be P or N, not {params.get('outcome')!r}")
        grundy = _int(params, "grundy")
        depth = _int(params, "depth")
        page = _int(params, "page", low=1) or 1
        misere = _misere(params)
        found = self.database.states(
            spec,
            outcome=outcome,
            grundy=grundy,
            depth=depth,
            limit=PAGE_STATES,
            offset=(page - 1) * PAGE_STATES,
            count=False,
            misere=misere,
        )
        spec = found["game"]
        filters = {
            "spec": spec,
            "convention": _convention(misere),
            "outcome": outcome,
            "grundy": grundy,
            "depth": depth,
        }
        return self.render(
            "states.html",
            title=f"{game_title(spec, _convention(misere))} states",
            spec=spec,
            convention=_convention(misere),
            found=found,
            page=page,
            filters=filters,
            previous=link("/states", **filters, page=page - 1) if page > 1 else None,
            following=link("/states", **filters, page=page + 1) if found["more"] else None,
        )

    def play(self, request: Request) -> Response:
        params = request.query_params
        spec = _spec(params)
        line = params.getlist("p")
        if not line:
            raise BadRequest("no start position (add &p=POSITION to the address)")
        if len(line) > MAX_PLAY_MOVES + 1:
            raise BadRequest(f"a game of more than {MAX_PLAY_MOVES:,} moves cannot be replayed")
        app_side = params.get("app", "second")
        if app_side not in ("first", "second"):
            raise BadRequest(f"app must be first or second, not {app_side!r}")
        hints = params.get("hints") == "1"
        misere = _misere(params)
        convention = _convention(misere)
        start = self.database.state(spec, line[0], moves=0, misere=misere)
        spec = str(start["game"])
        keys = [str(start["position"]), *line[1:]]
        illegal = self.database.first_illegal_move(spec, keys, misere=misere)
        if illegal is not None:
            raise BadRequest(
                f"move {illegal} of the game, to {keys[illegal]!r}, is not a stored move of "
                f"{spec} from {keys[illegal - 1]!r}"
            )

        def url(positions: list[str], side: str = app_side, show: bool = hints) -> str:
            return link(
                "/play",
                spec=spec,
                convention=convention,
                app=side,
                hints="1" if show else None,
                p=positions,
            )

        if keys != line:
            return _redirect(url(keys))
        made = len(keys) - 1
        app_to_move = (made % 2 == 0) == (app_side == "first")
        best = self.database.best_moves(spec, keys[-1], limit=1, misere=misere)
        if best["total"] and app_to_move:
            return _redirect(url([*keys, best["states"][0]["position"]]))
        if hints:
            choices = self.database.best_moves(spec, keys[-1], limit=LISTED_MOVES, misere=misere)
        else:
            choices = self.database.successors(spec, keys[-1], limit=LISTED_MOVES, misere=misere)
        current = self.database.state(spec, keys[-1], moves=0, misere=misere)
        history = []
        for i, key in enumerate(keys[1:], start=1):
            mover_is_app = ((i - 1) % 2 == 0) == (app_side == "first")
            history.append({"number": i, "by": "app" if mover_is_app else "you", "position": key})
        finished = best["total"] == 0
        winner = None
        if finished:
            # normal play: the player who cannot move loses; misère play: that player wins
            winner = "you" if app_to_move != misere else "app"
        return self.render(
            "play.html",
            title=f"play {game_title(spec, convention)} from {keys[0]}",
            spec=spec,
            convention=convention,
            keys=keys,
            start=start,
            current=current,
            history=history,
            choices=[dict(s, url=url([*keys, s["position"]])) for s in choices["states"]],
            total_choices=choices["total"],
            finished=finished,
            winner=winner,
            hints=hints,
            app_side=app_side,
            toggle_hints=url(keys, show=not hints),
            restart_first=url(keys[:1], side="first"),
            restart_second=url(keys[:1], side="second"),
            undo=url(keys[:-2]) if len(keys) > 2 else None,
        )

    def static_file(self, request: Request) -> Response:
        from starlette.responses import Response

        name = request.path_params["name"]
        if name not in self.static:
            return self.error(404, f"no file {name!r}")
        body, kind = self.static[name]
        return Response(body, media_type=kind, headers={"cache-control": "max-age=3600"})

    # -- sequence and table ---------------------------------------------------------------
    def _sequence(
        self, spec: str, game: Game[Any] | None, stats: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """G(n) of single heaps stored for a heap game, as points of a scatter plot."""
        if not isinstance(game, HeapGame):
            return None
        largest = 0
        for build in stats["builds"]:
            try:
                largest = max(largest, *game.parse(str(build["position"])), 0)
            except (ExplorerError, TypeError):
                continue
        largest = min(largest, SEQUENCE_HEAPS)
        found = self.database.lookup(
            spec, [game.format(game.parse(str(n))) for n in range(largest + 1)]
        )
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

    def _table(
        self, spec: str, game: Game[Any] | None, stats: Mapping[str, Any]
    ) -> dict[str, Any] | None:
        """G(r, c) of the stored positions of a two-coordinate game, as heat-map cells."""
        if game is None or game.family not in ("wythoff", "ferguson"):
            return None
        side = 0
        for build in stats["builds"]:
            text = str(build["position"])
            parts = text.split(",")
            if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
                side = max(side, *(int(p) + 1 for p in parts))
        side = min(side, TABLE_SIDE)
        cells: dict[tuple[int, int], str] = {}
        for r in range(side):
            for c in range(side):
                try:
                    cells[r, c] = game.format(game.parse(f"{r},{c}"))
                except ExplorerError:
                    continue
        found = self.database.lookup(spec, list(cells.values()))
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
                    "colour": _heat(g, top),
                }
                for (r, c), g in sorted(values.items())
            ],
        }


def _charts(stats: Mapping[str, Any] | None, misere: bool = False) -> dict[str, Any]:
    """The bars of a game's counts by outcome and by Grundy value (G⁻ in a misère build), and
    where it starts."""
    if stats is None:
        return {"counting": True, "outcomes": [], "values": [], "root": None, "max_grundy": None}
    value = "G⁻" if misere else "G"
    return {
        "counting": False,
        "outcomes": _bars(_by_outcome(stats), _outcome_colour, str),
        "values": _bars(stats["by_grundy"], grundy_colour, lambda v: f"{value} {v}"),
        "root": _last_root(stats),
        "max_grundy": stats["max_grundy"],
    }


def _by_outcome(stats: Mapping[str, Any]) -> dict[str, int]:
    """Counts by outcome, P first."""
    order = {"P": 0, "N": 1, "D": 2}
    return dict(sorted(stats["by_outcome"].items(), key=lambda item: order.get(item[0], 3)))


def _outcome_colour(outcome: str) -> str:
    return P_COLOUR if outcome == "P" else grundy_colour(1) if outcome == "N" else MOVE_COLOUR


def _last_root(stats: Mapping[str, Any]) -> str | None:
    roots = [b["position"] for b in stats["builds"] if b["position"] is not None]
    return str(roots[-1]) if roots else None


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
    from starlette.routing import Route

    pages = Pages(database)

    def page(handler: Callable[[Request], Response]) -> Callable[[Request], Response]:
        def guarded(request: Request) -> Response:
            try:
                return handler(request)
            except BadRequest as error:
                return pages.error(400, str(error))
            except LookupError as error:  # NotStoredError
                return pages.error(404, str(error))
            except DatabaseError as error:  # unreadable, locked, damaged: not the request's fault
                return pages.error(503, str(error))
            except ExplorerError as error:
                return pages.error(400, str(error))

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


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only.

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    return host == "localhost" or host == "::1" or host.startswith("127.")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to `host` and `port` (0 for any free port), listening.

    Raises
    ------
    ServeError
        When the address is in use, not this machine's, or not allowed.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        raise ServeError(
            f"cannot listen on {host}:{port}: {error.strerror or error} (choose another --port)"
        ) from None
    except (OverflowError, UnicodeError) as error:
        sock.close()
        raise ServeError(f"cannot listen on {host}:{port}: {error}") from None
    return sock


def serve(
    database: Database,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    on_listening: Callable[[str], None] | None = None,
) -> None:
    """Serve the app over `database` until interrupted (Ctrl-C or SIGTERM).

    Binds first (port 0 picks a free one), then calls `on_listening` with the app's URL, then
    runs uvicorn on that socket.

    Raises
    ------
    ServeError
        When the address cannot be listened on.
    """
    import uvicorn

    sock = listen(host, port)
    port = sock.getsockname()[1]
    app = create_app(database, host=host, port=port)
    address = f"[{host}]" if ":" in host else host
    if on_listening is not None:
        on_listening(f"http://{address}:{port}/")
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
