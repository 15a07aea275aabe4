"""The graph database: builds checked against a brute force, reuse, resumption at --max-states,
queries, statistics, NetworkX subgraphs, export, and one-line errors, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import csv
import json
import os
import sqlite3
import subprocess
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from itertools import combinations_with_replacement
from math import comb
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import open_database
from explorer.build import arrays as build_arrays
from explorer.games import load_game
from explorer.generation import expansion
from explorer.generation.expansion import HeapIndex, position_index
from explorer.storage import NotStoredError
from explorer.storage.backends import bulk
from explorer.storage.backends.bulk import read_int_columns, writer_for
from explorer.storage.backends.engine import ENV_VAR
from explorer.storage.rows.moves import add_moves
from tests.support.bruteforce import heap_game_moves, mex_values, remoteness_values
from tests.support.cli import run, run_json
from tests.support.storage import dump
from tests.support.strategies import fraction_of_examples

Moves = Callable[[Hashable], Iterable[Hashable]]

# The rules again, from GAMES.md: Nim takes any number from one heap; S = {1, 2} takes 1 or 2.
nim_moves = heap_game_moves(lambda h: ((k,) for k in range(h)))
take_1_2_moves = heap_game_moves(lambda h: ((h - s,) for s in (1, 2) if s <= h))


def heaps(text: str) -> tuple[int, ...]:
    return tuple(sorted(int(x) for x in text.split(",") if int(x)))


def fmt(position: tuple[int, ...]) -> str:
    return ",".join(map(str, position)) if position else "0"


def game_graph(
    start: Hashable, moves: Moves
) -> tuple[set[Hashable], set[tuple[Hashable, Hashable]]]:
    """Every position reachable from `start`, and every move between them (breadth first)."""
    seen, edges, queue = {start}, set(), deque([start])
    while queue:
        p = queue.popleft()
        for q in set(moves(p)):
            edges.add((p, q))
            if q not in seen:
                seen.add(q)
                queue.append(q)
    return seen, edges


def stored_by_key(url: str, spec: str) -> tuple[dict[str, tuple], set[tuple[str, str]]]:
    rows = dump(url, spec)
    keys = {s[0]: s[1] for s in rows["states"]}
    states = {s[1]: (s[4], s[5], s[6], s[3]) for s in rows["states"]}
    edges = {(keys[a], keys[b]) for a, b in rows["edges"]}
    return states, edges


@pytest.mark.parametrize(
    ("spec", "position", "moves", "batch"),
    [
        ("nim", "3,4,5", nim_moves, 7),
        ("nim", "2,3,5,6", nim_moves, 1000),
        ("subtraction:1,2", "5,6,7,8", take_1_2_moves, 33),
    ],
)
def test_build_stores_every_state_edge_and_value_of_the_brute_force(
    db_url, spec, position, moves, batch
):
    with open_database(db_url) as db:
        report = db.game(spec).build(position, batch_states=batch)
    start = heaps(position)
    positions, edges = game_graph(start, moves)
    values = mex_values(start, moves)
    far = remoteness_values(start, moves)
    states, stored_edges = stored_by_key(db_url, spec)
    assert report.status == "complete"
    assert report.states_new == len(positions) == len(states)
    assert report.edges_new == len(edges)
    assert stored_edges == {(fmt(a), fmt(b)) for a, b in edges}
    assert states == {
        fmt(p): (values[p], "P" if values[p] == 0 else "N", far[p], True) for p in positions
    }
    assert (report.grundy, report.remoteness) == (values[start], far[start])


def test_values_written_in_chunks_are_the_values_of_the_brute_force(db_url, monkeypatch):
    # the last batch solves all 286 states at once, written 7 update rows at a time
    monkeypatch.setattr(bulk, "VALUE_CHUNK", 7)
    with open_database(db_url) as db:
        report = db.game("subtraction:1,2").build("10,10,10", batch_states=50)
    start = (10, 10, 10)
    positions, _ = game_graph(start, take_1_2_moves)
    values = mex_values(start, take_1_2_moves)
    far = remoteness_values(start, take_1_2_moves)
    states, _ = stored_by_key(db_url, "subtraction:1,2")
    assert report.values_computed == len(positions) == len(states) == 286
    assert states == {
        fmt(p): (values[p], "P" if values[p] == 0 else "N", far[p], True) for p in positions
    }


def test_larger_position_reuses_stored_states_and_matches_a_fresh_build(db_url, other_db_url):
    first = run_json("build", "nim", "3,4,5", "--db", db_url)
    second = run_json("build", "nim", "6,4,3", "--db", db_url)
    fresh = run_json("build", "nim", "3,4,6", "--db", other_db_url)
    small, _ = game_graph((3, 4, 5), nim_moves)
    large, _ = game_graph((3, 4, 6), nim_moves)
    assert first["states_new"] == len(small) and first["states_reused"] == 0
    assert second["states_reused"] == len(small & large) > 0
    assert second["states_new"] == len(large - small)
    assert fresh["states_new"] == len(large)
    assert second["grundy"] == fresh["grundy"] == 3 ^ 4 ^ 6
    states, edges = stored_by_key(db_url, "nim")
    fresh_states, fresh_edges = stored_by_key(other_db_url, "nim")
    assert {k: states[k][:3] for k in fresh_states} == {k: v[:3] for k, v in fresh_states.items()}
    assert fresh_edges <= edges
    again = run_json("build", "nim", "3,4,6", "--db", db_url)
    assert (again["states_new"], again["states_reused"], again["edges_new"]) == (
        0,
        len(large),
        0,
    )


def test_a_position_stored_solved_is_reported_from_the_stored_graph(db_url):
    run_json("build", "nim", "3,4,6", "--db", db_url)
    before = stored_by_key(db_url, "nim")
    inner = run_json("build", "nim", "5,2,2", "--db", db_url)
    below, _ = game_graph((2, 2, 5), nim_moves)
    assert inner["status"] == "complete" and inner["grundy"] == 2 ^ 2 ^ 5
    assert (inner["states_new"], inner["edges_new"], inner["values_computed"]) == (0, 0, 0)
    assert inner["states_reused"] == len(below) < inner["states_stored"]
    assert stored_by_key(db_url, "nim") == before


def test_a_solved_position_over_a_damaged_graph_fails_in_one_line(tmp_path):
    db = str(tmp_path / "damaged.db")
    run_json("build", "nim", "3,4,6", "--db", db)
    with sqlite3.connect(db) as conn:  # a stored state below a solved one, not expanded
        conn.execute("UPDATE states SET expanded = 0 WHERE key = '1'")
    code, _, err = run("build", "nim", "5,2,2", "--db", db)
    assert code == 1 and err.count("\n") == 1 and err.startswith("Error: another build")


def test_max_states_stops_cleanly_and_the_same_command_continues(db_url, other_db_url):
    command = ["build", "subtraction:1,2", "4,5,6,7", "--db", db_url, "--max-states", "40"]
    reports = [run_json(*command)]
    while reports[-1]["status"] == "stopped":
        # a state's moves are stored together: never past the limit, at most 8 short of it
        assert 40 - 8 < reports[-1]["states_new"] <= 40
        assert reports[-1]["frontier"] > 0
        reports.append(run_json(*command))
        assert len(reports) < 100
    assert len(reports) > 3
    # ids too: the one-process build numbers states in the same order however it is cut
    run_json("build", "subtraction:1,2", "4,5,6,7", "--db", other_db_url)  # in one process
    assert dump(db_url, "subtraction:1,2") == dump(other_db_url, "subtraction:1,2")
    stats = run_json("stats", "subtraction:1,2", "--db", db_url)
    assert [b["status"] for b in stats["builds"]] == ["stopped"] * (len(reports) - 1) + ["complete"]
    assert sum(b["states_new"] for b in stats["builds"]) == stats["states"]


def test_human_build_output_names_counts_and_value(db_url):
    code, out, _ = run("build", "nim", "1,2", "--db", db_url)
    assert code == 0
    assert "complete" in out
    assert "5 new, 0 reused" in out
    assert "grundy 3, outcome N, remoteness 3" in out


def test_query_a_position_gives_value_moves_and_winning_moves(db_url):
    run_json("build", "nim", "3,4,5", "--db", db_url)
    data = run_json("query", "nim", "5,4,3", "--db", db_url)
    start = (3, 4, 5)
    values = mex_values(start, nim_moves)
    moves = set(nim_moves(start))
    assert data["position"] == "3,4,5"
    assert (data["grundy"], data["outcome"]) == (2, "N")
    assert data["moves"] == len(moves)
    assert {s["position"]: s["grundy"] for s in data["successors"]} == {
        fmt(q): values[q] for q in moves
    }
    assert data["winning_moves"] == [fmt(q) for q in moves if values[q] == 0] == ["1,4,5"]
    code, out, _ = run("query", "nim", "3,4,5", "--db", db_url)
    assert code == 0 and "outcome     N" in out and "1,4,5" in out


def test_query_pages_through_filtered_states_and_predecessors(db_url):
    run_json("build", "nim", "3,4,5", "--db", db_url)
    positions, edges = game_graph((3, 4, 5), nim_moves)
    values = mex_values((3, 4, 5), nim_moves)
    p_positions = {fmt(p) for p in positions if values[p] == 0}
    seen: list[str] = []
    offset = 0
    while True:
        page = run_json(
            "query",
            "nim",
            "--outcome",
            "P",
            "--limit",
            "3",
            "--offset",
            str(offset),
            "--db",
            db_url,
        )
        assert page["total"] == len(p_positions)
        if not page["states"]:
            break
        seen += [s["position"] for s in page["states"]]
        offset += 3
    assert sorted(seen) == sorted(p_positions)
    twos = run_json(
        "query", "nim", "--grundy", "2", "--depth", "1", "--db", db_url, "--limit", "100"
    )
    assert {s["position"] for s in twos["states"]} == {
        fmt(q) for q in set(nim_moves((3, 4, 5))) if values[q] == 2
    }
    into = run_json("query", "nim", "1,2", "--predecessors", "--limit", "100", "--db", db_url)
    assert {s["position"] for s in into["states"]} == {fmt(a) for a, b in edges if b == (1, 2)}
    assert into["total"] == len(into["states"])
    out_page = run_json("query", "nim", "1,2", "--successors", "--db", db_url)
    assert {s["position"] for s in out_page["states"]} == {"2", "1", "1,1"}


def test_stats_count_by_outcome_value_and_depth_and_list_builds(db_url):
    run_json("build", "nim", "2,3,5", "--db", db_url)
    run_json("build", "nim", "1,1", "--db", db_url)
    data = run_json("stats", "nim", "--db", db_url)
    positions, edges = game_graph((2, 3, 5), nim_moves)
    values = mex_values((2, 3, 5), nim_moves)
    assert data["states"] == len(positions) and data["edges"] == len(edges)
    assert data["by_outcome"] == {
        "N": sum(1 for p in positions if values[p]),
        "P": sum(1 for p in positions if not values[p]),
    }
    by_value: dict[str, int] = {}
    for p in positions:
        by_value[str(values[p])] = by_value.get(str(values[p]), 0) + 1
    assert data["by_grundy"] == by_value
    assert data["max_grundy"] == max(values.values())
    assert sum(data["by_depth"].values()) == len(positions)
    assert [(b["position"], b["states_new"]) for b in data["builds"]] == [
        ("2,3,5", len(positions)),
        ("1,1", 0),
    ]
    listing = run_json("stats", "--db", db_url)
    assert listing == [
        {
            "game": "nim",
            "convention": "normal",
            "states": len(positions),
            "edges": len(edges),
            "sequence": None,
        }
    ]
    code, out, _ = run("stats", "nim", "--db", db_url)
    assert code == 0 and "by Grundy value" in out and "2,3,5" in out


def within(start, moves, depth):
    found, frontier = {start}, {start}
    for _ in range(depth):
        frontier = {q for p in frontier for q in moves(p)} - found
        found |= frontier
    return found


@pytest.mark.parametrize("depth", [0, 1, 2])
def test_neighbourhood_is_the_states_within_depth_with_their_values(db_url, depth):
    with open_database(db_url) as db:
        db.game("nim").build("3,4,5")
        graph = db.game("nim").neighbourhood("5,3,4", depth)
        backwards = db.game("nim").neighbourhood("1,2", depth, direction="in")
        both = db.game("nim").neighbourhood("1,2,4", depth, direction="both")
        whole = db.game("nim").subgraph(10_000)
        top = db.game("nim").subgraph(5)
    positions, edges = game_graph((3, 4, 5), nim_moves)
    values = mex_values((3, 4, 5), nim_moves)
    near = within((3, 4, 5), nim_moves, depth)
    assert set(graph) == {fmt(p) for p in near}
    assert set(graph.edges) == {(fmt(a), fmt(b)) for a, b in edges if a in near and b in near}
    for p in near:
        assert graph.nodes[fmt(p)]["grundy"] == values[p]
        assert graph.nodes[fmt(p)]["outcome"] == ("P" if values[p] == 0 else "N")
        assert {"remoteness", "depth"} <= set(graph.nodes[fmt(p)])
    parents: dict = {}
    for a, b in edges:
        parents.setdefault(b, set()).add(a)
    assert set(backwards) == {fmt(p) for p in within((1, 2), lambda p: parents.get(p, ()), depth)}
    either = lambda p: set(nim_moves(p)) | parents.get(p, set())  # noqa: E731
    assert set(both) == {fmt(p) for p in within((1, 2, 4), either, depth)}
    assert set(whole) == {fmt(p) for p in positions}
    assert whole.number_of_edges() == len(edges)
    assert top.number_of_nodes() == 5 and "3,4,5" in top


@pytest.mark.parametrize("fmt_name", ["graphml", "gexf", "json", "csv"])
def test_export_writes_files_other_tools_read(db_url, tmp_path, fmt_name):
    run_json("build", "nim", "2,3", "--db", db_url)
    target = tmp_path / f"nim.{fmt_name}"
    data = run_json("export", "nim", "-o", str(target), "--db", db_url)
    positions, edges = game_graph((2, 3), nim_moves)
    values = mex_values((2, 3), nim_moves)
    expected_edges = {(fmt(a), fmt(b)) for a, b in edges}
    if fmt_name == "graphml":
        graph = nx.read_graphml(target)
    elif fmt_name == "gexf":
        graph = nx.read_gexf(target)
    elif fmt_name == "json":
        graph = nx.node_link_graph(json.loads(target.read_text()), edges="edges")
    else:
        nodes_file, edges_file = (Path(f) for f in data["files"])
        graph = nx.DiGraph()
        with nodes_file.open() as file:
            for row in csv.DictReader(file):
                graph.add_node(row["position"], grundy=int(row["grundy"]))
        with edges_file.open() as file:
            graph.add_edges_from((r["source"], r["target"]) for r in csv.DictReader(file))
    assert set(graph) == {fmt(p) for p in positions}
    assert set(graph.edges) == expected_edges
    assert {n: int(d["grundy"]) for n, d in graph.nodes(data=True)} == {
        fmt(p): values[p] for p in positions
    }
    assert data["states"] == len(positions) and data["edges"] == len(edges)


def test_export_a_neighbourhood(db_url, tmp_path):
    run_json("build", "nim", "3,4,5", "--db", db_url)
    target = tmp_path / "near.graphml"
    data = run_json(
        "export", "nim", "--around", "3,4,5", "--depth", "1", "-o", str(target), "--db", db_url
    )
    graph = nx.read_graphml(target)
    assert set(graph) == {fmt(p) for p in within((3, 4, 5), nim_moves, 1)}
    assert data["states"] == graph.number_of_nodes()


def test_sqlite_file_is_readable_with_plain_sqlite(tmp_path):
    path = tmp_path / "games.db"
    run_json("build", "nim", "1,2", "--db", str(path))
    with sqlite3.connect(path) as conn:
        row = conn.execute(
            "SELECT grundy, outcome, remoteness FROM state_values "
            "WHERE game = 'nim' AND position = '1,2'"
        ).fetchone()
        moves = conn.execute(
            "SELECT move_to FROM moves WHERE game = 'nim' AND position = '1,2' ORDER BY move_to"
        ).fetchall()
    assert row == (3, "N", 3)
    assert [m for (m,) in moves] == ["1", "1,1", "2"]


def test_default_database_is_explorer_db_or_the_environment_variable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(ENV_VAR, raising=False)
    run_json("build", "nim", "1,2")
    assert (tmp_path / "explorer.db").exists()
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "other.db"))
    run_json("build", "nim", "2,2")
    assert run_json("query", "nim", "2,2")["grundy"] == 0
    code, _, err = run("query", "nim", "2,2", "--db", "explorer.db")
    assert code == 1 and "position '2,2' of nim is not stored" in err


# -- errors: one line, exit 1, the database untouched ---------------------------------------


def snapshot(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.glob(path.name + "*"))}


def assert_one_line_error(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 1, (out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert message in err, err


def test_unknown_url_scheme_is_a_one_line_error():
    assert_one_line_error(
        ["build", "nim", "1,2", "--db", "mongodb://localhost/games"],
        "Error: unknown database URL scheme 'mongodb'",
    )


def test_unreachable_server_is_a_one_line_error():
    assert_one_line_error(
        ["query", "nim", "1,2", "--db", "postgresql://explorer@127.0.0.1:1/none"],
        "cannot open database 'postgresql+psycopg://explorer@127.0.0.1:1/none'",
    )


def test_missing_or_unwritable_directory_is_a_one_line_error(tmp_path):
    assert_one_line_error(
        ["build", "nim", "1,2", "--db", str(tmp_path / "nowhere" / "games.db")],
        "does not exist",
    )
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert_one_line_error(
        ["build", "nim", "1,2", "--db", str(blocker / "games.db")], "does not exist"
    )
    locked = tmp_path / "locked"
    locked.mkdir()
    # root writes anywhere a mode allows nothing; the immutable flag stops root too
    as_root = os.geteuid() == 0
    if as_root:
        subprocess.run(["chattr", "+i", str(locked)], check=True)
    else:
        locked.chmod(0o500)
    try:
        assert_one_line_error(
            ["build", "nim", "1,2", "--db", str(locked / "games.db")],
            f"cannot create database 'sqlite:///{locked}/games.db': directory '{locked}' is not "
            "writable",
        )
        assert list(locked.iterdir()) == []
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(locked)], check=True)
        else:
            locked.chmod(0o700)


def test_read_only_database_file_is_a_one_line_error(tmp_path):
    path = tmp_path / "games.db"
    run_json("build", "nim", "1,2", "--db", str(path))
    before = snapshot(path)
    assert_one_line_error(["build", "nim", "1,2", "--db", str(tmp_path)], "is a directory")
    assert snapshot(path) == before


def test_a_database_file_that_cannot_be_written_is_a_one_line_error(tmp_path):
    path = tmp_path / "games.db"
    run_json("build", "nim", "1,2", "--db", str(path))
    before = path.read_bytes()
    as_root = os.geteuid() == 0
    if as_root:
        subprocess.run(["chattr", "+i", str(path)], check=True)
    else:
        path.chmod(0o444)
    try:
        assert_one_line_error(
            ["build", "nim", "2,2", "--db", str(path)],
            f"cannot write to database '{path}': attempt to write a readonly database",
        )
        assert run_json("query", "nim", "1,2", "--db", str(path))["grundy"] == 3
    finally:
        if as_root:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        else:
            path.chmod(0o644)
    assert path.read_bytes() == before


def test_a_file_that_is_not_a_database_is_refused_unchanged(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 100)
    before = path.read_bytes()
    assert_one_line_error(["build", "nim", "1,2", "--db", str(path)], "is not a SQLite database")
    assert_one_line_error(["stats", "--db", str(path)], "is not a SQLite database")
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.db"]


def test_a_foreign_sqlite_database_is_refused_unchanged(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    before = snapshot(path)
    assert_one_line_error(["build", "nim", "1,2", "--db", str(path)], "is not an explorer database")
    assert snapshot(path) == before


def test_querying_what_is_not_stored_is_a_one_line_error(db_url, tmp_path):
    run_json("build", "nim", "1,2", "--db", db_url)
    before = dump(db_url, "nim")
    assert_one_line_error(["query", "kayles", "3", "--db", db_url], "game 'octal:0.77' is not")
    assert_one_line_error(["stats", "wythoff", "--db", db_url], "game 'wythoff' is not stored")
    assert_one_line_error(
        ["query", "nim", "7,7", "--db", db_url], "position '7,7' of nim is not stored"
    )
    assert_one_line_error(
        ["query", "nim", "7,7", "--predecessors", "--db", db_url], "'7,7' of nim is not stored"
    )
    assert_one_line_error(
        ["export", "nim", "--around", "9", "-o", str(tmp_path / "x.gexf"), "--db", db_url],
        "position '9' of nim is not stored",
    )
    assert_one_line_error(
        ["export", "nim", "-o", str(tmp_path / "x.txt"), "--db", db_url],
        "unknown export format 'txt'",
    )
    assert_one_line_error(["query", "nim", "1,x", "--db", db_url], "bad position '1,x'")
    assert dump(db_url, "nim") == before
    with open_database(db_url) as db, pytest.raises(NotStoredError):
        db.game("nim").neighbourhood("9,9", 1)


@pytest.mark.parametrize(("width", "base"), [(1, 9), (2, 7), (3, 12), (5, 4)])
def test_heap_codes_rank_every_sorted_row_once_from_zero(width, base):
    # the combinatorial number system: every row of sorted heaps < base gets its own code,
    # and the codes are exactly 0 .. C(base + width - 1, width) - 1 (a dense table's size)
    index = HeapIndex(load_game("nim"), width=width, base=base)
    rows = np.array(list(combinations_with_replacement(range(base), width)), dtype=np.int32)
    codes = index.codes(rows)
    assert sorted(codes.tolist()) == list(range(comb(base + width - 1, width)))
    assert index.dense is not None and len(index.dense) == len(rows)


def test_a_heap_lookup_table_fits_a_share_of_the_memory_budget():
    # nim 400,400,400: heaps 0..400, C(403, 3) = 10,827,401 codes, a 43 MB table: taken under
    # the default 4 GiB budget, not under --memory 200 (sorted runs: the table went over it)
    nim, root = load_game("nim"), (400, 400, 400)
    assert position_index(nim, [], [], root, memory=4 * 2**30).dense.size == comb(403, 3)
    assert position_index(nim, [], [], root, memory=200 * 2**20).dense is None
    assert position_index(nim, [], [], root).dense.size == comb(403, 3)


@settings(max_examples=fraction_of_examples(2.4))
@given(st.lists(st.lists(st.integers(0, 10**6), max_size=40), max_size=30))
def test_sorted_runs_of_codes_find_every_code_numbered_so_far(rounds):
    # the index of heap games too large for a table, against a dict
    index = HeapIndex(load_game("nim"), width=3, base=200)
    index.dense = None  # as when codes are too many for a table
    numbered: dict[int, int] = {}
    for codes in rounds:
        new = np.array(sorted(set(codes) - numbered.keys()), dtype=np.int64)
        ids = np.arange(len(numbered), len(numbered) + len(new), dtype=np.int64)
        index._index(new[::-1].copy(), ids[::-1].copy())
        numbered.update(zip(new.tolist(), ids.tolist(), strict=True))
        asked = np.array(codes + [10**6 + 1, -1], dtype=np.int64)
        expected = [numbered.get(c, -1) for c in asked.tolist()]
        assert index._lookup(asked).tolist() == expected
        sizes = [len(run_codes) for run_codes, _ in index.runs]
        assert all(a > 2 * b for a, b in zip(sizes, sizes[1:], strict=False))


@pytest.mark.parametrize(
    ("spec", "positions"),
    [("nim", ["3,4,5", "2,6,6"]), ("subtraction:1,2", ["5,7,8", "9,9"]), ("bash:3", ["12"])],
)
@pytest.mark.parametrize("lookup", ["table", "sorted codes"])
def test_numpy_expansion_of_heap_games_writes_the_rows_of_the_generic_one(
    tmp_path, monkeypatch, spec, positions, lookup
):
    vectorised, generic = str(tmp_path / "numpy.db"), str(tmp_path / "generic.db")
    if lookup == "sorted codes":
        monkeypatch.setattr(expansion, "MAX_DENSE", 0)
    for position in positions:
        with open_database(vectorised) as db:
            assert isinstance(db.game(spec).build(position, batch_states=9).states_new, int)
    with monkeypatch.context() as patch:
        patch.setattr(
            HeapIndex, "suits", classmethod(lambda cls, game, positions, table=None: None)
        )
        for position in positions:
            with open_database(generic) as db:
                db.game(spec).build(position, batch_states=9)
    assert dump(vectorised, load_game(spec).spec) == dump(generic, load_game(spec).spec)


def test_heap_index_is_used_for_non_splitting_heap_games_only():
    nim, kayles = load_game("nim"), load_game("kayles")
    assert isinstance(HeapIndex.suits(nim, [(3, 4, 5)]), HeapIndex)
    assert HeapIndex.suits(kayles, [(3, 4, 5)]) is None
    assert HeapIndex.suits(load_game("wythoff"), [(3, 4)]) is None


def test_streaming_read_leaves_the_connection_able_to_write(db_url):
    # read_int_columns once switched the caller's connection to server-side cursors for good,
    # and PostgreSQL then refused the next INSERT on it ("DECLARE CURSOR ... FOR INSERT")
    run_json("build", "nim", "1,2", "--db", db_url)
    with open_database(db_url) as db, db.engine.begin() as conn:
        (ids,) = read_int_columns(conn, "SELECT id FROM games ORDER BY id", {}, 1)
        assert "yield_per" not in conn.get_execution_options()
        conn.execute(
            sa.text(
                "INSERT INTO games (id, spec, family, created_at) VALUES (:i, 'bash:3', 'bash', "
                "CURRENT_TIMESTAMP)"
            ),
            {"i": int(ids[-1]) + 1},
        )
        (after,) = read_int_columns(conn, "SELECT id FROM games ORDER BY id", {}, 1)
    assert after.tolist() == [*ids.tolist(), int(ids[-1]) + 1]


def test_states_an_edit_added_to_a_dag_game_can_be_queried(db_url, tmp_path):
    graph = tmp_path / "g.edges"
    graph.write_text("a b\nb c\n")
    spec = f"dag:{graph}"
    run_json("build", spec, "a", "--db", db_url)
    # z is not a vertex of the file: only the database knows it
    code, _, err = run("edit", spec, "--add-state", "z", "--add-edge", "z", "a", "--db", db_url)
    assert (code, err) == (0, "")
    found = run_json("query", spec, "z", "--db", db_url)
    assert (found["grundy"], found["outcome"], found["winning_moves"]) == (1, "N", ["a"])
    assert [s["position"] for s in found["successors"]] == ["a"]
    assert run_json("query", spec, "a", "--predecessors", "--db", db_url)["total"] == 1
    with open_database(db_url) as db:
        assert sorted(db.game(spec).neighbourhood("z", 2)) == ["a", "b", "z"]
    assert_one_line_error(
        ["query", spec, "y", "--db", db_url],
        f"position 'y' of {spec} is not stored in",
    )
    assert_one_line_error(["query", spec, "y", "--db", db_url], "'y' is not a vertex of")


def test_bulk_writer_round_trips_awkward_keys_and_moves_past_three_bytes_an_id(db_url):
    run_json("build", "nim", "1", "--db", db_url)
    keys = ['café "quoted" \\ back', "007", "1,2", "tab\there", "日本"]
    big = 2**24 + 5  # past three bytes an id: the game's moves are packed again, wider
    ids = [1000, 1001, 1002, big, 2**31 - 1]
    with open_database(db_url) as db, db.engine.begin() as conn:
        game_id = conn.execute(sa.text("SELECT id FROM games")).scalar_one()
        build_id = conn.execute(sa.text("SELECT MAX(id) FROM builds")).scalar_one()
        writer = writer_for(conn)
        writer.insert_states(
            [
                (game_id, ids[i], key, i, i % 2 == 0, None, None, None, None, build_id, None)
                for i, key in enumerate(keys)
            ]
        )
        add_moves(conn, game_id, np.array([1000, 1001]), np.array([1001, 1002]))
        # offsets of one id from the row's own: the default two bytes
        assert conn.execute(sa.text("SELECT id_width FROM games")).scalar_one() == 2
        add_moves(conn, game_id, np.array([big, 0, 1000]), np.array([1000, 2**31 - 1, big]))
        assert conn.execute(sa.text("SELECT id_width FROM games")).scalar_one() == 4
    with open_database(db_url) as db, db.engine.connect() as conn:
        stored = conn.execute(
            sa.text("SELECT key, depth, expanded FROM states WHERE id >= 1000 ORDER BY id")
        ).all()
        edges = conn.execute(sa.text("SELECT src, dst FROM edges WHERE src >= 1000 OR src = 0"))
        every = [(0, 1), (0, 2**31 - 1), (1000, 1001), (1000, big), (1001, 1002), (big, 1000)]
        assert sorted(map(tuple, edges)) == every
        into = conn.execute(sa.text("SELECT src, dst FROM edges_in WHERE dst >= 1000 OR src = 0"))
        assert sorted(map(tuple, into)) == every
    assert [(k, d, bool(e)) for k, d, e in stored] == [
        (key, i, i % 2 == 0) for i, key in enumerate(keys)
    ]


@given(
    st.lists(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=20), max_size=30),
    st.booleans(),
    st.randoms(use_true_random=False),
)
@settings(max_examples=fraction_of_examples(2.4))
def test_waiting_edges_are_found_by_their_end_however_the_blocks_merge(batches, counter, rng):
    """The builder's waiting edges, merged all at once or like a binary counter (as past
    `Waiting.MERGE_ALL_EDGES`), give every unsolved end exactly the sources that wait for it."""
    waiting = build_arrays.Waiting()
    if counter:
        waiting.MERGE_ALL_EDGES = 0
    grundy = np.full(31, build_arrays.UNKNOWN, dtype=np.int32)
    added: list[tuple[int, int]] = []
    for batch in batches:
        src = np.array([e[0] for e in batch], dtype=np.int64)
        dst = np.array([e[1] for e in batch], dtype=np.int64)
        waiting.add(dst, src, grundy)
        added += batch
        grundy[rng.randrange(31)] = 0  # solved now: its edges may go at the next merge
        sizes = [len(block[0]) for block in waiting.blocks]
        if counter:
            assert all(a > 2 * b for a, b in zip(sizes, sizes[1:], strict=False)), sizes
        else:
            assert len(sizes) <= waiting.MAX_BLOCKS
    for end in np.flatnonzero(grundy == build_arrays.UNKNOWN).tolist():
        found = waiting.sources(np.array([end])).tolist()
        assert sorted(found) == sorted(s for s, d in added if d == end)


def test_depths_after_a_second_start_say_which_start_they_count_from(db_url):
    run_json("build", "nim", "1,2", "--db", db_url)
    run_json("build", "nim", "3", "--db", db_url)  # reuses 2, 1 and 0, stored from 1,2
    state = run_json("query", "nim", "3", "--db", db_url)
    assert (state["depth"], state["depth_from"]) == (0, "3")
    assert [(s["position"], s["depth"], s["depth_from"]) for s in state["successors"]] == [
        ("2", 1, "1,2"),
        ("1", 1, "1,2"),
        ("0", 2, "1,2"),
    ]
    text = run("query", "nim", "3", "--db", db_url)[1]
    assert "depth       0\n" in text
    assert "│ 1 (from 1,2) │" in text and "│ 2 (from 1,2) │" in text
    text = run("query", "nim", "1,1", "--db", db_url)[1]
    assert "depth       1 (from 1,2)\n" in text and "│     1 │" in text  # 1: from 1,2 too
    stats = run_json("stats", "nim", "--db", db_url)
    assert stats["depth_from"] == ["1,2", "3"] and stats["by_depth"] == {"0": 2, "1": 3, "2": 1}
    text = run("stats", "nim", "--db", db_url)[1]
    assert "by depth (moves from the start of the build that stored each state: 1,2; 3)" in text
