"""Export and neighbourhoods on the million-state graph of bench_build.

Builds `subtraction:1,2` from 180,180,180 (1,004,731 states, 5,913,089 moves) into a SQLite file
unless it is there, then, each in a process of its own so peak memory is its own:
- exports the whole graph to GraphML and reports time, peak memory and file size;
- reads the file back with NetworkX and checks every node and edge is there;
- times neighbourhoods of a middle state forwards, backwards and both ways.

    python tests/benchmarks/bench_export.py [--db FILE] [--no-read-back]

Measured: the whole graph exports to GraphML (480 MB) in under 380 MB of memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

SPEC, POSITION = "subtraction:1,2", "180,180,180"
STATES, MOVES = 1_004_731, 5_913_089


def child(code: str, *args: str) -> tuple[dict[str, object], float, float]:
    """Run `code` in a new interpreter: its JSON output, seconds, and its peak memory in MB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=True
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest of any child so far: run the biggest last, or alone
    return json.loads(result.stdout), seconds, max(peak, before) / 1024


BUILD = """
import json, sys
from explorer import open_database
with open_database(sys.argv[1]) as db:
    print(json.dumps(db.game(sys.argv[2]).build(sys.argv[3]).to_dict()))
"""

EXPORT = """
import json, sys
from explorer import open_database
with open_database(sys.argv[1], create=False) as db:
    print(json.dumps(db.game(sys.argv[2]).export(sys.argv[3]).to_dict()))
"""

READ = """
import json, sys
import networkx as nx
graph = nx.read_graphml(sys.argv[1])
print(json.dumps({"nodes": graph.number_of_nodes(), "edges": graph.number_of_edges()}))
"""

NEAR = """
import json, sys, time
from explorer import open_database
with open_database(sys.argv[1], create=False) as db:
    times = {}
    for direction in ("out", "in", "both"):
        started = time.perf_counter()
        graph = db.game(sys.argv[2]).neighbourhood(
            sys.argv[3],
            int(sys.argv[4]),
            direction,
            max_states=10**7,
        )
        times[direction] = [time.perf_counter() - started, graph.number_of_nodes()]
    print(json.dumps(times))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="bench_export.db")
    parser.add_argument("--no-read-back", action="store_true")
    args = parser.parse_args()
    db = Path(args.db)
    if not db.exists():
        report, seconds, _ = child(BUILD, str(db), SPEC, POSITION)
        print(f"built {report['states_new']:,} states in {seconds:.1f} s")
    out = db.with_suffix(".graphml")
    report, seconds, peak = child(EXPORT, str(db), SPEC, str(out))
    assert report["states"] == STATES and report["edges"] == MOVES, report
    size = os.path.getsize(out) / 2**20
    print(
        f"export GraphML: {report['states']:,} states, {report['edges']:,} moves in "
        f"{seconds:.1f} s, peak {peak:.0f} MB, file {size:.0f} MB"
    )
    near, seconds, _ = child(NEAR, str(db), SPEC, "90,90,90", "6")
    for direction, (took, nodes) in near.items():  # type: ignore[union-attr]
        print(f"neighbourhood depth 6 {direction:>4}: {nodes:>7,} states in {took:.2f} s")
    if not args.no_read_back:
        counted, seconds, peak = child(READ, str(out))
        assert counted == {"nodes": STATES, "edges": MOVES}, counted
        print(f"NetworkX read it back: every node and edge, {seconds:.1f} s, peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
