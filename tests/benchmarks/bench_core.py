"""Benchmark the core: value sequences of octal games and Grundy's game, and full-graph solves.

Run: ``python tests/benchmarks/bench_core.py [--upto 100000]`` (or one case with ``--case``), or
time whole processes with ``/usr/bin/time -v explorer sequence kayles --upto 100000 --json``.
"""

from __future__ import annotations

import argparse
import resource
import time

from explorer import build_graph, load_game, value_sequence
from explorer.solver import solve_graph

SEQUENCES = ["kayles", "dawson", "octal:0.137", "octal:4.07", "grundy"]
#: Lasker's values grow like n, so its table is quadratic in bits: measured to a smaller bound.
LASKER_UPTO = 20_000
SOLVES = [
    ("chomp", "9x9"),  # every Young diagram inside 9x9: C(18,9) = 48,620 states
    ("subtraction:1,2,3", "20,20,20,20,20,20"),
]


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def bench_sequence(spec: str, upto: int) -> None:
    start = time.perf_counter()
    seq = value_sequence(load_game(spec), upto)
    elapsed = time.perf_counter() - start
    period = f"period {seq.period}, preperiod {seq.preperiod}" if seq.period else "no period"
    print(f"sequence {spec:<12} upto {upto:>7,}: {elapsed:7.2f} s  ({period})")


def bench_solve(spec: str, text: str) -> None:
    game = load_game(spec)
    start = time.perf_counter()
    graph = build_graph(game, game.parse(text), max_states=2_000_000, max_edges=100_000_000)
    built = time.perf_counter()
    solve_graph(graph)  # Grundy values, remoteness and heights together
    solved = time.perf_counter()
    print(
        f"solve    {spec} {text}: {graph.number_of_nodes():,} states, "
        f"{graph.number_of_edges():,} edges; build {built - start:.2f} s, "
        f"solve {solved - built:.2f} s, total {solved - start:.2f} s, "
        f"peak {peak_mib():,.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--upto", type=int, default=100_000)
    parser.add_argument("--case", help="only this spec (a sequence) or 'solve'")
    args = parser.parse_args()
    for spec in SEQUENCES:
        if args.case in (None, spec):
            bench_sequence(spec, args.upto)
    if args.case in (None, "lasker"):
        bench_sequence("lasker", min(args.upto, LASKER_UPTO))
    for spec, text in SOLVES:
        if args.case in (None, "solve"):
            bench_solve(spec, text)


if __name__ == "__main__":
    main()
