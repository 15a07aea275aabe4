"""Benchmark the sequence engine and value tables as whole processes (the issue's figures).

Run: ``python tests/benchmarks/bench_sequences.py [--big]``. Each case is one ``explorer``
process under ``/usr/bin/time -v`` (wall time, CPU time, peak memory); the machine's load is
printed too, since a shared machine's wall times drift. ``--big`` adds Grundy's game to 2^24.
For comparison (SEQUENCES.md, a 2-core machine like ours): the C++ analyser computes Grundy's
game to 2^20 in 4.8 s and 2^24 in 88 s, and proves 0.16, 0.56, 0.127 in 0.21, 0.64, 0.27 s.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile

CASES = [
    ("kayles to 2,000", ["sequence", "kayles", "--upto", "2000"]),
    ("solve kayles 10^12", ["solve", "kayles", "1000000000000"]),
    ("grundy to 2^20", ["sequence", "grundy", "--upto", "1048576", "--json"]),
    ("0.16 until periodic", ["sequence", "octal:0.16", "--until-periodic", "--upto", "10000000"]),
    ("0.56 until periodic", ["sequence", "octal:0.56", "--until-periodic", "--upto", "10000000"]),
    ("0.127 until periodic", ["sequence", "octal:0.127", "--until-periodic", "--upto", "1000000"]),
    ("wythoff 1000 x 1000", ["table", "wythoff", "--rows", "1000", "--cols", "1000", "--json"]),
]
BIG = [("grundy to 2^24", ["sequence", "grundy", "--upto", "16777216", "--json"])]


def measure(args: list[str]) -> tuple[float, float, float, str]:
    """Wall s, CPU s, peak MiB and the last output line of one explorer process."""
    with tempfile.TemporaryFile("w+") as out:
        done = subprocess.run(
            ["/usr/bin/time", "-v", "explorer", *args],
            stdout=out,
            stderr=subprocess.PIPE,
            text=True,
            check=True,
        )
        out.seek(0, os.SEEK_END)
        size = out.tell()
        out.seek(max(0, size - 400))
        last = out.read().strip().splitlines()[-1][:90]
    report = done.stderr

    def field(name: str) -> str:
        found = re.search(rf"{re.escape(name)}: (.+)", report)
        assert found, name
        return found.group(1).strip()

    wall_text = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    parts = [float(p) for p in wall_text.split(":")]
    wall = sum(p * 60**i for i, p in enumerate(reversed(parts)))
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    peak = int(field("Maximum resident set size (kbytes)")) / 1024
    return wall, cpu, peak, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--big", action="store_true", help="also Grundy's game to 2^24")
    options = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for name, args in CASES + (BIG if options.big else []):
        wall, cpu, peak, last = measure(args)
        print(f"{name:<22} wall {wall:7.2f} s  cpu {cpu:7.2f} s  peak {peak:6.0f} MiB  | {last}")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
