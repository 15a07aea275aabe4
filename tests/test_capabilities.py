"""A family opts in to what the analysis knows through capabilities on `Game`, never by its
class: a user's family registered with `register_game` loads by name, and its capabilities
(Nim heaps for misère play, a value table, a heap game, cycles) are used as the built-in ones'.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import explorer.games as games
from explorer import load_game, open_database, value_sequence, value_table
from explorer.analysis.memo import GRAPH_MEMO, GraphMemo
from explorer.analysis.misere import misere_solution as solve_misere
from explorer.analysis.solving import solve
from explorer.errors import PositionError, SpecError
from explorer.games import Game, may_cycle, register_game
from explorer.games.base import NimHeaps, TableProgress, natural_number, parse_int_list
from explorer.games.heaps import HeapGame
from tests.support.bruteforce import heap_game_moves, mex_values, solve_by_definition
from tests.support.strategies import fraction_of_examples


@pytest.fixture
def registry(monkeypatch):
    """FAMILIES as it is, given back after the test (registering is for the whole process)."""
    monkeypatch.setattr(games, "FAMILIES", dict(games.FAMILIES))
    return games.FAMILIES


class Tokens(Game[tuple[int, ...]]):
    """Nim written again, not as a subclass: take any number of tokens from one heap."""

    family = "tokens"
    position_syntax = "heap sizes a,b,c"
    example = ("tokens", "1,2")
    summary = "Nim, written again"

    def parse(self, text: str) -> tuple[int, ...]:
        heaps = parse_int_list(text, what=self.position_syntax, game=self.spec)
        return tuple(sorted(h for h in heaps if h))

    def format(self, position: tuple[int, ...]) -> str:
        return ",".join(map(str, position)) or "0"

    def successors(self, position: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        for i, h in enumerate(position):
            for k in range(h):
                yield tuple(sorted(position[:i] + ((k,) if k else ()) + position[i + 1 :]))


class NimTokens(Tokens):
    """The same rules, saying that its positions are Nim heaps."""

    family = "nim-tokens"

    def nim_heaps(self, position: tuple[int, ...]) -> NimHeaps:
        return NimHeaps(list(position), lambda heaps: tuple(sorted(h for h in heaps if h)))


def test_a_registered_family_loads_by_name_with_the_defaults(registry):
    register_game(Tokens)
    game = load_game(" Tokens ")
    assert type(game) is Tokens and game.spec == "tokens"  # the family name, by default
    assert load_game("tokens + nim").spec == "tokens + nim"
    assert solve(game, game.parse("1,2,3")).outcome == "P"  # 1 ^ 2 ^ 3 = 0
    with pytest.raises(SpecError, match=r"^tokens takes no parameter, got '3' \(use just"):
        load_game("tokens:3")
    assert register_game(Tokens) is Tokens  # once more: nothing changes
    assert list(registry).count("tokens") == 1


@pytest.mark.parametrize(
    ("family", "message"),
    [
        ("nim", r"game family 'nim' is taken already \(by Nim\)"),
        ("kayles", r"game family 'kayles' is taken already \(by an alias of octal:0.77\)"),
        ("Tokens", r"bad family name 'Tokens' for Renamed"),
        ("sum", r"bad family name 'sum' for Renamed"),
        ("two words", r"bad family name 'two words' for Renamed"),
    ],
)
def test_register_game_refuses_a_name_it_cannot_give(registry, family, message):
    renamed = type("Renamed", (Tokens,), {"family": family})
    before = dict(registry)
    with pytest.raises(SpecError, match=message):
        register_game(renamed)
    assert registry == before


def test_register_game_asks_for_what_explorer_games_lists(registry):
    bare = type("Bare", (Game,), {"family": "bare", "position_syntax": "a number"})
    with pytest.raises(SpecError, match=r"^Bare does not set example \(explorer games lists"):
        register_game(bare)
    assert "bare" not in registry


def misere_outcome_by_definition(position: tuple[int, ...]) -> str:
    """Misère: whoever cannot move has won (the opponent moved last), so a terminal
    position is N; otherwise N when some move reaches a P-position."""
    nim = heap_game_moves(lambda h: (((k,) if k else ()) for k in range(h)))
    won = solve_by_definition(position, nim, lambda options: int(not options or 0 in options))
    return "N" if won[position] else "P"


@settings(max_examples=fraction_of_examples(0.5))
@given(st.lists(st.integers(0, 4), min_size=1, max_size=4))
def test_a_family_that_gives_nim_heaps_gets_bouton_s_misere_rule(heaps):
    game = NimTokens()
    position = game.parse(",".join(map(str, heaps)))
    solution = solve_misere(game, position, method="decompose")
    assert solution.method == "bouton"
    assert solution.outcome == misere_outcome_by_definition(position)
    for move in solution.winning_moves:
        assert misere_outcome_by_definition(game.parse(move)) == "P"
    with pytest.raises(SpecError, match="misère play has no decomposition for tokens"):
        solve_misere(Tokens(), position, method="decompose")  # no capability, no shortcut


def test_a_sum_gives_nim_heaps_when_every_part_does():
    game = load_game("nim + nim")
    found = game.nim_heaps(((1, 2), (3,)))
    assert found is not None and found.heaps == [1, 2, 3]
    assert found.rebuild([1, 0, 2]) == ((1,), (2,))
    assert load_game("nim + kayles").nim_heaps(((1,), (2,))) is None
    assert load_game("kayles").nim_heaps((1, 2)) is None  # the same heaps, other rules


class Corners(Game[tuple[int, int]]):
    """A board whose cells are no positions (each parse fails) but whose table is known."""

    family = "corners"
    position_syntax = "none"
    example = ("corners", "0,0")

    def parse(self, text: str) -> tuple[int, int]:
        raise SpecError(f"no position {text!r}")

    def format(self, position: tuple[int, int]) -> str:
        return ",".join(map(str, position))

    def successors(self, position: tuple[int, int]) -> Iterator[tuple[int, int]]:
        return iter(())

    def value_table(
        self, rows: int, cols: int, progress: TableProgress | None = None
    ) -> list[list[int | None]]:
        return [[r ^ c for c in range(cols)] for r in range(rows)]


def test_value_table_asks_the_game_for_its_table_first():
    assert value_table(Corners(), 3, 2) == [[0, 1], [1, 0], [2, 3]]
    assert value_table(Tokens(), 3, 4) == [[r ^ c for c in range(4)] for r in range(3)]  # graphs
    with pytest.raises(SpecError, match="clock has no two-coordinate positions"):
        value_table(Clock(), 2, 2)  # no table, and "r,c" is no position
    # Wythoff's own table is the mex over its moves, cell by cell
    moves = {
        (r, c): [(r - k, c) for k in range(1, r + 1)]
        + [(r, c - k) for k in range(1, c + 1)]
        + [(r - k, c - k) for k in range(1, min(r, c) + 1)]
        for r in range(9)
        for c in range(7)
    }
    by_definition = mex_values((8, 6), lambda p: moves[p])
    table = value_table(load_game("wythoff"), 9, 7)
    assert table == [[by_definition[(r, c)] for c in range(7)] for r in range(9)]


class TakeOneOrThree(HeapGame):
    """A heap game of the user's: take 1 or 3 from a heap."""

    family = "one-or-three"
    example = ("one-or-three", "4,5")
    summary = "take 1 or 3"
    splits = False

    def heap_moves(self, heap: int) -> Iterator[tuple[int, ...]]:
        for k in (1, 3):
            if k <= heap:
                yield (heap - k,) if heap > k else ()


