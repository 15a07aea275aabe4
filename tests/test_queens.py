"""The corner-the-queen board game against a brute force written here from GAMES.md row 9.

The brute force plays the game as written (several pieces; whoever puts one on (0,0) wins) and
solves it by the mex definition; the reduction of note 002 must give the same outcomes and the
same winning moves, and its single-piece game must match a brute force of the reduced rules.
"""

from __future__ import annotations

import json
import math
from itertools import combinations_with_replacement, product

import pytest
from click.testing import CliRunner

from explorer.analysis.solving import explain, grundy_value, reduced_value, solve
from explorer.cli import main
from explorer.errors import GraphTooLargeError, PositionError, SpecError
from explorer.games import load_game

Square = tuple[int, int]
Board = tuple[Square, ...]


def mex(values: set[int]) -> int:
    g = 0
    while g in values:
        g += 1
    return g


# ---------------------------------------------------------------- the rules, written again


def piece_moves(x: int, y: int) -> list[Square]:
    """Left, down or diagonally down-left by k >= 1, staying on the board."""
    return (
        [(x - k, y) for k in range(1, x + 1)]
        + [(x, y - k) for k in range(1, y + 1)]
        + [(x - k, y - k) for k in range(1, min(x, y) + 1)]
    )


def board_moves(board: Board) -> set[Board]:
    """As written: no move once a piece is on (0,0); else move any one piece."""
    if (0, 0) in board:
        return set()
    result = set()
    for i, (x, y) in enumerate(board):
        rest = board[:i] + board[i + 1 :]
        for target in piece_moves(x, y):
            result.add(tuple(sorted(rest + (target,))))
    return result


def as_written_values(pieces: int, size: int) -> dict[Board, int]:
    """G of every board of `pieces` pieces with coordinates below `size`, as written.

    Every move lowers the sum of all coordinates, so boards are solved in increasing sum.
    """
    squares = list(product(range(size), repeat=2))
    boards = sorted(
        combinations_with_replacement(squares, pieces), key=lambda b: sum(x + y for x, y in b)
    )
    values: dict[Board, int] = {}
    for board in boards:
        values[board] = mex({values[q] for q in board_moves(board)})
    return values


def reduced_piece_values(size: int) -> dict[Square, int]:
    """G of one piece in note 002's reduced game, from its rules.

    Off row 0, column 0 and the diagonal a piece may only move to squares off them; on them
    its only move is to (0,0), which has none.
    """
    values: dict[Square, int] = {}
    for x, y in sorted(product(range(size), repeat=2), key=sum):
        if (x, y) == (0, 0):
            values[(x, y)] = 0
        elif x == 0 or y == 0 or x == y:
            values[(x, y)] = mex({values[(0, 0)]})
        else:
            safe = [(a, b) for a, b in piece_moves(x, y) if a and b and a != b]
            values[(x, y)] = mex({values[s] for s in safe})
    return values


def wythoff_p_positions(limit: int) -> set[Square]:
    phi = (1 + math.sqrt(5)) / 2
    pairs = set()
    for k in range(limit + 1):
        a, b = math.floor(k * phi), math.floor(k * phi * phi)
        pairs |= {(a, b), (b, a)}
    return pairs


# Boards small enough to solve as written: (pieces, coordinates below size).
SMALL = [(1, 10), (2, 7), (3, 5)]


@pytest.fixture(scope="module")
def game():
    return load_game("queens")


@pytest.fixture(scope="module")
def written() -> dict[Board, int]:
    values: dict[Board, int] = {}
    for pieces, size in SMALL:
        values.update(as_written_values(pieces, size))
    return values


# ---------------------------------------------------------------- the reduction


def test_reduction_outcome_is_the_as_written_outcome(game, written):
    wrong = [
        game.format(board)
        for board, value in written.items()
        if (reduced_value(game, board) == 0) != (value == 0)
    ]
    assert not wrong
    assert len(written) == 100 + 1225 + 2925


def test_reduction_winning_moves_are_the_as_written_winning_moves(game, written):
    for board, value in written.items():
        expected = sorted(game.format(q) for q in board_moves(board) if written[q] == 0)
        found = solve(game, board, method="decompose")
        assert found.method == "reduction"
        assert sorted(found.winning_moves) == expected, game.format(board)
        assert (found.outcome == "P") == (value == 0)


@pytest.mark.slow  # whole graphs
def test_graph_method_gives_the_as_written_values(game, written):
    for board in [b for b in written if len(b) == 2][::15]:
        solution = solve(game, board, method="graph")
        assert solution.grundy == written[board]
        assert solution.method == "graph"
        assert grundy_value(game, board) == written[board]


