"""Benchmark: a game written in Python against the same game built in, whole processes side by
side (``/usr/bin/time -v``: wall time and peak resident memory).

The game is the subtraction game S = {1, 2} on three heaps, written as an ``@explorer.game``
function of sorted tuples, built from 180,180,180 (1,004,731 states), beside the built-in
``subtraction:1,2`` build of the same position.

    python tests/benchmarks/bench_python_game.py            # 180,180,180
    python tests/benchmarks/bench_python_game.py --quick    # 60,60,60, for a smoke run
    python tests/benchmarks/bench_python_game.py --gamesmanpy DIR   # and GamesmanPy beside

GamesmanPy (a checkout of its public repository in DIR, set up as its README says: ``uv sync``)
gets the same game as a class of its own, as ``bench_three_heaps.py`` writes and runs it. It
finds win/loss and remoteness of every position and stores those; explorer also finds Grundy
values and stores every move.

Goals (issue 22): within 2x the built-in build's time, peak memory at most 600 B per state.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_three_heaps import gamesmanpy, register_gamesmanpy

REPO = Path(__file__).resolve().parents[2]

#: The rules as a user writes them: three heaps, sorted, a move takes 1 or 2 from one heap.
RULES = """\
import explorer


@explorer.game(example="3,4,5")
def three_heaps(p):
    a, b, c = p
    for k in (1, 2):
        if a >= k:
            yield (a - k, b, c)
        if b >= k:
            yield tuple(sorted((a, b - k, c)))
        if c >= k:
            yield tuple(sorted((a, b, c - k)))
"""


def _measured(report: str) -> dict[str, float]:
    """Wall seconds and peak MiB from /usr/bin/time -v."""
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", report)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", report)
    assert wall is not None and peak is not None, report
    cpu = sum(
        float(found) for found in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", report)
    )
    hours, minutes, seconds = wall.groups()
    return {
        "seconds": int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds),
        "cpu": cpu,
        "peak_mib": int(peak.group(1)) / 1024,
    }


def timed(args: list[str], cwd: Path) -> dict[str, float]:
    """Run `python -m explorer ARGS` under /usr/bin/time -v: seconds, peak MiB, its JSON."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run(
        ["/usr/bin/time", "-v", sys.executable, "-m", "explorer", *args, "--json"],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        check=True,
    )
    return {
        **_measured(done.stderr),
        **json.loads(done.stdout),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="build 60,60,60 instead")
    parser.add_argument("--gamesmanpy", type=Path, help="a GamesmanPy checkout, after uv sync")
    options = parser.parse_args()
    side = 60 if options.quick else 180
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "three_heaps.py").write_text(RULES)
        builtin = timed(
            ["build", "subtraction:1,2", f"{side},{side},{side}", "--db", "builtin.db"], folder
        )
        python = timed(
            ["build", "py:three_heaps.py", f"{side},{side},{side}", "--db", "py.db"], folder
        )
    states = python["states_new"]
    assert states == builtin["states_new"], (states, builtin["states_new"])
    assert python["grundy"] == builtin["grundy"]
    for name, run in (("built-in subtraction:1,2", builtin), ("@explorer.game", python)):
        per_state = run["peak_mib"] * 2**20 / states
        print(
            f"{name:26} {states:>10,} states {run['seconds']:8.1f} s ({run['cpu']:.1f} s CPU) "
            f"{states / run['seconds']:>10,.0f} states/s  peak {run['peak_mib']:7.1f} MiB "
            f"({per_state:,.0f} B/state)"
        )
    if options.gamesmanpy is not None:
        register_gamesmanpy(options.gamesmanpy, [side])
        other = gamesmanpy(side, options.gamesmanpy)
        assert other["states"] == states, (other["states"], states)
        print(
            f"{'GamesmanPy solver':26} {states:>10,} states {other['wall']:8.1f} s "
            f"({other['cpu']:.1f} s CPU) "
            f"{states / other['wall']:>10,.0f} states/s  peak {other['rss_tree'] / 2**20:7.1f} "
            f"MiB ({other['rss_tree'] / states:,.0f} B/state)"
        )
    ratio = python["seconds"] / builtin["seconds"]
    cpu_ratio = python["cpu"] / builtin["cpu"]
    per_state = python["peak_mib"] * 2**20 / states
    print(
        f"time ratio {ratio:.2f} (CPU {cpu_ratio:.2f}; goal <= 2), "
        f"peak {per_state:,.0f} B/state (goal <= 600)"
    )


if __name__ == "__main__":
    main()
