"""The pruned nimber search against the full exploration (the whole game graph, solved by the
mex rule): random Cram boards with filled cells, random graphs for Node-Kayles, Arc-Kayles and
a game of the user's, sums with heaps; published values; the shortcuts it names."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import explorer
from explorer import load_game, solve
from explorer.analysis.parts import PART_TABLE
from explorer.games.grids import GridRules
from explorer.solver.pruned import PrunedSearch
from tests.support.cli import run
from tests.support.environment import REPO
from tests.support.strategies import fraction_of_examples

#: OEIS A316632: Node-Kayles on the 3 x n grid, n = 1..16 (Brown et al., J. Integer Seq. 2020).
A316632 = [2, 1, 1, 0, 3, 3, 2, 2, 2, 3, 3, 5, 2, 4, 1, 3]


@st.composite
def boards(draw: st.DrawFn, rows: int = 4, cols: int = 5) -> str:
    """A Cram board of up to `rows` x `cols` cells, some filled."""
    height, width = draw(st.integers(1, rows)), draw(st.integers(1, cols))
    cells = draw(st.lists(st.booleans(), min_size=height * width, max_size=height * width))
    return "/".join(
        "".join("." if cells[r * width + c] else "#" for c in range(width)) for r in range(height)
    )


@st.composite
def graphs(draw: st.DrawFn, vertices: int = 8) -> str:
    """A random simple graph on up to `vertices` named vertices, as an edge list."""
    n = draw(st.integers(1, vertices))
    names = [chr(ord("a") + i) for i in range(n)]
    pairs = [(u, v) for i, u in enumerate(names) for v in names[i + 1 :]]
    chosen = (
        draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs))) if pairs else []
    )
    return ",".join([f"{u}-{v}" for u, v in chosen] + names)


def both_ways(spec: str, text: str) -> None:
    """The pruned search gives the whole graph's value and winning moves."""
    game = load_game(spec)
    position = game.parse(text)
    pruned = solve(game, position, method="pruned")
    whole = solve(game, position, method="graph")
    assert pruned.method == "pruned" and whole.method == "graph"
    assert pruned.grundy == whole.grundy, text
    assert sorted(pruned.winning_moves) == sorted(whole.winning_moves), text


@settings(max_examples=fraction_of_examples(1.0), deadline=None)
@given(boards())
def test_cram_boards_with_filled_cells_match_the_whole_graph(board):
    both_ways("cram", board)


@settings(max_examples=fraction_of_examples(1.0), deadline=None)
@given(graphs(), st.sampled_from(["nodekayles", "arckayles"]))
def test_random_graphs_match_the_whole_graph(graph, spec):
    both_ways(spec, graph)


@settings(max_examples=fraction_of_examples(0.5), deadline=None)
@given(boards(rows=3, cols=4))
def test_grid_graphs_with_cells_removed_match_the_whole_graph(board):
    # the board's empty cells as vertices of a grid graph, numbered row by row: Node-Kayles
    # and Arc-Kayles take the grid rules (bit boards), and must agree with the graph
    rows = board.split("/")
    width = len(rows[0])
    cells = [r * width + c for r, row in enumerate(rows) for c, x in enumerate(row) if x == "."]
    kept = set(cells)
    edges = [f"{i}-{i + 1}" for i in cells if i % width < width - 1 and i + 1 in kept]
    edges += [f"{i}-{i + width}" for i in cells if i + width in kept]
    text = ",".join(edges + [str(i) for i in cells]) or "-"
    for spec in ("nodekayles", "arckayles"):
        both_ways(spec, text)


@settings(max_examples=fraction_of_examples(0.5), deadline=None)
@given(boards(rows=3, cols=4), st.integers(0, 7), graphs(vertices=6))
def test_sums_with_heaps_are_the_xor_of_the_searches(board, heap, graph):
    for spec, text in (
        ("cram + nim", f"{board} + {heap}"),
        ("nodekayles + kayles", f"{graph} + {heap}"),
    ):
        game = load_game(spec)
        position = game.parse(text)
        searched = solve(game, position, method="pruned")
        assert searched.grundy == solve(game, position, method="graph").grundy


