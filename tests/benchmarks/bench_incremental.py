"""Benchmark: a single-edge edit plus incremental re-solve against a full re-solve.

Imports a random DAG of STATES states into a database (SQLite by default, or --db URL), then
times a full re-solve of the stored graph (read every edge, solve, write every value) and a
series of random single-edge edits (add or remove one move) each re-solved incrementally, and
reports the ratio. Finally every stored value is checked against a solve from scratch.

    python tests/benchmarks/bench_incremental.py [--states 1000000] [--edits 20] [--db URL]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time

import numpy as np
import sqlalchemy as sa

from explorer import open_database
from explorer.adjacency import Adjacency
from explorer.solver.arrays import solve_adjacency
from explorer.solver.incremental import Edit
from explorer.storage.backends.bulk import read_int_columns


def write_dag(path: str, states: int, seed: int) -> int:
    """An edge list where state i moves to up to six states among the 1000 below it.

    Moves only go down in number, so the graph is acyclic; the window keeps it deep (like a
    heap game: thousands of levels), not a shallow tangle.
    """
    rng = np.random.default_rng(seed)
    degree = rng.integers(0, 7, size=states)
    degree[0] = 0
    edges = 0
    with open(path, "w", encoding="utf-8") as out:
        for start in range(0, states, 100_000):
            lines = []
            for i in range(start, min(states, start + 100_000)):
                low = max(0, i - 1000)
                k = min(int(degree[i]), i - low)
                if k:
                    targets = rng.choice(np.arange(low, i), size=k, replace=False)
                    lines.extend(f"s{i} s{j}" for j in targets.tolist())
                else:
                    lines.append(f"s{i}")
                edges += k
            out.write("\n".join(lines) + "\n")
    return edges


def stored_values(engine: sa.Engine, game_id: int) -> tuple[np.ndarray, ...]:
    with engine.connect() as conn:
        return tuple(
            read_int_columns(
                conn,
                "SELECT id, grundy, remoteness FROM states WHERE game_id = :g ORDER BY id",
                {"g": game_id},
                3,
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=1_000_000)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument(
        "--db", default=None, help="database URL (default: a temporary SQLite file)"
    )
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="bench_incremental_")
    path = os.path.join(work, "random.edges")
    url = args.db or os.path.join(work, "bench.db")
    started = time.perf_counter()
    edges = write_dag(path, args.states, args.seed)
    seconds = time.perf_counter() - started
    print(f"graph file: {args.states:,} states, {edges:,} edges ({seconds:.1f} s)")

    db = open_database(url)
    report = db.import_graph(path)
    spec = report.game
    print(f"import: {report.seconds:.1f} s")
    with db.engine.connect() as conn:
        game_id = conn.execute(
            sa.text("SELECT id FROM games WHERE spec = :s"), {"s": spec}
        ).scalar_one()
        src, dst = read_int_columns(
            conn, "SELECT src, dst FROM edges WHERE game_id = :g", {"g": game_id}, 2
        )

    started = time.perf_counter()
    db.game(spec).resolve()
    full = time.perf_counter() - started
    started = time.perf_counter()
    solve_adjacency(Adjacency.from_edges(args.states, src, dst))
    in_memory = time.perf_counter() - started
    print(f"full re-solve (read every edge, solve, write every value): {full:.2f} s")
    print(f"  the solve alone, in numpy from edge arrays in memory: {in_memory:.2f} s")

    rng = random.Random(args.seed)
    existing = set(zip(src.tolist(), dst.tolist(), strict=True))
    edge_list = list(existing)

    def random_edit(low: int, high: int) -> Edit:
        """Add or remove (alternately) one move out of a state numbered in [low, high)."""
        if rng.random() < 0.5:
            while True:
                i = rng.randrange(max(1, low), high)
                j = rng.randrange(max(0, i - 1000), i)
                if (i, j) not in existing:
                    existing.add((i, j))
                    return Edit(add_edges=((f"s{i}", f"s{j}"),))
        while True:
            i, j = edge_list[rng.randrange(len(edge_list))]
            if low <= i < high and (i, j) in existing:
                existing.discard((i, j))
                return Edit(remove_edges=((f"s{i}", f"s{j}"),))

    scenarios = [
        ("anywhere", 0, args.states),
        ("near the end of the game (states s1..s3000, below almost everything)", 1, 3000),
    ]
    medians = []
    for title, low, high in scenarios:
        print(f"single-edge edits {title}:")
        times, reexamined = [], []
        for _ in range(args.edits):
            edit = random_edit(low, high)
            started = time.perf_counter()
            result = db.game(spec).edit(edit)
            times.append(time.perf_counter() - started)
            reexamined.append(result.reexamined)
            print(
                f"  {edit.describe():<30} {times[-1] * 1000:9.1f} ms"
                f"  re-examined {result.reexamined:>8,}  changed {result.changed:>8,}"
                f"  heights raised {result.reordered:>6,}"
            )
        median = statistics.median(times)
        medians.append(median)
        print(
            f"  median {median * 1000:.1f} ms, mean {statistics.mean(times) * 1000:.1f} ms, "
            f"max {max(times) * 1000:.1f} ms; re-examined median "
            f"{statistics.median(reexamined):,.0f}, max {max(reexamined):,} states"
        )
        print(
            f"  full re-solve / median edit = {full / median:,.0f}x "
            f"(against the in-memory solve alone: {in_memory / median:,.0f}x)"
        )

    # every stored value equals a solve from scratch of the edited graph
    with db.engine.connect() as conn:
        src, dst = read_int_columns(
            conn, "SELECT src, dst FROM edges WHERE game_id = :g", {"g": game_id}, 2
        )
    ids, grundy, far = stored_values(db.engine, game_id)
    g, r, _ = solve_adjacency(Adjacency.from_edges(int(ids[-1]) + 1, src, dst))
    assert np.array_equal(g[ids], grundy) and np.array_equal(r[ids], far), "values differ"
    print("check: every stored value equals a solve from scratch")
    db.close()


if __name__ == "__main__":
    main()
