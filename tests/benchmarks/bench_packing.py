"""Benchmark: a state's moves packed in its row (`explorer.storage.schema.packing`), measured on
the moves of a real build: bytes a state and speed of each encoding, then a copy of the database
whose ``edges`` table is replaced by packed columns of ``states`` and the ``edges`` views, its size
(SQLite's ``dbstat``, table by table) and the time of "the moves of X" against the original.

    python tests/benchmarks/bench_packing.py --db w1.db        # a database explorer built
    python tests/benchmarks/bench_packing.py                   # builds 180,180,180 first (1M)
    python tests/benchmarks/bench_packing.py --position 40,40,40   # a smoke run

The copy is made with ``VACUUM INTO``, the ``edges`` table dropped, columns ``successors`` and
``predecessors`` (the ``fixed`` encoding, or the one `--variant` names) added to ``states``
and ``id_width`` to ``games``, filled, and the file vacuumed: the bytes are those of a file
written in order. Queries are timed from Python's ``sqlite3``, each one a fresh statement with
bound parameters as a user's script sends it, over random states, alternating the two files.
The stock ``sqlite3`` shell is run on the copy too, and its answer compared.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from explorer.adjacency import Adjacency  # noqa: E402
from explorer.storage.backends.dialects import PostgreSQL  # noqa: E402
from explorer.storage.schema.packing import (  # noqa: E402
    ENCODINGS,
    Encoding,
    Packed,
    id_width,
    pack,
    unpack,
)
from explorer.storage.tables.edges import ADD_SLOTS, SLOTS, sqlite_slots, views_sql  # noqa: E402

#: The packed copies measured: (successors' encoding, predecessors' encoding).
VARIANTS: dict[str, tuple[Encoding, Encoding]] = {
    "fixed": ("fixed", "fixed"),
    "fixed+delta": ("fixed", "delta"),
    "delta": ("delta", "delta"),
}


def best(action: Callable[[], Any], times: int = 3) -> tuple[float, Any]:
    """The least seconds of `times` calls, and the last result."""
    seconds, result = [], None
    for _ in range(times):
        started = time.perf_counter()
        result = action()
        seconds.append(time.perf_counter() - started)
    return min(seconds), result


def read_moves(db: Path) -> tuple[int, Adjacency]:
    """The game's id and its successors, read once from the ``edges`` table."""
    with sqlite3.connect(db) as conn:
        ((game,),) = conn.execute("SELECT id FROM games").fetchall()
        (states,) = conn.execute(
            "SELECT COUNT(*) FROM states WHERE game_id = ?", (game,)
        ).fetchone()
        started = time.perf_counter()
        rows = conn.execute(
            "SELECT src, dst FROM edges WHERE game_id = ? ORDER BY src, dst", (game,)
        ).fetchall()
        moves = np.array(rows, dtype=np.int64).reshape(-1, 2)
        print(
            f"read {len(moves):,} moves of {states:,} states from edges in "
            f"{time.perf_counter() - started:.2f} s (one SELECT, fetchall, numpy)"
        )
    return game, Adjacency.from_edges(states, moves[:, 0], moves[:, 1])


def encodings(successors: Adjacency, predecessors: Adjacency) -> None:
    """Bytes a state and seconds of each encoding, each direction."""
    states = successors.size
    print(
        f"\n{'':14} {'B/state':>8} {'pack':>7} {'unpack':>7} {'to rows':>8} {'from rows':>9}"
        "   (seconds, best of 3; rows: one bytes a state)"
    )
    for direction, moves in (("successors", successors), ("predecessors", predecessors)):
        for encoding in ENCODINGS:
            packing, packed = best(lambda m=moves, e=encoding: pack(m, e))
            unpacking, back = best(lambda p=packed: unpack(p))
            if encoding == "delta":
                same = np.array_equal(back.target, _sorted(moves).target)
            else:
                same = np.array_equal(back.target, moves.target)
            assert same and np.array_equal(back.degree, moves.degree), encoding
            to_rows, blobs = best(packed.blobs)
            from_rows, _ = best(
                lambda b=blobs, e=encoding, w=packed.width: Packed.from_blobs(b, e, w)
            )
            print(
                f"{direction[:4]} {encoding:9} {len(packed.data) / states:8.2f} {packing:7.3f} "
                f"{unpacking:7.3f} {to_rows:8.3f} {from_rows:9.3f}"
                + (f"   width {packed.width}" if packed.width else "")
            )


