"""`explorer serve` under hostile addresses and damaged databases: every request is answered with
a page or a 4xx (400 for a bad parameter, 404 for what is not stored), never a 500, and the
server's log holds no traceback. Against a real server on loopback, over SQLite and PostgreSQL.
"""

from __future__ import annotations

import html
import re
import shutil
import sqlite3
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from explorer import load_game
from explorer.storage import resolve_url
from explorer.storage.query.damage import checked_state
from tests.support.cli import run_ok
from tests.support.environment import REPO
from tests.support.serve import Server, start_server

#: The 64-bit range the databases store, as the CLI's options allow it.
LARGEST = 2**63 - 1
#: States per page of /states (the app's PAGE_STATES): the last page whose offset is stored.
LAST_PAGE = LARGEST // 50


def q(text: str) -> str:
    return quote(text, safe="")


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A SQLite file with a few games (one on a graph file, one misère build), and the graph
    game's spec."""
    tmp = tmp_path_factory.mktemp("hostile")
    path = tmp / "games.db"
    loopy = tmp / "loopy.json"
    shutil.copy(REPO / "data" / "loopy.json", loopy)
    for args in (
        ("nim", "3,4,5"),
        ("wythoff", "4,5"),
        ("windup:5:1,3", "0"),
        (f"graph:{loopy}", "f"),
        ("nim", "1,2", "--misere"),
    ):
        run_ok("build", *args, "--db", str(path))
    return path, f"graph:{loopy}"


@pytest.fixture(scope="module")
def server(stored: tuple[Path, str]) -> Iterator[Server]:
    with start_server(str(stored[0])) as running:
        yield running


def answered(server: Server, path: str) -> tuple[int, str]:
    """The status and body of a request, which must not be a 500 nor log a traceback."""
    logged = len(server.errors)
    reply = server.get(path)
    assert reply.status < 500, (path, reply.status, reply.body[:300])
    assert "Traceback" not in "".join(server.errors[logged:]), server.log[-3000:]
    return reply.status, reply.body


def error_text(body: str) -> str:
    found = re.search(r'id="error">(.*?)</p>', body, re.S)
    assert found is not None, body[:300]
    return html.unescape(found[1])


# -- numbers in query parameters: ASCII digits only, within the stored range ----------------------
NOT_NUMBERS = ["²", "³", "¹", "３", "٣", "३", "-1", "+1", "1_0", "1e3", "0x10", "1.0", "½", "Ⅳ"]


@pytest.mark.parametrize("value", NOT_NUMBERS)
@pytest.mark.parametrize("name", ["page", "grundy", "depth"])
def test_a_number_not_in_ascii_digits_is_a_bad_request(server: Server, name: str, value: str):
    status, body = answered(server, f"/states?spec=nim&{name}={q(value)}")
    assert status == 400
    assert error_text(body) == (
        f"{name} must be a whole number from {1 if name == 'page' else 0:,} to "
        f"{LAST_PAGE if name == 'page' else LARGEST:,} in ASCII digits, not {value!r}"
    )


