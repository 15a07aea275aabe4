"""Bad input, case by case: every one a clear error, and nothing lost.

Each case runs one command against a folder holding a database built once for the module
(`explorer.db`, in WAL mode, with a WAL that holds rows) and asserts: exit 1 with exactly one
``Error:`` line (or click's usage error, exit 2), no traceback, no hang (`LIMIT` seconds), and
the database unchanged in content (games, builds, states, edges, the schema; read through
SQLite, so the WAL's rows count). Cases run in process with click's runner; the few that need a
process of their own (a FIFO that would block, a missing driver, a lock held elsewhere) run as
subprocesses.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import chdir, closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner

from explorer.cli import main
from tests.support.environment import REPO

#: Longest a case may run (seconds).
LIMIT = 30

DAG = "dag:game.json"
BIG = "9223372036854775808"
HUGE_DIGITS = "9" * 5000


@dataclass
class Case:
    """One bad input: the command line, files it needs, and how it must fail."""

    id: str
    args: list[str]
    files: dict[str, bytes | str] = field(default_factory=dict)
    process: bool = False  # run as a subprocess (it could block the test process)
    usage: bool | None = None  # True: must be a usage error; False: must be exit 1
    env: dict[str, str] = field(default_factory=dict)
    setup: Callable[[Path], object] | None = None


CASES: list[Case] = []


def case(id: str, *args: str, **options: object) -> None:
    CASES.append(Case(id, list(args), **options))  # type: ignore[arg-type]


# --- specs -------------------------------------------------------------------------------------

BAD_SPECS = {
    "unknown": "nimm",
    "empty": "",
    "blank": "   ",
    "colon only": "nim:",
    "nim parameter": "nim:3",
    "bash zero": "bash:0",
    "bash negative": "bash:-1",
    "bash word": "bash:x",
    "bash superscript": "bash:²",
    "bash full-width": "bash:３",
    "bash no parameter": "bash",
    "bash too big": "bash:99999999999",
    "bash 5000 digits": "bash:" + HUGE_DIGITS,
    "octal digit 8": "octal:0.8",
    "octal first digit": "octal:1.7",
    "octal empty": "octal:",
    "octal no point": "octal:077",
    "octal letters": "octal:abc",
    "octal too long": "octal:0." + "7" * 20_000,
    "octal none": "octal",
    "subtraction none": "subtraction",
    "subtraction empty": "subtraction:",
    "subtraction zero": "subtraction:0",
    "subtraction gap": "subtraction:1,,2",
    "subtraction word": "subtraction:1,x",
    "subtraction negative": "subtraction:-1",
    "subtraction superscript": "subtraction:1,²",
    "subtraction too big": "subtraction:1,99999999",
    "turning none": "turning",
    "turning empty": "turning:",
    "turning zero": "turning:0",
    "turning word": "turning:sideways",
    "turning superscript": "turning:³",
    "dag none": "dag",
    "dag empty": "dag:",
    "dag missing file": "dag:missing.json",
    "dag directory": "dag:folder",
    "chomp parameter": "chomp:3",
    "wythoff parameter": "wythoff:1",
    "queens parameter": "queens:2",
    "treblecross parameter": "treblecross:1",
    "staircase parameter": "staircase:x",
    "ferguson parameter": "ferguson:1",
    "lasker parameter": "lasker:1",
    "grundy parameter": "grundy:1",
    "half parameter": "half:2",
    "kayles parameter": "kayles:1",
    "windup superscript move": "windup:5:¹,3",
    "windup superscript modulus": "windup:²:1",
    "windup full-width": "windup:５:1",
    "windup no moves": "windup:5",
    "windup zero move": "windup:5:1,0",
    "windup too big": "windup:99999999999999:1",
    "windup 5000 digits": "windup:" + HUGE_DIGITS + ":1",
    "control characters": "\x1b[2Jnim",
    "newline": "nim\nforged",
    "nul": "ni\x00m",
}
for name, spec in BAD_SPECS.items():
    case(f"spec {name}: solve", "solve", spec, "3")
    case(f"spec {name}: build", "build", spec, "3")
for name in ["unknown", "bash zero", "octal digit 8", "subtraction none", "dag missing file"]:
    case(f"spec {name}: sequence", "sequence", BAD_SPECS[name])
    case(f"spec {name}: query", "query", BAD_SPECS[name], "3")

# --- positions ---------------------------------------------------------------------------------

BAD_POSITIONS = {
    "nim": ["", " ", "x", "3,x", "-1", "3,,4", "3.5", "3,²", "３", "1e3", "0x10", HUGE_DIGITS],
    "kayles": ["x", "-2", "٣"],
    "wythoff": ["1", "1,2,3", "a,b", "-1,2", "3000,3000", "²,1"],
    "ferguson": ["1", "1,2,3", "x,1"],
    "chomp": ["", "0", "3,4", "99999x99999", "2000000x2", "3x", "x3", "3x4x5", "３x4", "3x²"],
    "queens": ["", "1", "1,2,3", "100000,1", "a,b", "1,²;2,3"],
    "treblecross": ["", "..Y..", "100000000", "²", "１２"],
    "staircase": ["x", "-1", "1,,2"],
    "turning:mock": ["THX", "", "H T"],
    "lasker": ["x"],
    "grundy": ["x"],
    "half": ["x"],
    "windup:5:1,3": ["²", "5", "0000000000007", "-1", "", "1,2", "٣", HUGE_DIGITS],
    DAG: ["nowhere", "", "\x1b]0;title\x07"],
}
for spec, positions in BAD_POSITIONS.items():
    for position in positions:
        case(f"position {spec} {position[:20]!r}: solve", "solve", spec, position)
for position in ["x", "3,²", "３", "-1"]:
    case(f"position nim {position!r}: explain", "explain", "nim", position)
    case(f"position nim {position!r}: build", "build", "nim", position)
    case(f"position nim {position!r}: query", "query", "nim", position)
    case(f"position nim {position!r}: viz", "viz", "nim", position, "-o", "x.html")
case("position chomp huge: explain", "explain", "chomp", "99999x99999")
case("position chomp huge: viz", "viz", "chomp", "99999x99999", "-o", "x.html")
case("position diff -p x", "diff", "nim", "bash:3", "-p", "x")

# --- sums --------------------------------------------------------------------------------------

BAD_SUMS = [
    ("nim +", "3"),
    ("+ nim", "3"),
    ("nim + + nim", "3 + 3"),
    ("nim + nimm", "3 + 3"),
    ("nim + kayles", "3"),
    ("nim + kayles", "3 + 4 + 5"),
    ("nim + wythoff", "3 + 1"),
    ("nim + chomp", "3 + 99999x99999"),
    ("nim + dag:missing.json", "3 + a"),
    (" + ", "3"),
    ("nim + bash:0", "3 + 3"),
    ("nim + nim", "3 + ²"),
]
for spec, position in BAD_SUMS:
    case(f"sum {spec!r} {position!r}", "solve", spec, position)
    if "99999x99999" not in position:  # building huge games is a matter of scale, not input
        case(f"sum {spec!r} {position!r}: build", "build", spec, position)

# --- graph files -------------------------------------------------------------------------------


def nested(depth: int) -> str:
    return '{"a": ' * depth + "[]" + "}" * depth


BAD_FILES: dict[str, bytes | str] = {
    "empty.json": "",
    "not-json.json": "{this is not json",
    "array.json": "[1, 2, 3]",
    "number.json": "42",
    "cycle.json": json.dumps({"vertices": ["a", "b"], "edges": [["a", "b"], ["b", "a"]]}),
    "self-loop.json": json.dumps({"vertices": ["a"], "edges": [["a", "a"]]}),
    "duplicate-edge.json": json.dumps({"vertices": ["a", "b"], "edges": [["a", "b"], ["a", "b"]]}),
    "undeclared.json": json.dumps({"vertices": ["a"], "edges": [["a", "b"]]}),
    "no-vertices.json": json.dumps({"vertices": [], "edges": []}),
    "bad-edge.json": json.dumps({"vertices": ["a", "b"], "edges": [["a", "b", "c"]]}),
    "edge-not-list.json": json.dumps({"vertices": ["a"], "edges": "a-b"}),
    "vertex-list.json": json.dumps({"vertices": [["a"]], "edges": []}),
    "vertex-null.json": json.dumps({"vertices": [None], "edges": []}),
    "adjacency-bad.json": json.dumps({"a": "b"}),
    "duplicate-key.json": '{"a": ["b"], "a": [], "b": []}',
    "deep.json": nested(100_000),
    "huge-int.json": '{"vertices": [' + HUGE_DIGITS + "], " + '"edges": []}',
    "latin1.json": '{"vertices": ["caf\xe9"], "edges": []}'.encode("latin-1"),
    "nul.json": b'{"vertices": ["a\x00"], "edges": []}\x00',
    "garbage.json": bytes(range(256)) * 4,
    "bom-garbage.csv": b"\xff\xfe\x00garbage",
    "header-only.csv": "source,target\n",
    "no-source.csv": "source,target\n,b\n",
    "cycle.csv": "source,target\na,b\nb,a\n",
    "empty.txt": "",
    "bad-line.txt": "a -> b -> c\n",
    "cycle.edges": "a b\nb c\nc a\n",
    "self.edges": "a a\n",
    "broken.graphml": "<graphml><graph><node id='a'/>",
    "cycle.graphml": (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        '<node id="a"/><node id="b"/><edge source="a" target="b"/><edge source="b" target="a"/>'
        "</graph></graphml>"
    ),
    "undirected.graphml": (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="undirected">'
        '<node id="a"/><node id="b"/><edge source="a" target="b"/></graph></graphml>'
    ),
    "undeclared.graphml": (
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
        '<node id="a"/><edge source="a" target="b"/></graph></graphml>'
    ),
    "unknown.xyz": "a b\n",
    "no-extension": "a b\n",
}
for name, content in BAD_FILES.items():
    case(f"file {name}: import", "import", name, files={name: content})
    case(f"file {name}: solve", "solve", f"dag:{name}", "a", files={name: content})
case("file missing: import", "import", "missing.json")
case("file directory: import", "import", "folder")
case("file data cyclic: import", "import", str(REPO / "data" / "cyclic.edges"))
case(
    "file fifo: import",
    "import",
    "pipe.json",
    process=True,
    setup=lambda d: os.mkfifo(d / "pipe.json"),
)
case(
    "file fifo: solve",
    "solve",
    "dag:pipe.json",
    "a",
    process=True,
    setup=lambda d: os.mkfifo(d / "pipe.json"),
)


# --- database URLs and files -------------------------------------------------------------------

BAD_URLS = {
    "port not a number": "postgresql://u@127.0.0.1:notaport/x",
    "nothing listening": "postgresql://me@127.0.0.1:5999/games",
    "postgres scheme, nothing listening": "postgres://me@127.0.0.1:5999/games",
    "unknown scheme": "mysql://u@127.0.0.1/x",
    "made-up scheme": "foo://bar",
    "sqlite missing folder": "sqlite:////nonexistent/folder/x.db",
    "missing folder": "/nonexistent/folder/x.db",
    "folder": "folder",
    "text file": "notes.txt",
    "zero-byte file": "zero.db",
    "damaged file": "damaged.db",
    "newer schema": "newer.db",
    "dropped table": "dropped.db",
    "garbage url": "postgresql://[::1",
}
DB_COMMANDS = {
    "query": ["query", "nim", "3,4,5"],
    "stats": ["stats"],
    "stats spec": ["stats", "nim"],
    "build": ["build", "nim", "3"],
    "import": ["import", "game.json"],
    "edit": ["edit", DAG, "--add-state", "zz"],
    "export": ["export", "nim", "-o", "out.csv"],
    "verify": ["verify"],
}
for name, url in BAD_URLS.items():
    if name in {"zero-byte file", "damaged file", "dropped table"}:
        commands = DB_COMMANDS
    else:
        commands = {k: DB_COMMANDS[k] for k in ("query", "build", "import")}
    for command, args in commands.items():
        case(f"db {name}: {command}", *args, "--db", url)
case(
    "db fifo: query",
    "query",
    "nim",
    "3",
    "--db",
    "fifo.db",
    process=True,
    setup=lambda d: os.mkfifo(d / "fifo.db"),
)
case(
    "db fifo: build",
    "build",
    "nim",
    "3",
    "--db",
    "fifo.db",
    process=True,
    setup=lambda d: os.mkfifo(d / "fifo.db"),
)
case(
    "db without the postgresql driver",
    "stats",
    "--db",
    "postgresql://me@127.0.0.1:5999/games",
    process=True,
    env={"EXPLORER_TEST_BLOCK_PSYCOPG": "1"},
)
case("db env var points nowhere", "stats", env={"EXPLORER_DB": "/nonexistent/folder/x.db"})
case(
    "db locked by another process",
    *DB_COMMANDS["build"],
    setup=lambda d: _lock(d),
    env={"EXPLORER_WAIT": "1"},  # a writer waits this long for the lock, then says so
)
case("db writer wait not a number", *DB_COMMANDS["build"], env={"EXPLORER_WAIT": "soon"})

LOCKERS: list[subprocess.Popen[bytes]] = []


def _lock(folder: Path) -> None:
    """Another process takes the reference database's write lock and holds it."""
    locker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect('explorer.db', isolation_level=None)\n"
            "c.execute('BEGIN IMMEDIATE')\n"
            "print('locked', flush=True)\n"
            "time.sleep(60)\n",
        ],
        cwd=folder,
        stdout=subprocess.PIPE,
    )
    assert locker.stdout is not None and locker.stdout.readline().strip() == b"locked"
    LOCKERS.append(locker)


