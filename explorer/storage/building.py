"""Building game graphs into a database: batch by batch, resumable, reusing stored states.

A build expands states in increasing id order (ids are numbered by us, in discovery order),
writes each batch's new states, edges and values in one transaction, and solves a state as
soon as all of its successors have values, from compact numpy arrays rather than a NetworkX
graph. Because expansion order depends only on what is stored, a build killed at any moment
and run again ends with exactly the rows an uninterrupted build writes.

A misère build (``misere=True``) is the same build of the game's misère twin (a game row of
its own, see `explorer.storage.records`): only the value of a state without moves differs
(G⁻ = 1, an N-position), so its states hold G⁻, misère outcomes and misère remoteness.
"""

from __future__ import annotations

import heapq
import os
import resource
import sys
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from itertools import repeat
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer import __version__
from explorer.errors import GraphTooLargeError, SpecError
from explorer.games import load_game, may_cycle
from explorer.games.base import Game, Position
from explorer.generation.expansion import PositionIndex, position_index
from explorer.generation.sorted_runs import Run, find_sorted, merged, push_run
from explorer.solver import outcome
from explorer.solver.arrays import (
    MISERE_TERMINAL,
    NORMAL_TERMINAL,
    Adjacency,
    Values,
    in_levels,
    ranges,
)
from explorer.solver.misere import MISERE, NORMAL, Convention
from explorer.storage.bulk import (
    STREAM,
    EdgePayload,
    Row,
    ValueColumns,
    read_int_columns,
    value_columns,
    writer_class,
    writer_for,
)
from explorer.storage.counts import (
    add_counts,
    histogram,
    recount,
    solved_counts,
    stored_states,
)
from explorer.storage.engine import reading, writing
from explorer.storage.loopy import UPDATE_VALUES, LoopyValue, label_arrays, value_params
from explorer.storage.records import (
    BuildCounts,
    canonical_spec,
    drop_key_index,
    ensure_key_index,
    find_game,
    insert_build,
    interrupt_running,
    refuse_running,
    shown_spec,
    stored_game,
    update_build,
)

#: States expanded per transaction: large enough for bulk rates, small enough to lose little.
BATCH_STATES = 50_000
#: Moves generated per transaction at most (beyond the moves of one state, kept together): a
#: batch of wide states (Nim on three heaps of 1,000 has 3,000 moves a state) stays small.
BATCH_MOVES = 250_000
#: A build stops cleanly (as at --max-states) before the process uses more memory than this.
DEFAULT_MEMORY_BYTES = 4 * 2**30
#: The fewest bytes a build holds per state (about ten numbers in its arrays, a move, the
#: position index): a position with more states than the memory budget holds at this rate
#: cannot be built whole, and is refused at once unless --max-states asks for a part.
MIN_BYTES_PER_STATE = 256
#: SQLite's page cache for a build's writes, in KiB: it grows with the states stored (it
#: serves mostly the unique key index, about 30 bytes a state) from the least to the most,
#: and takes an eighth of the memory budget at most. A 1M-state build is no slower with
#: 16 MiB than with 256 MiB (0.93 of the CPU time, whole-process) and holds 220 MiB less.
SQLITE_CACHE_KIB = (16_384, 262_144)
CACHE_BYTES_PER_STATE = 16

#: A build drops the unique key index (`explorer.storage.records.drop_key_index`) once it has
#: written this many new states, and at least as many as the database held when it started (so
#: that creating the index again at its end costs less than what dropping it saved); it creates
#: the index again when it ends. 1,004,731 states written: 3.0 s without the index plus 0.5 s
#: to create it, against 5.5 s into it.
DEFER_KEY_INDEX_AT = 100_000

#: A build of at least this many states creates the key index while it solves its last batch
#: (see `GraphBuilder._run`): in a smaller one that saves under a second, and costs 20 MB.
OVERLAP_INDEX_AT = 4_000_000

#: A build stops for its memory budget when fewer new states than this fit in it.
MIN_ROUND_STATES = 1024

UNKNOWN = -1
#: States and moves a build holds at most: ids, counts and values are kept in 32-bit arrays
#: (half the memory of 64-bit ones), edge offsets in 64-bit ones. Far beyond any memory budget
#: (at 256 bytes a state, 2**31 states take 512 GiB), but checked all the same.
ID_LIMIT = 2**31 - 1
#: No state ids.
NO_IDS = np.empty(0, dtype=np.int64)
NO_IDS.flags.writeable = False
#: The game id read with before a new game is stored: no rows have it.
NOT_STORED = -1


@dataclass(frozen=True)
class BuildProgress:
    """Where a running build is, reported after every committed batch."""

    states_new: int
    edges_new: int
    values_computed: int
    frontier: int
    seconds: float


