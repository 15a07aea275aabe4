"""Misère builds stored in a database (``explorer build --misere``), on SQLite and PostgreSQL.

A misère build is a game of its own beside the normal-play build of the same spec: its states
hold G⁻ (1 without a move, else the mex: 0 exactly on misère P-positions), the misère outcome
and the misère remoteness, checked here against the independent brute force of the misère tests
for heap families and against Bouton's misère rule for sums of Nim heaps; query, stats, export,
verify, viz --db and serve read it with --misere; migration 0005 upgrades an older database.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import sqlalchemy as sa
from alembic import command
from click.testing import CliRunner

from explorer import load_game, open_database
from explorer.cli import main
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.solver.misere import bouton_misere_outcome
from explorer.storage.backends.engine import resolve_url
from explorer.storage.schema.migrations import alembic_config, head_revision
from tests.support.bruteforce import heap_game_moves, mex_values, misere_values, solve_by_definition
from tests.support.cli import run, run_json
from tests.support.heap_rules import RULES, SPLITTING
from tests.support.notebook import shown_html
from tests.support.serve import start_server
from tests.support.storage import dump

#: A position of each heap family whose graph holds every small position the test sees.
FAMILY_POSITIONS = {spec: "3,4,5" if spec in SPLITTING else "4,6,7" for spec in RULES}


def misere_grundy_rule(options: list[int]) -> int:
    """G⁻ by definition: 1 without a move, else the mex."""
    if not options:
        return 1
    seen = set(options)
    g = 0
    while g in seen:
        g += 1
    return g


def stored_states(url: str, spec: str, convention: Convention) -> dict[str, dict[str, Any]]:
    with open_database(url) as db:
        page = db.game(spec, convention).states(limit=1_000_000)
    assert page["convention"] == ("misere" if convention == MISERE else "normal")
    return {s["position"]: s for s in page["states"]}


def sql(url: str, statement: str, **params: object) -> None:
    engine = sa.create_engine(resolve_url(url))
    with engine.begin() as conn:
        conn.execute(sa.text(statement), params)
    engine.dispose()


def one_line_error(args: list[str]) -> str:
    """A refusal: exit 1, nothing on standard output, one ``Error:`` line on standard error."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1, result.output
    assert result.stderr.startswith("Error: ")
    return result.stderr