# --- options -----------------------------------------------------------------------------------

for option in ("--offset", "--limit", "--grundy", "--depth"):
    for value in (BIG, "-1", "x", "1.5"):
        case(f"option query {option} {value}", "query", "nim", option, value, usage=True)
for option, args in [
    ("--max-states", ["build", "nim", "3"]),
    ("--max-states", ["viz", "nim", "3", "-o", "x.html"]),
    ("--max-states", ["solve", "nim", "3"]),
    ("--limit", ["export", "nim", "-o", "x.csv"]),
    ("--depth", ["export", "nim", "-o", "x.csv"]),
    ("--depth", ["viz", "nim", "3", "-o", "x.html"]),
    ("--budget", ["viz", "nim", "3", "-o", "x.html"]),
    ("--upto", ["sequence", "nim"]),
    ("--upto", ["diff", "nim", "kayles"]),
    ("--rows", ["table", "wythoff"]),
    ("--cols", ["plot", "table", "wythoff", "-o", "x.png"]),
]:
    for value in (BIG, "0" if option not in ("--depth", "--upto") else "-1"):
        case(f"option {args[0]} {option} {value}", *args, option, value, usage=True)
for args in [
    ["solve", "nim", "3", "--method", "guess"],
    ["query", "nim", "--outcome", "X"],
    ["export", "nim", "-o", "x.csv", "--format", "xyz"],
    ["export", "nim", "-o", "x.csv", "--direction", "sideways", "--around", "3"],
    ["viz", "nim", "3", "-o", "x.html", "--condensed", "colour"],
    ["query", "nim", "--successors"],
    ["query", "nim", "3", "--outcome", "P"],
    ["diff", "nim", "nim", "--upto", "3", "-p", "3"],
    ["solve", "nim"],
    ["solve"],
    ["frobnicate"],
    ["solve", "nim", "3", "--frobnicate"],
    ["query", "nim", "--limit"],
    ["edit", DAG, "--add-edge", "a"],
    ["table", "wythoff", "--rows", "1000000", "--cols", "1000000"],
]:
    case(f"option {' '.join(args)}", *args)
