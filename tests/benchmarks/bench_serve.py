"""Benchmark: server time of `explorer serve` position pages on a database of a million states.

Builds ``subtraction:1,2 180,180,180`` (1,004,731 states, 5.9M moves; about 20 s) unless the
database is given, starts ``explorer serve`` on a free loopback port, and asks for the pages of
random stored positions one at a time, then with 8 clients at once. The server's own time comes
from its ``Server-Timing`` header (from the request's arrival to the response's first byte);
the wall time each client waited is printed beside it.

    python tests/benchmarks/bench_serve.py                       # 1M states, in a temp folder
    python tests/benchmarks/bench_serve.py --db big.db           # reuse (or build) big.db
    python tests/benchmarks/bench_serve.py --heaps 390           # 10M states (minutes, ~6 GB)
    python tests/benchmarks/bench_serve.py --quick               # 60,60,60: a smoke run

Goal (issue 13): a position page in at most 100 ms of server time.
"""

from __future__ import annotations

import argparse
import http.client
import random
import re
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote

from explorer import open_database
from tests.support.serve import start_server

SPEC = "subtraction:1,2"


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def fetch(port: int, path: str) -> tuple[float, float, int]:
    """(server ms, wall ms, bytes) of one page."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    wall = (time.perf_counter() - started) * 1000
    connection.close()
    assert response.status == 200, (path, response.status)
    timing = re.search(r"dur=([0-9.]+)", response.getheader("server-timing") or "")
    assert timing is not None
    return float(timing[1]), wall, len(body)


def report(name: str, results: list[tuple[float, float, int]]) -> None:
    server = [r[0] for r in results]
    wall = [r[1] for r in results]
    print(
        f"{name:<34} n={len(results):<4} server median {statistics.median(server):6.1f} ms, "
        f"p95 {percentile(server, 0.95):6.1f} ms, max {max(server):6.1f} ms | wall median "
        f"{statistics.median(wall):6.1f} ms, p95 {percentile(wall, 0.95):6.1f} ms | "
        f"{statistics.mean(r[2] for r in results) / 1024:.0f} KiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database file (built when it does not hold the game)")
    parser.add_argument("--heaps", type=int, default=180, help="three heaps of this size")
    parser.add_argument("--pages", type=int, default=200, help="position pages asked for")
    parser.add_argument("--quick", action="store_true", help="three heaps of 60")
    args = parser.parse_args()
    heaps = 60 if args.quick else args.heaps
    position = ",".join([str(heaps)] * 3)
    folder = tempfile.TemporaryDirectory()
    path = Path(args.db or Path(folder.name) / "serve.db")
    with open_database(str(path)) as db:
        try:
            solved = db.game(SPEC).state(position, moves=0)["grundy"] is not None
        except LookupError:
            solved = False
        if not solved:
            started = time.perf_counter()
            built = db.game(SPEC).build(position)
            print(f"built {built.states_new:,} states in {time.perf_counter() - started:.1f} s")
        states = db.game(SPEC).stats().states
    chance = random.Random(13)
    keys = [
        ",".join(map(str, sorted(chance.randint(0, heaps) for _ in range(3))))
        for _ in range(args.pages)
    ]
    keys = [",".join(k for k in key.split(",") if k != "0") or "0" for key in keys]
    paths = [f"/position?spec={quote(SPEC)}&p={quote(key)}" for key in keys]
    with start_server(str(path)) as server:
        fetch(server.port, paths[0])  # first request: imports, templates, connections
        print(f"{path}: {states:,} states stored; {args.pages} random positions")
        report("position pages, one client", [fetch(server.port, p) for p in paths])
        wide = [p + "&depth=4" for p in paths[: args.pages // 2]]
        report("position pages, depth 4", [fetch(server.port, p) for p in wide])
        with ThreadPoolExecutor(max_workers=8) as pool:
            together = list(pool.map(lambda p: fetch(server.port, p), paths))
        report("position pages, 8 clients at once", together)
        report("games page (counts in background)", [fetch(server.port, "/") for _ in range(5)])
    folder.cleanup()


if __name__ == "__main__":
    main()
