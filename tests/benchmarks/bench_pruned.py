"""Time the pruned search on Cram boards, whole process, beside the full part walk
(``--method decompose``, the method before it) and, when given, another solver's binary.

Usage: python tests/benchmarks/bench_pruned.py [--boards 4x5,5x5,4x7] [--walk 4x5,5x5]
       [--igsolve PATH] [--runs 2]

Each run is a new process timed by /usr/bin/time -v (wall seconds, CPU seconds, peak MB); the
methods alternate within each round, so that the machine's drift hits them alike. With
--igsolve, PATH is run as ``PATH cram ROWS COLS`` (a binary the user built, for instance
with build_igsolve.py beside this script) and its row gives the ratio.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def timed(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds, peak MB and standard output of one process."""
    run = subprocess.run(
        ["/usr/bin/time", "-v", *command],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
    )
    fields = dict(
        (key.strip(), value.strip())
        for key, _, value in (line.partition(": ") for line in run.stderr.splitlines())
    )
    wall_text = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"]
    wall = sum(float(x) * 60**i for i, x in enumerate(reversed(wall_text.split(":"))))
    cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
    peak = int(fields["Maximum resident set size (kbytes)"]) / 1024
    return wall, cpu, peak, run.stdout


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--boards", default="4x5,5x5,4x7,5x6,4x8,4x9,5x7")
    parser.add_argument("--walk", default="4x5,5x5", help="boards also timed by the full walk")
    parser.add_argument("--igsolve", default=None)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    walk = set(args.walk.split(",")) if args.walk else set()
    print(f"{'board':6} {'method':8} {'value':>5} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    for board in args.boards.split(","):
        methods = ["pruned"] + (["decompose"] if board in walk else [])
        for _ in range(args.runs):
            for method in methods:
                command = [sys.executable, "-m", "explorer", "solve", "cram", board]
                wall, cpu, peak, out = timed(command + ["--method", method])
                value = re.search(r"grundy\s+(\d+)", out)
                shown = value.group(1) if value else "?"
                print(f"{board:6} {method:8} {shown:>5} {wall:8.2f} {cpu:8.2f} {peak:8.0f}")
            if args.igsolve:
                rows, cols = board.split("x")
                wall, cpu, peak, out = timed([args.igsolve, "cram", rows, cols])
                print(f"{board:6} {'igsolve':8} {'':>5} {wall:8.2f} {cpu:8.2f} {peak:8.0f}")


if __name__ == "__main__":
    main()
