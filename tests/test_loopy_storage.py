"""Stored games with cycles (``graph:FILE``) on SQLite and PostgreSQL: imports store γ with its
escapes and outcome D; random edits that create and break cycles leave every stored value equal
to a labelling from scratch (checked against the definition too); queries filter by D and ∞."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
import sqlalchemy as sa
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.build import Database
from explorer.cli import main
from explorer.errors import CyclicGraphError, EditError
from explorer.games import load_game
from explorer.games.loopy import GraphGame
from explorer.games.specs import GameSpec
from explorer.solver.incremental import Edit
from explorer.solver.loopy import Infinite, label_vertices, outcome_of
from tests.support.bruteforce import check_loopy_definition, plain_retrograde
from tests.support.environment import DATA
from tests.support.graphs import write_graph
from tests.support.readme import session_blocks
from tests.support.strategies import fraction_of_examples, random_edit


def stored_values(db: Database, spec: str) -> tuple[nx.DiGraph, dict[str, tuple]]:
    """The stored graph and, per state: grundy, escapes, outcome, remoteness, value_build_id."""
    with db.engine.connect() as conn:
        game = conn.execute(sa.text("SELECT id FROM games WHERE spec = :s"), {"s": spec}).scalar()
        rows = conn.execute(
            sa.text(
                "SELECT key, grundy, escapes, outcome, remoteness, value_build_id "
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


def assert_labelled(db: Database, spec: str, expected: nx.DiGraph) -> dict[str, tuple]:
    """Stored values equal γ of `expected` labelled from scratch, which satisfies the definition;
    outcomes equal a plain retrograde analysis."""
    graph, rows = stored_values(db, spec)
    assert sorted(graph.nodes) == sorted(expected.nodes)
    assert sorted(graph.edges) == sorted(expected.edges)
    nodes = sorted(expected.nodes)
    index = {n: i for i, n in enumerate(nodes)}
    succ = [[index[w] for w in expected.successors(n)] for n in nodes]
    labels = label_vertices(succ)
    check_loopy_definition(succ, labels.values, labels.counters)
    retro = plain_retrograde(succ)
    for n, value, outcome in zip(nodes, labels.values, retro, strict=True):
        grundy, escapes, stored_outcome, far, _ = rows[n]
        if isinstance(value, Infinite):
            assert grundy is None and escapes == ",".join(map(str, sorted(value.escapes))), n
        else:
            assert (grundy, escapes) == (value, None), n
        assert stored_outcome == outcome == outcome_of(value), n
        assert (far is None) == (outcome == "D"), n
    return rows


@pytest.mark.slow  # hypothesis: many stored edits
@settings(max_examples=fraction_of_examples(1))
@given(data=st.data())
def test_random_edits_to_a_stored_graph_with_cycles_match_a_labelling_from_scratch(
    database: Database,
    files: Path,
    data: st.DataObject,
) -> None:
    n = data.draw(st.integers(2, 8), label="states")
    pairs = data.draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=2 * n)
    )
    graph = nx.DiGraph()
    graph.add_nodes_from(f"v{i}" for i in range(n))
    graph.add_edges_from((f"v{a}", f"v{b}") for a, b in pairs)
    report = database.import_graph(GraphGame(str(write_graph(files, graph))))
    spec = "graph:" + str(Path(report.game.partition(":")[2]).resolve())
    if not report.game.startswith("graph:/"):
        spec = "graph:" + str((Path.cwd() / report.game.partition(":")[2]).resolve())
    mirror = graph.copy()
    assert_labelled(database, spec, mirror)
    cycles_made = cycles_broken = 0
    for step in range(data.draw(st.integers(1, 5), label="edits")):
        edit = random_edit(data.draw, mirror, fresh=f"n{step}_")
        if data.draw(st.booleans(), label="self-loop") and mirror.number_of_nodes():
            v = data.draw(st.sampled_from(sorted(mirror)), label="loop at")
            if not mirror.has_edge(v, v) and v not in edit.remove_states:
                edit = Edit(
                    edit.add_states,
                    edit.remove_states,
                    (*edit.add_edges, (v, v)),
                    edit.remove_edges,
                )
        if not edit:
            continue
        trial = mirror.copy()
        trial.remove_edges_from(edit.remove_edges)
        trial.remove_nodes_from(edit.remove_states)
        trial.add_nodes_from(edit.add_states)
        trial.add_edges_from(edit.add_edges)
        before = stored_values(database, spec)[1]
        try:
            result = database.game(spec).edit(edit)
        except EditError:  # an edit random_edit made inconsistent: nothing may change
            assert stored_values(database, spec)[1] == before
            continue
        was_dag = nx.is_directed_acyclic_graph(mirror)
        cycles_made += was_dag and not nx.is_directed_acyclic_graph(trial)
        cycles_broken += not was_dag and nx.is_directed_acyclic_graph(trial)
        mirror = trial
        rows = assert_labelled(database, spec, mirror)
        changed = {  # new states, and states whose value, escapes, outcome or remoteness moved
            key for key, row in rows.items() if key not in before or before[key][:4] != row[:4]
        }
        for key, row in rows.items():  # exactly the changed values point to this edit
            assert row[4] == (result.build_id if key in changed else before[key][4]), key
        assert result.changed == len(changed)
        assert sorted(v.position for v in result.values) == sorted(changed)


def test_an_edit_can_create_and_break_a_cycle(database: Database, files: Path) -> None:
    graph = nx.DiGraph([("a", "b"), ("b", "t")])
    spec = database.import_graph(GraphGame(str(write_graph(files, graph)))).game
    assert database.game(spec).state("a")["grundy"] == 0
    made = database.game(spec).edit(Edit(add_edges=(("b", "a"),)))  # a -> b -> a: still decided
    assert (database.game(spec).state("a")["grundy"], database.game(spec).state("b")["grundy"]) == (
        0,
        1,
    )
    assert made.changed == 0 and made.reexamined == 2
    looped = database.game(spec).edit(Edit(add_edges=(("t", "t"),)))  # the end becomes a pass
    a = database.game(spec).state("a")
    assert (a["grundy"], a["infinite"], a["escapes"], a["outcome"]) == (None, True, [], "D")
    assert looped.reexamined == 3 and looped.changed == 3
    assert {v.position: v.value for v in looped.values} == {"a": "∞", "b": "∞", "t": "∞"}
    broken = database.game(spec).edit(Edit(remove_edges=(("t", "t"), ("b", "a"))))
    assert [database.game(spec).state(s)["grundy"] for s in "abt"] == [0, 1, 0]
    assert broken.changed == 3
    with pytest.raises(EditError) as error:
        database.game(spec).edit(Edit(add_edges=(("a", "zz"),)))
    assert str(error.value) == "no state 'zz' in the graph (add it in the same edit)"


def test_queries_filter_by_draw_and_infinity(database: Database) -> None:
    game = GraphGame(str(DATA / "loopy.json"))
    spec = database.import_graph(game).game
    draws = database.game(spec).states(outcome="D")
    assert sorted(s["position"] for s in draws["states"]) == ["c", "f"]
    infinite = database.game(spec).states(infinite=True)
    assert sorted(s["position"] for s in infinite["states"]) == ["c", "d", "f"]
    assert [s["escapes"] for s in infinite["states"] if s["position"] == "d"] == [[0]]
    finite = database.game(spec).states(infinite=False)
    assert sorted(s["position"] for s in finite["states"]) == ["a", "b", "e", "t"]
    d = database.game(spec).state("d")
    assert (d["grundy"], d["infinite"], d["escapes"], d["outcome"], d["remoteness"]) == (
        None,
        True,
        [0],
        "N",
        1,
    )
    with database.engine.connect() as conn:
        rows = conn.execute(
            sa.text("SELECT position, grundy, escapes, outcome FROM state_values WHERE game = :g "
                    "AND outcome = 'D' ORDER BY position"),
            {"g": "graph:" + str((DATA / "loopy.json").resolve())},
        ).all()  # fmt: skip
    assert [tuple(r) for r in rows] == [("c", None, "", "D"), ("f", None, "", "D")]


def test_cli_import_query_and_edit_of_a_graph_with_cycles(tmp_path: Path) -> None:
    source = tmp_path / "ring.edges"
    source.write_text("a b\nb c\nc a\nc t\n")
    db = str(tmp_path / "games.db")
    runner = CliRunner()
    result = runner.invoke(main, ["import", str(source), "--db", db])
    assert result.exit_code == 1 and "(play it as graph:" in result.stderr
    assert not Path(db).exists()
    result = runner.invoke(main, ["import", f"graph:{source}", "--db", db])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"imported graph:{source} (build 1): 4 states, 4 edges, solved\n"
    spec = f"graph:{source}"
    result = runner.invoke(main, ["query", spec, "--outcome", "D", "--db", db, "--json"])
    assert json.loads(result.stdout)["total"] == 0
    result = runner.invoke(main, ["query", spec, "c", "--db", db])
    assert "grundy      2\n" in result.stdout  # a = 1, b = 0, c = mex{1, 0}
    result = runner.invoke(main, ["edit", spec, "--remove-edge", "c", "t", "--db", db])
    assert result.exit_code == 0, result.stderr
    assert "re-examined 3 states, 3 values changed" in result.stdout
    assert "2 -> ∞" in result.stdout and "P -> D" in result.stdout
    result = runner.invoke(main, ["query", spec, "--infinite", "--db", db])
    assert result.exit_code == 0 and "∞" in result.stdout and "3 of 3" in result.stdout
    result = runner.invoke(main, ["query", spec, "--outcome", "D", "--db", db, "--json"])
    assert sorted(s["position"] for s in json.loads(result.stdout)["states"]) == ["a", "b", "c"]


def test_a_dag_game_still_refuses_a_cycle(tmp_path: Path) -> None:
    source = tmp_path / "line.edges"
    source.write_text("a b\n")
    db = str(tmp_path / "games.db")
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(source), "--db", db]).exit_code == 0
    result = runner.invoke(main, ["edit", f"dag:{source}", "--add-edge", "b", "a", "--db", db])
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: the edit would create a cycle")
    assert CyclicGraphError.__name__  # the library error behind it


def test_verify_labels_a_game_with_cycles_again(tmp_path: Path) -> None:
    db = str(tmp_path / "games.db")
    runner = CliRunner()
    spec = f"graph:{DATA / 'loopy.json'}"
    assert runner.invoke(main, ["import", spec, "--db", db]).exit_code == 0
    result = runner.invoke(main, ["verify", "--db", db])
    assert result.exit_code == 0, result.output
    engine = sa.create_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE states SET grundy = 0, escapes = NULL, outcome = 'P' WHERE key = 'f'"
        )
    engine.dispose()
    result = runner.invoke(main, ["verify", "--db", db])
    assert result.exit_code == 1
    assert (
        " f: value: stored 0 P (remoteness None), the labelling of the stored moves gives ∞ D "
        "(remoteness None)" in result.stdout
    )


@pytest.mark.slow  # README commands in fresh interpreters
def test_the_readme_session_of_a_stored_graph_with_cycles_is_real(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess

    (tmp_path / "data").mkdir()
    shutil.copy(DATA / "loopy.json", tmp_path / "data" / "loopy.json")
    cases = [c for c in session_blocks() if "graph:data/loopy.json" in c[0] and (
        c[0].split()[1] in {"import", "query", "edit"})]  # fmt: skip
    assert [c[0].split()[1] for c in cases][:2] == ["import", "query"]
    env = dict(os.environ, COLUMNS="100", EXPLORER_DB=str(tmp_path / "explorer.db"))
    for command, expected in cases:
        result = subprocess.run(
            ["bash", "-c", command], capture_output=True, text=True, env=env, cwd=tmp_path
        )
        assert result.stdout + result.stderr == expected, command


def rule_graph(spec: str, position: str) -> nx.DiGraph:
    """Every state reachable from `position` and its moves, by a plain search of the rules."""
    game = load_game(spec)
    start = game.parse(position)
    graph = nx.DiGraph()
    graph.add_node(game.format(start))
    seen, queue = {start}, [start]
    while queue:
        here = queue.pop()
        for there in game.successors(here):
            graph.add_edge(game.format(here), game.format(there))
            if there not in seen:
                seen.add(there)
                queue.append(there)
    return graph


@pytest.mark.parametrize(
    ("spec", "position"),
    [
        ("windup:5:1,3", "2"),  # the published example: 0, ∞(0), ∞(0), ∞(0), 0
        ("windup:12:2,3,7", "11"),
        ("windup:9:1,4", "8"),
        ("windup:5:1,3 + nim", "2 + 2"),
        ("windup:7:2,3 + windup:5:1,3", "6 + 3"),
    ],
)
def test_a_build_of_a_game_that_may_loop_stores_its_generalized_values(
    database: Database,
    spec: str,
    position: str,
) -> None:
    # the level-by-level solve leaves states on cycles without a value: a complete build
    # labels the stored moves whole, so every state has γ (escapes included) and verifies
    report = database.game(spec).build(position)
    assert report.status == "complete"
    expected = rule_graph(spec, position)
    rows = assert_labelled(database, GameSpec.parse(spec).canonical(), expected)
    grundy, escapes, outcome, far, _ = rows[report.position]
    assert (report.grundy, report.outcome, report.remoteness) == (grundy, outcome, far)
    assert report.escapes == (
        None if escapes is None else [int(x) for x in escapes.split(",") if x]
    )
    assert report.infinite == (escapes is not None)
    assert database.game(spec).verify().ok


def test_windup_built_has_the_published_values_and_a_stopped_build_resumes_to_them(
    database: Database,
) -> None:
    spec = "windup:11:1,3"  # a fresh game in the module's database
    stopped = database.game(spec).build("10", max_states=3)
    assert stopped.status == "stopped"
    assert database.game(spec).build("10").status == "complete"
    _, resumed = stored_values(database, spec)
    expected = rule_graph(spec, "10")
    assert_labelled(database, spec, expected)
    assert sorted(resumed) == sorted(expected.nodes)
    # the published example, built: 0, ∞(0), ∞(0), ∞(0), 0
    database.game("windup:5:1,3").build("4")
    _, rows = stored_values(database, "windup:5:1,3")
    assert [(rows[str(n)][0], rows[str(n)][1]) for n in range(5)] == [
        (0, None),
        (None, "0"),
        (None, "0"),
        (None, "0"),
        (0, None),
    ]


def test_verify_catches_a_changed_escape_set_in_a_built_game_that_may_loop(
    tmp_path: Path,
) -> None:
    db = tmp_path / "w.db"
    runner = CliRunner()
    assert runner.invoke(main, ["build", "windup:5:1,3", "2", "--db", str(db)]).exit_code == 0
    assert runner.invoke(main, ["verify", "--db", str(db)]).exit_code == 0
    with sa.create_engine(f"sqlite:///{db}").begin() as conn:
        conn.execute(sa.text("UPDATE states SET escapes = '0,1' WHERE key = '3'"))
    result = runner.invoke(main, ["verify", "--db", str(db)])
    assert result.exit_code == 1
    assert "windup:5:1,3 3: value: stored ∞(0,1)" in result.output
