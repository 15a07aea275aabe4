"""A build's policies: whether it goes in tiers (`tiers_apply`), what it refuses at once, the
round plan (how many states the next round of a batch takes, and the bound that stops it), the
memory budget (how many new states the next round may number) and the key-index plan (when to
drop the unique key index and when to create it again).
"""

from __future__ import annotations

import os
import resource
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
from sqlalchemy.engine import Engine

from explorer.errors import GraphTooLargeError
from explorer.games.base import Game, Position
from explorer.games.convention import Convention
from explorer.games.specs import GameSpec
from explorer.storage.backends.engine import reading
from explorer.storage.rows.records import find_game
from explorer.storage.tables import states as states_table
from explorer.storage.tables import tiers as tiers_table

if TYPE_CHECKING:
    from explorer.build.options import BuildOptions

#: A build stops cleanly (as at --max-states) before the process uses more memory than this.
DEFAULT_MEMORY_BYTES = 4 * 2**30
#: The fewest bytes a build in one process holds per state (about ten numbers in its arrays,
#: a move, the position index; measured 279 B a state at 10M states): a position with more
#: states than the memory budget holds at this rate cannot be built whole, and is refused at
#: once unless --max-states asks for a part.
MIN_BYTES_PER_STATE = 256
#: The same floor for a build in tiers (`explorer.build.tier_manager`), whose coordinator keeps
#: four 32-bit numbers a state in arrays that double as they grow, and its moves and keys in
#: files. The whole process tree's peak (2 workers) measured 62-70 B a state at 10M states,
#: and 60 B a state at 100.6M when the moves were still kept in memory.
MIN_BYTES_PER_STATE_TIERED = 32
#: Moves generated per transaction at most (beyond the moves of one state, kept together): a
#: batch of wide states (Nim on three heaps of 1,000 has 3,000 moves a state) stays small.
BATCH_MOVES = 250_000
#: A build stops for its memory budget when fewer new states than this fit in it.
MIN_ROUND_STATES = 1024
#: SQLite's page cache for a build's writes, in KiB: it grows with the states stored (it
#: serves mostly the unique key index, about 30 bytes a state) from the least (SQLite's own
#: default) to the most, and takes an eighth of the memory budget at most. A 1M-state build
#: is no slower with 16 MiB than with 256 MiB (0.93 of the CPU time, whole-process) and holds
#: 220 MiB less. The cache's pages are not given back when it shrinks: the least is kept
#: small, so that a build that drops the key index early (`APPEND_CACHE_KIB`) holds little.
SQLITE_CACHE_KIB = (2_048, 262_144)
CACHE_BYTES_PER_STATE = 16
#: SQLite's page cache, in KiB, for a build's writes once it has dropped the key index (see
#: `KeyIndexPlan`): rows then go in at the end of their tables and indexes, and SQLite's own
#: default (2 MiB) serves as well. The 1M-state build in tiers held 11 MiB less so.
APPEND_CACHE_KIB = 2048

#: A build drops the unique key index (`explorer.storage.rows.records.drop_key_index`) once it has
#: written this many new states, and at least as many as the database held when it started (so
#: that creating the index again at its end costs less than what dropping it saved); it creates
#: the index again when it ends. 1,004,731 states written: 3.0 s without the index plus 0.5 s
#: to create it, against 5.5 s into it.
DEFER_KEY_INDEX_AT = 100_000
#: A build of at least this many states creates the key index while it solves its last batch
#: (see `explorer.build.one_process.GraphBuilder`): in a smaller one that saves under a second,
#: and costs 20 MB.
OVERLAP_INDEX_AT = 4_000_000


