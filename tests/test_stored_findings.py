"""Patterns and misère quotients stored with ``--db``: shown by ``stats`` and ``serve``, a
pattern refuted at the heap that breaks it when a longer run disagrees (a planted game whose
period breaks late), one observed promoted to proved, a quotient read back or replaced."""

from __future__ import annotations

import functools
import html
import re
import time
from collections.abc import Iterator
from itertools import combinations_with_replacement
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.support.cli import run, run_json
from tests.support.python_games import write
from tests.support.serve import Server, start_server
from tests.support.storage import fresh_url

#: Where the planted game's period 3 breaks: a heap of BREAK may also be taken whole.
BREAK = 60
PLANTED = f"""\
import explorer
@explorer.heap_game(example="5")
def late(n):
    yield from (n - k for k in (1, 2) if k <= n)
    if n == {BREAK}:
        yield 0
"""


def planted_values(upto: int) -> list[int]:
    """G(0..upto) of the planted game, by the definition of mex."""
    g: list[int] = []
    for n in range(upto + 1):
        options = {g[n - k] for k in (1, 2) if k <= n} | ({g[0]} if n == BREAK else set())
        g.append(min(set(range(len(options) + 1)) - options))
    return g


def kayles_values(upto: int) -> list[int]:
    """G(0..upto) of Kayles (take 1 or 2 adjacent pins, maybe splitting the row)."""
    g: list[int] = []
    for n in range(upto + 1):
        options = {g[a] ^ g[n - k - a] for k in (1, 2) if k <= n for a in range(n - k + 1)}
        g.append(min(set(range(len(options) + 1)) - options))
    return g


@functools.cache
def misere_p(heaps: tuple[int, ...]) -> bool:
    """Whether a sum of octal 0.75 heaps is a misère P-position, by the definition: take 1
    (leaving none, one or two heaps) or 2 (leaving none or two nonempty heaps)."""
    options = set()
    for i, n in enumerate(heaps):
        rest = heaps[:i] + heaps[i + 1 :]
        leaves: list[tuple[int, ...]] = []
        if n >= 1:
            leaves += [(n - 1,)] + [(a, n - 1 - a) for a in range(1, n - 1)]
        if n == 2:
            leaves.append(())
        if n >= 2:
            leaves += [(a, n - 2 - a) for a in range(1, n - 2)]
        for left in leaves:
            options.add(tuple(sorted(h for h in rest + left if h)))
    return bool(options) and not any(misere_p(o) for o in options)


def stored_patterns(url: str, spec: str) -> dict[str, list[dict[str, Any]]]:
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for p in run_json("stats", spec, "--db", url)["patterns"]:
        by_kind.setdefault(p["kind"], []).append(p)
    return by_kind


def test_a_period_that_breaks_late_is_kept_as_refuted_at_the_heap_that_breaks_it(
    db_url: str, tmp_path: Path
) -> None:
    spec = f"py:{write(tmp_path, 'late.py', PLANTED)}"
    g = planted_values(100)
    found = run_json("patterns", spec, "--upto", "50", "--db", db_url)
    assert found["stored"] == []
    period = stored_patterns(db_url, spec)["period"]
    assert [(p["status"], p["upto"], p["period"], p["preperiod"]) for p in period] == [
        ("observed", 50, 3, 0)
    ]
    assert all(g[n] == g[n % 3] for n in range(51))  # what the values up to 50 show
    breaks = next(n for n in range(3, 101) if g[n] != g[n - 3])
    assert breaks == BREAK

    later = run_json("patterns", spec, "--upto", "100", "--db", db_url)
    verdicts = {r["pattern"]["kind"]: (r["verdict"], r["at"]) for r in later["stored"]}
    assert verdicts["period"] == ("refuted", breaks)
    stored = stored_patterns(db_url, spec)
    refuted = [p for p in stored["period"] if p["status"] == "refuted"]
    assert [(p["refuted_at"], p["upto"], p["period"]) for p in refuted] == [(str(breaks), 100, 3)]
    # the P-positions n = 0 (mod 3) break where the value does: G(60) is not 0
    residues = [p for p in stored["residues"] if p["status"] == "refuted"]
    assert [p["refuted_at"] for p in residues] == [str(next(
        n for n in range(101) if (g[n] == 0) != (n % 3 == 0)
    ))]  # fmt: skip
    code, out, _ = run("stats", spec, "--db", db_url)
    assert code == 0 and f"refuted at {breaks} (by a run up to 100)" in out
    refuted_count = sum(p["status"] == "refuted" for kind in stored.values() for p in kind)
    code, out, _ = run("stats", "--db", db_url)
    assert code == 0 and f"{refuted_count} refuted" in out

    # a shorter run changes nothing stored
    run_json("patterns", spec, "--upto", "30", "--db", db_url)
    assert stored_patterns(db_url, spec) == stored


