"""Builds on a Dask cluster (`explorer build --cluster`): the README's "Many machines" commands
run on loopback, a worker is killed mid-build, and the result is what one process stores."""

from __future__ import annotations

import csv
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

import pytest
from click.testing import CliRunner

from explorer.cli import main
from tests.support.environment import require
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
        import distributed
    except ImportError:
        require("the cluster extra (Dask distributed) is not installed")
    start_scheduler, start_workers, _ = readme_commands()
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    processes = [
        subprocess.Popen(
            [*loopback(start_scheduler, port), "--dashboard-address", ":0"], env=env, **quiet
        )
    ]
    try:
        processes.append(
            subprocess.Popen(
                [*loopback(start_workers, port), "--dashboard-address", ":0"], env=env, **quiet
            )
        )
        with distributed.Client(address, timeout=PATIENCE, set_as_default=False) as client:
            client.wait_for_workers(WORKERS, timeout=PATIENCE)
        yield address
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGTERM)
        for process in reversed(processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def explorer(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "explorer", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
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
    alone = explorer("build", SPEC, POSITION, "--db", str(one), "--workers", "1", cwd=tmp_path)
    assert alone.returncode == 0, alone.stderr
    nodes, edges = exported(pg_url, tmp_path)
    assert (nodes, edges) == exported(str(one), tmp_path)
    assert len(nodes) == 1 + 5_456 and len(edges) == 1 + 29_264  # a header, then the graph
    checked = explorer("verify", SPEC, "--db", pg_url, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


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
