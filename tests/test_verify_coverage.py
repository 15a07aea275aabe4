"""`explorer verify` covers everything stored: counts, depths, escape sets, the moves and labels
of a game with cycles, misère values; and it raises no false alarm on a stopped build of a game
with cycles or on a file game named by a relative path.

Each damage is made with ``sqlite3`` in a copy of a database built once for the module; the
damaged copy must fail `verify --json` with the kind of damage named, the sound one pass.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import chdir, closing
from pathlib import Path

import pytest

from tests.support.cli import run
from tests.support.environment import REPO
from tests.support.storage import change_move

LOOPY = REPO / "data" / "loopy.json"
NOTE003 = REPO / "data" / "note003.json"

#: The games of the pre-built database, with their ids (in build order).
NIM, NIM_MISERE, WINDUP, GRAPH, DAG = 1, 2, 3, 4, 5


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding a game of each kind: rules, misère, with cycles, graph, DAG."""
    folder = tmp_path_factory.mktemp("built")
    shutil.copy(LOOPY, folder / "loopy.json")
    db = str(folder / "games.db")
    with chdir(folder):
        for args in (
            ("build", "nim", "3,4"),
            ("build", "nim", "3,3", "--misere"),
            ("build", "windup:7:1,3", "6"),
            ("import", "graph:loopy.json"),
            ("import", str(NOTE003)),
        ):
            code, _, err = run(*args, "--db", db)
            assert code == 0, (args, err)
    with closing(sqlite3.connect(db)) as conn:
        games = conn.execute("SELECT id, spec, convention FROM games ORDER BY id").fetchall()
    assert [(g[0], g[1].split("/")[-1], g[2]) for g in games] == [
        (NIM, "nim", "normal"),
        (NIM_MISERE, "nim", "misere"),
        (WINDUP, "windup:7:1,3", "normal"),
        (GRAPH, "loopy.json", "normal"),
        (DAG, "note003.json", "normal"),
    ]
    return folder


