"""Benchmark: the store of a build, two explorer checkouts side by side (the commit before and the
new one), and GamesmanPy beside them: the figures of issue 43's "Done when".

Each round runs, for each checkout in turn (the order alternating round by round) and each
worker count, the command a user types as a whole process under ``/usr/bin/time -v``:

    explorer build subtraction:1,2 180,180,180 --db FRESH.db --workers N --max-seconds 0

and reports its wall time; its peak memory (the largest process, from ``/usr/bin/time -v``, and
the whole process tree, resident and proportional sets sampled from /proc every 0.1 s); CPU
seconds per thread of the coordinator (``/proc/PID/task/*/stat``: its main thread, its busiest
other thread, the rest) and of the processes below it (the workers and their fork server), and
so the coordinator's share of the tree's CPU; the file's bytes a state, table by table and
index by index (SQLite's ``dbstat``); the time to read every move of the game into arrays (a
fresh process of the same checkout: the ``edges`` table through one SELECT, or the packed
``successors`` column through `explorer.storage.schema.packing` where the database has one);
and the time of ``explorer verify SPEC --max-seconds 0`` (whole process). GamesmanPy (a
checkout given by ``--gamesmanpy DIR``, set up as its README says: ``uv sync``) solves the same
game once a round, as ``bench_three_heaps.py`` runs it: a `Game` class of the three heaps
written into the checkout (its only game of heaps is one heap, ``ten_to_zero``).

With ``--postgres URL`` (a server on this machine), each checkout and worker count builds a
second time, into a fresh database on that server (``CREATE DATABASE``, dropped after the
run), and reports the same figures where they apply, and the server's: the CPU seconds of the
server's processes serving that database (its backends and autovacuum, sampled from /proc
with the rest: a PostgreSQL build's work is partly in the server), and of its shared ones
(checkpointer, background and WAL writers: other databases' too), and the bytes a state of
each table (``pg_table_size``: heap, TOAST and maps) and index. Every build's content, on
either backend, is read back in a fresh process (`CONTENT`: every state's key and values,
and the moves of the ``edges`` and ``edges_in`` views, by the keys at their ends) and must be
the same.

    python tests/benchmarks/bench_store.py OLD_CHECKOUT NEW_CHECKOUT --gamesmanpy DIR
    python tests/benchmarks/bench_store.py . --rounds 1                  # this checkout alone
    python tests/benchmarks/bench_store.py OLD NEW --size 10m --workers 2 --verify none
    python tests/benchmarks/bench_store.py NEW --size 100m --workers 2 --rounds 1 --memory 8192
    python tests/benchmarks/bench_store.py . --size quick --rounds 1     # a smoke run
    python tests/benchmarks/bench_store.py . --workers 2 --rounds 4 --verify none \\
        --postgres postgresql://USER@127.0.0.1/DB                        # SQLite and PostgreSQL
    python tests/benchmarks/bench_store.py --summary runs.jsonl

``--out FILE`` appends each run as a JSON line (a series can be taken in several calls), and
``--summary`` prints the table of such a file: per checkout and worker count the least and
median of each figure, and the ratios of the medians. The machine is shared: the 1-minute load
average is printed before each run, and only ratios within a round mean much.

Baseline: main e812f12 (edges as rows), 1M, 2 rounds, on the shared 2-core machine at load
10-20 (other sessions' tests): wall times there are mostly waiting, CPU seconds say more.

    --workers 1  83.2-93.4 s wall, 11.8-13.7 s CPU: main thread 4.6-5.5, writer 6.9-7.8;
                 peak 339-340 MiB (PSS 318, 332 B/state); file 228.9 B/state (edges 87.3, their
                 (game_id, dst, src) index 84.1, states 38.1, the key index 19.2); verify
                 401.5-422.3 s wall, 58.1-63.0 s CPU (4.6-4.9x the build's CPU)
    --workers 2  75.3-145.2 s wall, 14.4-19.0 s CPU: coordinator 10.8-14.2 (main 3.9-5.5,
                 writer 6.0-7.5, others 0.9-1.2), 4 processes below 3.6-4.8: share 75 %;
                 largest process 144-145 MiB, tree 248 MiB (PSS 172-173, 180 B/state); file
                 231.4 B/state
    GamesmanPy   94.3-148.5 s wall, 14.8-18.7 s CPU, 556-557 MiB; its database 14.1 B/state
    medians      GamesmanPy / --workers 1: wall 1.37x, CPU 1.32x; GamesmanPy / --workers 2:
                 1.10x, 1.01x; --workers 1 / --workers 2: 0.80x, 0.76x
    Amdahl from the coordinator's 75 %: at most 1.31x on 16 cores, 1.28x on 4 machines of 2
                 cores, 1.33x on any number
    reading every move (the edges table, one SELECT): 3.34-3.40 s CPU (47-48 s wall at load
                 20); the packed successors' column (bench_packing.py's copy): 1.08-1.29 s CPU

Moves packed in the states' rows (migration 0014), against the commit before (main e5f21f4),
1M, one round, load 1.9-3.2:

    --workers 1  19.2 s wall, 16.4 s CPU (main thread 4.5, writer 11.4) against 9.7 s and
                 12.1 s (4.5, 7.1): 1.36x the CPU, each row written up to four times (insert,
                 successors, predecessors' appends batch by batch, values); file 98.1 B/state
                 (states 78.7, the key index 19.2) against 228.9; reading every move 1.13 s
                 CPU against 3.46; verify 70.8 s CPU against 61.5 (4.3x the build's CPU)
    --workers 2  24.1 s wall, 22.6 s CPU, coordinator 79 % (the commit before: 18.8 s, 16.9 s,
                 74 %); file 98.0 B/state

Each row written once, whole, when its tier is solved (and --workers 1 building in tiers in
this process), against main a58dc66 and GamesmanPy, 1M, 2 rounds, load 4.7-6.6:

    --workers 1  15.1-16.2 s wall, 13.1-13.5 s CPU (main thread 10.0, writer 2.7-3.4) against
                 23.7-25.2 s and 13.8-15.9 s (5.2-6.4, 8.1-11.1): medians 1.55x wall, 1.18x CPU;
                 peak 164 MiB against 337; file 101.7 B/state (states 82.3, the key index
                 19.2) against 228.9; reading every move 1.24-1.48 s CPU against 4.52-4.68
    --workers 2  17.4-17.8 s wall, 14.6-15.1 s CPU, coordinator 64-65 % (main 4.9-5.2, writer
                 3.0-3.4) against 23.3-24.2 s, 15.6-17.8 s, 74-75 %: 1.36x wall, 1.20x CPU
    GamesmanPy   20.4-22.1 s wall, 16.6-17.1 s CPU: 1.36x (wall) the --workers 1 build
    Amdahl from the coordinator's 65 %: at most 1.49x on 16 cores, 1.54x on any number

10M (390,390,390: 10,039,316 states), --workers 2, one run at load 16: 900 s wall, 149.8 s CPU:
coordinator 115.9 s (main thread 37.2, writer 71.2, others 7.5), 4 processes below 33.9 s:
share 77 % (Amdahl: at most 1.27x on 16 cores, 1.25x on 4 machines of 2 cores, 1.29x on any
number); largest process 453 MiB, tree 573 MiB (PSS 484, 51 B/state); file 241.1 B/state
(edges 90.9, their reverse index 87.7, states 42.1, the key index 20.4); reading every move
46.1 s CPU (203 s wall).

verify a range of ids at a time in numpy (values; the rules' moves by the build's own heap
expansion; the moves into states against their sources' successors; the counts tallied as rows
pass), against the commit before (b410f70), 1M, --workers 1, two rounds, load 3.8-5.0:

    build        14.7-15.9 s CPU (22.4-27.9 s wall); the commit before 16.1-18.6 (28.9-45.0)
    verify       13.4-13.8 s CPU (14.8-23.1 s wall), peak 233 MiB: 0.87x and 0.91x the build's
                 CPU of its round; the commit before 51.7-65.9 s CPU (101.8-151.5 s wall),
                 peak 697-705 MiB (every move read twice into memory): 3.2-3.5x its build's
    reading every move 0.79-0.82 s CPU (the commit before 1.27)
    PostgreSQL (one run each, whole processes under /usr/bin/time, client CPU): verify 26.2 s
                 wall, 14.7 s CPU at load 4.0 (the commit before 148.7 s, 61.4 s, load 4-6);
                 the build 127.5 s wall, 32.4 s CPU (load 5.7)

The merged main (443635b: rows written once, verify by ranges) against a58dc66 and GamesmanPy,
1M, 2 rounds, quiet (load 1.1-1.6):

    --workers 1  11.4, 14.8 s wall, 12.5, 15.9 s CPU against 10.8, 10.9 s and 13.2, 13.7 s:
                 0.83x wall, 0.94x CPU (the main thread, 8.6-11.0 s, is the critical path);
                 without --workers (/usr/bin/time, 2 runs) 11.1, 12.0 s against 10.4, 9.3 s
    --workers 2  10.8, 11.4 s wall, 13.4, 14.3 s CPU, coordinator 62 %, against 12.0, 19.1 s,
                 16.5, 23.5 s, 74-75 %: 1.40x wall, 1.45x CPU; 1.18x the --workers 1 build
    file 101.7 B/state against 228.9; reading every move 1.06-1.59 s CPU against 3.49-4.84;
    verify 13.6, 14.3 s CPU against 72.7, 76.3; GamesmanPy 13.4, 20.2 s wall: 1.52x --workers 2
    10M, --workers 2, one run each: 104.3 s wall, 128.1 s CPU, coordinator 68 % (main thread
                 45.8, writer 29.6), 105.2 B/state, reading every move 7.0 s (load 0.7), against
                 91.9 s, 136.6 s, 76 % (30.6, 67.3), 241.1 B/state, 39.1 s (load 2.0)

PostgreSQL 15 (the dev server on loopback, fsync on, shared_buffers 128 MB) beside SQLite,
1M, alternating; wall and client CPU least-median-most (or each run), server CPU the seconds
of its database's backends. Main f540d99 (ids stored as offsets), load 0.3-3.3:

    --workers 2  3 rounds: SQLite 14.3-14.8-14.9 s wall, 17.6-18.0-18.1 s CPU, coordinator
                 64 % (main thread 6.3, writer 3.3); PostgreSQL 12.9-13.2-13.5 s wall,
                 14.1-14.1-14.2 s CPU, coordinator 61 % (main thread 5.1, the busiest of its
                 2 writers 1.2), server 2.6-2.7-3.1 s (2 backends; the shared processes under
                 0.05 s): PostgreSQL over SQLite 0.89x wall (0.87, 0.91, 0.92x round by round),
                 0.78x CPU, 0.94x with the server's; PSS 214 MiB against 204; reading every
                 move 1.00-1.14 s wall (0.65 s client CPU) against 0.59-0.74 s; verify
                 15.3-17.3 s wall (server 2.2-2.4 s) against 11.3-13.2 s
    --workers 1  2 rounds: SQLite 17.6, 13.8 s wall, 15.5, 12.2 s CPU; PostgreSQL 13.0, 15.2 s
                 wall, 9.3, 11.2 s CPU, server 2.5, 2.7 s: 0.74x, 1.10x round by round
    stored       the same content (keys, values, moves out and in by key) on both, and as
                 on 62ba4db; PostgreSQL 288.6 B/state (states 234.0: its pages half filled,
                 fillfactor 50 of migration 0010; the key index 31.6, the primary key 22.5)
                 against 88.2

On 62ba4db (ids as such), load 1.2-5.6: --workers 2, 7 rounds, PostgreSQL over SQLite
0.70-1.05x wall round by round (medians 20.8 against 21.8 s at load 3.9-5.6, 16.5 against
15.7 at 1.2-3.8), server 3.0-4.2 s, 321.5 B/state against 101.7; --workers 1, 2 rounds,
0.88x, 1.18x. Its statements of 200 ms or more (log_min_duration_statement, one --workers 2
build, 20.7 s wall): 16 COPYs of a transaction's rows, 0.21-0.36 s each, on 2 connections in
turn; the key index created at the end 1.04 s; ANALYZE 0.23 s.

10^8 (843,843,843: 100,558,380 states, 600,854,150 moves), main f540d99 (ids stored as
offsets), --workers 2 --memory 8192, one run at load 0.9, timed by this script's `timed` (the
reading of every move left out: it needs more than 10 GB of memory at this size): 1,443 s wall,
1,592 s CPU: coordinator 1,209 s (main thread 643, writer 457, others 109), 4 processes below
383.5 s: share 76 % (Amdahl: at most 1.29x on 16 cores, 1.27x on 4 machines of 2 cores, 1.32x
on any number); largest process 5.46 GiB, tree 5.57 GiB; file 10.86 GB, 108.0 B/state (offsets
in 3 bytes, ids of 4 in the keys). verify ran 46 min of CPU, beside other work for its last 12,
and was stopped having checked the states up to id 65M or so. The ends of a range's moves are
read as one range of ids, but a range of 20,000 states there reaches 56-75k states spread over
82-126k ids (ranges at 30M, 65M, 90M), against 30k over 30k at the start: each range reads 4-6
times its own rows again, which may be where the time goes (not measured further).

The workers do not write on PostgreSQL either: the coordinator's writer threads (one a
worker, each on its own connection) COPY every row, committing in turn; the server's part of
the build is small (2.6-4.2 s of CPU).

States numbered as rows of heaps with numpy, and the workers writing SQLite's rows into shards
the writer thread takes whole (main 2081854, 831e296), against 0f639c4 (run with
--no-read-back at 10M and 10^8), load 1.0-1.8:

    10^8         2081854, --workers 2 --memory 8192: 693.1 s wall, 996.0 s CPU: coordinator
                 353.7 s (main thread 148.6, writer 168.0, others 37.0), 4 processes below
                 642.4 s: share 36 %; largest process 5,517 MiB, tree 5,610 MiB; the same
                 states, moves and value; file 10.86 GB, 108.0 B/state
    10M          --workers 2: 79.8 s (2081854), 73.0 s (831e296) wall, coordinator 36 % (main
                 17.6-18.7, writer 13.2-13.7), against 111.6 s and 70 % (47.9, 36.1);
                 831e296 --workers 1: 84.2 s wall, so 2 workers 1.15x 1 worker
    1M           --workers 2, 2 rounds: 11.0, 11.1 s wall, coordinator 42 % (main 3.4-3.6,
                 writer 1.2-1.4), against 12.5, 14.0 s, 62-63 %: 1.27x wall, 1.19x CPU; tree
                 PSS 343 MiB against 204 (the workers hold the rows they write); --workers 1
                 8.9, 10.2 s against 9.2, 9.9 s; GamesmanPy 17.0, 18.0 s: 1.76x the best
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from bench_build_workers import tree_memory
from bench_three_heaps import gamesmanpy, register_gamesmanpy

SPEC = "subtraction:1,2"
SIZES = {"quick": 40, "1m": 180, "10m": 390, "100m": 843}
HZ = os.sysconf("SC_CLK_TCK")

#: Reads every move of the game in a fresh process of the checkout: ``python -c`` with the
#: database's path (or PostgreSQL URL) and the spec, through the driver alone. Prints the
#: moves' count and the seconds it took (wall and CPU), as JSON.
READ_MOVES = """
import json, sqlite3, sys, time
import numpy as np
CHUNK = 1_000_000  # rows a fetch: memory bounded at 10^8 states
started, cpu = time.perf_counter(), time.process_time()
if sys.argv[1].startswith("postgresql"):
    import psycopg
    conn = psycopg.connect(sys.argv[1].replace("+psycopg", "", 1))
    mark, rows_of = "%s", lambda: conn.cursor(name="moves")  # on the server: memory bounded
    table = "SELECT column_name FROM information_schema.columns WHERE table_name = 'states'"
