"""The contract of games written in Python, as a hostile tester tried it (issue 35): reading a
stored game never imports its file, a changed file is named as changed, and a rule that leaves by
any side door (an exception of any kind, an exit, a cycle it did not declare) is one ``Error:``
line, a non-zero exit and an unchanged database, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
import sqlalchemy as sa

from explorer.games import pyspec
from tests.support.cli import run, run_json
from tests.support.environment import REPO
from tests.support.python_games import LOOPY, STONES_HEAP, stones_value, write
from tests.support.serve import start_server
from tests.support.storage import change_move, every_row, resolve_url


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fresh_run(*args: str) -> tuple[int, str, str]:
    """`run`, as a new process would: no file imported by an earlier command in this one."""
    pyspec._LOADED.clear()
    return run(*args)


#: Writes a file beside itself each time it is imported.
MARK = "\nopen(__file__ + '.imported', 'a').write('x')\n"


def test_reads_never_import_the_file(folder: Path, db_url: str) -> None:
    rules = write(folder, "stones.py", STONES_HEAP + MARK)
    walk = write(folder, "walk.py", LOOPY + MARK)
    spec = run_json("build", "py:stones.py", "6", "--db", db_url)["game"]
    loopy = run_json("build", "py:walk.py", "3", "--db", db_url)["game"]
    marks = [Path(f"{rules}.imported"), Path(f"{walk}.imported")]
    for mark in marks:
        mark.unlink()
    for args in (
        ("query", "py:stones.py", "6"),
        ("query", spec, "6"),
        ("query", spec, "6", "--successors"),
        ("query", spec, "--outcome", "P"),
        ("query", loopy, "2"),
        ("stats", "py:stones.py"),
        ("stats",),
        ("export", spec, "-o", "g.graphml"),
        ("export", spec, "--around", "6", "-o", "near.json"),
        ("verify", "--no-rules"),
        ("verify", spec, "--no-rules"),
    ):
        code, out, err = fresh_run(*args, "--db", db_url)
        assert code == 0, (args, out, err)
        assert not any(mark.exists() for mark in marks), args
    stored = f"py:{rules}:stones@{spec.rpartition('@')[2]}"  # the server runs elsewhere
    with start_server(db_url) as server:
        for path in (
            "/",
            f"/game?spec={quote(stored)}",
            f"/position?spec={quote(stored)}&p=6",
            f"/states?spec={quote(stored)}&outcome=P",
            f"/play?spec={quote(stored)}&p=6",
        ):
            assert server.request(path).status == 200, path
    assert not any(mark.exists() for mark in marks)


def test_a_changed_file_is_named_as_changed(folder: Path, db_url: str) -> None:
    rules = write(folder, "stones.py", STONES_HEAP)
    spec = run_json("build", "py:stones.py", "5", "--db", db_url)["game"]
    rules.write_text(STONES_HEAP + "\n# changed\n")
    fingerprint = spec.rpartition("@")[2]
    for args in (
        ("query", "py:stones.py", "5"),
        ("verify", "py:stones.py"),
        ("stats", "py:stones.py"),
    ):
        code, out, err = fresh_run(*args, "--db", db_url)
        assert code == 1, (args, out)
        assert err.startswith("Error: ") and err.count("\n") == 1, err
        assert "py:stones.py:stones changed since the build" in err, err
        assert f"fingerprint {fingerprint} then" in err and repr(spec) in err, err
        assert "not stored" in err  # under the new fingerprint: the old build is named
    assert run_json("query", spec, "5", "--db", db_url)["grundy"] == stones_value(5)


#: Ways out of a rule other than returning: each ends a build of 40 at position 30.
SIDE_DOORS = {
    "BaseException subclass": (
        "class Boom(BaseException):\n    pass\n",
        "raise Boom('boom')",
        "raised Boom: boom",
    ),
    "str() raises": (
        "class Odd(Exception):\n    def __str__(self):\n        raise ValueError('no')\n",
        "raise Odd()",
        "raised Odd: (its message cannot be written: str() raised ValueError)",
    ),
    "sys.exit(0)": ("", "sys.exit(0)", "called sys.exit(0)"),
    "sys.exit(1)": ("", "sys.exit(1)", "called sys.exit(1)"),
    "os._exit(0)": ("", "os._exit(0)", "called os._exit(0)"),
    "GeneratorExit": ("", "raise GeneratorExit", "raised GeneratorExit"),
}


def door_file(folder: Path, door: str) -> Path:
    head, exit_line, _ = SIDE_DOORS[door]
    return write(
        folder,
        "door.py",
        "import os\nimport sys\n\nimport explorer\n\n"
        + head
        + f"\n\n@explorer.game\ndef door(n):\n    if n == 30:\n        {exit_line}\n"
        "    return [n - 1, n - 2] if n > 1 else [0] if n else []\n",
    )


@pytest.mark.parametrize("door", SIDE_DOORS)
def test_a_rule_leaving_by_a_side_door_changes_nothing(
    folder: Path, db_url: str, door: str
) -> None:
    lines = door_file(folder, door).read_text().splitlines()
    line = 1 + next(i for i, text in enumerate(lines) if "n == 30" in text) + 1
    assert run("build", "nim", "2,3", "--db", db_url)[0] == 0
    before = every_row(db_url)
    for args in (("build", "py:door.py", "40", "--db", db_url), ("solve", "py:door.py", "40")):
        code, out, err = run(*args)  # os._exit would end this very process: it is refused
        assert code == 1, (args, out, err)
        assert err.startswith(f"Error: door.py, line {line}: rule 'door' ") and err.count("\n") == 1
        assert SIDE_DOORS[door][2] + " at position '30'" in err, err
    assert every_row(db_url) == before


@pytest.mark.parametrize("door", ["os._exit(0)", "sys.exit(0)"])
def test_an_exit_in_a_new_process_is_an_error_too(folder: Path, door: str) -> None:
    door_file(folder, door)
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "build", "py:door.py", "40", "--db", "d.db"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )
    assert done.returncode == 1 and done.stderr.startswith("Error: door.py, line 11:")
    rows = every_row(str(folder / "d.db"))
    assert rows and not any(rows[t] for t in rows if t != "alembic_version"), rows


CLASSES = {
    "needs arguments": (
        "def __init__(self, size):\n        self.size = size",
        "Stones() raised TypeError: Stones.__init__() missing 1 required positional argument",
    ),
    "raises": (
        "def __init__(self):\n        raise RuntimeError('no')",
        "Stones() raised RuntimeError: no",
    ),
    "exits": ("def __init__(self):\n        sys.exit(3)", "Stones() called sys.exit(3)"),
}


@pytest.mark.parametrize("kind", CLASSES)
def test_a_class_that_cannot_be_made_is_one_line(folder: Path, kind: str) -> None:
    init, expected = CLASSES[kind]
    write(
        folder,
        "cls.py",
        "import sys\n\nimport explorer\n\n\nclass Stones(explorer.Game):\n    "
        + init
        + "\n\n    def parse(self, text):\n        return int(text)\n\n"
        "    def format(self, n):\n        return str(n)\n\n"
        "    def successors(self, n):\n        return [n - 1] if n else []\n",
    )
    code, _, err = run("solve", "py:cls.py", "3")
    assert code == 1 and err.count("\n") == 1, err
    assert err.startswith("Error: 'Stones' in 'cls.py' cannot be made: ") and expected in err


def test_an_unhashable_position_from_a_parse_is_one_line(folder: Path, db_url: str) -> None:
    write(
        folder,
        "lists.py",
        "import explorer\n\n\nclass Lists(explorer.Game):\n"
        "    def parse(self, text):\n        return [int(text)]\n\n"
        "    def format(self, p):\n        return str(p[0])\n\n"
        "    def successors(self, p):\n        return [[p[0] - 1]] if p[0] else []\n",
    )
    before = every_row(db_url)
    for args in (("build", "py:lists.py", "4", "--db", db_url), ("solve", "py:lists.py", "4")):
        code, _, err = run(*args)
        assert code == 1 and err.count("\n") == 1, err
        assert "the parse of 'Lists' gave [4] for '4', a list, which is not hashable" in err
    assert every_row(db_url) == before


CYCLE = """\
import explorer


