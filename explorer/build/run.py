"""Running a build: `plan_build` refuses what cannot be built, once, before a database is opened;
`run_plan` hands the plan to the one-process builder (`explorer.build.one_process`) or, for a
game with tiers on several workers, to the tier manager (`explorer.build.tier_manager`);
`build_position` does both. The command line plans a build before it opens the database, so
that a refused build leaves no database behind, and trusts the plan's checks."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from sqlalchemy.engine import Engine

from explorer.build.one_process import GraphBuilder
from explorer.build.options import BuildOptions, BuildReport
from explorer.build.plans import BuildPlan, may_go_in_tiers, refuse_unbuildable, tiers_apply
from explorer.build.writer import BuildProgress
from explorer.errors import ClusterError, SpecError
from explorer.games import load_game, may_cycle
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.rules_files import files_read_once


@files_read_once()
def build_position(
    engine: Engine,
    spec: str | Game[Any],
    position: str,
    options: BuildOptions | None = None,
    *,
    convention: Convention = NORMAL,
    progress: Callable[[BuildProgress], None] | None = None,
    executor: Executor | None = None,
) -> BuildReport:
    """Build the game graph of a position into a database, reusing whatever is stored.

    `explorer.build.StoredGame.build` is the usual entry point; this one takes an engine made
    by `explorer.storage.backends.engine.create_engine`.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        An open, migrated database.
    spec : str or Game
        The game, as on the command line, or its rules (a game written in a notebook, say:
        stored under its ``spec``).
    position : str
        The position, as on the command line.
    options : BuildOptions, optional
        How to build (the defaults of `BuildOptions` when not given).
    convention : Convention
        ``MISERE`` builds the misère game (the player who moves last loses), stored beside the
        normal-play one: states hold G⁻, misère outcomes and misère remoteness.
    progress : callable, optional
        Called with a `BuildProgress` after every committed batch.
    executor : concurrent.futures.Executor, optional
        Where a build in tiers (``options.workers`` > 1, a game with tiers) runs its tasks
        (`explorer.generation.tiers.expand_tier`): a distributed engine's executor, say; by
        default a process pool of ``options.workers`` processes.

    Returns
    -------
    BuildReport

    Raises
    ------
    SpecError
        For a misère build of a game whose play may loop (``graph:``, ``windup:``): G⁻ needs
        play that ends (`explorer.analysis.misere.misere_solution` gives such a game's misère
        outcomes).

    Examples
    --------
    >>> from explorer.storage.backends.engine import create_engine
    >>> engine = create_engine("sqlite://")
    >>> report = build_position(engine, "subtraction:1,2", "4,4")
    >>> report.status, report.states_new, report.grundy
    ('complete', 15, 0)
    >>> build_position(engine, "subtraction:1,2", "5,4").states_reused
    15
    >>> misere = build_position(engine, "subtraction:1,2", "4,4", convention=MISERE)
    >>> misere.states_new, misere.grundy, misere.outcome, misere.convention
    (15, 1, 'N', <Convention.MISERE: 'misere'>)
    """
    game = load_game(spec) if isinstance(spec, str) else spec
    plan = plan_build(game, game.parse(position), options or BuildOptions(), convention)
    return run_plan(engine, plan, progress=progress, executor=executor)


def plan_build(
    game: Game[Any],
    root: Position,
    options: BuildOptions,
    convention: Convention = NORMAL,
    *,
    cluster: bool = False,
) -> BuildPlan:
    """A build of `root` checked before anything is read or written: refused at once when it
    is a misère build of a game whose play may loop (`refuse_misere_cycles`), or when its
    game counts more states than the memory budget holds (`refuse_unbuildable`, at the bytes
    a state of a build in tiers when it may go in tiers). `cluster`: its tasks run on a
    cluster (see `BuildPlan`).

    Examples
    --------
    >>> from explorer.games import load_game
    >>> nim = load_game("nim")
    >>> plan = plan_build(nim, (3, 4), BuildOptions(workers=1), cluster=True)
    >>> plan.may_tier, plan_build(nim, (3, 4), BuildOptions(workers=1)).may_tier
    (True, False)
    """
    if convention == MISERE:
        refuse_misere_cycles(game)
    may_tier = may_go_in_tiers(game, root, options, cluster=cluster)
    refuse_unbuildable(
        game, root, memory=options.memory, max_states=options.max_states, tiered=may_tier
    )
    return BuildPlan(game, root, options, convention, cluster=cluster, may_tier=may_tier)


def run_plan(
    engine: Engine,
    plan: BuildPlan,
    *,
    progress: Callable[[BuildProgress], None] | None = None,
    executor: Executor | None = None,
) -> BuildReport:
    """Run a build `plan_build` checked (see `build_position`), in tiers when they apply
    (`tiers_apply`), else in one process.

    Raises
    ------
    ClusterError
        For a build on a cluster that cannot go in tiers.
    GraphTooLargeError
        For a build that was checked at the bytes a state of a build in tiers but goes in one
        process (what is stored decides: `tiers_apply`), more than the memory budget holds.
    """
    from explorer.build.tier_manager import TieredBuilder
    from explorer.storage.rows.part_values import SharedParts

    game, root, options, convention = plan.game, plan.root, plan.options, plan.convention
    tiered = tiers_apply(engine, plan)
    if plan.cluster and not tiered:
        raise ClusterError(
            f"--cluster builds a game in tiers, and this build of {game.spec} cannot go in "
            "tiers (a game without tiers or whose play may loop, --max-states, or a build "
            "continuing one made in one process): run it without --cluster"
        )
    if plan.may_tier and not tiered:  # checked at a build in tiers' bytes a state
        refuse_unbuildable(
            game, root, memory=options.memory, max_states=options.max_states, tiered=False
        )
    # a game whose parts have labels reads the part table first and adds to it after
    with SharedParts(engine).building(game, root, options.max_states is None, convention):
        if tiered:
            return TieredBuilder(engine, game, root, options, executor, progress, convention).run()
        return GraphBuilder(engine, game, root, options, progress, convention).run()


def refuse_misere_cycles(game: Game[Any]) -> None:
    """Refuse a misère build of a game whose play may loop: its misère values are outcomes
    with draws, not G⁻, and a build solves no cycle."""
    if may_cycle(game):
        raise SpecError(
            f"a misère build needs a game whose play always ends, and {game.spec} may loop "
            f"(explorer solve {game.spec!r} POSITION --misere gives its misère outcomes, "
            "draws included)"
        )