@dataclass(frozen=True)
class BuildReport:
    """What a build did (see `to_dict` for the JSON form).

    ``status`` is ``complete`` when every state reachable from the position is stored and
    solved, ``stopped`` when ``max_states`` or the memory budget cut it short (``stopped_by``
    says which; building again continues).
    ``convention`` is ``misere`` for a misère build, whose ``grundy`` is G⁻ (zero exactly on
    misère P-positions) and whose outcome and remoteness are misère play's. In a game whose
    play may loop, a root of value ∞(K) has ``grundy`` None, ``infinite`` True and ``escapes``
    K; its outcome is N or D (a draw, with remoteness None).
    """

    game: str
    position: str
    build_id: int
    status: str
    states_new: int
    states_reused: int
    edges_new: int
    values_computed: int
    frontier: int
    states_stored: int
    grundy: int | None
    outcome: str | None
    remoteness: int | None
    seconds: float
    convention: Convention = NORMAL
    stopped_by: str | None = None
    infinite: bool = False
    escapes: list[int] | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def __repr__(self) -> str:
        """One line: what was stored and the start's value."""
        value = "∞" if self.infinite else ("-" if self.grundy is None else self.grundy)
        return (
            f"<BuildReport {self.game} at {self.position}: {self.status}, "
            f"{self.states_stored:,} states stored ({self.states_new:,} new), G = {value}, "
            f"{self.outcome}, {self.seconds:.2f} s>"
        )

    def _repr_html_(self) -> str:
        # the notebook's table lives with every other view (imported only when shown)
        from explorer.viz.notebook import build_view

        return build_view(self)


class _Frontier:
    """States waiting to be expanded, always taken smallest id first.

    New states get ids above every stored one, so they queue in order; stored states reached
    again (from an earlier, unfinished build) and states put back go into a small heap.
    """

    def __init__(self) -> None:
        self.fresh: deque[int] = deque()
        self.stored: list[int] = []

    def __len__(self) -> int:
        return len(self.fresh) + len(self.stored)

    def push_stored(self, ids: np.ndarray) -> None:
        for i in ids.tolist():
            heapq.heappush(self.stored, i)

    def pop_many(self, most: int) -> np.ndarray:
        """Up to `most` states, smallest ids first."""
        fresh, stored = self.fresh, self.stored
        if not stored:
            taken = [fresh.popleft() for _ in range(min(most, len(fresh)))]
        else:
            taken = []
            while len(taken) < most and (fresh or stored):
                if stored and (not fresh or stored[0] < fresh[0]):
                    taken.append(heapq.heappop(stored))
                else:
                    taken.append(fresh.popleft())
        return np.array(taken, dtype=np.int64)


class _Growable:
    """A numpy array with amortised appends and id-indexed growth."""

    def __init__(self, dtype: type, fill: int) -> None:
        self.data: np.ndarray = np.full(1024, fill, dtype=dtype)
        self.fill = fill
        self.size = 0

    def reserve(self, size: int) -> None:
        if size > len(self.data):
            grown = np.full(max(size, 2 * len(self.data)), self.fill, dtype=self.data.dtype)
            grown[: len(self.data)] = self.data
            self.data = grown
        self.size = max(self.size, size)

    def extend(self, values: np.ndarray) -> None:
        start = self.size
        self.reserve(start + len(values))
        self.data[start : start + len(values)] = values


