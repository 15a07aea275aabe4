"""Benchmark: where one build's CPU goes, part by part: the inputs of a projection to more cores
and more machines.

Runs ``explorer build SPEC POSITION --workers N --db DB --json`` as a whole process and reads the
CPU time of each part from /proc every 0.1 s:

- the coordinator's main thread: with one worker it expands and solves every state (one
  worker's whole rate without writing); with several it numbers the states the workers reach,
  and solves;
- the coordinator's other threads, the busiest first: the writer thread (SQLite's one writer,
  or PostgreSQL's COPY client), then the process pool's result thread;
- the processes below it, summed: the worker processes (tier expansion), their fork server;
- with a PostgreSQL ``--db`` URL: the server's backends serving the build (a database made for
  the run and dropped after it), the server's side of the COPY.

Each part's rate is states per CPU-second of it: a part that gets a core of its own runs that
fast at most, so a machine of C cores (or M machines) tops out at the lowest rate among the
parts that cannot be spread, and at C (or M x C) times the rate of those that can.

    python tests/benchmarks/bench_build_parts.py                      # 1M states, SQLite, 2 workers
    python tests/benchmarks/bench_build_parts.py --workers 1
    python tests/benchmarks/bench_build_parts.py --db postgresql://USER@HOST/DB   # a server
    python tests/benchmarks/bench_build_parts.py --position 60,60,60  # a smoke run

Measured at 1M on main ec6fa10, quiet 2-core machine (load about 2), states per CPU-second:
one worker expanding and solving without writing (the main thread with --workers 1) 197k on
SQLite, 269k on PostgreSQL; a worker process expanding tiers 259-285k; the coordinator's main
thread with 2 workers 344-383k; SQLite's writer thread 120k (2 workers) to 137k (1 worker);
PostgreSQL's COPY client 0.8-1.1M, its server 57k (1 worker) and 39k (2 workers, over 2
backends; the busiest 81k). So the ceiling is the database: SQLite's one writer at about
120-140k states a second (reached by one worker), PostgreSQL's backends at about 60-70k a
second each (``bench_copy_streams.py``: 70k with one client, 86k with two on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from bench_build_workers import descendants

REPO = Path(__file__).resolve().parents[2]
HZ = os.sysconf("SC_CLK_TCK")


def cpu_seconds(stat: str) -> float:
    """User plus system seconds from a /proc .../stat line."""
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as file:
            return file.read()
    except OSError:
        return None


def children(root: int) -> set[int]:
    """Every process below `root`."""
    parents = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and (stat := read(f"/proc/{entry.name}/stat")) is not None:
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return descendants(root, parents)


class Sampler:
    """The CPU seconds of the build's threads, worker processes and server backends."""

    def __init__(self, root: int, backends: list[int] | None) -> None:
        self.root = root
        self.threads: dict[int, float] = {}
        self.processes: dict[int, float] = {}
        self.server: dict[int, float] = {}
        self.backends = backends  # pids of the server backends, kept up to date by the caller

    def sample(self) -> None:
        try:
            tasks = [entry.name for entry in os.scandir(f"/proc/{self.root}/task")]
        except OSError:  # ended
            return
        for tid in tasks:
            if (stat := read(f"/proc/{self.root}/task/{tid}/stat")) is not None:
                self.threads[int(tid)] = max(self.threads.get(int(tid), 0.0), cpu_seconds(stat))
        for pid in children(self.root):
            if (stat := read(f"/proc/{pid}/stat")) is not None:
                self.processes[pid] = max(self.processes.get(pid, 0.0), cpu_seconds(stat))
        for pid in self.backends or []:
            if (stat := read(f"/proc/{pid}/stat")) is not None:
                self.server[pid] = max(self.server.get(pid, 0.0), cpu_seconds(stat))


def watch_backends(url: str, database: str, backends: list[int], done: threading.Event) -> None:
    """Keep `backends` the pids of the server processes connected to `database`."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        while not done.is_set():
            rows = conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)
            ).fetchall()
            backends[:] = sorted(set(backends) | {row[0] for row in rows})
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spec", default="subtraction:1,2")
    parser.add_argument("--position", default="180,180,180")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--db", help="a PostgreSQL server's URL (default: a new SQLite file)")
    args = parser.parse_args()

    scratch = tempfile.TemporaryDirectory()
    admin = name = None
    if args.db:
        import psycopg
        from sqlalchemy.engine import make_url

        server = make_url(args.db)
        admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
        name = f"bench_parts_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        db = server.set(database=name).render_as_string(hide_password=False)
    else:
        db = str(Path(scratch.name) / "parts.db")
    command = [sys.executable, "-m", "explorer", "build", args.spec, args.position]
    command += ["--db", db, "--workers", str(args.workers), "--max-seconds", "0", "--json"]
    command += ["--memory", "20000"]
    backends: list[int] = []
    done = threading.Event()
    watcher = None
    if admin is not None:
        watcher = threading.Thread(target=watch_backends, args=(admin, name, backends, done))
        watcher.start()
    load = os.getloadavg()[0]
    try:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}
        )
        sampler = Sampler(process.pid, backends if admin is not None else None)
        while process.poll() is None:
            sampler.sample()
            time.sleep(0.1)
        wall = time.perf_counter() - started
        out = process.stdout.read() if process.stdout else ""
        if process.returncode:
            raise SystemExit(f"the build failed: {' '.join(command)}")
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
        if admin is not None:
            import psycopg

            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        scratch.cleanup()
    report = json.loads(out)
    states = report["states_new"]
    main_thread = sampler.threads.pop(process.pid, 0.0)
    others = sorted(sampler.threads.values(), reverse=True)
    parts = [
        ("coordinator main thread", main_thread),
        ("coordinator writer thread", others[0] if others else 0.0),
        ("coordinator other threads", sum(others[1:])),
        (f"processes below ({len(sampler.processes)})", sum(sampler.processes.values())),
    ]
    if admin is not None:
        parts.append((f"server backends ({len(sampler.server)})", sum(sampler.server.values())))
        parts.append(("  the busiest backend", max(sampler.server.values(), default=0.0)))
    backend = "PostgreSQL" if admin is not None else "SQLite"
    print(
        f"{args.spec} {args.position} on {backend}, --workers {args.workers}: {states:,} states, "
        f"{report['edges_new']:,} moves, {wall:.1f} s wall, load {load:.2f} before"
    )
    for part, seconds in parts:
        rate = f"{states / seconds:12,.0f} states per CPU-second" if seconds else ""
        print(f"  {part:32} {seconds:7.2f} s CPU {rate}")
    print(f"  {'whole build':32} {wall:7.2f} s wall {states / wall:12,.0f} states a second")


if __name__ == "__main__":
    main()
