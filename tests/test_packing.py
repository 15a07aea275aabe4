"""A state's moves packed in its row (`explorer.storage.schema.packing`): every encoding packs
and unpacks every adjacency, predecessors are the transpose of successors, and the ``edges``
views read a built game's moves back in the stock ``sqlite3`` shell and on the PostgreSQL
server."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from hypothesis import given
from hypothesis import strategies as st

from explorer import open_database
from explorer.adjacency import Adjacency
from explorer.storage.backends.engine import resolve_url
from explorer.storage.rows.moves import add_moves
from explorer.storage.schema.packing import (
    ENCODINGS,
    MAX_WIDTH,
    Encoding,
    Packed,
    absolute,
    id_width,
    offset_width,
    pack,
    relative,
    unpack,
)
from tests.support.environment import require

Move = tuple[int, int]


@st.composite
def adjacencies(draw: st.DrawFn, largest: int = 2**31 - 1) -> Adjacency:
    """Moves of up to 30 states (some without any) to ids up to `largest`, in any order."""
    size = draw(st.integers(1, 30))
    ids = st.one_of(st.integers(0, min(largest, 300)), st.integers(0, largest))
    lists = draw(st.lists(st.lists(ids, max_size=8, unique=True), min_size=size, max_size=size))
    degree = np.array([len(ids) for ids in lists], dtype=np.int64)
    target = np.array([i for ids in lists for i in ids], dtype=np.int64)
    return Adjacency.from_degrees(degree, target)


def lists(moves: Adjacency, ordered: bool = True) -> list[list[int]]:
    """Each state's ids, as given or sorted."""
    out = [moves.target[a : a + d].tolist() for a, d in zip(moves.start, moves.degree, strict=True)]
    return out if ordered else [sorted(ids) for ids in out]


def pairs(moves: Adjacency) -> set[Move]:
    return {(s, t) for s, ids in enumerate(lists(moves)) for t in ids}


@pytest.mark.parametrize("encoding", ENCODINGS)
@given(moves=adjacencies())
def test_unpack_gives_back_what_pack_packed(encoding: Encoding, moves: Adjacency) -> None:
    packed = pack(moves, encoding)
    back = unpack(packed)
    # fixed and varint keep each state's order; delta keeps its set, sorted
    assert lists(back) == lists(moves, ordered=encoding != "delta")
    assert back.degree.tolist() == moves.degree.tolist()
    # the rows a table stores, read back
    again = Packed.from_blobs(packed.blobs(), encoding, packed.width)
    assert lists(unpack(again)) == lists(back)


@given(moves=adjacencies(largest=2**24 - 1), width=st.integers(3, MAX_WIDTH))
def test_a_fixed_width_holds_each_id_in_so_many_bytes(moves: Adjacency, width: int) -> None:
    packed = pack(moves, "fixed", width)
    assert [len(blob) for blob in packed.blobs()] == (moves.degree * width).tolist()
    for blob, ids in zip(packed.blobs(), lists(moves), strict=True):
        assert blob == b"".join(i.to_bytes(width, "big") for i in ids)
    assert lists(unpack(packed)) == lists(moves)


@given(st.lists(st.tuples(st.integers(0, 2**31 - 1), st.integers(0, 2**31 - 1)), max_size=40))
def test_offsets_fit_the_width_of_the_farthest_move_and_keep_the_order(moves: list[Move]) -> None:
    table = np.array(moves, dtype=np.int64).reshape(-1, 2)
    owners, ids = table[:, 0], table[:, 1]
    width = offset_width(int(np.abs(ids - owners).max(initial=0)))
    if width > 1:  # the fewest bytes: one fewer holds offsets only up to 2**(8 w - 9) - 1
        assert offset_width(2 ** (8 * (width - 1) - 1)) == width
    stored = relative(owners, ids, width)
    assert ((stored >= 0) & (stored < 2 ** (8 * width))).all()
    assert absolute(owners, stored, width).tolist() == ids.tolist()
    # one owner's ids keep their order: a row's blob, sorted, holds its ids sorted
    mine = owners == (owners[0] if len(owners) else 0)
    assert np.argsort(stored[mine], kind="stable").tolist() == (
        np.argsort(ids[mine], kind="stable").tolist()
    )
    packed = pack(Adjacency.from_degrees(np.ones(len(ids), dtype=np.int64), stored), "fixed", width)
    assert [len(blob) for blob in packed.blobs()] == [width] * len(ids)


@given(moves=adjacencies(largest=60))
def test_predecessors_are_the_transpose_of_successors(moves: Adjacency) -> None:
    size = max(moves.size, int(moves.target.max(initial=0)) + 1)
    successors = Adjacency.from_degrees(
        np.concatenate([moves.degree, np.zeros(size - moves.size, dtype=np.int64)]), moves.target
    )
    for encoding in ENCODINGS:
        predecessors = unpack(pack(successors.reversed(), encoding))
        assert predecessors.size == size
        assert {(s, t) for t, s in pairs(predecessors)} == pairs(successors)
        # one stable sort by destination: each state's predecessors come in increasing order
        assert lists(predecessors) == lists(predecessors, ordered=False)


