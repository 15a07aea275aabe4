"""Imports and edits of stored graphs, on SQLite and PostgreSQL: every stored value after every
edit equals a solve from scratch, the cutoff re-examines only what it must, and a refused import
or edit leaves the database file byte for byte as it was."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
import sqlalchemy as sa
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import open_database
from explorer.build import Database
from explorer.errors import CyclicGraphError, NotStoredError
from explorer.games.dag import DagGame
from explorer.solver.incremental import Edit, EditError, StateValue
from explorer.storage.backends.errors import shown_location
from tests.support.cli import run
from tests.support.environment import REPO
from tests.support.graphs import from_scratch, write_graph
from tests.support.strategies import fraction_of_examples, random_dags, random_edit


def stored(db: Database, spec: str) -> tuple[nx.DiGraph, dict[str, tuple[object, ...]]]:
    """The stored graph and, per state: grundy, outcome, remoteness, height, value_build_id."""
    with db.engine.connect() as conn:
        game = conn.execute(sa.text("SELECT id FROM games WHERE spec = :s"), {"s": spec}).scalar()
        rows = conn.execute(
            sa.text(
                "SELECT key, grundy, outcome, remoteness, height, value_build_id, depth, id "
                "FROM states WHERE game_id = :g"
            ),
            {"g": game},
        ).all()
        edges = conn.execute(
            sa.text(
                "SELECT a.key, b.key FROM edges AS e "
                "JOIN states AS a ON a.game_id = e.game_id AND a.id = e.src "
                "JOIN states AS b ON b.game_id = e.game_id AND b.id = e.dst "
                "WHERE e.game_id = :g"
            ),
            {"g": game},
        ).all()
    graph = nx.DiGraph()
    graph.add_nodes_from(r[0] for r in rows)
    graph.add_edges_from(tuple(e) for e in edges)
    return graph, {r[0]: tuple(r[1:]) for r in rows}


def builds(db: Database) -> list[tuple[object, ...]]:
    with db.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(sa.text("SELECT * FROM builds ORDER BY id"))]


def assert_solved(db: Database, spec: str, expected_graph: nx.DiGraph) -> dict[str, tuple]:
    graph, rows = stored(db, spec)
    assert sorted(graph.nodes) == sorted(expected_graph.nodes)
    assert sorted(graph.edges) == sorted(expected_graph.edges)
    expected = from_scratch(expected_graph)
    for key, (grundy, outcome, far, _, _, _, _) in rows.items():
        assert StateValue(grundy, far) == expected[key], key
        assert outcome == ("P" if grundy == 0 else "N")
    for v, w in graph.edges:
        assert rows[v][3] > rows[w][3], (v, w)
    return rows


# --- the property: random edits to random stored DAGs ------------------------------------------


@settings(max_examples=fraction_of_examples(0.4))  # each example writes a database
@given(data=st.data(), graph=random_dags(max_states=10))
def test_random_edits_to_a_stored_dag_match_a_solve_from_scratch(
    database: Database, files: Path, data: st.DataObject, graph: nx.DiGraph
) -> None:
    report = database.import_graph(str(write_graph(files, graph)))
    spec = report.game
    mirror = graph.copy()
    assert_solved(database, spec, mirror)
    for step in range(data.draw(st.integers(min_value=1, max_value=6), label="edits")):
        edit = random_edit(data.draw, mirror, fresh=f"n{step}_")
        if not edit:
            continue
        trial = mirror.copy()
        trial.remove_edges_from(edit.remove_edges)
        trial.remove_nodes_from(edit.remove_states)
        trial.add_nodes_from(edit.add_states)
        trial.add_edges_from(edit.add_edges)
        before = stored(database, spec)
        if not nx.is_directed_acyclic_graph(trial):
            with pytest.raises(CyclicGraphError):
                database.game(spec).edit(edit)
            after = stored(database, spec)
            assert sorted(after[0].edges) == sorted(before[0].edges)
            assert after[1] == before[1]
            continue
        result = database.game(spec).edit(edit)
        mirror = trial
        rows = assert_solved(database, spec, mirror)
        # provenance: exactly the changed values point to this edit's build row
        old_rows = before[1]
        for key, row in rows.items():
            old = old_rows.get(key)
            if old is None or (old[0], old[2]) != (row[0], row[2]):
                assert row[4] == result.build_id, key
            else:
                assert row[4] == old[4], key
        # the report lists exactly the states whose value changed, old and new as stored
        changed = {
            key
            for key, row in rows.items()
            if key not in old_rows or (old_rows[key][0], old_rows[key][2]) != (row[0], row[2])
        }
        assert result.changed == len(changed)
        assert {v.position for v in result.values} == changed
        for v in result.values:
            assert (v.grundy, v.remoteness) == (rows[v.position][0], rows[v.position][2])
            old = old_rows.get(v.position)
            assert (v.old_grundy, v.old_remoteness) == (
                (None, None) if old is None else (old[0], old[2])
            )


# --- the cutoff, counted ---------------------------------------------------------------------


def test_an_edit_whose_effect_dies_out_one_level_up_re_examines_three_states(
    database: Database, files: Path
) -> None:
    # x -> t turns x from 0 into 1; p1 and p2 (moving to x, t and u of value 1) keep the value
    # 2 and remoteness 1: the change stops there, r1, r2 and top are never read.
    graph = nx.DiGraph(
        [
            ("u", "t"),
            ("p1", "x"), ("p1", "t"), ("p1", "u"), ("p2", "x"), ("p2", "t"), ("p2", "u"),
            ("r1", "p1"), ("r2", "p2"), ("top", "r1"), ("top", "r2"),
        ]
    )  # fmt: skip
    imported = database.import_graph(str(write_graph(files, graph)))
    before = stored(database, imported.game)[1]
    report = database.game(imported.game).edit(Edit(add_edges=(("x", "t"),)))
    assert (report.reexamined, report.changed) == (3, 1)
    assert [(v.position, v.old_grundy, v.grundy) for v in report.values] == [("x", 0, 1)]
    graph.add_edge("x", "t")
    rows = assert_solved(database, imported.game, graph)
    assert rows["x"][4] == report.build_id != imported.build_id
    assert all(rows[k][4] == imported.build_id for k in rows if k != "x")
    assert {k: v[:3] for k, v in rows.items() if k != "x"} == {
        k: v[:3] for k, v in before.items() if k != "x"
    }


def test_a_change_travelling_up_a_chain_is_followed_to_the_top(
    database: Database, files: Path
) -> None:
    graph = nx.DiGraph([(f"c{i + 1}", f"c{i}") for i in range(6)])
    imported = database.import_graph(str(write_graph(files, graph)))
    report = database.game(imported.game).edit(Edit(remove_edges=(("c1", "c0"),)))
    assert (report.reexamined, report.changed) == (6, 6)
    graph.remove_edge("c1", "c0")
    assert_solved(database, imported.game, graph)


# --- re-import: only the difference ------------------------------------------------------------


def test_re_importing_a_changed_file_applies_only_the_difference(
    database: Database, files: Path
) -> None:
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("d", "c"), ("e", "d")])
    path = write_graph(files, graph)
    first = database.import_graph(str(path))
    assert first.kind == "import" and (first.states, first.edges) == (5, 4)
    unchanged = database.import_graph(str(path))
    assert unchanged.kind == "reimport" and unchanged.build_id is None
    assert unchanged.reexamined == 0
    count = len(builds(database))
    # drop the move d -> c and the state e, add f -> d and a -> c
    changed = nx.DiGraph([("a", "b"), ("b", "c"), ("f", "d"), ("a", "c")])
    path.write_text(json.dumps({"vertices": list(changed), "edges": list(changed.edges)}))
    report = database.import_graph(str(path))
    assert report.kind == "reimport"
    assert (report.states_added, report.states_removed) == (1, 1)
    assert (report.edges_added, report.edges_removed) == (2, 1)  # e -> d goes with e
    # d becomes terminal (0), f above it 1; a gains c (0) beside b (1): a goes 0 -> 2
    assert {v.position: (v.old_grundy, v.grundy) for v in report.values} == {
        "d": (1, 0),
        "f": (None, 1),
        "a": (0, 2),
    }
    assert report.reexamined == 3
    assert_solved(database, report.game, changed)
    assert len(builds(database)) == count + 1
    with database.engine.connect() as conn:
        kind, method = conn.execute(
            sa.text("SELECT kind, method FROM builds WHERE id = :b"), {"b": report.build_id}
        ).one()
    assert kind == "reimport" and method.startswith(f"re-import of {path}: +1 -1 states")


def test_a_full_re_solve_agrees_after_edits(database: Database, files: Path) -> None:
    graph = nx.gn_graph(60, seed=3)  # a random DAG (edges point to older nodes)
    graph = nx.relabel_nodes(graph, {n: f"s{n}" for n in graph})
    imported = database.import_graph(str(write_graph(files, graph)))
    database.game(imported.game).edit(Edit(add_edges=(("s10", "s50"),)))
    graph.add_edge("s10", "s50")
    values = {k: v[:3] for k, v in assert_solved(database, imported.game, graph).items()}
    assert database.game(imported.game).resolve() == 60
    rows = assert_solved(database, imported.game, graph)
    assert {k: v[:3] for k, v in rows.items()} == values


# --- edits of built games ----------------------------------------------------------------------


def test_a_game_defined_by_rules_cannot_be_edited(database: Database) -> None:
    spec = "subtraction:1,2"
    database.game(spec).build("6")
    graph, before = stored(database, spec)
    with pytest.raises(EditError) as refused:
        database.game(spec).edit(Edit(remove_edges=(("2", "0"),)))
    assert str(refused.value) == (
        "game 'subtraction:1,2' is defined by rules, so its stored graph cannot be edited "
        "(edit a graph imported from a file: explorer import FILE)"
    )
    after_graph, after = stored(database, spec)
    assert after == before
    assert set(after_graph.edges) == set(graph.edges)


def test_a_state_a_stopped_build_left_unsolved_cannot_be_edited(database: Database) -> None:
    spec = f"dag:{REPO / 'data' / 'subtraction-123-n10.edges'}"
    database.game(spec).build("10", max_states=4)  # 10 and its three moves
    with pytest.raises(EditError) as refused:
        database.game(spec).edit(Edit(remove_states=("10",)))
    assert str(refused.value) == (
        "state '10' has no value yet (a build of the game stopped early): finish "
        "building it before editing"
    )


def test_an_edit_of_a_game_not_stored(database: Database) -> None:
    with pytest.raises(NotStoredError) as refused:
        database.game("chomp").edit(Edit(add_states=("x",)))
    # the one message of a handle: where, and how to store it
    assert str(refused.value) == (
        f"game 'chomp' is not stored in {shown_location(database.engine)!r} (build a position "
        "first: explorer build 'chomp' POSITION)"
    )


# --- the CLI: messages, and the database file untouched by refusals ------------------------------


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.name.startswith("db")}


@pytest.fixture()
def stored_file(tmp_path: Path) -> tuple[Path, Path, str]:
    """A SQLite database holding the note 003 graph, closed; its folder, file and game spec."""
    folder = tmp_path / "store"
    folder.mkdir()
    graph = tmp_path / "note.json"
    graph.write_text(
        json.dumps(
            {
                "vertices": ["a", "b", "c", "t1", "t2", "t3", "t4"],
                "edges": [["a", "t1"], ["a", "t2"], ["a", "t4"], ["b", "a"], ["b", "t3"],
                          ["c", "a"]],
            }
        )
    )  # fmt: skip
    db = folder / "db.sqlite"
    code, out, err = run("import", str(graph), "--db", str(db))
    assert (code, err) == (0, "")
    assert out == f"imported dag:{graph} (build 1): 7 states, 6 edges, solved\n"
    return folder, db, f"dag:{graph}"


BAD_FILES = [
    (
        "cycle.edges",
        "a b\nb c\nc a\n",
        "has a cycle: 'a' -> 'b' -> 'c' -> 'a' (play it as graph:{p}, which allows cycles)",
    ),
    (
        "loop.edges",
        "a b\nb b\n",
        "has a self-loop on vertex 'b' (a DAG move must change the position; "
        "play it as graph:{p}, which allows loops)",
    ),
    ("twice.csv", "source,target\na,b\na,b\n", "lists the edge 'a' -> 'b' twice"),
    (
        "undeclared.json",
        '{"vertices": ["a", "b"], "edges": [["a", "z"]]}',
        "has an edge 'a' -> 'z' to the undeclared vertex 'z'",
    ),
    ("empty.json", "{}", "has no vertices"),
    ("latin1.edges", "café b\n".encode("latin-1"), "is not UTF-8 text: byte 0xe9 at offset 3"),
    ("csv.json", "source,target\na,b\n", "holds CSV, not JSON as its extension says"),
    ("xml.csv", "<graphml/>", "holds XML, not CSV as its extension says"),
]


@pytest.mark.parametrize(("name", "content", "problem"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_a_rejected_import_says_why_and_leaves_the_database_file_unchanged(
    stored_file: tuple[Path, Path, str], tmp_path: Path, name: str, content: str | bytes,
    problem: str,
) -> None:  # fmt: skip
    folder, db, _ = stored_file
    bad = tmp_path / name
    if isinstance(content, bytes):
        bad.write_bytes(content)
    else:
        bad.write_text(content, encoding="utf-8")
    before = snapshot(folder)
    code, out, err = run("import", str(bad), "--db", str(db))
    assert (code, out) == (1, "")
    assert err == f"Error: graph file {str(bad)!r} {problem.replace('{p}', str(bad))}\n"
    assert snapshot(folder) == before
    # and no database is created for a rejected file
    fresh = folder / "db-new.sqlite"
    assert run("import", str(bad), "--db", str(fresh))[0] == 1
    assert not fresh.exists()


REFUSED_EDITS = [
    (["--add-edge", "t1", "c"], "the edit would create a cycle: 'c' -> 'a' -> 't1' -> 'c'"),
    (["--add-edge", "a", "a"], "self-loop 'a' -> 'a': a move must lead to another state"),
    (["--add-edge", "b", "a"], "edge 'b' -> 'a' already exists"),
    (["--add-edge", "a", "zz"], "no state 'zz' in the graph (add it in the same edit)"),
    (["--remove-edge", "c", "b"], "no edge 'c' -> 'b' in the graph"),
    (["--remove-state", "zz"], "no state 'zz' in the graph"),
    (["--add-state", "a"], "state 'a' already exists"),
    (["--add-state", ""], "a state needs a non-empty name"),
    (["--add-state", "x", "--add-state", "x"], "the edit names the state 'x' twice"),
    (
        ["--remove-state", "a", "--add-edge", "c", "a"],
        "edge 'c' -> 'a' uses state 'a', which the edit removes",
    ),
    ([], "the edit changes nothing (give states or moves to add or remove)"),
]


@pytest.mark.parametrize(("args", "message"), REFUSED_EDITS)
def test_a_refused_edit_says_why_and_leaves_the_database_file_unchanged(
    stored_file: tuple[Path, Path, str], args: list[str], message: str
) -> None:
    folder, db, spec = stored_file
    before = snapshot(folder)
    code, out, err = run("edit", spec, *args, "--db", str(db))
    assert (code, out, err) == (1, "", f"Error: {message}\n")
    assert snapshot(folder) == before


def test_an_edit_of_a_game_that_is_not_stored_changes_nothing(
    stored_file: tuple[Path, Path, str],
) -> None:
    folder, db, _ = stored_file
    before = snapshot(folder)
    code, _, err = run("edit", "nim", "--add-state", "1", "--db", str(db))
    assert (code, err) == (
        1,
        f"Error: game 'nim' is not stored in {str(db)!r} (build a position first: explorer "
        "build 'nim' POSITION)\n",
    )
    assert snapshot(folder) == before


def test_the_edit_command_reports_counts_and_changed_values(
    stored_file: tuple[Path, Path, str],
) -> None:
    _, db, spec = stored_file
    # c -> t3 gives c a terminal follower beside a (value 1): c goes from 0 to 2, and nothing
    # moves to c, so the change stops at once.
    code, out, err = run("edit", spec, "--add-edge", "c", "t3", "--db", str(db))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"edited {spec} (build 2): add edge c -> t3"
    assert lines[1] == "re-examined 1 state, 1 value changed, 0 heights raised"
    assert any("c" in line and "0 -> 2" in line and "P -> N" in line for line in lines)
    code, out, _ = run(
        "edit", spec, "--add-state", "z", "--add-edge", "z", "c", "--json", "--db", str(db)
    )
    data = json.loads(out)
    assert data["kind"] == "edit" and data["build_id"] == 3
    assert data["description"] == "add state z; add edge z -> c"
    assert data["values"] == [
        {
            "position": "z",
            "old_grundy": None,
            "old_outcome": None,
            "old_remoteness": None,
            "grundy": 0,
            "outcome": "P",
            "remoteness": 2,
            "old_escapes": None,
            "escapes": None,
        }
    ]
    with open_database(str(db)) as database:
        assert stored(database, spec)[1]["z"][:3] == (0, "P", 2)


def test_import_cli_json_and_re_import(stored_file: tuple[Path, Path, str]) -> None:
    _, db, spec = stored_file
    path = spec.removeprefix("dag:")
    code, out, _ = run("import", path, "--db", str(db), "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["kind"], data["build_id"], data["changed"]) == ("reimport", None, 0)
    code, out, _ = run("import", path, "--db", str(db))
    assert out == f"{spec}: the stored graph already matches the file; no change\n"


def test_the_game_file_read_once_is_what_gets_stored(tmp_path: Path) -> None:
    path = tmp_path / "g.edges"
    path.write_text("a -> b\n")
    game = DagGame(str(path))
    path.write_text("a -> b\nb -> c\n")  # changed after reading: the game read is imported
    with open_database("sqlite://") as db:
        report = db.import_graph(game)
        assert (report.states, report.edges) == (2, 1)
