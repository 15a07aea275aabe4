"""Building a game with tiers on several worker processes (``explorer build --workers N``).

A game whose `explorer.games.base.Game.tier` gives a number no move raises is built in two
sweeps over its tiers. Expansion goes from the highest tier down: once every higher tier is
expanded, a tier holds all its states, so its slices go to the workers at once
(`explorer.generation.tiers.expand_tier`, submitted to a `concurrent.futures.Executor`), and
the coordinator numbers the states they reach, keeps each state's depth (fewest moves from
the root) and writes the tier's moves and its new states (on SQLite only their keys, into a
scratch file: `explorer.build.scratch`). Solving goes from the lowest tier up: every
move of a tier ends in a lower, solved one, so one call of the solver's kernel gives the whole
tier its values, written with the states' final depths (on SQLite each state's row then, whole
and once).

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

import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from itertools import repeat
from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.build.arrays import UNKNOWN, Growable
from explorer.build.plans import KeyIndexPlan, resident_bytes, sqlite_cache_kib
from explorer.build.scratch import KeptMoves, KeyScratch, TierMoves, database_folder
from explorer.build.writer import BatchWriter, BuildProgress, Turn
from explorer.errors import WorkerPoolError
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.specs import GameSpec
from explorer.generation.tiers import (
    SLICE_STATES,
    TierExpansion,
    TierTask,
    end_with,
    expand_tier,
)
from explorer.solver import outcome
from explorer.solver.arrays import MISERE_TERMINAL, NORMAL_TERMINAL, level_values
from explorer.storage.backends.bulk import (
    EdgePayload,
    NewStates,
    ValueColumns,
    read_int_columns,
    writer_class,
    writer_for,
)
from explorer.storage.backends.engine import reading, writing
from explorer.storage.rows.counts import add_counts, histogram, solved_counts, stored_states
from explorer.storage.rows.records import (
    BuildCounts,
    drop_key_index,
    ended_status,
    ensure_key_index,
    find_game,
    insert_build,
    interrupt_running,
    refuse_running,
    stored_game,
    update_build,
)
from explorer.storage.tables import edges as edges_table
from explorer.storage.tables import states as states_table
from explorer.version import __version__

if TYPE_CHECKING:
    from explorer.build.one_process import BuildOptions, BuildReport

#: A depth no state has yet (the fewest moves from the root are found as tiers expand).
FAR = np.iinfo(np.int32).max
#: A tier is cut into slices of at least this many states (a task's overhead, pickling its
#: keys and starting it, is then small beside its work) ...
MIN_SLICE_STATES = 256
#: States a transaction writes at least (small tiers are written together).
COMMIT_STATES = 50_000
#: Times a tier's tasks are submitted again after the worker pool broke (a worker killed).
RETRIES = 3


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


def tiers_apply(
    engine: Engine, game: Game[Any], root: Position, options: BuildOptions, convention: Convention
) -> bool:
    """Whether a build goes in tiers: when it may (`may_go_in_tiers`), and either nothing of
    the game is stored or an unfinished build in tiers is to continue (a build reusing states
    stored by another build, or with a solved root, runs in one process)."""
    if not may_go_in_tiers(game, root, options):
        return False
    with reading(engine) as conn:
        game_id = find_game(conn, GameSpec.parse(game.spec).canonical(), convention)
        if game_id is None:
            return True
        tiers = conn.execute(
            sa.text("SELECT 1 FROM tiers WHERE game_id = :g LIMIT 1"), {"g": game_id}
        ).first()
        if tiers is None:
            return conn.execute(states_table.FIRST_KEY, {"g": game_id}).first() is None
        root_row = conn.execute(states_table.BY_KEY, {"g": game_id, "k": game.format(root)}).first()
    # an unfinished build in tiers: its root is stored once solved (on PostgreSQL, unsolved)
    return root_row is None or root_row.grundy is None


def may_go_in_tiers(game: Game[Any], root: Position, options: BuildOptions) -> bool:
    """Whether a build may go in tiers, as far as is known before its database is read: more
    than one worker asked, a game with tiers whose play cannot loop, no --max-states, and a
    game a worker can load by its spec (`tiers_apply` also reads what is stored).

    Examples
    --------
    >>> from explorer.games import load_game
    >>> from explorer.build.one_process import BuildOptions
    >>> nim = load_game("nim")
    >>> may_go_in_tiers(nim, (3, 4), BuildOptions(workers=2))
    True
    >>> may_go_in_tiers(nim, (3, 4), BuildOptions(workers=1))
    False
    """
    if options.workers <= 1 or options.max_states is not None or game.may_cycle():
        return False
    return game.tier(root) is not None and tiered_spec(game) is not None


class Pool:
    """The executor a build submits tier tasks to: one given (a distributed engine's, which
    runs a lost task again itself), or a local process pool this build owns and starts again
    when a worker dies (its tasks are then submitted again: they are pure)."""

    def __init__(self, workers: int, executor: Executor | None) -> None:
        self.workers = workers
        self.given = executor
        self.executor = executor  # a local pool starts with the first tier of several tasks

    def _start(self) -> Executor:
        import multiprocessing

        context: BaseContext
        if "forkserver" not in multiprocessing.get_all_start_methods():
            context = multiprocessing.get_context()
        else:
            # workers forked from a server that has imported the task's modules: they share
            # those pages, and start at once
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["explorer.generation.tiers"])
        return ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=end_with, initargs=(os.getpid(),)
        )

    def run(self, tasks: list[TierTask]) -> Iterator[TierExpansion]:
        """The tasks' results, in order (one task at a time in this process when only one)."""
        if len(tasks) == 1 and self.given is None:
            yield expand_tier(tasks[0])
            return
        for attempt in range(RETRIES + 1):
            if self.executor is None:
                self.executor = self._start()
            executor = self.executor
            try:  # a worker that died idle broke the pool already: submitting says so
                futures: list[Future[TierExpansion]] = [
                    executor.submit(expand_tier, task) for task in tasks
                ]
                results = [future.result() for future in futures]
            except BrokenProcessPool as error:
                if self.given is not None:
                    raise
                executor.shutdown(wait=False, cancel_futures=True)
                self.executor = None
                if attempt == RETRIES:
                    raise WorkerPoolError(
                        f"the build's worker pool broke {RETRIES + 1} times in a row (a worker "
                        "killed, or out of memory): what was written is kept; run the same "
                        "command again to continue (with fewer --workers if memory is short)"
                    ) from error
                continue
            yield from results
            return

    def close(self) -> None:
        if self.given is None and self.executor is not None:
            self.executor.shutdown(wait=True, cancel_futures=True)


