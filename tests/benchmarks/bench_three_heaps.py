"""Benchmark: the three-heap subtraction game S = {1, 2} built by ``explorer build --workers 1``,
``--workers 2`` and GamesmanPy's solver, as whole processes side by side, alternating.

From SIDE,SIDE,SIDE every multiset of three heaps of at most SIDE is reached: C(SIDE + 3, 3)
states (180: 1,004,731; 389: 9,962,680; 843: 100,558,380). Each run is a whole process under
``/usr/bin/time -v``, timed from outside: wall time; CPU time of the whole process tree (a
build's worker processes are children of its fork server, which ``/usr/bin/time`` misses, so
every process of the tree is also read from /proc every 0.1 s); peak resident memory of the
largest process (``/usr/bin/time -v``) and of the whole tree (sampled: resident and
proportional sets); the database's size; the 1-minute load average before the run. The runs
check that the tools agree: the same number of states and the same outcome and remoteness of
the start position.

    python tests/benchmarks/bench_three_heaps.py --gamesmanpy DIR            # 1M, 3 rounds
    python tests/benchmarks/bench_three_heaps.py --gamesmanpy DIR --side 60  # a smoke run
    python tests/benchmarks/bench_three_heaps.py --side 389 --tools w1,w2 --memory 20000   # 10M
    python tests/benchmarks/bench_three_heaps.py --side 843 --tools w2 --rounds 1 --memory 22000
    python tests/benchmarks/bench_three_heaps.py --summary runs.jsonl    # the table of a series

``--out FILE`` appends each run as a JSON line, so a long series can be taken in several calls
and summed up with ``--summary``: min and median per tool, and the ratios of the medians.

GamesmanPy (GamesCrafters' Python solver: a checkout of its public repository in DIR, set up as
its README says, ``uv sync``) gets the same game as a `Game` class of its own, written into the
checkout and registered in its game list, positions packed into one int; it is run as the
program ``uv run solver`` starts, ``DIR/.venv/bin/solver subtraction3 -v SIDE -o``, on a fresh
database. It finds win/loss and remoteness of every position and stores those; explorer also
finds Grundy values and stores every move.

Goals (issue 31): ``--workers 2`` at least 2x faster than GamesmanPy on the 1M build; the 10M
build with 2 workers at least 1.7x faster than with one; a 10^8-state build completes.

Measured on main 403f9e6 (each state of a build in tiers written once), quiet 2-core machine
(load 1.7-2.4, the session's idle processes):

    1M, 3 rounds   --workers 1  8.7-8.9 s wall, 11.3 s CPU, 361 MiB (377 B/state), db 219 MiB
                   --workers 2  8.4-8.8 s, 12.7 s CPU, tree 283 MiB (296 B/state), db 222 MiB
                   GamesmanPy   11.4-12.1 s, 12.0 s CPU, 546 MiB (Python 3.12), db 14 MiB
                   GamesmanPy / --workers 2: 1.39x wall (1.20x on ec6fa10, 1.03x on b0043ab);
                   --workers 1 / --workers 2: 1.00x wall

    Where --workers 2 spends it (py-spy, 100 Hz): its one SQLite writer thread runs 6.9 s of
    the 8.4 s (edges 4.5 s: 5.9M rows into their key and the predecessors' index; states,
    whole, 1.2 s; commits 0.5 s; the key index 0.4 s; the keys' scratch file 0.2 s), from
    0.7 s to the end, with no gap over 0.1 s. The build can end no sooner than its writer:
    2x GamesmanPy (6 s) and 1.7x --workers 1 (5.1 s) both need less than one writer thread
    alone does on this schema.

    10M, 1 pair    --workers 2  78.6 s wall, 121 s CPU, tree 662 MiB (70 B/state)
                   --workers 1  96.5 s, 124 s CPU, 2,104 MiB (221 B/state)
                   ratio 1/2: 1.23x (0.96x on ec6fa10); both: N, remoteness 779; db 2.2 GiB

On main ec6fa10: 1M --workers 1 9.5-9.7 s wall, 11.6 s CPU; --workers 2 10.8-11.2 s, 15.0 s
CPU; GamesmanPy 12.9-13.1 s, 13.0 s CPU; and

    10M, 2 pairs   --workers 1  99.4-100.9 s, 127 s CPU, 2,647 MiB (279 B/state)
                   --workers 2  103.5-103.7 s, 148 s CPU, tree 1,405 MiB (148 B/state)
                   ratio 1/2: 0.96x and 0.97x; both: N, remoteness 779; database 2.2 GiB

Memory, the tree's peak: resident sets summed (RSS), and proportional sets summed (PSS, the
fair measure: a page shared by several processes of the tree, as libpython, numpy and the
fork server's preloaded modules are by the workers, counts once, split between them; it is
what the tree takes from the machine). On main 27df648 (1M) and 9be5ed5 (10M), quiet (load
1.8-3.6):

    1M   --workers 2  RSS 251-253 MiB (262-264 B/state), PSS 186-187 MiB (194-196 B/state);
                      on d89af16 316-317 and 254-255 MiB (330 and 266 B/state). PSS at the
                      peak: coordinator 131 MiB (about 78 before its first state: interpreter,
                      libraries, the database opened), workers 17 each, fork server 14,
                      resource tracker 8; RSS 150, 31 each, 31, 14
    1M   --workers 1  338-340 MiB (353-355 B/state); 348-350 on d89af16
    10M  --workers 2  RSS 557 MiB (59 B/state), PSS 490 MiB (52 B/state); 80.1 s, 124 s CPU
    10M  --workers 1  2,160 MiB (227 B/state); 96.4 s, 123 s CPU

843,843,843 (100,558,380 states, 600,854,150 moves), --workers 2 --memory 22000, on main
4f46f15 (every tier's moves still kept in memory until solved), niced beside the session's
other work and paused 936 s by benchmarks: 3,010 s wall (2,074 s not paused), 1,729 s CPU of
the tree, tree peak RSS 5,748 MiB (60 B/state), PSS 5,684 MiB (59 B/state), reached as the
last tier is expanded; database 26.7 GB; P, remoteness 1686. Before (e8a40eb, 837,837,837,
98,431,480 states): 1,563 s wall, tree peak 11.3 GiB (124 B/state), 5.5 GiB of it SQLite
sorting the key index in memory at the end.
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
import time
from math import comb
from pathlib import Path
from typing import Any

from bench_build_workers import communicate_sampled

REPO = Path(__file__).resolve().parents[2]
SPEC = "subtraction:1,2"
TOOLS = {"w1": "explorer --workers 1", "w2": "explorer --workers 2", "gamesmanpy": "GamesmanPy"}

#: The game for GamesmanPy: its `Game` interface (models.Game), a position packed into one int.
GAMESMANPY_GAME = """\
from models import Game, Value


