"""Refusals a hostile tester found unclear (issue 35): each is one ``Error:`` line that says
what is wrong, given before any output, and ``verify`` reports a damaged database of a game
with cycles instead of a traceback (SQLite and PostgreSQL)."""

from __future__ import annotations

import sqlalchemy as sa

from tests.support.cli import run, run_json
from tests.support.environment import DATA
from tests.support.storage import resolve_url


def one_error(args: tuple[str, ...], *expected: str, code: int = 1) -> str:
    got, out, err = run(*args)
    assert got == code, (args, out, err)
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    for part in expected:
        assert part in err, (part, err)
    return out


def test_check_takes_a_position_or_upto_not_both() -> None:
    args = ("check", "nim", "3,4,5", "--upto", "5", "--p", "a ^ b ^ c == 0")
    code, out, err = run(*args)
    assert code == 2 and out == "", err  # a usage error: the usage, then one Error: line
    assert err.splitlines()[-1] == (
        "Error: give POSITION (the positions reachable from it) or --upto N (the positions "
        "0..N), not both"
    )


def test_sweep_refuses_before_printing_a_row() -> None:
    out = one_error(("sweep", "tb:0.{2..4}", "--upto", "20"), "names 'tb:0.2,3'")
    assert out == ""


def test_specs_take_ascii_digits_only() -> None:
    for spec in ("tb:0.{\u0663}", "bash:\uff11..\uff13", "subtraction:\u0661,2"):
        one_error(("solve", spec, "5"), "is not an ASCII digit")


def test_a_module_without_a_file_of_its_own_says_so() -> None:
    one_error(("solve", "py:os.path:join", "3"), "'os' exists", "'os.path' is no file in it")
    one_error(("solve", "py:sys:exit", "3"), "'sys' has no Python source file")
    one_error(("solve", "py:no_such_module_x.mod:g", "3"), "not found")


def test_a_claim_out_of_memory_says_why() -> None:
    one_error(
        ("check", "nim", "--upto", "3", "--p", "len([0] * 10**13) > 0"),
        "raised OverflowError: a repeated sequence has about 10,000,000,000,000 items: a claim "
        "computes with at most 1,048,576",
    )


DAMAGE = {
    "garbage escapes": ("UPDATE states SET escapes = 'x,@' WHERE key = 'd'", "no set of values"),
    # the moves are packed in the states' rows: text where a state's successors are
    "text in an edge": (
        "UPDATE states SET successors = 'zz' WHERE id = 0",
        "holds what no build writes",
    ),
    "marked a DAG": (
        "UPDATE games SET family = 'dag', spec = REPLACE(spec, 'graph:', 'dag:')",
        "lead into a cycle",
    ),
}


def test_verify_reports_a_damaged_loopy_database(db_url: str) -> None:
    run_json("import", f"graph:{DATA / 'loopy.json'}", "--db", db_url)
    engine = sa.create_engine(resolve_url(db_url))
    try:
        for case, (statement, expected) in DAMAGE.items():
            with engine.connect() as conn:
                saved = conn.execute(sa.text("SELECT successors FROM states WHERE id = 0"))
                moves = saved.scalar()
                conn.rollback()
                transaction = conn.begin()
                if case == "text in an edge" and engine.dialect.name == "postgresql":
                    transaction.rollback()
                    continue  # a PostgreSQL integer column refuses text: nothing to verify
                conn.execute(sa.text(statement))
                transaction.commit()
            try:
                code, out, err = run("verify", "--db", db_url)
                assert code == 1 and expected in out, (case, out, err)
                assert "Traceback" not in out + err
            finally:
                with engine.begin() as conn:  # undo it for the next case
                    undo_damage(conn, case, moves)
    finally:
        engine.dispose()


def undo_damage(conn: sa.Connection, case: str, moves: bytes | None) -> None:
    if case == "garbage escapes":
        conn.execute(sa.text("UPDATE states SET escapes = '0' WHERE key = 'd'"))
    elif case == "text in an edge":
        conn.execute(sa.text("UPDATE states SET successors = :b WHERE id = 0"), {"b": moves})
    else:
        conn.execute(
            sa.text("UPDATE games SET family = 'graph', spec = REPLACE(spec, 'dag:', 'graph:')")
        )