@explorer.game
def cycle(n):
    return {0: [1], 1: [2], 2: [1, 3], 3: []}[n]
"""


def test_a_cycle_the_rules_do_not_declare_is_refused(folder: Path, db_url: str) -> None:
    write(folder, "cycle.py", CYCLE)
    assert run("build", "nim", "2", "--db", db_url)[0] == 0
    before = every_row(db_url)
    code, out, err = run("build", "py:cycle.py", "0", "--db", db_url)
    assert code == 1 and err.count("\n") == 1 and "complete" not in out, (out, err)
    assert "says its play always ends, but its moves from '0' lead into a cycle" in err
    assert "acyclic=False" in err
    assert every_row(db_url) == before
    write(folder, "cycle.py", CYCLE.replace("@explorer.game", "@explorer.game(acyclic=False)"))
    built = run_json("build", "py:cycle.py", "0", "--db", db_url)
    assert (built["status"], built["grundy"], built["outcome"]) == ("complete", 1, "N")


def test_verify_finds_a_cycle_in_a_game_whose_play_ends(folder: Path, db_url: str) -> None:
    # a database written before builds refused undeclared cycles: its start has no value
    write(folder, "stones.py", STONES_HEAP)
    run_json("build", "py:stones.py", "3", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    with engine.begin() as conn:
        ids = dict(conn.execute(sa.text("SELECT key, id FROM states")).all())
        game = conn.execute(sa.text("SELECT game_id FROM states LIMIT 1")).scalar_one()
        conn.execute(
            sa.text(
                "UPDATE states SET grundy = NULL, outcome = NULL, remoteness = NULL, height = NULL"
            )
        )
    engine.dispose()
    change_move(db_url, game, ids["0"], ids["3"], add=True)
    for flags in ((), ("--no-rules",)):
        code, out, _ = run("verify", *flags, "--db", db_url)
        assert code == 1 and "its moves lead into a cycle" in out, out


LOUD = """\
import explorer

print("importing loud")


@explorer.heap_game
def loud(n):
    print("options of", n)
    return [n - 1, n - 2] if n > 1 else [0] if n else []
"""


def test_what_a_rule_prints_goes_to_standard_error(folder: Path, db_url: str) -> None:
    write(folder, "loud.py", LOUD)
    for args in (
        ("solve", "py:loud.py", "5"),
        ("explain", "py:loud.py", "5"),
        ("sequence", "py:loud.py", "--upto", "6"),
        ("build", "py:loud.py", "5", "--db", db_url),
    ):
        code, out, err = fresh_run(*args, "--json")
        assert code == 0, err
        json.loads(out)  # nothing of the rule's in it
        assert "options of" in err and "options of" not in out
    assert "importing loud" in fresh_run("solve", "py:loud.py", "5")[2]
