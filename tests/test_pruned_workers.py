"""The pruned search on several processes (``solve --workers``) against one process: the
same value, outcome and winning moves, on boards and graphs of one component (split by its
first moves) and of several (split by component), and its parts stored with ``--db``."""

from __future__ import annotations

import json

import pytest

from explorer.analysis.parts import PART_TABLE
from tests.support.cli import run

CASES = [
    ("cram", "4x5"),  # one component: its moves asked in the workers
    ("cram", "4x7"),
    ("cram", "..#..../......#/.#...../.....#."),  # filled cells
    ("cram", "...#.../...#.../...#..."),  # two components, one worker each
    ("nodekayles", "3x7"),
    ("nodekayles", "P7+C9+3x3+K3_3"),  # components of several shapes
    ("nodekayles", "a-b,b-c,c-d,d-e,e-a,a-f,f-g,g-h,h-i,c-i,b-j"),  # a graph, not a grid
    ("arckayles", "3x4"),
]


def answer(spec: str, position: str, *options: str) -> dict[str, object]:
    """The JSON answer of a pruned search, from no part known (the command runs in process:
    the values of an earlier run would answer it at once)."""
    PART_TABLE.clear()
    code, out, err = run("solve", spec, position, "--method", "pruned", "--json", *options)
    assert code == 0, err
    found: dict[str, object] = json.loads(out)
    return found


@pytest.mark.parametrize(("spec", "position"), CASES)
def test_two_workers_answer_as_one_process(spec, position):
    one = answer(spec, position)
    two = answer(spec, position, "--workers", "2")
    assert one["method"] == two["method"] == "pruned"
    for field in ("grundy", "outcome", "winning_moves"):
        assert two[field] == one[field], field


def test_the_workers_parts_are_stored_and_read_again(tmp_path):
    from explorer.storage import open_database

    path = str(tmp_path / "w.db")
    first = answer("cram", "4x7", "--workers", "2", "--db", path)
    with open_database(path) as db:
        stored = sum(int(row["parts"]) for row in db.parts.counts())
    assert stored > 100
    again = answer("cram", "4x7", "--db", path)  # one process, from the stored parts
    assert again["grundy"] == first["grundy"] == 3


def test_a_worker_over_its_memory_share_stops_the_run_with_one_error_line():
    PART_TABLE.clear()
    code, out, err = run(
        "solve", "cram", "5x7", "--method", "pruned", "--workers", "2", "--memory", "1"
    )
    assert code == 1 and out == ""
    assert "raise it with --memory" in err and "Traceback" not in err


def stored_value(path: str, label: str) -> int:
    import sqlalchemy as sa

    from explorer.storage import open_database

    with open_database(path) as db, db.engine.connect() as conn:
        query = sa.text("SELECT value FROM part_values WHERE label = :l")
        return int(conn.execute(query, {"l": label}).scalar_one())


def change_stored(path: str, label: str, value: int) -> None:
    import sqlalchemy as sa

    from explorer.storage import open_database

    with open_database(path) as db, db.engine.begin() as conn:
        query = sa.text("UPDATE part_values SET value = :v WHERE label = :l")
        conn.execute(query, {"v": value, "l": label})


def largest_inner_label(path: str) -> str:
    """The stored label of 4 x 5 Cram with the most empty cells, the board's aside."""
    import sqlalchemy as sa

    from explorer.storage import open_database

    with open_database(path) as db, db.engine.connect() as conn:
        labels = conn.execute(sa.text("SELECT label FROM part_values")).scalars().all()
    inner = [label for label in labels if label != "4x5:fffff"]
    return max(inner, key=lambda label: (int(label.split(":")[1], 16).bit_count(), label))


@pytest.mark.parametrize("inner", [False, True])  # the board (the coordinator's), a part
def test_the_workers_refuse_a_changed_stored_value_and_write_nothing(tmp_path, inner):
    path = str(tmp_path / "d.db")
    assert answer("cram", "4x5", "--db", path)["grundy"] == 2
    label = largest_inner_label(path) if inner else "4x5:fffff"
    truth = stored_value(path, label)
    change_stored(path, label, truth + 5)
    PART_TABLE.clear()
    code, out, err = run(
        "solve", "cram", "4x5", "--method", "pruned", "--workers", "2", "--db", path
    )
    assert (code, out) == (1, "")
    assert err.startswith(
        f"Error: the part table stores {truth + 5} for the cram-grid part labelled {label!r}, "
        f"but its moves give {truth}: the stored table is damaged"
    ), err
    assert stored_value(path, label) == truth + 5  # the failed command wrote nothing
