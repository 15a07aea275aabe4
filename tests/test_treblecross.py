"""Treblecross against a brute force written here from GAMES.md row 10 and note 002.

The brute force plays every strip as written (mark an empty cell; three marks in a row end the
game) and solves it by the mex definition; note 002's reduction must give the same outcomes and
winning moves, and its runs of safe cells must match both a brute force of the reduced rules
and the octal game 0.007.
"""

from __future__ import annotations

from itertools import product

import pytest
from click.testing import CliRunner

from explorer.analysis.sequences import value_sequence
from explorer.analysis.solving import explain, grundy_value, reduced_value, solve
from explorer.cli import main
from explorer.errors import GraphTooLargeError, PositionError, SpecError
from explorer.games import load_game
from explorer.games.treblecross import MAX_CELLS, safe_runs, strip_with_runs
from tests.support.bruteforce import mex_values

LONGEST = 12  # every strip up to this many cells is solved as written


def mex(values: set[int]) -> int:
    g = 0
    while g in values:
        g += 1
    return g


# ---------------------------------------------------------------- the rules, written again


def marks(strip: str) -> list[str]:
    """As written: no move once three marks are in a row; else mark any empty cell."""
    if "XXX" in strip:
        return []
    return [strip[:i] + "X" + strip[i + 1 :] for i, c in enumerate(strip) if c == "."]


def as_written_values(longest: int) -> dict[str, int]:
    """G of every strip of up to `longest` cells; a move adds a mark, so most marks go first."""
    values: dict[str, int] = {}
    for n in range(longest + 1):
        strips = sorted(
            ("".join(cells) for cells in product(".X", repeat=n)), key=lambda s: -s.count("X")
        )
        for strip in strips:
            values[strip] = mex({values[q] for q in marks(strip)})
    return values


def safe_marks(strip: str) -> list[str]:
    """The reduced rules on the strip itself: mark an empty cell 3 or more from every X."""
    crosses = [i for i, c in enumerate(strip) if c == "X"]
    return [
        strip[:i] + "X" + strip[i + 1 :]
        for i, c in enumerate(strip)
        if c == "." and all(abs(i - j) >= 3 for j in crosses)
    ]


def run_values(longest: int) -> list[int]:
    """The note's recursion: marking cell i of a run of L leaves runs max(0,i-3), max(0,L-i-2)."""
    g = [0]
    for n in range(1, longest + 1):
        g.append(mex({g[max(0, i - 3)] ^ g[max(0, n - i - 2)] for i in range(1, n + 1)}))
    return g


@pytest.fixture(scope="module")
def game():
    return load_game("treblecross")


@pytest.fixture(scope="module")
def written() -> dict[str, int]:
    return as_written_values(LONGEST)


# ---------------------------------------------------------------- the reduction


def test_reduction_outcome_is_the_as_written_outcome(game, written):
    wrong = [s for s, v in written.items() if (reduced_value(game, s) == 0) != (v == 0)]
    assert not wrong
    assert len(written) == 2 ** (LONGEST + 1) - 1


def test_reduction_winning_moves_are_the_as_written_winning_moves(game, written):
    for strip, value in written.items():
        if len(strip) > LONGEST - 2:
            continue
        expected = [q for q in marks(strip) if written[q] == 0]
        found = solve(game, strip, method="decompose")
        assert found.winning_moves == [game.format(q) for q in expected], strip
        assert (found.outcome == "P") == (value == 0)


def test_the_note_recursion_is_wrong_for_two_cells_as_written(game, written):
    # first player marks one cell, second the other: no three, and the second moved last
    assert written[".."] == 0 and run_values(2)[2] == 1
    assert game.decompose("..") is None
    assert solve(game, "..").outcome == "P"
    assert [written[".X"], written["X."]] == [1, 1]


def test_graph_method_gives_the_as_written_values(game, written):
    for strip in ["..X....", "........", "X........X", "XX.X.", ".X..X..X."]:
        solution = solve(game, strip, method="graph")
        assert solution.grundy == written[strip]
        assert grundy_value(game, strip) == written[strip]


def test_reduced_and_as_written_values_differ_but_outcomes_agree(game, written):
    assert written["..X...."] == 3
    assert solve(game, "..X....", method="graph").grundy == 3
    reduced = solve(game, "..X....")
    assert reduced.method == "reduction"
    assert reduced.reduction_value == 1 and reduced.grundy is None  # a run of 2 safe cells
    assert reduced.winning_moves == ["..X..X.", "..X...X"]
    differ = [s for s, v in written.items() if v != reduced_value(game, s)]
    assert len(differ) > 2000  # of 8191 strips; most others are over or hold no safe cell