def resident_bytes() -> int:
    """The memory this process uses now (its resident set), in bytes.

    Examples
    --------
    >>> resident_bytes() > 0
    True
    """
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # no /proc: the peak, as the kernel counts it
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def refuse_unbuildable(
    game: Game[Any],
    root: Position,
    *,
    memory: int | None,
    max_states: int | None,
    tiered: bool = False,
) -> None:
    """Refuse at once, before anything is read or generated, a whole build that the memory
    budget cannot hold, when the game can count its states (`Game.count_states`).

    `tiered` says the build goes in tiers (`may_go_in_tiers`), which
    holds fewer bytes a state than a build in one process.

    Raises
    ------
    GraphTooLargeError
        When the position has more states than `memory` bytes hold at `MIN_BYTES_PER_STATE`
        (`MIN_BYTES_PER_STATE_TIERED` in tiers) and `max_states` (a part of the graph) is not
        given.

    Examples
    --------
    >>> from explorer.games import load_game
    >>> nim = load_game("nim")
    >>> refuse_unbuildable(nim, (100, 100, 100), memory=2**30, max_states=None)  # 176,851
    >>> try:
    ...     refuse_unbuildable(nim, (1000, 1000, 1000), memory=2**30, max_states=None)
    ... except GraphTooLargeError as error:
    ...     print(f"refused: more than {error.limit:,} states")
    refused: more than 4,194,304 states
    >>> refuse_unbuildable(nim, (330, 330, 330), memory=2**30, max_states=None, tiered=True)
    """
    if memory is None:
        return
    if game.may_cycle():
        _refuse_unlabellable(game, root, memory=memory, max_states=max_states)
    if max_states is not None:
        return
    capacity = memory // (MIN_BYTES_PER_STATE_TIERED if tiered else MIN_BYTES_PER_STATE)
    counted = game.count_states(root, capacity)
    if counted is not None and counted > capacity:
        key = GraphTooLargeError.quoted(game.format(root))
        raise GraphTooLargeError(
            f"position {key!r} of {game.spec} has more than {capacity:,} states, more than a "
            f"build within --memory {memory // 2**20:,} MB can hold: build part of it with "
            "--max-states N, or raise --memory",
            capacity,
        )


#: Bytes per state the whole labelling of a game whose play may loop takes at the end of its
#: build (measured: 185 MB for 300,000 WindUp states of two moves each).
LOOPY_BYTES_PER_STATE = 800


def _refuse_unlabellable(
    game: Game[Any], root: Position, *, memory: int, max_states: int | None
) -> None:
    """Refuse a build of a game whose play may loop that would end (not stopped by
    `max_states`) with more states than its labelling, in memory, can hold within `memory`."""
    capacity = memory // LOOPY_BYTES_PER_STATE
    counted = game.count_states(root, capacity)
    if counted is None or counted <= capacity:
        return
    if max_states is not None and max_states < counted:
        return  # stopped before the end: nothing is labelled
    key = GraphTooLargeError.quoted(game.format(root))
    raise GraphTooLargeError(
        f"position {key!r} of {game.spec} reaches {counted:,} states or more, and a game whose "
        f"play may loop is labelled whole in memory at the end of its build: more than "
        f"--memory {memory // 2**20:,} MB holds ({capacity:,} states); build part of it with "
        "--max-states N, or raise --memory",
        capacity,
    )


def refuse_wide_state(
    game: Game[Any], key: str, needs: int, *, states_new: int, bound: str, options: BuildOptions
) -> NoReturn:
    """Refuse a state whose `needs` new moves alone pass the build's `bound` (``memory`` or
    ``max-states``), the build having `states_new` new states: a state's moves are stored
    together, so no run of this build could store them."""
    room = f"room for {needs + states_new:,} states"
    if bound == "memory":
        limit = f"--memory {(options.memory or 0) // 2**20:,} MB holds"
        fix = f"raise --memory to hold {room}"
    else:
        limit = f"--max-states {options.max_states:,} lets this build store"
        fix = f"raise --max-states to at least {needs + states_new:,}"
    key = GraphTooLargeError.quoted(key)
    raise GraphTooLargeError(
        f"position {key!r} of {game.spec} has {needs:,} new moves, more than {limit} "
        f"(a state's moves are stored together): {fix}",
        needs,
    )