@pytest.mark.parametrize(
    ("path", "status"),
    [
        # past the stored range, and its edges
        (f"/states?spec=nim&page={2**62}", 400),
        (f"/states?spec=nim&page={LAST_PAGE + 1}", 400),
        (f"/states?spec=nim&page={LAST_PAGE}", 200),  # allowed: an empty page past the last
        ("/states?spec=nim&page=0", 400),
        (f"/states?spec=nim&grundy={LARGEST}", 200),
        (f"/states?spec=nim&grundy={LARGEST + 1}", 400),
        (f"/states?spec=nim&grundy={10**30}", 400),
        (f"/states?spec=nim&depth={LARGEST + 1}", 400),
        (f"/states?spec=nim&depth={'9' * 5000}", 400),
        ("/states?spec=nim&grundy=%200%20", 200),
        # the drawing's depth
        ("/position?spec=nim&p=3,4,5&depth=%C2%B2", 400),
        ("/position?spec=nim&p=3,4,5&depth=0", 400),
        ("/position?spec=nim&p=3,4,5&depth=5", 400),
        (f"/position?spec=nim&p=3,4,5&depth={2**64}", 400),
        ("/position?spec=nim&p=3,4,5&depth=4", 200),
        # positions a game's rules refuse are not stored
        ("/position?spec=windup:5:1,3&p=%C2%B2", 404),
        ("/search?spec=windup:5:1,3&q=%C2%B2", 404),
        ("/play?spec=windup:5:1,3&p=%C2%B2", 404),
        ("/position?spec=windup:5:1,3&p=0000000000000000007", 404),
        ("/position?spec=nim&p=%C2%B2,4,5", 404),
        ("/position?spec=nim&p=99999999999999999999999", 404),
        ("/play?spec=nim&p=3,4,5&p=%C2%B2", 400),
        # specs that are not stored, or not specs
        ("/game?spec=windup:5:%C2%B9,3", 404),
        ("/position?spec=windup:%C2%B2:1&p=1", 404),
        ("/game?spec=subtraction:1,99999999999999999999999", 404),
        ("/game?spec=nim%2B%2B", 404),
        ("/game?spec=%2B", 404),
        ("/game?spec=" + "nim%2B" * 2000 + "nim", 404),
        ("/game?spec=" + "x" * 10_001, 400),
        ("/game?spec=nim&convention=%C2%B2", 400),
        ("/game?spec=nim&convention=misere", 200),
        ("/game?spec=wythoff&convention=misere", 404),
        # texts no database holds
        ("/position?spec=nim&p=%00", 400),
        ("/search?spec=nim&q=3%004", 400),
        ("/play?spec=nim&p=3,4,5&p=%00", 400),
        ("/game?spec=nim%00", 400),
        ("/position?spec=nim&p=%ED%A0%80", 404),
        ("/states?spec=nim&outcome=%C2%B2", 400),
        ("/play?spec=nim&p=3,4,5&app=%C2%B2", 400),
    ],
    ids=lambda value: value[:80] if isinstance(value, str) else str(value),
)
def test_hostile_parameters_get_a_page_or_a_4xx(server: Server, path: str, status: int):
    assert answered(server, path)[0] == status


def test_a_page_past_the_last_is_empty_and_leads_back_to_the_last(server: Server):
    for page in (LAST_PAGE, 3):
        status, body = answered(server, f"/states?spec=nim&page={page}")
        assert status == 200 and 'id="states"' not in body
        assert "No stored state matches on this page: they fill 1 page." in body
        assert f"page {page:,} of 1" in body
        assert 'rel="prev" href="/states?spec=nim&amp;page=1"' in body
    status, body = answered(server, "/states?spec=nim&page=1")
    assert status == 200 and 'id="states"' in body and 'rel="prev"' not in body


def test_naming_a_graph_file_never_reads_it(server: Server, stored: tuple[Path, str]):
    # a large graph file that is not stored: refused from the stored specs, unread
    big = stored[0].parent / "big.edges"
    big.write_text("".join(f"v{i} v{i + 1}\n" for i in range(300_000)), encoding="utf-8")
    started = time.monotonic()
    for path in (f"/game?spec=graph:{big}", f"/position?spec=graph:{big}&p=v1"):
        status, body = answered(server, path)
        assert status == 404 and "is not stored" in error_text(body)
    assert time.monotonic() - started < 1.0
    # the stored game's file is not read either: its pages are served with the file gone
    spec = stored[1]
    gone = Path(spec.removeprefix("graph:"))
    kept = gone.read_bytes()
    gone.unlink()
    try:
        assert answered(server, f"/game?spec={q(spec)}")[0] == 200
        assert answered(server, f"/position?spec={q(spec)}&p=f")[0] == 200
        assert answered(server, f"/position?spec={q(spec)}&p=%20f")[0] == 303
    finally:
        gone.write_bytes(kept)


