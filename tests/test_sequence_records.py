"""Record-grade sequences: the public tables' summary rows, and many workers giving exactly
what one gives (the block kernel against the one-heap-at-a-time kernel and the naive method)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer import load_game, value_sequence
from explorer.cli import main
from explorer.solver.sparse import extend_values, fletcher32, summary_rows
from tests.support.strategies import fraction_of_examples
from tests.test_sequence_engine import SPLITTING_CODES

#: The summary rows of T. Czajka's octal-games tables (github.com/tczajka/octal-games,
#: UnsolvedGames.md and SolvedGames.md at commit 57e893a, 2018): code, number of values
#: G(0..N-1), largest value, its first heap, rare mask, rare positions, the last of them.
#: Grundy's game agrees with /work/shared/SEQUENCES.md (1,274 rare, the last at 82,860;
#: G(763,622) = 231); the solved games .16 and .56 are periodic well before 2^21, so their
#: rows at 2^21 are the rows the table gives at its proof.
TABLES = [
    ("grundy", 1 << 21, 231, 763_622, "fe", 1274, 82_860),
    ("octal:0.6", 1 << 21, 319, 1_274_955, "1ee", 1584, 20_627),
    ("octal:0.16", 1 << 21, 23, 229_790, "1e", 53, 13_935),
    ("octal:0.56", 1 << 21, 64, 22_778, "5b", 46, 1_795),
    ("octal:0.04", 1 << 17, 1024, 109_363, "7b8", 18_860, 131_003),
    ("octal:0.06", 1 << 17, 1045, 127_083, "5a0", 52_923, 131_070),
]


@pytest.mark.slow  # up to 2^21 values each, on two workers
@pytest.mark.parametrize(("spec", "count", "largest", "at", "mask", "rare", "last"), TABLES)
def test_summary_rows_match_the_public_tables(spec, count, largest, at, mask, rare, last):
    rows = value_sequence(load_game(spec), count - 1, workers=2).rows
    assert rows is not None
    assert (rows.largest, rows.at) == (largest, at)
    assert (rows.mask_text, rows.rare, rows.last) == (mask, rare, last)


def brute_rows(values: list[int], offset: int | None) -> tuple[int, int, int, int, int]:
    """The rows by trying every mask (offset None: no parity bit)."""
    top = max(values)
    bits = max(top.bit_length(), 1)
    best = None
    for mask in range(1, 1 << bits):
        for pos in (0, 1) if offset is not None else (0,):
            rare = [
                n
                for n, v in enumerate(values)
                if (bin(v & mask).count("1") + (pos and ((n ^ (offset or 0)) & 1))) % 2 == 0
            ]
            if best is None or len(rare) < best[0]:
                best = (len(rare), mask | (pos << 16), rare[-1] if rare else 0)
    assert best is not None
    return top, values.index(top), best[1], best[0], best[2]


@settings(max_examples=fraction_of_examples(0.3), deadline=None)
@given(st.sampled_from(SPLITTING_CODES), st.integers(20, 400))
def test_summary_rows_equal_a_search_over_every_mask(spec, upto):
    game = load_game(spec)
    values = game.heap_values(upto)
    rules = game.split_rules
    parity = len({k & 1 for k in rules.split_after}) == 1
    rows = summary_rows(values, rules)
    expected = brute_rows(values.tolist(), rules.split_after[0] & 1 if parity else None)
    assert (rows.largest, rows.at, rows.mask, rows.rare, rows.last) == expected


def test_json_gives_the_summary_rows():
    result = CliRunner().invoke(main, ["sequence", "kayles", "--upto", "99", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["largest"] == {"value": 8, "at": 27}
    assert data["rare"] == {"mask": "f", "count": 10, "last": 70}
    text = CliRunner().invoke(main, ["sequence", "kayles", "--upto", "99"]).output
    assert "largest 8 at 27; rare mask f: 10 rare positions, the last at 70" in text


def kernel(spec: str, upto: int, workers: int, naive: bool = False) -> np.ndarray:
    values = np.zeros(upto + 1, dtype=np.uint16)
    extend_values(load_game(spec).split_rules, values, 0, upto, workers=workers, naive=naive)
    return values


@settings(max_examples=fraction_of_examples(0.2), deadline=None)
@given(st.sampled_from(SPLITTING_CODES + ["grundy"]))
def test_two_workers_give_the_values_of_one(spec):
    one = kernel(spec, 3000, 1)
    assert np.array_equal(kernel(spec, 3000, 2), one)
    assert np.array_equal(kernel(spec, 1500, 2, naive=True), one[:1501])


@pytest.mark.parametrize("members", [1, 2, 3, 5])
def test_any_team_of_the_block_kernel_gives_the_same_values(members):
    # the block kernel's team claims a block's runs of heaps, as many members as asked (here
    # more or fewer than numba's threads, so some members start only when others are done)
    from explorer.solver.sparse_kernel import RUN
    from explorer.solver.sparse_kernel import kernel as block_kernel

    rules = load_game("kayles").split_rules
    values = np.zeros(400, dtype=np.uint16)
    moves = [np.array(part, dtype=np.int64) for part in (rules.leave_one, rules.take_all)]
    split_after = np.array(rules.split_after, dtype=np.int64)
    common, rare = np.zeros((2, 1 << 16), dtype=np.uint8), np.zeros(1, dtype=np.int64)
    done = block_kernel(2)(
        values,
        0,
        400,
        *moves,
        split_after,
        rules.unequal,
        False,
        common,
        rare,
        0,
        16,
        3 * RUN + 5,
        members,
    )[0]
    assert done == 400
    assert np.array_equal(values, kernel("kayles", 399, 1))


@pytest.mark.slow  # 2^18 values of Grundy's game twice, and of three hard codes
@pytest.mark.parametrize(
    ("spec", "upto"),
    [("grundy", 1 << 18), ("octal:0.6", 1 << 17), ("octal:0.04", 1 << 14), ("octal:0.36", 1 << 14)],
)
def test_workers_keep_the_checksum(spec, upto):
    assert fletcher32(kernel(spec, upto, 2)) == fletcher32(kernel(spec, upto, 1))


def test_sequence_and_sweep_take_workers():
    one = CliRunner().invoke(main, ["sequence", "grundy", "--upto", "40000", "--json"])
    two = CliRunner().invoke(
        main, ["sequence", "grundy", "--upto", "40000", "--workers", "2", "--json"]
    )
    assert one.exit_code == two.exit_code == 0
    assert json.loads(one.output) == json.loads(two.output)
    rows = [
        CliRunner().invoke(main, ["sweep", "octal:0.?4", "--upto", "200", "--csv", *extra]).output
        for extra in ([], ["--workers", "2"])
    ]
    assert rows[0] == rows[1] and rows[0].count("\n") == 9
    bad = CliRunner().invoke(main, ["sequence", "grundy", "--workers", "0"])
    assert bad.exit_code != 0 and "--workers" in bad.output


KILLED_RUNNER = """
import sys
from explorer import load_game
from explorer.analysis.sequences import stored_value_sequence
from explorer.solver import sparse
from explorer import open_database
sparse.CHECKPOINT_SECONDS = 0.2
db = open_database(sys.argv[1])
game = load_game("grundy")
result = stored_value_sequence(db.game(game), game, int(sys.argv[2]), workers=2)
print("done", result.checksum, flush=True)
"""


@pytest.mark.slow  # kill -9 of a long run on two workers
def test_a_run_on_two_workers_killed_resumes_to_the_same_checksum(db_url):
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.test_sequence_storage import sequence_json, stored_count

    upto = 200_000
    expected = fletcher32(kernel("grundy", upto, 1))
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    process = subprocess.Popen([sys.executable, "-c", KILLED_RUNNER, db_url, str(upto)], env=env)
    deadline = time.monotonic() + 300
    killed_at = 0
    while time.monotonic() < deadline and process.poll() is None:
        killed_at = stored_count(db_url) if "://" in db_url or os.path.exists(db_url) else 0
        if killed_at > 40_000:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    resumed = sequence_json("grundy", "--upto", str(upto), "--db", db_url, "--workers", "2")
    assert resumed["stored"] >= killed_at > 0  # continued from the stored values
    assert resumed["checksum"] == f"{expected:08x}"
