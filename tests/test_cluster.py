"""Builds on a Dask cluster (`explorer build --cluster`): the README's "Many machines" commands
run on loopback, a worker is killed mid-build, and the result is what one process stores."""

from __future__ import annotations

import csv
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from explorer.cli import main
from tests.support.cli import run_json
from tests.support.environment import REPO, require
from tests.support.readme import README

SPEC, POSITION = "subtraction:1,2", "30,30,30"
#: Worker processes of the cluster (at least 3, one killed mid-build).
WORKERS = 3
#: Seconds any one step may take on a loaded 2-core machine before the test gives up.
PATIENCE = 300


def readme_commands() -> list[str]:
    """The commands of the README's "Many machines" section: scheduler, worker, build."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### Many machines\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.S)
    assert block is not None
    return block[1].strip().splitlines()


def test_the_readme_gives_a_scheduler_workers_and_a_build():
    scheduler, worker, build = readme_commands()
    assert scheduler.startswith("dask scheduler --port 8786")
    assert worker.startswith("dask worker tcp://HOST:8786 ")
    assert build.startswith("explorer build ") and "--cluster tcp://HOST:8786" in build
    assert "--db postgresql://" in build


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def loopback(command: str, port: int) -> list[str]:
    """A README command for this machine: HOST is loopback, the port free, WORKERS workers."""
    command = command.replace("HOST", "127.0.0.1").replace("8786", str(port))
    return shlex.split(command.replace("$(nproc)", str(WORKERS)))


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A Dask scheduler and WORKERS worker processes on loopback, started by the README's
    commands (the dashboards on free ports), for the module's tests; a worker killed is
    started again by its nanny."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        require("the cluster extra (Dask distributed) is not installed")
    port = free_port()
    processes: list[subprocess.Popen[bytes]] = []
    try:
        yield start_cluster(port, processes)
    finally:
        stop(processes)


def start_cluster(port: int, processes: list[subprocess.Popen[bytes]]) -> str:
    """Start the README's scheduler and WORKERS workers on loopback at `port` (added to
    `processes`); the scheduler's address once every worker joined."""
    import distributed

    start_scheduler, start_workers, _ = readme_commands()
    quiet: dict[str, Any] = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    bin_dir = Path(sys.executable).parent
    env = {**ENV, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    for command in (start_scheduler, start_workers):
        processes.append(
            subprocess.Popen(
                [*loopback(command, port), "--dashboard-address", ":0"], env=env, **quiet
            )
        )
    address = f"tcp://127.0.0.1:{port}"
    with distributed.Client(address, timeout=PATIENCE, set_as_default=False) as client:
        client.wait_for_workers(WORKERS, timeout=PATIENCE)
    return address


def stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in reversed(processes):
        process.send_signal(signal.SIGTERM)
    for process in reversed(processes):
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    processes.clear()


#: The environment of the processes a test starts: they import this checkout's explorer.
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def explorer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=ENV,
        timeout=PATIENCE,
    )


def exported(url: str, folder: Path) -> tuple[list[list[str]], list[list[str]]]:
    """A game's exported nodes and edges (CSV rows, ids not among them), sorted."""
    out = folder / "graph"
    done = explorer("export", SPEC, "--db", url, "--format", "csv", "-o", str(out), cwd=folder)
    assert done.returncode == 0, done.stderr
    rows = []
    for part in ("nodes", "edges"):
        with open(f"{out}.{part}.csv", newline="", encoding="utf-8") as file:
            rows.append(sorted(csv.reader(file)))
    return rows[0], rows[1]


