"""Benchmark the sequence engine and value tables as whole processes (issue 11's figures).

Run: ``python tests/benchmarks/bench_sequences.py [--big] [--repeat N]``. Each case is one
``python -m explorer`` process under ``/usr/bin/time -v``: wall time, CPU time and peak memory
(maximum resident set size) of the whole process, beside the goal and, where there is one, the
C++ analyser's figure on a 2-core machine like ours (SEQUENCES.md). The 1-minute load average
is printed with each run, since a shared machine's wall times drift with it. ``--big`` adds
Grundy's game to 2^24 as text, as JSON and stored in the default database ($EXPLORER_DB, here
a new temporary file).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from typing import NamedTuple


class Case(NamedTuple):
    name: str
    args: list[str]
    goal: str
    reference: str = ""
    #: The output line to show: the first matching this pattern, else the last line.
    show: str = ""
    #: Start from an empty default database (the run computes and stores every value).
    fresh_db: bool = False


CASES = [
    Case("kayles to 2,000", ["sequence", "kayles", "--upto", "2000"], "wall <= 1 s"),
    Case(
        "solve kayles 10^12",
        ["solve", "kayles", "1000000000000"],
        "at once, method names the period",
        show=r"^method",
    ),
    Case(
        "solve a sum of far heaps",
        ["solve", "kayles", "5,77777777777,1000000000000"],
        "at once, method names the period",
        show=r"^method",
    ),
    Case(
        "grundy to 2^20",
        ["sequence", "grundy", "--upto", "1048576", "--json"],
        "wall <= 15 s",
        "C++ 4.8 s",
    ),
    Case(
        "0.16 until periodic",
        ["sequence", "octal:0.16", "--until-periodic", "--upto", "10000000"],
        "105,351 / 149,459 proven, <= 2 s computing",
        "C++ 0.21 s",
    ),
    Case(
        "0.56 until periodic",
        ["sequence", "octal:0.56", "--until-periodic", "--upto", "10000000"],
        "326,640 / 144 proven, <= 2 s computing",
        "C++ 0.64 s",
    ),
    Case(
        "0.127 until periodic",
        ["sequence", "octal:0.127", "--until-periodic", "--upto", "1000000"],
        "46,578 / 4 proven, <= 2 s computing",
        "C++ 0.27 s",
    ),
    Case(
        "wythoff 1000 x 1000",
        ["table", "wythoff", "--rows", "1000", "--cols", "1000", "--json"],
        "wall <= 5 s",
    ),
]
BIG_GOAL = "wall <= 4 min, peak <= 300 MB"
BIG = [
    Case("grundy to 2^24", ["sequence", "grundy", "--upto", "16777216"], BIG_GOAL, "C++ 88 s"),
    Case(
        "grundy to 2^24 --json",
        ["sequence", "grundy", "--upto", "16777216", "--json"],
        BIG_GOAL,
        "C++ 88 s",
    ),
    Case(
        "grundy to 2^24 --db",
        ["sequence", "grundy", "--upto", "16777216", "--db"],
        BIG_GOAL,
        "C++ 88 s",
        fresh_db=True,
    ),
    Case(
        "grundy 2^24 read back",
        ["sequence", "grundy", "--upto", "16777216", "--db", "--json"],
        BIG_GOAL,
    ),
]


class Figures(NamedTuple):
    wall: float
    cpu: float
    peak_mb: float
    shown: str


def measure(case: Case, env: dict[str, str]) -> Figures:
    """Wall s, CPU s, peak MB (10^6 bytes) and one output line of one explorer process."""
    with tempfile.TemporaryFile("w+") as out:
        done = subprocess.run(
            ["/usr/bin/time", "-v", sys.executable, "-m", "explorer", *case.args],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
            env=env,
        )
        shown = ""
        if case.show:
            out.seek(0)
            shown = next((line for line in out if re.search(case.show, line)), "")
        if not shown:
            out.seek(0, os.SEEK_END)
            size = out.tell()
            out.seek(max(0, size - 400))
            shown = out.read().strip().splitlines()[-1]
    report = done.stderr

    def field(name: str) -> str:
        found = re.search(rf"{re.escape(name)}: (.+)", report)
        assert found, name
        return found.group(1).strip()

    wall_text = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(p) for p in wall_text.split(":")]
    wall = sum(p * 60**i for i, p in enumerate(reversed(parts)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    peak = int(field("Maximum resident set size (kbytes)")) * 1024 / 1e6
    return Figures(wall, cpu, peak, shown.strip()[:100])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--big", action="store_true", help="also Grundy's game to 2^24")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each case")
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores; load: 1-minute load average when the run started")
    with tempfile.TemporaryDirectory() as scratch:
        env = {**os.environ, "EXPLORER_DB": os.path.join(scratch, "explorer.db")}
        for case in CASES + (BIG if options.big else []):
            for _ in range(options.repeat):
                for leftover in ("", "-wal", "-shm") if case.fresh_db else ():
                    if os.path.exists(env["EXPLORER_DB"] + leftover):
                        os.remove(env["EXPLORER_DB"] + leftover)
                load = os.getloadavg()[0]
                f = measure(case, env)
                reference = f"  [{case.reference}]" if case.reference else ""
                print(
                    f"{case.name:<24} wall {f.wall:7.2f} s  cpu {f.cpu:7.2f} s  "
                    f"peak {f.peak_mb:5.0f} MB  load {load:4.1f}  goal: {case.goal}{reference}"
                )
                print(f"{'':<24} | {f.shown}")


if __name__ == "__main__":
    main()