def test_reduced_piece_values_match_a_brute_force_of_the_reduced_rules(game):
    expected = reduced_piece_values(25)
    # the far corner first: its graph holds every other square
    found = {
        (x, y): grundy_value(game.reduced, game.reduced.parse(f"{x},{y}"))
        for x, y in reversed(expected)
    }
    assert found == expected


def test_one_and_two_and_a_corner_are_final_in_the_reduced_game(game):
    assert list(game.reduced.successors((1, 2))) == []
    assert game.reduced.parse("2,1") == (1, 2)
    assert list(game.reduced.successors((0, 7))) == [(0, 0)]
    assert list(game.reduced.successors((0, 0))) == []
    assert sorted(game.reduced.successors((2, 4))) == [(1, 2), (1, 3), (1, 4), (2, 3)]


def test_single_queen_outcomes_are_wythoff_p_positions(game):
    size = 41
    p_positions = wythoff_p_positions(size)
    # the far corner first: its graph holds every other square
    for x, y in reversed(list(product(range(size), repeat=2))):
        assert (reduced_value(game, ((x, y),)) == 0) == ((x, y) in p_positions), (x, y)


def test_single_queen_as_written_is_wythoff(game, written):
    wythoff = load_game("wythoff")
    for (square,), value in [(b, v) for b, v in written.items() if len(b) == 1]:
        assert grundy_value(wythoff, tuple(sorted(square))) == value


def test_decompositions_are_reductions_with_their_reasons(game):
    terminal = game.decompose(game.parse("0,0;3,5"))
    assert terminal.parts == () and not terminal.exact
    assert terminal.note == "a piece is on (0,0): the game is over and the player to move has lost"

    win = game.decompose(game.parse("4,4;1,3;2,5"))
    assert [p.position for p in win.parts] == [(4, 4)]
    assert win.note == "the piece on 4,4 reaches (0,0) in one move: the player to move wins"
    assert grundy_value(game.reduced, (4, 4)) == 1

    board = game.parse("1,3;4,2;4,2")
    parts = game.decompose(board)
    assert not parts.exact
    assert [p.position for p in parts.parts] == [(1, 3), (2, 4), (2, 4)]  # mirrored to x <= y
    rebuilt = parts.rebuild([p.position for p in parts.parts])
    assert rebuilt == game.parse("1,3;2,4;2,4")
    assert solve(game, rebuilt, method="graph").grundy == solve(game, board, method="graph").grundy
    assert parts.note.startswith("the study notes' reduction")


def test_reduced_and_as_written_values_differ_but_outcomes_agree(game, written):
    board = game.parse("1,3;4,2")
    assert written[board] == 7  # as written, solved by the brute force
    assert solve(game, board, method="graph").grundy == 7
    reduced = solve(game, board)  # the reduction: G(1,3) XOR G(4,2) = 1 XOR 3
    assert (reduced.reduction_value, reduced.grundy) == (2, None)
    assert solve(game, board).outcome == solve(game, board, method="graph").outcome == "N"
    differ = [b for b, v in written.items() if v != reduced_value(game, b)]
    assert len(differ) > len(written) // 2


def test_in_a_sum_the_board_counts_with_its_as_written_value(game, written):
    mixed = load_game("queens + nim")
    board = game.parse("1,3;4,2")
    assert grundy_value(mixed, mixed.parse("1,3;4,2 + 7")) == written[board] ^ 7


@pytest.mark.slow  # large boards
def test_large_coordinates_are_solved_through_the_reduction(game):
    solution = solve(game, game.parse("60,25;37,61"))
    assert solution.method == "reduction"
    assert solution.remoteness is None
    for move in solution.winning_moves:
        assert reduced_value(game, game.parse(move)) == 0
    assert (solution.outcome == "N") == bool(solution.winning_moves)


# ---------------------------------------------------------------- positions


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1,3;4,2", "1,3;4,2"),
        ("4,2;1,3", "1,3;4,2"),
        (" 4 , 2 ; 1,3 ", "1,3;4,2"),
        ("2,2;2,2", "2,2;2,2"),
        ("0,0", "0,0"),
        ("99,0;0,99", "0,99;99,0"),
    ],
)
def test_parse_format_round_trip(game, text, canonical):
    board = game.parse(text)
    assert game.format(board) == canonical
    assert game.parse(game.format(board)) == board


