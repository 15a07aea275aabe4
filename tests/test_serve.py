"""`explorer serve` over HTTP: a real uvicorn process on loopback, a real database, read-only.

Pages give the stored values (checked against the solver), moves best first, searches and
filters; the app refuses foreign Host headers and every method but GET, its connection refuses
writes, it answers 200 concurrent requests, and it keeps serving while a build writes.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
import sqlalchemy as sa

from explorer import build_graph, load_game, open_database, solve
from explorer.storage import DatabaseError, resolve_url
from explorer.web.cache import Counts
from tests.support.cli import run_ok
from tests.support.pages import HOSTILE_FILE
from tests.support.serve import Reply, Server, start_server

#: What the module's database holds: (spec, position built).
BUILT = [("nim", "3,4,5"), ("wythoff", "6,7"), ("kayles", "12"), ("subtraction:1,2", "5,5")]


def fill(url: str, tmp: Path) -> str:
    """Store the module's games (and the hostile DAG) in the database at `url`."""
    for spec, position in BUILT:
        run_ok("build", spec, position, "--db", url)
    hostile = tmp / "hostile-labels.json"
    shutil.copy(HOSTILE_FILE, hostile)
    run_ok("import", str(hostile), "--db", url)
    return f"dag:{hostile}"


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A SQLite file holding the module's games, and the hostile DAG's spec."""
    tmp = tmp_path_factory.mktemp("serve")
    path = str(tmp / "games.db")
    yield path, fill(path, tmp)


@pytest.fixture(scope="module")
def server(stored: tuple[str, str]) -> Iterator[Server]:
    with start_server(stored[0]) as running:
        yield running


def counted(server: Server, path: str) -> Reply:
    """A page that shows counts, once they are counted (a page still counting says so)."""
    deadline = time.monotonic() + 60
    while True:
        reply = server.get(path)
        if "counting" not in reply.body or time.monotonic() > deadline:
            return reply
        time.sleep(0.2)


def position_url(spec: str, position: str) -> str:
    return f"/position?spec={quote(spec)}&p={quote(position)}"


def listed(body: str, list_id: str) -> list[str]:
    """The position texts linked in the list with this id, in order."""
    block = re.search(rf'<[ou]l id="{list_id}"[^>]*>(.*?)</[ou]l>', body, re.S)
    assert block is not None, list_id
    return [html.unescape(t) for t in re.findall(r'class="position"[^>]*>([^<]*)</a>', block[1])]


def field(body: str, name: str) -> str:
    found = re.search(rf'<td id="{name}">(.*?)</td>', body, re.S)
    assert found is not None, name
    return re.sub(r"<[^>]+>", "", found[1]).strip()


@pytest.mark.parametrize(
    ("spec", "position"),
    [("nim", "3,4,5"), ("nim", "1,4,5"), ("nim", "3"), ("wythoff", "2,1"), ("kayles", "7,4")],
)
def test_position_page_gives_the_solved_values(server: Server, spec: str, position: str):
    game = load_game(spec)
    key = game.format(game.parse(position))
    reply = server.get(position_url(game.spec, key))
    assert reply.status == 200
    truth = solve(game, game.parse(position), method="graph")
    assert field(reply.body, "grundy") == str(truth.grundy)
    assert field(reply.body, "outcome").startswith(truth.outcome)
    assert field(reply.body, "remoteness") == str(truth.remoteness)
    moves = listed(reply.body, "moves")
    assert sorted(moves) == sorted({game.format(q) for q in game.successors(game.parse(key))})
    # best first: the winning moves (quickest first), then the others (longest first)
    values = [solve(game, game.parse(m), method="graph") for m in moves]
    kinds = [v.outcome for v in values]
    assert kinds == sorted(kinds, key=lambda k: k != "P")
    wins = [v.remoteness for v in values if v.outcome == "P"]
    losses = [v.remoteness for v in values if v.outcome == "N"]
    assert wins == sorted(wins) and losses == sorted(losses, reverse=True)
    assert set(m for m, v in zip(moves, values, strict=True) if v.outcome == "P") == set(
        truth.winning_moves
    )
    assert (kinds[:1] == ["P"]) == (truth.outcome == "N")


def test_position_page_lists_predecessors_and_draws_the_neighbourhood(server: Server):
    reply = server.get(position_url("nim", "1,4,5"))
    nim = load_game("nim")
    stored = build_graph(nim, (3, 4, 5))
    truth = {nim.format(p) for p in stored.predecessors((1, 4, 5))}
    assert set(listed(reply.body, "predecessors")) == truth == {"3,4,5", "2,4,5"}
    data = json.loads(
        html.unescape(re.search(r'id="graph-data">(.*?)</script>', reply.body, re.S)[1])  # type: ignore[index]
    )
    drawn = {n["position"] for n in data["nodes"]}
    assert {"1,4,5", "3,4,5", "4,5", "1,3,5"} <= drawn
    for node in data["nodes"]:
        assert parse_qs(urlsplit(node["url"]).query) == {"spec": ["nim"], "p": [node["position"]]}


@pytest.mark.slow  # a large stored game
def test_neighbourhood_is_capped_with_a_note(tmp_path: Path):
    path = str(tmp_path / "big.db")
    run_ok("build", "nim", "40,40", "--db", path)  # the empty position has 80 predecessors
    with start_server(path) as server:
        reply = server.get(position_url("nim", "1") + "&depth=4")
        data = json.loads(
            html.unescape(re.search(r'id="graph-data">(.*?)</script>', reply.body, re.S)[1])  # type: ignore[index]
        )
        assert len(data["nodes"]) == 200
        assert 'id="cut-note"' in reply.body
        small = server.get(position_url("nim", "40,40") + "&depth=1")
        assert 'id="cut-note"' not in small.body


def test_a_position_in_another_spelling_redirects_to_its_canonical_page(server: Server):
    reply = server.get("/position?spec=nim&p=5,4,3")
    assert reply.status == 303
    assert reply.headers["location"].endswith(position_url("nim", "3,4,5").replace(",", "%2C"))
    found = server.get("/search?spec=nim&q=" + quote(" 5, 3,4 "))
    assert found.status == 303
    assert parse_qs(urlsplit(found.headers["location"]).query) == {"spec": ["nim"], "p": ["3,4,5"]}


@pytest.mark.parametrize(
    ("path", "status", "message"),
    [
        ("/search?spec=nim&q=7,7", 404, "position '7,7' of nim is not stored"),
        ("/search?spec=nim&q=x", 404, "not stored"),
        ("/position?spec=nimm&p=1", 404, "game 'nimm' is not stored"),
        ("/position?spec=nim", 400, "no position named"),
        ("/position", 400, "no game named"),
        ("/states?spec=nim&grundy=-1", 400, "grundy must be a whole number"),
        ("/play?spec=nim&p=3,4,5&p=3,3,3", 400, "is not a stored move"),
    ],
)
def test_bad_requests_get_one_message(server: Server, path: str, status: int, message: str):
    reply = server.get(path)
    assert reply.status == status
    assert message in html.unescape(re.search(r'id="error">(.*?)</p>', reply.body, re.S)[1])  # type: ignore[index]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({"outcome": "P"}, {"outcome": "P"}),
        ({"grundy": "3"}, {"grundy": 3}),
        ({"depth": "2", "outcome": "N"}, {"depth": 2, "outcome": "N"}),
    ],
)
def test_states_are_filtered_and_paged(
    server: Server, stored: tuple[str, str], filters: dict[str, str], expected: dict[str, Any]
):
    with open_database(stored[0], read_only=True) as db:
        truth = [
            s["position"] for s in db.game("kayles").states(limit=10_000, **expected)["states"]
        ]
    shown, page = [], 1
    while True:
        query = "&".join(f"{k}={v}" for k, v in filters.items())
        reply = server.get(f"/states?spec=kayles&{query}&page={page}")
        assert reply.status == 200
        block = re.search(r'<table id="states".*?</table>', reply.body, re.S)
        shown += (
            [html.unescape(t) for t in re.findall(r'class="position"[^>]*>([^<]*)<', block[0])]
            if block
            else []
        )
        if 'rel="next"' not in reply.body:
            break
        page += 1
    assert shown == truth and len(truth) > 0
    assert page == (len(truth) - 1) // 50 + 1


def test_game_page_shows_counts_and_a_plot(server: Server):
    kayles = counted(server, "/game?spec=kayles")
    assert kayles.status == 200 and 'id="sequence"' in kayles.body
    assert "G(7) = 2" in kayles.body  # Kayles: 0 1 2 3 1 4 3 2 ...
    wythoff = counted(server, "/game?spec=wythoff")
    assert 'id="table"' in wythoff.body and "G(1, 2) = 0" in wythoff.body
    assert "G(3, 5) = 0" in wythoff.body and "G(2, 2) = 1" in wythoff.body


def test_the_app_moves_best(server: Server):
    # the app moves first from an N-position: to a P-position, as quickly as possible
    reply = server.get("/play?spec=nim&p=3,4,5&app=first")
    assert reply.status == 303
    line = parse_qs(urlsplit(reply.headers["location"]).query)["p"]
    assert line == ["3,4,5", "1,4,5"]
    # from a P-position it delays: the move whose N-position has the greatest remoteness
    reply = server.get("/play?spec=nim&p=1,2,3&app=first")
    game = load_game("nim")
    reply_move = parse_qs(urlsplit(reply.headers["location"]).query)["p"][1]
    far = {
        game.format(q): solve(game, q, method="graph").remoteness
        for q in game.successors((1, 2, 3))
    }
    assert far[reply_move] == max(far.values())


def test_hostile_names_are_escaped(server: Server, stored: tuple[str, str]):
    spec = stored[1]
    names = json.loads(HOSTILE_FILE.read_text(encoding="utf-8"))["vertices"]
    for name in names:
        reply = server.get(position_url(spec, name))
        assert reply.status == 200, name
        heading = re.search(r'<span class="position" id="position">(.*?)</span>', reply.body, re.S)
        assert heading is not None and html.unescape(heading[1]) == name
        assert "<img src=x" not in reply.body and "<script>alert" not in reply.body
    games = counted(server, "/")
    assert html.escape(spec) in games.body


def test_every_response_carries_a_strict_policy_and_nothing_remote(server: Server):
    for path in [
        "/",
        "/game?spec=nim",
        position_url("nim", "3,4,5"),
        "/static/serve.js",
        "/nowhere",
    ]:
        reply = server.get(path)
        policy = reply.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
        assert reply.headers["x-content-type-options"] == "nosniff"
        assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", reply.body)
    page = server.get(position_url("nim", "3,4,5")).body
    scripts = re.findall(r"<script([^>]*)>", page)
    assert scripts == [
        ' type="application/json" id="graph-data"',
        ' src="/static/vis-network.min.js"',
        ' src="/static/serve.js"',
    ]


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "evil.example", "127.0.0.1:1", "localhost.evil.example:{port}", ""],
)
def test_a_foreign_host_header_is_refused(server: Server, host: str):
    reply = server.request("/", headers={"Host": host.format(port=server.port)})
    assert 400 <= reply.status < 500
    assert "stored" not in reply.body.lower()
    for good in (f"127.0.0.1:{server.port}", f"localhost:{server.port}"):
        assert server.request("/", headers={"Host": good}).status == 200


def test_no_route_writes(server: Server, stored: tuple[str, str]):
    paths = ["/", "/game?spec=nim", position_url("nim", "3,4,5"), "/search?spec=nim&q=1",
             "/states?spec=nim", "/play?spec=nim&p=1", "/static/serve.js"]  # fmt: skip
    before = hashlib.sha256(Path(stored[0]).read_bytes()).hexdigest()
    for path in paths:
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            assert server.request(path, method=method).status == 405, (path, method)
        assert server.request(path).status in (200, 303)
    assert hashlib.sha256(Path(stored[0]).read_bytes()).hexdigest() == before


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def test_the_connection_is_read_only(request: pytest.FixtureRequest, tmp_path: Path, kind: str):
    url = request.getfixturevalue("pg_url") if kind == "postgresql" else str(tmp_path / "g.db")
    run_ok("build", "nim", "2,3", "--db", url)
    with open_database(url) as db:
        edges = db.game("nim").stats().edges
    with open_database(url, read_only=True) as db:
        assert db.game("nim").state("2,3")["grundy"] == 1
        with pytest.raises((DatabaseError, sa.exc.DBAPIError)):
            db.game("nim").build("4,5")
        with pytest.raises(sa.exc.DBAPIError, match="(?i)read.?only"):
            with db.engine.begin() as conn:
                conn.execute(sa.text("UPDATE states SET successors = NULL"))
    with open_database(url) as db:
        assert db.game("nim").stats().edges == edges


def test_a_read_only_open_refuses_a_missing_file(tmp_path: Path):
    with pytest.raises(DatabaseError, match="no database at"):
        open_database(str(tmp_path / "none.db"), read_only=True)
    (tmp_path / "empty.db").touch()
    with pytest.raises(DatabaseError, match="is an empty file, not a database"):
        open_database(str(tmp_path / "empty.db"), read_only=True)
    assert not (tmp_path / "none.db").exists()
    assert (tmp_path / "empty.db").read_bytes() == b""


@pytest.mark.postgres
def test_a_read_only_open_refuses_an_empty_schema(pg_url: str):
    with pytest.raises(DatabaseError, match="holds no explorer schema and is open read-only"):
        open_database(pg_url, read_only=True)
    with open_database(pg_url) as db:  # nothing was written: the schema is still empty
        assert db.games() == []


@pytest.mark.slow  # a server on PostgreSQL
def test_serve_on_postgresql(pg_url: str, tmp_path: Path):
    run_ok("build", "nim", "3,4,5", "--db", pg_url)
    with start_server(pg_url) as server:
        reply = server.get(position_url("nim", "3,4,5"))
        assert reply.status == 200 and field(reply.body, "grundy") == "2"
        assert listed(reply.body, "moves")[0] == "1,4,5"


@pytest.mark.slow  # concurrent requests
def test_200_concurrent_requests_all_succeed(server: Server):
    game = load_game("subtraction:1,2")
    positions = sorted({game.format(game.parse(f"{a},{b}")) for a in range(6) for b in range(6)})
    paths = [position_url(game.spec, positions[i % len(positions)]) for i in range(150)]
    paths += [
        "/",
        "/game?spec=nim",
        "/states?spec=kayles&outcome=P",
        "/static/vis-network.min.js",
    ] * 12
    paths += ["/play?spec=nim&p=3,4,5&app=second"] * 2
    assert len(paths) == 200
    with ThreadPoolExecutor(max_workers=200) as pool:
        statuses = list(pool.map(lambda p: server.get(p).status, paths))
    assert statuses == [200] * 200


@pytest.mark.slow  # a build in another process
def test_a_game_shows_building_until_its_build_completes(tmp_path: Path):
    path = str(tmp_path / "live.db")
    run_ok("build", "nim", "2", "--db", path)
    first_batch, finish = threading.Event(), threading.Event()

    def progress(_: object) -> None:
        first_batch.set()
        assert finish.wait(60)

    def build() -> None:
        with open_database(path) as db:
            db.game("kayles").build("16", batch_states=200, progress=progress)

    with start_server(path) as server:
        writer = threading.Thread(target=build)
        writer.start()
        try:
            assert first_batch.wait(60)
            games = counted(server, "/").body
            row = re.search(r"octal:0\.77</a>.*?</tr>", games, re.S)
            assert row is not None and "building" in row[0]
            assert "building" in counted(server, "/game?spec=kayles").body
            assert server.get(position_url("octal:0.77", "16")).status == 200
            assert server.get(position_url("nim", "2")).status == 200
        finally:
            finish.set()
            writer.join(60)
        games = counted(server, "/").body
        row = re.search(r"octal:0\.77</a>.*?</tr>", games, re.S)
        assert row is not None and "building" not in row[0]
        page = server.get(position_url("octal:0.77", "16"))
        assert field(page.body, "grundy") == str(solve(load_game("kayles"), (16,)).grundy)


def test_counts_never_keep_a_page_waiting(tmp_path: Path):
    path = str(tmp_path / "c.db")
    run_ok("build", "nim", "2,3", "--db", path)
    release = threading.Event()

    def slow() -> str:
        assert release.wait(60)
        return "counted"

    with open_database(path, read_only=True) as db:
        counts = Counts(db)
        started = time.monotonic()
        assert counts._get("slow", False, slow, 0.2) is None  # still counting: nothing yet
        assert counts._get("slow", False, slow, 0.2) is None  # the same count, not a second
        assert time.monotonic() - started < 5
        release.set()
        deadline = time.monotonic() + 30
        while counts._get("slow", False, slow, 0.2) != "counted":
            assert time.monotonic() < deadline
        nim = db.game("nim")
        assert counts.stats(nim, False, wait=30).states == nim.stats().states  # type: ignore[union-attr]
        with pytest.raises(LookupError, match="not stored"):
            counts.stats(db.game("wythoff"), False, wait=30)


def test_a_long_game_fits_in_the_address(server: Server):
    line = "&p=" + quote(" 3, 4, 5 ", safe="")
    path = "/play?spec=nim&p=3,4,5" + line * 1000
    assert len(path) > 16 * 1024
    reply = server.get(path)
    assert reply.status == 400
    assert "move 1 of the game, to &#39; 3, 4, 5 &#39;, is not a stored move" in reply.body


@pytest.mark.slow  # a server on a failing database
@pytest.mark.postgres
def test_a_database_that_fails_to_read_gives_503(pg_url: str):
    run_ok("build", "nim", "3,4,5", "--db", pg_url)
    with start_server(pg_url) as server:
        assert server.get(position_url("nim", "3,4,5")).status == 200
        engine = sa.create_engine(resolve_url(pg_url))
        with engine.begin() as conn:  # the tables go away under the running server
            conn.execute(sa.text("DROP VIEW edges CASCADE"))
        engine.dispose()
        reply = server.get(position_url("nim", "2,4,5"))
        assert reply.status == 503
        assert "cannot read database" in html.unescape(reply.body)