def test_a_heap_game_of_the_user_gets_sequences_and_tables(registry):
    register_game(TakeOneOrThree)
    game = load_game("one-or-three")
    assert game.heap_rules() is game and Tokens().heap_rules() is None
    moves = heap_game_moves(TakeOneOrThree().heap_moves)
    expected = [mex_values((n,) if n else (), moves)[(n,) if n else ()] for n in range(40)]
    assert value_sequence(game, 39).values.tolist() == expected  # period 2: 0, 1, 0, 1, ...
    table = value_table(game, 5, 6)
    assert table == [[expected[r] ^ expected[c] for c in range(6)] for r in range(5)]


class TakeOneOrThreeInWords(TakeOneOrThree):
    """`TakeOneOrThree` with its heaps written ``3+4`` (its own keys, not a heap game's)."""

    family = "one-or-three-words"
    example = ("one-or-three-words", "4+5")

    def parse(self, text: str) -> tuple[int, ...]:
        return tuple(sorted(h for h in map(int, text.split("+")) if h))

    def format(self, position: tuple[int, ...]) -> str:
        return "+".join(map(str, position)) or "0"


def test_a_heap_game_writing_its_own_keys_builds_with_them(tmp_path):
    assert TakeOneOrThree.plain_keys and not TakeOneOrThreeInWords.plain_keys
    db = open_database(f"sqlite:///{tmp_path / 'words.db'}")
    stored = db.game(TakeOneOrThreeInWords())
    assert stored.build("4+5").grundy == 1  # G(4) xor G(5): the values go 0, 1, 0, 1, ...
    keys = [s["position"] for s in stored.states(limit=100)["states"]]
    assert "4+5" in keys and "3+5" in keys and not any("," in key for key in keys)
    db.close()


class Clock(Game[int]):
    """Hours on a clock of 3: move one hour on; play never ends."""

    family = "clock"
    position_syntax = "an hour 0..2"
    example = ("clock", "0")

    def parse(self, text: str) -> int:
        hour = natural_number(text.strip(), context="clock")
        if hour is None or hour > 2:
            raise PositionError(f"bad hour {text!r} for clock (expected 0, 1 or 2)")
        return hour

    def format(self, position: int) -> str:
        return str(position)

    def successors(self, position: int) -> Iterator[int]:
        yield (position + 1) % 3

    def may_cycle(self) -> bool:
        return True


