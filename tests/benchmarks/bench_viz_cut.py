"""Benchmark cut drawings of big games: `explorer viz` as a whole process, under `/usr/bin/time -v`.

Run: ``python tests/benchmarks/bench_viz_cut.py [--repeat 3] [--repo PATH ...]``.
Goal: ``viz kayles 60`` and ``viz nim 30,30,30,30`` draw their budget (50 states) in at most
5 s and 300 MB: a cut picture explores and values only what it draws.

Each ``--repo`` is a checkout whose package runs (through PYTHONPATH); with two, the runs
alternate (old, new, old, new, ...) so that the machine's drift hits both alike. Prints wall
time, CPU time (user + system) and peak memory (maximum resident set size) per run, and the
load average, which matters on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CASES = [("kayles", "60"), ("nim", "30,30,30,30")]
REPO = Path(__file__).resolve().parents[2]


def measure(repo: Path, spec: str, position: str, out: Path) -> dict[str, float]:
    """One `explorer viz` run: wall and CPU seconds, peak MB, from GNU time's report."""
    command = ["/usr/bin/time", "-v", sys.executable, "-m", "explorer", "viz", spec, position]
    env = dict(os.environ, PYTHONPATH=str(repo))
    done = subprocess.run(  # run from out's folder: the current one would come first on sys.path
        [*command, "-o", str(out)],
        env=env,
        cwd=out.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    report = done.stderr

    def field(name: str) -> str:
        found = re.search(rf"{re.escape(name)}: (.+)", report)
        return found.group(1).strip() if found else "nan"

    wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    seconds = sum(float(part) * 60**i for i, part in enumerate(reversed(wall.split(":"))))
    return {
        "ok": float(done.returncode == 0),
        "wall_s": seconds,
        "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
        "peak_mb": float(field("Maximum resident set size (kbytes)")) / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--repo", type=Path, action="append", help="checkout(s) to compare")
    args = parser.parse_args()
    repos = args.repo or [REPO]
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "page.html"
        for spec, position in CASES:
            for run in range(args.repeat):
                for repo in repos:
                    got = measure(repo, spec, position, out)
                    print(
                        f"viz {spec} {position}  {repo.name:>10}  run {run + 1}: "
                        f"{'ok' if got['ok'] else 'FAILED'}  wall {got['wall_s']:.2f} s  "
                        f"cpu {got['cpu_s']:.2f} s  peak {got['peak_mb']:.0f} MB  "
                        f"(load {os.getloadavg()[0]:.2f})"
                    )


if __name__ == "__main__":
    main()
