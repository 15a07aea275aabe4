"""Benchmark: how PostgreSQL takes a build's rows by binary COPY from one client and from several
at once: the database side of a build whose workers would each write their own rows.

Builds SPEC POSITION once into a database made for the run (``explorer build --workers 1``),
reads its state and edge rows back in STREAMS disjoint parts (``id % STREAMS``, ``src %
STREAMS``), then, for 1 up to STREAMS clients, copies every part again, each client its parts
on a connection of its own at the same time, into fresh tables made LIKE ``states`` and
``edges`` (their indexes included). It prints the wall time, the states a second, and each
server backend's CPU seconds (read from /proc: the server must run on this machine), so the
states per CPU-second of one backend and how the rate grows with clients. The rows are made
before the clock starts: only the client's sending and the server's ingest are timed.

    python tests/benchmarks/bench_copy_streams.py postgresql://USER@HOST/DB    # 1M states
    python tests/benchmarks/bench_copy_streams.py URL --position 60,60,60      # a smoke run
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

REPO = Path(__file__).resolve().parents[2]
CHUNK = 1 << 20


def backend_cpu(pid: int) -> float:
    """CPU seconds of a server backend on this machine."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def read_part(url: str, table: str, column: str, streams: int, part: int) -> bytes:
    """Rows of `table` whose `column` is `part` modulo `streams`, as a binary COPY body."""
    query = f"SELECT * FROM {table} WHERE {column} % {streams} = {part}"
    with (
        psycopg.connect(url) as conn,
        conn.cursor().copy(f"COPY ({query}) TO STDOUT (FORMAT BINARY)") as copy,
    ):
        return b"".join(bytes(chunk) for chunk in copy)


def copy_parts(url: str, bodies: list[tuple[str, bytes]], seconds: list[float]) -> None:
    """One client: COPY each body into its table in one transaction; its backend's CPU."""
    with psycopg.connect(url) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
        before = backend_cpu(backend)
        for table, body in bodies:
            with conn.cursor().copy(f"COPY {table} FROM STDIN (FORMAT BINARY)") as copy:
                for at in range(0, len(body), CHUNK):
                    copy.write(body[at : at + CHUNK])
        conn.commit()
        seconds.append(backend_cpu(backend) - before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server", help="a PostgreSQL URL; a database is made on it and dropped")
    parser.add_argument("--spec", default="subtraction:1,2")
    parser.add_argument("--position", default="180,180,180")
    parser.add_argument("--streams", type=int, default=2, help="the most clients at once")
    args = parser.parse_args()
    server = make_url(args.server)
    admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"bench_copy_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = server.set(drivername="postgresql", database=name).render_as_string(hide_password=False)
    try:
        build = [sys.executable, "-m", "explorer", "build", args.spec, args.position, "--db"]
        build += [server.set(database=name).render_as_string(hide_password=False)]
        subprocess.run(
            [*build, "--workers", "1", "--max-seconds", "0", "--json"],
            check=True,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        with psycopg.connect(url) as conn:
            states = conn.execute("SELECT count(*) FROM states").fetchone()[0]  # type: ignore[index]
            edges = conn.execute("SELECT count(*) FROM edges").fetchone()[0]  # type: ignore[index]
        print(f"{args.spec} {args.position}: {states:,} states, {edges:,} edges")
        for clients in range(1, args.streams + 1):
            parts = [
                [
                    ("again_states", read_part(url, "states", "id", clients, part)),
                    ("again_edges", read_part(url, "edges", "src", clients, part)),
                ]
                for part in range(clients)
            ]
            with psycopg.connect(url, autocommit=True) as conn:
                for table in ("states", "edges"):
                    conn.execute(f"DROP TABLE IF EXISTS again_{table}")
                    conn.execute(f"CREATE TABLE again_{table} (LIKE {table} INCLUDING ALL)")
                conn.execute("CHECKPOINT")
            load = os.getloadavg()[0]
            seconds: list[float] = []
            threads = [
                threading.Thread(target=copy_parts, args=(url, bodies, seconds)) for bodies in parts
            ]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            wall = time.perf_counter() - started
            assert len(seconds) == clients, "a client failed"
            busiest = max(seconds)
            print(
                f"  {clients} client(s): {wall:6.2f} s wall, {states / wall:9,.0f} states/s; "
                f"server CPU {sum(seconds):6.2f} s ({states / sum(seconds):,.0f} states per "
                f"CPU-second; busiest backend {busiest:.2f} s); load {load:.2f} before"
            )
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
