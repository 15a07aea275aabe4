"""Building game graphs into a database: batch by batch, resumable, reusing stored states.

A build expands states in increasing id order (ids are numbered by us, in discovery order),
writes each batch's new states, edges and values in one transaction, and solves a state as
soon as all of its successors have values, from compact numpy arrays rather than a NetworkX
graph. Because expansion order depends only on what is stored, a build killed at any moment
and run again ends with exactly the rows an uninterrupted build writes.

A misère build (``convention=MISERE``) is the same build of the game's misère twin (a game row of
its own, see `explorer.storage.rows.records`): only the value of a state without moves differs
(G⁻ = 1, an N-position), so its states hold G⁻, misère outcomes and misère remoteness.

The arrays live in `explorer.build.arrays`, the memory budget and the key-index plan
in `explorer.build.plans`, the writer thread in `explorer.build.writer`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.build.arrays import NO_IDS, UNKNOWN, BuildArrays, Frontier
from explorer.build.loopy import LoopyValue, label_stored
from explorer.build.options import BuildOptions, BuildReport, ended_status
from explorer.build.plans import (
    BATCH_MOVES,
    KeyIndexPlan,
    RoundPlan,
    refuse_wide_state,
    sqlite_cache_kib,
)
from explorer.build.undo import undo_build
from explorer.build.writer import Batch, BatchWriter, BuildProgress, Turn, commit_batch
from explorer.errors import RuleError
from explorer.games import may_cycle
from explorer.games.base import Game, Position
from explorer.games.convention import MISERE, NORMAL, Convention
from explorer.games.specs import GameSpec
from explorer.generation.expansion import PositionIndex, position_index
from explorer.generation.sorted_runs import find_sorted
from explorer.solver import outcome
from explorer.solver.arrays import MISERE_TERMINAL, NORMAL_TERMINAL
from explorer.storage.backends.bulk import (
    STREAM,
    NewStates,
    read_int_columns,
    value_columns,
)
from explorer.storage.backends.engine import reading, writing
from explorer.storage.rows.counts import histogram, solved_counts, stored_states
from explorer.storage.rows.moves import read_moves
from explorer.storage.rows.records import (
    BuildCounts,
    ensure_key_index,
    find_game,
    insert_build,
    interrupt_running,
    refuse_running,
    stored_game,
    update_build,
)
from explorer.storage.tables import states as states_table
from explorer.version import __version__

#: The game id read with before a new game is stored: no rows have it.
NOT_STORED = -1


class GraphBuilder:
    """One build of a position of a game into a database (see `build_position`)."""

    def __init__(
        self,
        engine: Engine,
        game: Game[Any],
        root: Position,
        options: BuildOptions | None = None,
        progress: Callable[[BuildProgress], None] | None = None,
        convention: Convention = NORMAL,
    ) -> None:
        self.engine = engine
        self.options = options = options or BuildOptions()
        self.progress = progress
        self.game = game
        self.convention = convention
        self.terminal = MISERE_TERMINAL if convention == MISERE else NORMAL_TERMINAL
        self.root = root
        self.root_key = game.format(root)
        self.arrays = BuildArrays()
        self.frontier = Frontier()
        self.states: Any = PositionIndex(game)  # replaced by the best index in _load
        self.rounds = RoundPlan(options)
        self.key_index = KeyIndexPlan(options.defer_key_index_at)
        self.first_new = 0  # ids below this were stored before the build started
        self.next_id = 0
        self.edges_new = self.values_computed = 0
        self.expanded_now = 0  # states this run expanded
        self.recorded = False  # whether the game and the build are recorded (`_start`)
        self.started = time.perf_counter()

    @property
    def states_new(self) -> int:
        return self.next_id - self.first_new

    @property
    def states_reused(self) -> int:
        return int(self.arrays.reached.data[: self.first_new].sum())

    # -- the whole build ------------------------------------------------------------------
    def run(self) -> BuildReport:
        """Build, recording the build; a build stopped by an error is recorded ``failed``, one
        stopped by Ctrl-C ``interrupted`` (one killed outright stays ``running``, and is shown
        interrupted once its process is gone: see `explorer.storage.rows.records.shown_status`)."""
        # Everything stored is read before anything is written, so a database that cannot be
        # read (a damaged page, a table missing) is left exactly as it was; and read in one
        # snapshot, so a build committing meanwhile is not half seen.
        with reading(self.engine) as conn:
            stored = find_game(conn, GameSpec.parse(self.game.spec).canonical(), self.convention)
            self.game_id = NOT_STORED if stored is None else stored
            if stored is not None:
                refuse_running(conn, stored, self.game.spec)
            root, root_solved = self._stored_root(conn)
            self.key_index.stored_before = stored_states(conn)
            # below a solved state everything is stored and solved: nothing to expand
            self._load(conn, positions=not root_solved)
        expanded_before = self.arrays.expanded.data[: self.first_new].copy()
        try:
            return self._run(root, root_solved)
        except BaseException as error:
            if not self.recorded:  # refused before its first batch: nothing was written
                raise
            if not isinstance(error, RuleError):
                self._stopped(ended_status(error))
                raise
            # a bug in a game's own rules: the build is taken back whole
            undo_build(
                self.engine,
                game_id=self.game_id,
                build_id=self.build_id,
                first_new=self.first_new,
                expanded_now=np.flatnonzero(
                    self.arrays.expanded.data[: self.first_new] & ~expanded_before
                ),
                game_created=stored is None,
            )
            raise

    def _stopped(self, status: str) -> None:
        """Record why the build stopped, if the database still takes a write."""
        try:
            with writing(self.engine) as conn:
                if self.key_index.dropped:
                    ensure_key_index(conn)
                update_build(conn, self.build_id, status)
        except Exception:  # the error that stopped the build is the one to show
            pass

    def _run(self, root: int | None, root_solved: bool) -> BuildReport:
        """Expand the frontier batch by batch, smallest ids first; solve each state as soon as
        its successors are; hand each batch's rows to the writer thread; then create the key
        index again, label the cycles of a game whose play may loop, and report."""
        written = self.next_id  # the first id whose row is not written yet
        root = self._place_root(root, root_solved)
        # stored states left solvable (by an edit, say) are solved before anything else
        leftover = self.arrays.leftovers(self.first_new)
        solved = self._solve(leftover) if leftover.size else []
        stopped: str | None = None
        with BatchWriter(self._commit, self.progress, self.started) as writer:
            while self.frontier or solved or written < self.next_id:
                batch, src, dst, stopped = self._expand_batch()
                self._start()  # once: a build refused before its first batch writes nothing
                self.arrays.reserve(self.next_id)
                ready = self.arrays.add_moves(batch, src, dst)
                self.edges_new += len(src)
                if self.key_index.overlap_now(self.next_id, last=not self.frontier and not stopped):
                    # The last batch: its states and moves are written, and the key index
                    # created, while its values are found (10M states: 10 s of each), and
                    # the values follow in a transaction of their own.
                    writer.submit(self._rows(written, batch, src, dst, NO_IDS, create_index=True))
                    written = self.next_id
                    batch = src = dst = NO_IDS
                solved += self._solve(ready)
                writer.submit(
                    self._rows(written, batch, src, dst, np.concatenate(solved or [NO_IDS]))
                )
                written, solved = self.next_id, []
                if stopped:
                    break
            writer.finish()
        # every move is written: the memory that found values through them is let go before
        # the key index is sorted (at 1M states, 46 MB of the peak)
        self.arrays.let_go_of_moves()
        self._start()
        return self._finish(root, stopped)

    def _place_root(self, root: int | None, root_solved: bool) -> int:
        """Number the root if it is not stored; else reach it and everything stored below it."""
        if root is None:
            root = self.states.add(self.root)
            self.next_id = self.states.next_id
            self.arrays.reserve(self.next_id)
            self.arrays.present.data[root] = self.arrays.reached.data[root] = True
            self.frontier.fresh.append(root)
        else:
            self.arrays.reach([root], self.first_new, self.frontier)
            if root_solved and self.frontier:  # only a damaged database gets here
                with self.engine.connect() as conn:
                    present = self.arrays.present.data[: self.next_id]
                    self._load_positions(conn, np.flatnonzero(present))
        return root

    def _finish(self, root: int, stopped: str | None) -> BuildReport:
        """Create the key index again, label the cycles of a complete build of a game whose
        play may loop, record how the build ended, and report."""
        status = "stopped" if self.frontier else "complete"
        labelled: LoopyValue | None = None
        stopped_by = stopped if status == "stopped" else None
        if status == "complete" and not may_cycle(self.game):
            self._refuse_undeclared_cycle(root)
        with writing(self.engine) as conn:
            if self.key_index.dropped:
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
        g = int(self.arrays.grundy.data[root])
        if g == UNKNOWN:
            return self._report(status, None, None, None, stopped_by=stopped_by)
        remoteness = int(self.arrays.remote.data[root])
        return self._report(status, g, outcome(g), remoteness, stopped_by=stopped_by)

    def _refuse_undeclared_cycle(self, root: int) -> None:
        """Refuse a complete build whose start has no value in a game that says its play
        always ends: the moves found have a cycle (the build is then taken back whole)."""
        if int(self.arrays.grundy.data[root]) != UNKNOWN:
            return
        with self.engine.connect() as conn:
            key = conn.execute(states_table.LAST_UNVALUED_KEY, {"g": self.game_id}).scalar()
        raise RuleError(
            f"{GameSpec.parse(self.game.spec).reported()} says its play always ends, but its "
            f"moves from {self.root_key!r} lead into a cycle (through {key!r}): say that play "
            "may loop (@explorer.game(acyclic=False), or cycles = True in a Game subclass)"
        )

    # -- setup ----------------------------------------------------------------------------
    def _start(self) -> None:
        """Record the game and the build, once; mark builds killed earlier as interrupted."""
        if self.recorded:
            return
        self.recorded = True
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
                max_states=self.options.max_states,
                method=f"{rule} (explorer {__version__})",
            )
        self.game_id = game_id

    def _stored_root(self, conn: sa.Connection) -> tuple[int | None, bool]:
        """The root's id if it is stored, and whether it has a value."""
        row = conn.execute(states_table.BY_KEY, {"g": self.game_id, "k": self.root_key}).first()
        return (None, False) if row is None else (int(row.id), row.grundy is not None)

    def _load(self, conn: sa.Connection, positions: bool) -> None:
        """Load the game's stored states and edges into the arrays, and their positions into
        the position index when the build may expand states (reading and parsing every key
        is most of the time a load takes)."""
        read = ("id", "depth", states_table.EXPANDED, "grundy", "remoteness", "height")
        ids, *columns = read_int_columns(
            conn, states_table.by_id(*read), {"g": self.game_id}, len(read)
        )
        if positions:
            self._load_positions(conn, ids)
        if ids.size == 0:
            return
        src, dst = read_moves(conn, self.game_id)
        self.first_new = self.next_id = self.arrays.load(ids, columns, src, dst)

    def _load_positions(self, conn: sa.Connection, ids: np.ndarray) -> None:
        parse = self.game.parse
        rows = conn.execute(states_table.KEYS, {"g": self.game_id}, execution_options=STREAM)
        parsed = [parse(key) for (key,) in rows]
        self.states = position_index(
            self.game, ids.tolist(), parsed, self.root, self.options.memory
        )

    # -- one batch ------------------------------------------------------------------------
    def _solve(self, ready: np.ndarray) -> list[np.ndarray]:
        """Give values to `ready` states (all successors solved), then to whatever that frees."""
        solved = self.arrays.solve(ready, self.terminal)
        self.values_computed += sum(len(s) for s in solved)
        return solved

    def _expand_batch(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, str | None]:
        """Expand up to a batch of frontier states, smallest ids first, in rounds (see
        `RoundPlan`). Returns the states expanded, their edges, and what stopped the build, if
        anything: ``"max-states"`` or ``"memory"``.
        """
        expanded: list[np.ndarray] = []
        src: list[np.ndarray] = []
        dst: list[np.ndarray] = []
        count = moves = 0
        stopped = None
        while self.frontier and count < self.rounds.batch_states and moves < BATCH_MOVES:
            budget, bound = self.rounds.room(states_new=self.states_new, states=self.next_id)
            if budget == 0:
                stopped = bound
                break
            parents = self.frontier.pop_many(self.rounds.round_states(count=count, moves=moves))
            before = self.next_id
            step = self.states.expand(parents, budget, self.first_new, self.arrays.reached.data)
            if step.done < len(parents):
                self.frontier.push_stored(parents[step.done :])
            if not step.done and step.needs:  # the next state's moves would pass the bound
                if not self.expanded_now:  # and no state of this run went first: refused
                    first = int(parents[0])
                    key = self.states.keys(range(first, first + 1))[0]
                    refuse_wide_state(
                        self.game,
                        key,
                        step.needs,
                        states_new=self.states_new,
                        bound=bound,
                        options=self.options,
                    )
                stopped = bound
                break
            self.expanded_now += step.done
            self.next_id = self.states.next_id
            if self.next_id > before:
                self.arrays.add_new(before, self.next_id, step.src, step.dst)
                self.frontier.fresh.extend(range(before, self.next_id))
            if self.first_new:
                old = step.dst[step.dst < self.first_new]
                old = np.unique(old[~self.arrays.reached.data[old]]).tolist()
                self.arrays.reach(old, self.first_new, self.frontier)
            expanded.append(parents[: step.done])
            src.append(step.src)
            dst.append(step.dst)
            count += step.done
            moves += len(step.src)
            self.rounds.widest(step.src)

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
        *,
        create_index: bool = False,
    ) -> Batch:
        """Everything one batch writes, taken from the arrays as they stand now.

        Rows are built column by column from numpy (as Python ints, strings and None), not
        state by state. With `create_index` the key index is created once they are written.
        """
        build, game_id = self.build_id, self.game_id
        arrays = self.arrays
        grundy, remote, height = arrays.grundy.data, arrays.remote.data, arrays.height.data
        new = slice(first_id, self.next_id)
        g = grundy[new].copy()  # the arrays change while the writer thread reads these
        new_states = NewStates(
            game_id,
            build,
            np.arange(first_id, self.next_id, dtype=np.int64),
            self.states.keys(range(first_id, self.next_id)),
            arrays.depth.data[new].copy(),
            arrays.expanded.data[new] | (g != UNKNOWN),
            g,
            remote[new].copy(),
            height[new].copy(),
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
        edges = (src, dst)
        # every state expanded now was not before; a state is solved once, never changed
        tallies = [
            ("states", "", self.next_id - first_id),
            ("expanded", "", len(expanded)),
            ("edges", "", len(src)),
            *histogram("depth", arrays.depth.data[new]),
            *solved_counts(grundy[solved], remote[solved], height[solved]),
        ]
        drop = self.key_index.drop_now(self.states_new)
        counts = self._counts()
        return Batch(new_states, edges, runs, values, counts, progress, tallies, drop, create_index)

    def _commit(self, batch: Batch, turn: Turn) -> None:
        """Write one batch in one transaction (on the writer thread, the only one: its turn
        has come)."""
        cache_kib = sqlite_cache_kib(
            self.options.memory, self.next_id, key_index=not self.key_index.dropped
        )
        commit_batch(self.engine, self.game_id, self.build_id, batch, cache_kib)

    def _label_cycles(self, conn: sa.Connection, root: int) -> LoopyValue:
        """Give every stored state its generalized value γ (see `label_stored`)."""
        value, labelled = label_stored(conn, self.game_id, self.build_id, root)
        self.values_computed += labelled
        return value

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
            game=GameSpec.parse(self.game.spec).reported(),
            position=self.root_key,
            build_id=self.build_id,
            status=status,
            states_new=self.states_new,
            states_reused=self.states_reused,
            edges_new=self.edges_new,
            values_computed=self.values_computed,
            frontier=len(self.frontier),
            states_stored=int(self.arrays.present.data[: self.next_id].sum()),
            grundy=grundy,
            outcome=outcome_word,
            remoteness=remoteness,
            seconds=time.perf_counter() - self.started,
            convention=self.convention,
            infinite=escapes is not None,
            escapes=None if escapes is None else sorted(escapes),
            stopped_by=stopped_by,
        )
