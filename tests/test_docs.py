"""The README stays true and short: its sections in order, every command and family named, every
command's --help with an example, and every example run from a fresh folder."""

from __future__ import annotations

import doctest
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from explorer.cli import main
from explorer.games import ALIASES, FAMILIES

if __name__ == "__main__":  # run as a script (fill_readme): the repository, for tests.support
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.support.readme import README, session_lines  # noqa: E402

TEXT = README.read_text(encoding="utf-8")

#: The README's sections, in the order a newcomer reads them (issue 26).
SECTIONS = [
    "Contents",
    "Install",
    "A first session",
    "The ideas",
    "Your own game",
    "Storing, querying and browsing",
    "Sequences and patterns",
    "Boards and graphs at scale: the pruned search",
    "Records",
    "Games with cycles, and misère play",
    "Python API and notebooks",
    "How it works",
    "Development",
    "Licence",
]

#: The most the README may weigh, in bytes: the reference is --help and the docstrings.
MAX_BYTES = 29_800  # with the pruned search, the Records and Beling's table (issue 44)


def headings(level: int) -> list[str]:
    """The README's headings of one level, outside code blocks, in order."""
    prose = re.sub(r"```.*?```", "", TEXT, flags=re.S)
    return re.findall(rf"^{'#' * level} (.+)$", prose, flags=re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_the_sections_come_in_the_order_a_newcomer_reads_them():
    assert headings(1) == ["explorer"]
    assert headings(2) == SECTIONS
    # the first thing shown, before the contents, is a paragraph and the serve screenshot
    intro = TEXT.split("\n## ", 1)[0]
    assert "](data/images/serve-position.png)" in intro


def test_the_contents_link_every_section_in_order():
    contents = TEXT.split("## Contents\n", 1)[1].split("\n## ", 1)[0]
    links = re.findall(r"^- \[(.+?)\]\(#(.+?)\)$", contents, flags=re.M)
    assert [title for title, _ in links] == SECTIONS[1:]
    assert [target for _, target in links] == [anchor(title) for title in SECTIONS[1:]]
    assert anchor("Games with cycles, and misère play") == "games-with-cycles-and-misère-play"


def test_the_readme_is_short():
    assert len(TEXT.encode("utf-8")) <= MAX_BYTES


def test_the_markers_ci_reads_are_each_followed_by_their_command():
    lines = TEXT.splitlines()
    after = {line: lines[i + 1] for i, line in enumerate(lines[:-1]) if line.startswith("<!--")}
    assert after["<!-- main-command -->"] == (
        "pip install . && explorer build nim 3,4,5 && explorer stats nim"
    )
    assert after["<!-- serve-command -->"] == "explorer serve"
    assert "python -m pytest" in after["<!-- test-command -->"]


def test_install_and_development_say_what_a_newcomer_needs():
    install = TEXT.split("## Install\n", 1)[1].split("\n## ", 1)[0]
    assert "Python 3.11" in install and "git clone" in install and "venv" in install
    development = TEXT.split("## Development\n", 1)[1].split("\n## ", 1)[0]
    assert "python -m pytest -q -n 2 tests/test_heaps.py   # the quick loop" in development
    # how long the tests take is said beside the command that runs them, as CI measures it
    after_tests = development.split("<!-- test-command -->", 1)[1]
    assert re.search(r"\d+ to \d+ minutes on CI's two cores", after_tests.split("\n\n")[1])
    # and how to start the PostgreSQL server the postgres tests need, as .ci/run does
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    port = re.search(r"^PGPORT=(\d+)$", ci, flags=re.M).group(1)
    url = f"postgresql+psycopg://explorer@127.0.0.1:{port}/explorer"
    assert f"export EXPLORER_TEST_POSTGRES_URL={url}" in development
    assert re.search(
        r'EXPLORER_TEST_POSTGRES_URL="postgresql\+psycopg://explorer@127.0.0.1:\$PGPORT/explorer"',
        ci,
    )
    assert "--auth=trust" in development and f"listen_addresses=127.0.0.1 -p {port}" in development
    # the folder the install makes in the clone is not a change to commit
    venv = re.search(r"python3 -m venv (\S+)", install).group(1)
    assert f"{venv}/" in (README.parent / ".gitignore").read_text().splitlines()
    assert "ruff check . && ruff format --check . && mypy explorer" in development
    licence = TEXT.split("## Licence\n", 1)[1]
    assert "MIT" in licence and (README.parent / "LICENSE").is_file()


def test_the_module_map_names_every_package():
    how = TEXT.split("## How it works\n", 1)[1].split("\n## ", 1)[0]
    mapped = set(re.findall(r"^explorer/(\w+) +\S", how, flags=re.M))
    packages = {
        p.name for p in (README.parent / "explorer").iterdir() if (p / "__init__.py").exists()
    }
    assert packages <= mapped, packages - mapped
    assert {"games", "generation", "solver", "analysis", "storage", "viz", "web", "cli"} <= mapped


def test_images_shown_are_there():
    images = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", TEXT)
    assert "data/images/serve-position.png" in images
    for image in images:
        assert (README.parent / image).is_file(), image


def test_every_command_is_documented():
    for name in main.commands:
        assert f"explorer {name}" in TEXT, name


def test_every_family_is_documented():
    for name in [*FAMILIES, *ALIASES]:
        assert f"`{name}" in TEXT, name


def every_command() -> list[tuple[str, ...]]:
    """The path of every command, group subcommands included (``plot sequence``)."""
    paths: list[tuple[str, ...]] = []
    todo: list[tuple[tuple[str, ...], click.Command]] = [
        ((name,), main.commands[name]) for name in main.commands
    ]
    while todo:
        path, command = todo.pop(0)
        paths.append(path)
        if isinstance(command, click.Group):
            todo.extend((path + (name,), sub) for name, sub in command.commands.items())
    return paths


def help_examples(path: tuple[str, ...]) -> list[str]:
    """The example command lines of one command's --help."""
    result = CliRunner(env={"COLUMNS": "100"}).invoke(main, [*path, "--help"])
    assert result.exit_code == 0, path
    section = re.split(r"^ *Examples?:\n", result.stdout, maxsplit=1, flags=re.M)
    if len(section) < 2:
        return []
    block = re.match(r"((?: {4,}\S.*\n)+)", section[1])
    return [line.strip() for line in block.group(1).splitlines()] if block else []


def test_the_command_walk_finds_group_subcommands():
    paths = every_command()
    assert ("plot", "sequence") in paths and ("plot", "p-positions") in paths
    assert len(paths) == len(set(paths)) >= 20


@pytest.mark.parametrize("path", every_command(), ids=" ".join)
def test_every_commands_help_has_an_example_of_itself(path):
    examples = help_examples(path)
    assert examples, f"explorer {' '.join(path)} --help has no example"
    for example in examples:
        words = shlex.split(example)  # each example is a valid, quoted shell line
        assert words[: len(path) + 1] == ["explorer", *path], example


def test_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(TEXT, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries > 5


#: What changes from run to run: a build's time and rate.
VARYING = re.compile(r"time +[\d.]+ s \([\d,]+ new states/s\)")


def _run_line(command: str) -> str:
    """Run one README line in the current folder: ``explorer`` in process (with ``| head -N`` or
    ``| tail -N`` applied), ``sqlite3 FILE "SQL"`` through Python's sqlite3 in list mode."""
    words = shlex.split(command)
    cut = None
    if "|" in words:
        pipe = words.index("|")
        assert words[pipe + 1 : pipe + 2] in (["head"], ["tail"]), command
        cut = (words[pipe + 1], int(words[pipe + 2].lstrip("-")))
        words = words[:pipe]
    if words[0] == "sqlite3":
        with closing(sqlite3.connect(words[1])) as conn, conn:  # commits an UPDATE
            rows = conn.execute(words[2]).fetchall()
        return "".join("|".join(map(str, row)) + "\n" for row in rows)
    assert words[0] == "explorer", command
    result = CliRunner(env={"COLUMNS": "100"}).invoke(main, words[1:])
    assert result.exception is None or isinstance(result.exception, SystemExit), command
    output = result.stdout + result.stderr
    if cut is not None:
        lines = output.splitlines(keepends=True)
        output = "".join(lines[: cut[1]] if cut[0] == "head" else lines[-cut[1] :])
    return output


@pytest.mark.slow  # every README command
def test_readme_sessions_run_in_order_from_a_fresh_folder(tmp_path, monkeypatch):
    # the README says its examples build on each other in one folder (a checkout, for data/)
    assert "run in the order shown, in one folder" in TEXT
    shutil.copytree(
        README.parent / "data", tmp_path / "data", ignore=shutil.ignore_patterns("*.png")
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("EXPLORER_DB", raising=False)
    lines = session_lines()
    commands = {command.split()[1] for command, _ in lines if command.startswith("explorer")}
    assert {"build", "query", "import", "export", "verify", "solve", "viz", "plot"} <= commands
    assert any(command.startswith("sqlite3") for command, _ in lines)
    for command, expected in lines:
        output = _run_line(command)
        assert VARYING.sub("time", output) == VARYING.sub("time", expected), command
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["data", "explorer.db", "kayles.png", "loopy.db", "near.gexf", "nim.html", "wythoff.png"]
    )


def fill_readme() -> None:
    """Rewrite the output under every ``$`` line of the README's console blocks with what the
    line prints now, run in order from a fresh folder (``python tests/test_docs.py``)."""
    import os
    import tempfile

    os.environ["COLUMNS"] = "100"
    os.environ.pop("EXPLORER_DB", None)

    def fill(match: re.Match[str]) -> str:
        lines = [line for line in match.group(1).splitlines(keepends=True) if line[:2] == "$ "]
        return "```console\n" + "".join(line + _run_line(line[2:]) for line in lines) + "```"

    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(README.parent / "data", Path(folder) / "data")
        os.chdir(folder)
        text = re.sub(r"```console\n(.*?)```", fill, TEXT, flags=re.S)
    README.write_text(text, encoding="utf-8")
    print(f"{README}: {len(text.encode('utf-8')):,} bytes")


if __name__ == "__main__":
    fill_readme()


def test_a_checkout_ignores_the_files_a_database_leaves(tmp_path):
    # SQLite in WAL mode keeps FILE.db-wal and FILE.db-shm beside a database while it is open
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git")
    shutil.copy(README.parent / ".gitignore", tmp_path / ".gitignore")
    subprocess.run([git, "init", "-q"], cwd=tmp_path, check=True)
    for name in ("explorer.db", "explorer.db-wal", "explorer.db-shm", "graphs.db-wal"):
        (tmp_path / name).write_bytes(b"")
    status = subprocess.run(
        [git, "status", "--porcelain", "--untracked-files=all"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert status.split() == ["??", ".gitignore"]


@pytest.mark.slow  # collects the whole suite
def test_the_readme_counts_the_postgres_tests_about_right():
    said = re.search(r"About (\d+) tests \(marked `postgres`\)", TEXT)
    assert said is not None
    collected = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-m",
            "postgres",
            "-p",
            "no:cacheprovider",
        ],
        cwd=README.parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    count = int(re.search(r"^(\d+)/\d+ tests collected", collected, flags=re.M).group(1))
    assert 0.75 * int(said.group(1)) <= count <= 1.25 * int(said.group(1))
