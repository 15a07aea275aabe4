"""Games written in Python (``py:`` specs): the three forms agree with a brute force, every
command works on them, a stored one is named by its file's fingerprint, and reading a stored
one never runs its code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import explorer
from explorer import open_database
from explorer.games.position_text import format_position, parse_position
from tests.support.bruteforce import plain_retrograde
from tests.support.cli import run, run_json
from tests.support.python_games import (
    LOOPY,
    STONES_CLASS,
    STONES_GAME,
    STONES_HEAP,
    STONES_VALUES,
    misere_outcome,
    stones_value,
    write,
)

FORMS = {"heap": STONES_HEAP, "game": STONES_GAME, "class": STONES_CLASS}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def stones(folder: Path) -> str:
    write(folder, "stones.py", STONES_HEAP)
    return "py:stones.py"


def test_the_example_is_five_lines() -> None:
    assert len(STONES_HEAP.splitlines()) == 5


def test_sequence_of_the_five_line_file(stones: str) -> None:
    assert [stones_value(n) for n in range(20)] == STONES_VALUES
    result = run_json("sequence", stones, "--upto", "19")
    assert result["values"] == STONES_VALUES
    assert not result["proven"]
    code, out, _ = run("sequence", stones, "--upto", "19")
    assert code == 0
    assert "0   1   2   0   3   4   0   2   1   3   4   0   5   1   2   4   3   5   0   2" in out


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("position", ["0", "7", "3,5", "2,6,9", "1,1,4"])
def test_three_forms_agree_with_the_brute_force(folder: Path, form: str, position: str) -> None:
    write(folder, "mine.py", FORMS[form])
    heaps = [int(h) for h in position.split(",")]
    expected = 0
    for h in heaps:
        expected ^= stones_value(h)
    result = run_json("solve", "py:mine.py", position)
    assert result["grundy"] == expected
    assert result["outcome"] == ("P" if expected == 0 else "N")


@pytest.mark.slow  # hypothesis: a build per example
@given(heaps=st.lists(st.integers(0, 9), min_size=1, max_size=3))
def test_function_of_positions_is_the_xor_of_heaps(heaps: list[int]) -> None:
    @explorer.game
    def stones(p: tuple[int, ...] | int) -> list[object]:
        parts = p if isinstance(p, tuple) else (p,)
        moves = []
        for i, h in enumerate(parts):
            rest = parts[:i] + parts[i + 1 :]
            options = [(h - k,) for k in (1, 2, 4) if k <= h]
            options += [(a, h - a) for a in range(1, h) if 2 * a < h]
            for option in options:
                new = tuple(sorted(rest + tuple(x for x in option if x)))
                moves.append(new[0] if len(new) == 1 else new)
        return moves

    kept = tuple(sorted(h for h in heaps if h))
    position = kept[0] if len(kept) == 1 else kept
    expected = 0
    for h in heaps:
        expected ^= stones_value(h)
    assert explorer.solve(stones, position).grundy == expected


positions = st.recursive(
    st.integers(-50, 10**6)
    | st.text("abcXYZ_-+", min_size=1).filter(lambda s: not s.lstrip("-").isdigit()),
    lambda inner: st.lists(inner, max_size=4).map(tuple),
    max_leaves=12,
)


@given(positions)
def test_text_of_positions_reads_back(position: object) -> None:
    text = format_position(position)
    assert parse_position(text) == position
    assert format_position(parse_position(text)) == text


@pytest.mark.parametrize(
    ("text", "position"),
    [("5", 5), ("3,5", (3, 5)), ("(1,2),(3,)", ((1, 2), (3,))), ("L,R", ("L", "R")), ("()", ())],
)
def test_positions_are_written_the_obvious_way(text: str, position: object) -> None:
    assert parse_position(text) == position
    assert format_position(position) == text


def test_parse_and_format_override(folder: Path) -> None:
    write(
        folder,
        "words.py",
        """\
        import explorer

        @explorer.game(example="abc", parse=lambda t: frozenset(t.strip()) - {"-"},
                       format=lambda p: "".join(sorted(p)) or "-")
        def letters(p):
            return [p - {c} for c in p]
        """,
    )
    result = run_json("solve", "py:words.py", "cab")
    assert result["position"] == "abc"
    assert result["grundy"] == 1  # three letters, one removed at a time: Nim heap of 3 -> 1


def test_explain_table_and_plot(stones: str, folder: Path) -> None:
    code, out, err = run("explain", stones, "3,5")
    assert code == 0, err
    assert "XOR" in out or "xor" in out.lower()
    table = run_json("table", stones, "--rows", "4", "--cols", "4")
    cells = table["values"] if isinstance(table, dict) else table
    assert cells[2][3] == stones_value(2) ^ stones_value(3)
    code, _, err = run("plot", "sequence", stones, "--upto", "40", "-o", "seq.svg")
    assert code == 0, err
    assert (folder / "seq.svg").read_text().lstrip().startswith("<")


def test_viz_and_diff(stones: str, folder: Path) -> None:
    code, _, err = run("viz", stones, "6", "-o", "stones.html")
    assert code == 0, err
    assert "6" in (folder / "stones.html").read_text()
    result = run_json("diff", stones, "octal:0.33", "--upto", "12")
    differ = {row["position"] for row in result["differences"]}
    expected = {str(n) for n in range(13) if stones_value(n) != n % 3}
    assert differ == expected


def test_misere_and_sums(stones: str) -> None:
    for heaps in [(1,), (3,), (2, 5), (1, 1, 6)]:
        text = ",".join(map(str, heaps))
        misere = run_json("solve", stones, text, "--misere")
        assert misere["outcome"] == misere_outcome(heaps)
    total = run_json("solve", f"{stones} + nim", "3,5 + 2")
    assert total["grundy"] == stones_value(3) ^ stones_value(5) ^ 2
    for move in total["winning_moves"]:
        assert run_json("solve", f"{stones} + nim", move)["grundy"] == 0


def walk_outcomes() -> dict[int, str]:
    """Outcomes of the walk on 0..4 by retrograde analysis, its moves written here from the
    rules."""
    moves = [[m for m in (n - 1, n + 1) if 0 <= m <= 4] if n else [] for n in range(5)]
    return dict(enumerate(plain_retrograde(moves)))


def test_games_whose_play_loops(folder: Path, db_url: str) -> None:
    write(folder, "walk.py", LOOPY)
    expected = walk_outcomes()
    assert expected[2] == "D"  # the game really loops
    for n in range(5):
        assert run_json("solve", "py:walk.py", str(n))["outcome"] == expected[n]
    built = run_json("build", "py:walk.py", "3", "--db", db_url)
    assert built["outcome"] == expected[3]
    for n in range(5):
        assert run_json("query", "py:walk.py", str(n), "--db", db_url)["outcome"] == expected[n]
    assert run_json("verify", "--db", db_url)["ok"]


def test_stored_commands(stones: str, folder: Path, db_url: str) -> None:
    built = run_json("build", stones, "3,5", "--db", db_url)
    assert built["status"] == "complete"
    assert built["grundy"] == stones_value(3) ^ stones_value(5)
    assert built["game"].startswith("py:stones.py:stones@")
    state = run_json("query", stones, "5,3", "--db", db_url)
    assert state["grundy"] == built["grundy"]
    stats = run_json("stats", stones, "--db", db_url)
    assert stats["states"] == built["states_new"]
    code, _, err = run("export", stones, "--db", db_url, "-o", str(folder / "g.json"))
    assert code == 0, err
    exported = json.loads((folder / "g.json").read_text())
    assert len(exported["nodes"]) == built["states_new"]
    verified = run_json("verify", "--db", db_url)
    assert verified["ok"]
    assert "moves checked against the rules" in verified["games"][0]["rules"]
    misere = run_json("build", stones, "3,5", "--misere", "--db", db_url)
    assert misere["outcome"] == misere_outcome((3, 5))
    for heaps in [(1,), (2, 2), (5,), (1, 2, 3)]:
        text = ",".join(map(str, heaps))
        state = run_json("query", stones, text, "--misere", "--db", db_url)
        assert state["outcome"] == misere_outcome(heaps)


MARKED = STONES_HEAP + "open('imported.txt', 'a').write('x')\n"


def test_reading_never_runs_the_code(folder: Path, db_url: str) -> None:
    write(folder, "stones.py", MARKED)
    spec = run_json("build", "py:stones.py", "6", "--db", db_url)["game"]
    (folder / "imported.txt").unlink()
    for args in (
        ("query", "py:stones.py", "6"),
        ("query", spec, "6"),
        ("stats", "py:stones.py"),
        ("stats",),
        ("export", "py:stones.py", "-o", "g.graphml"),
    ):
        code, _, err = run(*args, "--db", db_url)
        assert code == 0, (args, err)
    assert not (folder / "imported.txt").exists()
    (folder / "stones.py").unlink()
    assert run_json("query", "py:stones.py", "6", "--db", db_url)["grundy"] == stones_value(6)
    assert run_json("query", spec, "6", "--db", db_url)["grundy"] == stones_value(6)
    code, _, err = run("export", "py:stones.py", "-o", "gone.graphml", "--db", db_url)
    assert code == 0, err


def test_a_changed_file_is_a_new_game(folder: Path, db_url: str) -> None:
    path = write(folder, "stones.py", STONES_HEAP)
    first = run_json("build", "py:stones.py", "5", "--db", db_url)
    path.write_text(STONES_HEAP.replace("(1, 2, 4)", "(1, 2, 3)"))
    second = run_json("build", "py:stones.py", "5", "--db", db_url)
    assert first["game"] != second["game"]
    assert second["states_reused"] == 0  # never mixed with the old game's rows
    games = {g["game"] for g in run_json("stats", "--db", db_url)}
    assert {first["game"], second["game"]} <= games
    assert run_json("query", first["game"], "5", "--db", db_url)["grundy"] == stones_value(5)
    code, out, _ = run("verify", "--db", db_url)
    assert code == 1
    assert "py:stones.py:stones changed since the build" in out
    fingerprint = first["game"].rpartition("@")[2]
    assert f"fingerprint {fingerprint} then" in out
    path.unlink()  # gone: the name alone is now ambiguous
    code, _, err = run("query", "py:stones.py", "5", "--db", db_url)
    assert code == 1 and "names 2 stored games" in err


def test_names_modules_and_several_games(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(folder, "two.py", STONES_HEAP + LOOPY.replace("import explorer\n", ""))
    code, _, err = run("solve", "py:two.py", "3")
    assert code == 1
    assert "defines 2 games" in err and "py:two.py:stones" in err
    assert run_json("solve", "py:two.py:walk", "1")["outcome"] == "N"
    package = folder / "rules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    write(package, "heaps.py", STONES_HEAP)
    monkeypatch.syspath_prepend(str(folder))
    result = run_json("solve", "py:rules.heaps:stones", "7")
    assert result["grundy"] == stones_value(7)
    assert result["game"].startswith("py:rules.heaps:stones@")


def test_only_the_named_file_is_imported(folder: Path) -> None:
    write(folder, "stones.py", STONES_HEAP)
    write(folder, "other.py", "open('other-ran.txt', 'w')\n")
    assert run_json("solve", "py:stones.py", "4")["grundy"] == stones_value(4)
    assert not (folder / "other-ran.txt").exists()


def test_a_game_written_in_a_notebook_is_stored(db_url: str) -> None:
    @explorer.heap_game
    def stones(n: int) -> list[object]:
        return [n - k for k in (1, 2, 4) if k <= n] + [(a, n - a) for a in range(1, n) if 2 * a < n]

    assert explorer.value_sequence(stones, 19).values.tolist() == STONES_VALUES
    db = open_database(db_url)
    try:
        report = db.game(stones).build("3,5")
        assert report.grundy == stones_value(3) ^ stones_value(5)
        assert db.game(stones.spec).state("3,5")["grundy"] == report.grundy
    finally:
        db.close()


def test_stored_sequence_and_drawing(stones: str, folder: Path, db_url: str) -> None:
    stored = run_json("sequence", stones, "--upto", "40", "--db", db_url)
    assert stored["values"] == [stones_value(n) for n in range(41)]
    again = run_json("sequence", stones, "--upto", "40", "--db", db_url)
    assert again["method"] == "stored"
    run_json("build", stones, "4,5", "--db", db_url)
    code, _, err = run("viz", stones, "4,5", "--db", db_url, "-o", "near.html")
    assert code == 0, err
    assert "4,5" in (folder / "near.html").read_text()