# -- stored rows a sound database never holds ----------------------------------------------------
#: (what is damaged, SQL that damages it, the page that reads it, the columns named damaged).
DAMAGES = [
    ("escape set 'x'", "UPDATE states SET escapes = 'x' WHERE {nim} AND key = '4,5'",
     "/position?spec=nim&p=4,5", ["escapes"]),
    ("grundy as text", "UPDATE states SET grundy = 'three' WHERE {nim} AND key = '3,4,5'",
     "/position?spec=nim&p=3,4,5", ["grundy"]),
    ("negative grundy", "UPDATE states SET grundy = -5 WHERE {nim} AND key = '1,4,5'",
     "/position?spec=nim&p=1,4,5", ["grundy"]),
    ("grundy 1.5", "UPDATE states SET grundy = 1.5 WHERE {nim} AND key = '2,4,5'",
     "/position?spec=nim&p=2,4,5", ["grundy"]),
    ("outcome 'Z'", "UPDATE states SET outcome = 'Z' WHERE {nim} AND key = '3,5'",
     "/position?spec=nim&p=3,5", ["outcome"]),
    ("remoteness as text", "UPDATE states SET remoteness = 'far' WHERE {nim} AND key = '1,3,5'",
     "/position?spec=nim&p=1,3,5", ["remoteness"]),
    ("depth as text", "UPDATE states SET depth = 'deep' WHERE {nim} AND key = '2,3,5'",
     "/position?spec=nim&p=2,3,5", ["depth"]),
    ("expanded and height",
     "UPDATE states SET expanded = 'x', height = 'tall' WHERE {nim} AND key = '3,3,5'",
     "/position?spec=nim&p=3,3,5", ["expanded", "height"]),
    ("escapes past 64 bits",
     "UPDATE states SET escapes = '1,99999999999999999999999' WHERE {graph} AND key = 'c'",
     "/position?spec={graph_spec}&p=c", ["escapes"]),
    ("escapes in superscripts", "UPDATE states SET escapes = '²' WHERE {graph} AND key = 'd'",
     "/position?spec={graph_spec}&p=d", ["escapes"]),
    ("largest grundy", f"UPDATE states SET grundy = {LARGEST} WHERE {{wythoff}} AND key = '4,5'",
     "/position?spec=wythoff&p=4,5", []),
    ("key as bytes", "UPDATE states SET key = x'ff00' WHERE {wythoff} AND key = '1,1'",
     "/position?spec=wythoff&p=1,2", []),
    # the moves are packed in the states' rows, two bytes an id, each its offset from the
    # row's id plus 32768: FFFF is state 32767 from state 0
    ("move to no state", "UPDATE states SET successors = CAST(COALESCE(successors, X'') "
     "|| X'FFFF' AS BLOB) WHERE {wythoff} AND id = 0", "/position?spec=wythoff&p=4,5", []),
    ("count as text", "UPDATE state_counts SET count = 'many' WHERE {nim} AND kind = 'states'",
     "/game?spec=nim", None),
    ("histogram value 'x'",
     "UPDATE state_counts SET value = 'x' WHERE {nim} AND kind = 'grundy' AND value = '0'",
     "/game?spec=nim", None),
    ("depth value '1.5'",
     "UPDATE state_counts SET value = '1.5' WHERE {wythoff} AND kind = 'depth' AND value = '1'",
     "/game?spec=wythoff", None),
    ("build row garbage",
     "UPDATE builds SET status = 'running', started_at = 'yesterday', states_new = 'many', "
     "root = x'00ff', pid = 99999999999999, host = '{host}' WHERE {wythoff}",
     "/game?spec=wythoff", None),
    ("build pid as text",
     "UPDATE builds SET status = 'running', pid = 'p' WHERE game_id IN "
     "(SELECT id FROM games WHERE spec = 'nim' AND convention = 'misere')",
     "/game?spec=nim&convention=misere", None),
    ("convention 'x'",
     "UPDATE games SET convention = 'x' WHERE spec = 'windup:5:1,3'", "/", None),
    ("sequence row garbage",
     "INSERT INTO sequences (game_id, computed, largest, checksum, method, updated_at) "
     "SELECT id, 'x', 'big', -1, 'table', 'now' FROM games WHERE spec = 'nim' "
     "AND convention = 'normal'", "/", None),
]  # fmt: skip