def test_successors_are_deterministic_and_skip_equal_pieces(game):
    board = game.parse("1,1;1,1")
    assert list(game.successors(board)) == list(game.successors(board))
    assert list(game.successors(board)) == [((0, 1), (1, 1)), ((1, 0), (1, 1)), ((0, 0), (1, 1))]
    assert list(game.successors(game.parse("0,0;5,5"))) == []


SQUARES = "squares x,y joined by ';', e.g. 1,3;4,2"
POSITION_ERRORS = [
    ("", f"empty position for queens (expected {SQUARES})"),
    ("1,3;4", f"bad position '1,3;4' for queens: '4' is not a square x,y (expected {SQUARES})"),
    ("1,3;", f"bad position '1,3;' for queens: '' is not a square x,y (expected {SQUARES})"),
    ("1,-3", f"bad position '1,-3' for queens: '1,-3' is not a square x,y (expected {SQUARES})"),
    ("1,2,3", f"bad position '1,2,3' for queens: '1,2,3' is not a square x,y (expected {SQUARES})"),
    (
        "1,3;100,2",
        "bad position '1,3;100,2' for queens: square 100,2 is off the board "
        "(coordinates go from 0 to 99)",
    ),
]


@pytest.mark.parametrize(("text", "message"), POSITION_ERRORS)
def test_bad_positions(game, text, message):
    with pytest.raises(PositionError) as error:
        game.parse(text)
    assert str(error.value) == message


@pytest.mark.parametrize(("text", "message"), POSITION_ERRORS[1:])
def test_bad_positions_from_the_cli(text, message):
    result = CliRunner().invoke(main, ["solve", "queens", text])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


def test_bad_parameter():
    message = "queens takes no parameter, got '8' (use just 'queens')"
    with pytest.raises(SpecError) as error:
        load_game("queens:8")
    assert str(error.value) == message
    result = CliRunner().invoke(main, ["solve", "queens:8", "1,3"])
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


def test_a_board_too_large_for_its_graph(game):
    message = (
        "position '9,9;9,9' of queens is too large: more than 50 states "
        "(raise the limit with --max-states)"
    )
    with pytest.raises(GraphTooLargeError) as error:
        solve(game, game.parse("9,9;9,9"), method="graph", max_states=50)
    assert str(error.value) == message
    result = CliRunner().invoke(
        main, ["solve", "queens", "9,9;9,9", "--method", "graph", "--max-states", "50"]
    )
    assert result.exit_code == 1
    assert result.stderr == f"Error: {message}\n"


# ---------------------------------------------------------------- CLI


def test_cli_solve_json(written):
    result = CliRunner().invoke(main, ["solve", "queens", "4,2;1,3", "--json"])
    assert result.exit_code == 0, result.output
    assert '"position": "1,3;4,2"' in result.stdout
    assert '"grundy": null' in result.stdout and '"reduction_value": 2' in result.stdout
    assert '"winning_moves": ["1,3;3,1"]' in result.stdout
    assert '"method": "reduction"' in result.stdout
    assert written[((1, 3), (3, 1))] == 0


def test_cli_explain_shows_the_parts():
    result = CliRunner().invoke(main, ["explain", "queens", "1,3;4,2"])
    assert result.exit_code == 0, result.output
    assert "queens-reduced" in result.stdout
    assert "reduction value = 1 XOR 3 = 2" in result.stdout and "G = " not in result.stdout


def test_explain_a_piece_that_reaches_the_corner(game):
    explanation = explain(game, game.parse("3,3;1,3"))
    assert explanation.method == "reduction"
    assert explanation.parts == [("queens-reduced", "3,3", 1)]
    assert explanation.outcome == "N"


def test_the_table_holds_grundy_values_not_the_reductions(written):
    # one piece: the table is of the game as written (the reduction would put 1 on every
    # square that reaches the corner at once)
    result = CliRunner().invoke(main, ["table", "queens", "--rows", "5", "--cols", "5", "--json"])
    assert result.exit_code == 0, result.output
    values = json.loads(result.stdout)["values"]
    for r in range(1, 5):
        for c in range(1, 5):
            assert values[r][c] == written[((r, c),)], (r, c)
    assert values[0][3] == 3 and values[2][2] == 1  # a reduction gives 1 and 1


def test_solve_prints_the_reduction_apart_from_grundy():
    result = CliRunner().invoke(main, ["solve", "queens", "4,2;1,3"])
    assert result.exit_code == 0, result.output
    assert "grundy" not in result.stdout
    assert "reduction   2 (the reduction's value keeps the outcome, not the Grundy" in result.stdout