@pytest.mark.slow
@pytest.mark.postgres
def test_a_cluster_build_with_a_worker_killed_stores_what_one_process_stores(
    scheduler: str, pg_url: str, tmp_path: Path
) -> None:
    import distributed

    *_, readme_build = readme_commands()
    build = loopback(readme_build, int(scheduler.rsplit(":", 1)[1]))
    build[build.index("--db") + 1] = pg_url
    build[2:4] = [SPEC, POSITION]
    assert build[:2] == ["explorer", "build"]
    with distributed.Client(scheduler, timeout=PATIENCE, set_as_default=False) as client:
        pids = client.run(os.getpid)  # each worker's process, by address
        coordinator = subprocess.Popen(
            [sys.executable, "-m", "explorer", *build[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            env=ENV,
        )
        try:
            # kill -9 a worker process while it runs one of the build's tasks
            deadline = time.monotonic() + PATIENCE
            busy: list[str] = []
            while not busy and coordinator.poll() is None and time.monotonic() < deadline:
                busy = [worker for worker, tasks in client.processing().items() if tasks]
                time.sleep(0.02)
            assert busy, "no task of the build was seen running on a worker"
            os.kill(pids[busy[0]], signal.SIGKILL)
            assert coordinator.poll() is None, "the build ended before a worker was killed"
            out, err = coordinator.communicate(timeout=PATIENCE)
        finally:
            if coordinator.poll() is None:
                coordinator.kill()
                coordinator.wait()
    assert coordinator.returncode == 0, err
    assert f"{WORKERS} workers" in out  # the build ran on the cluster
    assert "complete" in out.splitlines()[0]

    one = tmp_path / "one.db"
    alone = explorer("build", SPEC, POSITION, "--db", str(one), cwd=tmp_path)
    assert alone.returncode == 0, alone.stderr
    nodes, edges = exported(pg_url, tmp_path)
    assert (nodes, edges) == exported(str(one), tmp_path)
    assert len(nodes) == 1 + 5_456 and len(edges) == 1 + 29_264  # a header, then the graph
    checked = explorer("verify", SPEC, "--db", pg_url, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
@pytest.mark.postgres
def test_a_build_whose_scheduler_was_killed_is_interrupted_and_resumes(
    pg_url: str, tmp_path: Path
) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        require("the cluster extra (Dask distributed) is not installed")
    import sqlalchemy as sa

    from explorer.storage.backends.engine import resolve_url

    spec, position = "subtraction:1,2", "60,60,61"
    port, processes = free_port(), []
    engine = sa.create_engine(resolve_url(pg_url))
    try:
        address = start_cluster(port, processes)
        build = [sys.executable, "-m", "explorer", "build", spec, position, "--db", pg_url]
        coordinator = subprocess.Popen(
            [*build, "--cluster", address],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        deadline = time.monotonic() + PATIENCE
        builds = 0  # the build's row is written when it starts expanding its tiers
        while not builds and coordinator.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
            with engine.connect() as conn:
                try:
                    builds = conn.execute(sa.text("SELECT COUNT(*) FROM builds")).scalar_one()
                except sa.exc.DatabaseError:  # the schema is not there yet
                    conn.rollback()
        time.sleep(1.0)  # some tiers expanded
        assert builds and coordinator.poll() is None, "the build ended before the kill"
        processes[0].send_signal(signal.SIGKILL)  # the scheduler
        out, err = coordinator.communicate(timeout=PATIENCE)
        assert coordinator.returncode == 1 and out == ""
        assert err.startswith("Error: the build lost the Dask cluster at ") and err.count("\n") == 1
        stop(processes)
        stopped = run_json("stats", spec, "--db", pg_url)
        assert [b["status"] for b in stopped["builds"]] == ["interrupted"]
        # scheduler and workers started again: the same build continues what was stored
        address = start_cluster(free_port(), processes)
        done = explorer(*build[3:], "--cluster", address, "--json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        resumed = json.loads(done.stdout)
        assert resumed["status"] == "complete"
        # the tiers solved before the kill, if any, are kept; the rest is done again
        assert resumed["states_reused"] == stopped["states"]
        assert resumed["states_new"] == resumed["states_stored"] - stopped["states"]
    finally:
        stop(processes)
        engine.dispose()
    one = tmp_path / "one.db"
    alone = explorer("build", spec, position, "--db", str(one), cwd=tmp_path)
    assert alone.returncode == 0, alone.stderr
    assert exported(pg_url, tmp_path) == exported(str(one), tmp_path)
    statuses = [b["status"] for b in run_json("stats", spec, "--db", pg_url)["builds"]]
    assert statuses == ["interrupted", "complete"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cluster", "tcp://127.0.0.1:1"], "--cluster needs a PostgreSQL database"),
        (["--db", "postgresql://u@h/d", "--cluster", "node1"], "bad cluster address 'node1'"),
        (["--db", "postgresql://u@h/d", "--cluster", "http://n:1"], "bad cluster address"),
    ],
)
def test_a_bad_cluster_build_is_refused_in_one_line(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["build", "nim", "3,4,5", *args])
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: {message}") and result.output.count("\n") == 1
    assert not (tmp_path / "explorer.db").exists()


def test_workers_and_cluster_exclude_each_other():
    result = CliRunner().invoke(
        main, ["build", "nim", "3,4,5", "--workers", "2", "--cluster", "tcp://127.0.0.1:1"]
    )
    assert result.exit_code == 2 and "--workers and --cluster exclude each other" in result.output


def test_without_the_extra_the_error_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises
    result = CliRunner().invoke(
        main, ["build", "nim", "3,4,5", "--db", "postgresql://u@h/d", "--cluster", "h:8786"]
    )
    assert result.exit_code == 1
    assert result.output == (
        "Error: --cluster needs Dask distributed, which is not installed: install it with "
        "pip install 'explorer[cluster]' (in a checkout: pip install '.[cluster]')\n"
    )


@pytest.mark.slow
@pytest.mark.postgres
def test_a_worker_running_another_explorer_is_refused(scheduler, pg_url, monkeypatch):
    from explorer.build import cluster

    monkeypatch.setattr(cluster, "__version__", "0.0.1")  # the workers run the real one
    result = CliRunner().invoke(
        main, ["build", SPEC, POSITION, "--db", pg_url, "--cluster", scheduler]
    )
    assert result.exit_code == 1
    assert re.fullmatch(
        rf"Error: the worker tcp://\S+ of {scheduler} runs explorer \S+, this is 0\.0\.1: "
        "install the same version on every machine\n",
        result.output,
    ), result.output
