"""Storage test helpers: the CLI run in process, and every stored row of a game."""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from click.testing import CliRunner

from explorer.cli import main
from explorer.storage.engine import resolve_url
from explorer.storage.records import key_index_present


def run(*args: str) -> tuple[int, str, str]:
    """Run the CLI in process: exit code, standard output, standard error."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str) -> Any:
    code, out, err = run(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def has_key_index(url: str) -> bool:
    """Whether the database holds the unique key index (a large build drops it while it
    writes)."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            return key_index_present(conn)
    finally:
        engine.dispose()


def dump(url: str, spec: str, convention: str = "normal") -> dict[str, Any]:
    """Every stored row of a game (in a convention), without provenance columns: states by id,
    and edges."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            game_id = conn.execute(
                sa.text("SELECT id FROM games WHERE spec = :s AND convention = :c"),
                {"s": spec, "c": convention},
            ).scalar_one()
            states = conn.execute(
                sa.text(
                    "SELECT id, key, depth, expanded, grundy, outcome, remoteness, height "
                    "FROM states WHERE game_id = :g ORDER BY id"
                ),
                {"g": game_id},
            ).all()
            edges = conn.execute(
                sa.text("SELECT src, dst FROM edges WHERE game_id = :g ORDER BY src, dst"),
                {"g": game_id},
            ).all()
    finally:
        engine.dispose()
    return {
        "states": [tuple(r[:3]) + (bool(r[3]),) + tuple(r[4:]) for r in states],
        "edges": [tuple(e) for e in edges],
    }
