"""Time γ (generalized Sprague-Grundy values with counters) on a random cyclic graph.

Usage: python tests/benchmarks/bench_loopy.py [VERTICES] [EDGES]   (default 100,000 / 300,000)
Issue 14 asks for at most 5 s at the default size. Reports the labelling alone, through a
NetworkX graph, and the retrograde win/lose/draw pass, with the stages used and the outcome counts.
Measured: about 1 s for γ, 2 s with outcomes and remoteness from a NetworkX graph.
"""

from __future__ import annotations

import random
import sys
import time
from collections import Counter

import networkx as nx

from explorer.solver.loopy import Infinite, label_vertices, retrograde, solve_loopy


def random_cyclic(n: int, m: int, seed: int = 14) -> list[list[int]]:
    """m random edges among n vertices (self-loops and back edges allowed, so many cycles)."""
    rng = random.Random(seed)
    succ: list[list[int]] = [[] for _ in range(n)]
    for _ in range(m):
        succ[rng.randrange(n)].append(rng.randrange(n))
    return succ


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 300_000
    succ = random_cyclic(n, m)
    edges = sum(len(set(s)) for s in succ)
    start = time.perf_counter()
    labels = label_vertices(succ)
    labelled = time.perf_counter() - start
    start = time.perf_counter()
    outcomes, _ = retrograde(succ)
    retro = time.perf_counter() - start
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from((u, v) for u, s in enumerate(succ) for v in s)
    start = time.perf_counter()
    solve_loopy(graph)
    whole = time.perf_counter() - start
    infinite = sum(isinstance(v, Infinite) for v in labels.values)
    print(f"graph: {n:,} vertices, {edges:,} distinct edges (random, seed 14)")
    print(
        f"label_vertices: {labelled:.2f} s, {max(labels.stages) + 1} stages, {infinite:,} infinite"
    )
    print(f"retrograde P/N/D: {retro:.2f} s  {dict(sorted(Counter(outcomes).items()))}")
    print(f"solve_loopy on a NetworkX DiGraph (γ, counters, outcomes, remoteness): {whole:.2f} s")
    print("limit 5 s:", "met" if max(labelled, whole) <= 5 else "MISSED")


if __name__ == "__main__":
    main()