def usage_error(args: list[str]) -> str:
    """A usage error: exit 2, click's usage message ending in its ``Error:`` line."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    return result.stderr.splitlines()[-1]


@pytest.mark.parametrize("spec", sorted(RULES))
def test_misere_builds_of_heap_families_equal_the_brute_force(db_url, spec):
    game = load_game(spec)
    moves = heap_game_moves(RULES[spec])
    root = game.parse(FAMILY_POSITIONS[spec])
    report = run_json("build", spec, FAMILY_POSITIONS[spec], "--misere", "--db", db_url)
    assert report["convention"] == "misere" and report["status"] == "complete"
    outcome = misere_values(root, moves)
    grundy = solve_by_definition(root, moves, misere_grundy_rule)
    stored = stored_states(db_url, spec, MISERE)
    assert len(stored) == len(outcome) == report["states_stored"]
    for position, (kind, far) in outcome.items():
        state = stored[game.format(position)]
        assert (state["outcome"], state["remoteness"]) == (kind, far), (spec, position)
        assert state["grundy"] == grundy[position], (spec, position)
    assert (report["outcome"], report["remoteness"]) == outcome[root]
    assert report["grundy"] == grundy[root]
    # the normal-play build of the same game is another game: its own values, both intact
    run_json("build", spec, FAMILY_POSITIONS[spec], "--db", db_url)
    normal = mex_values(root, moves)
    for position, state in stored_states(db_url, spec, NORMAL).items():
        assert state["grundy"] == normal[game.parse(position)], (spec, position)
    assert stored_states(db_url, spec, MISERE) == stored
    checked = run_json("verify", spec, "--misere", "--db", db_url)
    assert checked["ok"] and [g["convention"] for g in checked["games"]] == ["misere"]


def test_misere_nim_sums_follow_boutons_rule_in_the_database(db_url):
    report = run_json("build", "nim + nim", "2,3,1 + 4,1", "--misere", "--db", db_url)
    game = load_game("nim + nim")
    stored = stored_states(db_url, "nim + nim", MISERE)
    assert len(stored) == report["states_stored"] > 100
    seen = {"P": 0, "N": 0}
    for key, state in stored.items():
        heaps = [h for part in game.parse(key) for h in part]
        assert state["outcome"] == bouton_misere_outcome(heaps), key
        assert (state["grundy"] == 0) == (state["outcome"] == "P"), key
        seen[state["outcome"]] += 1
    assert min(seen.values()) > 10
    # and the sum's values are exactly those of the brute force on the whole sum
    moves = heap_game_moves(RULES["nim"])

    def sum_moves(position):
        for i, part in enumerate(position):
            for moved in moves(part):
                yield position[:i] + (moved,) + position[i + 1 :]

    root = game.parse("2,3,1 + 4,1")
    brute = misere_values(root, sum_moves)
    assert {game.format(p): v for p, v in brute.items()} == {
        k: (s["outcome"], s["remoteness"]) for k, s in stored.items()
    }


def test_normal_and_misere_builds_coexist_and_reuse_only_their_own_states(db_url):
    first = run_json("build", "nim", "3,4,5", "--db", db_url)
    normal = dump(db_url, "nim")
    misere = run_json("build", "nim", "3,4,5", "--misere", "--db", db_url)
    assert (misere["states_new"], misere["states_reused"]) == (first["states_new"], 0)
    assert (misere["grundy"], misere["outcome"], misere["remoteness"]) == (2, "N", 10)
    assert dump(db_url, "nim") == normal  # the normal-play game is untouched
    assert dump(db_url, "nim", "misere")["edges"] == normal["edges"]
    more = run_json("build", "nim", "3,4,6", "--misere", "--db", db_url)
    assert (more["states_reused"], more["convention"]) == (48, "misere")
    again = run_json("build", "nim", "3,4,6", "--db", db_url)
    assert again["states_reused"] == 48 and again["convention"] == "normal"
    games = run_json("stats", "--db", db_url)
    assert [(g["game"], g["convention"], g["states"]) for g in games] == [
        ("nim", "normal", 62),
        ("nim", "misere", 62),
    ]
    # a misère terminal position is N with G⁻ = 1; in normal play it is P with G = 0
    assert run_json("query", "nim", "0", "--db", db_url)["outcome"] == "P"
    end = run_json("query", "nim", "0", "--misere", "--db", db_url)
    assert (end["grundy"], end["outcome"], end["convention"]) == (1, "N", "misere")
    p_states = run_json("query", "nim", "--outcome", "P", "--misere", "--db", db_url)
    assert p_states["convention"] == "misere"
    for state in p_states["states"]:
        heaps = [int(h) for h in state["position"].split(",") if h]
        assert bouton_misere_outcome(heaps) == "P"
    stats = run_json("stats", "nim", "--misere", "--db", db_url)
    assert stats["convention"] == "misere" and stats["by_grundy"]["0"] == stats["by_outcome"]["P"]
    assert [b["position"] for b in stats["builds"]] == ["3,4,5", "3,4,6"]
    checked = run_json("verify", "--db", db_url)
    assert checked["ok"]
    assert [(g["game"], g["convention"]) for g in checked["games"]] == [
        ("nim", "normal"),
        ("nim", "misere"),
    ]


def test_a_stopped_misere_build_resumes_to_the_rows_of_an_uninterrupted_one(db_url, other_db_url):
    # ids too: a one-process build numbers states in the same order however it is cut
    run_json("build", "kayles", "14", "--misere", "--db", other_db_url)
    stopped = run_json("build", "kayles", "14", "--misere", "--max-states", "30", "--db", db_url)
    assert stopped["status"] == "stopped" and stopped["outcome"] is None
    done = run_json("build", "kayles", "14", "--misere", "--db", db_url)
    assert done["status"] == "complete" and done["states_reused"] == stopped["states_new"]
    assert dump(db_url, "octal:0.77", "misere") == dump(other_db_url, "octal:0.77", "misere")
    assert run_json("verify", "kayles", "--misere", "--db", db_url)["ok"]


def test_verify_checks_a_misere_build_by_the_misere_rule(db_url):
    run_json("build", "nim", "2,2", "--misere", "--db", db_url)
    run_json("build", "nim", "2,2", "--db", db_url)
    assert run_json("verify", "--db", db_url)["ok"]
    misere = "(SELECT id FROM games WHERE convention = 'misere')"
    # the end of the game with the normal-play value: wrong in misère play
    sql(
        db_url,
        f"UPDATE states SET grundy = 0, outcome = 'P' WHERE key = '0' AND game_id = {misere}",
    )
    code, out, err = run("verify", "nim", "--misere", "--db", db_url, "--json")
    result = json.loads(out)
    assert code == 1 and err.startswith("Error: ")
    assert {
        "game": "nim",
        "position": "0",
        "check": "grundy",
        "detail": "stored 0, a misère end of the game (no move) is 1",
        "convention": "misere",
    } in result["mismatches"]
    # the normal-play game is still right, and is checked by its own rule
    assert run_json("verify", "nim", "--db", db_url)["ok"]
    code, out, _ = run("verify", "--db", db_url)
    assert code == 1 and "  nim (misère): 6 states, 9 moves" in out
    assert "  nim: 6 states, 9 moves (moves checked against the rules): ok" in out
    assert "  nim (misère) 0: grundy: stored 0, a misère end of the game (no move) is 1" in out


def test_export_viz_and_query_text_say_misere(db_url, tmp_path):
    run_json("build", "nim", "1,2", "--misere", "--db", db_url)
    run_json("build", "nim", "1,2", "--db", db_url)
    report = run_json(
        "export", "nim", "--misere", "-o", str(tmp_path / "m.graphml"), "--db", db_url
    )
    assert report["convention"] == "misere"
    graph = nx.read_graphml(tmp_path / "m.graphml")
    assert graph.graph["convention"] == "misere"
    assert {n: d["outcome"] for n, d in graph.nodes(data=True)} == {
        k: s["outcome"] for k, s in stored_states(db_url, "nim", MISERE).items()
    }
    run_json("export", "nim", "-o", str(tmp_path / "n.json"), "--db", db_url)
    data = json.loads((tmp_path / "n.json").read_text(encoding="utf-8"))
    assert data["graph"]["convention"] == "normal"
    code, out, _ = run("export", "nim", "--misere", "-o", str(tmp_path / "m.gexf"), "--db", db_url)
    assert code == 0 and out.startswith("wrote 5 states and 7 edges of nim (misère) to ")
    assert "<description>nim (misère play)</description>" in (tmp_path / "m.gexf").read_text()
    # viz --db draws the stored misère values, by misère outcome
    page = tmp_path / "m.html"
    code, out, err = run("viz", "nim", "1,2", "--db", db_url, "--misere", "-o", str(page))
    assert code == 0, err
    text = page.read_text(encoding="utf-8")
    assert "Misère play: the player who moves last loses." in text and "misère N" in text
    normal_page = tmp_path / "n.html"
    assert run("viz", "nim", "1,2", "--db", db_url, "-o", str(normal_page))[0] == 0
    assert "Misère play" not in normal_page.read_text(encoding="utf-8")
    code, out, _ = run("query", "nim", "1,1", "--misere", "--db", db_url)
    assert code == 0
    assert out.splitlines()[:4] == [
        "game        nim",
        "convention  misère (the player who moves last loses)",
        "position    1,1",
        "G⁻          1",
    ]


def test_misere_bad_input_is_one_error_line_and_changes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "games.db")
    for spec, position in (("windup:5:1,3", "2"), ("nim + windup:5:1,3", "1 + 2")):
        err = one_line_error(["build", spec, position, "--misere", "--db", db])
        assert "a misère build needs a game whose play always ends" in err
        assert "may loop" in err
    assert not Path(db).exists()  # refused before a database is opened
    run_json("build", "nim", "1,2", "--db", db)
    before = dump(db, "nim")
    err = one_line_error(["query", "nim", "1,2", "--misere", "--db", db])
    assert err == (
        f"Error: the misère game 'nim' is not stored in {db!r}: only its normal-play build "
        "is (build a position of it: explorer build 'nim' POSITION --misere)\n"
    )
    err = one_line_error(["stats", "kayles", "--misere", "--db", db])
    assert "explorer build 'octal:0.77' POSITION --misere" in err
    err = one_line_error(["verify", "nim", "--misere", "--db", db])  # as every command says it
    assert err == (
        f"Error: the misère game 'nim' is not stored in {db!r}: only its normal-play build "
        "is (build a position of it: explorer build 'nim' POSITION --misere)\n"
    )
    run_json("build", "nim", "1,2", "--misere", "--db", db)
    err = one_line_error(["query", "nim", "2,2", "--misere", "--db", db])
    assert "(build it first: explorer build 'nim' '2,2' --misere)" in err
    for args in (["stats", "--misere"], ["verify", "--misere"]):
        last = usage_error([*args, "--db", db])
        assert last == "Error: --misere names a game's misère build: give its SPEC"
    err = one_line_error(
        ["viz", "nim", "1,2", "--db", db, "--misere", "--condensed", "grundy", "-o", "c.html"]
    )
    assert "--condensed groups normal-play values" in err
    assert not (tmp_path / "c.html").exists()
    err = one_line_error(["build", "windup:5:1,3", "2", "--misere", "--db", db])
    assert "may loop" in err
    assert [g["convention"] for g in run_json("stats", "--db", db)] == ["normal", "misere"]
    assert dump(db, "nim") == before
    assert run_json("verify", "--db", db)["ok"]


def test_a_schema_0004_database_is_upgraded_and_verifies(db_url):
    run_json("build", "nim", "3,4,5", "--db", db_url)
    run_json("build", "kayles", "8", "--misere", "--db", db_url)
    before = dump(db_url, "nim")
    with open_database(db_url) as db, db.engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0004")
    engine = sa.create_engine(resolve_url(db_url))
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == "0004"
        columns = {c["name"] for c in sa.inspect(conn).get_columns("games")}
        assert "convention" not in columns
        # schema 0004 knows one convention: the misère game went with its rows
        assert conn.exec_driver_sql("SELECT spec FROM games").scalars().all() == ["nim"]
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM states").scalar() == len(before["states"])
    engine.dispose()
    checked = run_json("verify", "--db", db_url)  # opening it upgrades it
    assert checked["ok"] and [(g["game"], g["convention"]) for g in checked["games"]] == [
        ("nim", "normal")
    ]
    assert dump(db_url, "nim") == before
    with open_database(db_url) as db, db.engine.connect() as conn:
        version = conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
        assert version == head_revision()
        rows = conn.exec_driver_sql(
            "SELECT game, convention, grundy FROM state_values WHERE position = '3,4,5'"
        ).all()
        assert [tuple(r) for r in rows] == [("nim", "normal", 2)]
        with db.engine.begin() as check:
            command.check(alembic_config(check))
    # the same spec in the other convention is a new game now
    assert run_json("build", "nim", "3,4,5", "--misere", "--db", db_url)["states_reused"] == 0
    assert run_json("query", "nim", "3,4,5", "--db", db_url)["grundy"] == 2


@pytest.mark.slow  # a server
@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_serve_shows_a_misere_build_beside_the_normal_one(backend, request, tmp_path):
    if backend == "sqlite":
        url = str(tmp_path / "games.db")
    else:
        url = request.getfixturevalue("pg_url")
    run_json("build", "nim", "1,2,3", "--misere", "--db", url)
    run_json("build", "nim", "1,2,3", "--db", url)
    with start_server(url) as server:
        deadline = time.monotonic() + 60
        games = server.get("/")
        while "counting" in games.body and time.monotonic() < deadline:
            time.sleep(0.2)
            games = server.get("/")
        assert games.status == 200
        assert "nim (misère)</a>" in games.body
        assert "/game?spec=nim&amp;convention=misere" in games.body
        page = server.get("/position?spec=nim&convention=misere&p=1%2C1%2C1")
        assert page.status == 200
        assert 'id="convention">misère (the player who moves last loses)' in page.body
        outcome = re.search(r'<td id="outcome">(.*?)</td>', page.body, re.S)
        assert outcome is not None and outcome[1].startswith("P")  # N in normal play
        normal = server.get("/position?spec=nim&p=1%2C1%2C1")
        assert re.search(r'<td id="outcome">N', normal.body) and 'id="convention"' not in (
            normal.body
        )
        # every link of the misère page stays in the misère game
        links = re.findall(r'href="(/(?:position|play|game)\?[^"]*)"', page.body)
        assert links and all("convention=misere" in link for link in links)
        # playing from 1: the app moves to 0 and, having moved last, loses in misère play
        reply = server.get("/play?spec=nim&convention=misere&p=1&p=0&app=first")
        assert reply.status == 200 and 'data-winner="you"' in reply.body
        normal_end = server.get("/play?spec=nim&p=1&p=0&app=first")
        assert 'data-winner="app"' in normal_end.body
        bad = server.get("/game?spec=nim&convention=sideways")
        assert bad.status == 400 and "convention must be normal or misere" in bad.body


def test_notebook_views_name_a_misere_build():
    with open_database("sqlite://") as db:
        report = db.game("nim", MISERE).build("1,2")
        shown = shown_html(report)
        assert "misère build of nim from 1,2" in shown and "misère value G⁻" in shown
        state = shown_html(db.game("nim", MISERE).state("1,2"))
        assert "nim (misère) at 1,2" in state and "misère value G⁻" in state
        normal = shown_html(db.game("nim").build("1,2"))
        assert "misère" not in normal and "Grundy value" in normal
