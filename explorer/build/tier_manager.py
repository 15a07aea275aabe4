"""Building a game with tiers on worker processes (``explorer build --workers N``; with one
worker, its tasks run in this process).

A game whose `explorer.games.base.Game.tier` gives a number no move raises is built in two
sweeps over its tiers. Expansion goes from the highest tier down: once every higher tier is
expanded, a tier holds all its states, so its slices go to the workers at once
(`explorer.generation.tiers.expand_tier`, submitted to a `concurrent.futures.Executor`), and
the coordinator numbers the states they reach (`explorer.build.tier_numbering`: by their texts,
or as rows of heaps with numpy) and keeps each state's depth (fewest moves from the root).
Nothing is written yet: each tier's keys and moves go to a scratch file
(`explorer.build.scratch.KeptMoves`), and the moves into each lower tier to another, by the
tier they go into (`explorer.build.scratch.Incoming`). Solving goes from the lowest tier up:
every move of a tier ends in a lower, solved one, so one call of the solver's kernel gives the
whole tier its values, and every move into the tier is known, so each of its states' rows is
written once, whole: key, values, final depth, successors and predecessors (packed:
`explorer.storage.rows.moves`).

The coordinator alone writes, and keeps only compact arrays indexed by state id (depth and
values) and the states of the tiers still to expand: no process holds every state's key. SQLite
takes one writer thread; PostgreSQL one a worker, each on a connection of its own, committing
in turn (`explorer.build.writer.BatchWriter`). Workers hold one slice at a time. A tier's rows
and its row in the ``tiers`` table are written in one transaction, so a build killed at any
moment (the coordinator or a worker) and run again keeps the tiers solved, numbers every state
again in the same order (`explorer.build.tier_resume`), and writes the rest: it stores exactly
the states, moves, values and depths that a build in one process stores (ids aside, which
number states in another order).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

import numpy as np
from sqlalchemy.engine import Engine

from explorer.build.arrays import UNKNOWN, Growable
from explorer.build.options import BuildOptions, BuildReport, ended_status
from explorer.build.plans import KeyIndexPlan, resident_bytes, sqlite_cache_kib, tiered_spec
from explorer.build.scratch import Incoming, KeptMoves, TierMoves, by_tier, database_folder
from explorer.build.tier_numbering import numbering_for
from explorer.build.tier_resume import place_blocks, resume
from explorer.build.tier_rows import Shards, TierRows, Write, as_texts
from explorer.build.tier_worker import Pool, solve_tier
from explorer.build.writer import BatchWriter, BuildProgress, Turn
from explorer.errors import DatabaseDamagedError
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.specs import GameSpec
from explorer.generation.tiers import SLICE_STATES
from explorer.solver import outcome
from explorer.solver.arrays import MISERE_TERMINAL, NORMAL_TERMINAL
from explorer.storage.backends.bulk import NewStates, writer_for
from explorer.storage.backends.dialects import dialect_of
from explorer.storage.backends.engine import reading, writing
from explorer.storage.backends.shards import fold_shard
from explorer.storage.rows.counts import add_counts, histogram, solved_counts, stored_states
from explorer.storage.rows.moves import (
    DEFAULT_WIDTH,
    DIRECTIONS,
    ensure_slots,
    width_for,
)
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
#: ... and into at least this many slices (whatever the number of workers: see `resume`).
SLICES = 16
#: States a transaction writes at least (small tiers are written together).
COMMIT_STATES = 50_000
#: States whose stored keys a continued build reads at a time (see `_check_stored`).
CHECK_CHUNK = 5_000


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
        self.numbering = numbering_for(game, self.root_key)  # the tiers still to expand
        # tiers expanded, not yet solved: in a file beside an SQLite database, on its disk
        folder = database_folder(engine.url.database) if self.dialect.scratch_beside else None
        self.folder = folder
        self.moves = KeptMoves(folder)
        self.incoming = Incoming(folder)  # the moves into each tier not yet solved
        self.shards: Shards | None = None  # where workers write the rows, when they do
        #: Tiers a build before solved and wrote (a build continued: see `resume`).
        self.solved_before: set[int] = set()
        self.width = DEFAULT_WIDTH  # bytes a packed id, set once every state is numbered
        self.depth = Growable(np.int32, FAR)
        self.grundy = Growable(np.int32, UNKNOWN)
        self.remote = Growable(np.int32, UNKNOWN)
        self.height = Growable(np.int32, UNKNOWN)
        # the arrays are indexed by the order states are found in; a state's row gets the id
        # `placed` gives it: each tier's ids run on, a block a tier, and once every tier is
        # expanded the blocks turn around (`place_blocks`), so that the rows, written lowest tier
        # first, go into the table's B-tree in id order (pages filled, not split: 12 % of the
        # table was empty when each tier went in before the one written before it)
        self.placed = Growable(np.int64, UNKNOWN)
        self.next_placed = 0
        #: Where each tier's block begins, by tier in expansion order, and the lowest tier
        #: its moves reach (which bound how many ids a move spans: see `place_blocks`).
        self.blocks: dict[int, int] = {}
        self.lowest: dict[int, int] = {}
        #: The rows a build before stored: ids and values (see `resume`).
        self.stored: list[np.ndarray] = []
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
        # every state is numbered again, in the same order: the rows a build before wrote
        # keep their ids (see `resume`)
        self._discover(self.numbering.start(self.root_key, self.root_tier or 0))
        self.depth.data[0] = 0
        pool = Pool(self.workers, self.executor)
        if self.dialect.folds_shards and self.executor is None and self.workers > 1:
            self.shards = Shards(self.folder, pool)
        try:
            # PostgreSQL takes a transaction a worker at once (see `BatchWriter`)
            writers = self.dialect.writers(self.workers)
            self._expand(pool)
            if self.stopped_by is None:
                with BatchWriter(self._commit, self.progress, self.started, writers) as writer:
                    self._solve(writer)
                    writer.finish()
            if self.stopped_by is not None:
                self._stopped("stopped", self._counts())
        except BaseException as error:
            self._stopped(ended_status(error))
            raise
        finally:
            pool.close()
            if self.shards is not None:
                self.shards.close()
            self.moves.close()
            self.incoming.close()
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
    def _discover(self, ids: np.ndarray) -> np.ndarray:
        """Make room for the states `ids` numbered (see `explorer.build.tier_numbering`)."""
        self.next_id = max(self.next_id, int(ids.max(initial=-1)) + 1)
        for array in (self.depth, self.grundy, self.remote, self.height, self.placed):
            array.reserve(self.next_id)
        return ids

    # -- expansion, highest tier first ----------------------------------------------------
    def _expand(self, pool: Pool) -> None:
        """Expand every tier, highest first, keeping each tier's states and moves and the
        moves into each lower tier in scratch files; nothing is written yet."""
        numbering = self.numbering
        while numbering.waiting:
            tier = max(numbering.waiting)
            began = time.perf_counter()
            id_array, tasks = numbering.pop(tier, self.spec, self._per)
            self.blocks[tier] = self.next_placed
            self.placed.data[id_array] = np.arange(len(id_array)) + self.next_placed
            self.next_placed += len(id_array)
            all_counts, all_targets = [], []
            into: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
            at = 0
            for found in pool.run(tasks):
                size = len(found.counts)
                src_ids = id_array[at : at + size]
                at += size
                dst = self._discover(numbering.number(found, self.next_id))[found.targets]
                src = np.repeat(src_ids, found.counts.astype(np.int64))
                np.minimum.at(self.depth.data, dst, self.depth.data[src] + 1)
                if len(found.tiers):
                    lowest = int(found.tiers.min())
                    self.lowest[tier] = min(self.lowest.get(tier, tier), lowest)
                all_counts.append(found.counts)
                all_targets.append(dst.astype(np.int32))
                by_tier(into, found.tiers, found.targets, dst, src)
            for end, parts in into.items():
                self.incoming.add(end, *(np.concatenate(p) for p in zip(*parts, strict=True)))
            counts = np.concatenate(all_counts) if all_counts else np.zeros(0, np.int32)
            targets = np.concatenate(all_targets) if all_targets else np.zeros(0, np.int32)
            seconds = time.perf_counter() - began
            keys = numbering.kept(tasks)
            self.moves[tier] = TierMoves(id_array.astype(np.int32), counts, targets, seconds, keys)
            self.tiers_done += 1
            memory = self.options.memory
            if memory is not None and numbering.waiting and resident_bytes() > memory:
                # nothing is written before the tiers are solved: the same command starts over
                self.stopped_by = "memory"
                return

    @staticmethod
    def _per(states: int) -> int:
        """States a task of a tier of `states`: as many tasks for any number of workers (so
        that states are numbered in the same order: see `resume`), several for a large tier."""
        return min(SLICE_STATES, max(MIN_SLICE_STATES, -(-states // SLICES)))

    # -- solving, lowest tier first -------------------------------------------------------
    def _solve(self, writer: BatchWriter[Write]) -> None:
        """Solve every tier, lowest first, and write its states' rows, whole: keys, values,
        final depths, successors and predecessors (every move into a tier is known now)."""
        farthest = place_blocks(
            self.placed.data[: self.next_id], self.blocks, self.lowest, self.next_placed
        )
        with writing(self.engine) as conn:
            self.width = width_for(conn, self.game_id, farthest)
        if self.stored:  # the values of the rows a build before wrote, by the order found
            ids, *values = self.stored
            found = np.zeros(self.next_id, dtype=np.int64)
            found[self.placed.data[: self.next_id]] = np.arange(self.next_id)
            for array, column in zip((self.grundy, self.remote, self.height), values, strict=True):
                array.data[found[ids]] = column
        pending = Write(self._progress())
        for tier in sorted(self.moves):
            began = time.perf_counter()
            moves = self.moves.pop(tier)
            into = self.incoming.pop(tier)
            self.tiers_done += 1
            if tier in self.solved_before:
                self._check_stored(moves)
                continue
            solve_tier(moves, self.grundy, self.remote, self.height, self.terminal)
            self.values_computed += len(moves.ids)
            self.edges_new += len(moves.targets)
            rows, most = self._rows(moves, *into)
            pending.rows.append(rows)
            pending.longest = max(pending.longest, most * self.width)
            seconds = time.perf_counter() - began
            done = (str(tier), len(moves.ids), len(moves.targets), moves.seconds, seconds)
            pending.tiers.append(done)
            if pending.states >= COMMIT_STATES:
                self._submit(writer, pending)
                pending = Write(self._progress())
        pending.last = True  # the build ends with it, rows or none
        self._submit(writer, pending)

    def _rows(
        self, moves: TierMoves, into: np.ndarray, sources: np.ndarray
    ) -> tuple[TierRows, int]:
        """A solved tier's rows, and the most ids one of their columns holds: `into` and
        `sources`, the moves into the tier, sorted by `into` (states as found: their rows'
        ids are `placed`)."""
        ids = moves.ids.astype(np.int64)
        assert np.all(ids[1:] > ids[:-1]), "a tier's states are found in order"
        found = np.searchsorted(into, ids, "right") - np.searchsorted(into, ids, "left")
        assert int(found.sum()) == len(into), "a move into a tier ends at one of its states"
        g, r, h = self.grundy.data[ids], self.remote.data[ids], self.height.data[ids]
        placed = self.placed.data
        rows = TierRows(
            placed[ids],
            moves.keys,
            self.depth.data[ids].astype(np.int64),
            g,
            r,
            h,
            moves.counts,
            placed[moves.targets],
            found,
            placed[sources],
        )
        return rows, int(max(moves.counts.max(initial=0), found.max(initial=0)))

    def _submit(self, writer: BatchWriter[Write], write: Write) -> None:
        """Count what `write` adds and hand it to the writer."""
        if write.states:
            write.rows = [TierRows.joined(write.rows)]  # in id order: see `place_blocks`
            rows = write.rows[0]
            g, r, h = rows.grundy, rows.remoteness, rows.height
            write.tallies = [("states", "", len(g)), ("expanded", "", len(g))]
            write.tallies += [("edges", "", sum(t[2] for t in write.tiers))]
            write.tallies += histogram("depth", rows.depth) + solved_counts(g, r, h)
        write.progress = self._progress()
        write.counts = self._counts()
        write.drop_key_index = self.key_index.drop_now(self.next_id - self.first_new)
        if self.shards is not None and write.states:
            self.shards.submit(write, self.game_id, self.build_id, self.width, self.spec)
        elif write.states:  # packed here: the writer thread inserts, leaving the GIL
            write.packed = self._packed(write)
        writer.submit(write)
        if write.drop_key_index:
            # dropping the index waits for every open transaction on the states: the next
            # one starts once this one commits
            writer.finish()

    def _check_stored(self, moves: TierMoves) -> None:
        """Check that a tier a build before wrote holds the states numbered as now."""
        with reading(self.engine) as conn:
            for first in range(0, len(moves.ids), CHECK_CHUNK):
                ids = self.placed.data[moves.ids[first : first + CHECK_CHUNK]].tolist()
                params = {"g": self.game_id, "ids": ids}
                stored = {i: k for i, k in conn.execute(states_table.KEYS_OF, params)}
                kept = as_texts(self.game, moves.keys[first : first + CHECK_CHUNK])
                if [stored.get(i) for i in ids] != kept:
                    raise DatabaseDamagedError(
                        f"the unfinished build of {self.game.spec} stored states this build "
                        "numbers otherwise: delete the game's rows and build it again"
                    )

    # -- writing --------------------------------------------------------------------------
    def _packed(self, write: Write) -> NewStates:
        return write.rows[0].packed(self.game_id, self.build_id, self.width, self.game)

    def _commit(self, write: Write, turn: Turn) -> None:
        """Write one transaction (on a writer thread): the rows first, then, its turn come,
        what every transaction of the build updates (the game's counts, the build's row)."""
        game_id = self.game_id
        shard = Shards.written(write)
        with writing(self.engine, shard) as conn:
            cache_kib = sqlite_cache_kib(
                self.options.memory, self.next_id, key_index=not self.key_index.dropped
            )
            self.dialect.set_page_cache(conn, cache_kib)
            if write.drop_key_index:
                turn()  # no other transaction of the build is open
                drop_key_index(conn)
            if shard is not None:
                fold_shard(conn)
            elif write.states:  # packed when submitted, or a shard lost with its worker
                writer_for(conn).insert_new_states(write.packed or self._packed(write))
            turn()
            for column, _ in DIRECTIONS:
                ensure_slots(conn, game_id, column, [], self.width, write.longest)
            if write.tiers:
                conn.execute(
                    tiers_table.EXPANDED,
                    [
                        {"g": game_id, "tier": t, "build": self.build_id, "states": n}
                        | {"edges": m, "seconds": s}
                        for t, n, m, s, _ in write.tiers
                    ],
                )
                conn.execute(
                    tiers_table.SOLVED,
                    [{"g": game_id, "tier": t, "seconds": s} for t, _, _, _, s in write.tiers],
                )
            add_counts(conn, game_id, write.tallies)
            if write.last and self.key_index.dropped:
                ensure_key_index(conn)
            if write.last:
                self.dialect.analyze_states(conn)
            update_build(conn, self.build_id, "complete" if write.last else "running", write.counts)

    # -- reporting ------------------------------------------------------------------------
    def _counts(self) -> BuildCounts:
        return BuildCounts(
            states_new=self.values_computed,  # rows written, each whole
            states_reused=self.first_new,  # an unfinished build's states, continued
            edges_new=self.edges_new,
            values_computed=self.values_computed,
        )

    def _progress(self) -> BuildProgress:
        known = self.tiers_done + len(self.numbering.waiting) * 2 + len(self.moves)
        return BuildProgress(
            self.values_computed,
            self.edges_new,
            self.values_computed,
            self.numbering.states(),
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
            states_new=self.values_computed,  # rows written, each whole
            states_reused=self.first_new,  # an unfinished build's states, continued
            edges_new=self.edges_new,
            values_computed=self.values_computed,
            frontier=self.numbering.states(),
            states_stored=int(stored),
            grundy=g if solved else None,
            outcome=outcome(g) if solved else None,
            remoteness=int(self.remote.data[0]) if solved else None,
            seconds=time.perf_counter() - self.started,
            convention=self.convention,
        )
