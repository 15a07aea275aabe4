"""Building a game with tiers on several worker processes (``explorer build --workers N``).

A game whose `explorer.games.base.Game.tier` gives a number no move raises is built in two
sweeps over its tiers. Expansion goes from the highest tier down: once every higher tier is
expanded, a tier holds all its states, so its slices go to the workers at once
(`explorer.generation.tiers.expand_tier`, submitted to a `concurrent.futures.Executor`), and
the coordinator numbers the states they reach, keeps each state's depth (fewest moves from
the root) and writes its new states and the tier's moves (packed in the rows of both ends:
`explorer.storage.rows.moves`). Solving goes from the lowest tier up: every move of a tier
ends in a lower, solved one, so one call of the solver's kernel gives the whole tier its
values, written with the states' final depths.

The coordinator alone writes, and keeps only compact arrays indexed by state id (depth, values,
each tier's moves) and the keys of the tiers still to expand: no process holds every state's
key. SQLite takes one writer thread; PostgreSQL one a worker, each on a connection of its own,
committing in turn (`explorer.build.writer.BatchWriter`), so that the server's work on
the rows, most of a build's work there, is spread over its cores too. Workers hold one slice
at a time. Each tier done is recorded in the ``tiers`` table in the transaction that writes
it, so a build killed at any moment (the coordinator or a worker) and run again continues from
the tiers done, and stores exactly the states, moves, values and depths that a build in one
process stores (ids aside, which number states in another order).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine

from explorer.build.arrays import UNKNOWN, Growable
from explorer.build.options import BuildOptions, BuildReport, ended_status
from explorer.build.plans import KeyIndexPlan, resident_bytes, sqlite_cache_kib, tiered_spec
from explorer.build.scratch import KeptMoves, TierMoves, database_folder
from explorer.build.tier_resume import resume
from explorer.build.tier_worker import Pool, solve_tier
from explorer.build.writer import BatchWriter, BuildProgress, Turn
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.specs import GameSpec
from explorer.generation.tiers import (
    SLICE_STATES,
    TierTask,
)
from explorer.solver import outcome
from explorer.solver.arrays import MISERE_TERMINAL, NORMAL_TERMINAL
from explorer.storage.backends.bulk import NewStates, ValueColumns, writer_for
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.backends.engine import reading, writing
from explorer.storage.rows.counts import add_counts, histogram, solved_counts, stored_states
from explorer.storage.rows.moves import add_moves
from explorer.storage.rows.records import (
    BuildCounts,
    drop_key_index,
    ensure_key_index,
    find_game,
    insert_build,
    interrupt_running,
    refuse_running,
    stored_game,
    update_build,
)
from explorer.storage.tables import states as states_table
from explorer.storage.tables import tiers as tiers_table
from explorer.version import __version__

#: A depth no state has yet (the fewest moves from the root are found as tiers expand).
FAR = np.iinfo(np.int32).max
#: A tier is cut into slices of at least this many states (a task's overhead, pickling its
#: keys and starting it, is then small beside its work) ...
MIN_SLICE_STATES = 256
#: States a transaction writes at least (small tiers are written together).
COMMIT_STATES = 50_000


@dataclass
class Write:
    """One transaction of a build in tiers (`BatchWriter` writes it on its thread)."""

    progress: BuildProgress
    new: NewStates | None = None
    #: The moves, src[i] -> dst[i].
    edges: tuple[np.ndarray, np.ndarray] | None = None
    expanded: list[tuple[str, int, int, float]] = field(default_factory=list)
    values: ValueColumns | None = None
    depth: np.ndarray | None = None
    solved: list[tuple[str, float]] = field(default_factory=list)
    counts: BuildCounts | None = None
    last: bool = False
    #: Drop the unique key index before writing (see `KeyIndexPlan`).
    drop_key_index: bool = False
    #: What the rows add to the game's counts (see `explorer.storage.rows.counts`).
    tallies: list[tuple[str, str, int]] = field(default_factory=list)


class TieredBuilder:
    """One build in tiers of a position of a game (see the module's notes)."""

    def __init__(
        self,
        engine: Engine,
        game: Game[Any],
        root: Position,
        options: BuildOptions,
        executor: Executor | None = None,
        progress: Callable[[BuildProgress], None] | None = None,
        convention: Convention = NORMAL,
    ) -> None:
        self.engine, self.game, self.root, self.options = engine, game, root, options
        self.progress = progress
        self.workers = options.workers
        self.executor = executor
        self.spec = tiered_spec(game) or game.spec
        self.convention = convention
        self.terminal = MISERE_TERMINAL if self.convention == MISERE else NORMAL_TERMINAL
        self.dialect = dialect_of(engine)
        self.root_key = game.format(root)
        self.root_tier = game.tier(root)
        self.known: dict[str, int] = {}  # keys of the states of tiers still to expand
        self.waiting: dict[int, tuple[list[int], list[str]]] = {}
        # tiers expanded, not yet solved: in a file beside an SQLite database, on its disk
        folder = database_folder(engine.url.database) if self.dialect.scratch_beside else None
        self.moves = KeptMoves(folder)
        self.depth = Growable(np.int32, FAR)
        self.grundy = Growable(np.int32, UNKNOWN)
        self.remote = Growable(np.int32, UNKNOWN)
        self.height = Growable(np.int32, UNKNOWN)
        self.fresh: list[str] = []  # keys of the states numbered since the last write
        self.next_id = 0
        self.first_new = 0
        self.edges_new = self.values_computed = 0
        self.tiers_done = 0
        self.key_index = KeyIndexPlan(options.defer_key_index_at)
        self.stopped_by: str | None = None  # "memory" when the budget stopped the build
        self.started = time.perf_counter()

    # -- the whole build ------------------------------------------------------------------
    def run(self) -> BuildReport:
        with reading(self.engine) as conn:
            stored = find_game(conn, GameSpec.parse(self.game.spec).canonical(), self.convention)
            if stored is not None:
                refuse_running(conn, stored, self.game.spec)
                resume(self, conn, stored)
            self.key_index.stored_before = stored_states(conn)
        self._start()
        if not self.next_id:
            self._discover([self.root_key], [self.root_tier])  # type: ignore[list-item]
            self.depth.data[0] = 0
        pool = Pool(self.workers, self.executor)
        try:
            # PostgreSQL takes a transaction a worker at once (see `BatchWriter`)
            writers = self.dialect.writers(self.workers)
            with BatchWriter(self._commit, self.progress, self.started, writers) as writer:
                self._expand(pool, writer)
                # values are written into rows the expansion wrote: committed, so that every
                # writer's transaction sees them
                writer.finish()
                if self.stopped_by is None:
                    self._solve(writer)
                writer.finish()
            if self.stopped_by is not None:
                self._stopped("stopped", self._counts())
        except BaseException as error:
            self._stopped(ended_status(error))
            raise
        finally:
            pool.close()
            self.moves.close()
        return self._report()

    def _start(self) -> None:
        with writing(self.engine) as conn:
            self.game_id = stored_game(conn, self.game, self.convention)
            interrupt_running(conn, self.game_id, self.game.spec)
            rule = (
                "misère G⁻: 1 without a move, else the mex over stored successors"
                if self.convention == MISERE
                else "mex over stored successors"
            )
            self.build_id = insert_build(
                conn,
                game_id=self.game_id,
                kind="build",
                root=self.root_key,
                method=f"{rule}, in tiers on {self.workers} workers (explorer {__version__})",
                workers=self.workers,
            )

    def _stopped(self, status: str, counts: BuildCounts | None = None) -> None:
        try:
            with writing(self.engine) as conn:
                if self.key_index.dropped:
                    ensure_key_index(conn)
                update_build(conn, self.build_id, status, counts)
        except Exception:  # the error that stopped the build is the one to show
            pass

    # -- numbering ------------------------------------------------------------------------
    def _discover(self, keys: list[str], tiers: list[int]) -> np.ndarray:
        """The ids of states reached (`keys`, of `tiers`), numbering the new ones in order."""
        known = self.known
        before = self.next_id
        offset = before - len(known)
        # a new key gets the next id, from the dict's length as it grows (in C, by map)
        ids = np.fromiter(
            map(known.setdefault, keys, map(offset.__add__, map(len, repeat(known)))),
            dtype=np.int64,
            count=len(keys),
        )
        self.next_id = offset + len(known)
        if self.next_id > before:
            for array in (self.depth, self.grundy, self.remote, self.height):
                array.reserve(self.next_id)
            waiting, fresh = self.waiting, self.fresh
            for at in np.flatnonzero(ids >= before).tolist():
                fresh.append(keys[at])
                tier = tiers[at]
                if tier not in waiting:
                    waiting[tier] = ([], [])
                state_ids, state_keys = waiting[tier]
                state_ids.append(int(ids[at]))
                state_keys.append(keys[at])
        return ids

    # -- expansion, highest tier first ----------------------------------------------------
    def _expand(self, pool: Pool, writer: BatchWriter[Write]) -> None:
        pending = Write(self._progress())
        written_to = self.first_new  # states below this id have their rows written
        sources: list[np.ndarray] = []
        ends: list[np.ndarray] = []
        while self.waiting:
            tier = max(self.waiting)
            began = time.perf_counter()
            ids, keys = self.waiting.pop(tier)
            tasks = self._tasks(tier, keys)
            id_array = np.array(ids, dtype=np.int64)
            all_counts, all_targets = [], []
            at = 0
            for found in pool.run(tasks):
                size = len(found.counts)
                src_ids = id_array[at : at + size]
                at += size
                dst = self._discover(found.keys, found.tiers)[found.targets]
                counts = found.counts.astype(np.int64)
                src_depth = np.repeat(self.depth.data[src_ids] + 1, counts)
                np.minimum.at(self.depth.data, dst, src_depth.astype(np.int32))
                all_counts.append(found.counts)
                all_targets.append(dst.astype(np.int32))
            for key in keys:
                del self.known[key]
            counts = np.concatenate(all_counts) if all_counts else np.zeros(0, np.int32)
            targets = np.concatenate(all_targets) if all_targets else np.zeros(0, np.int32)
            seconds = time.perf_counter() - began
            self.moves[tier] = TierMoves(id_array.astype(np.int32), counts, targets, seconds)
            self.edges_new += len(targets)
            self.tiers_done += 1
            # the tier's moves and the states they found, written with the next tiers' in
            # transactions of `COMMIT_STATES` states or more
            sources.append(np.repeat(id_array, counts.astype(np.int64)))
            ends.append(targets)
            pending.expanded.append((str(tier), len(ids), len(targets), seconds))
            moves = sum(map(len, ends))
            if self.next_id - written_to + moves // 4 >= COMMIT_STATES or not self.waiting:
                pending.new = self._new_states(written_to, self.next_id)
                pending.tallies = [("edges", "", moves), ("states", "", len(pending.new))]
                pending.edges = (np.concatenate(sources), np.concatenate(ends))
                written_to, sources, ends = self.next_id, [], []
                pending.progress = self._progress()
                pending.counts = self._counts()
                pending.drop_key_index = self.key_index.drop_now(self.next_id - self.first_new)
                writer.submit(pending)
                if pending.drop_key_index:
                    # dropping the index waits for every open transaction on the states: the
                    # next one starts once this one commits
                    writer.finish()
                pending = Write(self._progress())
                memory = self.options.memory
                if memory is not None and self.waiting and resident_bytes() > memory:
                    # every tier expanded so far is being written: the same command goes on
                    self.stopped_by = "memory"
                    return

    def _tasks(self, tier: int, keys: list[str]) -> list[TierTask]:
        """The tier's keys in slices: at least one a worker when it has many states."""
        per = min(SLICE_STATES, max(MIN_SLICE_STATES, -(-len(keys) // self.workers)))
        return [
            TierTask(self.spec, tier, part, tuple(keys[first : first + per]))
            for part, first in enumerate(range(0, len(keys), per))
        ]

    def _fresh(self, first: int, end: int) -> list[str]:
        """The keys of the states numbered `first` to `end` - 1, the last ones numbered."""
        keys, self.fresh = self.fresh, []
        assert len(keys) == end - first, "a new state's key was lost"
        return keys

    def _new_states(self, first: int, end: int) -> NewStates:
        """The rows of the states numbered `first` to `end` - 1 (values unknown yet)."""
        ids = np.arange(first, end, dtype=np.int64)
        keys = self._fresh(first, end)
        nothing = np.full(end - first, UNKNOWN, dtype=np.int64)
        return NewStates(
            self.game_id,
            self.build_id,
            ids,
            keys,
            self.depth.data[first:end].copy(),
            np.zeros(end - first, dtype=bool),
            nothing,
            nothing,
            nothing,
        )

    # -- solving, lowest tier first -------------------------------------------------------
    def _solve(self, writer: BatchWriter[Write]) -> None:
        pending = Write(self._progress())
        solved: list[np.ndarray] = []
        last_written = False
        for tier in sorted(self.moves):
            began = time.perf_counter()
            moves = self.moves.pop(tier)
            solve_tier(moves, self.grundy, self.remote, self.height, self.terminal)
            self.values_computed += len(moves.ids)
            self.tiers_done += 1
            solved.append(moves.ids)
            pending.solved.append((str(tier), time.perf_counter() - began))
            if sum(map(len, solved)) >= COMMIT_STATES or not self.moves:
                pending.last = last_written = not self.moves
                self._values(pending, solved)
                writer.submit(pending)
                pending, solved = Write(self._progress()), []
        if not last_written:  # nothing left to solve: the build ends all the same
            pending.last = True
            self._values(pending, solved)
            writer.submit(pending)

    def _values(self, write: Write, solved: list[np.ndarray]) -> None:
        ids = np.sort(np.concatenate(solved)) if solved else np.zeros(0, dtype=np.int64)
        g, r, h = self.grundy.data[ids], self.remote.data[ids], self.height.data[ids]
        depth = self.depth.data[ids].copy()
        # a state's depth is final, and counted, once it is solved
        write.tallies = [("expanded", "", len(ids)), *histogram("depth", depth)]
        write.tallies += solved_counts(g, r, h)
        write.values = ValueColumns(ids, g, r, h, self.build_id, self.game_id)
        write.depth = depth
        write.progress = self._progress()
        write.counts = self._counts()

    # -- writing --------------------------------------------------------------------------
    def _commit(self, write: Write, turn: Turn) -> None:
        """Write one transaction (on a writer thread): the rows first, then, its turn come,
        what every transaction of the build updates (the game's counts, the build's row)."""
        game_id = self.game_id
        with writing(self.engine) as conn:
            cache_kib = sqlite_cache_kib(
                self.options.memory, self.next_id, key_index=not self.key_index.dropped
            )
            self.dialect.set_page_cache(conn, cache_kib)
            if write.drop_key_index:
                turn()  # no other transaction of the build is open
                drop_key_index(conn)
            writer = writer_for(conn)
            if write.new is not None and len(write.new):
                writer.insert_new_states(write.new)
            if write.values is not None and len(write.values):
                assert write.depth is not None
                writer.update_values(write.values, depth=write.depth)
            turn()
            if write.edges is not None:
                # after its turn: moves add to rows another transaction may add to as well
                add_moves(conn, game_id, *write.edges, expanded=True)
            if write.expanded:
                conn.execute(
                    tiers_table.EXPANDED,
                    [
                        {
                            "g": game_id,
                            "tier": tier,
                            "build": self.build_id,
                            "states": states,
                            "edges": edges,
                            "seconds": seconds,
                        }
                        for tier, states, edges, seconds in write.expanded
                    ],
                )
            if write.solved:
                conn.execute(
                    tiers_table.SOLVED,
                    [{"g": game_id, "tier": t, "seconds": s} for t, s in write.solved],
                )
            add_counts(conn, game_id, write.tallies)
            if write.last and self.key_index.dropped:
                ensure_key_index(conn)
            update_build(conn, self.build_id, "complete" if write.last else "running", write.counts)

    # -- reporting ------------------------------------------------------------------------
    def _counts(self) -> BuildCounts:
        return BuildCounts(
            states_new=self.next_id - self.first_new,
            states_reused=self.first_new,  # an unfinished build's states, continued
            edges_new=self.edges_new,
            values_computed=self.values_computed,
        )

    def _progress(self) -> BuildProgress:
        known = self.tiers_done + len(self.waiting) * 2 + len(self.moves)
        return BuildProgress(
            self.next_id - self.first_new,
            self.edges_new,
            self.values_computed,
            sum(len(ids) for ids, _ in self.waiting.values()),
            0.0,
            tiers_done=self.tiers_done,
            tiers_total=known,
            workers=self.workers,
        )

    def _report(self) -> BuildReport:
        g = int(self.grundy.data[0]) if self.next_id else UNKNOWN
        solved = g != UNKNOWN
        with reading(self.engine) as conn:
            stored = conn.execute(states_table.COUNT, {"g": self.game_id}).scalar_one()
        return BuildReport(
            game=GameSpec.parse(self.game.spec).reported(),
            position=self.root_key,
            build_id=self.build_id,
            status="complete" if self.stopped_by is None else "stopped",
            stopped_by=self.stopped_by,
            states_new=self.next_id - self.first_new,
            states_reused=self.first_new,  # an unfinished build's states, continued
            edges_new=self.edges_new,
            values_computed=self.values_computed,
            frontier=sum(len(ids) for ids, _ in self.waiting.values()),
            states_stored=int(stored),
            grundy=g if solved else None,
            outcome=outcome(g) if solved else None,
            remoteness=int(self.remote.data[0]) if solved else None,
            seconds=time.perf_counter() - self.started,
            convention=self.convention,
        )