def test_a_users_graph_game_is_searched_by_its_own_moves():
    @explorer.graph_game
    def greedy(graph):  # take a vertex of highest degree with its neighbours
        top = max((graph.degree(v) for v in graph), default=0)
        return [
            graph.subgraph(set(graph) - {v, *graph[v]}) for v in graph if graph.degree(v) == top
        ]

    for text in ("P7", "C6+K3", "a-b,b-c,c-d,d-a,a-c,e-f", "2x4"):
        position = greedy.parse(text)
        assert (
            solve(greedy, position, method="pruned").grundy
            == solve(greedy, position, method="graph").grundy
        )


def test_node_kayles_on_3_by_n_grids_is_a316632():
    rules = GridRules("nodekayles")
    search = PrunedSearch(rules)
    found = [search.total(rules.board_components(3, n, (1 << 3 * n) - 1)) for n in range(1, 17)]
    assert found == A316632


def test_another_move_order_gives_the_same_values():
    for rule, rows, upto in (("nodekayles", 3, 14), ("cram", 3, 9), ("cram", 4, 5)):
        easy = PrunedSearch(GridRules(rule))  # type: ignore[arg-type]
        hard = PrunedSearch(GridRules(rule), hardest_first=True)  # type: ignore[arg-type]
        for n in range(1, upto + 1):
            keys = easy.rules.board_components(rows, n, (1 << rows * n) - 1)
            assert easy.total(keys) == hard.total(keys), (rule, rows, n)


#: Beling's table of Cram values (the README of beling/impartial-games; source in the file).
BELING = json.loads((REPO / "data" / "cram_beling.json").read_text())["values"]


@pytest.mark.parametrize(
    "board", ["4x4", "4x5", "4x6", "4x7", "4x8", "4x9", "4x10", "5x5", "5x6", "5x7", "6x6"]
)
def test_cram_boards_have_the_values_of_belings_table(board):
    from explorer.solver.pruned_kernel import CompiledGridSearch

    height, width = map(int, board.split("x"))
    rules = GridRules("cram")
    keys = rules.board_components(height, width, (1 << height * width) - 1)
    assert CompiledGridSearch(rules).total(keys) == BELING[board], board


def test_the_recorded_cram_runs_cover_belings_table_up_to_4x11_5x8_and_6x6():
    # the boards too long for a test (4x11, 5x8) were solved by tests/benchmarks/records.py
    rows = json.loads((REPO / "data" / "records.json").read_text())
    recorded = {row["board"]: row for row in rows if row["game"] == "cram"}
    wanted = [f"4x{n}" for n in range(4, 12)] + [f"5x{n}" for n in range(5, 9)] + ["6x6"]
    for board in wanted:
        assert recorded[board]["value"] == recorded[board]["published"] == BELING[board], board


def test_cram_boards_match_the_whole_graph_where_both_run():
    for board in ("3x3", "3x4", "3x5", "2x7", "4x4", "4x5"):
        both_ways("cram", board)


def test_the_method_names_the_search_and_its_shortcuts():
    result = solve("cram", "6x6", method="auto")
    assert (result.grundy, result.method) == (0, "pruned")
    assert "mirror strategy" in result.note
    path = solve("nodekayles", "P40", method="pruned")
    assert path.grundy == explorer.grundy_value("octal:0.137", 40)
    assert "proven octal sequence" in path.note
    assert solve("nodekayles", "C12", method="pruned").grundy == 1 - min(
        1, explorer.grundy_value("octal:0.137", 9)
    )


def test_a_game_without_components_refuses_the_pruned_method():
    code, out, err = run("solve", "nim", "3,4", "--method", "pruned")
    assert code == 1 and out == "" and "Error: nim has no components for the pruned search" in err


