"""How graph positions are read on the command line (issues 41 and 45): another spelling of a
named graph or a file's bare name is never a vertex, node-link JSON and a CSV export's pair of
files are read wherever a graph file is, and a user's graph game may take a sequence form."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from tests.support.cli import run, run_json, run_ok
from tests.support.environment import DATA, REPO
from tests.support.python_games import write


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def one_error(*args: str) -> str:
    code, out, err = run(*args)
    assert code == 1 and out == "", (out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("text", "spelling"),
    [
        ("G3x4", "write 3x4"),
        ("grid3x4", "write 3x4"),
        ("3X4", "write 3x4"),
        ("k5", "write K5"),
        ("K_5", "write K5"),
        ("c7", "write C7"),
        ("p6", "write P6"),
        ("Path6", "write P6"),
        ("k3_3", "write K3_3"),
    ],
)
def test_another_spelling_of_a_named_graph_is_refused(text: str, spelling: str) -> None:
    err = one_error("solve", "nodekayles", text)
    assert f"{text!r} is spelled like the named graph" in err and spelling in err
    assert "named graphs: Pn, Cn, Kn, Km_n, Sn, Wn or RxC" in err


def test_named_graphs_in_an_edge_list_are_refused_with_the_way_to_join_them() -> None:
    err = one_error("solve", "nodekayles", "K3,3")
    assert "a named graph is a term of its own, joined to others by +" in err
    assert "Km,n is written Km_n (K3_3)" in err
    assert "joined to others by +" in one_error("solve", "arckayles", "P3,K5")
    assert "name the vertex otherwise" in one_error("solve", "nodekayles", "p1-p2")


def test_the_accepted_spellings_still_read_their_graphs() -> None:
    assert run_json("solve", "nodekayles", "3x4")["grundy"] == 0
    assert run_json("solve", "nodekayles", "P3+K5")["grundy"] == 2 ^ 1  # G(P3) = 2, G(K5) = 1
    assert run_json("solve", "nodekayles", "K3_3")["grundy"] == 1  # every move leaves 2 vertices
    lone = run_json("solve", "nodekayles", "a")
    assert (lone["position"], lone["grundy"]) == ("a", 1)  # a lone name is still a vertex


def test_a_bare_file_name_reads_the_file(folder: Path) -> None:
    (folder / "g.txt").write_text("a b\nb c\n")
    bare, path = (
        run_json("solve", "nodekayles", "g.txt"),
        run_json("solve", "nodekayles", "./g.txt"),
    )
    assert bare["position"] == path["position"] == "a-b,b-c"
    assert bare["grundy"] == 2  # P3, not one vertex of value 1
    assert "graph file 'x.json' not found" in one_error("solve", "nodekayles", "x.json")
    err = one_error("solve", "nodekayles", "a-b,g.txt")
    assert "'g.txt' is spelled like a graph file" in err and "(a-b+g.txt)" in err


def test_json_export_is_read_back_by_import_and_as_a_graph(folder: Path) -> None:
    run_ok("import", str(DATA / "note003.json"), "--db", "a.db")
    spec = f"dag:{DATA / 'note003.json'}"
    run_ok("export", spec, "--db", "a.db", "-o", "g.json")
    run_ok("import", "g.json", "--db", "b.db")
    run_ok("export", "dag:g.json", "--db", "b.db", "-o", "h.json")
    first, second = _node_link("g.json"), _node_link("h.json")
    assert sorted(first.nodes) == sorted(second.nodes)
    assert sorted(first.edges) == sorted(second.edges)
    for node in first:  # the same values, solved again from the imported graph
        assert first.nodes[node]["grundy"] == second.nodes[node]["grundy"]
    # the same graph read as a position: the exported file and the original agree
    as_position = run_json("solve", "nodekayles", "./g.json")
    assert as_position == run_json("solve", "nodekayles", str(DATA / "note003.json"))
    assert run_json("solve", "nodekayles", "g.json")["position"] == as_position["position"]
    assert run_json("solve", "dag:g.json", "b")["grundy"] == second.nodes["b"]["grundy"]


def _node_link(path: str) -> nx.DiGraph:
    import json

    return nx.node_link_graph(json.loads(Path(path).read_text()), edges="edges")


def test_networkx_node_link_files_with_tuple_nodes_are_graph_positions(folder: Path) -> None:
    import json

    grid = nx.grid_2d_graph(3, 4)
    (folder / "grid.json").write_text(json.dumps(nx.node_link_data(grid, edges="edges")))
    (folder / "old.json").write_text(json.dumps(nx.node_link_data(grid, edges="links")))
    grid_value = run_json("solve", "nodekayles", "3x4")["grundy"]
    for name in ("grid.json", "old.json"):
        solved = run_json("solve", "nodekayles", name)
        assert solved["grundy"] == grid_value
        assert "0_0-0_1" in solved["position"]  # the tuple (0, 0) is the vertex 0_0
    err = one_error("import", "grid.json", "--db", "x.db")
    assert "holds an undirected graph" in err and not (folder / "x.db").exists()


def test_import_of_a_csv_export_reads_its_pair_of_files(folder: Path) -> None:
    run_ok("build", "nim", "2,3", "--db", "a.db")
    assert "nim.nodes.csv, nim.edges.csv" in run_ok(
        "export", "nim", "--db", "a.db", "-o", "nim.csv"
    )
    out = run_ok("import", "nim.csv", "--db", "b.db")
    assert "9 states, 21 edges, solved" in out
    stored = run_json("query", "nim", "2,3", "--db", "a.db")
    imported = run_json("query", "dag:nim.csv", "2,3", "--db", "b.db")
    assert (imported["grundy"], imported["moves"]) == (stored["grundy"], stored["moves"])
    assert "graph file 'none.csv' not found" in one_error("import", "none.csv", "--db", "c.db")


GRAPH_GAME = """\
import explorer