else:
    conn = sqlite3.connect(sys.argv[1])
    mark, rows_of = "?", conn.cursor
    table = "SELECT name FROM pragma_table_info('states')"
(game,) = conn.execute(
    f"SELECT id FROM games WHERE spec = {mark} AND convention = 'normal'", (sys.argv[2],)
).fetchone()
columns = {name for (name,) in conn.execute(table)}
moves = 0
cursor = rows_of()
if "successors" in columns:
    from explorer.storage.schema.packing import Packed, unpack
    (width,) = conn.execute(f"SELECT id_width FROM games WHERE id = {game}").fetchone()
    cursor.execute(f"SELECT successors FROM states WHERE game_id = {game} ORDER BY id")
    while rows := cursor.fetchmany(CHUNK):
        moves += len(unpack(Packed.from_blobs([b or b"" for (b,) in rows], "fixed", width)).target)
else:
    cursor.execute(f"SELECT src, dst FROM edges WHERE game_id = {game}")
    while rows := cursor.fetchmany(CHUNK):
        moves += len(np.array(rows, dtype=np.int64).reshape(-1, 2))
print(json.dumps({
    "moves": moves, "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu
}))
"""


#: Whether each build is read back (`CONTENT`, `READ_MOVES`); ``--no-read-back`` skips it.
READ_BACK = True

#: A game's stored content in a fresh process of the checkout (``python -c`` with the
#: database's path or URL and the spec), as JSON: its states and moves counted, and one digest
#: of every state's key and values and every move (both the ``edges`` and the ``edges_in``
#: views) by the keys at its ends, so that builds that number states otherwise compare too;
#: and whether the moves into states are exactly the moves out of them.
CONTENT = """
import hashlib, json, sys
import numpy as np
import sqlalchemy as sa
from explorer.storage.backends.engine import resolve_url
CHUNK = 1_000_000
engine = sa.create_engine(resolve_url(sys.argv[1]))
digest = hashlib.sha256()
with engine.connect() as conn:
    game = conn.execute(
        sa.text("SELECT id FROM games WHERE spec = :s AND convention = 'normal'"),
        {"s": sys.argv[2]},
    ).scalar_one()
    ids, keys, lines = [], [], []
    result = conn.execute(sa.text(
        "SELECT id, key, depth, expanded, grundy, outcome, remoteness, height FROM states "
        "WHERE game_id = :g ORDER BY id"
    ), {"g": game})
    while rows := result.fetchmany(CHUNK):
        for i, key, depth, expanded, *values in rows:
            ids.append(i)
            keys.append(key)
            lines.append(f"{key} {depth} {int(expanded)} {values}")
    order = sorted(range(len(keys)), key=keys.__getitem__)
    digest.update("\\n".join(lines[i] for i in order).encode())
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    ids = np.array(ids, dtype=np.int64)
    moves = {}
    for view in ("edges", "edges_in"):
        # one integer a move: no row object each (numpy's probing of those costs minutes)
        result = conn.execution_options(yield_per=CHUNK).execute(
            sa.text(f"SELECT src * 4294967296 + dst FROM {view} WHERE game_id = :g"),
            {"g": game},
        ).scalars()
        parts = []
        while both := result.fetchmany(CHUNK):
            both = np.array(both, dtype=np.int64)
            src, dst = (rank[np.searchsorted(ids, end)] for end in (both >> 32, both & 0xFFFFFFFF))
            parts.append(src * len(ids) + dst)
        moves[view] = np.sort(np.concatenate(parts))
        digest.update(moves[view].tobytes())
