"""Stored value sequences (SQLite and PostgreSQL): chunks, continuing a larger run, reading back
without computing, stats, and a run killed with SIGKILL resuming to the same checksum."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from explorer import load_game, open_database
from explorer.analysis.sequences import stored_value_sequence
from explorer.cli import main
from explorer.solver.sparse import fletcher32, heap_sequence
from explorer.storage.rows.sequences import CHUNK_VALUES


def sequence_json(*args: str) -> dict:
    out = CliRunner().invoke(main, ["sequence", *args, "--json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_values_are_stored_in_chunks_and_read_back(db_url):
    values = np.random.default_rng(1).integers(0, 60_000, 2 * CHUNK_VALUES + 5, dtype=np.uint16)
    with open_database(db_url) as db:
        db.game("grundy").save_sequence(
            values, 1000, checksum=fletcher32(values[:1000]), method="x"
        )
        db.game("grundy").save_sequence(
            values, len(values), checksum=fletcher32(values), method="x"
        )
        stored = db.game("grundy").sequence()
        with db.engine.connect() as conn:
            chunks = conn.execute(sa.text("SELECT COUNT(*) FROM sequence_chunks")).scalar_one()
    assert np.array_equal(stored.values, values)
    assert stored.checksum == fletcher32(values) and stored.period is None
    assert chunks == 3  # not a row per value


@pytest.mark.slow  # long stored sequences
def test_a_larger_upto_continues_from_the_stored_values(db_url):
    first = sequence_json("grundy", "--upto", "40000", "--db", db_url)
    second = sequence_json("grundy", "--upto", "70000", "--db", db_url)
    fresh = sequence_json("grundy", "--upto", "70000")
    assert (first["stored"], second["stored"]) == (0, 40_001)
    assert second["values"] == fresh["values"] and second["checksum"] == fresh["checksum"]
    again = sequence_json("grundy", "--upto", "50000", "--db", db_url)
    assert again["method"] == "stored" and again["values"] == fresh["values"][:50_001]


@pytest.mark.slow  # long stored sequences
def test_a_stored_proof_is_read_back_without_computing(db_url):
    game = load_game("octal:0.56")
    with open_database(db_url) as db:
        first = stored_value_sequence(db.game(game), game, 10**9, until_periodic=True)
        assert (first.preperiod, first.period) == (326_640, 144)
        fresh = load_game("octal:0.56")  # no values kept from the first run
        again = stored_value_sequence(db.game(fresh), fresh, 10**9, until_periodic=True)
        listed = db.games()
    assert again.method == "stored" and again.stored == first.computed
    assert (again.preperiod, again.period, again.proven) == (326_640, 144, True)
    assert again.checksum == first.checksum
    assert listed[0]["sequence"]["period"] == 144
    out = CliRunner().invoke(main, ["stats", "--db", db_url])
    assert "value sequences" in out.stdout and "144 from 326,640 (proven)" in out.stdout


RUNNER = """
import sys
from explorer import load_game
from explorer.analysis.sequences import stored_value_sequence
from explorer.solver import sparse
from explorer import open_database
sparse.CHECKPOINT_SECONDS = 0.2
db = open_database(sys.argv[1])
def progress(done, largest):
    print(done, flush=True)
game = load_game("grundy")
result = stored_value_sequence(db.game(game), game, int(sys.argv[2]), progress=progress)
print("done", result.checksum, flush=True)
"""


def stored_count(url: str) -> int:
    engine = sa.create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.connect() as conn:
            tables = sa.inspect(conn).get_table_names()
            if "sequences" not in tables:
                return 0
            return int(
                conn.execute(
                    sa.text("SELECT COALESCE(MAX(computed), 0) FROM sequences")
                ).scalar_one()
            )
    finally:
        engine.dispose()


@pytest.mark.slow  # kill -9 of a long run
def test_a_killed_run_resumes_to_the_same_checksum(db_url):
    upto = 200_000
    expected = fletcher32(heap_sequence(load_game("grundy"), upto).values)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    process = subprocess.Popen(
        [sys.executable, "-c", RUNNER, db_url, str(upto)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.monotonic() + 300
    url = db_url
    killed_at = 0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        killed_at = stored_count(url) if "://" in url or os.path.exists(url) else 0
        if killed_at > 20_000:
            process.send_signal(signal.SIGKILL)
            break
        time.sleep(0.05)
    process.wait()
    assert process.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert 0 < killed_at < upto + 1
    resumed = sequence_json("grundy", "--upto", str(upto), "--db", db_url)
    assert resumed["stored"] >= killed_at  # continued from the stored values
    assert resumed["checksum"] == f"{expected:08x}"


@pytest.mark.slow  # a proof past the compiled kernel's start, saved at every step
def test_a_proof_shorter_than_its_last_checkpoint_is_saved_whole(db_url, monkeypatch):
    # with a zero interval the last checkpoint holds values past the proof's length; the final
    # save keeps fewer values and must delete the chunk rows past them (it left them before,
    # and the next read refused the sequence as damaged)
    from explorer.solver import sparse

    monkeypatch.setattr(sparse, "CHECKPOINT_SECONDS", 0.0)
    game = load_game("octal:0.127")
    with open_database(db_url) as db:
        first = stored_value_sequence(db.game(game), game, 10**9, until_periodic=True)
    assert (first.preperiod, first.period, first.proven) == (46_578, 4, True)
    with open_database(db_url) as db:
        stored = db.game("octal:0.127").sequence()
        with db.engine.connect() as conn:
            chunks = conn.execute(sa.text("SELECT COUNT(*) FROM sequence_chunks")).scalar_one()
    assert stored is not None and len(stored.values) == first.computed
    assert stored.checksum == fletcher32(heap_sequence(load_game("octal:0.127"), 93_166).values)
    assert chunks == -(-first.computed // CHUNK_VALUES)
    out = CliRunner().invoke(main, ["verify", "--db", db_url])
    assert out.exit_code == 0, out.output


def test_a_save_of_fewer_values_deletes_the_chunks_past_them(db_url):
    values = np.arange(3 * CHUNK_VALUES, dtype=np.uint16)
    with open_database(db_url) as db:
        nim = db.game("grundy")
        nim.save_sequence(values, len(values), checksum=fletcher32(values), method="x")
        kept = values[: CHUNK_VALUES + 7]
        nim.save_sequence(kept, len(kept), checksum=fletcher32(kept), method="x")
        assert nim.sequence().values.tolist() == kept.tolist()
        with db.engine.connect() as conn:
            chunks = conn.execute(sa.text("SELECT COUNT(*) FROM sequence_chunks")).scalar_one()
    assert chunks == 2