case("option export around not stored", "export", "nim", "-o", "x.csv", "--around", "9,9,9")
case("option export around bad position", "export", "nim", "-o", "x.csv", "--around", "x")
case("option viz around bad", "viz", "nim", "3", "-o", "x.html", "--around", "x")
case("option viz around unreachable", "viz", "nim", "3", "-o", "x.html", "--around", "9")
case("option viz db around not stored", "viz", "nim", "9,9", "--db", "explorer.db", "-o", "x.html")
case("option sequence for a two-coordinate game", "sequence", "wythoff")

# --- output paths ------------------------------------------------------------------------------

for suffix in ("csv", "graphml", "gexf", "json"):
    case(
        f"output export {suffix} missing folder", "export", "nim", "-o", f"/nonexistent/x.{suffix}"
    )
    case(f"output export {suffix} is a folder", "export", "nim", "-o", "folder", "--format", suffix)
case("output export unknown suffix", "export", "nim", "-o", "x.xyz")
case("output export no suffix", "export", "nim", "-o", "noext")
case("output export into proc", "export", "nim", "-o", "/proc/x.graphml")
for args in (["viz", "nim", "3"], ["plot", "sequence", "nim"], ["plot", "table", "wythoff"]):
    suffix = "html" if args[0] == "viz" else "png"
    what = " ".join(args[:2]) if args[0] == "plot" else args[0]
    case(f"output {what} missing folder", *args, "-o", f"/nonexistent/x.{suffix}")
    case(f"output {what} wrong suffix", *args, "-o", "x.txt", usage=True)
    case(
        f"output {what} is a folder",
        *args,
        "-o",
        f"folder.{suffix}",
        setup=lambda d, s=suffix: (d / f"folder.{s}").mkdir(),
    )
    case(f"output {what} empty name", *args, "-o", "", usage=True)