def test_an_observed_period_is_proved_by_a_longer_run(db_url: str) -> None:
    g = kayles_values(400)
    run_json("patterns", "kayles", "--upto", "150", "--db", db_url)
    (period,) = stored_patterns(db_url, "kayles")["period"]
    assert (period["status"], period["upto"]) == ("observed", 150)
    pre, p = period["preperiod"], period["period"]
    assert all(g[n] == g[n - p] for n in range(pre + p, 401))
    assert any(g[n] != g[n - p] for n in range(pre - 1 + p, pre + p))  # no earlier preperiod

    later = run_json("patterns", "kayles", "--upto", "1000", "--db", db_url)
    assert {r["pattern"]["kind"]: r["verdict"] for r in later["stored"]}["period"] == "proved"
    (period,) = stored_patterns(db_url, "kayles")["period"]
    assert (period["status"], period["upto"], period["theorem"]) == (
        "proved",
        1000,
        "Guy-Smith theorem",
    )
    assert (period["preperiod"], period["period"]) == (pre, p)
    code, out, _ = run("stats", "kayles", "--db", db_url)
    assert code == 0 and "proved: Guy-Smith theorem" in out


def outcomes_agree(quotient: dict[str, Any], largest: int) -> int:
    """Check the quotient's outcome of every sum of up to three heaps <= largest against the
    brute force; returns how many sums were checked."""
    checked = 0
    for count in range(1, 4):
        for heaps in combinations_with_replacement(range(largest + 1), count):
            element = 0
            for h in heaps:
                element = quotient["table"][element][quotient["phi"][h]]
            expected = misere_p(tuple(sorted(h for h in heaps if h)))
            assert (element in quotient["p"]) == expected, heaps
            checked += 1
    return checked


def test_a_stored_quotient_is_read_back_or_replaced_by_one_of_more_heaps(db_url: str) -> None:
    first = run_json("quotient", "octal:0.75", "--max-heap", "12", "--db", db_url)
    stored = run_json("stats", "octal:0.75", "--db", db_url)["quotient"]
    assert stored == first and stored["max_heap"] == 12
    assert outcomes_agree(stored, 8) > 150

    # fewer heaps: the stored quotient, read back (it covers them)
    assert run_json("quotient", "octal:0.75", "--max-heap", "8", "--db", db_url) == first
    code, out, _ = run("quotient", "octal:0.75", "--max-heap", "8", "--db", db_url)
    assert code == 0 and "stored: the quotient of heaps 0..12" in out

    # more heaps: computed again and stored instead
    larger = run_json("quotient", "octal:0.75", "--max-heap", "16", "--db", db_url)
    assert larger["max_heap"] == 16 and larger["size"] == 8
    stored = run_json("stats", "octal:0.75", "--db", db_url)["quotient"]
    assert stored == larger
    code, out, _ = run("stats", "octal:0.75", "--db", db_url)
    assert code == 0 and "misère quotient of heaps 0..16" in out and "|Q| = 8" in out