@explorer.graph_game{form}
def nk(g):
    return [g.subgraph(set(g) - {{v, *g[v]}}) for v in g]
"""


def test_a_graph_game_given_a_form_has_a_sequence(folder: Path) -> None:
    write(folder, "nk.py", GRAPH_GAME.format(form=""))
    err = one_error("sequence", "py:nk.py", "--upto", "10")
    assert 'games on graphs given a form: nodekayles:P, @explorer.graph_game(form="P")' in err
    write(folder, "nk.py", GRAPH_GAME.format(form='(form="P")'))
    mine = run_json("sequence", "py:nk.py", "--upto", "20")["values"]
    assert mine == run_json("sequence", "nodekayles:P", "--upto", "20")["values"]
    write(folder, "nk.py", GRAPH_GAME.format(form='(form="Q")'))
    assert "bad sequence form 'Q' for nk" in one_error("sequence", "py:nk.py", "--upto", "3")


GROWS = """\
import explorer
import networkx as nx


@explorer.graph_game
def grow(g):
    return [nx.Graph(g)]  # a "move" that leaves the part as it was: a cycle
"""


def test_a_graph_game_whose_parts_come_back_is_refused(folder: Path) -> None:
    write(folder, "grow.py", GROWS)
    code, out, err = run("check", "py:grow.py", "P3")  # once a KeyError from the part values
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1, err
    # refused while valuing the parts, or reported by check as a cycle it did not expect
    assert "comes back among the parts its own moves leave" in err or "play loops" in out
    err = one_error("solve", "py:grow.py", "P3", "--method", "decompose")
    assert "comes back among the parts its own moves leave" in err


def test_a_package_module_is_found_from_the_working_folder(folder: Path) -> None:
    package = folder / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    write(
        package,
        "rules.py",
        "import explorer\n\n\n@explorer.heap_game\ndef g(n):\n"
        "    return [n - k for k in (1, 2) if k <= n]\n",
    )
    # -P: sys.path without the working folder, as the installed explorer script has it
    done = subprocess.run(
        [sys.executable, "-P", "-m", "explorer", "solve", "py:pkg.rules:g", "7", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    assert '"grundy": 1' in done.stdout


def test_sweep_refuses_full_width_digits() -> None:
    err = one_error("sweep", "bash:\uff11..\uff13", "--upto", "10")
    assert "'\uff11' is not an ASCII digit" in err


CLASH = """\
import explorer
import networkx as nx


@explorer.graph_game
def clash(g):
    h = nx.Graph(g)
    h.add_node("z")
    return [h.subgraph(list(g)[1:] + ["z"])] if len(g) > 1 else []
"""


def test_a_new_vertex_named_as_another_parts_is_refused(folder: Path) -> None:
    write(folder, "clash.py", CLASH)
    err = one_error("solve", "py:clash.py", "a-b,z-y")  # once merged into one part silently
    assert "names a vertex 'z' of another part of the position" in err
