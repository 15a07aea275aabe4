"""Time the pruned search on Cram boards, whole process, beside the full part walk
(``--method decompose``, the method before it) and, when given, another solver's binary.

Usage: python tests/benchmarks/bench_pruned.py [--boards 4x5,5x5,4x7] [--walk 4x5,5x5]
       [--igsolve PATH] [--runs 2]

Each run is a new process timed by /usr/bin/time -v (wall seconds, CPU seconds, peak MB); the
methods alternate within each round, so that the machine's drift hits them alike. With
--igsolve, PATH is run as ``PATH cram ROWS COLS`` (or ``PATH cram -r ROWS -c COLS``, as older
igsolve builds take it; a binary the user built, for instance with build_igsolve.py beside this
script), its value is checked against explorer's, and its row gives the ratio of the medians.

Measured 2026-12-07 (3 runs each, alternating, 2 cores shared, load 1 to 4; igsolve c721c3f):
Cram 4x9 4.1 s against 0.30 s (13.7x), 5x7 2.95 s against 0.68 s (4.3x), 5x8 28.4 s against
3.7 s (7.6x), 5x6 1.09 s against 0.07 s (15.6x), 4x7 0.92 s against 0.02 s (46x); 4x5, 5x5,
4x8 and 6x6 0.83 to 0.96 s against under 0.01 s (over 80x): explorer's start (Python, numba,
about 0.8 s) is most of it. ``solve --workers 2`` (each worker its own table), 2 runs each,
load 4 to 6: 5x8 68 s and 82 s against 30 s and 71 s with one process; 5x6 and 5x7 side by
side on one board 16.9 s against 14.0 s.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
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


def igsolve_command(binary: str, board: str) -> list[str]:
    """igsolve's command for a board, in the form its ``cram`` subcommand takes."""
    rows, cols = board.split("x")
    usage = subprocess.run([binary, "cram", "--help"], capture_output=True, text=True).stdout
    return (
        [binary, "cram", "-r", rows, "-c", cols]
        if "--rows" in usage
        else [binary, "cram", rows, cols]
    )


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
        walls: dict[str, list[float]] = {}
        values: dict[str, str] = {}
        for _ in range(args.runs):
            for method in methods:
                command = [sys.executable, "-m", "explorer", "solve", "cram", board]
                wall, cpu, peak, out = timed(command + ["--method", method])
                value = re.search(r"grundy\s+(\d+)", out)
                values[method] = value.group(1) if value else "?"
                walls.setdefault(method, []).append(wall)
                print(
                    f"{board:6} {method:8} {values[method]:>5} {wall:8.2f} {cpu:8.2f} {peak:8.0f}"
                )
            if args.igsolve:
                wall, cpu, peak, out = timed(igsolve_command(args.igsolve, board))
                value = re.search(r"Nimber of initial position:\s*(\d+)", out)
                values["igsolve"] = value.group(1) if value else "?"
                walls.setdefault("igsolve", []).append(wall)
                shown = values["igsolve"]
                print(f"{board:6} {'igsolve':8} {shown:>5} {wall:8.2f} {cpu:8.2f} {peak:8.0f}")
        if args.igsolve:
            ours, theirs = statistics.median(walls["pruned"]), statistics.median(walls["igsolve"])
            agree = "values agree" if values["pruned"] == values["igsolve"] else "VALUES DIFFER"
            # /usr/bin/time counts hundredths: a faster igsolve gives a lower bound of the ratio
            ratio = f"{ours / theirs:8.1f}x" if theirs >= 0.01 else f">{ours / 0.01:7.0f}x"
            print(f"{board:6} ratio    {ratio} (median wall, {agree})")


if __name__ == "__main__":
    main()
