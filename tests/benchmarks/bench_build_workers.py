"""Benchmark: ``explorer build --workers 2`` against ``--workers 1``, whole processes, paired and
alternating, on a fresh SQLite file each (or a new PostgreSQL database each, with
``--postgres URL``; the server's CPU time is then read from /proc too).

Each run is the command a user types, timed from outside: wall time, CPU time of the whole
process tree (the coordinator and its worker processes, which it waits for: ``getrusage`` of
children, as ``/usr/bin/time`` reports them) and the peak resident memory of the whole tree,
sampled from /proc every 20 ms (``/usr/bin/time -v`` reports one process's peak only). The load
average is printed beside each pair: the machine is shared, so ratios within a pair matter.

    python tests/benchmarks/bench_build_workers.py                  # 1M states, 3 pairs
    python tests/benchmarks/bench_build_workers.py --size 10m       # 10M states
    python tests/benchmarks/bench_build_workers.py --quick          # 40k states, a smoke run
    python tests/benchmarks/bench_build_workers.py --postgres postgresql+psycopg://u@host/db
    /usr/bin/time -v explorer build subtraction:1,2 180,180,180 --db /tmp/w.db --workers 2

The game is the subtraction game S = {1, 2} on three heaps: 180,180,180 has 1,004,731 states,
389,389,389 has 9,962,680. Goals (issue 31): 2 workers at least 1.7x faster than 1; peak of the
whole tree at most 200 B a state.

Measured at 1M on this 2-core machine, quiet (load 2.2-2.6 before the runs, from the session's
idle processes), 3 pairs on SQLite and 2 on PostgreSQL (the server on the same 2 cores):

    SQLite      1 worker  9.5-10.4 s wall, 11.7 s CPU;  2 workers 11.4-11.7 s, 15.1 s CPU
                ratio 0.82-0.91x (median 0.83x); tree peak 366-372 B/state RSS against 330
                (268 proportional)
    PostgreSQL  1 worker 18.0-18.3 s wall, 5.0 s CPU + server 16.1-16.3 s;
                2 workers 19.4-21.4 s, 8.6-8.8 s + server 23.2-24.6 s; ratio 0.84-0.95x;
                tree peak 440 B/state RSS against 310 (244 proportional)

Why 1.7x is out of reach with these writes: on SQLite one writer thread does every write. Since
each state of a build in tiers is written once, whole, when solved (main 403f9e6; 1M, 2 workers:
8.4-8.8 s wall, 1 worker 8.7-8.9 s, see ``bench_three_heaps.py``), that thread runs 6.9 s of 8.4 s,
busy from 0.7 s to the end (py-spy): edges 4.5 s (5.9M rows into their key and the predecessors'
index; a bare sqlite3 script takes 4.0 s CPU for them, sorted, 1.5 s without the index), states
1.2 s, commits 0.5 s, the key index 0.4 s. The ratio cannot pass 8.7 s / 6.9 s = 1.26x. Tried and
measured in a bare sqlite3 script on the build's 5.9M moves: dropping the predecessors' index while
writing and creating it at the end (2.3 s + 3.0 s CPU against 4.9 s), rows in (dst, src) order
(worse by 0.4 s), multi-row VALUES instead of ``json_each`` (0.15 s less), larger pages (16 KiB:
0.25 s less; 64 KiB more), a 256 MiB cache, 200k-state transactions in the build (no change). On
PostgreSQL the server does three quarters of the work (16 s of 21 s CPU with one worker): the build
keeps 1.15 cores busy with one worker, and with two its CPU (client and server) is 32 s, so that 2
cores cannot finish it in under 16 s. The figure to move is the write cost a move.
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
import uuid
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HZ = os.sysconf("SC_CLK_TCK")
SIZES = {"quick": "60,60,60", "1m": "180,180,180", "10m": "389,389,389"}


def descendants(root: int, parents: dict[int, int]) -> set[int]:
    """Every process below `root`, from each process's parent (`parents`, pid to ppid)."""
    found, frontier = set(), [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    return found


def tree_memory(root: int, cpu: dict[int, float]) -> tuple[int, int]:
    """Resident bytes of a process and all its descendants, now: the sum of their resident
    sets (pages shared between them counted once in each) and of their proportional sets
    (each shared page split between its sharers: what the tree takes from the machine).
    Each process's CPU seconds so far go into `cpu` (workers of a process pool are children of
    its fork server, which ``getrusage`` of children misses)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    ticks: dict[int, float] = {}
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
        ticks[int(entry.name)] = (int(fields[11]) + int(fields[12])) / HZ
    tree = {root} | descendants(root, parents)
    for pid in tree:
        cpu[pid] = max(cpu.get(pid, 0.0), ticks.get(pid, 0.0))
    pss = 0
    for pid in tree:
        try:
            with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as rollup:
                for line in rollup:
                    if line.startswith("Pss:"):
                        pss += int(line.split()[1]) * 1024
        except OSError:
            continue
    return sum(rss.get(pid, 0) for pid in tree), pss


def communicate_sampled(
    process: subprocess.Popen[str], every: float
) -> tuple[str, float, tuple[int, int], dict[int, float]]:
    """`process.communicate()`, sampling its process tree every `every` seconds meanwhile: its
    standard output, when it ended (`time.perf_counter`), the tree's peak resident and
    proportional bytes (see `tree_memory`), and each process's CPU seconds as last sampled."""
    peak = [0, 0]
    cpu_seen: dict[int, float] = {}

    def sample() -> None:
        while process.poll() is None:
            rss, pss = tree_memory(process.pid, cpu_seen)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(every)

    sampler = threading.Thread(target=sample)
    sampler.start()
    out, _ = process.communicate()
    ended = time.perf_counter()
    sampler.join()
    return out, ended, (peak[0], peak[1]), cpu_seen


def server_cpu() -> float:
    """CPU seconds of every PostgreSQL process on this machine so far, those ended included
    (a backend's time goes to its postmaster's children's time when it ends): the server's
    share of a build, the machine being otherwise quiet."""
    total = 0.0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii") as stat:
                head, fields = stat.read().rsplit(")", 1)
        except OSError:
            continue
        if head.endswith("(postgres"):
            numbers = fields.split()
            total += sum(int(numbers[i]) for i in (11, 12, 13, 14)) / HZ
    return total


def run(spec: str, position: str, workers: int, db: str) -> dict[str, float]:
    """One build as a whole process: wall and CPU seconds, peak bytes of the process tree, and
    the PostgreSQL server's CPU seconds meanwhile (0 on SQLite)."""
    command = [
        sys.executable,
        "-m",
        "explorer",
        "build",
        spec,
        position,
        "--db",
        db,
        "--workers",
        str(workers),
        "--json",
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = server_cpu() if "://" in db else 0.0
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, text=True)
    out, ended, peak, cpu_seen = communicate_sampled(process, 0.02)
    wall = ended - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    server = server_cpu() - server_before if "://" in db else 0.0
    if process.returncode:
        raise SystemExit(f"the build failed: {' '.join(command)}")
    report = json.loads(out)
    reaped = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # the build and what it waited for, or every process of the tree as last sampled
    cpu = max(reaped, sum(cpu_seen.values()))
    states = report["states_new"]
    coordinator = cpu_seen.get(process.pid, cpu)
    return {
        "wall": wall,
        "cpu": cpu,
        "coordinator": coordinator,
        "rss": peak[0],
        "pss": peak[1],
        "states": states,
        "server": server,
    }


def fresh_database(server_url: str) -> tuple[str, Callable[[], None]]:
    """A new PostgreSQL database on the server of `server_url`, and how to drop it."""
    import sqlalchemy as sa

    server = sa.make_url(server_url)
    name = f"bench_workers_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
        admin.dispose()

    return server.set(database=name).render_as_string(False), drop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="1m")
    parser.add_argument("--quick", action="store_true", help="the smallest size, one pair")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument(
        "--postgres", help="a PostgreSQL server's URL: each build in a new database made there"
    )
    parser.add_argument("--spec", default="subtraction:1,2", help="another game (with --position)")
    parser.add_argument("--position", help="its position (default: the size's heaps)")
    args = parser.parse_args()
    size = "quick" if args.quick else args.size
    position = args.position or SIZES[size]
    pairs = 1 if args.quick else args.pairs
    print(f"{args.spec} {position}, {pairs} pairs, alternating --workers 1 and 2")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for pair in range(pairs):
            load = os.getloadavg()[0]
            found = {}
            order = (1, 2) if pair % 2 == 0 else (2, 1)
            for workers in order:
                if args.postgres:
                    db, drop = fresh_database(args.postgres)
                else:
                    db = str(Path(scratch) / f"w{workers}-{pair}.db")
                    drop = Path(db).unlink
                try:
                    found[workers] = run(args.spec, position, workers, db)
                finally:
                    drop()
            one, two = found[1], found[2]
            rows.append((one, two))
            print(f"pair {pair + 1} (load {load:.1f} before it)")
            for workers in (1, 2):
                run_ = found[workers]
                print(
                    f"  --workers {workers}: {run_['wall']:6.1f} s wall, {run_['cpu']:6.1f} s CPU "
                    f"({run_['coordinator']:.1f} s the first process), "
                    f"tree peak {run_['rss'] / run_['states']:.0f} B/state resident "
                    f"({run_['pss'] / run_['states']:.0f} B/state proportional)"
                    + (f", server {run_['server']:.1f} s CPU" if args.postgres else "")
                )
            print(
                f"  ratio 1/2: wall {one['wall'] / two['wall']:.2f}x, "
                f"CPU {one['cpu'] / two['cpu']:.2f}x"
            )
    ratios = sorted(one["wall"] / two["wall"] for one, two in rows)
    print(f"median wall ratio (1 worker / 2 workers): {ratios[len(ratios) // 2]:.2f}x")


if __name__ == "__main__":
    main()
