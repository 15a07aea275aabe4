"""A build is checked once, by the library, before its database is opened (`plan_build`), and
run as planned (`run_plan`): a cluster's build goes in tiers because it is on a cluster, not
because of a worker count made up for it."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from explorer import open_database
from explorer.build.options import BuildOptions
from explorer.build.run import plan_build
from explorer.errors import ClusterError
from explorer.games import load_game
from tests.support.cli import run, run_json
from tests.support.storage import content


def test_a_cluster_build_goes_in_tiers_whatever_its_workers(tmp_path: Path) -> None:
    nim = load_game("nim")
    plan = plan_build(nim, (5, 6, 7), BuildOptions(workers=1), cluster=True)
    assert plan.may_tier and not plan_build(nim, (5, 6, 7), BuildOptions(workers=1)).may_tier
    with open_database(str(tmp_path / "tiers.db")) as db, ProcessPoolExecutor(2) as pool:
        report = db.build(plan, executor=pool)
        assert report.status == "complete"
        assert db.game("nim").stats().tiers  # built tier by tier, on the executor
    with open_database(str(tmp_path / "one.db")) as db:
        db.game("nim").build("5,6,7")
    assert content(str(tmp_path / "tiers.db"), "nim") == content(str(tmp_path / "one.db"), "nim")


@pytest.mark.parametrize(
    ("spec", "position", "options"),
    [("treblecross", "9", BuildOptions()), ("nim", "3,4", BuildOptions(max_states=5))],
)
def test_a_cluster_build_that_cannot_go_in_tiers_is_refused(
    tmp_path: Path, spec: str, position: str, options: BuildOptions
) -> None:
    game = load_game(spec)
    plan = plan_build(game, game.parse(position), options, cluster=True)
    with open_database(str(tmp_path / "c.db")) as db:
        with pytest.raises(ClusterError) as refused:
            db.build(plan)
        assert db.games() == []  # nothing written
    assert str(refused.value) == (
        f"--cluster builds a game in tiers, and this build of {game.spec} cannot go in tiers "
        "(a game without tiers or whose play may loop, --max-states, or a build continuing one "
        "made in one process): run it without --cluster"
    )


def test_a_build_checked_for_tiers_that_goes_in_one_process_is_checked_for_it(
    tmp_path: Path,
) -> None:
    # nim 130,130,130 (383,306 states) fits 64 MiB in tiers (32 B a state), not in one process
    # (256 B); stored states of a one-process build make this one go in one process too
    db = str(tmp_path / "one.db")
    run_json("build", "nim", "3,4", "--db", db)
    before = run_json("stats", "nim", "--db", db)
    code, out, err = run(
        "build", "nim", "130,130,130", "--db", db, "--memory", "64", "--workers", "2"
    )
    assert (code, out) == (1, "")
    assert err == (
        "Error: position '130,130,130' of nim has more than 262,144 states, more than a build "
        "within --memory 64 MB can hold: build part of it with --max-states N, or raise --memory\n"
    )
    assert run_json("stats", "nim", "--db", db) == before
