"""Databases for the tests: a fresh one on each backend, and reading one behind explorer's
back (every stored row of a game or of the whole database, whether the key index is there)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from explorer.storage.backends.engine import resolve_url
from explorer.storage.rows.records import key_index_present


def fresh_url(kind: str, request: pytest.FixtureRequest, folder: Path) -> Iterator[str]:
    """A new SQLite file in `folder`, or a new PostgreSQL schema (chosen through the
    connection's search_path) dropped when the generator ends; PostgreSQL comes from the
    `postgres_url` fixture, so the test skips (or fails in CI) without a server."""
    if kind == "sqlite":
        yield str(folder / f"games-{uuid.uuid4().hex[:6]}.db")
        return
    base = resolve_url(request.getfixturevalue("postgres_url"))
    schema = "test_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    try:
        yield (
            make_url(base)
            .update_query_dict({"options": f"-csearch_path={schema}"})
            .render_as_string(hide_password=False)
        )
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()


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


def content(url: str, spec: str, convention: str = "normal") -> dict[str, Any]:
    """A game's stored graph as an export sees it, ids aside: every state's key, values,
    depth and expanded flag, and every move as two keys, sorted, with the game's counts."""
    rows = dump(url, spec, convention)
    key = {state[0]: state[1] for state in rows["states"]}
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            counts = conn.execute(
                sa.text(
                    "SELECT c.kind, c.value, c.count FROM state_counts AS c "
                    "JOIN games AS g ON g.id = c.game_id WHERE g.spec = :s AND g.convention = :c"
                ),
                {"s": spec, "c": convention},
            ).all()
    finally:
        engine.dispose()
    return {
        "states": sorted(state[1:] for state in rows["states"]),
        "edges": sorted((key[a], key[b]) for a, b in rows["edges"]),
        "counts": sorted(tuple(c) for c in counts),
    }


def every_row(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table, sorted: the database's whole content."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.connect() as conn:
            tables = sa.inspect(conn).get_table_names()
            rows = {t: conn.execute(sa.text(f"SELECT * FROM {t}")).all() for t in tables}
            return {t: sorted(tuple(map(repr, row)) for row in found) for t, found in rows.items()}
    finally:
        engine.dispose()


def change_move(url: str, game_id: int, src: int, dst: int, *, add: bool) -> None:
    """Add the move `src` -> `dst` of a game, or take it away, behind explorer's back, as a
    user with a SQL shell could: each end's packed column (``games.id_width`` bytes an id,
    big-endian, each the id's offset from the row's own id plus half of what the width
    holds) read, changed and written back."""
    engine = sa.create_engine(resolve_url(url))
    try:
        with engine.begin() as conn:
            params = {"g": game_id}
            width = conn.execute(
                sa.text("SELECT id_width FROM games WHERE id = :g"), params
            ).scalar()
            width = int(width or 2)
            bias = 1 << (8 * width - 1)
            for column, state, other in (("successors", src, dst), ("predecessors", dst, src)):
                where = "WHERE game_id = :g AND id = :s"
                blob = conn.execute(
                    sa.text(f"SELECT {column} FROM states {where}"), {**params, "s": state}
                ).scalar()
                blob = bytes(blob or b"")
                ids = [
                    int.from_bytes(blob[i : i + width], "big") - bias + state
                    for i in range(0, len(blob), width)
                ]
                if add:
                    ids.append(other)
                else:
                    assert other in ids, (src, dst)  # a damage that changes nothing tests nothing
                    ids.remove(other)
                changed = b"".join((i - state + bias).to_bytes(width, "big") for i in ids) or None
                conn.execute(
                    sa.text(f"UPDATE states SET {column} = :b {where}"),
                    {**params, "s": state, "b": changed},
                )
    finally:
        engine.dispose()