#: What a damaged column may hold: any type SQLite keeps, in and out of range.
ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True), st.text(max_size=8), st.binary(max_size=4),
)  # fmt: skip
NUMBER_COLUMNS = ("grundy", "remoteness", "depth", "height")


def sound_number(value: object) -> bool:
    return type(value) is int and 0 <= value <= LARGEST


@pytest.mark.slow  # hypothesis: many damaged rows
@given(
    values=st.fixed_dictionaries({c: ANY_VALUE for c in NUMBER_COLUMNS}),
    outcome=st.one_of(st.sampled_from(["P", "N", "D", None]), ANY_VALUE),
    escapes=st.one_of(st.lists(st.integers(0, 99)).map(lambda k: ",".join(map(str, k))), ANY_VALUE),
    key=st.one_of(st.text(max_size=5), st.binary(max_size=3)),
    expanded=st.one_of(st.sampled_from([0, 1]), ANY_VALUE),
)
def test_any_stored_row_reads_as_itself_or_as_unknown_and_named(
    values: dict[str, object], outcome: object, escapes: object, key: object, expanded: object
):
    row = type("Row", (), dict(values, outcome=outcome, escapes=escapes, key=key,
                               expanded=expanded))  # fmt: skip
    state = checked_state(row)
    named = set(state.get("damaged", []))  # type: ignore[arg-type]
    for column in NUMBER_COLUMNS:  # a number is read as stored, or as None and named
        value = values[column]
        sound = sound_number(value) or (value is None and column != "depth")
        assert state[column] == (value if sound else None)
        assert (column in named) == (not sound)
    assert (state["outcome"] == outcome) == (outcome in ("P", "N", "D", None))
    assert ("outcome" in named) == (outcome not in ("P", "N", "D", None))
    sound_escapes = escapes is None or (
        isinstance(escapes, str)
        and all(x.isascii() and x.isdigit() and int(x) <= LARGEST for x in escapes.split(",") if x)
    )
    assert ("escapes" in named) == (not sound_escapes)
    if sound_escapes and escapes is not None:
        assert state["escapes"] == sorted({int(x) for x in str(escapes).split(",") if x})
    assert ("key" in named) == (not isinstance(key, str))
    assert isinstance(state["position"], str)
    assert ("expanded" in named) == (expanded not in (0, 1))


@pytest.fixture(scope="module")
def damaged(stored: tuple[Path, str]) -> Iterator[Server]:
    """A server over a copy of the module's database with every damage of `DAMAGES` in it."""
    import socket

    path = stored[0].parent / "damaged.db"
    shutil.copy(stored[0], path)
    games = {"nim": "spec = 'nim' AND convention = 'normal'", "wythoff": "spec = 'wythoff'"}
    games["graph"] = f"spec = 'graph:{Path(stored[1].removeprefix('graph:')).resolve()}'"
    where = {
        name: f"game_id = (SELECT id FROM games WHERE {condition})"
        for name, condition in games.items()
    }
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        for _, sql, _, _ in DAMAGES:
            conn.execute(sql.format(**where, host=socket.gethostname()))
    conn.close()
    with start_server(str(path)) as running:
        yield running


@pytest.mark.parametrize(
    ("page", "columns"), [(d[2], d[3]) for d in DAMAGES], ids=[d[0] for d in DAMAGES]
)
def test_damaged_rows_are_shown_as_damaged(
    damaged: Server, stored: tuple[Path, str], page: str, columns: list[str] | None
):
    status, body = answered(damaged, page.format(graph_spec=q(stored[1])))
    assert status == 200
    note = re.search(r'id="damaged">The stored (.*?) of this state', body)
    if columns is not None:  # a position page names exactly the columns it cannot read
        assert (note[1].split(", ") if note else []) == columns
    if "grundy" in (columns or []):
        assert "not solved yet" in re.search(r'id="grundy">(.*?)</td>', body, re.S)[1]  # type: ignore[index]


