"""The part table in a database: read before a computation, added to after, shared by runs
and by processes filling it at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
import sqlalchemy as sa

from explorer import load_game, open_database
from explorer.analysis.parts import PART_TABLE
from explorer.analysis.solving import grundy_value
from explorer.errors import StoredPartError
from explorer.games.grids import grid_rules
from tests.support.cli import run, run_json, run_ok
from tests.support.environment import REPO


def stored_rows(url: str) -> int:
    with open_database(url) as db:
        return sum(int(row["parts"]) for row in db.parts.counts())


def run_once(url: str, spec: str, text: str) -> tuple[int, int]:
    """One run as a new process would do it: an empty part table, filled from the database;
    its value and the parts it had to value itself."""
    PART_TABLE.clear()
    game = load_game(spec)
    with open_database(url) as db, db.parts.shared(game):
        value = grundy_value(game, game.parse(text))
        computed = PART_TABLE.computed
    PART_TABLE.clear()
    return int(value), computed


def test_a_second_run_values_only_the_new_parts(db_url):
    _, first = run_once(db_url, "nodekayles", "3x4")
    assert first > 0 and stored_rows(db_url) == first
    # alone, 3x5 values every part of its own; after 3x4, only those 3x4 did not have
    _, alone = run_once(
        db_url.replace(".db", "-alone.db") if "://" not in db_url else "sqlite://",
        "nodekayles",
        "3x5",
    )
    value, second = run_once(db_url, "nodekayles", "3x5")
    assert stored_rows(db_url) == first + second
    assert 0 < second < alone
    # a third run over both finds every part stored
    assert run_once(db_url, "nodekayles", "3x4+3x5") == (
        value ^ run_once(db_url, "nodekayles", "3x4")[0],
        0,
    )


def test_stored_values_are_the_brute_forces(db_url):
    run_once(db_url, "cram", "3x4")
    game = load_game("cram")
    PART_TABLE.clear()
    fresh = grundy_value(game, game.parse("3x4"))
    PART_TABLE.clear()
    with open_database(db_url) as db, db.parts.shared(game) as read:
        assert read == stored_rows(db_url) > 0
        assert grundy_value(game, game.parse("3x4")) == fresh
    PART_TABLE.clear()


FILL = """
import sys
from explorer import load_game
from explorer.analysis.solving import grundy_value
from explorer import open_database
game = load_game("nodekayles")
with open_database(sys.argv[1]) as db, db.parts.shared(game):
    for text in sys.argv[2:]:
        grundy_value(game, game.parse(text))
"""


@pytest.mark.postgres
@pytest.mark.slow
def test_two_processes_filling_the_table_at_once_lose_nothing(pg_url, tmp_path):
    open_database(pg_url).close()  # the schema, made once
    texts_a = ["3x5", "4x4", "P12+C9"]
    texts_b = ["4x4", "3x5", "W8", "K3_4"]
    runs = [
        subprocess.Popen([sys.executable, "-c", FILL, pg_url, *texts], cwd=REPO)
        for texts in (texts_a, texts_b)
    ]
    assert [run.wait(timeout=300) for run in runs] == [0, 0]
    # every part either run valued is stored: one run over all of them values nothing new
    sqlite = str(tmp_path / "alone.db")
    PART_TABLE.clear()
    _, alone = run_once(sqlite, "nodekayles", "+".join(sorted({*texts_a, *texts_b})))
    assert stored_rows(pg_url) == alone
    assert run_once(pg_url, "nodekayles", "+".join(sorted({*texts_a, *texts_b})))[1] == 0


def build_once(url: str, spec: str, text: str) -> tuple[Any, int]:
    """A build as a new process would make it; its report and the parts it valued itself."""
    PART_TABLE.clear()
    with open_database(url) as db:
        report = db.game(spec).build(text)
    computed = PART_TABLE.computed
    PART_TABLE.clear()
    return report, computed


def test_a_second_build_values_only_the_new_parts(db_url, tmp_path):
    report, first = build_once(db_url, "nodekayles", "P7+C5")
    assert first > 0 and stored_rows(db_url) == first
    assert report.grundy == grundy_value("nodekayles", "P7+C5")  # the build's own retrograde
    # alone, P9+K3_3 values every part of its own; after P7+C5, only those it did not have
    _, alone = build_once(str(tmp_path / "alone.db"), "nodekayles", "P9+K3_3")
    report, second = build_once(db_url, "nodekayles", "P9+K3_3")
    assert 0 < second < alone
    assert stored_rows(db_url) == first + second
    assert report.grundy == grundy_value("nodekayles", "P9+K3_3")
    # another game of the family (the sequence form) finds every part stored
    report, third = build_once(db_url, "nodekayles:P", "P6+C5")
    assert (third, report.status) == (0, "complete")


def test_a_build_cut_short_values_no_part_ahead(db_url):
    PART_TABLE.clear()
    with open_database(db_url) as db:
        report = db.game("nodekayles").build("4x4", max_states=20)
    assert report.status == "stopped" and PART_TABLE.computed == 0
    assert stored_rows(db_url) == 0


def test_stats_give_the_part_table_size_and_hit_rate(tmp_path):
    path = str(tmp_path / "s.db")
    run_ok("build", "cram", "3x3", "--db", path)
    run_ok("solve", "cram", "3x4", "--db", path)
    stats = run_json("stats", "cram", "--db", path)
    (row,) = stats["parts"]
    assert row["family"] == "cram" and row["parts"] == stored_rows(path) > 0
    assert 0 < row["hits"] <= row["lookups"] and row["hit_rate"] == round(
        row["hits"] / row["lookups"], 4
    )
    listed = run_json("stats", "--db", path)
    assert [game["parts"] for game in listed] == [[row]]
    text = run_ok("stats", "cram", "--db", path)
    assert "part table" in text and f"{row['hit_rate']:.1%}" in text
    # a game without part labels has no such key
    run_ok("build", "nim", "2,3", "--db", path)
    assert "parts" not in run_json("stats", "nim", "--db", path)


def test_stats_parts_give_the_table_without_a_stored_game(tmp_path):
    path = str(tmp_path / "p.db")
    run_ok("solve", "nodekayles", "P20+C14", "--db", path)  # stores part values, no game
    assert run_json("stats", "--db", path) == []
    (row,) = run_json("stats", "--parts", "--db", path)
    assert row["family"] == "nodekayles" and row["parts"] == stored_rows(path) > 0
    assert run_json("stats", "nodekayles:P", "--parts", "--db", path) == [row]
    assert run_json("stats", "cram", "--parts", "--db", path) == []
    assert "the part table is empty" in run_ok("stats", "cram", "--parts", "--db", path)


def explorer_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``explorer ARGS`` in a new process (whose part table starts empty, as a user's does)."""
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=300,
    )