def test_runs_match_the_reduced_rules_played_on_the_strip(game):
    for n in range(17):
        values = mex_values("." * n, safe_marks)
        assert grundy_value(game.runs, game.runs.parse(str(n))) == values["." * n]
        for strip, value in values.items():
            runs = [(r,) for r in safe_runs(strip)]
            assert grundy_value(game.runs, tuple(sorted(r for (r,) in runs))) == value, strip


def test_runs_match_the_note_recursion(game):
    assert [int(v) for v in game.runs.heap_values(400)] == run_values(400)


def test_a_run_of_l_cells_is_a_heap_of_l_plus_2_of_octal_0007(game):
    octal = load_game("octal:0.007").heap_values(MAX_CELLS + 2)
    runs = game.runs.heap_values(MAX_CELLS)
    assert (runs == octal[2:]).all()
    # the shift matters: a neighbouring one fails already on small runs
    assert (runs[:50] != octal[1:51]).any()
    assert (runs[:50] != octal[3:53]).any()


def test_sequence_is_the_reduced_value_of_empty_strips(game, written):
    sequence = value_sequence(game, 200)
    values = sequence.values.tolist()
    runs = run_values(200)
    assert values[:2] + values[3:] == runs[:2] + runs[3:]
    assert values[2] == 0  # as written, see above
    for n in range(LONGEST + 1):
        assert (values[n] == 0) == (written["." * n] == 0)
    assert [n for n, v in enumerate(values[:60]) if v == 0] == [
        0,
        2,
        6,
        12,
        22,
        30,
        32,
        44,
        54,
    ]


def test_decompositions_are_reductions_with_their_reasons(game):
    over = game.decompose("X.XXX.")
    assert over.parts == () and not over.exact
    assert over.note == "three marks in a row: the game is over and the player to move has lost"

    threat = game.decompose("....X.X....")
    assert [(p.game.spec, p.position) for p in threat.parts] == [
        ("treblecross-threat", "....X.X....")
    ]
    assert threat.note == "one mark makes three in a row: the player to move wins"
    assert grundy_value(threat.parts[0].game, "....X.X....") == 1
    assert list(threat.parts[0].game.successors("....X.X....")) == ["....XXX...."]

    strip = game.parse("......X.........X.")
    parts = game.decompose(strip)
    assert not parts.exact
    assert [p.position for p in parts.parts] == [(4,), (5,)]
    assert parts.note.startswith("the study notes' reduction")
    rebuilt = parts.rebuild([p.position for p in parts.parts])
    assert safe_runs(rebuilt) == [4, 5]


@pytest.mark.parametrize(
    ("strip", "runs"),
    [
        ("", []),
        ("....", [4]),
        ("X", []),
        ("...X...", [1, 1]),
        ("..X..", []),
        ("X....X", []),
        ("X.....X", [1]),
        ("X......X", [2]),
        ("X.........X", [5]),
        ("..X.X.....X", [1]),
    ],
)
def test_safe_runs(strip, runs):
    assert safe_runs(strip) == runs
    assert safe_runs(strip_with_runs([(r,) for r in runs])) == runs


# ---------------------------------------------------------------- positions


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("..X....", "..X...."),
        (" ..x.X ", "..X.X"),
        ("7", "......."),
        ("0", "0"),
        ("XXX", "XXX"),
    ],
)
def test_parse_format_round_trip(game, text, canonical):
    strip = game.parse(text)
    assert game.format(strip) == canonical
    assert game.parse(game.format(strip)) == strip


def test_successors_mark_each_empty_cell_until_three(game):
    assert list(game.successors(".X.")) == ["XX.", ".XX"]
    assert list(game.successors("XXX..")) == []
    assert game.sequence_position(3) == "..."


STRIP = "a strip of '.' (empty) and 'X' (marked) cells like ..X...., or N for N empty cells"
POSITION_ERRORS = [
    (" ", f"empty position for treblecross (expected {STRIP})"),
    ("..O..", f"bad position '..O..' for treblecross: 'O' is not a cell (expected {STRIP})"),
    ("-3", f"bad position '-3' for treblecross: '-' is not a cell (expected {STRIP})"),
    ("10001", "bad position '10001' for treblecross: 10,001 cells is more than the 10,000 allowed"),
    (
        "." * 10_001,
        "bad position '..........'... for treblecross: 10,001 cells is more than the "
        "10,000 allowed",
    ),
]


