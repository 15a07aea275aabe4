"""The Python API takes what the command line takes: every function that takes a game and a
position takes a spec and a position text (a heap size for a heap game) as well as the objects,
and anything else is a clear `ArgumentTypeError` (an `ExplorerError` and a `TypeError`)."""

from __future__ import annotations

import re

import networkx as nx
import pytest

import explorer
from explorer import open_database
from explorer.errors import ArgumentTypeError, ExplorerError, PositionError, UnknownGameError
from explorer.viz import draw_game
from tests.support.bruteforce import heap_game_moves, mex_values
from tests.support.environment import REPO
from tests.support.heap_rules import octal

NIM = explorer.load_game("nim")
KAYLES = explorer.load_game("kayles")


#: Kayles' values by the definition, from the rules written again in the tests.
KAYLES_VALUES = mex_values((30,), heap_game_moves(octal("0.77")))


#: Each API function called with (spec, text), with the objects, and how to compare the answers.
CALLS = {
    "solve": (lambda g, p: explorer.solve(g, p).to_dict()),
    "explain": (lambda g, p: explorer.explain(g, p).to_dict()),
    "grundy_value": explorer.grundy_value,
    "grundy_values": explorer.grundy_values,
    "outcomes": explorer.outcomes,
    "remoteness": explorer.remoteness,
    "winning_moves": explorer.winning_moves,
    "build_graph": (lambda g, p: sorted(explorer.build_graph(g, p).edges)),
    "draw_game": (lambda g, p: (draw_game(g, p).nodes, draw_game(g, p).edges)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_spec_and_text_give_what_the_objects_give(name):
    call = CALLS[name]
    assert call("nim", "3,4,2") == call(NIM, NIM.parse("2,3,4"))
    assert call("kayles", 9) == call(KAYLES, (9,))
    assert call("octal:0.77", "9") == call(KAYLES, (9,))


def test_known_answers_from_texts():
    assert explorer.solve("nim", "3,4,5").winning_moves == ["1,4,5"]
    assert explorer.explain("nim", "1,4,5").grundy == 0
    for n in range(12):  # against the brute force of the tests, not the library's solver
        assert explorer.grundy_value("kayles", n) == KAYLES_VALUES[(n,) if n else ()]
    assert explorer.winning_moves("nim", "3,4,5") == [(1, 4, 5)]
    assert explorer.outcomes("nim", "1,1")[(1, 1)] == "P"
    assert explorer.remoteness("nim", "1,2")[(1, 2)] == 3
    assert explorer.grundy_values("nim", "1,2")[(1, 2)] == 3


def test_sequences_tables_quotients_and_databases_take_specs():
    assert explorer.value_sequence("kayles", 2000).period == 12
    assert explorer.value_sequence("kayles", 30).values.tolist() == [
        KAYLES_VALUES[(n,) if n else ()] for n in range(31)
    ]
    assert explorer.value_table("wythoff", 2, 3) == [[0, 1, 2], [1, 2, 0]]
    assert explorer.value_table("nim", 3, 3) == [[r ^ c for c in range(3)] for r in range(3)]
    assert explorer.misere_quotient("nim", 3).presentation == "T2"
    db = open_database("sqlite://")
    try:
        assert db.game("nim").build("3,4,5").states_new == 48
        assert db.game(NIM).state("5,4,3")["winning_moves"] == ["1,4,5"]
    finally:
        db.close()


WRONG_GAMES = [3, 2.5, None, ["nim"], NIM.parse("3,4")]
WRONG_POSITIONS = [2.5, None, [3, 4], {"heaps": 3}, True, b"3,4"]


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("game", WRONG_GAMES, ids=repr)
def test_a_wrong_game_is_an_argument_type_error(name, game):
    with pytest.raises(ArgumentTypeError, match=r"^a game is a spec such as 'nim'"):
        CALLS[name](game, "3,4")


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("position", WRONG_POSITIONS, ids=repr)
def test_a_wrong_position_is_an_argument_type_error(name, position):
    with pytest.raises(ArgumentTypeError, match=r"position") as raised:
        CALLS[name]("nim", position)
    assert isinstance(raised.value, ExplorerError) and isinstance(raised.value, TypeError)


@pytest.mark.parametrize(
    "call",
    [
        lambda: explorer.value_sequence(3.5, 10),
        lambda: explorer.value_sequence("kayles", "ten"),
        lambda: explorer.value_table(None, 2, 2),
        lambda: explorer.value_table("wythoff", 2.0, 2),
        lambda: explorer.misere_quotient(["nim"], 3),
        lambda: open_database("sqlite://").game(42),
        lambda: explorer.patterns(7),
        lambda: explorer.grundy_values("nim"),
        lambda: explorer.winning_moves("nim"),
        lambda: explorer.winning_moves(nx.DiGraph([(1, 0)]), "1"),
    ],
)
def test_other_functions_refuse_wrong_types_clearly(call):
    with pytest.raises(ArgumentTypeError):
        call()


def test_bad_texts_are_the_usual_errors():
    with pytest.raises(PositionError):
        explorer.solve("nim", "3,x")
    with pytest.raises(UnknownGameError):
        explorer.grundy_value("nmi", 3)


def test_the_readme_python_section_imports_only_from_explorer():
    text = (REPO / "README.md").read_text()
    section = text.split("## Python API and notebooks", 1)[1].split("\n## ", 1)[0]
    imports = re.findall(r"^>>> (?:from|import) (\S+)", section, re.M)
    assert imports and set(imports) == {"explorer"}, imports