def test_the_memory_bound_names_its_option():
    code, _, err = run("solve", "cram", "4x7", "--method", "pruned", "--memory", "1")
    assert code == 1 and "over the limit of 1 MiB (raise it with --memory" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_a_search_killed_with_kill_9_resumes_from_the_stored_parts(tmp_path):
    path = str(tmp_path / "k.db")
    command = [sys.executable, "-m", "explorer", "solve", "cram", "5x8", "--db", path]
    command += ["--method", "pruned", "--json"]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    from explorer.storage import open_database

    deadline = time.monotonic() + 300
    stored = 0
    while time.monotonic() < deadline and stored == 0:
        time.sleep(0.5)
        with open_database(path) as db:
            stored = sum(int(row["parts"]) for row in db.parts.counts())
    assert process.poll() is None, "the search ended before it could be killed"
    process.kill()  # SIGKILL: no clean-up runs
    process.wait()
    assert stored > 0
    again = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=True)
    assert '"grundy": 1' in again.stdout and '"method": "pruned"' in again.stdout
    with open_database(path) as db:
        assert sum(int(row["parts"]) for row in db.parts.counts()) > stored


def test_the_part_table_holds_what_the_search_found():
    PART_TABLE.clear()
    assert solve("cram", "4x5", method="pruned").grundy == 2
    assert len(PART_TABLE.family("cram-grid")) > 0
    PART_TABLE.clear()


@settings(max_examples=fraction_of_examples(1.0), deadline=None)
@given(boards(rows=5, cols=6), st.sampled_from(["cram", "nodekayles"]), st.booleans())
def test_the_compiled_search_equals_the_python_search(board, rule, hardest_first):
    from explorer.solver.pruned_kernel import CompiledGridSearch

    rows = board.split("/")
    height, width = len(rows), len(rows[0])
    mask = sum(
        1 << (r * width + c) for r in range(height) for c in range(width) if rows[r][c] == "."
    )
    rules = GridRules(rule)
    keys = rules.board_components(height, width, mask)
    python = PrunedSearch(rules)
    compiled = CompiledGridSearch(rules, hardest_first=hardest_first)
    assert compiled.total(keys) == python.total(keys)
    for target in range(3):
        assert compiled.sum_is(keys, target) == python.sum_is(keys, target)
    for label, value in compiled.take_fresh():  # each value both found is the same
        assert python.values.get(rules.key(label), value) == value


def test_the_stored_records_are_found_again():
    from explorer.solver.pruned_kernel import CompiledGridSearch

    rows = json.loads((REPO / "data" / "records.json").read_text())
    assert {"nodekayles 3x17", "nodekayles 3x21", "nodekayles 5x9"} <= {
        f"{r['game']} {r['board']}" for r in rows
    }
    for row in rows:
        height, width = map(int, row["board"].split("x"))
        assert row["published"] in (None, row["value"])
        if height * width > 40:  # the larger ones: checked by tests/benchmarks/records.py
            continue
        rules = GridRules("cram" if row["game"] == "cram" else "nodekayles")
        keys = rules.board_components(height, width, (1 << height * width) - 1)
        assert CompiledGridSearch(rules).total(keys) == row["value"], row


@pytest.mark.parametrize("compiled", [False, True])
def test_both_searches_check_a_stored_value_when_they_first_use_it(compiled):
    # 3x4 Cram by a search that took every value of a full search as stored, one changed
    from explorer.errors import StoredPartError
    from explorer.solver.pruned_kernel import CompiledGridSearch

    rules = GridRules("cram")
    board = rules.board_components(3, 4, (1 << 12) - 1)
    full = PrunedSearch(rules)
    truth = full.total(board)
    stored = dict(full.take_fresh())
    inner = max(
        (label for label in stored if label != "3x4:fff"),
        key=lambda text: rules.size(rules.key(text)),
    )
    kind = CompiledGridSearch if compiled else PrunedSearch
    right = kind(rules)
    unchecked = set(stored)
    right.adopt(stored, unchecked)
    assert right.total(board) == truth and "3x4:fff" not in unchecked
    changed = {**stored, inner: stored[inner] + 1}
    del changed["3x4:fff"]
    search = kind(rules)
    search.adopt(changed, set(changed))
    with pytest.raises(
        StoredPartError,
        match=f"stores {stored[inner] + 1} for the cram-grid part "
        f"labelled '{inner}', but its moves give {stored[inner]}",
    ):
        search.total(board)
