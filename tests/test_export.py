"""Streaming export: every format reads back in NetworkX with every node, edge and value; files
are replaced atomically (a failed write, a full disk, leaves the previous file); symbolic links
are refused; XML is always valid, escaping markup and refusing what XML cannot hold."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from explorer import open_database
from explorer.formats.writing import NODE_ATTRIBUTES
from tests.support.cli import run, run_json

FORMATS = ["graphml", "gexf", "json", "csv"]
TYPED = {"grundy": int, "remoteness": int, "depth": int, "height": int}


def read_back(path: Path, fmt: str) -> nx.DiGraph:
    """The exported file as NetworkX reads it (CSV: the node and edge tables)."""
    if fmt == "graphml":
        return nx.read_graphml(path)
    if fmt == "gexf":
        graph = nx.read_gexf(path)
        for _, data in graph.nodes(data=True):
            data.pop("label", None)
        return graph
    if fmt == "json":  # JSON has null: unknown values are there, as null
        graph = nx.node_link_graph(json.loads(path.read_text("utf-8")), edges="edges")
        for _, data in graph.nodes(data=True):
            for key in [k for k, v in data.items() if v is None]:
                del data[key]
        return graph
    stem = path.with_suffix("")
    graph = nx.DiGraph()
    with stem.with_name(stem.name + ".nodes.csv").open(encoding="utf-8", newline="") as file:
        for row in csv.DictReader(file):
            name = row.pop("position")
            graph.add_node(
                name,
                **{
                    k: (TYPED[k](v) if k in TYPED else (v == "True" if k == "expanded" else v))
                    for k, v in row.items()
                    if v != ""
                },
            )
    with stem.with_name(stem.name + ".edges.csv").open(encoding="utf-8", newline="") as file:
        graph.add_edges_from((r["source"], r["target"]) for r in csv.DictReader(file))
    return graph


def stored_graph(url: str, spec: str) -> nx.DiGraph:
    """The whole stored game as the (non-streaming) NetworkX reader gives it."""
    with open_database(url) as db:
        graph = db.game(spec).subgraph(10**9)
    for _, data in graph.nodes(data=True):  # what an export writes (not loopy labels)
        for key in [k for k, v in data.items() if v is None or k not in NODE_ATTRIBUTES]:
            del data[key]
    return graph


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_node_edge_and_value_reads_back(db_url, tmp_path, fmt):
    run_json("build", "kayles", "9,5", "--db", db_url)
    # a stopped build too: unsolved states have no values, and are written without them
    run_json("build", "nim", "5,6,7", "--max-states", "60", "--db", db_url)
    for spec in ("octal:0.77", "nim"):
        target = tmp_path / f"{spec.replace(':', '_')}.{fmt}"
        data = run_json("export", spec, "-o", str(target), "--db", db_url)
        expected = stored_graph(db_url, spec)
        graph = read_back(target, fmt)
        assert set(graph) == set(expected)
        assert set(graph.edges) == set(expected.edges)
        for node, values in expected.nodes(data=True):
            assert graph.nodes[node] == values, node
        assert data["states"] == expected.number_of_nodes()
        assert data["edges"] == expected.number_of_edges()
        assert data["stored_states"] == expected.number_of_nodes()
    assert any(v.get("grundy") is None for _, v in stored_graph(db_url, "nim").nodes(data=True))


@pytest.mark.parametrize("fmt", ["graphml", "json"])
def test_limit_and_neighbourhood_stream_the_same_graphs_as_networkx(db_url, tmp_path, fmt):
    run_json("build", "kayles", "12", "--db", db_url)
    with open_database(db_url) as db:
        top = db.game("kayles").subgraph(20)
        near = {d: db.game("kayles").neighbourhood("5,5", 2, d) for d in ("out", "in", "both")}
    target = tmp_path / f"top.{fmt}"
    data = run_json("export", "kayles", "--limit", "20", "-o", str(target), "--db", db_url)
    graph = read_back(target, fmt)
    assert set(graph) == set(top) and set(graph.edges) == set(top.edges)
    assert data["states"] == 20 and data["stored_states"] > 20
    code, out, _ = run("export", "kayles", "--limit", "20", "-o", str(target), "--db", db_url)
    assert code == 0 and "(the first 20 of " in out
    for direction, expected in near.items():
        run_json(
            "export",
            "kayles",
            "--around",
            "5,5",
            "--depth",
            "2",
            "--direction",
            direction,
            "-o",
            str(target),
            "--db",
            db_url,
        )
        graph = read_back(target, fmt)
        assert set(graph) == set(expected), direction
        assert set(graph.edges) == set(expected.edges), direction
        assert graph.graph["root"] == "5,5"


def test_neighbourhoods_follow_moves_both_ways_as_the_union_of_levels(db_url):
    run_json("build", "nim", "3,4,5", "--db", db_url)
    with open_database(db_url) as db:
        whole = db.game("nim").subgraph(10_000)
        for depth in range(4):
            both = db.game("nim").neighbourhood("2,4", depth, "both")
            expected = nx.ego_graph(whole, "2,4", radius=depth, undirected=True)
            assert set(both) == set(expected)
            assert set(both.edges) == set(expected.edges)
            out = db.game("nim").neighbourhood("2,4", depth, "out")
            assert set(out) == set(nx.ego_graph(whole, "2,4", radius=depth))


def test_markup_and_white_space_in_positions_round_trip_through_xml(tmp_path):
    names = ['x<&>"y', "t\tz\nq\rr", "é'ü", "plain"]
    source = tmp_path / "weird.json"
    source.write_text(
        json.dumps({"vertices": names, "edges": [names[:2], names[1:3], names[2:]]}), "utf-8"
    )
    db = str(tmp_path / "w.db")
    assert run("import", str(source), "--db", db)[0] == 0
    for fmt in FORMATS:
        target = tmp_path / f"w.{fmt}"
        assert run("export", f"dag:{source}", "-o", str(target), "--db", db)[0] == 0
        graph = read_back(target, fmt)
        assert set(graph) == set(names), fmt
        assert set(graph.edges) == {tuple(names[:2]), tuple(names[1:3]), tuple(names[2:])}


def test_a_character_xml_cannot_hold_is_refused_and_nothing_is_replaced(tmp_path):
    source = tmp_path / "ctl.json"
    source.write_text(json.dumps({"vertices": ["a\x01b", "c"], "edges": [["a\x01b", "c"]]}))
    db = str(tmp_path / "c.db")
    assert run("import", str(source), "--db", db)[0] == 0
    for fmt in ("graphml", "gexf"):
        target = tmp_path / f"c.{fmt}"
        target.write_text("previous")
        code, out, err = run("export", f"dag:{source}", "-o", str(target), "--db", db)
        assert code == 1 and out == ""
        assert err == (
            "Error: position 'a\\x01b' holds a character XML cannot represent (a control "
            "character); export it as JSON or CSV instead\n"
        )
        assert target.read_text() == "previous"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    target = tmp_path / "c.json"
    assert run("export", f"dag:{source}", "-o", str(target), "--db", db)[0] == 0
    assert set(read_back(target, "json")) == {"a\x01b", "c"}


def test_a_symbolic_link_is_never_followed(tmp_path):
    db = str(tmp_path / "g.db")
    run_json("build", "nim", "1,2", "--db", db)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    link = tmp_path / "out.graphml"
    link.symlink_to(precious)
    code, out, err = run("export", "nim", "-o", str(link), "--db", db)
    assert code == 1 and out == ""
    assert err == (
        f"Error: {str(link)!r} is a symbolic link: explorer never writes through one (remove "
        "the link or name another file)\n"
    )
    assert precious.read_text() == "keep me" and link.is_symlink()
    # CSV writes two files: a link at either is refused before anything is written
    nodes = tmp_path / "t.nodes.csv"
    nodes.symlink_to(precious)
    assert run("export", "nim", "-o", str(tmp_path / "t.csv"), "--db", db)[0] == 1
    assert not (tmp_path / "t.edges.csv").exists() and precious.read_text() == "keep me"


def test_replacing_a_file_keeps_its_mode_and_a_new_file_gets_the_umask(tmp_path):
    db = str(tmp_path / "g.db")
    run_json("build", "nim", "1,2", "--db", db)
    fresh = tmp_path / "fresh.graphml"
    old = os.umask(0o027)
    try:
        assert run("export", "nim", "-o", str(fresh), "--db", db)[0] == 0
    finally:
        os.umask(old)
    assert fresh.stat().st_mode & 0o777 == 0o640
    fresh.chmod(0o604)
    assert run("export", "nim", "-o", str(fresh), "--db", db)[0] == 0
    assert fresh.stat().st_mode & 0o777 == 0o604
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


FULL_DISK = """
import resource, signal, sys
from explorer import open_database
from explorer.formats.writing import NODE_ATTRIBUTES
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
db = open_database(sys.argv[1], create=False)
limit = int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
db.game("octal:0.77").export(sys.argv[2])
"""


@pytest.mark.slow  # a process on a small full disk
@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_cut_short_by_a_full_disk_leaves_the_previous_file(db_url, tmp_path, fmt):
    run_json("build", "kayles", "20", "--db", db_url)  # every format's file is over 60 kB
    target = tmp_path / f"k.{fmt}"
    # the previous export: a small one
    run_json("export", "kayles", "--limit", "10", "-o", str(target), "--db", db_url)
    written = [target] if fmt != "csv" else [tmp_path / "k.nodes.csv", tmp_path / "k.edges.csv"]
    before = [p.read_bytes() for p in written]
    assert max(len(b) for b in before) < 20_000
    result = subprocess.run(
        [sys.executable, "-c", FULL_DISK, db_url, str(target), "60000"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert "ExportError: cannot write " in result.stderr
    assert "File too large (nothing was replaced)" in result.stderr
    assert [p.read_bytes() for p in written] == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []
    # with room, the same export replaces it
    run_json("export", "kayles", "-o", str(target), "--db", db_url)
    assert read_back(target, fmt).number_of_nodes() > 10
