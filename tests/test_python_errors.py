"""A bug in a user's Python rules is one ``Error:`` line naming the file, the line and the
position, exit status 1, and the database left exactly as it was, row for row."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import open_database
from explorer.errors import RuleError
from tests.support.cli import run
from tests.support.python_games import STONES_HEAP, write
from tests.support.storage import every_row

#: Each bug: the file, what the error line must hold, and the position to build.
BUGS = {
    "raises": (
        """\
        import explorer

        @explorer.heap_game
        def bug(n):
            yield from (n - k for k in (1, 2) if k <= n)
            if n == 4:
                raise ValueError("no four")
        """,
        ["bug.py, line 7:", "raised ValueError: no four", "at position '4'"],
        "6",
    ),
    "syntax": (
        """\
        import explorer

        @explorer.game
        def bug(p:
            return []
        """,
        ["bug.py, line 4:", "syntax error"],
        "3",
    ),
    "unhashable": (
        """\
        import explorer

        @explorer.game
        def bug(n):
            return [[n - 1]] if n == 2 else [n - 1] if n else []
        """,
        ["bug.py, line 4:", "at position '2'", "[1] is a list", "use a tuple"],
        "5",
    ),
    "wrong type": (
        """\
        import explorer

        @explorer.game
        def bug(n):
            return [n / 2] if n == 3 else [n - 1] if n else []
        """,
        ["bug.py, line 4:", "at position '3'", "1.5 is a float"],
        "5",
    ),
    "unwritable string": (
        """\
        import explorer

        @explorer.game
        def bug(p):
            return ["a,b"] if p == "go" else []
        """,
        ["bug.py, line 4:", "at position 'go'", "cannot be written as a position"],
        "go",
    ),
    "unparseable text": (
        """\
        import explorer

        @explorer.game(parse=int, format=lambda n: str(n % 10))
        def bug(n):
            return [n + 7] if n < 5 else []
        """,
        ["bug.py, line 4:", "at position '3'", "reads back as 0"],
        "3",
    ),
    "never ends": (
        """\
        import itertools
        import explorer

        @explorer.game(max_moves=1000)
        def bug(n):
            yield from itertools.count(n + 1) if n == 1 else ()
        """,
        ["bug.py, line 5:", "more than 1,000 moves", "at position '1'", "max_moves=N"],
        "1",
    ),
    "answers differently": (
        """\
        import explorer

        calls = []

        @explorer.game
        def bug(n):
            calls.append(n)
            return [n - 1] * (len(calls) % 2 + 1) if n else []
        """,
        ["bug.py, line 6:", "answered differently", "at position '3'"],
        "3",
    ),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("bug", BUGS)
def test_a_bug_is_one_line_and_nothing_changes(folder: Path, db_url: str, bug: str) -> None:
    text, expected, position = BUGS[bug]
    write(folder, "bug.py", text)
    assert run("build", "nim", "2,3", "--db", db_url)[0] == 0
    before = every_row(db_url)
    code, out, err = run("build", "py:bug.py", position, "--db", db_url)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    for part in expected:
        assert part in lines[0], (part, lines[0])
    assert every_row(db_url) == before
    code, _, err = run("solve", "py:bug.py", position)
    assert code == 1 and len(err.strip().splitlines()) == 1


def test_a_bug_after_batches_were_written_takes_them_back(folder: Path, db_url: str) -> None:
    write(
        folder,
        "late.py",
        """\
        import explorer

        @explorer.game
        def late(p):
            a, b = p
            if (a, b) == (1, 2):
                raise ZeroDivisionError("late")
            return [(a - 1, b)] * (a > 0) + [(a, b - 1)] * (b > 0)
        """,
    )
    db = open_database(db_url)
    try:
        db.game("py:late.py").build("1,1")  # stored before: its rows must stay
        before = every_row(db_url)
        with pytest.raises(RuleError, match=r"late.py, line 7: .* at position '1,2'"):
            db.game("py:late.py").build("6,6", batch_states=1)  # many batches commit first
    finally:
        db.close()
    assert every_row(db_url) == before


def test_a_bug_in_a_sum_names_its_part(folder: Path, db_url: str) -> None:
    write(folder, "bug.py", BUGS["raises"][0])
    assert run("build", "py:bug.py", "3", "--db", db_url)[0] == 0  # below the bug: stored
    before = every_row(db_url)
    code, _, err = run("build", "nim + py:bug.py", "2 + 5", "--db", db_url)
    assert code == 1
    assert "bug.py, line 7:" in err and "at position '4'" in err
    assert every_row(db_url) == before


def test_missing_files_and_games(folder: Path) -> None:
    code, _, err = run("solve", "py:nowhere.py", "3")
    assert (code, err) == (1, "Error: file 'nowhere.py' not found (py:nowhere.py)\n")
    write(folder, "empty.py", "x = 1\n")
    code, _, err = run("solve", "py:empty.py", "3")
    assert code == 1 and "defines no game" in err
    write(folder, "stones.py", STONES_HEAP)
    code, _, err = run("solve", "py:stones.py:other", "3")
    assert (code, err) == (1, "Error: 'stones.py' has no 'other'\n")
    write(folder, "boom.py", "import explorer\nraise RuntimeError('at import')\n")
    code, _, err = run("solve", "py:boom.py", "3")
    assert code == 1
    assert err == (
        "Error: boom.py, line 2: importing it raised RuntimeError: at import (fix the file, "
        "then run again)\n"
    )


def test_a_bad_successor_deep_in_a_build_is_caught(folder: Path, db_url: str) -> None:
    # past the positions whose moves are all checked, a bad tuple is caught when written
    write(
        folder,
        "deep.py",
        """\
        import explorer

        @explorer.game
        def deep(n):
            if not isinstance(n, int) or n == 0:
                return []
            return [n - 1, (n - 1, 0.5)] if n == 5 else [n - 1]
        """,
    )
    assert run("build", "nim", "2", "--db", db_url)[0] == 0
    before = every_row(db_url)
    code, _, err = run("build", "py:deep.py", "2000", "--db", db_url)
    assert code == 1
    assert err.startswith("Error: deep.py, line 4: rule 'deep' gave a successor that is not")
    assert "0.5 is a float" in err and len(err.strip().splitlines()) == 1
    assert every_row(db_url) == before


def test_an_unhashable_successor_deep_in_a_build_is_caught(folder: Path, db_url: str) -> None:
    # past the positions whose moves are all checked: the build's own numbering finds it
    write(
        folder,
        "deep.py",
        """\
        import explorer

        @explorer.game
        def deep(n):
            return [n - 1, (n - 1, [0])] if n == 1500 else [n - 1] if n else []
        """,
    )
    assert run("build", "nim", "2", "--db", db_url)[0] == 0
    before = every_row(db_url)
    code, _, err = run("build", "py:deep.py", "2000", "--db", db_url)
    assert code == 1
    assert err.startswith("Error: deep.py, line 4: rule 'deep' at position '1500' gave a")
    assert "[0] is a list" in err and len(err.strip().splitlines()) == 1
    assert every_row(db_url) == before