@pytest.mark.parametrize(("text", "message"), POSITION_ERRORS)
def test_bad_positions(game, text, message):
    with pytest.raises(PositionError) as error:
        game.parse(text)
    assert str(error.value) == message


@pytest.mark.parametrize(("text", "message"), POSITION_ERRORS)
def test_bad_positions_from_the_cli(text, message):
    result = CliRunner().invoke(main, ["solve", "treblecross", "--", text])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


def test_bad_parameter():
    message = "treblecross takes no parameter, got '5' (use just 'treblecross')"
    with pytest.raises(SpecError) as error:
        load_game("treblecross:5")
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", "treblecross:5", "5"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


def test_a_sequence_too_long(game):
    message = "a treblecross strip of 10,001 cells is more than the 10,000 allowed"
    with pytest.raises(PositionError) as error:
        game.sequence_position(MAX_CELLS + 1)
    assert str(error.value) == message


def test_a_run_too_long_to_tabulate(game):
    message = "a run of 10,001 cells is more than the 10,000 treblecross allows"
    with pytest.raises(PositionError) as error:
        game.runs.heap_values(MAX_CELLS + 1)
    assert str(error.value) == message


def test_a_strip_too_large_for_its_graph():
    message = (
        "position '............' of treblecross is too large: more than 1,000 states "
        "(raise the limit with --max-states)"
    )
    with pytest.raises(GraphTooLargeError) as error:
        solve(load_game("treblecross"), "." * 12, method="graph", max_states=1000)
    assert str(error.value) == message
    result = CliRunner().invoke(
        main, ["solve", "treblecross", "12", "--method", "graph", "--max-states", "1000"]
    )
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


# ---------------------------------------------------------------- CLI


def test_cli_solve_json():
    result = CliRunner().invoke(main, ["solve", "treblecross", "..x....", "--json"])
    assert result.exit_code == 0, result.output
    assert '"position": "..X...."' in result.stdout
    assert '"grundy": null' in result.stdout  # the reduction's value is not the Grundy value
    assert '"reduction_value": 1' in result.stdout and '"method": "reduction"' in result.stdout
    assert '"winning_moves": ["..X..X.", "..X...X"]' in result.stdout


def test_cli_sequence_json():
    result = CliRunner().invoke(main, ["sequence", "treblecross", "--upto", "12", "--json"])
    assert result.exit_code == 0, result.output
    assert '"values": [0, 1, 0, 1, 2, 2, 0, 3, 3, 1, 1, 1, 0]' in result.stdout


def test_cli_explain_shows_the_runs():
    result = CliRunner().invoke(main, ["explain", "treblecross", "X..........X...."])
    assert result.exit_code == 0, result.output
    assert "treblecross-runs" in result.stdout
    assert "reduction value = 0 XOR 1 = 1" in result.stdout  # runs of 6 and 2
    assert "G = " not in result.stdout


def test_explain_a_strip_too_short_for_the_reduction(game):
    explanation = explain(game, "..")
    assert explanation.method == "mex"
    assert explanation.successors == [("X.", 1), (".X", 1)]
    assert explanation.grundy == 0


def test_solve_prints_the_reduction_apart_from_grundy(written):
    result = CliRunner().invoke(main, ["solve", "treblecross", "7"])
    assert result.exit_code == 0, result.output
    assert "grundy" not in result.stdout and "reduction   3 " in result.stdout
    graph = CliRunner().invoke(main, ["solve", "treblecross", "7", "--method", "graph", "--json"])
    assert '"grundy": 2' in graph.stdout and written["......."] == 2  # the game as played


def test_the_sequence_is_labelled_as_a_reduction(game):
    result = CliRunner().invoke(main, ["sequence", "treblecross", "--upto", "20"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("treblecross: reduction values R(0..20) (0 exactly on")
    assert "G(" not in result.stdout and "Fletcher-32 01460026 of R(0..20)" in result.stdout
    data = CliRunner().invoke(main, ["sequence", "treblecross", "--upto", "12", "--json"])
    assert '"method": "reduction"' in data.stdout
    plain = CliRunner().invoke(main, ["sequence", "kayles", "--upto", "3", "--json"])
    assert '"method": "reduction"' not in plain.stdout
