"""Time issue 41's commands that gave no answer in 120 s, each a whole ``python -m explorer``
process under ``/usr/bin/time -v``, with the default work bound (600 s): each must answer, or
refuse with one ``Error:`` line, within seconds.

Run: ``python tests/benchmarks/bench_hangs.py [--repeat N]``; it prints each run's
wall and CPU seconds, peak memory, exit status and last line, then each case's medians.

Measured (2 cores shared with other sessions, load 16; one run each; wall / CPU / peak):
  patterns wythoff --upto 5000              19.5 s  3.5 s  418 MB  answers
  patterns 'nim + subtraction:1,2' 3000      5.2 s  0.9 s  186 MB  answers
  check nim 1000000,1000000 --p 'a == b'     2.8 s  0.4 s   36 MB  refuses: raise --max-states
  check nim 1000,1000 --p 'a == b'           2.3 s  0.4 s   36 MB  refuses: raise --max-states
  check py:split.py --value 0 --upto 10^6    5.7 s  1.0 s  159 MB  forecast past the bound
  check kayles 3 --p '9 ** 9 ** 9 > 0'       2.3 s  0.4 s   36 MB  refuses the number's size
  sequence 'tb:0.{2+}=' ... --upto 10^8      4.0 s  0.7 s   36 MB  forecast past the bound
  patterns 'tb:0.{2+}' --upto 100000         5.1 s  0.9 s  161 MB  forecast past the bound
  solve octal:0.75 (20,001 heaps) --misere  18.6 s  3.7 s  118 MB  answers
Before (the commit before these fixes): none of the first eight answered in 120 s but check
nim 1000,1000 (38.6 s); the misère sum took 17.2 s and 915 MB at load 12.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

SPLIT = """\
import explorer


@explorer.heap_game
def split(n):
    return [(a, n - a) for a in range(1, n // 2 + 1)] + [n - 1]
"""

#: The repository whose explorer is timed (the processes run in a scratch folder).
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: 20,000 heaps of octal 0.75 (and one more, an N-position) for the misère quotient.
HEAPS = ",".join(str(1 + (7 * i) % 40) for i in range(20_000)) + ",7"

CASES = [
    ("patterns wythoff 5000", ["patterns", "wythoff", "--upto", "5000"]),
    ("patterns nim + subtraction", ["patterns", "nim + subtraction:1,2", "--upto", "3000"]),
    ("check nim 10^6,10^6", ["check", "nim", "1000000,1000000", "--p", "a == b"]),
    ("check nim 1000,1000", ["check", "nim", "1000,1000", "--p", "a == b"]),
    ("check split.py", ["check", "py:split.py", "--value", "0", "--upto", "1000000"]),
    ("check 9 ** 9 ** 9", ["check", "kayles", "3", "--p", "9 ** 9 ** 9 > 0"]),
    (
        "sequence tb:0.{2+}=",
        ["sequence", "tb:0.{2+}=", "--until-periodic", "--upto", "100000000"],
    ),
    ("patterns tb:0.{2+}", ["patterns", "tb:0.{2+}", "--upto", "100000"]),
    ("solve misère 20,001 heaps", ["solve", "octal:0.75", HEAPS, "--misere"]),
]


def measure(args: list[str], folder: str) -> tuple[float, float, float, int, str]:
    """Wall s, CPU s, peak MB, exit status and last line of one explorer process."""
    done = subprocess.run(
        ["/usr/bin/time", "-v", sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
        env={**os.environ, "PYTHONPATH": REPO},
    )
    report = dict(re.findall(r"^\s*(.+?): (.+)$", done.stderr, re.M))
    h, m, s = (["0", "0"] + report["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":"))[-3:]
    wall = int(h) * 3600 + int(m) * 60 + float(s)
    cpu = float(report["User time (seconds)"]) + float(report["System time (seconds)"])
    peak = int(report["Maximum resident set size (kbytes)"]) / 1000
    errors = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    last = errors[-1] if errors else (done.stdout.strip().splitlines() or [""])[-1]
    return wall, cpu, peak, done.returncode, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each case")
    options = parser.parse_args()
    print(f"{os.cpu_count()} cores; load: 1-minute load average when the run started")
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "split.py"), "w") as file:
            file.write(SPLIT)
        for name, args in CASES:
            walls = []
            for _ in range(options.repeat):
                load = os.getloadavg()[0]
                wall, cpu, peak, code, last = measure(args, folder)
                walls.append(wall)
                print(
                    f"{name:<28} wall {wall:6.1f} s  cpu {cpu:6.1f} s  peak {peak:5.0f} MB  "
                    f"exit {code}  load {load:4.1f}  | {last[:70]}"
                )
            print(f"{name:<28} median wall {statistics.median(walls):.1f} s")


if __name__ == "__main__":
    main()
