"""Benchmark: whole-process `explorer query`, `explorer stats` and `explorer --help` on a big
stored game, each run as a new process (start-up included), several runs in turn.

    python tests/benchmarks/bench_startup.py                  # builds 1,004,731 states first
    python tests/benchmarks/bench_startup.py --db big.db      # a database already built
    python tests/benchmarks/bench_startup.py --quick          # a small game, for a smoke run

The same figures come from public tools: ``/usr/bin/time -v explorer stats --db big.db``.
Goals (issue 12): on 10M states (``explorer build subtraction:1,2 390,390,390``) `query` of
one position at most 0.5 s and `stats` at most 1 s, whole process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPEC, POSITION = "subtraction:1,2", "180,180,180"
QUICK_POSITION = "30,30,30"


def commands(db: str, spec: str, position: str) -> dict[str, list[str]]:
    return {
        "query": ["query", spec, position, "--db", db],
        "query --json": ["query", spec, position, "--db", db, "--json"],
        "stats": ["stats", "--db", db],
        "stats SPEC": ["stats", spec, "--db", db],
        "--help": ["--help"],
    }


def run_once(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one ``python -m explorer ARGS`` process."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"explorer {' '.join(args)} failed: {process.stderr.read().decode()}")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="a database with SPEC built (default: build one)")
    parser.add_argument("--spec", default=SPEC)
    parser.add_argument("--position", help=f"the position queried (default {POSITION})")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--quick", action="store_true", help=f"build {QUICK_POSITION} instead")
    options = parser.parse_args()
    position = options.position or (QUICK_POSITION if options.quick else POSITION)
    with tempfile.TemporaryDirectory() as tmp:
        db = options.db
        if db is None:
            db = str(Path(tmp) / "startup.db")
            print(f"building {options.spec} {position} into {db} ...", flush=True)
            build = [sys.executable, "-m", "explorer", "build", options.spec, position, "--db", db]
            subprocess.run(build, check=True, stdout=subprocess.DEVNULL)
        timed = commands(db, options.spec, position)
        for args in timed.values():  # a warm-up run each: files and modules in the page cache
            run_once(args)
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in timed}
        for _ in range(options.runs):  # in turn, so that a drift of the machine hits them all
            for name, args in timed.items():
                figures[name].append(run_once(args))
    print(f"{'command':<14} {'wall min/median/max (s)':>26} {'cpu min/median/max (s)':>26}")
    for name, runs in figures.items():
        cells = []
        for values in (sorted(w for w, _ in runs), sorted(c for _, c in runs)):
            cells.append(f"{values[0]:.3f} {statistics.median(values):.3f} {values[-1]:.3f}")
        print(f"{name:<14} {cells[0]:>26} {cells[1]:>26}")


if __name__ == "__main__":
    main()