class Subtraction3(Game):
    id = "subtraction3"
    variants = {variants!r}
    n_players = 2
    cyclic = False

    def __init__(self, variant_id):
        self.size = int(variant_id)
        self.base = self.size + 1

    def pack(self, a, b, c):
        a, b, c = sorted((a, b, c))
        return (a * self.base + b) * self.base + c

    def unpack(self, position):
        rest, c = divmod(position, self.base)
        a, b = divmod(rest, self.base)
        return a, b, c

    def start(self):
        return self.pack(self.size, self.size, self.size)

    def generate_moves(self, position):
        a, b, c = self.unpack(position)
        pack = self.pack
        moves = []
        for k in (1, 2):
            if a >= k:
                moves.append(pack(a - k, b, c))
            if b >= k:
                moves.append(pack(a, b - k, c))
            if c >= k:
                moves.append(pack(a, b, c - k))
        return moves

    def do_move(self, position, move):
        return move

    def primitive(self, position):
        return Value.Loss if position == 0 else None

    def to_string(self, position, mode):
        return ",".join(map(str, self.unpack(position)))

    def from_string(self, text):
        return self.pack(*map(int, text.split(",")))

    def move_to_string(self, move, mode):
        return self.to_string(move, mode)
"""


def register_gamesmanpy(checkout: Path, sides: list[int]) -> None:
    """Write the game into a GamesmanPy checkout and add it to its game list."""
    games = checkout / "games" / "src" / "games"
    variants = sorted({str(side) for side in sides} | {"60", "180"}, key=int)
    (games / "subtraction3.py").write_text(GAMESMANPY_GAME.replace("{variants!r}", repr(variants)))
    manager = games / "game_manager.py"
    text = manager.read_text()
    if "Subtraction3" not in text:
        text = text.replace(
            "game_list = {",
            'from .subtraction3 import Subtraction3\n\ngame_list = {\n    "subtraction3": '
            "Subtraction3,",
        )
        manager.write_text(text)


def whole_process(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run COMMAND under /usr/bin/time -v: wall and CPU seconds, peak bytes, its stdout."""
    load = os.getloadavg()[0]
    with tempfile.NamedTemporaryFile("r", suffix=".time") as times:
        started = time.perf_counter()
        process = subprocess.Popen(
            ["/usr/bin/time", "-v", "-o", times.name, *command],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        out, ended, peak, cpu_seen = communicate_sampled(process, 0.1)
        wall = ended - started
        report = times.read()
    if process.returncode:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(command)}\n{report}")
    waited = sum(map(float, re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", report)))
    largest = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    assert largest is not None, report
    return {
        "wall": wall,
        "cpu": max(waited, sum(cpu_seen.values())),
        "rss_largest": int(largest.group(1)) * 1024,
        "rss_tree": peak[0],
        "pss_tree": peak[1],
        "load": load,
        "stdout": out,
    }


def explorer(side: int, workers: int, folder: Path, memory: int | None) -> dict[str, Any]:
    """One `explorer build` of SIDE,SIDE,SIDE into a fresh SQLite file."""
    db = folder / f"w{workers}.db"
    for path in folder.glob(f"w{workers}.db*"):
        path.unlink()
    command = [sys.executable, "-m", "explorer", "build", SPEC, f"{side},{side},{side}"]
    command += ["--db", str(db), "--workers", str(workers), "--max-seconds", "0", "--json"]
    if memory is not None:
        command += ["--memory", str(memory)]
    run = whole_process(command, folder, {**os.environ, "PYTHONPATH": str(REPO)})
    report = json.loads(str(run.pop("stdout")))
    if report["status"] != "complete":
        raise SystemExit(f"the build did not complete: {report}")
    size = sum(path.stat().st_size for path in folder.glob(f"w{workers}.db*"))
    for path in folder.glob(f"w{workers}.db*"):
        path.unlink()
    return run | {
        "states": report["states_new"],
        "edges": report["edges_new"],
        "outcome": report["outcome"],
        "remoteness": report["remoteness"],
        "db_bytes": size,
    }


def gamesmanpy(side: int, checkout: Path) -> dict[str, Any]:
    """One solve of SIDE,SIDE,SIDE by GamesmanPy's solver, on a fresh database."""
    db = checkout / "database" / "db" / f"subtraction3_{side}.db"
    db.unlink(missing_ok=True)
    command = [str(checkout / ".venv" / "bin" / "solver"), "subtraction3", "-v", str(side), "-o"]
    run = whole_process(command, checkout, dict(os.environ))
    out = str(run.pop("stdout"))
    written = re.search(r"(\d+) positions written to database", out)
    assert written is not None, out
    base = side + 1
    start = (side * base + side) * base + side
    with sqlite3.connect(db) as conn:
        remoteness, value = conn.execute(
            "SELECT remoteness, value FROM gamedb WHERE state = ?", (start,)
        ).fetchone()
    size = db.stat().st_size
    db.unlink()
    outcome = {3: "N", 0: "P"}.get(value, f"value {value}")  # GamesmanPy's Win and Loss
    return run | {
        "states": int(written.group(1)),
        "outcome": outcome,
        "remoteness": remoteness,
        "db_bytes": size,
    }


def summary(records: list[dict[str, Any]]) -> None:
    """Min and median per tool and side, and the ratios of the medians."""
    by: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for record in records:
        by.setdefault((int(record["side"]), str(record["tool"])), []).append(record)
    for side in sorted({side for side, _ in by}):
        print(f"\n{SPEC} {side},{side},{side}: {comb(side + 3, 3):,} states")
        print(
            f"{'':22} {'runs':>4} {'wall min':>9} {'median':>8} {'CPU min':>8} {'median':>8} "
            f"{'tree peak':>10} {'B/state':>8} {'largest':>9} {'database':>9} {'load':>9}"
        )
        medians = {}
        for (at, tool), runs in sorted(by.items()):
            if at != side:
                continue
            walls = [float(run["wall"]) for run in runs]
            cpus = [float(run["cpu"]) for run in runs]
            peak = max(int(run["rss_tree"]) for run in runs)
            largest = max(int(run["rss_largest"]) for run in runs)
            loads = [float(run["load"]) for run in runs]
            states = int(runs[0]["states"])
            medians[tool] = statistics.median(walls), statistics.median(cpus)
            print(
                f"{TOOLS[tool]:22} {len(runs):>4} {min(walls):8.1f}s {medians[tool][0]:7.1f}s "
                f"{min(cpus):7.1f}s {medians[tool][1]:7.1f}s {peak / 2**20:7.0f}MiB "
                f"{peak / states:8.0f} {largest / 2**20:6.0f}MiB "
                f"{int(runs[0]['db_bytes']) / 2**20:6.0f}MiB "
                f"{min(loads):4.1f}-{max(loads):.1f}"
            )
        for slow, fast in (("w1", "w2"), ("gamesmanpy", "w2"), ("gamesmanpy", "w1")):
            if slow in medians and fast in medians:
                (wall_a, cpu_a), (wall_b, cpu_b) = medians[slow], medians[fast]
                print(
                    f"ratio {TOOLS[slow]} / {TOOLS[fast]}: wall {wall_a / wall_b:.2f}x, "
                    f"CPU {cpu_a / cpu_b:.2f}x (medians)"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side", type=int, default=180, help="the heaps (default 180: 1M)")
    parser.add_argument("--tools", default="w1,w2,gamesmanpy", help="of w1, w2, gamesmanpy")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gamesmanpy", type=Path, help="a GamesmanPy checkout, after uv sync")
    parser.add_argument("--memory", type=int, help="explorer's --memory MiB (10M states: 20000)")
    parser.add_argument("--out", type=Path, help="append each run to this JSON-lines file")
    parser.add_argument("--summary", type=Path, help="print the table of a JSON-lines file")
    args = parser.parse_args()
    if args.summary is not None:
        summary([json.loads(line) for line in args.summary.read_text().splitlines() if line])
        return
    tools = args.tools.split(",")
    if "gamesmanpy" in tools:
        if args.gamesmanpy is None:
            parser.error("--gamesmanpy DIR is needed to run GamesmanPy")
        register_gamesmanpy(args.gamesmanpy, [args.side])
    print(f"{SPEC} {args.side},{args.side},{args.side}: {comb(args.side + 3, 3):,} states")
    records = []
    with tempfile.TemporaryDirectory() as scratch:
        for round_ in range(args.rounds):
            order = tools[round_ % len(tools) :] + tools[: round_ % len(tools)]
            for tool in order:
                if tool == "gamesmanpy":
                    run = gamesmanpy(args.side, args.gamesmanpy)
                else:
                    run = explorer(args.side, int(tool[1:]), Path(scratch), args.memory)
                record = {"tool": tool, "side": args.side, "round": round_, **run}
                records.append(record)
                print(
                    f"round {round_ + 1} {TOOLS[tool]:22} {run['wall']:7.1f} s wall "
                    f"{run['cpu']:7.1f} s CPU, tree peak {int(run['rss_tree']) / 2**20:,.0f} MiB, "
                    f"{run['states']:,} states, {run['outcome']} in {run['remoteness']}, "
                    f"load {run['load']:.2f}",
                    flush=True,
                )
                if args.out is not None:
                    with args.out.open("a") as out:
                        out.write(json.dumps(record) + "\n")
    answers = {(r["states"], r["outcome"], r["remoteness"]) for r in records}
    assert len(answers) == 1, f"the tools disagree: {answers}"
    summary(records)


if __name__ == "__main__":
    main()
