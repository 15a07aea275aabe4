"""Benchmark: ``explorer build --workers 2`` against ``--workers 1``, whole processes, paired and
alternating, on a fresh SQLite file each (or PostgreSQL with ``--db URL``).

Each run is the command a user types, timed from outside: wall time, CPU time of the whole
process tree (the coordinator and its worker processes, which it waits for: ``getrusage`` of
children, as ``/usr/bin/time`` reports them) and the peak resident memory of the whole tree,
sampled from /proc every 20 ms (``/usr/bin/time -v`` reports one process's peak only). The load
average is printed beside each pair: the machine is shared, so ratios within a pair matter.

    python tests/benchmarks/bench_workers.py                  # 1M states, 3 pairs
    python tests/benchmarks/bench_workers.py --size 10m       # 10M states
    python tests/benchmarks/bench_workers.py --quick          # 40k states, a smoke run
    /usr/bin/time -v explorer build subtraction:1,2 180,180,180 --db /tmp/w.db --workers 2

The game is the subtraction game S = {1, 2} on three heaps: 180,180,180 has 1,004,731 states,
389,389,389 has 9,939,200. Goals (issue 31): 2 workers at least 1.7x faster than 1; peak of the
whole tree at most 200 B a state.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SIZES = {"quick": "60,60,60", "1m": "180,180,180", "10m": "389,389,389"}


def tree_rss(root: int) -> int:
    """Resident bytes of a process and all its descendants, now."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        rss[int(entry.name)] = int(fields[21]) * page
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return sum(rss.get(pid, 0) for pid in tree)


def run(position: str, workers: int, db: str) -> dict[str, float]:
    """One build as a whole process: wall and CPU seconds, peak bytes of the process tree."""
    command = [
        sys.executable,
        "-m",
        "explorer",
        "build",
        "subtraction:1,2",
        position,
        "--db",
        db,
        "--workers",
        str(workers),
        "--json",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, text=True)
    peak = [0]

    def sample() -> None:
        while process.poll() is None:
            peak[0] = max(peak[0], tree_rss(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, _ = process.communicate()
    wall = time.perf_counter() - started
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode:
        raise SystemExit(f"the build failed: {' '.join(command)}")
    report = json.loads(out)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak": peak[0], "states": report["states_new"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="1m")
    parser.add_argument("--quick", action="store_true", help="the smallest size, one pair")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--db", help="a PostgreSQL URL (a fresh schema is not made: empty it)")
    args = parser.parse_args()
    size = "quick" if args.quick else args.size
    position = SIZES[size]
    pairs = 1 if args.quick else args.pairs
    print(f"subtraction:1,2 {position}, {pairs} pairs, alternating --workers 1 and 2")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for pair in range(pairs):
            load = os.getloadavg()[0]
            found = {}
            order = (1, 2) if pair % 2 == 0 else (2, 1)
            for workers in order:
                db = args.db or str(Path(scratch) / f"w{workers}-{pair}.db")
                found[workers] = run(position, workers, db)
                if not args.db:
                    Path(db).unlink()
            one, two = found[1], found[2]
            rows.append((one, two))
            print(
                f"pair {pair + 1} (load {load:.1f}): 1 worker {one['wall']:.1f} s wall "
                f"{one['cpu']:.1f} s CPU {one['peak'] / one['states']:.0f} B/state; "
                f"2 workers {two['wall']:.1f} s wall {two['cpu']:.1f} s CPU "
                f"{two['peak'] / two['states']:.0f} B/state; "
                f"wall ratio {one['wall'] / two['wall']:.2f}x"
            )
    ratios = sorted(one["wall"] / two["wall"] for one, two in rows)
    print(f"median wall ratio (1 worker / 2 workers): {ratios[len(ratios) // 2]:.2f}x")


if __name__ == "__main__":
    main()