# -- serve ---------------------------------------------------------------------------------


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, str, str]]:
    """A server over a database (SQLite, PostgreSQL) holding the planted game's refuted
    patterns and the quotient of octal 0.75 (no states of either)."""
    folder = tmp_path_factory.mktemp("findings")
    urls = fresh_url(request.param, request, folder)
    path = next(urls)
    spec = f"py:{write(folder, 'late.py', PLANTED)}"
    run_json("patterns", spec, "--upto", "50", "--db", path)
    run_json("patterns", spec, "--upto", "100", "--db", path)
    run_json("quotient", "octal:0.75", "--max-heap", "16", "--db", path)
    shown = run_json("stats", spec, "--db", path)["game"]
    with start_server(path) as server:
        yield server, path, shown
    next(urls, None)  # drops the PostgreSQL schema


def page(server: Server, spec: str) -> str:
    deadline = time.monotonic() + 60
    while True:
        reply = server.get(f"/game?spec={quote(spec)}")
        assert reply.status == 200, reply.body
        if 'id="counting"' not in reply.body or time.monotonic() > deadline:
            return reply.body
        time.sleep(0.2)


def test_serve_shows_a_refuted_pattern_with_its_heap(served: tuple[Server, str, str]) -> None:
    server, path, spec = served
    body = page(server, spec)
    section = body[body.index('id="patterns"') :]
    rows = re.findall(r'<tr class="(\w+)"><td>([\w-]+)</td><td>(.*?)</td><td>(.*?)</td>', section)
    stored = run_json("stats", spec, "--db", path)["patterns"]
    assert len(rows) == len(stored)
    refuted = {(kind, html.unescape(status)) for cls, kind, _, status in rows if cls == "refuted"}
    assert ("period", f"refuted at {BREAK} (by a run up to 100)") in refuted


def test_serve_shows_the_quotient_table_and_phi(served: tuple[Server, str, str]) -> None:
    server, path, _ = served
    body = page(server, "octal:0.75")
    section = body[body.index('id="quotient"') :]
    q = run_json("stats", "octal:0.75", "--db", path)["quotient"]
    names = q["elements"]
    table = section[section.index('<table class="quotient">') : section.index("</table>")]
    rows = re.findall(r"<tr><th>([^<]*)</th>((?:<td>[^<]*</td>)+)</tr>", table)
    shown = {html.unescape(n): [html.unescape(c) for c in re.findall(r"<td>([^<]*)</td>", r)]
             for n, r in rows}  # fmt: skip
    assert shown == {names[i]: [names[x] for x in row] for i, row in enumerate(q["table"])}
    phi = re.findall(r'<span title="heap (\d+)">([^<]*)</span>', section)
    assert [(int(n), html.unescape(x)) for n, x in phi] == [
        (n, names[x]) for n, x in enumerate(q["phi"])
    ]
    assert "Misère quotient of heaps 0..16" in section


def test_a_damaged_stored_pattern_or_quotient_is_an_error_naming_the_fix(db_url: str) -> None:
    import sqlalchemy as sa

    from explorer.storage.backends.engine import resolve_url

    run_json("patterns", "subtraction:1,2", "--upto", "20", "--db", db_url)
    run_json("quotient", "nim", "--max-heap", "3", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    try:
        with engine.begin() as conn:
            conn.execute(sa.text("UPDATE patterns SET data = '{\"kind\": 3'"))
            conn.execute(sa.text("UPDATE quotients SET size = size + 1"))
    finally:
        engine.dispose()
    code, out, err = run("stats", "subtraction:1,2", "--db", db_url)
    assert code == 1 and "damaged" in err and "explorer patterns SPEC --db URL" in err, out
    code, out, err = run("stats", "nim", "--db", db_url)
    assert code == 1 and "does not match its row" in err, out
