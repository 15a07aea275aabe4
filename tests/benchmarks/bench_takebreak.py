"""Benchmark ``sequence tb:CODE`` against ``sequence octal:CODE`` for the same octal codes, as
whole processes (issue 22: within 1.2x).

Run: ``python tests/benchmarks/bench_takebreak.py [--repeat N]``. Each case runs the two specs
alternately, N times each, every run one ``python -m explorer`` process under
``/usr/bin/time -v`` (`bench_sequences.measure`); it prints every run, then the median wall and
CPU times of each spec and the ratio tb / octal of the medians. Alternating spreads a shared
machine's drifting load over both sides.

Measured (2 cores shared with other runs, load 10-13; 5 alternating runs of each; medians):
0.77 to 2,000: wall 3.18 / 3.13 s (tb / octal 0.98), CPU 0.42 / 0.43 s (1.02); 0.137 to
20,000: wall 2.86 / 3.24 s (1.13), CPU 1.02; 4.005 until periodic: wall 4.51 / 4.47 s (0.99),
CPU 1.00; 0.16 until periodic (255k values, compiled kernel): wall 24.9 / 22.1 s (0.89), CPU
2.54 / 2.47 s (0.97); 0.56 until periodic: wall 25.4 / 25.5 s (1.01), CPU 2.71 / 2.74 s (1.01).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_sequences import Case, measure  # noqa: E402

#: (name, the arguments after the spec) for each octal code.
CASES = [
    ("0.77", ["--upto", "2000"]),
    ("0.137", ["--upto", "20000"]),
    ("4.005", ["--until-periodic", "--upto", "100000"]),
    ("0.16", ["--until-periodic", "--upto", "10000000"]),
    ("0.56", ["--until-periodic", "--upto", "10000000"]),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each spec")
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores; load: 1-minute load average when the run started")
    env = dict(os.environ)
    ratios = []
    for code, rest in CASES:
        walls: dict[str, list[float]] = {"octal": [], "tb": []}
        cpus: dict[str, list[float]] = {"octal": [], "tb": []}
        for _ in range(options.repeat):
            for family in ("octal", "tb"):
                case = Case(f"{family}:{code}", ["sequence", f"{family}:{code}", *rest], "")
                load = os.getloadavg()[0]
                f = measure(case, env)
                walls[family].append(f.wall)
                cpus[family].append(f.cpu)
                print(
                    f"{case.name:<12} wall {f.wall:6.2f} s  cpu {f.cpu:6.2f} s  "
                    f"peak {f.peak_mb:4.0f} MB  load {load:4.1f}  | {f.shown[:60]}"
                )
        wall = {k: statistics.median(v) for k, v in walls.items()}
        cpu = {k: statistics.median(v) for k, v in cpus.items()}
        ratio = wall["tb"] / wall["octal"]
        ratios.append(ratio)
        print(
            f"== {code} {' '.join(rest)}: median wall octal {wall['octal']:.2f} s, "
            f"tb {wall['tb']:.2f} s (ratio {ratio:.2f}); median cpu octal {cpu['octal']:.2f} s, "
            f"tb {cpu['tb']:.2f} s (ratio {cpu['tb'] / cpu['octal']:.2f})  goal: ratio <= 1.2"
        )
    print(f"largest wall ratio tb / octal: {max(ratios):.2f}")


if __name__ == "__main__":
    main()