def test_widths_and_bad_blobs_are_refused() -> None:
    assert [id_width(i) for i in (0, 255, 256, 2**24 - 1, 2**24, 2**31 - 1)] == [1, 1, 2, 3, 4, 4]
    with pytest.raises(ValueError, match="outside"):
        id_width(2**32)
    moves = Adjacency.from_degrees(np.array([1]), np.array([70_000]))
    with pytest.raises(ValueError, match="does not fit in 2 bytes"):
        pack(moves, "fixed", 2)
    with pytest.raises(ValueError, match="multiple of the width 3"):
        unpack(Packed.from_blobs([b"\x00\x01"], "fixed", 3))
    with pytest.raises(ValueError, match="ends inside a varint"):
        unpack(Packed.from_blobs([b"\x81", b"\x01"], "varint"))


# -- the views on real databases ------------------------------------------------------------

#: A game of ids wider than any build here makes: one byte, then four.
WIDE_GAME = 99
WIDE_MOVES = [(0, 2**31 - 1), (0, 5), (2**31 - 1, 5), (5, 0), (300, 2**24)]


def packed_game(url: str) -> tuple[int, set[Move]]:
    """Build a small game into `url` (its moves packed in its states' rows) and store a second
    game of wide ids beside it (four bytes an id). The built game's id and moves."""
    with open_database(url) as db:
        db.game("subtraction:1,2").build("6,6,6")
    engine = sa.create_engine(resolve_url(url))
    with engine.begin() as conn:
        (game,) = conn.execute(sa.text("SELECT id FROM games")).one()
        built = {tuple(row) for row in conn.execute(sa.text("SELECT src, dst FROM edges"))}
        build = conn.execute(sa.text("SELECT id FROM builds")).scalar_one()
        conn.execute(
            sa.text(
                "INSERT INTO games (id, spec, family, created_at, convention) "
                "VALUES (:g, 'wide', 'dag', CURRENT_TIMESTAMP, 'normal')"
            ),
            {"g": WIDE_GAME},
        )
        for state in sorted({i for move in WIDE_MOVES for i in move}):
            conn.execute(
                sa.text(
                    "INSERT INTO states (game_id, id, key, depth, expanded, build_id) "
                    "VALUES (:g, :s, :k, 0, true, :b)"
                ),
                {"g": WIDE_GAME, "s": state, "k": str(state), "b": build},
            )
        src, dst = np.array(WIDE_MOVES, dtype=np.int64).T
        add_moves(conn, WIDE_GAME, src, dst)
    engine.dispose()
    return game, built


def test_the_views_read_every_move_in_the_sqlite3_shell(tmp_path: Path) -> None:
    shell = shutil.which("sqlite3")
    if shell is None:
        require("no sqlite3 shell (apt-get install sqlite3)")
    path = tmp_path / "packed.db"
    game, built = packed_game(str(path))

    def ask(sql: str) -> list[tuple[int, ...]]:
        out = subprocess.run(
            [str(shell), "-bail", str(path), sql], capture_output=True, text=True, check=True
        ).stdout
        return [tuple(map(int, line.split("|"))) for line in out.splitlines()]

    every = set(ask("SELECT game_id, src, dst FROM edges"))
    assert every == {(game, *move) for move in built} | {(WIDE_GAME, *m) for m in WIDE_MOVES}
    assert set(ask("SELECT game_id, src, dst FROM edges_in")) == every
    assert ask(f"SELECT dst FROM edges WHERE game_id = {game} AND src = 0 ORDER BY dst") == sorted(
        (d,) for s, d in built if s == 0
    )
    assert ask(f"SELECT src FROM edges_in WHERE game_id = {WIDE_GAME} AND dst = 5") == [
        (0,),
        (2**31 - 1,),
    ]
    with closing(sqlite3.connect(path)) as conn:
        plan = " ".join(
            row[3]
            for row in conn.execute(
                f"EXPLAIN QUERY PLAN SELECT dst FROM edges WHERE game_id = {game} AND src = 7"
            )
        )
    # one state's row read, not a scan
    assert "SEARCH s USING PRIMARY KEY (game_id=? AND id=?)" in plan, plan


@pytest.mark.postgres
def test_the_views_read_every_move_on_postgresql(pg_url: str) -> None:
    game, built = packed_game(pg_url)
    engine = sa.create_engine(resolve_url(pg_url))
    try:
        with engine.connect() as conn:
            every = {tuple(row) for row in conn.execute(sa.text("SELECT * FROM edges"))}
            assert every == {(game, *m) for m in built} | {(WIDE_GAME, *m) for m in WIDE_MOVES}
            backward = {tuple(row) for row in conn.execute(sa.text("SELECT * FROM edges_in"))}
            assert backward == every
            into = conn.execute(
                sa.text("SELECT src FROM edges_in WHERE game_id = :g AND dst = 5 ORDER BY src"),
                {"g": WIDE_GAME},
            )
            assert into.scalars().all() == [0, 2**31 - 1]
    finally:
        engine.dispose()