print(json.dumps({
    "states": len(ids), "moves": len(moves["edges"]), "digest": digest.hexdigest(),
    "transpose": bool(np.array_equal(moves["edges"], moves["edges_in"])),
}))
"""


class Server:
    """The PostgreSQL server of ``--postgres URL``: a fresh database for each build (dropped
    after it), the bytes of its tables and indexes, and the CPU seconds of the server's
    processes: those serving the database (its backends, autovacuum) and the shared ones."""

    #: The server's processes every database shares, by their title's first word.
    SHARED = ("checkpointer", "background", "walwriter")

    def __init__(self, url: str) -> None:
        self.url = sa.make_url(url).set(drivername="postgresql+psycopg")
        self.admin = sa.create_engine(self.url, isolation_level="AUTOCOMMIT")
        with self.admin.connect() as conn:
            backend = conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
        found = stat_cpu(f"/proc/{backend}/stat")
        if found is None:
            raise SystemExit(f"--postgres: the server of {url} does not run on this machine")
        self.postmaster = found[0]
        self.made = 0

    def create(self) -> str:
        """A new, empty database: its name."""
        self.made += 1
        name = f"bench_store_{os.getpid()}_{self.made}"
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name}")
        return name

    def url_of(self, name: str) -> str:
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop(self, name: str) -> None:
        with self.admin.connect() as conn:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def sizes(self, name: str) -> dict[str, int]:
        """Bytes of each table (with its TOAST and maps) and index of database `name`."""
        engine = sa.create_engine(self.url.set(database=name))
        try:
            with engine.connect() as conn:
                return dict(
                    conn.execute(
                        sa.text(
                            "SELECT c.relname, CASE c.relkind WHEN 'i' THEN "
                            "pg_relation_size(c.oid) ELSE pg_table_size(c.oid) END "
                            "FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace "
                            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i')"
                        )
                    ).all()
                )
        finally:
            engine.dispose()

    def processes(self, name: str) -> tuple[dict[int, float], dict[int, float]]:
        """CPU seconds so far of the server's processes serving database `name`, and of its
        shared ones, by pid."""
        serving: dict[int, float] = {}
        shared: dict[int, float] = {}
        try:
            with open(f"/proc/{self.postmaster}/task/{self.postmaster}/children") as file:
                children = file.read().split()
        except OSError:
            return serving, shared
        for pid in children:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as file:
                    title = file.read().replace(b"\0", b" ").decode(errors="replace").split()
            except OSError:
                continue
            found = stat_cpu(f"/proc/{pid}/stat")
            if found is None or len(title) < 2:
                continue
            if name in title:
                serving[int(pid)] = found[1]
            elif title[1] in self.SHARED:
                shared[int(pid)] = found[1]
        return serving, shared


def stat_cpu(path: str) -> tuple[int, float] | None:
    """The parent pid and the user plus system CPU seconds of a /proc ``stat`` file."""
    try:
        with open(path, encoding="ascii") as file:
            fields = file.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / HZ


class Sampler:
    """Every 0.1 s while a command runs under ``/usr/bin/time``: the CPU seconds of each
    thread of the coordinator (the one child of ``time``) and of each process below it, and
    the peak memory of the tree."""

    def __init__(self, time_pid: int, server: tuple[Server, str] | None = None) -> None:
        self.time_pid = time_pid
        self.coordinator: int | None = None
        self.threads: dict[int, float] = {}
        self.below: dict[int, float] = {}
        self.rss = self.pss = 0
        #: With a PostgreSQL database: its server's processes serving it (see `Server`).
        self.server = server
        self.serving: dict[int, float] = {}

    def sample(self) -> None:
        if self.server is not None:
            for pid, seconds in self.server[0].processes(self.server[1])[0].items():
                self.serving[pid] = max(self.serving.get(pid, 0.0), seconds)
        if self.coordinator is None:
            parents = {}
            for entry in os.scandir("/proc"):
                if entry.name.isdigit() and (found := stat_cpu(f"/proc/{entry.name}/stat")):
                    parents[int(entry.name)] = found[0]
            children = [pid for pid, ppid in parents.items() if ppid == self.time_pid]
            if not children:
                return
            self.coordinator = children[0]
        root = self.coordinator
        try:
            tasks = [int(entry.name) for entry in os.scandir(f"/proc/{root}/task")]
        except OSError:  # ended
            return
        for tid in tasks:
            if (found := stat_cpu(f"/proc/{root}/task/{tid}/stat")) is not None:
                self.threads[tid] = max(self.threads.get(tid, 0.0), found[1])
        cpu: dict[int, float] = {}
        rss, pss = tree_memory(root, cpu)
        self.rss, self.pss = max(self.rss, rss), max(self.pss, pss)
        for pid, seconds in cpu.items():
            if pid != root:
                self.below[pid] = max(self.below.get(pid, 0.0), seconds)


def timed(
    command: list[str],
    env: dict[str, str],
    cwd: Path | None = None,
    server: tuple[Server, str] | None = None,
) -> dict[str, Any]:
    """Run `command` under ``/usr/bin/time -v``, sampled (see `Sampler`): its figures and its
    standard output; with `server` (a PostgreSQL server and the database the command works
    in), the CPU seconds of the server's processes too."""
    load = os.getloadavg()[0]
    shared = server[0].processes(server[1])[1] if server is not None else {}
    with tempfile.NamedTemporaryFile("r", suffix=".time") as times:
        started = time.perf_counter()
        process = subprocess.Popen(
            ["/usr/bin/time", "-v", "-o", times.name, *command],
            stdout=subprocess.PIPE,
            env=env,
            cwd=cwd,
            text=True,
        )
        sampler = Sampler(process.pid, server)
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                sampler.sample()
                done.wait(0.1)

        thread = threading.Thread(target=sample)
        thread.start()
        out, _ = process.communicate()
        wall = time.perf_counter() - started
        done.set()
        thread.join()
        report = times.read()
    if process.returncode:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{report}")
    waited = sum(map(float, re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", report)))
    largest = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    assert largest is not None, report
    main = sampler.threads.get(sampler.coordinator or -1, 0.0)
    others = sorted(
        (s for tid, s in sampler.threads.items() if tid != sampler.coordinator), reverse=True
    )
    coordinator = main + sum(others)
    below = sum(sampler.below.values())
    figures = {
        "wall": wall,
        "cpu": max(waited, coordinator + below),
        "main_thread": main,
        "busiest_other_thread": others[0] if others else 0.0,
        "other_threads": sum(others[1:]),
        "coordinator": coordinator,
        "below": below,
        "processes_below": len(sampler.below),
        "share": coordinator / (coordinator + below) if coordinator + below else 1.0,
        "rss_largest": int(largest.group(1)) * 1024,
        "rss_tree": sampler.rss,
        "pss_tree": sampler.pss,
        "load": load,
        "stdout": out,
    }
    if server is not None:
        figures["server"] = sum(sampler.serving.values())
        figures["server_processes"] = len(sampler.serving)
        # the pids alive before and after: other sessions' databases share these processes
        after = server[0].processes(server[1])[1]
        figures["server_shared"] = sum(after[pid] - shared[pid] for pid in after if pid in shared)
    return figures


def sizes(db: Path) -> dict[str, int]:
    """Bytes of each table and index of the file (``dbstat``)."""
    with sqlite3.connect(db) as conn:
        return dict(conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))


def label(checkout: Path) -> str:
    """The checkout's short commit, ``+`` if its tree has changes."""
    git = ["git", "-C", str(checkout)]
    commit = subprocess.run(
        [*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    changed = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return commit + ("+" if changed else "")


def explorer(
    checkout: Path,
    side: int,
    workers: int,
    folder: Path,
    verify: bool,
    memory: int | None,
    server: Server | None = None,
) -> dict[str, Any]:
    """One build of SIDE,SIDE,SIDE by `checkout` into a fresh SQLite file (or, given `server`,
    a fresh PostgreSQL database, dropped after it), then its content, its reading and (if
    `verify`) its verification."""
    db = folder / f"store-w{workers}.db"
    for path in folder.glob(f"{db.name}*"):
        path.unlink()
    name = server.create() if server is not None else ""
    place = server.url_of(name) if server is not None else str(db)
    on = (server, name) if server is not None else None
    try:
        return build(checkout, side, workers, folder, verify, memory, place, on)
    finally:
        if server is not None:
            server.drop(name)
        for path in folder.glob(f"{db.name}*"):
            path.unlink()


def build(
    checkout: Path,
    side: int,
    workers: int,
    folder: Path,
    verify: bool,
    memory: int | None,
    db: str,
    server: tuple[Server, str] | None,
) -> dict[str, Any]:
    """`explorer` into database `db` (a file, or `server`'s database)."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    command = [sys.executable, "-m", "explorer", "build", SPEC, f"{side},{side},{side}"]
    command += ["--db", db, "--workers", str(workers), "--max-seconds", "0", "--json"]
    if memory is not None:
        command += ["--memory", str(memory)]
    run = timed(command, env, folder, server)
    report = json.loads(str(run.pop("stdout")))
    if report["status"] != "complete":
        raise SystemExit(f"the build did not complete: {report}")
    states = report["states_new"]
    parts = server[0].sizes(server[1]) if server is not None else sizes(Path(db))
    record = run | {
        "states": states,
        "edges": report["edges_new"],
        "outcome": report["outcome"],
        "remoteness": report["remoteness"],
        "db_bytes": sum(parts.values())
        if server is not None
        else sum(path.stat().st_size for path in folder.glob(f"{Path(db).name}*")),
        "parts": parts,
    }
    if READ_BACK:
        content = json.loads(python(checkout, CONTENT, db, SPEC))
        assert (content["states"], content["moves"]) == (states, record["edges"]), content
        assert content["transpose"], f"the moves into states are not the moves out: {content}"
        record["content"] = content["digest"]
        read = json.loads(python(checkout, READ_MOVES, db, SPEC))
        assert read["moves"] == record["edges"], (read, record["edges"])
        record["read_moves"], record["read_moves_cpu"] = read["seconds"], read["cpu"]
    if verify:
        check = [sys.executable, "-m", "explorer", "verify", SPEC, "--db", db]
        checked = timed([*check, "--max-seconds", "0", "--json"], env, folder, server)
        if not json.loads(str(checked["stdout"]))["ok"]:
            raise SystemExit(f"verify found damage: {checked['stdout']}")
        record["verify"] = checked["wall"]
        record["verify_cpu"] = checked["cpu"]
        if server is not None:
            record["verify_server"] = checked["server"]
    return record


def python(checkout: Path, script: str, *args: str) -> str:
    """The standard output of `script` (``python -c``) run by `checkout` with `args`."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, check=True
    ).stdout


def line(record: dict[str, Any]) -> str:
    """One run, on one line (two for a build)."""
    states = int(record["states"])
    head = (
        f"{record['tool']:21} {record['wall']:7.1f} s wall {record['cpu']:7.1f} s CPU, "
        f"peak {int(record['rss_largest']) / 2**20:,.0f} MiB largest, "
        f"{int(record['rss_tree']) / 2**20:,.0f} MiB tree "
        f"({int(record['pss_tree']) / states:.0f} B/state PSS), "
        f"{int(record['db_bytes']) / states:.1f} B/state file, load {record['load']:.2f}"
    )
    if "parts" not in record:
        return head
    parts = ", ".join(
        f"{name} {size / states:.1f}"
        for name, size in sorted(record["parts"].items(), key=lambda item: -item[1])
        if size / states >= 0.5
    )
    verify = (
        f", verify {record['verify']:.1f} s wall {record['verify_cpu']:.1f} s CPU"
        if "verify" in record
        else ""
    )
    read = (
        f"; read every move {record['read_moves']:.2f} s wall {record['read_moves_cpu']:.2f} s CPU"
        if "read_moves" in record
        else ""
    )
    server = (
        f"\n{'':20}server {record['server']:.1f} s CPU ({record['server_processes']} "
        f"processes of its database; shared ones {record['server_shared']:.1f} s)"
        if "server" in record
        else ""
    )
    return (
        f"{head}\n{'':20}coordinator {record['coordinator']:.1f} s CPU (main thread "
        f"{record['main_thread']:.1f}, busiest other {record['busiest_other_thread']:.1f}, "
        f"rest {record['other_threads']:.1f}), {record['processes_below']} processes below "
        f"{record['below']:.1f} s: share {100 * record['share']:.0f} %{read}"
        f"{verify}{server}\n{'':20}B/state: {parts}"
    )


#: The summary's columns: a run's figure, its title, its unit's scale.
FIGURES = (
    ("wall", "wall s", 1.0),
    ("cpu", "CPU s", 1.0),
    ("server", "server CPU s", 1.0),
    ("share", "coord %", 100.0),
    ("pss_tree", "PSS MiB", 2**-20),
    ("file", "file B/st", 1.0),
    ("read_moves", "read s", 1.0),
    ("read_moves_cpu", "read CPU", 1.0),
    ("verify", "verify s", 1.0),
    ("verify_cpu", "verify CPU", 1.0),
)


def summary(records: list[dict[str, Any]]) -> None:
    """Least and median of each figure per tool, the ratios of the medians (GamesmanPy over
    each build, the first checkout over the next with as many workers, 1 worker over 2), and
    Amdahl's bound from the coordinator's share."""
    by: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        record["file"] = int(record["db_bytes"]) / int(record["states"])
        by.setdefault(str(record["tool"]), []).append(record)
    print(f"\n{'':21} {'runs':>4}" + "".join(f" {title:>17}" for _, title, _ in FIGURES))
    medians: dict[str, dict[str, float]] = {}
    for tool, runs in by.items():
        cells, medians[tool] = [], {}
        for key, _, scale in FIGURES:
            values = [float(run[key]) for run in runs if key in run]
            if not values:
                cells.append(f" {'':>17}")
                continue
            medians[tool][key] = statistics.median(values)
            cells.append(f" {min(values) * scale:8.1f} {medians[tool][key] * scale:8.1f}")
        loads = [float(run["load"]) for run in runs]
        print(f"{tool:21} {len(runs):>4}{''.join(cells)}  load {min(loads):.1f}-{max(loads):.1f}")
    print("(each figure: least, median of the runs)")
    builds = [tool for tool in by if tool != "GamesmanPy"]
    pairs = [("GamesmanPy", tool) for tool in builds if "GamesmanPy" in by]
    for a in builds:
        for b in builds:
            (commit_a, workers_a, *store_a), (commit_b, workers_b, *store_b) = (
                a.split(),
                b.split(),
            )
            if store_a != store_b:
                if (commit_a, workers_a, store_a) == (commit_b, workers_b, ["postgres"]):
                    pairs.append((a, b))  # PostgreSQL over SQLite
                continue
            if workers_a == workers_b and builds.index(a) < builds.index(b):
                pairs.append((a, b))  # the commit before over the new one
            if commit_a == commit_b and (workers_a, workers_b) == ("w1", "w2"):
                pairs.append((a, b))
    for a, b in pairs:
        wall, cpu = (medians[a][key] / medians[b][key] for key in ("wall", "cpu"))
        print(f"ratio of medians {a} / {b}: wall {wall:.2f}x, CPU {cpu:.2f}x")
    for tool in builds:
        share = medians[tool]["share"]
        bound = " ".join(f"{n} cores {1 / (share + (1 - share) / n):.2f}x," for n in (2, 16, 64))
        print(
            f"Amdahl, {tool}: coordinator {100 * share:.0f} % of the CPU: at most {bound} "
            f"any number {1 / share:.2f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="*", type=Path, help="explorer checkouts, old first")
    parser.add_argument("--size", choices=sorted(SIZES, key=SIZES.get), default="1m")
    parser.add_argument("--workers", default="1,2", help="worker counts (default 1,2)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--verify",
        choices=("first", "all", "none"),
        default="first",
        help="verify the first build of each checkout a round (default), every build, or none",
    )
    parser.add_argument("--gamesmanpy", type=Path, help="a GamesmanPy checkout, after uv sync")
    parser.add_argument("--memory", type=int, help="explorer's --memory MiB (10M: 20000)")
    parser.add_argument(
        "--postgres",
        metavar="URL",
        help="also build each into a fresh database on this PostgreSQL server (on this machine)",
    )
    parser.add_argument(
        "--no-read-back",
        action="store_true",
        help="skip reading each build back (its content digest and every move): at 10^8 "
        "states that takes hours of Python",
    )
    parser.add_argument("--out", type=Path, help="append each run to this JSON-lines file")
    parser.add_argument("--summary", type=Path, help="print the table of a JSON-lines file")
    args = parser.parse_args()
    if args.summary is not None:
        summary([json.loads(text) for text in args.summary.read_text().splitlines() if text])
        return
    global READ_BACK
    READ_BACK = not args.no_read_back
    if not args.checkouts:
        parser.error("give at least one explorer checkout")
    side = SIZES[args.size]
    if args.gamesmanpy is not None:
        register_gamesmanpy(args.gamesmanpy.resolve(), [side])
    names = {checkout: label(checkout) for checkout in args.checkouts}
    workers = [int(n) for n in args.workers.split(",")]
    server = Server(args.postgres) if args.postgres is not None else None
    stores = [None] if server is None else [None, server]
    print(f"{SPEC} {side},{side},{side}; checkouts " + ", ".join(names.values()))
    records = []
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            # every run's place turns over from one round to the next: the checkouts' order
            # and, within each, the worker counts'
            runs: list[tuple[str, Path | None, int, Server | None]] = [
                (f"{names[c]} w{n}" + (" postgres" if store else ""), c, n, store)
                for c in args.checkouts
                for n in workers
                for store in stores
            ]
            if round_ % 2:
                runs.reverse()
            if args.gamesmanpy is not None:
                runs.insert(round_ % (len(runs) + 1), ("GamesmanPy", None, 0, None))
            verified: set[tuple[Path, Server | None]] = set()
            for tool, checkout, count, store in runs:
                if checkout is None:
                    run = gamesmanpy(side, args.gamesmanpy.resolve())
                else:
                    verify = args.verify == "all" or (
                        args.verify == "first" and (checkout, store) not in verified
                    )
                    verified.add((checkout, store))
                    run = explorer(
                        checkout.resolve(), side, count, Path(scratch), verify, args.memory, store
                    )
                record = {"tool": tool, "side": side, "round": round_, **run}
                records.append(record)
                print(f"round {round_ + 1} " + line(record), flush=True)
                if args.out is not None:
                    with args.out.open("a") as out:
                        out.write(json.dumps(record) + "\n")
    answers = {(r["states"], r["outcome"], r["remoteness"]) for r in records}
    assert len(answers) == 1, f"the tools disagree: {answers}"
    contents = {r["content"] for r in records if "content" in r}
    assert len(contents) <= 1, f"the builds store different content: {contents}"
    if contents:
        print(f"every build stores the same content (digest {contents.pop()[:16]})")
    summary(records)


if __name__ == "__main__":
    main()