def change_part(url: str, family: str, value: int) -> tuple[str, int]:
    """Change the stored value of a family's part with the longest label to `value`; that
    label and its value before."""
    with open_database(url) as db, db.engine.begin() as conn:
        label, before = conn.execute(
            sa.text(
                "SELECT label, value FROM part_values WHERE family = :f "
                "ORDER BY LENGTH(label) DESC, label LIMIT 1"
            ),
            {"f": family},
        ).one()
        conn.execute(
            sa.text("UPDATE part_values SET value = :v WHERE family = :f AND label = :l"),
            {"v": value, "f": family, "l": label},
        )
    return str(label), int(before)


def test_a_changed_part_value_is_found_by_verify_and_never_served(db_url):
    text = "W7+K3_3"  # two parts, no grid (a grid's parts go to the pruned search's table)
    solved = explorer_process("solve", "nodekayles", text, "--db", db_url, "--method", "decompose")
    assert solved.returncode == 0, solved.stderr
    assert run_json("verify", "--db", db_url)["ok"]
    label, truth = change_part(db_url, "nodekayles", 9)
    code, out, _ = run("verify", "--db", db_url)
    assert code == 1
    assert (
        f"part table nodekayles {label}: part: stored 9, the mex over its moves is {truth}" in out
    )
    for position in (text, "W7"):
        refused = explorer_process(
            "solve", "nodekayles", position, "--method", "decompose", "--db", db_url
        )
        assert (refused.returncode, refused.stdout) == (1, "")
        assert refused.stderr == (
            f"Error: the part table stores 9 for the nodekayles part labelled {label!r}, but its "
            f"moves give {truth}: the stored table is damaged (explorer verify lists every wrong "
            "part; delete the wrong rows of part_values, or the table, and they are valued again)\n"
        )
    # a part the table holds already in the process keeps its value: the stored one is refused
    PART_TABLE.clear()
    game = load_game("nodekayles")
    assert grundy_value(game, game.parse("W7")) == truth
    with pytest.raises(StoredPartError), open_database(db_url) as db, db.parts.shared(game):
        pass
    PART_TABLE.clear()


