"""The command line's shared rules: exit codes, bounded options, ASCII numbers, visible names,
tables that drop nothing, progress that fits, and honest answers."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.analysis.solving import solve
from explorer.cli import common, main
from explorer.errors import SpecError
from explorer.games import load_game
from explorer.generation.graph import build_graph
from tests.support.cli import run
from tests.support.strategies import fraction_of_examples


def one_error_line(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


# exit codes ---------------------------------------------------------------------------------


def test_the_exit_code_rule_is_applied_by_the_group_not_by_each_command():
    from explorer.cli.common import ExplorerGroup

    assert isinstance(main, ExplorerGroup)
    assert not hasattr(common, "reports_errors")
    source = "".join(p.read_text() for p in Path(common.__file__).parent.glob("*.py"))
    assert "except ExplorerError" in source and source.count("except ExplorerError") == 2
    # the one in ExplorerGroup, and the OutputFile parameter type turning one into a usage error


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "nim"],  # missing argument
        ["solve", "nim", "3", "--frobnicate"],  # unknown option
        ["solve", "nim", "3", "--method", "guess"],  # bad choice
        ["sequence", "nim", "--upto", "x"],  # not an integer
        ["diff", "nim", "nim", "--upto", "3", "-p", "3"],  # options that exclude each other
        ["query", "nim", "--successors"],
        ["plot", "sequence", "nim", "-o", "x.txt"],  # a nested group's command
    ],
)
def test_usage_errors_exit_2(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(*args)
    assert code == 2, err
    assert out == ""
    assert err.startswith("Usage: ") and "\nError: " in err


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "nimm", "3"],
        ["explain", "nim", "x"],
        ["plot", "sequence", "nimm", "-o", "x.png"],
        ["plot", "table", "wythoff", "--rows", "1000000", "--cols", "1000000", "-o", "x.png"],
        ["diff", "nim", "wythoff"],
        ["query", "nim", "3", "--db", "missing.db"],
    ],
)
def test_other_refusals_exit_1_with_one_error_line(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(*args)
    assert code == 1
    assert out == ""
    one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_exception_is_a_bug_and_keeps_its_traceback():
    from explorer.cli.common import ExplorerGroup

    @click.group(cls=ExplorerGroup)
    def group() -> None:
        pass

    @group.command()
    def broken() -> None:
        raise RuntimeError("a bug")

    @group.command()
    def refused() -> None:
        raise SpecError("line one\nline two")

    result = CliRunner().invoke(group, ["broken"])
    assert isinstance(result.exception, RuntimeError)
    result = CliRunner().invoke(group, ["refused"])
    assert result.exit_code == 1
    assert result.stderr == "Error: line one\\nline two\n"


def test_the_readme_states_the_exit_code_rule():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    assert "exit status 2" in readme and "exit status 1" in readme


def test_a_huge_message_is_cut_in_the_middle():
    code, _, err = run("solve", "nim", "3," * 5000 + "x")
    assert code == 1
    line = one_error_line(err)
    assert len(line) < 2_100
    assert line.endswith("(expected heap sizes, e.g. 3,4,5 (0 for no heap))")


# integer options ----------------------------------------------------------------------------


def integer_options() -> list[tuple[list[str], str]]:
    """(command path, option name) for every integer option of every command."""
    found = []

    def walk(command: click.Command, path: list[str]) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        for param in command.params:
            if isinstance(param.type, click.types.IntParamType):
                found.append((path, param.opts[-1]))

    walk(main, [])
    return found


def test_every_integer_option_is_found():
    names = {(" ".join(path), option) for path, option in integer_options()}
    for expected in [
        ("query", "--offset"),
        ("query", "--limit"),
        ("query", "--grundy"),
        ("build", "--max-states"),
        ("viz", "--max-states"),
        ("export", "--limit"),
        ("export", "--depth"),
        ("viz", "--depth"),
        ("plot table", "--rows"),
    ]:
        assert expected in names


@pytest.mark.parametrize(("path", "option"), integer_options())
def test_every_integer_option_has_a_range(path, option, tmp_path, monkeypatch):
    command = main
    for name in path:
        command = command.commands[name]  # type: ignore[attr-defined]
    param = next(p for p in command.params if p.opts[-1] == option)
    assert isinstance(param.type, click.IntRange)
    assert param.type.min is not None and param.type.max is not None
    assert param.type.max < 2**63
    monkeypatch.chdir(tmp_path)
    arguments = {
        "viz": ["nim", "3", "-o", "x.html"],
        "plot sequence": ["nim", "-o", "x.png"],
        "plot table": ["nim", "-o", "x.png"],
        "plot p-positions": ["nim", "-o", "x.png"],
        "export": ["nim", "-o", "x.csv"],
    }.get(" ".join(path), ["nim", "3"])
    for value in ("9223372036854775808", str(10**30), "-9223372036854775809"):
        code, out, err = run(*path, *arguments, option, value)
        assert code == 2, (path, option, err)
        assert "Invalid value for '" in err and f"'{option}'" in err
        assert "Traceback" not in err and out == ""
    assert list(tmp_path.iterdir()) == []


# numbers in positions and specs ---------------------------------------------------------------

NOT_ASCII = ["²", "３", "٣", "১", "𝟑", "①"]


@pytest.mark.parametrize("digit", NOT_ASCII)
@pytest.mark.parametrize(
    ("spec", "template"),
    [
        ("nim", "3,{}"),
        ("kayles", "{}"),
        ("wythoff", "{},1"),
        ("ferguson", "2,{}"),
        ("staircase", "1,{}"),
        ("chomp", "{}x3"),
        ("chomp", "3x{}"),
        ("chomp", "3,{}"),
        ("queens", "1,{};2,3"),
        ("treblecross", "{}"),
        ("treblecross", "1{}"),
        ("nim + wythoff", "3 + {},1"),
    ],
)
def test_positions_take_ascii_digits_only(spec, template, digit):
    code, out, err = run("solve", spec, template.format(digit))
    assert code == 1, out
    assert "bad position" in one_error_line(err)


@pytest.mark.parametrize("digit", NOT_ASCII)
@pytest.mark.parametrize("template", ["bash:{}", "subtraction:1,{}", "turning:{}"])
def test_specs_take_ascii_digits_only(template, digit):
    code, _, err = run("solve", template.format(digit), "3")
    assert code == 1
    assert "bad " in one_error_line(err)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("subtraction", "Error: subtraction needs a set of moves, e.g. subtraction:1,3,4"),
        ("bash", "Error: bash needs M, the most tokens a move takes, e.g. bash:3"),
        ("octal", "Error: octal needs a code, e.g. octal:0.77"),
    ],
)
def test_a_missing_parameter_is_named(spec, message):
    code, _, err = run("solve", spec, "5")
    assert code == 1
    assert one_error_line(err) == message


def test_a_number_too_long_to_convert_is_refused():
    code, _, err = run("solve", "nim", "9" * 5000)
    assert code == 1
    assert one_error_line(err) == (
        "Error: bad position for nim: a number of 5,000 digits is too long (at most 4,000)"
    )


def test_a_huge_chomp_board_is_refused_before_anything_is_generated():
    code, _, err = run("solve", "chomp", "99999x99999")
    assert code == 1
    assert one_error_line(err) == (
        "Error: position '99999,99999,99999,99999,99999,99999,99999,99999,99...' of chomp is "
        "too large: more than 200,000 states (raise the limit with --max-states)"
    )
    code, _, err = run("explain", "chomp", "99999x99999")
    assert code == 1 and "too large" in one_error_line(err)
    code, _, err = run("solve", "chomp", "2000000x2")
    assert one_error_line(err) == (
        "Error: bad position '2000000x2' for chomp: more than 1,000,000 rows"
    )


young_diagrams = st.lists(st.integers(1, 7), min_size=1, max_size=6).map(
    lambda rows: tuple(sorted(rows, reverse=True))
)


@pytest.mark.slow  # hypothesis: a chomp graph per example
@settings(max_examples=fraction_of_examples(2.4))
@given(young_diagrams, st.integers(1, 400))
def test_chomp_counts_its_states_as_the_graph_has_them(rows, limit):
    chomp = load_game("chomp")
    states = build_graph(chomp, rows).number_of_nodes()
    counted = chomp.count_states(rows, limit)
    if states <= limit:
        assert counted == states
    else:
        assert counted > limit


@settings(max_examples=fraction_of_examples(1.6))
@given(st.integers(0, 12), st.integers(0, 12))
def test_wythoff_counts_its_states_as_the_graph_has_them(x, y):
    wythoff = load_game("wythoff")
    position = wythoff.parse(f"{x},{y}")
    assert wythoff.count_states(position, 10**6) == len(build_graph(wythoff, position))


def test_a_sum_is_refused_at_once_when_one_part_is_counted_too_large():
    code, _, err = run("solve", "nim + chomp", "3 + 99999x99999")
    assert code == 1 and "of chomp is too large" in one_error_line(err)
    pair = load_game("chomp + chomp")
    position = pair.parse("3x3 + 2,1")
    assert (
        pair.count_states(position, 1000) == 19 * 4 == build_graph(pair, position).number_of_nodes()
    )
    # Kayles splits heaps, so it cannot count its states: a sum walks such a part to count it
    mixed = load_game("chomp + kayles")
    start = mixed.parse("3x3 + 2,1")
    assert mixed.count_states(start, 1000) == build_graph(mixed, start).number_of_nodes() == 95
    assert mixed.count_states(start, 50) > 50


# names made visible ---------------------------------------------------------------------------

HOSTILE = ["a\x1b]0;owned\x07", "b\nforged line", "c\u202ed", "e\x1b[2J"]


def test_visible_escapes_control_characters_and_keeps_the_rest():
    from explorer.cli.common import visible

    assert visible("3,4,5") == "3,4,5"
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("one\ntwo\rthree\tfour") == "one\\ntwo\\rthree\\tfour"
    assert visible("rtl\u202eltr\u2028") == "rtl\\u202eltr\\u2028"
    assert visible("é ✓ 漢 \\n") == "é ✓ 漢 \\n"
    for text in HOSTILE:
        assert visible(text).isprintable()


def _hostile_graph(folder: Path) -> Path:
    path = folder / "evil.json"
    path.write_text(
        json.dumps({"vertices": HOSTILE[:3], "edges": [[HOSTILE[0], HOSTILE[1]], HOSTILE[1:3]]})
    )
    return path


def test_every_command_prints_names_visibly(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _hostile_graph(tmp_path)
    db = str(tmp_path / "g.db")
    spec = "dag:evil.json"
    outputs = []
    for args in [
        ["import", "evil.json", "--db", db],
        ["query", spec, HOSTILE[0], "--db", db],
        ["query", spec, "--outcome", "N", "--db", db],
        ["query", spec, HOSTILE[1], "--predecessors", "--db", db],
        ["stats", "--db", db],
        ["stats", spec, "--db", db],
        ["edit", spec, "--add-state", HOSTILE[3], "--add-edge", HOSTILE[3], HOSTILE[2], "--db", db],
        ["solve", spec, HOSTILE[0]],
        ["explain", spec, HOSTILE[0]],
        ["diff", spec, spec, "-p", HOSTILE[1]],
        ["query", spec, "x\x1b[2J", "--db", db],  # an error quoting a name
    ]:
        code, out, err = run(*args)
        outputs.append(out + err)
        assert code == (1 if args[2].startswith("x") else 0), err
    text = "".join(outputs)
    assert not any(ch in text for ch in "\x1b\x07\r\u202e")
    assert "forged line" in text and "\nforged line" not in text
    for name in HOSTILE:
        assert name.encode("unicode_escape").decode() in text


# tables and progress --------------------------------------------------------------------------


def _cells(text: str) -> list[str]:
    return re.findall(r"[^\s│┃┏┓┗┛┡┩└┘┳┻╇┴━─]+", text)


@pytest.mark.parametrize("columns", ["80", "40", "24"])
def test_a_wide_table_piped_or_narrow_keeps_every_value(columns):
    code, out, _ = run("table", "wythoff", "--rows", "3", "--cols", "20", env={"COLUMNS": columns})
    assert code == 0
    assert "…" not in out
    assert all(len(line) <= int(columns) for line in out.splitlines()[1:])
    values = json.loads(run("table", "wythoff", "--rows", "3", "--cols", "20", "--json")[1])
    cells = _cells(out)
    for row in values["values"]:
        for value in row:
            assert str(value) in cells
    assert cells.count("19") >= 2  # column heading 19 and G(0, 19)


def test_a_long_name_in_a_narrow_table_folds_instead_of_being_cut(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = "v" + "0123456789" * 6
    (tmp_path / "long.json").write_text(json.dumps({name: ["end"], "end": []}))
    code, out, _ = run("explain", "dag:long.json", name, env={"COLUMNS": "30"})
    assert code == 0 and "…" not in out
    code, out, _ = run("import", "long.json", env={"COLUMNS": "30"})
    code, out, _ = run("query", "dag:long.json", "--outcome", "N", env={"COLUMNS": "30"})
    assert "…" not in out
    first_column = "".join(
        line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")
    )
    assert first_column.count(name) == 4  # the name column is repeated beside the others


def on_a_terminal(args: list[str], cwd: Path, columns: int = 80, timeout: float = 60) -> str:
    """Run the CLI on a pseudo-terminal COLUMNS wide; everything it wrote."""
    leader, follower = pty.openpty()
    env = dict(os.environ, COLUMNS=str(columns), LINES="24", TERM="xterm")
    env.pop("CI", None)  # rich treats CI as "not interactive" and drops live displays
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        cwd=cwd,
        env=env,
    )
    os.close(follower)
    chunks = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([leader], [], [], 0.5)
        if ready:
            try:
                data = os.read(leader, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        elif process.poll() is not None:
            break
    process.wait(timeout=10)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def _frames(output: str) -> list[str]:
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)
    return [frame for line in plain.split("\n") for frame in line.split("\r") if frame.strip()]


@pytest.mark.slow  # a long build on a terminal
def test_the_build_progress_bar_shows_its_elapsed_time_in_80_columns(tmp_path):
    output = on_a_terminal(["build", "subtraction:1,2", "60,60,60", "--db", "p.db"], tmp_path)
    bars = [f for f in _frames(output) if "building" in f and "states" in f]
    assert bars, output
    for bar in bars:
        assert len(bar) <= 80
        # the time spent, then the time left (the game counts its states)
        assert re.search(r"edges +[\d,]+/s \d:\d\d:\d\d [-\d]:[-\d]{2}:[-\d]{2}$", bar.rstrip()), (
            bar
        )
    assert "complete" in output


@pytest.mark.slow  # long commands on a terminal
@pytest.mark.parametrize(
    ("args", "label"),
    [
        (["export", "nim", "-o", "nim.graphml", "--db", "p.db"], "writing"),
        (["plot", "sequence", "kayles", "--upto", "300", "-o", "k.png"], "plotting"),
        (["plot", "table", "wythoff", "--rows", "60", "--cols", "60", "-o", "w.png"], "plotting"),
    ],
)
def test_export_and_plot_show_progress_on_a_terminal(args, label, tmp_path):
    run("build", "nim", "6,6,6", "--db", str(tmp_path / "p.db"))
    output = on_a_terminal(args, tmp_path)
    frames = [f for f in _frames(output) if f.lstrip(" ⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏").startswith(label)]
    assert frames, output
    assert all(re.search(r"\d:\d\d:\d\d$", f.rstrip()) for f in frames)
    assert "wrote " in output


# honest answers -------------------------------------------------------------------------------


@pytest.mark.slow  # a whole chomp graph
def test_chomp_is_solved_whole_with_its_remoteness():
    code, out, _ = run("solve", "chomp", "8x8", "--json")
    result = json.loads(out)
    assert (result["method"], result["states"]) == ("graph", 12_869)
    assert result["remoteness"] is not None
    chomp = load_game("chomp")
    whole = solve(chomp, chomp.parse("8x8"), method="graph")
    assert result["grundy"] == whole.grundy and result["remoteness"] == whole.remoteness
    code, out, _ = run("solve", "chomp", "8x8")
    assert "decomposition" not in out and "remoteness  " in out


def test_a_single_heap_beyond_the_graph_budget_says_where_its_value_comes_from():
    result = json.loads(run("solve", "kayles", "100", "--json")[1])
    assert result["method"] == "known value" and result["remoteness"] is None


def test_explain_names_every_winning_move_of_a_position_with_many_moves():
    code, out, _ = run("explain", "kayles", "100")
    assert code == 0
    kayles = load_game("kayles")
    winning = solve(kayles, kayles.parse("100")).winning_moves
    assert len(winning) > 1
    explanation = json.loads(run("explain", "kayles", "100", "--json")[1])
    assert len(explanation["successors"]) > 50
    # each winning move named in words, "; " between moves (a comma is inside a move's name)
    names = explanation["move_names"]
    line = next(line for line in out.splitlines() if line.startswith("winning moves: "))
    assert line.removeprefix("winning moves: ").split("; ") == [names[w] for w in winning]
    assert names["1,97"] == "take 2 from 100, leaving 1+97"
