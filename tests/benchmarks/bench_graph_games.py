"""Benchmark games on graphs and boards: Node-Kayles on grids, Cram on 5x5 and 4x7.

Run: ``python tests/benchmarks/bench_graph_games.py [--cases nodekayles:5x5,cram:4x7]
[--brute-limit 3000000]``. Each case is one whole process, ``python -m explorer solve SPEC
POSITION --json`` under ``/usr/bin/time -v`` (wall, CPU, peak memory), and one more process
that values the same position through `explorer.analysis.parts` to print the parts valued
(positions visited) and the part-table hits. Beside them, the brute force's state count: the
positions reachable without splitting or canonical labels (counted by a walk over bit masks,
stopped past ``--brute-limit``). The 1-minute load average before each run is printed: on a
shared machine read the CPU time beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

CASES = "nodekayles:5x5,nodekayles:6x6,cram:5x5,cram:4x7"

COUNT = """
import json, sys
from explorer import load_game
from explorer.analysis.parts import PART_TABLE
from explorer.analysis.solving import grundy_value
game = load_game(sys.argv[1])
value = grundy_value(game, game.parse(sys.argv[2]))
print(json.dumps({"value": value, "parts": PART_TABLE.computed, "hits": PART_TABLE.hits,
                  "lookups": PART_TABLE.lookups}))
"""


def timed(command: list[str]) -> tuple[str, dict[str, str]]:
    """Standard output and the ``/usr/bin/time -v`` fields of one whole process."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", *command], capture_output=True, text=True, check=True
    )
    fields = dict(line.strip().rpartition(": ")[::2] for line in done.stderr.splitlines())
    return done.stdout, fields


def grid_states(rows: int, cols: int, limit: int, node_kayles: bool) -> int:
    """Positions a brute force reaches from the empty rows x cols grid (vertices left for
    Node-Kayles, empty cells for Cram), walked as bit masks; `limit` + 1 past the limit."""
    cells = rows * cols
    neighbours = []
    for i in range(cells):
        r, c = divmod(i, cols)
        mask = 0
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < rows and 0 <= cc < cols:
                mask |= 1 << (rr * cols + cc)
        neighbours.append(mask)
    start = (1 << cells) - 1
    seen, todo = {start}, [start]
    while todo:
        left = todo.pop()
        moves = []
        for i in range(cells):
            if not left >> i & 1:
                continue
            if node_kayles:
                moves.append(left & ~(neighbours[i] | 1 << i))
            else:
                for j in (i + 1, i + cols):
                    if j < cells and neighbours[i] >> j & 1 and left >> j & 1:
                        moves.append(left & ~(1 << i | 1 << j))
        for moved in moves:
            if moved not in seen:
                seen.add(moved)
                todo.append(moved)
                if len(seen) > limit:
                    return limit + 1
    return len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=CASES)
    parser.add_argument("--brute-limit", type=int, default=3_000_000)
    options = parser.parse_args()
    for case in options.cases.split(","):
        spec, position = case.split(":")
        rows, cols = map(int, position.split("x"))
        load = os.getloadavg()[0]
        out, fields = timed([sys.executable, "-m", "explorer", "solve", spec, position, "--json"])
        solution = json.loads(out)
        cpu = float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])
        counts = json.loads(
            subprocess.run(
                [sys.executable, "-c", COUNT, spec, position],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        states = grid_states(rows, cols, options.brute_limit, spec == "nodekayles")
        shown = f"> {options.brute_limit:,}" if states > options.brute_limit else f"{states:,}"
        print(
            f"{spec} {position}: G = {solution['grundy']} ({solution['method']}), whole process "
            f"{fields['Elapsed (wall clock) time (h:mm:ss or m:ss)']} wall, {cpu:.1f} s CPU, "
            f"{int(fields['Maximum resident set size (kbytes)']) // 1024} MiB; parts valued "
            f"{counts['parts']:,}, part-table hits {counts['hits']:,} of "
            f"{counts['lookups']:,} look-ups; brute force states {shown}; load {load:.1f}"
        )


if __name__ == "__main__":
    main()