@pytest.mark.parametrize(
    ("spec", "text", "family"),
    [
        ("cram", "3x4", "cram"),
        ("arckayles", "P6+C7", "arckayles"),
        ("hackenbush", "g-a,a-b,b-c,c-g,c-d,d-d,g-e,e-e", "hackenbush"),
        ("nodekayles", "W7+K3_3", "nodekayles"),
    ],
)
def test_verify_values_every_stored_part_again_from_its_label(tmp_path, spec, text, family):
    path = str(tmp_path / "p.db")
    assert (
        explorer_process("solve", spec, text, "--db", path, "--method", "decompose").returncode == 0
    )
    checked = run_json("verify", "--db", path)
    (row,) = checked["games"]
    assert checked["ok"] and row["game"] == f"part table {family}"
    assert row["states"] == stored_rows(path) > 1 and row["unit"] == "parts"
    label, _ = change_part(path, family, 9)
    checked = run_json_failing("verify", "--db", path)
    assert [(m["position"], m["check"]) for m in checked["mismatches"]] == [(label, "part")]
    # a label that is no canonical label is found too
    with open_database(path) as db, db.engine.begin() as conn:
        conn.execute(
            sa.text("UPDATE part_values SET label = label || '.0' WHERE label = :l"), {"l": label}
        )
    checked = run_json_failing("verify", "--db", path)
    assert [m["check"] for m in checked["mismatches"]] == ["part"]
    detail = checked["mismatches"][0]["detail"]
    assert detail.startswith(("the label is not canonical", "the label is no part's label"))
    # --no-rules runs no rules: the part table is said not to be checked
    (row,) = run_json("verify", "--db", path, "--no-rules")["games"]
    assert row["rules"] == "part values not checked (--no-rules)"


def run_json_failing(*args: str) -> Any:
    """Run ``explorer ARGS --json``, which must exit 1 having found damage, and read it."""
    code, out, err = run(*args, "--json")
    assert code == 1 and err.startswith("Error: "), err
    return json.loads(out)


@pytest.mark.parametrize(("spec", "text"), [("nodekayles", "4x4"), ("cram", "2x3")])
def test_solve_with_a_database_stores_the_parts_even_when_its_graph_answers(tmp_path, spec, text):
    # a small position is solved by its whole graph; --db still adds its parts to the table
    path = str(tmp_path / "pv.db")
    solved = run_json("solve", spec, text, "--db", path)
    assert solved["method"] == "graph"
    rows = run_json("stats", "--parts", "--db", path)
    assert len(rows) == 1 and rows[0]["parts"] == stored_rows(path) > 0
    # and what it stored values the position as the graph did, a second run valuing nothing
    assert run_once(path, spec, text) == (solved["grundy"], 0)


def test_a_changed_grid_value_is_not_served_by_the_pruned_search(tmp_path):
    path = str(tmp_path / "g.db")
    solved = explorer_process("solve", "cram", "3x4", "--method", "pruned", "--db", path)
    assert solved.returncode == 0, solved.stderr
    with open_database(path) as db, db.engine.begin() as conn:  # the whole board: 1, as 6
        conn.execute(sa.text("UPDATE part_values SET value = 6 WHERE label = '3x4:fff'"))
    refused = explorer_process("solve", "cram", "3x4", "--method", "pruned", "--db", path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.startswith(
        "Error: the part table stores 6 for the cram-grid part labelled '3x4:fff', but its "
        "moves give 1: the stored table is damaged"
    )
    checked = run_json_failing("verify", "--db", path)
    assert [(m["position"], m["detail"]) for m in checked["mismatches"]] == [
        ("3x4:fff", "stored 6, the mex over its moves is 1")
    ]


@pytest.mark.parametrize(
    ("spec", "board", "root"), [("cram", "4x5", "4x5:fffff"), ("nodekayles", "3x5", "3x5:7fff")]
)
def test_a_changed_inner_grid_value_is_found_by_verify_and_never_served(db_url, spec, board, root):
    # the pruned search fills the grid table; a part inside the board is changed, and the
    # board's own row deleted, so that the search must use the changed part to value it
    solved = explorer_process("solve", spec, board, "--method", "pruned", "--db", db_url)
    assert solved.returncode == 0, solved.stderr
    assert run_json("verify", "--db", db_url)["ok"]
    family = f"{spec}-grid"
    rules = grid_rules(spec)
    children = {rules.label(part) for move in rules.moves(rules.key(root)) for part in move}
    with open_database(db_url) as db, db.engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM part_values WHERE label = :l"), {"l": root})
        rows = conn.execute(
            sa.text("SELECT label, value FROM part_values WHERE family = :f"), {"f": family}
        ).all()
        # the largest part that is not one move from the board (those a solve asks for)
        label, truth = max(
            (row for row in rows if row.label not in children),
            key=lambda row: (rules.size(rules.key(row.label)), row.label),
        )
        conn.execute(
            sa.text("UPDATE part_values SET value = :v WHERE family = :f AND label = :l"),
            {"v": truth + 1, "f": family, "l": label},
        )
    checked = run_json_failing("verify", "--db", db_url)  # (a part it leaves may show too)
    assert (label, f"stored {truth + 1}, the mex over its moves is {truth}") in [
        (m["position"], m["detail"]) for m in checked["mismatches"]
    ]
    refused = explorer_process("solve", spec, board, "--method", "pruned", "--db", db_url)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr == (
        f"Error: the part table stores {truth + 1} for the {family} part labelled {label!r}, "
        f"but its moves give {truth}: the stored table is damaged (explorer verify lists every "
        "wrong part; delete the wrong rows of part_values, or the table, and they are valued "
        "again)\n"
    )