# --- edits -------------------------------------------------------------------------------------

for name, edit in {
    "add existing state": ["--add-state", "a"],
    "remove missing state": ["--remove-state", "nowhere"],
    "add edge to missing state": ["--add-edge", "a", "nowhere"],
    "add edge closing a cycle": ["--add-edge", "t3", "b"],
    "add a self-loop": ["--add-edge", "a", "a"],
    "add an existing edge": ["--add-edge", "a", "t1"],
    "remove a missing edge": ["--remove-edge", "t1", "a"],
    "nothing to do": [],
    "empty state name": ["--add-state", ""],
    "edge from a removed state": ["--remove-state", "c", "--add-edge", "c", "t1"],
    "the same state twice": ["--add-state", "zz", "--add-state", "zz"],
    "a control character state": ["--add-state", "x\x1b[2J", "--add-edge", "x\x1b[2J", "nowhere"],
    "a long cycle": ["--add-state", "z", "--add-edge", "t1", "z", "--add-edge", "z", "b"],
}.items():
    case(f"edit {name}", "edit", DAG, *edit)
case("edit a game defined by rules", "edit", "nim", "--add-state", "3")
case(
    "edit a game not stored",
    "edit",
    "dag:other.json",
    "--add-state",
    "z",
    files={"other.json": '{"a": []}'},
)
case("edit an unknown game", "edit", "nimm", "--add-state", "z")
case("edit with a missing database", "edit", DAG, "--add-state", "z", "--db", "missing.db")


