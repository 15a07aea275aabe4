"""Peak memory of long sequences: a whole `explorer sequence` process grows by less than one
64-bit integer a value (the values themselves are 16-bit), with and without --json and --db.

Measured from outside, as the operating system counts it: a small Python parent runs one
explorer process and reports its children's peak resident memory (getrusage), so nothing the
test process itself allocated is counted.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # sequences of millions of values measured

SMALL = 1 << 16  # past both compiled kernels' thresholds: the same code as the long run
LONG = 1 << 21
#: Bytes a value the long run may add over the short one (the values take 2).
PER_VALUE = 8

PARENT = """
import resource, subprocess, sys
subprocess.run([sys.executable, "-m", "explorer", *sys.argv[1:]], stdout=subprocess.DEVNULL,
               check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_kib(*args: str) -> int:
    """Peak resident memory (KiB) of one `explorer` process run with `args`."""
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run(
        [sys.executable, "-c", PARENT, *args], capture_output=True, text=True, env=env, check=True
    )
    return int(done.stdout)


@pytest.mark.parametrize(
    "options",
    [["--json"], ["--json", "--db", "{dir}/{n}.db"]],
    ids=["json", "json-db"],
)
def test_peak_memory_grows_by_less_than_8_bytes_a_value(tmp_path, options):
    def run(n: int) -> int:
        shown = [o.format(dir=tmp_path, n=n) for o in options]
        return peak_kib("sequence", "grundy", "--upto", str(n), *shown)

    run(SMALL)  # a fresh checkout compiles the kernels here (numba caches them on disk)
    (tmp_path / f"{SMALL}.db").unlink(missing_ok=True)
    base = run(SMALL)
    grown = run(LONG) - base
    assert grown * 1024 <= PER_VALUE * LONG, (
        f"G(0..{LONG:,}) took {grown / 1024:.0f} MiB more than G(0..{SMALL:,}): "
        f"{grown * 1024 / LONG:.1f} bytes a value"
    )
