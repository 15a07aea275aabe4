"""Compute the records of data/records.json: values of grid games by the pruned search, each
by the command a user runs (one database for the whole run, so later boards reuse the parts
of earlier ones), then checked a second way: the published value where there is one, else
the same value by a search with the other move order (hardest moves first) and a fresh
table, in this process.

Usage: python tests/benchmarks/records.py [--only nodekayles:3] [--out data/records.json]

Each row: game, board, value, the command, its whole-process seconds (wall and CPU), the
machine, explorer's version, the part table's size after it, and the check. Published
values (OEIS A316632 for Node-Kayles 3 x n, n <= 16; Beling's Cram table) are marked so; the
README's "Records" section lists the others.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from explorer.games.grids import GridRules  # noqa: E402
from explorer.solver.pruned import PrunedSearch  # noqa: E402
from explorer.solver.pruned_kernel import CompiledGridSearch  # noqa: E402
from explorer.version import __version__  # noqa: E402

#: (game, rows, columns): the boards computed, in order (smaller first: they fill the table).
RUNS = {
    "nodekayles:3": [("nodekayles", 3, n) for n in range(1, 25)],
    "nodekayles:4": [("nodekayles", 4, n) for n in (3, 5, 7, 9, 11, 13, 15)],
    "nodekayles:5": [("nodekayles", 5, n) for n in range(1, 12)],
    "cram:3": [("cram", 3, n) for n in range(1, 22)],
    "cram:beling": [("cram", 4, n) for n in range(4, 12)]
    + [("cram", 5, n) for n in range(5, 9)]
    + [("cram", 6, 6)],
}
#: Values published before (OEIS A316632, Brown et al. 2020; Beling's Cram table, whose
#: source data/cram_beling.json names): not records.
PUBLISHED = {
    ("nodekayles", 3, n): v
    for n, v in enumerate([2, 1, 1, 0, 3, 3, 2, 2, 2, 3, 3, 5, 2, 4, 1, 3], 1)
}
for _board, _value in json.loads((REPO / "data" / "cram_beling.json").read_text())[
    "values"
].items():
    _rows, _cols = map(int, _board.split("x"))
    PUBLISHED["cram", _rows, _cols] = _value


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = f"{platform.system()} {platform.release()}"
    return f"{cpu}, {os.cpu_count()} cores, {system}, Python {platform.python_version()}"


def check(game: str, rows: int, cols: int) -> int:
    """The value by the other move order, with a table of its own."""
    rules = GridRules("cram" if game == "cram" else "nodekayles")
    keys = rules.board_components(rows, cols, (1 << rows * cols) - 1)
    if rows * cols <= 63:
        return CompiledGridSearch(rules, hardest_first=True).total(keys)
    return PrunedSearch(rules, hardest_first=True).total(keys)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", choices=sorted(RUNS), action="append")
    parser.add_argument("--out", default=str(REPO / "data" / "records.json"))
    args = parser.parse_args()
    out = Path(args.out)
    rows_out = json.loads(out.read_text()) if out.exists() else []
    done = {(r["game"], r["board"]) for r in rows_out}
    where = tempfile.mkdtemp()
    db = os.path.join(where, "records.db")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for name in args.only or sorted(RUNS):
        for game, rows, cols in RUNS[name]:
            board = f"{rows}x{cols}"
            if (game, board) in done:
                continue
            command = [
                "explorer",
                "solve",
                game,
                board,
                "--method",
                "pruned",
                "--db",
                "DB",
                "--json",
                "--max-seconds",
                "0",
            ]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.monotonic()
            run = subprocess.run(
                [sys.executable, "-m", "explorer", "solve", game, board, "--method", "pruned"]
                + ["--db", db, "--json", "--max-seconds", "0"],
                cwd=REPO,
                env=env,
                capture_output=True,
                text=True,
            )
            if run.returncode != 0:
                sys.exit(f"{game} {board}: exit {run.returncode}\n{run.stderr}")
            wall = time.monotonic() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            answer = json.loads(run.stdout)
            parts = int(answer["note"].split(": ")[1].split(" parts")[0].replace(",", ""))
            published = PUBLISHED.get((game, rows, cols))
            # a published value is the second way; a new one is searched again
            second = check(game, rows, cols) if published is None else published
            row = {
                "game": game,
                "board": board,
                "value": answer["grundy"],
                "published": published,
                "command": " ".join(command).replace("DB", "records.db"),
                "seconds": round(wall, 2),
                "cpu_seconds": round(
                    after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2
                ),
                "machine": machine(),
                "explorer": __version__,
                "part_table": parts,
                "method": answer["note"],
                "check": f"hardest moves first, a fresh table: {second}"
                if published is None
                else f"the published value: {published}",
            }
            assert second == answer["grundy"], row
            if row["published"] is not None:
                assert row["published"] == answer["grundy"], row
            rows_out.append(row)
            out.write_text(json.dumps(rows_out, indent=1) + "\n")
            print(
                game, board, answer["grundy"], row["seconds"], row["cpu_seconds"], parts, flush=True
            )


if __name__ == "__main__":
    main()
