"""Where a build on many machines tops out: one worker's rate, the coordinator's, PostgreSQL's.

Starts a Dask scheduler and WORKERS worker processes on loopback (``dask scheduler``,
``dask worker``), builds SPEC POSITION with ``explorer build --cluster`` into a new PostgreSQL
database, and prints CPU seconds (not wall time: this machine is shared) per part:

- the workers' (tier expansion), summed over the worker processes;
- the coordinator's (``explorer build``: numbering states, solving, writing);
- PostgreSQL's ingest: the build's own state and edge rows copied again, by binary COPY, into
  tables made LIKE ``states`` and ``edges`` (their indexes included): wall time, and the
  server backend's CPU seconds (read from /proc when the server is on this machine).

A projection for M machines of C cores is then min(M*C*worker rate, coordinator rate,
COPY rate), in states a second. Needs the cluster extra and a PostgreSQL server:

    python tests/benchmarks/bench_cluster.py postgresql://USER@HOST/DB subtraction:1,2 120,120,120
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import uuid

import psycopg
from distributed import Client

from explorer.storage.backends.engine import resolve_url


def worker_cpu() -> float:
    """This process's CPU seconds (run on every worker)."""
    times = os.times()
    return times.user + times.system


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server", help="a PostgreSQL URL; a database is made on it and dropped")
    parser.add_argument("spec")
    parser.add_argument("position")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8795)
    args = parser.parse_args()

    server = resolve_url(args.server)
    plain = server.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"bench_cluster_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(plain, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = server.set(database=name).render_as_string(hide_password=False)
    address = f"tcp://127.0.0.1:{args.port}"
    bin_dir = os.path.dirname(sys.executable)
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    cluster = [
        subprocess.Popen(
            [f"{bin_dir}/dask", "scheduler", "--port", str(args.port), "--dashboard-address", ":0"],
            **quiet,
        )
    ]
    try:
        cluster.append(
            subprocess.Popen(
                [f"{bin_dir}/dask", "worker", address, "--nworkers", str(args.workers)]
                + ["--nthreads", "1", "--dashboard-address", ":0"],
                **quiet,
            )
        )
        with Client(address, timeout=120, set_as_default=False) as client:
            client.wait_for_workers(args.workers, timeout=120)
            before = sum(client.run(worker_cpu).values())
            start = time.perf_counter()
            build = [sys.executable, "-m", "explorer", "build", args.spec, args.position]
            build += ["--db", url, "--cluster", address, "--json"]
            done = subprocess.run(build, capture_output=True, text=True, check=True)
            wall = time.perf_counter() - start
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            workers = sum(client.run(worker_cpu).values()) - before
        coordinator = used.ru_utime + used.ru_stime
        report = json.loads(done.stdout)
        states, edges = report["states_new"], report["edges_new"]
        copy_seconds, copy_cpu = _copy_again(server.set(database=name, drivername="postgresql"))
        load = os.getloadavg()[0]
        print(f"{args.spec} {args.position}: {states:,} states, {edges:,} edges, load {load:.1f}")
        print(f"  wall         {wall:8.2f} s on {args.workers} workers")
        for part, seconds in [
            ("workers CPU", workers),
            ("coordinator", coordinator),
            ("COPY again", copy_seconds),
            ("COPY server", copy_cpu),
        ]:
            print(f"  {part:<12} {seconds:8.2f} s -> {states / seconds:12,.0f} states/s")
    finally:
        for process in reversed(cluster):
            process.terminate()
            process.wait(timeout=60)
        with psycopg.connect(plain, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')


def _copy_again(url: object) -> tuple[float, float]:
    """Seconds PostgreSQL takes to ingest the build's states and edges again by binary COPY."""
    with psycopg.connect(url.render_as_string(hide_password=False)) as conn:  # type: ignore[attr-defined]
        bodies = {}
        for table in ("states", "edges"):
            with conn.cursor().copy(f"COPY {table} TO STDOUT (FORMAT BINARY)") as copy:
                bodies[table] = b"".join(bytes(chunk) for chunk in copy)
            conn.execute(f"CREATE TABLE again_{table} (LIKE {table} INCLUDING ALL)")
        conn.commit()
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
        start, cpu = time.perf_counter(), _server_cpu(backend)
        for table, body in bodies.items():
            with conn.cursor().copy(f"COPY again_{table} FROM STDIN (FORMAT BINARY)") as copy:
                for at in range(0, len(body), 1 << 20):
                    copy.write(body[at : at + (1 << 20)])
        conn.commit()
        return time.perf_counter() - start, _server_cpu(backend) - cpu


def _server_cpu(pid: int) -> float:
    """CPU seconds of a PostgreSQL backend on this machine (from /proc), or NaN elsewhere."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()
