"""Long work shows its progress: a total and the time left where the count is known (verify's
stored counts, quotient's heaps), named stages where it is not; here on a real terminal."""

from __future__ import annotations

import re

import explorer
from explorer import open_database
from tests.support.cli import on_a_terminal


def _on_a_terminal(args: list[str], cwd) -> tuple[int, str]:
    """`on_a_terminal`, with what the terminal received as text, escape codes removed."""
    code, received = on_a_terminal(*args, cwd=cwd)
    return code, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", received.decode("utf-8", "replace"))


def test_verify_reports_the_stored_total_before_its_first_step(tmp_path):
    path = tmp_path / "games.db"
    with open_database(str(path)) as db:
        db.game("nim").build("3,4,5")
        calls: list[tuple[str, int, int]] = []
        db.game("nim").verify(progress=lambda *call: calls.append(call))
    assert calls[0] == ("the file's integrity", 0, 0)
    assert calls[1] == ("nim", 0, 48)  # the total, from the stored counts, before any state
    assert calls[-1] == ("nim", 48, 48)
    assert [done for _, done, _ in calls[1:]] == sorted(done for _, done, _ in calls[1:])


def test_verify_on_a_terminal_shows_count_total_and_time_left(tmp_path):
    with open_database(str(tmp_path / "games.db")) as db:
        db.game("nim").build("3,4,5")
    code, shown = _on_a_terminal(["verify", "nim", "--db", "games.db"], tmp_path)
    assert code == 0
    assert re.search(r"verifying .* nim .* 48 of 48 states .*0:00:00", shown), shown


def test_quotient_reports_each_heap_of_the_total():
    calls: list[tuple[int, int]] = []
    explorer.misere_quotient("nim", 12, progress=lambda *call: calls.append(call))
    assert calls[0] == (1, 12) and all(total == 12 for _, total in calls)
    assert [heap for heap, _ in calls] == list(range(1, calls[-1][0] + 1))


def test_quotient_on_a_terminal_shows_heaps_of_the_total(tmp_path):
    code, shown = _on_a_terminal(["quotient", "octal:0.75", "--max-heap", "20"], tmp_path)
    assert code == 0
    assert re.search(r"quotient .*heap +\d+", shown), shown


def test_work_of_unknown_size_shows_a_named_spinner_on_a_terminal(tmp_path):
    for args, label in [
        (["check", "nim", "3,4,5"], "checking nim"),
        (["explain", "kayles", "30"], "explaining kayles"),
        (["viz", "kayles", "40", "-o", "k.html"], "drawing kayles"),
    ]:
        code, shown = _on_a_terminal(args, tmp_path)
        assert code == 0 and label in shown, (args, shown)