def _sorted(moves: Adjacency) -> Adjacency:
    owner = np.repeat(np.arange(moves.size), moves.degree)
    return Adjacency.from_degrees(moves.degree, moves.target[np.lexsort((moves.target, owner))])


def packed_copy(
    db: Path, copy: Path, game: int, moves: tuple[Adjacency, Adjacency], variant: str
) -> float:
    """Write the packed copy of `db` at `copy`; the seconds its filling took."""
    succ_encoding, pred_encoding = VARIANTS[variant]
    successors, predecessors = moves
    width = id_width(successors.size - 1)
    blobs = zip(
        pack(successors, succ_encoding, width).blobs(),
        pack(predecessors, pred_encoding, width).blobs(),
        strict=True,
    )
    copy.unlink(missing_ok=True)
    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM INTO ?", (str(copy),))
    conn = sqlite3.connect(copy, isolation_level=None)
    started = time.perf_counter()
    conn.execute("BEGIN")
    conn.execute("DROP TABLE edges")
    conn.execute("ALTER TABLE states ADD COLUMN successors BLOB")
    conn.execute("ALTER TABLE states ADD COLUMN predecessors BLOB")
    conn.execute("ALTER TABLE games ADD COLUMN id_width INTEGER")
    conn.execute("UPDATE games SET id_width = ? WHERE id = ?", (width, game))
    conn.executemany(
        "UPDATE states SET successors = ?, predecessors = ? WHERE game_id = ? AND id = ?",
        ((s, p, game, state) for state, (s, p) in enumerate(blobs)),
    )
    most = int(max(successors.degree.max(), predecessors.degree.max()))
    conn.execute(f"CREATE TABLE IF NOT EXISTS {SLOTS} (n INTEGER PRIMARY KEY)")
    conn.execute(str(ADD_SLOTS), {"have": 0, "need": most})
    if variant == "fixed":
        for statement in views_sql(sqlite_slots, offsets=False):  # ids as they are
            conn.execute(statement)
    conn.execute("COMMIT")
    filling = time.perf_counter() - started
    conn.execute("VACUUM")
    conn.close()
    return filling