# --- the harness -------------------------------------------------------------------------------


def content(path: Path) -> str:
    """A digest of what a SQLite database holds, read through SQLite (the WAL's rows count)."""
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        parts = [
            repr(conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall())
        ]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        for table in ("alembic_version", "games", "builds", "states"):  # moves: in states
            if table in tables:
                rows = conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
                parts.append(repr(rows))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _write_fixtures(folder: Path) -> None:
    (folder / "game.json").write_text((REPO / "data" / "note003.json").read_text())
    (folder / "folder").mkdir()
    (folder / "notes.txt").write_text("not a database\n")
    (folder / "zero.db").write_bytes(b"")
    runner = CliRunner()
    for name in ("damaged.db", "newer.db", "dropped.db"):
        result = runner.invoke(main, ["build", "nim", "2,2", "--db", str(folder / name)])
        assert result.exit_code == 0, result.output
    with closing(sqlite3.connect(folder / "newer.db")) as conn, conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    with closing(sqlite3.connect(folder / "dropped.db")) as conn, conn:
        conn.execute("DROP TABLE builds")
    with closing(sqlite3.connect(folder / "damaged.db")) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray((folder / "damaged.db").read_bytes())
    data[4096 : 2 * 4096] = b"\xa5" * 4096  # a damaged page: the second, a table's root
    (folder / "damaged.db").write_bytes(bytes(data))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reference]:
    """The folder and the digests of its databases, built once for the module."""
    folder = tmp_path_factory.mktemp("bad-input")
    runner = CliRunner()
    with chdir(folder):
        _write_fixtures(folder)
        for args in (
            ["build", "nim", "3,4,5"],
            ["build", "kayles", "12"],
            ["import", "game.json"],
            ["edit", DAG, "--add-state", "z", "--add-edge", "z", "a"],
        ):
            result = runner.invoke(main, args)
            assert result.exit_code == 0, result.output
    # a WAL holding rows: a connection that stays open keeps SQLite from checkpointing it away
    keeper = sqlite3.connect(folder / "explorer.db")
    keeper.execute("PRAGMA wal_autocheckpoint = 0")
    with keeper:
        keeper.execute("UPDATE builds SET method = method")
    assert (folder / "explorer-wal").exists() or (folder / "explorer.db-wal").exists()
    digests = {name: _digest(folder / name) for name in DATABASES}
    saved = sqlite3.connect(":memory:")
    keeper.backup(saved)
    files = {name: (folder / name).read_bytes() for name in DATABASES[1:]}

    def restore(changed: list[str]) -> None:
        for name in changed:
            if name == "explorer.db":
                saved.backup(keeper)  # through SQLite: the keeper's connection stays valid
                continue
            for extra in ("-wal", "-shm", "-journal"):
                (folder / (name + extra)).unlink(missing_ok=True)
            (folder / name).write_bytes(files[name])

    yield Reference(folder, digests, restore)
    keeper.close()
    saved.close()