@dataclass
class Write:
    """One transaction of a build in tiers (`BatchWriter` writes it on its thread)."""

    progress: BuildProgress
    new: NewStates | None = None
    #: The first new state's id and the new states' keys, for the scratch file.
    keys: tuple[int, list[str]] | None = None
    #: The moves, as the dialect's writer takes them (made on the coordinator's thread).
    edges: EdgePayload | None = None
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
        self.payload = writer_class(engine.dialect.name).edge_payload
        self.root_key = game.format(root)
        self.root_tier = game.tier(root)
        self.known: dict[str, int] = {}  # keys of the states of tiers still to expand
        self.waiting: dict[int, tuple[list[int], list[str]]] = {}
        # tiers expanded, not yet solved: in a file beside an SQLite database, on its disk
        folder = database_folder(engine.url.database) if engine.dialect.name == "sqlite" else None
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
        self.scratch: KeyScratch | None = None  # on SQLite, the keys until solved

    # -- the whole build ------------------------------------------------------------------
    def run(self) -> BuildReport:
        with reading(self.engine) as conn:
            stored = find_game(conn, GameSpec.parse(self.game.spec).canonical(), self.convention)
            if stored is not None:
                refuse_running(conn, stored, self.game.spec)
                self.scratch = self._scratch(stored)
                self._resume(conn, stored)
            self.key_index.stored_before = stored_states(conn)
        self._start()
        if not self.next_id:
            self.scratch = self._scratch(self.game_id)
            if self.scratch is not None:
                self.scratch.start(0)
            self._discover([self.root_key], [self.root_tier])  # type: ignore[list-item]
            self.depth.data[0] = 0
        pool = Pool(self.workers, self.executor)
        try:
            # PostgreSQL takes a transaction a worker at once (see `BatchWriter`)
            writers = self.workers if self.engine.dialect.name == "postgresql" else 1
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

    def _scratch(self, game_id: int) -> KeyScratch | None:
        if self.engine.dialect.name != "sqlite":
            return None
        return KeyScratch.beside(self.engine.url.database, game_id)

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
                pending.tallies = [("edges", "", moves)]
                if self.scratch is not None:
                    pending.keys = (written_to, self._fresh(written_to, self.next_id))
                else:
                    pending.new = self._new_states(written_to, self.next_id)
                    pending.tallies.append(("states", "", len(pending.new)))
                pending.edges = self.payload(np.concatenate(sources), np.concatenate(ends))
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
            dst = moves.targets
            g, r, h = level_values(
                moves.counts.astype(np.int64),
                self.grundy.data[dst].astype(np.int64),
                self.remote.data[dst].astype(np.int64),
                self.height.data[dst].astype(np.int64),
                terminal=self.terminal,
            )
            self.grundy.data[moves.ids] = g
            self.remote.data[moves.ids] = r
            self.height.data[moves.ids] = h
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
        if self.scratch is not None:  # each state's row, whole, its key from the scratch file
            keys = self.scratch.keys(ids)
            done = np.ones(len(ids), dtype=bool)
            write.new = NewStates(self.game_id, self.build_id, ids, keys, depth, done, g, r, h)
            write.tallies.append(("states", "", len(ids)))
        else:
            write.values = ValueColumns(ids, g, r, h, self.build_id, self.game_id)
            write.depth = depth
        write.progress = self._progress()
        write.counts = self._counts()

    # -- writing --------------------------------------------------------------------------
    def _commit(self, write: Write, turn: Turn) -> None:
        """Write one transaction (on a writer thread): the rows first, then, its turn come,
        what every transaction of the build updates (the game's counts, the build's row)."""
        game_id = self.game_id
        if write.keys is not None:
            assert self.scratch is not None
            self.scratch.append(*write.keys)
        with writing(self.engine) as conn:
            if conn.dialect.name == "sqlite":
                cache_kib = sqlite_cache_kib(
                    self.options.memory, self.next_id, key_index=not self.key_index.dropped
                )
                conn.exec_driver_sql(f"PRAGMA cache_size = -{cache_kib}")
            if write.drop_key_index:
                turn()  # no other transaction of the build is open
                drop_key_index(conn)
            writer = writer_for(conn)
            if write.new is not None and len(write.new):
                writer.insert_new_states(write.new)
            if write.edges is not None:
                writer.write_edges(game_id, write.edges)
            if write.values is not None and len(write.values):
                assert write.depth is not None
                writer.update_values(write.values, depth=write.depth)
            turn()
            if write.expanded:
                conn.execute(
                    sa.text(
                        "INSERT INTO tiers (game_id, tier, build_id, states, edges, "
                        "expand_seconds) VALUES (:g, :tier, :build, :states, :edges, :seconds)"
                    ),
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
                    sa.text(
                        "UPDATE tiers SET solve_seconds = :seconds "
                        "WHERE game_id = :g AND tier = :tier"
                    ),
                    [{"g": game_id, "tier": t, "seconds": s} for t, s in write.solved],
                )
            add_counts(conn, game_id, write.tallies)
            if write.last and self.key_index.dropped:
                ensure_key_index(conn)
            update_build(conn, self.build_id, "complete" if write.last else "running", write.counts)
        if write.last and self.scratch is not None:
            self.scratch.remove()

    # -- resuming -------------------------------------------------------------------------
    def _resume(self, conn: sa.Connection, game_id: int) -> None:
        """Take up an unfinished build in tiers: the states stored, which tiers are expanded
        and solved, the moves of those expanded and not solved, and the keys of the states
        of the tiers still to expand."""
        done = {
            int(tier): bool(solved)
            for tier, solved in conn.execute(
                sa.text("SELECT tier, solve_seconds IS NOT NULL FROM tiers WHERE game_id = :g"),
                {"g": game_id},
            )
        }
        read = ("id", "depth", "grundy", "remoteness", "height")
        ids, depth, grundy, remote, height = read_int_columns(
            conn, states_table.by_id(*read), {"g": game_id}, len(read)
        )
        src, dst = read_int_columns(conn, edges_table.ALL_ORDERED, {"g": game_id}, 2)
        # every state numbered is stored, or (on SQLite, until solved) a stored move's end
        size = max(int(ids.max(initial=-1)), int(dst.max(initial=-1)), 0 if done else -1) + 1
        if not size:
            return
        self.next_id = self.first_new = size
        for array, column in (
            (self.depth, depth),
            (self.grundy, grundy),
            (self.remote, remote),
            (self.height, height),
        ):
            array.reserve(size)
            array.data[ids] = column
        # the tier of every unsolved state, from its key; the keys of unexpanded tiers kept
        tier_of: dict[int, int] = {}
        parse, tier_fn = self.game.parse, self.game.tier
        rows: Iterable[tuple[int, str]]
        if self.scratch is None:
            rows = conn.execute(states_table.UNSOLVED_KEYS, {"g": game_id}).tuples()
        else:  # the rows stored are solved; the keys of the others in the scratch files
            self.scratch.start(size)
            unsolved = np.setdiff1d(np.arange(size), ids)
            rows = zip(unsolved.tolist(), self.scratch.keys(unsolved), strict=True)
            self.depth.data[0] = 0  # the others' depths from the moves, below
        for state, key in rows:
            tier = tier_fn(parse(key))
            assert tier is not None
            tier_of[state] = tier
            if tier not in done:
                self.known[key] = state
                if tier not in self.waiting:
                    self.waiting[tier] = ([], [])
                self.waiting[tier][0].append(state)
                self.waiting[tier][1].append(key)
        self.tiers_done = len(done) + sum(done.values())
        # the moves of the tiers expanded and not solved, grouped by tier in id order
        open_src = np.fromiter((s in tier_of for s in src.tolist()), dtype=bool, count=len(src))
        src, dst = src[open_src], dst[open_src]
        src_tier = np.array([tier_of[s] for s in src.tolist()], dtype=object)
        by_tier: dict[int, list[int]] = {}
        for state, tier in tier_of.items():
            if done.get(tier) is False:
                by_tier.setdefault(tier, []).append(state)
        for tier in sorted(by_tier, reverse=True):
            states = np.array(sorted(by_tier[tier]), dtype=np.int64)
            mask = src_tier == tier
            tier_src, tier_dst = src[mask], dst[mask]
            counts = np.searchsorted(tier_src, states, "right") - np.searchsorted(
                tier_src, states, "left"
            )
            # depths: every move of an expanded tier relaxes its end (tiers high to low)
            moved = np.repeat(self.depth.data[states] + 1, counts).astype(np.int32)
            np.minimum.at(self.depth.data, tier_dst, moved)
            self.moves[tier] = TierMoves(states, counts.astype(np.int32), tier_dst.astype(np.int32))

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
        from explorer.build.one_process import BuildReport

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
