"""Benchmark ``--workers``: one worker against N, as paired whole processes, alternating.

Run: ``python tests/benchmarks/bench_workers.py [--spec grundy] [--upto 4194303] [--workers 2]
[--rounds 3] [--busy 2]`` from the repository. Each round runs ``explorer sequence SPEC --upto N
--until-periodic`` once with one worker and once with N (in alternating order), each under
``/usr/bin/time``: wall time, CPU time (user + system, every thread) and peak memory of the
whole process, the Fletcher-32 it prints (the two must agree) and the 1-minute load average
before the run. It ends with the medians of the wall-time ratios (one worker's over N's, and
N's over one's). On a machine shared with other work the wall times drift with the load: read
the CPU times and the load beside them. ``--busy K`` runs every command beside K busy
processes (each a CPU-bound Python loop started before the first round and stopped after the
last): a busy machine, where a thread team must not wait for a member the system stopped.

Beside two busy processes (``--busy 2``) on a machine already shared with other work, Grundy's
game to 2^21, Fletcher-32 d0242305 every time (wall s, CPU s, 1-minute load before the run):
the block kernel's team as now, rounds of one worker then two: 103.3 s 7.9 s (17.2) and 75.2
s 7.5 s (18.6); 154.0 s 8.0 s (13.9) and 58.0 s 7.6 s (20.1); 52.0 s 8.1 s (8.2) and 37.8 s
8.4 s (8.8); 44.5 s 7.7 s (9.4) and 36.8 s 7.7 s (9.4): two workers' time over one's 0.73,
0.38, 0.73, 0.83 (median 0.73), the CPU time of two workers that of one. Before (a fixed
share of each block's heaps, numba's threads started each block, GNU OpenMP spinning with
GOMP_SPINCOUNT=100000): 62.9 s 7.3 s (11.5) and 242.6 s 41.1 s (11.7), ratio 3.86; without
the busy processes (load 4-8) 15.0-27.3 s and 74.9-82.6 s, 27-28 s CPU.

Measured here inside /work/wt/quiet (no other test or benchmark running; load average 1.6-2.3,
the two-worker runs counting for 2), Grundy's game to 2^22, Fletcher-32 78b1a00b every time:
one worker 14.46-14.54 s wall, 14.6-14.8 s CPU; two workers 7.43-7.61 s wall, 14.1-14.3 s CPU;
wall ratios 1.90, 1.96, 1.93 (median 1.93); again later, load 2.4-4.0: 14.24-14.85 s and
7.25-7.48 s, ratios 2.01, 1.96, 1.93. One caveat, in the kernels alone (same lock, 2^22): the
block kernel compiled for threads but run on one thread takes 11.8 s where the one-worker
kernel takes 13.8 s (two threads: 6.6 s), so against that one thread the kernel scales
1.79x and a whole run would scale about 1.7x. One worker cannot take that path (it loads
GNU OpenMP, which breaks sweep's forked processes). Numba compiles a parallel loop's body
with noalias on its arrays and the numpy error model (numba/parfors/parfor_lowering.py); the
error model alone showed no gain on the one-worker kernel (one quick trial); the cause is not
yet found. Before (same machine and lock) one worker took 15.8-16.6 s and two 10.6-10.8 s
(ratio 1.50): the block kernel did 18 % more work than the
one-heap kernel, mostly numba's test for a negative index on every load of the scan (an
unsigned index now, in both kernels), and the first half of a block 4 % more than the second
(its heaps are now dealt out in interleaved runs of 16). Where the two-worker time goes, timed
in the kernel at 2^22 before that: phase 1 6.2 s (6.0 and 5.8 s a thread), phase 2 (serial)
0.64 s, of which a third is the rare pairs of the block and two fifths the scans again from
the start after a pair of the block took the candidate (5 % of the heaps);
start-up and the rest about 1.0 s of one core (Python, numba's start and cache load, which
imports scipy.linalg when scipy is installed, summary rows, checksum). Threads: numba's own
pool (workqueue) took about 100 us to start each block's threads (8,192 blocks of 512 heaps to
2^22); GNU OpenMP about 1 us, and a thread that spins up to GOMP_SPINCOUNT=100000 through
phase 2 before sleeping saves another 6 % over sleeping at once.

The hard codes on two workers (whole processes, quiet, load 1.6; before the unsigned indices
and the runs): octal:0.04 to 2^17 4.2 s
(largest 1,024 at 109,363, as the table), 2^18 7.9 s, 2^19 15.1 s (about 28 us a heap, flat:
its rare positions level off near 22,400), so about 1.3e8 heaps (2^27) in an hour if that
holds; octal:0.06 (naive, quadratic) to 2^17 4.5 s, 2^18 10.2 s, so about 5.7e6 heaps in an
hour.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile


def run(spec: str, upto: int, workers: int) -> tuple[float, float, int, str, float]:
    """Wall seconds, CPU seconds, peak KiB, the checksum printed, the load before the run."""
    load = os.getloadavg()[0]
    with tempfile.NamedTemporaryFile("r") as times:
        command = [
            "/usr/bin/time",
            "-o",
            times.name,
            "-f",
            "%e %U %S %M",
            sys.executable,
            "-m",
            "explorer",
            "sequence",
            spec,
            "--upto",
            str(upto),
            "--until-periodic",
            "--workers",
            str(workers),
        ]
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        wall, user, system, peak = times.read().split()[-4:]
    found = re.search(r"Fletcher-32 ([0-9a-f]{8})", out)
    checksum = found.group(1) if found else "-"
    return float(wall), float(user) + float(system), int(peak), checksum, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="grundy")
    parser.add_argument("--upto", type=int, default=(1 << 22) - 1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy", type=int, default=0, help="busy processes beside each run")
    args = parser.parse_args()
    # compile both kernels into numba's cache first (below 30,000 values numpy computes them)
    run(args.spec, 40_000, args.workers)
    run(args.spec, 40_000, 1)
    loop = "while True: pass"
    busy = [subprocess.Popen([sys.executable, "-c", loop]) for _ in range(args.busy)]
    try:
        ratios = rounds(args)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    print(
        f"wall ratio 1 / {args.workers} workers beside {args.busy} busy: "
        f"median {statistics.median(ratios):.2f} of " + ", ".join(f"{r:.2f}" for r in ratios)
    )
    print(
        f"wall ratio {args.workers} / 1 workers beside {args.busy} busy: "
        f"median {statistics.median(1 / r for r in ratios):.2f} of "
        + ", ".join(f"{1 / r:.2f}" for r in ratios)
    )


def rounds(args: argparse.Namespace) -> list[float]:
    """The rounds, one worker and N in alternating order; the wall ratios (one over N)."""
    ratios = []
    print(f"{args.spec} to {args.upto:,}: workers, wall s, CPU s, peak MiB, Fletcher-32, load")
    for round_ in range(args.rounds):
        order = [1, args.workers] if round_ % 2 == 0 else [args.workers, 1]
        walls: dict[int, float] = {}
        sums: set[str] = set()
        for workers in order:
            wall, cpu, peak, checksum, load = run(args.spec, args.upto, workers)
            walls[workers] = wall
            sums.add(checksum)
            print(
                f"  {workers} {wall:8.2f} {cpu:8.2f} {peak / 1024:8.0f} {checksum} {load:5.2f}",
                flush=True,
            )
        if len(sums) != 1:
            raise SystemExit(f"the checksums differ: {sorted(sums)}")
        ratios.append(walls[1] / walls[args.workers])
    return ratios


if __name__ == "__main__":
    main()