@dataclass
class Reference:
    folder: Path
    digests: dict[str, str]
    restore: Callable[[list[str]], None]  # puts back the databases a case changed


DATABASES = ("explorer.db", "zero.db", "notes.txt", "damaged.db", "newer.db", "dropped.db")


def _digest(path: Path) -> str:
    if path.name in ("explorer.db", "newer.db", "dropped.db"):
        return content(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()  # not databases: byte for byte


class Hang(Exception):
    """A case ran past `LIMIT` seconds."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise Hang(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


BLOCK_PSYCOPG = "import sys\nsys.modules['psycopg'] = None\nsys.modules['psycopg2'] = None\n"


def _run(item: Case, folder: Path) -> tuple[int, str, str, str | None]:
    """Exit code, standard output and error, and what went wrong beyond a refusal (a
    traceback or a hang), if anything."""
    if not item.process:
        try:
            with time_limit(LIMIT):
                result = CliRunner(env=item.env or None).invoke(main, item.args)
        except Hang as hang:
            return 1, "", "", str(hang)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            trace = "".join(traceback.format_exception(result.exception))
            return result.exit_code, result.stdout, result.stderr, f"traceback:\n{trace}"
        return result.exit_code, result.stdout, result.stderr, None
    env = dict(os.environ, **item.env)
    if env.pop("EXPLORER_TEST_BLOCK_PSYCOPG", None):
        blocker = folder / "no-driver"
        blocker.mkdir(exist_ok=True)
        (blocker / "sitecustomize.py").write_text(BLOCK_PSYCOPG)
        env["PYTHONPATH"] = os.pathsep.join([str(blocker), env.get("PYTHONPATH", "")])
    try:
        done = subprocess.run(
            [sys.executable, "-m", "explorer", *item.args],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=LIMIT,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return 1, "", "", f"no answer in {LIMIT} s"
    return done.returncode, done.stdout, done.stderr, None


@pytest.mark.parametrize("item", CASES, ids=[c.id.encode("unicode_escape").decode() for c in CASES])
def test_bad_input_is_one_clear_error_and_loses_nothing(item, reference, monkeypatch):
    folder, digests = reference.folder, reference.digests
    monkeypatch.chdir(folder)
    monkeypatch.delenv("EXPLORER_DB", raising=False)
    before = set(folder.iterdir())
    for name, data in item.files.items():
        path = folder / name
        path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
    try:
        if item.setup is not None:
            item.setup(folder)
        code, out, err, failure = _run(item, folder)
    finally:
        for locker in LOCKERS:
            locker.kill()
            locker.wait()
        LOCKERS.clear()
        for path in set(folder.iterdir()) - before:  # what the case made
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    changed = [name for name, digest in digests.items() if _digest(folder / name) != digest]
    reference.restore(changed)  # so that the next cases start from the reference again
    assert failure is None, failure
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert sum(line.startswith("Error: ") for line in lines) == 1, (code, out, err)
    if code == 2:  # click's usage error: a usage line (most of the time) and one Error: line
        assert item.usage is not False, err
    else:
        assert item.usage is not True, (code, err)
        assert code == 1, (code, out, err)
        assert len(lines) == 1, err
    assert not changed, f"changed: {changed}"


def test_there_are_at_least_200_cases_in_every_category():
    categories = {c.id.split()[0] for c in CASES}
    assert categories == {"spec", "position", "sum", "file", "db", "option", "output", "edit"}
    assert len(CASES) >= 200
    assert len({c.id for c in CASES}) == len(CASES)


#: Every command that writes a file given by -o: its arguments, the name given, the files written.
WRITERS = {
    "export graphml": (["export", "nim"], "out.graphml", ["out.graphml"]),
    "export csv": (["export", "nim", "--format", "csv"], "out", ["out.nodes.csv", "out.edges.csv"]),
    "viz": (["viz", "nim", "3"], "out.html", ["out.html"]),
    "plot sequence": (["plot", "sequence", "nim"], "out.png", ["out.png"]),
    "plot table": (["plot", "table", "wythoff"], "out.svg", ["out.svg"]),
}
SPECIAL = ["fifo"] + (["device"] if os.geteuid() == 0 else [])  # only root makes device nodes


@pytest.mark.slow  # waits on fifos
@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("what", WRITERS)
def test_an_output_that_is_a_fifo_or_device_is_refused_and_left_as_it_was(
    reference, tmp_path, what, kind
):
    # a rename over a device node replaced it with a file (export -o /dev/full, as root), and
    # opening a FIFO blocked for ever: here the special files live in a scratch folder
    args, name, written = WRITERS[what]
    shutil.copy(reference.folder / "explorer.db", tmp_path / "explorer.db")
    for each in written:
        if kind == "fifo":
            os.mkfifo(tmp_path / each)
        else:  # a node like /dev/full: every write fails with ENOSPC
            os.mknod(tmp_path / each, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    before = sorted(p.name for p in tmp_path.iterdir())
    done = subprocess.run(
        [sys.executable, "-m", "explorer", *args, "-o", name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=LIMIT,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [
        f"Error: cannot write {written[0]!r}: it is not a regular file"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no temporary file left
    test = stat.S_ISFIFO if kind == "fifo" else stat.S_ISCHR
    assert all(test((tmp_path / each).lstat().st_mode) for each in written)