def sqlite_cache_kib(memory: int | None, states: int, *, key_index: bool = True) -> int:
    """SQLite's page cache for a write of a build of `states` states within `memory` bytes
    (see `SQLITE_CACHE_KIB`), or `APPEND_CACHE_KIB` once the build has dropped the unique
    key index (`key_index` False).

    Examples
    --------
    >>> sqlite_cache_kib(None, 10**5), sqlite_cache_kib(None, 10**6), sqlite_cache_kib(2**30, 10**8)
    (2048, 15625, 131072)
    >>> sqlite_cache_kib(2**30, 10**8, key_index=False)
    2048
    """
    if not key_index:
        return APPEND_CACHE_KIB
    least, most = SQLITE_CACHE_KIB
    if memory is not None:
        most = min(most, memory // 8 // 1024)
    return min(most, max(least, states * CACHE_BYTES_PER_STATE // 1024))


class RoundPlan:
    """How many frontier states the next round of a batch takes, and the bound that stops a
    build (``max-states`` or ``memory``).

    A batch ends at `BuildOptions.batch_states` states or `BATCH_MOVES` moves; a round takes as
    many states as the widest state of the last round allows.

    Examples
    --------
    >>> from explorer.build.options import BuildOptions
    >>> plan = RoundPlan(BuildOptions(max_states=100, memory=None))
    >>> plan.room(states_new=40, states=50), plan.room(states_new=100, states=110)
    ((60, 'max-states'), (0, 'max-states'))
    >>> plan.widest(np.array([0, 0, 0, 1, 2, 2]))  # moves from states 0, 1, 2: 3 at most
    >>> plan.round_states(count=0, moves=BATCH_MOVES - 30), plan.round_states(count=0, moves=0)
    (10, 50000)
    """

    def __init__(self, options: BuildOptions) -> None:
        self.batch_states, self.max_states = options.batch_states, options.max_states
        self.budget = None if options.memory is None else MemoryBudget(options.memory)
        # the widest state of the last round sizes the next one (the first takes 16 states)
        self.moves_per_state = BATCH_MOVES // 16

    def room(self, *, states_new: int, states: int) -> tuple[int | None, str]:
        """The most new states the next round may number (None: no bound), the build having
        `states_new` new states of `states`, and the bound that says so; 0 when that bound
        stops the build now."""
        budget, bound = None, "max-states"
        if self.max_states is not None:
            budget = max(0, self.max_states - states_new)
            if budget == 0:
                return 0, bound
        if self.budget is not None:
            fits = self.budget.states_fitting(states)
            if fits < MIN_ROUND_STATES:
                return 0, "memory"
            if budget is None or fits < budget:
                budget, bound = fits, "memory"
        return budget, bound

    def round_states(self, *, count: int, moves: int) -> int:
        """States the next round takes, the batch holding `count` states and `moves` moves."""
        return min(self.batch_states - count, max(1, (BATCH_MOVES - moves) // self.moves_per_state))

    def widest(self, src: np.ndarray) -> None:
        """Note the widest state of a round, from its moves' sources (state by state, in
        order: the widest state is the longest run)."""
        if len(src):
            ends = np.flatnonzero(np.diff(src))
            self.moves_per_state = int(np.diff(ends, prepend=-1, append=len(src) - 1).max())


class MemoryBudget:
    """How many new states a build may number in its next round and stay within `memory`
    bytes of resident memory, learnt from what the rounds so far cost."""

    def __init__(self, memory: int) -> None:
        self.memory = memory
        self.last_resident: int | None = None
        self.last_states = 0
        self.round_growth = 0  # the most the resident memory grew in one round
        self.state_cost = MIN_BYTES_PER_STATE  # the most memory a new state took in a round

    def states_fitting(self, states: int) -> int:
        """New states the next round may number, the build holding `states` now: the memory
        left, less what the largest round so far added (twice: the writer thread still holds
        the last batch), over three times the most a new state has cost (rounds differ: one of
        wide states costs more a state). A round numbers no more, so one large round cannot
        overshoot what the rounds before it predicted.

        Examples
        --------
        >>> MemoryBudget(2**40).states_fitting(0) > 10**6
        True
        """
        used = resident_bytes()
        if self.last_resident is not None:
            growth = used - self.last_resident
            self.round_growth = max(self.round_growth, growth)
            new = states - self.last_states
            if new >= MIN_ROUND_STATES:
                self.state_cost = max(self.state_cost, growth // new)
        self.last_resident, self.last_states = used, states
        left = self.memory - used - 2 * self.round_growth
        return max(0, left // (3 * self.state_cost))


@dataclass
class KeyIndexPlan:
    """When a build drops the unique key index and creates it again.

    `defer_at` is the build option (None keeps the index throughout); `stored_before` the
    states of every game stored when the build started.
    """

    defer_at: int | None
    stored_before: int = 0
    dropped: bool = False

    def drop_now(self, states_new: int) -> bool:
        """Whether the batch being made, the build having `states_new` new states, is the one
        to drop the index before it writes (once only).

        Examples
        --------
        >>> plan = KeyIndexPlan(100, stored_before=500)
        >>> plan.drop_now(200), plan.drop_now(600), plan.drop_now(700)
        (False, True, False)
        """
        if self.dropped or self.defer_at is None:
            return False
        self.dropped = states_new >= max(self.defer_at, self.stored_before)
        return self.dropped

    def overlap_now(self, states: int, last: bool) -> bool:
        """Whether to create the index while the `last` batch's values are found: when it was
        dropped and the build holds `OVERLAP_INDEX_AT` `states` or more."""
        return self.dropped and last and states >= OVERLAP_INDEX_AT


# -- in tiers or in one process ------------------------------------------------------------
def tiered_spec(game: Game[Any]) -> str | None:
    """The spec a worker loads `game` by, or None when a worker cannot (a game made in a
    notebook, say, or one whose spec loads another game).

    Examples
    --------
    >>> from explorer import game
    >>> from explorer.games import load_game
    >>> tiered_spec(load_game("subtraction:1,2")), tiered_spec(game(lambda n: [n - 1] if n else []))
    ('subtraction:1,2', None)
    """
    from explorer.games import load_game

    try:
        loaded = load_game(game.spec)
    except Exception:
        return None
    return game.spec if loaded == game and type(loaded) is type(game) else None


@dataclass(frozen=True)
class BuildPlan:
    """A build checked before its database is opened (`explorer.build.run.plan_build`), which
    `explorer.build.run.run_plan` runs without checking it again.

    Attributes
    ----------
    game, root
        The game and the position built from.
    options : BuildOptions
        How to build.
    convention : Convention
        Normal or misère play.
    cluster : bool
        Its tasks run on a cluster (`explorer.build.cluster`), which runs the tasks of a build
        in tiers only: it goes in tiers, however many workers are counted, or is refused.
    may_tier : bool
        Whether it may go in tiers, as far as is known before its database is read
        (`may_go_in_tiers`): the memory budget was checked at a build in tiers' bytes a state.
    """

    game: Game[Any]
    root: Position
    options: BuildOptions
    convention: Convention
    cluster: bool = False
    may_tier: bool = False


def tiers_apply(engine: Engine, plan: BuildPlan) -> bool:
    """Whether a build goes in tiers: when it may (`BuildPlan.may_tier`), and either nothing of
    the game is stored or an unfinished build in tiers is to continue (a build reusing states
    stored by another build, or with a solved root, runs in one process)."""
    if not plan.may_tier:
        return False
    game = plan.game
    with reading(engine) as conn:
        game_id = find_game(conn, GameSpec.parse(game.spec).canonical(), plan.convention)
        if game_id is None:
            return True
        tiers = conn.execute(tiers_table.ANY, {"g": game_id}).first()
        if tiers is None:
            return conn.execute(states_table.FIRST_KEY, {"g": game_id}).first() is None
        root_row = conn.execute(
            states_table.BY_KEY, {"g": game_id, "k": game.format(plan.root)}
        ).first()
    # an unfinished build in tiers: its root is stored once solved (on PostgreSQL, unsolved)
    return root_row is None or root_row.grundy is None


def may_go_in_tiers(
    game: Game[Any], root: Position, options: BuildOptions, *, cluster: bool = False
) -> bool:
    """Whether a build may go in tiers, as far as is known before its database is read: more
    than one worker asked (or one, with `BuildOptions.in_tiers`) or a `cluster` to run on, a
    game with tiers whose play cannot loop, no --max-states, and a game a worker can load by
    its spec (`tiers_apply` also reads what is stored).

    Examples
    --------
    >>> from explorer.games import load_game
    >>> from explorer.build.options import BuildOptions
    >>> nim = load_game("nim")
    >>> may_go_in_tiers(nim, (3, 4), BuildOptions(workers=2))
    True
    >>> may_go_in_tiers(nim, (3, 4), BuildOptions(workers=1))
    False
    >>> may_go_in_tiers(nim, (3, 4), BuildOptions(workers=1), cluster=True)
    True
    >>> may_go_in_tiers(nim, (3, 4), BuildOptions(workers=1, in_tiers=True))
    True
    """
    if options.workers <= 1 and not cluster and not options.in_tiers:
        return False
    if options.max_states is not None or game.may_cycle():
        return False
    return game.tier(root) is not None and tiered_spec(game) is not None