@pytest.fixture
def copy(built: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the pre-built database (with its graph file beside it), as the working folder."""
    shutil.copy(built / "games.db", tmp_path / "games.db")
    shutil.copy(built / "loopy.json", tmp_path / "loopy.json")
    with chdir(tmp_path):
        yield tmp_path / "games.db"


#: A move added or taken away (``+`` or ``-``): the game and the keys of its ends.
Move = tuple[str, int, str, str]


def damage(db: Path, *statements: str | Move) -> None:
    for statement in statements:
        if isinstance(statement, tuple):
            sign, game, src, dst = statement
            with closing(sqlite3.connect(db)) as conn:
                a, b = (conn.execute(state(game, k)[1:-1]).fetchone()[0] for k in (src, dst))
            change_move(str(db), game, a, b, add=sign == "+")
            continue
        with closing(sqlite3.connect(db)) as conn:
            changed = conn.execute(statement).rowcount
            assert changed > 0, statement  # a damage that changes nothing tests nothing
            conn.commit()


def verify(db: Path, *args: str) -> tuple[int, dict, str]:
    code, out, err = run("verify", *args, "--db", str(db), "--json", "--show", "1000")
    return code, json.loads(out), err


def state(game: int, key: str) -> str:
    return f"(SELECT id FROM states WHERE game_id = {game} AND key = '{key}')"


def mex(values: set[int]) -> int:
    return min(set(range(len(values) + 1)) - values)


def test_the_sound_database_verifies(copy: Path) -> None:
    code, result, err = verify(copy)
    assert code == 0, (result, err)
    assert result["problems"] == 0 and result["kinds"] == {}
    rules = {g["game"].split("/")[-1]: g["rules"] for g in result["games"]}
    assert rules["windup:7:1,3"] == "moves checked against the rules; labelled whole"


#: Damage -> the kinds of problem `verify` must name (and nothing else).
DAMAGES = {
    "a count changed": (
        [f"UPDATE state_counts SET count = count + 1 WHERE game_id = {NIM} AND kind = 'states'"],
        {"counts"},
    ),
    "a histogram count changed": (
        [
            "UPDATE state_counts SET count = count + 2 "
            f"WHERE game_id = {NIM} AND kind = 'grundy' AND value = '0'"
        ],
        {"counts"},
    ),
    "a count deleted": (
        [f"DELETE FROM state_counts WHERE game_id = {WINDUP} AND kind = 'outcome'"],
        {"counts"},
    ),
    "a count added": (
        [f"INSERT INTO state_counts VALUES ({GRAPH}, 'grundy', '9', 1)"],
        {"counts"},
    ),
    "a misère count changed": (
        [f"UPDATE state_counts SET count = 0 WHERE game_id = {NIM_MISERE} AND kind = 'edges'"],
        {"counts"},
    ),
    # the depth histogram moved along, so only the depth itself is wrong
    "a depth raised": (
        [
            f"UPDATE states SET depth = depth + 3 WHERE game_id = {NIM} AND key = '3,4'",
            f"UPDATE state_counts SET value = '3' WHERE game_id = {NIM} AND kind = 'depth' "
            "AND value = '0'",
        ],
        {"depth"},
    ),
    "a depth lowered to 0": (
        [
            f"UPDATE states SET depth = 0 WHERE game_id = {NIM} AND key = '1,1'",
            f"UPDATE state_counts SET count = count + 1 WHERE game_id = {NIM} AND kind = 'depth' "
            "AND value = '0'",
            f"UPDATE state_counts SET count = count - 1 WHERE game_id = {NIM} AND kind = 'depth' "
            "AND value = '2'",
        ],
        {"depth"},
    ),
    "a negative depth in a file game": (
        [f"UPDATE states SET depth = -5 WHERE game_id = {DAG} AND key = 't1'"],
        {"depth", "counts"},
    ),
    "an escape set on a normal game's state": (
        [f"UPDATE states SET escapes = '0' WHERE game_id = {NIM} AND key = '1,3'"],
        {"value"},
    ),
    "an escape set on a misère game's state": (
        [f"UPDATE states SET escapes = '' WHERE game_id = {NIM_MISERE} AND key = '0'"],
        {"value"},
    ),
    "a move added to windup": (
        [("+", WINDUP, "6", "0")],
        {"moves", "value", "counts"},
    ),
    "a move removed from windup": (
        [("-", WINDUP, "6", "5")],
        # 5 was found by 6 (depth 1 below it), and now has no move into it
        {"moves", "value", "counts", "depth"},
    ),
    "a windup label changed": (
        [f"UPDATE states SET escapes = '0,4' WHERE game_id = {WINDUP} AND escapes = '0'"],
        {"value", "counts"},
    ),
    "a misère value changed": (
        [f"UPDATE states SET grundy = 3 WHERE game_id = {NIM_MISERE} AND key = '3,3'"],
        {"grundy", "outcome", "counts"},
    ),
    "a misère terminal given the normal value": (
        [f"UPDATE states SET grundy = 0, outcome = 'P' WHERE game_id = {NIM_MISERE} AND key = '0'"],
        {"grundy", "remoteness", "counts"},
    ),
    "a cycle in a DAG game": (
        [("+", DAG, "t1", "c")],
        {"height", "grundy", "remoteness", "counts"},
    ),
}


@pytest.mark.parametrize("name", DAMAGES)
def test_each_damage_is_found_and_named(copy: Path, name: str) -> None:
    statements, kinds = DAMAGES[name]
    damage(copy, *statements)
    code, result, err = verify(copy)
    assert code == 1
    assert err.startswith("Error: ") and err.count("\n") == 1 and "Traceback" not in err
    found = set(result["kinds"])
    assert found and found <= kinds, found
    assert result["problems"] == sum(k["problems"] for k in result["kinds"].values())
    # the text report names each kind of damage in one line, with its first rows
    code, out, _ = run("verify", "--db", str(copy))
    lines = [line for line in out.splitlines() if line.startswith("  damage: ")]
    assert sorted(line.split(":")[1].strip() for line in lines) == sorted(found)


def test_a_misere_value_is_checked_by_the_misere_rule(copy: Path) -> None:
    """Every stored misère value, compared with a brute force of the misère rule over nim."""
    with closing(sqlite3.connect(copy)) as conn:
        rows = conn.execute(
            f"SELECT key, grundy FROM states WHERE game_id = {NIM_MISERE}"
        ).fetchall()
    memo: dict[tuple[int, ...], int] = {}

    def misere(heaps: tuple[int, ...]) -> int:
        if heaps not in memo:
            follow = {
                misere(tuple(sorted(heaps[:i] + (k,) + heaps[i + 1 :])))
                for i, h in enumerate(heaps)
                for k in range(h)
            }
            memo[heaps] = mex(follow) if follow else 1
        return memo[heaps]

    assert rows and all(misere(tuple(map(int, k.split(",")))) == g for k, g in rows)
    wrong = next(k for k, g in rows if g == 0)
    damage(
        copy, f"UPDATE states SET grundy = 2, outcome = 'N' WHERE game_id = 2 AND key = '{wrong}'"
    )
    code, result, _ = verify(copy, "nim", "--misere")
    assert code == 1
    assert any(m["position"] == wrong and m["check"] == "grundy" for m in result["mismatches"])


def test_a_stopped_build_of_a_game_with_cycles_verifies(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    code, out, _ = run("build", "windup:2000:1,3,7", "1999", "--max-states", "1000", "--db", db)
    assert code == 0 and "stopped at --max-states 1,000" in out
    code, result, err = verify(Path(db))
    assert code == 0, (result["mismatches"][:3], err)
    assert result["games"][0]["states"] >= 1000 and result["problems"] == 0
    # its moves are still checked against the rules
    damage(Path(db), ("-", 1, "1999", "1998"))
    code, result, _ = verify(Path(db))
    assert code == 1 and {"moves", "counts", "depth"} >= set(result["kinds"]) >= {"moves"}
    # and continued to the end, it is labelled whole and verifies again
    shutil.copy(tmp_path / "w.db", tmp_path / "v.db")
    db2 = str(tmp_path / "x.db")
    assert run("build", "windup:50:1,3", "49", "--max-states", "10", "--db", db2)[0] == 0
    assert verify(Path(db2))[0] == 0
    assert run("build", "windup:50:1,3", "49", "--db", db2)[0] == 0
    code, result, _ = verify(Path(db2))
    assert code == 0 and result["games"][0]["states"] == 50


def test_an_edited_graph_game_named_by_a_relative_path_verifies(copy: Path) -> None:
    shutil.copy(LOOPY, copy.parent / "mine.json")
    assert run("import", "graph:mine.json", "--db", str(copy))[0] == 0
    code, _, err = run("edit", "graph:mine.json", "--add-edge", "f", "t", "--db", str(copy))
    assert code == 0, err
    code, result, err = verify(copy, "graph:mine.json")
    assert code == 0, (result, err)
    assert [g["game"] for g in result["games"]] == [f"graph:{copy.parent / 'mine.json'}"]
    assert result["games"][0]["edges"] == 10
    code, result, _ = verify(copy, "graph:./mine.json")
    assert code == 0 and result["games"][0]["states"] == 7


def test_a_dag_game_stored_with_a_cycle_is_one_error_line(copy: Path) -> None:
    """A game stored as acyclic (a DAG file, or a graph file without cycles) given a cycle by
    hand: problems listed, never a traceback."""
    shutil.copy(NOTE003, copy.parent / "acyclic.json")
    assert run("import", "graph:acyclic.json", "--db", str(copy))[0] == 0
    with closing(sqlite3.connect(copy)) as conn:
        (graph,) = conn.execute(
            "SELECT id FROM games WHERE spec LIKE 'graph:%acyclic.json'"
        ).fetchone()
    damage(copy, ("+", graph, "t1", "b"), ("+", DAG, "a", "b"))
    for args in ((), (f"dag:{NOTE003}",), ("graph:acyclic.json",)):
        code, result, err = verify(copy, *args)
        assert code == 1 and err.startswith("Error: ") and "Traceback" not in err
        assert result["problems"] > 0


#: Damage to a heap game's moves or texts, which `verify` finds for a whole range of states at
#: once (`explorer.build.verify_ranges`), each state's moves regenerated by the build's own
#: expansion: the same problems as the rules found a state at a time.
HEAP_DAMAGES = {
    "a move added": [("+", NIM, "3,4", "0")],
    "a move removed": [("-", NIM, "3,4", "2,4")],
    "a move stored twice": [("+", NIM, "1,3", "1,1")],
    "a text not canonical": [
        f"UPDATE states SET key = '4,3' WHERE game_id = {NIM} AND key = '3,4'"
    ],
    "a zero heap in a text": [f"UPDATE states SET key = '0,3' WHERE game_id = {NIM} AND key = '3'"],
    "a text that is no position": [
        f"UPDATE states SET key = 'x' WHERE game_id = {NIM} AND key = '2,2'"
    ],
    "a successor's text changed": [
        f"UPDATE states SET key = '1,9' WHERE game_id = {NIM} AND key = '1,4'"
    ],
}


@pytest.mark.parametrize("name", [None, *HEAP_DAMAGES])
def test_a_heap_games_moves_checked_at_once_are_checked_as_one_by_one(
    copy: Path, name: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from explorer import open_database
    from explorer.build import verify_ranges
    from explorer.build.verify import verify_database

    if name is not None:
        damage(copy, *HEAP_DAMAGES[name])

    def found() -> dict:
        with open_database(str(copy)) as db:
            return verify_database(db.engine, show=1000).to_dict()

    at_once = found()
    # no state agrees at once: every state's moves checked against the rules one by one
    monkeypatch.setattr(verify_ranges, "_agreeing", lambda r, states, rules: states < 0)
    assert found() == at_once
    assert at_once["ok"] == (name is None)
    if name is not None:
        assert {"moves", "rules"} & set(at_once["kinds"]), at_once["kinds"]