def _counts_of(src: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """How many times each of `ids` occurs in `src` (whose values are all among `ids`),
    counted over the range of `ids`, not over every state id."""
    if not ids.size or not src.size:
        return np.zeros(len(ids), dtype=np.int64)
    lo = int(ids.min())
    return np.bincount(src - lo, minlength=int(ids.max()) - lo + 1)[ids - lo]


def _with_nulls(values: np.ndarray, missing: np.ndarray) -> list[object]:
    """``values`` as Python objects, None where ``missing``."""
    column = values.astype(object)
    column[missing] = None
    return column.tolist()  # type: ignore[no-any-return]


@dataclass
class _Batch:
    """One batch's rows, built on the main thread and written by the writer thread."""

    new_rows: list[Row]
    edges: EdgePayload
    runs: list[tuple[int, int]]
    values: ValueColumns
    counts: BuildCounts
    progress: BuildProgress
    #: What the batch adds to the game's counts (see `explorer.storage.counts`).
    tallies: list[tuple[str, str, int]]
    #: Drop the key index before writing (the first batch past `DEFER_KEY_INDEX_AT`).
    drop_key_index: bool = False
    #: Create it again after writing (the last batch of a build of `OVERLAP_INDEX_AT` states
    #: or more that dropped it).
    create_key_index: bool = False


class _Waiting:
    """Edges p -> q whose end q has no value yet, found by q: who to tell when q is solved.

    Kept as runs sorted by q, one per batch. Up to `MERGE_ALL_EDGES` edges, all the runs are
    merged into one when there are more than `MAX_BLOCKS`; beyond, sorting every waiting edge
    again every few batches costs time that grows with the square of the edges (a 10M-state
    build, whose 60M edges all wait until its last batch, took 142 s in process so, 114 s
    merging as below with the last batch's key index overlapped), so runs merge like a binary
    counter instead (`explorer.generation.sorted_runs.push_run`). Below that, merging all at once
    is cheap and holds less memory: a 1M-state build merged like a binary counter peaked
    120 MB higher (memory freed by the many merges stayed with the process). A merge drops the
    edges whose end was solved meanwhile.
    """

    MAX_BLOCKS = 12
    MERGE_ALL_EDGES = 16_000_000

    def __init__(self) -> None:
        self.blocks: list[Run] = []

    def add(self, dst: np.ndarray, src: np.ndarray, grundy: np.ndarray) -> None:
        """Add the edges src[i] -> dst[i]; `grundy` (by id) tells which ends are solved now."""
        if not dst.size:
            return
        order = np.argsort(dst, kind="stable")
        run = (dst[order].astype(np.int32), src[order].astype(np.int32))
        waiting = sum(len(block[0]) for block in self.blocks) + len(dst)

        def unsolved(ends: np.ndarray) -> np.ndarray:
            kept: np.ndarray = grundy[ends] == UNKNOWN
            return kept

        if waiting > self.MERGE_ALL_EDGES:
            push_run(self.blocks, run, unsolved)
            return
        self.blocks.append(run)
        if len(self.blocks) > self.MAX_BLOCKS:
            self.blocks = [merged(self.blocks, unsolved)]

    def sources(self, solved_now: np.ndarray) -> np.ndarray:
        """The p of every waiting edge p -> q with q in `solved_now` (sorted ids)."""
        found = []
        for dst, src in self.blocks:
            lo = np.searchsorted(dst, solved_now, "left")
            hi = np.searchsorted(dst, solved_now, "right")
            found.append(src[ranges(lo, hi - lo)])
        return np.concatenate(found) if found else np.empty(0, dtype=np.int64)


def resident_bytes() -> int:
    """The memory this process uses now (its resident set), in bytes."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # no /proc: the peak, as the kernel counts it
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


class GraphBuilder:
    """One build of a position of a game into a database (see `build_position`)."""

    def __init__(
        self,
        engine: Engine,
        game: Game[Any],
        root: Position,
        *,
        max_states: int | None = None,
        batch_states: int = BATCH_STATES,
        memory: int | None = DEFAULT_MEMORY_BYTES,
        progress: Callable[[BuildProgress], None] | None = None,
        misere: bool = False,
        defer_key_index_at: int | None = DEFER_KEY_INDEX_AT,
    ) -> None:
        self.engine = engine
        self.defer_key_index_at = defer_key_index_at
        self.key_index_dropped = False
        self.stored_before = 0  # states of every game stored when the build started
        self.memory = memory
        self.last_resident: int | None = None
        self.round_growth = 0  # the most the resident memory grew in one round
        self.last_next_id = 0
        self.state_cost = MIN_BYTES_PER_STATE  # the most memory a new state took in a round
        # the widest state of the last round sizes the next one (the first takes 16 states)
        self.moves_per_state = BATCH_MOVES // 16
        self.game = game
        self.convention: Convention = MISERE if misere else NORMAL
        self.terminal = MISERE_TERMINAL if misere else NORMAL_TERMINAL
        self.root = root
        self.root_key = game.format(root)
        self.max_states = max_states
        self.batch_states = batch_states
        self.progress = progress
        # per-state arrays, indexed by state id: 32-bit but for the edge offsets (see ID_LIMIT)
        self.present = _Growable(np.bool_, 0)
        self.depth = _Growable(np.int32, 0)
        self.expanded = _Growable(np.bool_, 0)
        self.grundy = _Growable(np.int32, UNKNOWN)
        self.remote = _Growable(np.int32, UNKNOWN)
        self.height = _Growable(np.int32, UNKNOWN)
        self.pending = _Growable(np.int32, 0)
        self.reached = _Growable(np.bool_, 0)
        self.out_start = _Growable(np.int64, 0)
        self.out_count = _Growable(np.int32, 0)
        self.edge_dst = _Growable(np.int32, 0)
        self.states: Any = PositionIndex(game)  # replaced by the best index in _load
        self.waiting = _Waiting()
        self.frontier = _Frontier()
        self.first_new = 0  # ids below this were stored before the build started
        self.next_id = 0
        self.edges_new = self.values_computed = 0
        self.started = time.perf_counter()

    # -- arrays ---------------------------------------------------------------------------
    def _reserve(self, size: int) -> None:
        if size <= len(self.present.data):
            return
        if size > ID_LIMIT:
            raise GraphTooLargeError(
                f"the build holds more than {ID_LIMIT:,} states, the most one build can: build "
                "part of it with --max-states N",
                ID_LIMIT,
            )
        size = max(size, 2 * len(self.present.data))
        for array in (
            self.present,
            self.depth,
            self.expanded,
            self.grundy,
            self.remote,
            self.height,
            self.pending,
            self.reached,
            self.out_start,
            self.out_count,
        ):
            array.reserve(size)

    # -- setup ----------------------------------------------------------------------------
    def _start(self) -> None:
        """Record the game and the build; mark builds killed earlier as interrupted."""
        with writing(self.engine) as conn:
            game_id = stored_game(conn, self.game, self.convention)
            interrupt_running(conn, game_id, self.game.spec)
            rule = (
                "misère G⁻: 1 without a move, else the mex over stored successors"
                if self.convention == MISERE
                else "mex over stored successors"
            )
            self.build_id = insert_build(
                conn,
                game_id=game_id,
                kind="build",
                root=self.root_key,
                max_states=self.max_states,
                method=f"{rule} (explorer {__version__})",
            )
        self.game_id = game_id

    def _stored_root(self, conn: sa.Connection) -> tuple[int | None, bool]:
        """The root's id if it is stored, and whether it has a value."""
        row = conn.execute(
            sa.text(
                "SELECT id, grundy IS NOT NULL FROM states WHERE game_id = :game AND key = :key"
            ),
            {"game": self.game_id, "key": self.root_key},
        ).first()
        return (None, False) if row is None else (int(row[0]), bool(row[1]))

    def _load(self, conn: sa.Connection, positions: bool) -> None:
        """Load the game's stored states and edges into the arrays, and their positions into
        the position index when the build may expand states (reading and parsing every key
        is most of the time a load takes)."""
        ids, depth, expanded, grundy, remote, height = read_int_columns(
            conn,
            "SELECT id, depth, CASE WHEN expanded THEN 1 ELSE 0 END, grundy, remoteness, "
            "height FROM states WHERE game_id = :game ORDER BY id",
            {"game": self.game_id},
            6,
        )
        if positions:
            self._load_positions(conn, ids)
        if ids.size == 0:
            return
        src, dst = read_int_columns(
            conn,
            "SELECT src, dst FROM edges WHERE game_id = :game ORDER BY src, dst",
            {"game": self.game_id},
            2,
        )
        size = int(ids[-1]) + 1
        self._reserve(size)
        self.present.data[ids] = True
        self.depth.data[ids] = depth
        self.expanded.data[ids] = expanded.astype(bool)
        self.grundy.data[ids] = grundy
        self.remote.data[ids] = remote
        self.height.data[ids] = height
        self.first_new = self.next_id = size
        succ = Adjacency.from_edges(size, src, dst)
        self.edge_dst.extend(succ.target)
        self.out_start.data[:size] = succ.start
        self.out_count.data[:size] = succ.degree
        # states expanded but unsolved wait for their unsolved successors
        unsolved = self.grundy.data[:size] == UNKNOWN
        waits = unsolved[src] & unsolved[dst]
        self.pending.data[:size] = np.bincount(src[waits], minlength=size)
        self.waiting.add(dst[waits], src[waits], self.grundy.data)

    def _load_positions(self, conn: sa.Connection, ids: np.ndarray) -> None:
        parse = self.game.parse
        rows = conn.execute(
            sa.text("SELECT key FROM states WHERE game_id = :game ORDER BY id"),
            {"game": self.game_id},
            execution_options=STREAM,
        )
        parsed = [parse(key) for (key,) in rows]
        self.states = position_index(self.game, ids.tolist(), parsed, self.root, self.memory)

    def _reach(self, states: list[int]) -> None:
        """Mark stored states and everything stored below them as reached by this build.

        Unexpanded ones join the frontier; this is how a build reuses stored work.
        """
        level = np.array([s for s in states if not self.reached.data[s]], dtype=np.int64)
        while level.size:
            self.reached.data[level] = True
            waiting = level[~self.expanded.data[level]]
            self.frontier.push_stored(waiting[waiting < self.first_new])
            inner = level[self.expanded.data[level]]
            below = self.edge_dst.data[
                ranges(self.out_start.data[inner], self.out_count.data[inner])
            ]
            below = np.unique(below)
            level = below[~self.reached.data[below]]

    # -- solving --------------------------------------------------------------------------
    def _solve(self, ready: np.ndarray) -> list[np.ndarray]:
        """Give values to `ready` states (all successors solved), then to whatever that frees."""
        values = Values(self.grundy.data, self.remote.data, self.height.data)
        succ = Adjacency(self.out_start.data, self.out_count.data, self.edge_dst.data)
        solved = []
        for level in in_levels(ready, self.pending.data, self.waiting.sources):
            values.solve(level, succ, terminal=self.terminal)
            solved.append(level)
        self.values_computed += sum(len(s) for s in solved)
        return solved

    def _states_within_budget(self) -> int:
        """How many new states the next round may number and stay within the memory budget:
        the memory left, less what the largest round so far added (twice: the writer thread
        still holds the last batch), over three times the most a new state has cost (rounds
        differ: one of wide states costs more a state). A round numbers no more, so one large
        round cannot overshoot what the rounds before it predicted."""
        used = resident_bytes()
        if self.last_resident is not None:
            growth = used - self.last_resident
            self.round_growth = max(self.round_growth, growth)
            new = self.next_id - self.last_next_id
            if new >= MIN_ROUND_STATES:
                self.state_cost = max(self.state_cost, growth // new)
        self.last_resident, self.last_next_id = used, self.next_id
        assert self.memory is not None
        left = self.memory - used - 2 * self.round_growth
        return max(0, left // (3 * self.state_cost))

    # -- one batch ------------------------------------------------------------------------
    def _expand_batch(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, str | None]:
        """Expand up to a batch of frontier states, smallest ids first, in rounds.

        A batch ends at `batch_states` states or `BATCH_MOVES` moves; a round takes as many
        states as the widest state of the last round allows. Returns the states expanded, their
        edges, and what stopped the build, if anything: ``"max-states"`` or ``"memory"``.
        """
        expanded: list[np.ndarray] = []
        src: list[np.ndarray] = []
        dst: list[np.ndarray] = []
        count = moves = 0
        stopped = None
        while self.frontier and count < self.batch_states and moves < BATCH_MOVES:
            budget = None
            if self.max_states is not None:
                budget = self.max_states - self.states_new
                if budget <= 0:
                    stopped = "max-states"
                    break
            if self.memory is not None:
                fits = self._states_within_budget()
                if fits < MIN_ROUND_STATES:
                    stopped = "memory"
                    break
                budget = fits if budget is None else min(budget, fits)
            room = max(1, (BATCH_MOVES - moves) // self.moves_per_state)
            parents = self.frontier.pop_many(min(self.batch_states - count, room))
            before = self.next_id
            step = self.states.expand(parents, budget, self.first_new, self.reached.data)
            if step.done < len(parents):
                self.frontier.push_stored(parents[step.done :])
            self.next_id = self.states.next_id
            if self.next_id > before:
                self._reserve(self.next_id)
                self.present.data[before : self.next_id] = True
                self.reached.data[before : self.next_id] = True
                # a new state's depth is one more than that of the state that found it
                found = step.dst >= before
                new, first = np.unique(step.dst[found], return_index=True)
                self.depth.data[new] = self.depth.data[step.src[found][first]] + 1
                self.frontier.fresh.extend(range(before, self.next_id))
            if self.first_new:
                old = step.dst[step.dst < self.first_new]
                self._reach(np.unique(old[~self.reached.data[old]]).tolist())
            expanded.append(parents[: step.done])
            src.append(step.src)
            dst.append(step.dst)
            count += step.done
            moves += len(step.src)
            if len(step.src):
                self.moves_per_state = int(np.unique(step.src, return_counts=True)[1].max())

        def joined(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)

        return joined(expanded), joined(src), joined(dst), stopped

    def _counts(self) -> BuildCounts:
        """The build row's counters as they stand now."""
        return BuildCounts(
            states_new=self.states_new,
            states_reused=self.states_reused,
            edges_new=self.edges_new,
            values_computed=self.values_computed,
        )

    def _rows(
        self,
        first_id: int,
        expanded: np.ndarray,
        src: np.ndarray,
        dst: np.ndarray,
        solved: np.ndarray,
    ) -> _Batch:
        """Everything one batch writes, taken from the arrays as they stand now.

        Rows are built column by column from numpy (as Python ints, strings and None), not
        state by state.
        """
        build, game_id = self.build_id, self.game_id
        grundy, remote, height = self.grundy.data, self.remote.data, self.height.data
        new = slice(first_id, self.next_id)
        g = grundy[new]
        unsolved = g == UNKNOWN
        # plain tuples in `StateRow` order (see `explorer.storage.bulk.Row`)
        new_rows: list[Row] = list(
            zip(
                repeat(game_id),
                range(first_id, self.next_id),
                self.states.keys(range(first_id, self.next_id)),
                self.depth.data[new].tolist(),
                (self.expanded.data[new] | ~unsolved).tolist(),
                _with_nulls(g, unsolved),
                _with_nulls(outcome(g), unsolved),
                _with_nulls(remote[new], unsolved),
                _with_nulls(height[new], unsolved),
                repeat(build),
                _with_nulls(np.full(len(g), build, dtype=np.int64), unsolved),
                strict=False,
            )
        )
        # in id order: SQLite updates rows in key order three times faster than at random
        old_solved = np.sort(solved[solved < first_id])
        values = value_columns(old_solved, grundy, remote, height, build_id=build, game_id=game_id)
        # stored states expanded now and not solved now: flag them by runs of ids
        flag = np.unique(expanded[expanded < first_id])
        flag = flag[~find_sorted(old_solved, flag)[1]]
        runs = []
        if flag.size:
            breaks = np.flatnonzero(np.diff(flag) != 1)
            firsts = np.concatenate([[flag[0]], flag[breaks + 1]])
            lasts = np.concatenate([flag[breaks], [flag[-1]]])
            runs = list(zip(firsts.tolist(), lasts.tolist(), strict=True))
        progress = BuildProgress(
            self.states_new, self.edges_new, self.values_computed, len(self.frontier), 0.0
        )
        edges = writer_class(self.engine.dialect.name).edge_payload(src, dst)
        # every state expanded now was not before; a state is solved once, never changed
        tallies = [
            ("states", "", self.next_id - first_id),
            ("expanded", "", len(expanded)),
            ("edges", "", len(src)),
            *histogram("depth", self.depth.data[new]),
            *solved_counts(grundy[solved], remote[solved], height[solved]),
        ]
        drop = self._key_index_deferred_now()
        return _Batch(new_rows, edges, runs, values, self._counts(), progress, tallies, drop)

    def _key_index_deferred_now(self) -> bool:
        """Whether the batch being made is the one to drop the key index before it writes."""
        at = self.defer_key_index_at
        if self.key_index_dropped or at is None:
            return False
        self.key_index_dropped = self.states_new >= max(at, self.stored_before)
        return self.key_index_dropped

    def _cache_kib(self) -> int:
        """SQLite's page cache for the next write (see `SQLITE_CACHE_KIB`)."""
        least, most = SQLITE_CACHE_KIB
        if self.memory is not None:
            most = min(most, self.memory // 8 // 1024)
        return min(most, max(least, self.next_id * CACHE_BYTES_PER_STATE // 1024))

    def _commit(self, batch: _Batch) -> None:
        """Write one batch in one transaction: new states, edges, expanded flags and values.

        Runs on the writer thread while the next batch is generated; the drivers leave the
        GIL while the database works.
        """
        with writing(self.engine) as conn:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql(f"PRAGMA cache_size = -{self._cache_kib()}")
            if batch.drop_key_index:
                drop_key_index(conn)
            writer = writer_for(conn)
            writer.insert_states(batch.new_rows)
            writer.write_edges(self.game_id, batch.edges)
            writer.mark_expanded(self.game_id, batch.runs)
            writer.update_values(batch.values)
            add_counts(conn, self.game_id, batch.tallies)
            update_build(conn, self.build_id, "running", batch.counts)
        if batch.create_key_index:
            with writing(self.engine) as conn:
                ensure_key_index(conn)

    def _submit(
        self,
        writer: ThreadPoolExecutor,
        committing: tuple[Future[None], _Batch] | None,
        batch: _Batch,
    ) -> tuple[Future[None], _Batch]:
        """Hand a batch to the writer thread once the one it is writing has committed."""
        if committing is not None:
            self._committed(committing)
        return writer.submit(self._commit, batch), batch

    def _committed(self, pending: tuple[Future[None], _Batch]) -> None:
        """Wait for a batch's commit (its error is raised here), then report progress."""
        future, batch = pending
        future.result()
        if self.progress is not None:
            self.progress(replace(batch.progress, seconds=time.perf_counter() - self.started))

    @property
    def states_new(self) -> int:
        return self.next_id - self.first_new

    @property
    def states_reused(self) -> int:
        return int(self.reached.data[: self.first_new].sum())

    # -- the whole build ------------------------------------------------------------------
    def run(self) -> BuildReport:
        """Build, recording the build; a build stopped by an error is recorded ``failed``, one
        stopped by Ctrl-C ``interrupted`` (one killed outright stays ``running``, and is shown
        interrupted once its process is gone: see `explorer.storage.records.shown_status`)."""
        # Everything stored is read before anything is written, so a database that cannot be
        # read (a damaged page, a table missing) is left exactly as it was; and read in one
        # snapshot, so a build committing meanwhile is not half seen.
        self._refuse_too_large()
        with reading(self.engine) as conn:
            stored = find_game(conn, canonical_spec(self.game.spec), self.convention)
            self.game_id = NOT_STORED if stored is None else stored
            if stored is not None:
                refuse_running(conn, stored, self.game.spec)
            root, root_solved = self._stored_root(conn)
            self.stored_before = stored_states(conn)
            # below a solved state everything is stored and solved: nothing to expand
            self._load(conn, positions=not root_solved)
        self._start()
        try:
            return self._run(root, root_solved)
        except BaseException as error:
            self._stopped("interrupted" if isinstance(error, KeyboardInterrupt) else "failed")
            raise

    def _refuse_too_large(self) -> None:
        refuse_unbuildable(self.game, self.root, memory=self.memory, max_states=self.max_states)

    def _stopped(self, status: str) -> None:
        """Record why the build stopped, if the database still takes a write."""
        try:
            with writing(self.engine) as conn:
                if self.key_index_dropped:
                    ensure_key_index(conn)
                update_build(conn, self.build_id, status)
        except Exception:  # the error that stopped the build is the one to show
            pass

    def _run(self, root: int | None, root_solved: bool) -> BuildReport:
        first_id = self.next_id
        if root is None:
            root = self.states.add(self.root)
            self.next_id = self.states.next_id
            self._reserve(self.next_id)
            self.present.data[root] = self.reached.data[root] = True
            self.frontier.fresh.append(root)
        else:
            self._reach([root])
            if root_solved and self.frontier:  # only a damaged database gets here
                with self.engine.connect() as conn:
                    self._load_positions(conn, np.flatnonzero(self.present.data[: self.next_id]))
        # stored states left solvable (by an edit, say) are solved before anything else
        size = self.first_new
        leftover = np.flatnonzero(
            self.expanded.data[:size]
            & (self.grundy.data[:size] == UNKNOWN)
            & (self.pending.data[:size] == 0)
        )
        stopped: str | None = None
        pending_solved = self._solve(leftover) if leftover.size else []
        # One writer thread commits batch k while batch k + 1 is generated. Batch k + 1 is
        # submitted only once batch k has committed, so the database never holds a batch
        # whose predecessor failed, and progress reports committed batches only.
        with ThreadPoolExecutor(1, thread_name_prefix="explorer-writer") as writer:
            committing: tuple[Future[None], _Batch] | None = None
            while self.frontier or pending_solved or first_id < self.next_id:
                batch, src, dst, stopped = self._expand_batch()
                self._reserve(self.next_id)
                self.expanded.data[batch] = True
                # counted over the batch's range of ids, not every id: a pass over all
                # states per batch makes a build's time grow with the square of its size
                counts = _counts_of(src, batch)
                self.out_start.data[batch] = self.edge_dst.size + np.cumsum(counts) - counts
                self.out_count.data[batch] = counts
                self.edge_dst.extend(dst)
                open_end = self.grundy.data[dst] == UNKNOWN
                self.pending.data[batch] += _counts_of(src[open_end], batch).astype(np.int32)
                self.waiting.add(dst[open_end], src[open_end], self.grundy.data)
                ready = batch[self.pending.data[batch] == 0]
                self.edges_new += len(src)
                if (
                    self.key_index_dropped
                    and self.next_id >= OVERLAP_INDEX_AT
                    and not self.frontier
                    and not stopped
                ):
                    # The last batch: its states and moves are written, and the key index
                    # created, while its values are found (10M states: 10 s of each), and
                    # the values follow in a transaction of their own.
                    last = self._rows(first_id, batch, src, dst, NO_IDS)
                    last.create_key_index = True
                    committing = self._submit(writer, committing, last)
                    first_id = self.next_id
                    batch = src = dst = NO_IDS
                solved = self._solve(ready)
                all_solved = np.concatenate(pending_solved + solved or [NO_IDS])
                pending_solved = []
                rows = self._rows(first_id, batch, src, dst, all_solved)
                first_id = self.next_id
                committing = self._submit(writer, committing, rows)
                if stopped:
                    break
            if committing is not None:
                self._committed(committing)
        # every move is written: the memory that found values through them is let go before
        # the key index is sorted (at 1M states, 46 MB of the peak)
        self.waiting = _Waiting()
        self.edge_dst = _Growable(np.int32, 0)
        status = "stopped" if self.frontier else "complete"
        labelled: LoopyValue | None = None
        stopped_by = stopped if status == "stopped" else None
        with writing(self.engine) as conn:
            if self.key_index_dropped:
                ensure_key_index(conn)
            if status == "complete" and may_cycle(self.game):
                labelled = self._label_cycles(conn, root)
            update_build(conn, self.build_id, status, self._counts())
        if labelled is not None:
            return self._report(
                status,
                labelled.grundy,
                labelled.outcome,
                labelled.remoteness,
                labelled.escapes,
                stopped_by=stopped_by,
            )
        g = int(self.grundy.data[root])
        if g == UNKNOWN:
            return self._report(status, None, None, None, stopped_by=stopped_by)
        return self._report(
            status, g, outcome(g), int(self.remote.data[root]), stopped_by=stopped_by
        )

    def _label_cycles(self, conn: sa.Connection, root: int) -> LoopyValue:
        """Give every stored state of a game whose play may loop its generalized value γ.

        The level-by-level solve leaves the states on and above cycles without a value (a
        mex needs every follower's value first). Once every reachable state is stored, the
        game's stored moves are labelled whole (`explorer.solver.loopy`), as an imported
        ``graph:`` game is, and every state's γ, escapes, outcome and remoteness written in
        the transaction that marks the build complete.
        """
        ids, unsolved = read_int_columns(
            conn,
            "SELECT id, CASE WHEN grundy IS NULL AND escapes IS NULL THEN 1 ELSE 0 END "
            "FROM states WHERE game_id = :g ORDER BY id",
            {"g": self.game_id},
            2,
        )
        src, dst = read_int_columns(
            conn, "SELECT src, dst FROM edges WHERE game_id = :g", {"g": self.game_id}, 2
        )
        values = label_arrays(len(ids), np.searchsorted(ids, src), np.searchsorted(ids, dst))
        conn.execute(
            sa.text(UPDATE_VALUES),
            value_params(dict(zip(ids.tolist(), values, strict=True)), self.build_id, self.game_id),
        )
        recount(conn, self.game_id)  # values changed in place: the game is counted again
        self.values_computed += int(unsolved.sum())
        return values[int(np.searchsorted(ids, root))]

    def _report(
        self,
        status: str,
        grundy: int | None,
        outcome_word: str | None,
        remoteness: int | None,
        escapes: frozenset[int] | None = None,
        *,
        stopped_by: str | None = None,
    ) -> BuildReport:
        return BuildReport(
            game=shown_spec(canonical_spec(self.game.spec)),
            position=self.root_key,
            build_id=self.build_id,
            status=status,
            states_new=self.states_new,
            states_reused=self.states_reused,
            edges_new=self.edges_new,
            values_computed=self.values_computed,
            frontier=len(self.frontier),
            states_stored=int(self.present.data[: self.next_id].sum()),
            grundy=grundy,
            outcome=outcome_word,
            remoteness=remoteness,
            seconds=time.perf_counter() - self.started,
            convention=self.convention,
            infinite=escapes is not None,
            escapes=None if escapes is None else sorted(escapes),
            stopped_by=stopped_by,
        )


def refuse_unbuildable(
    game: Game[Any], root: Position, *, memory: int | None, max_states: int | None
) -> None:
    """Refuse at once, before anything is read or generated, a whole build that the memory
    budget cannot hold, when the game can count its states (`Game.count_states`).

    Raises
    ------
    GraphTooLargeError
        When the position has more states than `memory` bytes hold at `MIN_BYTES_PER_STATE`
        and `max_states` (a part of the graph) is not given.

    Examples
    --------
    >>> nim = load_game("nim")
    >>> refuse_unbuildable(nim, (100, 100, 100), memory=2**30, max_states=None)  # 176,851
    >>> try:
    ...     refuse_unbuildable(nim, (1000, 1000, 1000), memory=2**30, max_states=None)
    ... except GraphTooLargeError as error:
    ...     print(f"refused: more than {error.limit:,} states")
    refused: more than 4,194,304 states
    """
    if memory is None:
        return
    if may_cycle(game):
        _refuse_unlabellable(game, root, memory=memory, max_states=max_states)
    if max_states is not None:
        return
    capacity = memory // MIN_BYTES_PER_STATE
    counted = game.count_states(root, capacity)
    if counted is not None and counted > capacity:
        key = game.format(root)
        key = key if len(key) <= 60 else key[:50] + "..."
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
    key = game.format(root)
    key = key if len(key) <= 60 else key[:50] + "..."
    raise GraphTooLargeError(
        f"position {key!r} of {game.spec} reaches {counted:,} states or more, and a game whose "
        f"play may loop is labelled whole in memory at the end of its build: more than "
        f"--memory {memory // 2**20:,} MB holds ({capacity:,} states); build part of it with "
        "--max-states N, or raise --memory",
        capacity,
    )


def build_position(
    engine: Engine,
    spec: str,
    position: str,
    *,
    max_states: int | None = None,
    batch_states: int = BATCH_STATES,
    memory: int | None = DEFAULT_MEMORY_BYTES,
    progress: Callable[[BuildProgress], None] | None = None,
    misere: bool = False,
    defer_key_index_at: int | None = DEFER_KEY_INDEX_AT,
) -> BuildReport:
    """Build the game graph of a position into a database, reusing whatever is stored.

    `explorer.storage.Database.build` is the usual entry point; this one takes an engine made
    by `explorer.storage.engine.create_engine`.

    Parameters
    ----------
    engine : sqlalchemy.engine.Engine
        An open, migrated database.
    spec, position : str
        The game and the position, as on the command line.
    max_states : int, optional
        Stop once this many new states are stored (a state's moves are stored together).
    batch_states : int
        States expanded per transaction (fewer when states have many moves: a transaction
        takes about `BATCH_MOVES` moves at most).
    memory : int or None
        Stop cleanly, as at `max_states`, once the process uses this many bytes (resident);
        None for no budget.
    progress : callable, optional
        Called with a `BuildProgress` after every committed batch.
    misere : bool
        Build the misère game (the player who moves last loses), stored beside the normal-play
        one: states hold G⁻, misère outcomes and misère remoteness.
    defer_key_index_at : int or None
        Drop the unique key index once this many new states are written, and at least as
        many as the database held (the index is created again at the end: see
        `DEFER_KEY_INDEX_AT`); None keeps it throughout.

    Returns
    -------
    BuildReport

    Raises
    ------
    SpecError
        For a misère build of a game whose play may loop (``graph:``, ``windup:``): G⁻ needs
        play that ends (`explorer.analysis.misere.solve_misere` gives such a game's misère
        outcomes).

    Examples
    --------
    >>> from explorer.storage.engine import create_engine
    >>> engine = create_engine("sqlite://")
    >>> report = build_position(engine, "subtraction:1,2", "4,4")
    >>> report.status, report.states_new, report.grundy
    ('complete', 15, 0)
    >>> build_position(engine, "subtraction:1,2", "5,4").states_reused
    15
    >>> misere = build_position(engine, "subtraction:1,2", "4,4", misere=True)
    >>> misere.states_new, misere.grundy, misere.outcome, misere.convention
    (15, 1, 'N', 'misere')
    """
    game = load_game(spec)
    root = game.parse(position)
    if misere:
        refuse_misere_cycles(game)
    builder = GraphBuilder(
        engine,
        game,
        root,
        max_states=max_states,
        batch_states=batch_states,
        memory=memory,
        progress=progress,
        misere=misere,
        defer_key_index_at=defer_key_index_at,
    )
    return builder.run()


def refuse_misere_cycles(game: Game[Any]) -> None:
    """Refuse a misère build of a game whose play may loop: its misère values are outcomes
    with draws, not G⁻, and a build solves no cycle."""
    if may_cycle(game):
        raise SpecError(
            f"a misère build needs a game whose play always ends, and {game.spec} may loop "
            f"(explorer solve {game.spec!r} POSITION --misere gives its misère outcomes, "
            "draws included)"
        )
