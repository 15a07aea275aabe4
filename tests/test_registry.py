"""One conformance test over every registered family (every entry must bring an example)."""

from __future__ import annotations

import pytest

from explorer import build_graph, load_game, solve
from explorer.errors import SpecError
from explorer.games import FAMILIES, Game, families
from tests.support.cli import run_json
from tests.support.environment import REPO


@pytest.mark.parametrize(("name", "cls"), families(), ids=[n for n, _ in families()])
def test_every_family_conforms(name, cls, monkeypatch):
    monkeypatch.chdir(REPO)  # examples name files under data/
    spec, text = cls.example
    # the name a user types first in the example the family's author wrote (a sum: its "+")
    assert cls.family == name == ("sum" if " + " in spec else spec.partition(":")[0])
    assert cls.position_syntax and cls.summary and cls.parameters
    game = load_game(spec)
    assert load_game(game.spec).spec == game.spec  # canonical spec is a fixed point
    position = game.parse(text)
    canonical = game.format(position)
    assert game.parse(canonical) == position  # parse(format(p)) == p
    assert game.format(game.parse(canonical)) == canonical
    hash(position)
    assert list(game.successors(position)) == list(game.successors(position))
    graph = build_graph(game, position, max_states=100_000)
    for node in graph:
        assert game.parse(game.format(node)) == node
    whole = solve(game, position, method="graph")
    fast = solve(game, position)
    assert whole.outcome == fast.outcome
    assert run_json("solve", spec, text)["position"] == canonical


def test_aliases_resolve_to_octal_codes():
    assert load_game("kayles").spec == "octal:0.77"
    assert load_game("dawson").spec == "octal:0.07"


def test_every_family_builds_itself_from_its_spec(monkeypatch):
    monkeypatch.chdir(REPO)  # examples name files under data/
    for name, cls in FAMILIES.items():
        # a family with parameters reads them itself; one without takes the base's refusal
        own = cls.from_parameters.__func__ is not Game.from_parameters.__func__
        assert own == (cls.parameters != "none"), name
        if cls.parameters == "none":
            with pytest.raises(SpecError, match=f"^{name} takes no parameter, got '1'"):
                load_game(f"{name}:1")
        spec, _ = cls.example
        game = load_game(spec)
        assert type(game) is cls, spec
        assert game.spec.partition(":")[0] == name, spec