def test_may_cycle_is_the_game_s_own_word_and_a_sum_s_parts(registry):
    register_game(Clock)
    assert may_cycle(load_game("clock")) and may_cycle(load_game("nim + clock"))
    assert not may_cycle(load_game("nim + kayles"))
    assert may_cycle(load_game("windup:5:1,3")) and may_cycle(load_game("graph:data/loopy.json"))
    assert solve(Clock(), 0).outcome == "D"  # the value is infinite: a draw


# -- the memo of values solved from graphs ------------------------------------------------------


def test_solving_writes_nothing_into_the_game_and_games_of_one_spec_share_the_memo():
    first, second = load_game("chomp"), load_game("chomp")
    attributes = dict(vars(first))
    position = first.parse("3,3,2")
    value = solve(first, position).grundy
    assert vars(first) == attributes
    assert GRAPH_MEMO.value(second.spec, second.parse("3,3,2")) == value


@settings(max_examples=fraction_of_examples(1.0))
@given(
    st.integers(1, 12),
    st.lists(
        st.tuples(st.sampled_from("abcd"), st.sets(st.integers(0, 20), max_size=15)), max_size=12
    ),
)
def test_the_memo_stays_within_its_bound_and_keeps_the_graph_just_added(bound, graphs):
    memo = GraphMemo(max_positions=bound)
    model: dict[str, dict[int, int]] = {}  # what each game may still hold
    for spec, positions in graphs:
        values = {p: p % 7 for p in positions}
        memo.remember(spec, values, {p: (1, None) for p in positions})
        model.setdefault(spec, {}).update(values)
        for p in positions:  # the graph just added is there whole, labels too
            assert memo.value(spec, p) == p % 7 and memo.label(spec, p) == (1, None)
        held = {s: [p for p in model[s] if memo.value(s, p) is not None] for s in model}
        assert len(memo) == sum(map(len, held.values()))
        assert len(memo) <= max(bound, len(held[spec]))  # over only by the one game in use
        assert len(held[spec]) >= len(values)
        for s, kept in held.items():  # nothing is invented
            assert all(memo.value(s, p) == model[s][p] for p in kept)


def test_memo_forgets_the_game_used_least_recently():
    memo = GraphMemo(max_positions=4)
    memo.remember("a", {1: 1, 2: 2})
    memo.remember("b", {1: 0, 2: 0})
    assert memo.value("a", 1) == 1  # a is now the most recent
    memo.remember("c", {5: 5})
    assert memo.value("b", 1) is None and memo.value("a", 2) == 2 and memo.value("c", 5) == 5
    memo.remember("a", {n: n for n in range(3, 6)})  # a would hold 5 > 4: it starts again
    assert [memo.value("a", n) for n in range(1, 6)] == [None, None, 3, 4, 5]
    assert memo.value("c", 5) == 5 and len(memo) == 4  # 3 of a and c's one fit
    memo.remember("b", {7: 7})  # a is used least recently now
    assert memo.value("a", 3) is None and len(memo) == 2


def _game_classes() -> dict[str, type]:
    """Every subclass of `Game` that explorer's game modules define, by name."""
    import importlib
    import inspect
    import pkgutil

    for module in pkgutil.iter_modules(games.__path__):
        importlib.import_module(f"explorer.games.{module.name}")
    found: dict[str, type] = {}
    stack: list[type] = [Game]
    while stack:
        for subclass in stack.pop().__subclasses__():
            if subclass.__module__.startswith("explorer.") and not inspect.isabstract(subclass):
                found[subclass.__name__] = subclass
            stack.append(subclass)
    return found


def _names(tree: ast.AST) -> set[str]:
    """The names a module's code uses (docstrings and comments aside)."""
    return {
        node.id if isinstance(node, ast.Name) else node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Name | ast.Attribute)
    }


def test_the_base_imports_no_family_and_names_no_subclass():
    base = Path(games.__file__).with_name("base.py")
    tree = ast.parse(base.read_text())
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("explorer.games")
    }
    classes = _game_classes()
    families = {cls.__module__ for cls in classes.values()}
    assert imported and not imported & families  # TYPE_CHECKING imports included
    assert not _names(tree) & (set(classes) - {"Game"})


def test_no_code_outside_the_games_asks_a_game_its_class():
    classes = set(_game_classes()) - {"Game"}
    package = Path(games.__file__).parents[1]
    asked = []
    for path in sorted(package.rglob("*.py")):
        if path.parent.name == "games":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass", "type")
                and _names(ast.Module(body=[ast.Expr(a) for a in node.args], type_ignores=[]))
                & classes
            ):
                asked.append(f"{path.relative_to(package)}:{node.lineno}")
    assert asked == []
