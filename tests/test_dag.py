"""DAG games from files: every format against a brute-force mex written here, the note-003 values,
hostile vertex names, and one exact message per bad file."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from click.testing import CliRunner

from explorer.analysis.solving import explain, grundy_value, solve
from explorer.cli import main
from explorer.errors import CyclicGraphError, GameFileError, PositionError, SpecError
from explorer.games import load_game
from explorer.games.dag import DagGame
from explorer.games.graph_files import read_graph_file
from tests.support.environment import DATA, REPO

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "'; DROP TABLE positions; --",
    'say "hi", then leave',
    "x + y",
    "{{ config }}",
    "émoji 🎲 终点",
    "back\\slash",
    "[/]",
]


def brute_values(vertices: list[str], edges: list[tuple[str, str]]) -> dict[str, int]:
    """G of every vertex by the mex rule; `vertices` must list each vertex after its successors."""
    successors: dict[str, list[str]] = {v: [] for v in vertices}
    for u, v in edges:
        successors[u].append(v)
    values: dict[str, int] = {}
    for vertex in vertices:
        reached = {values[s] for s in successors[vertex]}
        value = 0
        while value in reached:
            value += 1
        values[vertex] = value
    return values


def random_dag(seed: int, names: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """A random DAG whose edges go from later to earlier names (so the list is sinks-first)."""
    rng = random.Random(seed)
    count = rng.randint(1, len(names))
    vertices = names[:count]
    edges = [
        (vertices[i], vertices[j]) for i in range(count) for j in range(i) if rng.random() < 0.35
    ]
    rng.shuffle(edges)
    return vertices, edges


def write_graph(path: Path, vertices: list[str], edges: list[tuple[str, str]]) -> None:
    """Write a graph in the format the extension names (the adjacency form for *.adj.json)."""
    if path.name.endswith(".adj.json"):
        adjacency: dict[str, list[str]] = {v: [] for v in vertices}
        for u, v in edges:
            adjacency[u].append(v)
        path.write_text(json.dumps(adjacency), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(
            json.dumps({"vertices": vertices, "edges": [list(e) for e in edges]}),
            encoding="utf-8",
        )
    elif path.suffix in (".txt", ".edges"):
        lines = [f"# {len(vertices)} vertices"] + [f"{v}" for v in vertices]
        lines += [f"{u} -> {v}" if i % 2 else f"{u} {v}" for i, (u, v) in enumerate(edges)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif path.suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(["source", "target"])
        writer.writerows([v, ""] for v in vertices)
        writer.writerows(edges)
        path.write_text(buffer.getvalue(), encoding="utf-8")
    else:
        root = ElementTree.Element("graphml", xmlns="http://graphml.graphdrawing.org/xmlns")
        graph = ElementTree.SubElement(root, "graph", edgedefault="directed")
        for v in vertices:
            ElementTree.SubElement(graph, "node", id=v)
        for u, v in edges:
            ElementTree.SubElement(graph, "edge", source=u, target=v)
        path.write_bytes(ElementTree.tostring(root, encoding="utf-8", xml_declaration=True))


FORMATS = ["g.json", "g.adj.json", "g.txt", "g.edges", "g.csv", "g.graphml"]


@pytest.mark.parametrize("filename", FORMATS)
@pytest.mark.parametrize("seed", range(12))
def test_values_equal_a_brute_force_mex_in_every_format(tmp_path, filename, seed):
    plain = filename.endswith((".txt", ".edges"))
    names = [f"v{i}" for i in range(14)] if plain else [*HOSTILE, *(f"v{i}" for i in range(6))]
    vertices, edges = random_dag(seed, names)
    path = tmp_path / filename
    write_graph(path, vertices, edges)
    expected = brute_values(vertices, edges)
    game = load_game(f"dag:{path}")
    assert sorted(game.vertices) == sorted(vertices)
    for vertex, value in expected.items():
        assert grundy_value(game, game.parse(vertex)) == value, vertex
        assert solve(game, vertex, method="graph").grundy == value, vertex
        wins = [s for s, _ in _edges_from(vertex, edges) if expected[s] == 0]
        assert solve(game, vertex).winning_moves == wins


def _edges_from(vertex: str, edges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(v, u) for u, v in edges if u == vertex]


def test_successors_keep_file_order(tmp_path):
    path = tmp_path / "order.txt"
    path.write_text("s z\ns a\ns -> m\nz a\n", encoding="utf-8")
    game = load_game(f"dag:{path}")
    assert list(game.successors("s")) == ["z", "a", "m"]
    assert game.vertices == ["s", "z", "a", "m"]


# ----------------------------------------------------------------------------- note 003
NOTE003 = {"a": 1, "b": 2, "c": 0, "t1": 0, "t2": 0, "t3": 0, "t4": 0}


@pytest.mark.parametrize(
    "name",
    ["note003.json", "note003-adjacency.json", "note003.txt", "note003.csv", "note003.graphml"],
)
def test_note003_graph_in_every_format(name):
    game = load_game(f"dag:{DATA / name}")
    for vertex, value in NOTE003.items():
        assert solve(game, vertex).grundy == value, vertex
    vertices, edges = read_graph_file(DATA / name)
    assert sorted(vertices) == sorted(NOTE003)
    assert edges == read_graph_file(DATA / "note003.json")[1]
    assert brute_values(["t1", "t2", "t3", "t4", "a", "b", "c"], edges) == NOTE003
    terminals = [v for v in vertices if not list(game.successors(v))]
    assert len(terminals) == 4
    assert list(game.successors("b")) == ["a", "t3"]
    assert list(game.successors("c")) == ["a"]


def test_subtraction_123_graph_from_ten():
    game = load_game(f"dag:{DATA / 'subtraction-123-n10.edges'}")
    heaps = load_game("subtraction:1,2,3")
    for n in range(11):
        assert grundy_value(game, str(n)) == n % 4 == grundy_value(heaps, heaps.parse(str(n)))
        assert list(game.successors(str(n))) == [str(n - s) for s in (1, 2, 3) if n - s >= 0]
    assert solve(game, "10").remoteness == solve(heaps, heaps.parse("10")).remoteness


def test_hostile_labels_are_plain_text():
    game = load_game(f"dag:{DATA / 'hostile-labels.json'}")
    vertices, edges = read_graph_file(DATA / "hostile-labels.json")
    assert "<img src=x onerror=alert(1)>" in vertices and "[/]" in vertices
    order = _sinks_first(vertices, edges)
    expected = brute_values(order, edges)
    runner = CliRunner()
    for vertex in vertices:
        assert game.format(game.parse(vertex)) == vertex
        result = runner.invoke(main, ["solve", game.spec, vertex, "--json"])
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        assert data["position"] == vertex
        assert data["grundy"] == expected[vertex]
        assert all(move in vertices for move in data["winning_moves"])


def _sinks_first(vertices: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """Order vertices so each comes after its successors (Kahn's algorithm on reversed edges)."""
    out_degree = {v: 0 for v in vertices}
    predecessors: dict[str, list[str]] = {v: [] for v in vertices}
    for u, v in edges:
        out_degree[u] += 1
        predecessors[v].append(u)
    ready = [v for v in vertices if out_degree[v] == 0]
    order = []
    while ready:
        vertex = ready.pop()
        order.append(vertex)
        for u in predecessors[vertex]:
            out_degree[u] -= 1
            if out_degree[u] == 0:
                ready.append(u)
    assert len(order) == len(vertices)
    return order


def test_hostile_labels_in_plain_cli_output():
    """Names are printed as text: '[/]' is not rich markup, '<img ...>' is not HTML."""
    spec = f"dag:{DATA / 'hostile-labels.json'}"
    runner = CliRunner()
    result = runner.invoke(main, ["solve", spec, "<img src=x onerror=alert(1)>"])
    assert result.exit_code == 0
    assert "-> [/]" in result.stdout
    result = runner.invoke(main, ["explain", spec, "[/]"])
    assert result.exit_code == 0
    assert "[bold red]not markup[/bold red]" in result.stdout


# ----------------------------------------------------------------------------- specs, positions
def test_canonical_spec_is_the_normalised_path(monkeypatch):
    monkeypatch.chdir(REPO)
    assert load_game("dag:./data/../data/note003.json").spec == "dag:data/note003.json"
    assert load_game(" dag: data//note003.json ").spec == "dag:data/note003.json"
    assert load_game(f"dag:{DATA}/./note003.json").spec == f"dag:{DATA / 'note003.json'}"


def test_parse_and_format():
    game = load_game(f"dag:{DATA / 'note003.json'}")
    assert game.parse("a") == "a"
    assert game.parse("  b ") == "b"
    assert game.format("t4") == "t4"
    for vertex in game.vertices:
        assert game.parse(game.format(vertex)) == vertex


def test_padded_names_match_exactly_before_stripping(tmp_path):
    path = tmp_path / "pad.json"
    path.write_text(json.dumps({"vertices": [" a ", "a"], "edges": [[" a ", "a"]]}))
    game = load_game(f"dag:{path}")
    assert game.parse(" a ") == " a "
    assert game.parse("a") == "a"
    assert grundy_value(game, " a ") == 1


def test_integer_vertex_names_in_json(tmp_path):
    path = tmp_path / "ints.json"
    path.write_text('{"vertices": [2, 1, 0], "edges": [[2, 1], [1, 0], [2, 0]]}')
    assert read_graph_file(path) == (["2", "1", "0"], [("2", "1"), ("1", "0"), ("2", "0")])
    assert grundy_value(load_game(f"dag:{path}"), "2") == 2


def test_a_position_that_is_not_a_vertex():
    path = DATA / "subtraction-123-n10.edges"
    message = (
        f"'11' is not a vertex of dag:{path} (vertices: '10', '9', '8', '7', '6', ... 11 in all)"
    )
    with pytest.raises(PositionError) as error:
        load_game(f"dag:{path}").parse("11")
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", f"dag:{path}", "11"])
    assert (result.exit_code, result.stderr) == (1, f"Error: {message}\n")
    short = DATA / "note003.json"
    with pytest.raises(PositionError) as error:
        load_game(f"dag:{short}").parse("d")
    assert str(error.value) == (
        f"'d' is not a vertex of dag:{short} (vertices: 'a', 'b', 'c', 't1', 't2', ... 7 in all)"
    )


def test_dag_needs_a_file():
    for spec in ("dag", "dag:", "dag:  "):
        with pytest.raises(SpecError) as error:
            load_game(spec)
        assert str(error.value) == "dag needs a graph file, e.g. dag:data/note003.json"
    result = CliRunner().invoke(main, ["solve", "dag", "a"])
    assert (result.exit_code, result.stderr) == (
        1,
        "Error: dag needs a graph file, e.g. dag:data/note003.json\n",
    )


# ----------------------------------------------------------------------------- bad files
TEXT_ERRORS = [
    (
        "g.dot",
        "digraph { a -> b }",
        "unknown graph file type '.dot' for {p!r} (expected .json, .csv, .graphml, .txt, .edges)",
    ),
    (
        "graph",
        "a b",
        "unknown graph file type (no extension) for {p!r} "
        "(expected .json, .csv, .graphml, .txt, .edges)",
    ),
    (
        "bad.json",
        '{"a": ["b",}',
        "graph file {p!r} is not valid JSON: Expecting value at line 1 column 12",
    ),
    (
        "list.json",
        '[["a", "b"]]',
        "graph file {p!r} holds a JSON list, expected an object "
        '({"vertices": [...], "edges": [...]} or {"a": ["b", ...], ...})',
    ),
    ("xml.json", "<graphml/>", "graph file {p!r} holds XML, not JSON as its extension says"),
    (
        "csv.json",
        "source,target\na,b\n",
        "graph file {p!r} holds CSV, not JSON as its extension says",
    ),
    (
        "json.edges",
        '{"a": []}',
        "graph file {p!r} holds JSON, not an edge list as its extension says",
    ),
    (
        "xml.txt",
        "<?xml version='1.0'?><graphml/>",
        "graph file {p!r} holds XML, not an edge list as its extension says",
    ),
    (
        "csv.txt",
        "Source, Target\na, b\n",
        "graph file {p!r} holds CSV, not an edge list as its extension says",
    ),
    ("xml.csv", "<x/>", "graph file {p!r} holds XML, not CSV as its extension says"),
    (
        "text.graphml",
        "a -> b\n",
        "graph file {p!r} holds plain text, not GraphML as its extension says",
    ),
    ("json.graphml", '{"a": []}', "graph file {p!r} holds JSON, not GraphML as its extension says"),
    ("dupkey.json", '{"a": ["b"], "a": [], "b": []}', "graph file {p!r} declares vertex 'a' twice"),
    (
        "dupvertex.json",
        '{"vertices": ["a", "a"], "edges": []}',
        "graph file {p!r} declares vertex 'a' twice",
    ),
    (
        "dupnode.graphml",
        '<graphml><graph><node id="a"/><node id="a"/></graph></graphml>',
        "graph file {p!r} declares vertex 'a' twice",
    ),
    (
        "succ.json",
        '{"a": "b", "b": []}',
        "bad successors 'b' of vertex 'a' in graph file {p!r} (expected a list of vertex names)",
    ),
    (
        "succname.json",
        '{"a": [["b"]], "b": []}',
        "bad vertex name ['b'] among the successors of 'a' in graph file {p!r} (expected a string)",
    ),
    (
        "name.json",
        '{"vertices": ["a", 1.5], "edges": []}',
        'bad vertex name 1.5 in "vertices" in graph file {p!r} (expected a string)',
    ),
    (
        "boolname.json",
        '{"vertices": [true], "edges": []}',
        'bad vertex name True in "vertices" in graph file {p!r} (expected a string)',
    ),
    (
        "vertices.json",
        '{"vertices": "a b", "edges": []}',
        "\"vertices\" in graph file {p!r} must be a list of names, got 'a b'",
    ),
    (
        "edges.json",
        '{"vertices": ["a"], "edges": {"a": "b"}}',
        "\"edges\" in graph file {p!r} must be a list of [source, target] pairs, got {'a': 'b'}",
    ),
    (
        "edge.json",
        '{"vertices": ["a", "b"], "edges": [["a"]]}',
        "bad edge ['a'] in graph file {p!r} (expected a [source, target] pair)",
    ),
    (
        "undeclared.json",
        '{"vertices": ["a", "b"], "edges": [["a", "z"]]}',
        "graph file {p!r} has an edge 'a' -> 'z' to the undeclared vertex 'z'",
    ),
    (
        "undeclared.adj.json",
        '{"a": ["z"]}',
        "graph file {p!r} has an edge 'a' -> 'z' to the undeclared vertex 'z'",
    ),
    (
        "undeclared.graphml",
        '<graphml><graph><node id="b"/><edge source="a" target="b"/></graph></graphml>',
        "graph file {p!r} has an edge 'a' -> 'b' to the undeclared vertex 'a'",
    ),
    (
        "loop.txt",
        "a b\nb -> b\n",
        "graph file {p!r} has a self-loop on vertex 'b' (a DAG move must change the position; "
        "play it as graph:{p}, which allows loops)",
    ),
    (
        "loop.json",
        '{"a": ["a"]}',
        "graph file {p!r} has a self-loop on vertex 'a' (a DAG move must change the position; "
        "play it as graph:{p}, which allows loops)",
    ),
    ("dup.edges", "a b\na -> b\n", "graph file {p!r} lists the edge 'a' -> 'b' twice"),
    ("dup.csv", "source,target\na,b\na,b\n", "graph file {p!r} lists the edge 'a' -> 'b' twice"),
    (
        "line.edges",
        "a b\na b c\n",
        "bad line 2 in graph file {p!r}: 'a b c' (expected 'u v' or 'u -> v')",
    ),
    (
        "arrow.edges",
        "a -> b -> c\n",
        "bad line 1 in graph file {p!r}: 'a -> b -> c' (expected 'u v' or 'u -> v')",
    ),
    ("half.edges", "a ->\n", "bad line 1 in graph file {p!r}: 'a ->' (expected 'u v' or 'u -> v')"),
    (
        "header.csv",
        "from,to\na,b\n",
        "graph file {p!r} must start with the header 'source,target', got 'from,to'",
    ),
    (
        "row.csv",
        "source,target\na,b\n,b\n",
        "bad row 3 in graph file {p!r}: ',b' (expected source,target with a source)",
    ),
    (
        "xml.graphml",
        "<graphml><graph></graphml>",
        "graph file {p!r} is not valid XML: mismatched tag: line 1, column 18",
    ),
    (
        "svg.graphml",
        '<svg xmlns="http://www.w3.org/2000/svg"/>',
        "graph file {p!r} is XML but not GraphML "
        "(its root element is <{http://www.w3.org/2000/svg}svg>, expected <graphml>)",
    ),
    (
        "two.graphml",
        "<graphml><graph/><graph/></graphml>",
        "graph file {p!r} holds 2 <graph> elements (expected one)",
    ),
    (
        "noid.graphml",
        "<graphml><graph><node/></graph></graphml>",
        "a <node> in graph file {p!r} has no id",
    ),
    (
        "noend.graphml",
        '<graphml><graph><node id="a"/><edge source="a"/></graph></graphml>',
        "an <edge> in graph file {p!r} lacks a source or a target",
    ),
    (
        "undirected.graphml",
        '<graphml><graph edgedefault="undirected"><node id="a"/><node id="b"/>'
        '<edge source="a" target="b"/></graph></graphml>',
        "the edge 'a' -- 'b' in graph file {p!r} is undirected "
        '(a game graph needs directed edges: edgedefault="directed")',
    ),
    ("blank.txt", "\n  \n", "graph file {p!r} is empty"),
    ("blank.json", "", "graph file {p!r} is empty"),
    ("comments.edges", "# nothing here\n", "graph file {p!r} has no vertices"),
    ("empty.json", "{}", "graph file {p!r} has no vertices"),
    ("empty.graphml", "<graphml><graph/></graphml>", "graph file {p!r} has no vertices"),
    ("header.csv", "source,target\n", "graph file {p!r} has no vertices"),
    (
        "emptyname.json",
        '{"vertices": [""], "edges": []}',
        "graph file {p!r} has a vertex with an empty name",
    ),
]


def check_file_error(path: Path, message: str, kind: type[Exception] = GameFileError) -> None:
    """The library raises `kind` with `message`; solve and explain print it and exit 1."""
    with pytest.raises(kind) as error:
        read_graph_file(path)
    assert str(error.value) == message
    with pytest.raises(kind) as error:
        load_game(f"dag:{path}")
    assert str(error.value) == message
    for command in ("solve", "explain"):
        result = CliRunner().invoke(main, [command, f"dag:{path}", "a"])
        assert (result.exit_code, result.stderr) == (1, f"Error: {message}\n")


@pytest.mark.parametrize(("name", "text", "message"), TEXT_ERRORS, ids=[e[0] for e in TEXT_ERRORS])
def test_bad_file(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    check_file_error(path, message.replace("{p!r}", repr(str(path))).replace("{p}", str(path)))


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.json"
    check_file_error(path, f"graph file {str(path)!r} not found")


def test_directory(tmp_path):
    path = tmp_path / "folder.json"
    path.mkdir()
    check_file_error(path, f"graph file {str(path)!r} is a directory")


def test_bad_encoding(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café -> b\n".encode("latin-1"))
    check_file_error(path, f"graph file {str(path)!r} is not UTF-8 text: byte 0xe9 at offset 3")


def test_binary_file(tmp_path):
    path = tmp_path / "picture.graphml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    check_file_error(
        path, f"graph file {str(path)!r} holds binary data, not GraphML as its extension says"
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc/self/mem")
def test_unreadable_file(tmp_path):
    # /proc/self/mem exists but cannot be read from offset 0, even by root
    path = tmp_path / "unreadable.json"
    os.symlink("/proc/self/mem", path)
    check_file_error(path, f"cannot read graph file {str(path)!r}: Input/output error")


def test_utf8_with_bom_and_crlf(tmp_path):
    path = tmp_path / "windows.csv"
    path.write_bytes("\ufeffsource,target\r\nb,a\r\n".encode())
    assert read_graph_file(path) == (["b", "a"], [("b", "a")])


def test_cycle_is_named_in_order():
    path = DATA / "cyclic.edges"
    message = (
        f"graph file {str(path)!r} has a cycle: 'a' -> 'b' -> 'c' -> 'a' "
        f"(play it as graph:{path}, which allows cycles)"
    )
    with pytest.raises(CyclicGraphError) as error:
        read_graph_file(path)
    assert error.value.cycle == ["a", "b", "c", "a"]
    check_file_error(path, message, CyclicGraphError)


@pytest.mark.parametrize(
    ("name", "text", "cycle"),
    [
        ("c.csv", "source,target\nx,y\ny,z\nz,y\n", ["y", "z", "y"]),
        ("c.json", '{"p": ["q"], "q": ["r"], "r": ["p"]}', ["p", "q", "r", "p"]),
        (
            "c.graphml",
            '<graphml><graph><node id="&lt;i&gt;"/><node id="j"/>'
            '<edge source="&lt;i&gt;" target="j"/><edge source="j" target="&lt;i&gt;"/>'
            "</graph></graphml>",
            ["<i>", "j", "<i>"],
        ),
    ],
)
def test_cycles_in_other_formats(tmp_path, name, text, cycle):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    message = (
        f"graph file {str(path)!r} has a cycle: "
        + " -> ".join(map(repr, cycle))
        + f" (play it as graph:{path}, which allows cycles)"
    )
    with pytest.raises(CyclicGraphError) as error:
        read_graph_file(path)
    assert error.value.cycle == cycle
    check_file_error(path, message, CyclicGraphError)


@pytest.mark.slow  # a very deep graph
def test_deep_graph_needs_no_recursion(tmp_path):
    path = tmp_path / "path.txt"
    depth = 50_000
    path.write_text("".join(f"{i} {i - 1}\n" for i in range(depth, 0, -1)), encoding="utf-8")
    game = DagGame(str(path))
    assert grundy_value(game, str(depth)) == depth % 2
    path.write_text(path.read_text() + f"0 {depth}\n", encoding="utf-8")
    with pytest.raises(CyclicGraphError) as error:
        read_graph_file(path)
    assert len(error.value.cycle) == depth + 2


# ----------------------------------------------------------------------------- CLI by hand
def test_cli_on_the_note003_graph(monkeypatch):
    monkeypatch.chdir(REPO)
    runner = CliRunner()
    result = runner.invoke(main, ["solve", "dag:data/note003.json", "a", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "game": "dag:data/note003.json",
        "position": "a",
        "grundy": 1,
        "outcome": "N",
        "remoteness": 1,
        "winning_moves": ["t1", "t2", "t4"],
        "method": "graph",
        "states": 4,
        "note": "",
        "infinite": False,
        "escapes": None,
        "drawing_moves": [],
        "convention": "normal",
        "move_names": {},  # a DAG's moves have no words: its positions are its vertices' names
    }
    result = runner.invoke(main, ["explain", "dag:data/note003.json", "b"])
    assert result.exit_code == 0, result.output
    assert "G = mex{0, 1} = 2" in result.stdout
    game = load_game("dag:data/note003.json")
    assert explain(game, "c").successors == [("a", 1)]
    assert explain(game, "c").grundy == 0
