"""`GameSpec`: a game's spec parsed once, every spelling of it computed by its family's class;
a ``py:`` game's file read (and hashed) once by a build; no family tested by its text outside
`explorer.games`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from explorer.games import load_game
from explorer.games.specs import GameSpec

ROOT = Path(__file__).resolve().parent.parent
NOTE = os.path.join(ROOT, "data", "note003.json")
LOOPY = os.path.join(ROOT, "data", "loopy.json")


@pytest.fixture(autouse=True)
def _in_the_repository(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize(
    ("typed", "canonical", "older", "files", "code", "loops"),
    [
        ("kayles + nim", "octal:0.77 + nim", "kayles + nim", False, False, False),
        (" Nim ", "nim", "Nim", False, False, False),
        ("subtraction: 4,1,3", "subtraction:1,3,4", "subtraction: 4,1,3", False, False, False),
        ("tb:0.{2+} + nim", load_game("tb:0.{2+}").spec + " + nim", "tb:0.{2+} + nim", 0, 0, 0),
        ("dag:data/../data/note003.json", "dag:" + NOTE, "dag:data/note003.json", True, 0, 0),
        ("nim + graph:data/loopy.json", "nim + graph:" + LOOPY, None, True, False, True),
        ("nosuch:3", "nosuch:3", "nosuch:3", False, False, False),
    ],
)
def test_each_spelling_comes_from_the_familys_class(typed, canonical, older, files, code, loops):
    spec = GameSpec.parse(typed)
    assert spec.canonical() == canonical
    assert spec.older() == (older or typed)
    assert (spec.names_file, spec.user_code, spec.loops) == (files, code, loops)
    # a stored spec is shown as a spec that names the same game from here
    assert GameSpec.parse(GameSpec.parse(canonical).shown()).canonical() == canonical
    assert not os.path.isabs(GameSpec.parse(canonical).shown().rpartition(":")[2])


def test_a_py_spec_is_named_by_its_file_without_running_it():
    spec = GameSpec.parse("py:data/stones.py")
    assert spec.user_code and not spec.names_file
    canonical = spec.canonical()
    assert re.fullmatch(re.escape(f"py:{ROOT}/data/stones.py:stones@") + "[0-9a-f]{16}", canonical)
    assert GameSpec.of(load_game("py:data/stones.py")).canonical() == canonical  # run, the same
    assert GameSpec.parse(canonical).shown() == "py:data/stones.py:" + canonical.split(":")[-1]
    assert GameSpec.parse(canonical).unpinned() == f"py:{ROOT}/data/stones.py:stones"


def test_the_stored_parameters_are_after_the_family_or_the_whole_sum():
    assert GameSpec.parse("nim").stored_parameters("nim") is None
    assert GameSpec.parse("subtraction:1,2").stored_parameters("subtraction:1,2") == "1,2"
    assert GameSpec.parse("nim + nim").stored_parameters("nim + nim") == "nim + nim"


#: Run in a fresh interpreter: ``explorer build py:FILE 12`` with an audit hook counting the
#: times the rules file is opened.
COUNT_OPENS = textwrap.dedent(
    """
    import json, os, sys
    target, opened = os.path.realpath(sys.argv[1]), []
    def hook(event, args):
        if event == "open" and isinstance(args[0], (str, bytes)):
            if os.path.realpath(os.fsdecode(args[0])) == target:
                opened.append(event)
    sys.addaudithook(hook)
    from explorer.cli import main
    try:
        main(sys.argv[2:], standalone_mode=False)
    finally:
        print(json.dumps(len(opened)), file=sys.stderr)
    """
)


def test_one_build_of_a_py_game_opens_its_file_at_most_twice(tmp_path):
    rules = tmp_path / "stones.py"
    rules.write_text((ROOT / "data" / "stones.py").read_text())
    database = tmp_path / "games.db"
    result = subprocess.run(
        [sys.executable, "-c", COUNT_OPENS, str(rules), "build", f"py:{rules}", "12"]
        + ["--db", str(database), "--json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    values: list[int] = []  # the rules of data/stones.py, by definition
    for n in range(13):
        options = {values[n - k] for k in (1, 2, 4) if k <= n}
        options |= {values[a] ^ values[n - a] for a in range(1, n) if a < n - a}
        values.append(min(set(range(len(options) + 1)) - options))
    assert json.loads(result.stdout)["grundy"] == values[12]
    assert json.loads(result.stderr.splitlines()[-1]) <= 2  # read and hashed once, imported once


#: How code outside `explorer.games` would test a family by its text.
FAMILY_BY_TEXT = re.compile(
    r"""startswith\(\(?["'](?:dag|graph|py)|["'](?:dag|graph|py):["']\)?\s*(?:in|not in)\b|"""
    r"""family\s*(?:==|!=|in|not in)\s*[("']|removeprefix\(["'](?:dag|graph|py):"""
)


def test_no_module_outside_games_tests_a_family_by_its_text():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "explorer").rglob("*.py"))
        if "games" not in path.relative_to(ROOT / "explorer").parts[:1]
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if FAMILY_BY_TEXT.search(line)
    ]
    assert found == []
    assert FAMILY_BY_TEXT.search('loopy = spec.startswith("graph:")')  # it finds what it seeks
    assert FAMILY_BY_TEXT.search('if game.family not in ("wythoff", "ferguson"):')
