"""Moves named by what they do (`Game.move_name`): a vertex, an edge, a domino's cells, a heap
split, in `explain`, `solve` and `query` and their JSON; each name checked by making the named
move again here, by hand, and comparing with the position the game reached."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import explorer
from tests.support.cli import run_json, run_ok

GRID_3X3 = "0-1,0-3,1-2,1-4,2-5,3-4,3-6,4-5,4-7,5-8,6-7,7-8"


def _winning_line(out: str) -> list[str]:
    line = next(x for x in out.splitlines() if x.startswith("winning move"))
    return line.split(": ", 1)[1].split("; ")


def _node_kayles_move(edges: str, vertex: str) -> str:
    """The position after taking `vertex` and its neighbours, made by hand."""
    pairs = [tuple(e.split("-")) for e in edges.split(",")]
    vertices = {v for p in pairs for v in p}
    gone = {vertex} | {b for a, b in pairs if a == vertex} | {a for a, b in pairs if b == vertex}
    kept = [f"{a}-{b}" for a, b in pairs if a not in gone and b not in gone]
    touched = {v for e in kept for v in e.split("-")}
    alone = sorted((vertices - gone) - touched, key=int)
    return ",".join(kept + alone) or "-"


def test_node_kayles_names_the_vertex_taken_and_its_cell():
    out = run_ok("explain", "nodekayles", "3x3")
    winning = _winning_line(out)
    # the corners and the centre win (Node-Kayles on 3x3 is worth 1, every corner leaves 0)
    assert winning == [
        "take vertex 0 (a1)",
        "take vertex 2 (c1)",
        "take vertex 4 (b2)",
        "take vertex 6 (a3)",
        "take vertex 8 (c3)",
    ]
    result = run_json("explain", "nodekayles", "3x3")
    names = result["move_names"]
    assert len(names) == 9
    for position, name in names.items():
        vertex = re.fullmatch(r"take vertex (\d+) \([a-c][1-3]\)", name).group(1)
        assert _node_kayles_move(GRID_3X3, vertex) == position
        row, col = divmod(int(vertex), 3)
        assert name.endswith(f"({'abc'[col]}{row + 1})")
    winning_json = [names[p] for p, v in result["successors"] if v == 0]
    assert winning_json == winning


def _fill(board: str, cells: list[str]) -> str:
    rows = [list(r) for r in board.split("/")]
    for cell in cells:
        col, row = ord(cell[0]) - ord("a"), int(cell[1:]) - 1
        assert rows[row][col] == "."
        rows[row][col] = "#"
    return "/".join("".join(r) for r in rows)


def test_cram_names_the_dominos_cells():
    out = run_ok("explain", "cram", "3x4")
    result = run_json("explain", "cram", "3x4")
    names = result["move_names"]
    assert len(names) == 17  # 3 x 3 across and 2 x 4 down
    for position, name in names.items():
        first, second = re.fullmatch(r"domino on ([a-d][1-3])-([a-d][1-3])", name).groups()
        assert _fill("..../..../....", [first, second]) == position
    winning = [names[p] for p, v in result["successors"] if v == 0]
    assert _winning_line(out) == winning
    assert "domino on b2-c2" in winning


def test_hackenbush_names_the_edge_cut():
    out = run_ok("explain", "hackenbush", "g-a,a-b,b-g")
    assert "winning move: cut edge a-b" in out
    result = run_json("explain", "hackenbush", "g-a,a-b,b-g")
    assert result["move_names"] == {
        "a-g,b-g": "cut edge a-b",
        "a-b,b-g": "cut edge a-g",
        "a-b,a-g": "cut edge b-g",
    }
    # what no longer reaches the ground falls, and the name says so
    fallen = explorer.explain("hackenbush", "g-a,a-b,b-c").move_names
    assert fallen == {
        "a-b,a-g": "cut edge b-c, c falls",
        "a-g": "cut edge a-b, b,c fall",
        "-": "cut edge a-g, a,b,c fall",
    }


def test_arc_kayles_names_the_edge_taken():
    names = explorer.explain("arckayles", "P4").move_names
    assert names == {"2-3": "take edge 0-1", "0,3": "take edge 1-2", "0-1": "take edge 2-3"}


def test_heap_moves_say_what_is_taken_and_left():
    out = run_ok("explain", "kayles", "7")
    # a semicolon separates moves: no comma of a position can be read as one
    assert out.splitlines()[-2] == (
        "winning moves: take 1 from 7, leaving 3+3; take 2 from 7, leaving 1+4"
    )
    assert explorer.explain("grundy", 7).move_names == {
        "1,6": "split 7 into 1+6",
        "2,5": "split 7 into 2+5",
        "3,4": "split 7 into 3+4",
    }
    solved = run_ok("solve", "nim", "3,4,5")
    assert "  take 2 from 3 -> 1,4,5" in solved.splitlines()


def test_a_sum_names_the_component_moved_in():
    names = explorer.explain("nim + cram", "2 + 1x2").move_names
    assert names == {
        "0 + ..": "nim: take 2 from 2",
        "1 + ..": "nim: take 1 from 2",
        "2 + ##": "cram: domino on a1-b1",
    }


def test_solve_json_names_winning_moves_as_its_text_does():
    out = run_ok("solve", "nodekayles", "3x3")
    result = run_json("solve", "nodekayles", "3x3")
    for position in result["winning_moves"]:
        assert f"  {result['move_names'][position]} -> {position}" in out.splitlines()
    assert len(result["move_names"]) == len(result["winning_moves"]) == 5


def test_query_names_each_stored_move(tmp_path: Path):
    db = str(tmp_path / "cram.db")
    run_ok("build", "cram", "2x3", "--db", db)
    state = run_json("query", "cram", "2x3", "--db", db)
    assert {s["position"]: s["move"] for s in state["successors"]} == {
        "##./...": "domino on a1-b1",
        "#../#..": "domino on a1-a2",
        ".##/...": "domino on b1-c1",
        ".#./.#.": "domino on b1-b2",
        "..#/..#": "domino on c1-c2",
        ".../##.": "domino on a2-b2",
        ".../.##": "domino on b2-c2",
    }
    page = run_json("query", "cram", "2x3", "--db", db, "--successors")
    assert all(s["move"].startswith("domino on ") for s in page["states"])
    # and the text names them beside the positions they reach
    text = run_ok("query", "cram", "2x3", "--db", db)
    assert re.search(r"│ domino on b1-b2 │ \.#\./\.#\.  │ +0 │ +P │", text)


def test_a_game_without_words_names_moves_by_position():
    result = run_json("solve", "chomp", "3x3")
    assert result["move_names"] == {}
    assert "  -> 3,1,1" in run_ok("solve", "chomp", "3x3").splitlines()


@pytest.mark.parametrize("command", ["solve", "explain"])
def test_a_long_position_is_shortened_in_text_and_whole_in_json(command):
    out = run_ok(command, "nodekayles", "K200")
    whole = run_json(command, "nodekayles", "K200")["position"]
    assert len(whole) > 100_000
    assert len(out) < 2_000
    assert f"({len(whole):,} characters; --json prints it whole)" in out
    assert whole[:60] in out


def test_a_board_is_shown_as_a_board_its_cells_named_as_moves_name_them():
    out = run_ok("solve", "cram", "..#./..../....").splitlines()
    at = out.index("position    ..#./..../....")
    assert out[at + 1 : at + 5] == [
        "              a b c d",
        "            1 . . # .",
        "            2 . . . .",
        "            3 . . . .",
    ]
    assert "  1 . . . ." in run_ok("explain", "cram", "3x4").splitlines()
