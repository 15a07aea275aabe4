"""The SQL on the ``states`` and ``edges`` tables lives in few modules: the tables' own
(`explorer.storage.tables`), and the checks `explorer verify` makes, written again from the
definitions on purpose (`explorer.build.verify_checks`). Any other module calls their statements."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "explorer"
#: The modules that may write SQL on each table.
ALLOWED = {
    "states": {"storage/tables/states.py", "storage/tables/edges.py", "build/verify_checks.py"},
    "edges": {"storage/tables/states.py", "storage/tables/edges.py", "build/verify_checks.py"},
}


def sql_on(table: str) -> re.Pattern[str]:
    """A line with SQL on `table`: a clause naming it, an alias of it, SQLAlchemy Core on its
    model or on a table of that name, or a table whose name is filled in at run time (which
    might be it)."""
    model = {"states": "StateTable", "edges": "EdgeTable"}[table]
    # SQL keywords in capitals, as the package writes SQL (and English does not)
    return re.compile(
        rf"\b(FROM|INTO|UPDATE|JOIN|TABLE|ON|COPY)\s+{table}\b"
        rf"|\b{table}\s+AS\s+[a-z]\b"
        rf"|\b(select|insert|update|delete)\(\s*{model}\b"
        rf"|\btable\(\s*['\"]{table}['\"]"
        r"|\b(FROM|INTO|UPDATE|JOIN|COPY)\s+\{(?!NEW_VALUES\}|EDGES_THEN_STATES\})"
    )


def modules_with_sql_on(table: str) -> set[str]:
    pattern = sql_on(table)
    return {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if pattern.search(path.read_text())
    }


@pytest.mark.parametrize("table", ["states", "edges"])
def test_sql_on_a_table_lives_in_at_most_three_modules(table):
    found = modules_with_sql_on(table)
    assert found <= ALLOWED[table], f"SQL on {table} outside its modules: {found - ALLOWED[table]}"
    assert len(ALLOWED[table]) <= 3


@pytest.mark.parametrize(
    "line",
    [
        '"SELECT key FROM states WHERE game_id = :g"',
        '"UPDATE states SET expanded = :yes"',
        '"INSERT INTO states (game_id, id) VALUES "',
        "f\"COPY states ({', '.join(columns)}) FROM STDIN\"",
        '"SELECT s.key FROM edges AS e JOIN states AS s ON s.id = e.dst"',
        '"... states AS s WHERE s.game_id = :g"',
        "sa.update(StateTable).where(StateTable.game_id == g)",
        'sa.table("states", sa.column("key"))',
        'f"SELECT COUNT(*) FROM {t}"',
        '"DELETE FROM states WHERE game_id = :g"',
    ],
)
def test_the_search_finds_each_spelling(line):
    assert sql_on("states").search(line)


@pytest.mark.parametrize(
    "line",
    [
        '"states": total("states")',
        "# the states of a game",
        'counts.get("states", {})',
        'f"the moves from {key} to states"',
        '"the unique index on states (game_id, key) is missing"',
    ],
)
def test_the_search_leaves_other_uses_of_the_word(line):
    assert not sql_on("states").search(line)