def sizes(db: Path, states: int) -> str:
    """Bytes a state of each table and index (``dbstat``), and of the file."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        ).fetchall()
    parts = ", ".join(f"{name} {size / states:.1f}" for name, size in rows if size / states >= 0.5)
    return f"{db.stat().st_size / states:.1f} B/state ({parts})"


def query_times(
    files: dict[str, Path], game: int, states: int, samples: int
) -> dict[tuple[str, str], list[float]]:
    """Microseconds of each query on each file, over the same random states, alternating."""
    picks = random.Random(43).sample(range(states), samples)
    connections = {name: sqlite3.connect(path) for name, path in files.items()}
    keys = dict(
        connections["today"].execute("SELECT id, key FROM states WHERE game_id = ?", (game,))
    )
    queries = {
        "moves of X": "SELECT dst FROM edges WHERE game_id = ? AND src = ?",
        "moves into X": "SELECT src FROM {into} WHERE game_id = ? AND dst = ?",
        "README moves": "SELECT move_to FROM moves WHERE game = ? AND position = ?",
    }
    spec = connections["today"].execute("SELECT spec FROM games WHERE id = ?", (game,)).fetchone()
    found: dict[tuple[str, str], list[float]] = {}
    answers: dict[tuple[str, str, int], list[int]] = {}
    for state in picks:
        for label, sql in queries.items():
            for name, conn in connections.items():
                text = sql.format(into="edges" if name == "today" else "edges_in")
                bound = (spec[0], keys[state]) if label == "README moves" else (game, state)
                started = time.perf_counter()
                rows = conn.execute(text, bound).fetchall()
                found.setdefault((label, name), []).append(1e6 * (time.perf_counter() - started))
                answers[(label, name, state)] = sorted(row[0] for row in rows)
    for state in picks:
        for label in queries:
            assert len({str(answers[(label, name, state)]) for name in files}) == 1, state
    for conn in connections.values():
        conn.close()
    return found


def postgres(server: str, position: str, samples: int) -> None:
    """The same on PostgreSQL: a build into a new database, its sizes and queries, then the
    moves put into ``bytea`` columns of ``states`` (``edges`` dropped, the views made), the
    table rewritten compact (``VACUUM FULL``, pages filled whole), sizes and queries again."""
    import psycopg
    from sqlalchemy.engine import make_url

    url = make_url(server)
    name = f"bench_packing_{os.getpid()}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    db = url.set(database=name)
    try:
        command = [sys.executable, "-m", "explorer", "build", "subtraction:1,2", position]
        subprocess.run(
            [*command, "--db", db.render_as_string(hide_password=False), "--max-seconds", "0"],
            check=True,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        plain = db.set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(plain, autocommit=True) as conn:
            _postgres_layouts(conn, samples)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _postgres_layouts(conn: Any, samples: int) -> None:
    ((game, states),) = conn.execute(
        "SELECT game_id, COUNT(*) FROM states GROUP BY game_id"
    ).fetchall()

    def size(*relations: str) -> str:
        parts = [
            (r, conn.execute("SELECT pg_total_relation_size(%s)", (r,)).fetchone()[0])
            for r in relations
        ]
        total = sum(b for _, b in parts) / states
        return f"{total:.1f} B/state (" + ", ".join(f"{r} {b / states:.1f}" for r, b in parts) + ")"

    picks = random.Random(43).sample(range(states), samples)

    def times(into: str) -> str:
        found: dict[str, list[float]] = {"moves of X": [], "moves into X": []}
        for state in picks:
            for label, sql in (
                ("moves of X", "SELECT dst FROM edges WHERE game_id = %s AND src = %s"),
                ("moves into X", f"SELECT src FROM {into} WHERE game_id = %s AND dst = %s"),
            ):
                started = time.perf_counter()
                conn.execute(sql, (game, state), prepare=True).fetchall()
                found[label].append(1e6 * (time.perf_counter() - started))
        return ", ".join(
            f"{label} {statistics.median(micros):.0f} us" for label, micros in found.items()
        )

    conn.execute("VACUUM FULL states")
    conn.execute("VACUUM FULL edges")
    print(f"\nPostgreSQL, {states:,} states, load {os.getloadavg()[0]:.2f}")
    print(f"today:  {size('states', 'edges')}; {times('edges')} (median)")
    started = time.perf_counter()
    rows = conn.execute(
        "SELECT src, dst FROM edges WHERE game_id = %s ORDER BY src, dst", (game,)
    ).fetchall()
    moves = np.array(rows, dtype=np.int64).reshape(-1, 2)
    print(f"read every move from edges: {time.perf_counter() - started:.2f} s")
    successors = Adjacency.from_edges(states, moves[:, 0], moves[:, 1])
    predecessors = successors.reversed()
    width = id_width(states - 1)
    conn.execute("ALTER TABLE games ADD COLUMN id_width INTEGER")
    conn.execute("UPDATE games SET id_width = %s WHERE id = %s", (width, game))
    conn.execute("CREATE TEMPORARY TABLE packed (id integer, s bytea, p bytea)")
    with conn.cursor().copy("COPY packed (id, s, p) FROM STDIN") as copy:
        for state, (s, p) in enumerate(
            zip(
                pack(successors, "fixed", width).blobs(),
                pack(predecessors, "fixed", width).blobs(),
                strict=True,
            )
        ):
            copy.write_row((state, s, p))
    conn.execute("ALTER TABLE states ADD COLUMN successors bytea, ADD COLUMN predecessors bytea")
    conn.execute(
        "UPDATE states SET successors = packed.s, predecessors = packed.p FROM packed "
        "WHERE states.game_id = %s AND states.id = packed.id",
        (game,),
    )
    conn.execute("DROP VIEW moves")
    conn.execute("DROP TABLE edges")
    for statement in PostgreSQL().edges_views(offsets=False):  # ids as they are
        conn.execute(statement)
    # each row written once, whole: no room kept for a second write (migration 0010's 50)
    conn.execute("ALTER TABLE states SET (fillfactor = 100)")
    conn.execute("VACUUM FULL states")
    conn.execute("ANALYZE states")
    print(f"packed: {size('states')}; {times('edges_in')} (median)")
    started = time.perf_counter()
    rows = conn.execute(
        "SELECT successors FROM states WHERE game_id = %s ORDER BY id", (game,)
    ).fetchall()
    read = unpack(Packed.from_blobs([bytes(b) for (b,) in rows], "fixed", width))
    assert np.array_equal(read.target, successors.target)
    print(f"read every move, a row a state: {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    lengths, data = conn.execute(
        "SELECT array_agg(length(successors) ORDER BY id), "
        "string_agg(successors, ''::bytea ORDER BY id) FROM states WHERE game_id = %s",
        (game,),
    ).fetchone()
    offset = np.zeros(states + 1, dtype=np.int64)
    np.cumsum(np.array(lengths, dtype=np.int64), out=offset[1:])
    read = unpack(Packed(np.frombuffer(data, dtype=np.uint8), offset, "fixed", width))
    assert np.array_equal(read.target, successors.target)
    print(f"read every move, one aggregate row: {time.perf_counter() - started:.2f} s")
    started = time.perf_counter()
    count = conn.execute("SELECT COUNT(*), SUM(dst) FROM edges").fetchone()
    assert count == (len(moves), int(moves[:, 1].sum())), count
    print(f"every move through the view: {time.perf_counter() - started:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a SQLite database explorer built (one game)")
    parser.add_argument("--position", default="180,180,180", help="else build this position")
    parser.add_argument("--samples", type=int, default=2000, help="states queried")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="packed copies to make")
    parser.add_argument("--keep", type=Path, help="keep the fixed packed copy at this path")
    parser.add_argument("--skip-encodings", action="store_true", help="only the copies")
    parser.add_argument("--postgres", help="a PostgreSQL server's URL: measure there instead")
    args = parser.parse_args()
    if args.postgres:
        postgres(args.postgres, args.position, args.samples)
        return
    scratch = tempfile.TemporaryDirectory()
    folder = Path(scratch.name)
    db = args.db
    if db is None:
        db = folder / "built.db"
        command = [sys.executable, "-m", "explorer", "build", "subtraction:1,2", args.position]
        subprocess.run(
            [*command, "--db", str(db), "--max-seconds", "0"],
            check=True,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    print(f"load {os.getloadavg()[0]:.2f} at the start")
    game, successors = read_moves(db)
    states = successors.size
    started = time.perf_counter()
    predecessors = successors.reversed()
    print(f"predecessors: one stable sort by destination, {time.perf_counter() - started:.2f} s")
    if not args.skip_encodings:
        encodings(successors, predecessors)

    print(f"\ntoday: {sizes(db, states)}")
    files = {"today": db}
    for variant in args.variants.split(","):
        copy = folder / f"packed-{variant}.db"
        filling = packed_copy(db, copy, game, (successors, predecessors), variant)
        print(f"packed {variant:12} {sizes(copy, states)}; filled in {filling:.1f} s")
        if variant == "fixed":
            files["packed"] = copy
        else:
            copy.unlink()
    if "packed" not in files:
        return
    packed = files["packed"]
    shell = subprocess.run(
        ["sqlite3", str(packed), f"SELECT dst FROM edges WHERE game_id = {game} AND src = 0"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    with sqlite3.connect(db) as conn:
        today = [
            str(dst)
            for (dst,) in conn.execute(
                "SELECT dst FROM edges WHERE game_id = ? AND src = 0", (game,)
            )
        ]
    assert shell == today, (shell, today)
    print(f"\nthe sqlite3 shell on the view: moves of state 0 = {' '.join(shell)} (as today)")

    for label, sql in (
        ("every move, forward view", "SELECT COUNT(*), SUM(src), SUM(dst) FROM edges"),
        ("every move, backward view", "SELECT COUNT(*), SUM(src), SUM(dst) FROM edges_in"),
    ):
        seconds, counts = best(lambda q=sql: sqlite3.connect(packed).execute(q).fetchone(), 1)
        print(f"{label}: {counts[0]:,} moves in {seconds:.2f} s (sums {counts[1]}, {counts[2]})")
    with sqlite3.connect(db) as conn:
        seconds, counts = best(
            lambda: conn.execute("SELECT COUNT(*), SUM(src), SUM(dst) FROM edges").fetchone(), 1
        )
    print(
        f"every move, today's table: {counts[0]:,} in {seconds:.2f} s "
        f"(sums {counts[1]}, {counts[2]})"
    )

    def every_move() -> Adjacency:
        with sqlite3.connect(packed) as conn:
            rows = conn.execute(
                "SELECT successors FROM states WHERE game_id = ? ORDER BY id", (game,)
            ).fetchall()
        return unpack(Packed.from_blobs([row[0] for row in rows], "fixed", id_width(states - 1)))

    seconds, read = best(every_move)
    assert np.array_equal(read.target, successors.target)
    print(f"every move from the successors' column into arrays: {seconds:.2f} s (best of 3)")

    found = query_times(files, game, states, args.samples)
    print(f"\n{args.samples} random states, microseconds a query (median, quartiles):")
    for (label, name), micros in sorted(found.items()):
        q1, median, q3 = statistics.quantiles(micros, n=4)
        print(f"  {label:13} {name:7} {median:7.1f}  ({q1:.1f}-{q3:.1f})")
    print(f"load {os.getloadavg()[0]:.2f} at the end")
    if args.keep is not None:
        packed.rename(args.keep)
    scratch.cleanup()


if __name__ == "__main__":
    main()