def test_every_page_of_a_damaged_database_is_answered(damaged: Server, stored: tuple[Path, str]):
    graph = q(stored[1])
    for path in [
        "/states?spec=nim", "/states?spec=nim&grundy=0", "/states?spec=wythoff&depth=1",
        f"/states?spec={graph}", "/play?spec=nim&p=3,4,5", "/play?spec=nim&p=4,5&hints=1",
        "/play?spec=wythoff&p=4,5&hints=1&app=first", f"/play?spec={graph}&p=f&hints=1",
        "/search?spec=nim&q=3,4,5", f"/game?spec={graph}", "/game?spec=windup:5:1,3",
    ]:  # fmt: skip
        assert answered(damaged, path)[0] in (200, 303, 404), path


def test_the_logs_hold_no_traceback(server: Server, damaged: Server):
    time.sleep(0.5)  # what the last requests logged
    for running in (server, damaged):
        assert running.process.poll() is None
        assert "Traceback" not in running.log, running.log[-3000:]


# -- PostgreSQL --------------------------------------------------------------------------------
@pytest.mark.slow  # a server on PostgreSQL
@pytest.mark.postgres
def test_hostile_parameters_and_damaged_rows_on_postgresql(pg_url: str):
    run_ok("build", "nim", "3,4,5", "--db", pg_url)
    engine = sa.create_engine(resolve_url(pg_url))
    with engine.begin() as conn:  # PostgreSQL keeps types: damage what it lets through
        conn.execute(sa.text("ALTER TABLE states DROP CONSTRAINT ck_states_outcome"))
        conn.execute(sa.text("UPDATE states SET escapes = 'x', outcome = 'Z' WHERE key = '4,5'"))
        conn.execute(sa.text("UPDATE states SET grundy = -5 WHERE key = '3,4,5'"))
    engine.dispose()
    with start_server(pg_url) as server:
        for path, status in [
            ("/position?spec=nim&p=%00", 400),
            ("/search?spec=nim&q=3%00", 400),
            (f"/states?spec=nim&grundy={LARGEST}", 200),
            (f"/states?spec=nim&page={LAST_PAGE}", 200),  # an empty page past the last
            ("/states?spec=nim&page=%C2%B2", 400),
            ("/position?spec=nim&p=%ED%A0%80", 404),
            ("/position?spec=nim&p=3,4,5", 200),
        ]:
            assert answered(server, path)[0] == status, path
        status, body = answered(server, "/position?spec=nim&p=4,5")
        assert status == 200 and "The stored escapes, outcome of this state" in body


@pytest.mark.postgres
@pytest.mark.slow
def test_200_concurrent_requests_on_postgresql(pg_url: str):
    run_ok("build", "subtraction:1,2", "5,5", "--db", pg_url)
    run_ok("build", "nim", "3,4,5", "--db", pg_url)
    game = load_game("subtraction:1,2")
    keys = sorted({game.format(game.parse(f"{a},{b}")) for a in range(6) for b in range(6)})
    paths = [f"/position?spec=subtraction:1,2&p={keys[i % len(keys)]}" for i in range(140)]
    paths += ["/", "/game?spec=nim", "/states?spec=nim&outcome=P"] * 20
    assert len(paths) == 200
    with start_server(pg_url) as server:
        at_once = threading.Barrier(len(paths))

        def request(path: str) -> int:
            at_once.wait(60)  # every request sent at the same moment
            return server.get(path).status

        with ThreadPoolExecutor(max_workers=len(paths)) as pool:
            statuses = list(pool.map(request, paths))
        assert [s for s in statuses if s >= 500] == []
        assert set(statuses) == {200}
        assert "Traceback" not in server.log
