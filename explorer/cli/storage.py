"""Commands over the graph database: build, query, stats (export and verify have their own)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click
from rich.table import Table

from explorer.cli.common import (
    MAX_STATES_STORED,
    AsciiIntRange,
    console,
    json_option,
    misere_flag,
    print_json,
    print_table,
    progress_bar,
    shown,
    visible,
    within_machine,
)
from explorer.cli.findings import print_findings, print_stored_findings
from explorer.cli.parts import game_part_rows, part_rows, print_part_table, show_part_rows
from explorer.cli.stored_options import db_option, shown_game, stored_misere_option
from explorer.games import load_game, refuse_bad_position
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, Convention
from explorer.games.rules_files import files_read_once
from explorer.limits import MAX_STORED_INT
from explorer.solver.loopy import Infinite, format_value
from explorer.viz.palette import outcome_text

if TYPE_CHECKING:  # SQLAlchemy and Alembic load only in the commands that open a database
    from explorer.build import BuildProgress, BuildReport, Database
    from explorer.storage import BuildRecord, GameStats, TierRecord

#: Most states one page of `explorer query` lists.
MAX_PAGE = 1_000_000

#: Default of `explorer build --memory`, in megabytes.
DEFAULT_MEMORY_MB = 4096

#: The build progress bar's fields (they fit in 80 columns with the bar and the elapsed time):
#: the work column shows the edges, or the tier steps of a build in tiers.
BUILD_FIELDS = {"states": "{:>11,} states", "work": "{:>17}", "rate": "{:>7,.0f}/s"}


@contextmanager
def _progress(enabled: bool, total: int | None) -> Iterator[Callable[[BuildProgress], None]]:
    """The build's progress bar, updated once per committed batch: states (and their rate,
    across workers), and edges, or for a build in tiers the tier steps done out of those
    known (each tier is expanded, then solved), which drive the bar and its time left."""
    first = {"work": "0 edges"}  # the first frame names the work column too
    with progress_bar(
        "building", BUILD_FIELDS, total=total, enabled=enabled, initial=first
    ) as update:

        def on_batch(step: BuildProgress) -> None:
            rate = step.states_new / step.seconds if step.seconds else 0.0
            if step.tiers_total:
                work = f"{step.tiers_done:,}/{step.tiers_total:,} tiers"
                update(
                    completed=step.tiers_done,
                    total=step.tiers_total,
                    states=step.states_new,
                    work=work,
                    rate=rate,
                )
                return
            work = f"{step.edges_new:,} edges"
            update(completed=step.states_new, states=step.states_new, work=work, rate=rate)

        yield on_batch


def _print_build(
    report: BuildReport, database: Database, max_states: int | None, memory: int
) -> None:
    rate = report.states_new / report.seconds if report.seconds else 0.0
    console.print(
        f"{visible(report.game)} {visible(report.position)} -> {visible(database.url)}: "
        f"{report.status}"
    )
    if report.convention == "misere":
        console.print("  play     misère (the player who moves last loses)")
    console.print(
        f"  states   {report.states_new:,} new, {report.states_reused:,} reused "
        f"({report.states_stored:,} stored for {shown_game(report.game, report.convention)})"
    )
    console.print(f"  edges    {report.edges_new:,} new")
    console.print(f"  values   {report.values_computed:,} computed")
    if report.grundy is not None:
        value = "misère G⁻" if report.convention == "misere" else "grundy"
        console.print(
            f"  value    {value} {report.grundy}, outcome {report.outcome}, "
            f"remoteness {report.remoteness}"
        )
    elif report.escapes is not None:  # play may loop: ∞(K), a win or a draw
        far = "" if report.remoteness is None else f", remoteness {report.remoteness}"
        console.print(
            f"  value    γ {format_value(Infinite(frozenset(report.escapes)))}, "
            f"outcome {report.outcome}{far}"
        )
    console.print(f"  time     {report.seconds:.2f} s ({rate:,.0f} new states/s)")
    if report.stopped_by == "memory":
        console.print(
            f"stopped at --memory {memory:,} MB: {report.frontier:,} states wait to be "
            "expanded; run the same command with a larger --memory to continue"
        )
    elif report.status == "stopped":
        console.print(
            f"stopped at --max-states {max_states:,}: {report.frontier:,} states wait to be "
            "expanded; run the same command again to continue"
        )


@click.command("build")
@click.argument("spec")
@click.argument("position")
@db_option
@click.option(
    "--max-states",
    type=AsciiIntRange(min=1, max=MAX_STATES_STORED),
    default=None,
    help="Store at most this many new states, then stop cleanly; the same command continues "
    "later. A state's moves are stored together: one with more new moves is refused.",
)
@click.option(
    "--memory",
    metavar="MIB",
    type=AsciiIntRange(min=64, max=2**30),
    callback=within_machine,
    default=DEFAULT_MEMORY_MB,
    show_default=True,
    help="Stop cleanly, as at --max-states, once the build uses this many MiB; the "
    "same command with a larger --memory continues later.",
)
@click.option(
    "--workers",
    type=AsciiIntRange(min=1, max=1024),
    default=None,
    help="Worker processes for a game with tiers (heap, octal, tb:, Grundy's game, Chomp, "
    "Wythoff, Ferguson, queens, coins, staircase, their sums, Python games with a tier): "
    "each tier's states are expanded on every worker, and each state's row is written "
    "once, whole, when its tier is solved; 1 does so in this process. Without --workers, "
    "and for a game without tiers, or whose play may loop, and a build with --max-states "
    "or reusing states another build stored, a build runs in one process.",
)
@click.option(
    "--cluster",
    metavar="ADDRESS",
    default=None,
    help="Build a game with tiers on a Dask cluster instead: the scheduler's address, "
    "tcp://HOST:8786 (needs pip install '.[cluster]' and a PostgreSQL --db; see the README's "
    '"Many machines").',
)
@misere_flag(
    "Misère play (the player who moves last loses): store the misère outcome, remoteness "
    "and G⁻ of every state, as a game of its own beside the normal-play build."
)
@json_option(
    "one object: database, game, position, convention, build_id, status, stopped_by, "
    "states_new, states_reused, states_stored, edges_new, values_computed, frontier, grundy, "
    "infinite, escapes, outcome, remoteness, seconds"
)
@files_read_once()  # the rules file of a py: game: read once by the load and the build
def build_command(
    spec: str,
    position: str,
    url: str | None,
    max_states: int | None,
    memory: int,
    workers: int | None,
    cluster: str | None,
    convention: Convention,
    as_json: bool,
) -> None:
    """Build the game graph of POSITION into the database, with every value solved.

    States already stored are reused, not rebuilt; a build stopped by --max-states or killed
    continues where it stopped when run again. With --misere the misère game is built and
    stored beside the normal-play one: each state's misère outcome and remoteness, and its
    G⁻ (1 at the end, else the mex of its moves' G⁻: 0 exactly on misère P-positions) in the
    grundy column; query, stats, export, verify, viz --db and serve read it with --misere.

    \b
    A game with tiers (a number every move lowers: the tokens of a heap game, the cells of
    Chomp) is built tier by tier on --workers processes, highest tier first, and solved
    lowest first; it stores exactly what one process stores.

    \b
    Examples:
      explorer build nim 3,4,5
      explorer build nim 3,4,5 --misere
      explorer build subtraction:1,2 180,180,180 --workers 2
      explorer build kayles 40 --db postgresql://me@localhost/games --max-states 100000
      explorer build nim 60,60,60 --db postgresql://me@db/games --cluster tcp://node1:8786
    """
    from explorer.build import open_database
    from explorer.build.options import BuildOptions
    from explorer.build.run import plan_build

    options = BuildOptions(
        max_states=max_states,
        memory=memory * 2**20,
        workers=workers or 1,
        in_tiers=workers is not None,
    )
    # the library refuses a bad or too large build here, before a database is opened, and
    # does not check the plan again
    game = load_game(spec)
    plan = plan_build(game, game.parse(position), options, convention, cluster=bool(cluster))
    if cluster is not None and workers is not None:
        raise click.UsageError(
            "--workers and --cluster exclude each other: a cluster's "
            "workers are the processes started by dask worker"
        )
    with ExitStack() as stack:
        executor, joined = None, None
        if cluster is not None:
            from explorer.build import cluster as dask

            dask.scheduler_address(cluster)  # refused before anything is opened, as is
            dask.dask_client()  # a missing extra
            dask.refuse_local_database(url)
            database = stack.enter_context(open_database(url))
            joined = stack.enter_context(dask.connect(cluster))
            executor = joined.executor
            plan = replace(plan, options=replace(options, workers=max(2, joined.threads)))
        else:
            database = stack.enter_context(open_database(url))
        update = stack.enter_context(
            _progress(not as_json, _bar_total(plan.game, plan.root, max_states))
        )
        report = database.build(plan, progress=update, executor=executor)
    if as_json:
        print_json({"database": database.url, **report.to_dict()})
        return
    _print_build(report, database, max_states, memory)
    if joined is not None:
        console.print(
            f"  cluster  {joined.address}: {joined.workers:,} workers, {joined.threads:,} threads"
        )


def _bar_total(game: Game[Any], root: Position, max_states: int | None) -> int | None:
    """The build bar's total: the states the game counts without generating them, where it
    can (at most what --max-states lets it store)."""
    limit = max_states or MAX_STATES_STORED
    counted = game.count_states(root, limit)
    return max_states if counted is None else min(counted, limit)


def _state_table(
    states: list[dict[str, Any]],
    title: str | None = None,
    convention: str = "normal",
    start: str | None = None,
) -> Table:
    """States as a table; a depth counted from another start than `start` names it."""
    table = Table(title=title)
    value = "G⁻" if convention == "misere" else "grundy"
    named = any(s.get("move") for s in states)  # moves in words, where the game has them
    for column in (*(["move"] if named else []), "position", value, "outcome", "remoteness"):
        table.add_column(column, justify="left" if column in ("move", "position") else "right")
    table.add_column("depth", justify="right")
    for s in states:
        table.add_row(
            *([visible(s.get("move") or "")] if named else []),
            shown(s["position"]),
            _value_text(s),
            *("·" if s[k] is None else str(s[k]) for k in ("outcome", "remoteness")),
            _depth_text(s, start),
        )
    return table


def _depth_text(state: dict[str, Any], start: str | None) -> str:
    """A state's depth, with the start it counts from when that is not `start`."""
    depth, since = state["depth"], state.get("depth_from")
    if depth is None:
        return "·"
    if since is None or since == start or since == state["position"]:
        return str(depth)
    return f"{depth} (from {visible(since)})"


def _value_text(state: dict[str, Any]) -> str:
    """A stored value as text: ``3``, ``∞(0,2)``, or ``·`` when not solved yet."""
    if state.get("escapes") is not None:
        return str(Infinite(frozenset(state["escapes"])))
    return "·" if state["grundy"] is None else str(state["grundy"])


def _page_note(total: int, offset: int, shown: int) -> str:
    if not shown:
        return f"none shown of {total:,}"
    note = f"{offset + 1:,}-{offset + shown:,} of {total:,}"
    if offset + shown < total:
        note += f" (next page: --offset {offset + shown})"
    return note


@click.command("query")
@click.argument("spec")
@click.argument("position", required=False)
@db_option
@click.option(
    "--outcome",
    type=click.Choice(["P", "N", "D"], case_sensitive=False),
    help="List only P-, N- or D-positions (draws, in games with cycles).",
)
@click.option(
    "--infinite/--finite",
    default=None,
    help="List only states of value ∞(K) (games with cycles), or only finite ones.",
)
@click.option(
    "--grundy",
    type=AsciiIntRange(min=0, max=MAX_STORED_INT),
    help="List only states of this value (G⁻ with --misere).",
)
@click.option(
    "--depth",
    type=AsciiIntRange(min=0, max=MAX_STORED_INT),
    help="List only states at this depth.",
)
@click.option("--successors", "direction", flag_value="out", help="Page through the moves.")
@click.option(
    "--predecessors",
    "direction",
    flag_value="in",
    help="Page through the positions with a move to POSITION.",
)
@click.option(
    "--limit",
    type=AsciiIntRange(min=1, max=MAX_PAGE),
    default=20,
    show_default=True,
    help="States per page.",
)
@click.option(
    "--offset",
    type=AsciiIntRange(min=0, max=MAX_STORED_INT),
    default=0,
    show_default=True,
    help="States to skip (the page start).",
)
@stored_misere_option
@json_option(
    "one object; a position's: game, position, convention, grundy, infinite, escapes, outcome, "
    "remoteness, depth, depth_from (the start depths count from), height, expanded, moves, "
    "predecessors, winning_moves, successors (each with its move in words); a listing's: game, "
    "convention, total, offset, limit, more, states"
)
def query_command(
    spec: str,
    position: str | None,
    url: str | None,
    outcome: str | None,
    grundy: int | None,
    depth: int | None,
    infinite: bool | None,
    direction: str | None,
    limit: int,
    offset: int,
    convention: Convention,
    as_json: bool,
) -> None:
    """Look up stored states: a POSITION's value and moves, or states filtered by value.

    With --misere, in the game's misère build: outcomes and remoteness of misère play, and
    G⁻ as the value (0 exactly on misère P-positions).

    \b
    Examples:
      explorer query nim 3,4,5
      explorer query nim 3,4,5 --predecessors
      explorer query nim --outcome P --limit 10
      explorer query kayles --grundy 0 --depth 2 --json
      explorer query graph:data/loopy.json --outcome D
      explorer query nim 3,4,5 --misere
    """
    filtered = outcome is not None or grundy is not None or depth is not None
    filtered = filtered or infinite is not None
    if position is None and direction:
        raise click.UsageError("--successors and --predecessors need a POSITION")
    if position is not None and filtered:
        raise click.UsageError(
            "--outcome, --grundy, --depth and --infinite list states; give no POSITION"
        )
    from explorer.build import open_database

    if position is not None:
        refuse_bad_position(spec, position)
    with open_database(url, create=False) as database:
        game = database.game(spec, convention)
        if position is None:
            page = game.states(
                outcome=outcome,
                grundy=grundy,
                depth=depth,
                infinite=infinite,
                limit=limit,
                offset=offset,
            )
            title = f"{shown_game(page['game'], page['convention'])} states"
        elif direction:
            linked = game.successors if direction == "out" else game.predecessors
            page = linked(position, limit=limit, offset=offset)
            title = (
                f"{shown_game(page['game'], page['convention'])} "
                f"{'moves from' if direction == 'out' else 'moves to'} {shown(page['position'])}"
            )
        else:
            state = game.state(position, moves=limit)
            if as_json:
                print_json(state)
                return
            _print_state(state)
            return
    if as_json:
        print_json(page)
        return
    print_table(_state_table(page["states"], title, page["convention"]))
    console.print(_page_note(page["total"], offset, len(page["states"])))


def _print_state(state: dict[str, Any]) -> None:
    misere = state["convention"] == "misere"
    value = "G⁻    " if misere else "grundy"
    console.print(f"game        {visible(state['game'])}")
    if misere:
        console.print("convention  misère (the player who moves last loses)")
    console.print(f"position    {shown(state['position'])}")
    if state["outcome"] is None:
        console.print(f"{value}      not solved yet (its build has not finished)")
    else:
        console.print(f"{value}      {_value_text(state)}")
        console.print(f"outcome     {outcome_text(state['outcome'])}")
        if state["remoteness"] is not None:
            console.print(f"remoteness  {state['remoteness']}")
    start = state.get("depth_from")  # the moves' depths count from it unless they say
    console.print(f"depth       {_depth_text(state, None)}")
    console.print(f"moves       {state['moves']:,} (predecessors: {state['predecessors']:,})")
    if state["successors"]:
        table = _state_table(
            state["successors"], "moves (P = winning move)", state["convention"], start
        )
        print_table(table)
        if state["moves"] > len(state["successors"]):
            console.print(
                f"... {state['moves'] - len(state['successors']):,} more: "
                "use --successors --offset N"
            )


@click.command("stats")
@click.argument("spec", required=False)
@db_option
@stored_misere_option
@click.option(
    "--parts",
    "parts_only",
    is_flag=True,
    help="Only the part table (Node-Kayles, Cram, ... parts valued once per shape): parts "
    "stored, look-ups and hit rate per family (of SPEC's parts when given).",
)
@json_option(
    "one object: game, convention, states, edges, expanded, solved, unsolved, by_outcome, "
    "by_grundy, by_depth, depth_from (the starts depths count from), max_grundy, max_depth, "
    "max_remoteness, max_height, builds, tiers (and patterns, quotient, parts: its part table "
    "rows, when stored); without SPEC, a list of such objects; with --parts, a list of part "
    "table rows: family, parts, lookups, hits, hit_rate"
)
def stats_command(
    spec: str | None, url: str | None, convention: Convention, parts_only: bool, as_json: bool
) -> None:
    """Counts by outcome, Grundy value and depth, and the build history of a stored game.

    Without SPEC, list the stored games (with their convention) and value sequences. With
    --misere, the game's misère build (its values are G⁻, its outcomes misère play's).

    \b
    Examples:
      explorer stats
      explorer stats nim --json
      explorer stats nim --misere
      explorer stats --parts --json
    """
    from explorer.build import open_database

    if convention == MISERE and not spec:
        raise click.UsageError("--misere names a game's misère build: give its SPEC")
    if parts_only:
        with open_database(url, create=False) as database:
            rows = part_rows(database)
        show_part_rows(rows if spec is None else game_part_rows(rows, spec), as_json)
        return
    with open_database(url, create=False) as database:
        stats = database.game(spec, convention).stats() if spec else None
        games = [] if spec else database.games()
        parts = part_rows(database)
    if stats is None:
        _show_games(games, parts, database.url, as_json)
    else:
        _show_game_stats(stats, parts, as_json)


def _show_games(
    games: list[dict[str, Any]], parts: list[dict[str, Any]], url: str, as_json: bool
) -> None:
    """The stored games, their value sequences, findings and part table (`explorer stats`)."""
    for row in games:  # a game's part families, in normal play
        shared = [] if row["convention"] == MISERE else game_part_rows(parts, row["game"])
        row.update({"parts": shared} if shared else {})
    if as_json:
        print_json(games)
        return
    table = Table("game", "states", "edges", title=f"games in {visible(url)}")
    for row in games:
        table.add_row(
            shown_game(row["game"], row["convention"]), f"{row['states']:,}", f"{row['edges']:,}"
        )
    print_table(table)
    stored = [(row["game"], row["sequence"]) for row in games if row["sequence"]]
    if stored:
        sequences = Table("game", "values stored", "period", "largest", "Fletcher-32 of them")
        sequences.title = "value sequences"
        for game, seq in stored:
            period = (
                f"{seq['period']:,} from {seq['preperiod']:,} (proven)"
                if seq["period"] is not None
                else "none proven"
            )
            sequences.add_row(
                visible(game),
                f"G(0..{seq['values'] - 1})",
                period,
                str(seq["largest"]),
                seq["checksum"],
            )
        print_table(sequences)
    print_stored_findings({row["game"]: row["findings"] for row in games if "findings" in row})
    print_part_table(parts)


def _show_game_stats(stats: GameStats, parts: list[dict[str, Any]], as_json: bool) -> None:
    """One stored game's counts, builds, tiers, part table and findings (`explorer stats
    SPEC`)."""
    shared = [] if stats.convention == MISERE else game_part_rows(parts, stats.game)
    if as_json:
        print_json({**stats.to_dict(), **({"parts": shared} if shared else {})})
        return
    misere = stats.convention == MISERE
    console.print(f"game            {visible(stats.game)}")
    if misere:
        console.print("convention      misère (the player who moves last loses)")
    console.print(
        f"states          {stats.states:,} ({stats.expanded:,} expanded, {stats.solved:,} solved)"
    )
    console.print(f"edges           {stats.edges:,}")
    outcomes = ", ".join(f"{k} {v:,}" for k, v in stats.by_outcome.items())
    console.print(f"by outcome      {outcomes}")
    console.print(f"largest {'G⁻   ' if misere else 'value'}   {stats.max_grundy}")
    console.print(f"deepest state   {stats.max_depth}")
    console.print(f"max remoteness  {stats.max_remoteness}")
    by_value = Table(
        "G⁻" if misere else "grundy",
        "states",
        title="by misère value G⁻" if misere else "by Grundy value",
    )
    for value, count in stats.by_grundy.items():
        by_value.add_row(str(value), f"{count:,}")
    print_table(by_value)
    title = "by depth"
    if len(stats.depth_from) > 1:  # depths of states stored by builds from different starts
        shown = "; ".join(visible(start) for start in stats.depth_from)
        title += f" (moves from the start of the build that stored each state: {shown})"
    by_depth = Table("depth", "states", title=title)
    for value, count in stats.by_depth.items():
        by_depth.add_row(str(value), f"{count:,}")
    print_table(by_depth)
    _print_builds(stats.builds)
    if stats.tiers:
        _print_tiers(stats.tiers)
    print_part_table(shared)
    print_findings(stats)


def _print_builds(builds: tuple[BuildRecord, ...]) -> None:
    """A stored game's builds, one row each."""
    table = Table(
        "id", "position", "status", "new", "reused", "edges", "workers", "started", title="builds"
    )
    for b in builds:
        table.add_row(
            str(b.id),
            visible(b.position),
            b.status,
            f"{b.states_new:,}",
            f"{b.states_reused:,}",
            f"{b.edges_new:,}",
            str(b.workers or 1),
            b.started_at[:19],
        )
    print_table(table)


def _print_tiers(tiers: tuple[TierRecord, ...]) -> None:
    """A build in tiers: how many, the time they took, and the slowest ones."""
    expand = sum(t.expand_seconds for t in tiers)
    solve = sum(t.solve_seconds or 0.0 for t in tiers)
    solved = sum(t.solve_seconds is not None for t in tiers)
    console.print(
        f"tiers           {len(tiers):,} ({solved:,} solved): {expand:,.1f} s expanding, "
        f"{solve:,.1f} s solving"
    )
    slowest = sorted(tiers, key=lambda t: -t.expand_seconds)[:5]
    table = Table("tier", "states", "moves", "expand s", "solve s", title="slowest tiers")
    for t in sorted(slowest, key=lambda t: -t.tier):
        solve_text = "·" if t.solve_seconds is None else f"{t.solve_seconds:.3f}"
        table.add_row(
            str(t.tier), f"{t.states:,}", f"{t.edges:,}", f"{t.expand_seconds:.3f}", solve_text
        )
    print_table(table)


COMMANDS = [build_command, query_command, stats_command]
