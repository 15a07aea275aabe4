"""The contract of games written in Python, as a hostile tester tried it (issue 35): reading a
stored game never imports its file, a changed file is named as changed, and a rule that leaves by
any side door (an exception of any kind, an exit, a cycle it did not declare) is one ``Error:``
line, a non-zero exit and an unchanged database, on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest

from explorer.games import pyspec
from tests.support.cli import run, run_json
from tests.support.python_games import LOOPY, STONES_HEAP, stones_value, write
from tests.support.serve import start_server


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
