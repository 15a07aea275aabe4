"""What `open_database` gives: `Database` and `StoredGame`, storage's reads and rows
(`explorer.storage`) with the build stage's writes added: builds, graph files imported, edits,
re-solves and checks.

Examples
--------
>>> db = open_database("sqlite://")  # in memory
>>> nim = db.game("nim")
>>> nim.build("1,2").states_new
5
>>> nim.state("2,1")["grundy"]
3
>>> db.game("nim", "misere").build("1,1,1").outcome
'P'
>>> [(g["game"], g["states"]) for g in db.games()]
[('nim', 5), ('nim', 4)]
>>> db.close()
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from explorer.games.convention import NORMAL, Convention
from explorer.storage import database as storage
from explorer.storage import stored_game
from explorer.storage.backends.engine import create_engine
from explorer.storage.backends.errors import translated

if TYPE_CHECKING:  # building, editing and checking load in the methods that do them
    from explorer.build.edits import EditReport
    from explorer.build.options import BuildOptions, BuildReport
    from explorer.build.plans import BuildPlan
    from explorer.build.verify_report import Verification
    from explorer.build.writer import BuildProgress
    from explorer.games.base import Game
    from explorer.games.dag import DagGame
    from explorer.solver.incremental import Edit


class StoredGame(stored_game.StoredGame):
    """One game of a database in one convention, as `Database.game` returns it: the reads of
    `explorer.storage.StoredGame` and the builds, edits, re-solves and checks that write it."""

    @translated("write to")
    def build(
        self,
        /,
        position: str,
        options: BuildOptions | None = None,
        *,
        progress: Callable[[BuildProgress], None] | None = None,
        executor: Executor | None = None,
        **changes: Any,
    ) -> BuildReport:
        """Build the game graph of a position into the database (see `build_position`), with
        `options` (a `BuildOptions`, its defaults when not given) changed by keyword:
        ``game.build("3,4,5", max_states=10_000)``; the convention is the handle's.

        Stored states and values are reused; a build stopped by `max_states`, by the `memory`
        budget (bytes the process may use; None for none) or killed continues where it
        stopped when run again. With ``workers=N`` (N > 1) a game with tiers is built on N
        worker processes, or on `executor` (a `concurrent.futures.Executor`) when given; with
        ``in_tiers=True`` and one worker, in tiers in this process.
        In the misère convention the game's misère build is made.

        Raises
        ------
        DatabaseError
            When the database refuses the writes (read-only, full, locked, or another build
            of the same game writing at the same time); what was committed stays consistent.
        """
        from explorer.build.options import BuildOptions
        from explorer.build.run import build_position

        options = replace(options or BuildOptions(), **changes)
        rules = self.spec if self.given is None else self.given
        return build_position(
            self.engine,
            rules,
            position,
            options,
            convention=self.convention,
            progress=progress,
            executor=executor,
        )

    @translated("write to")
    def edit(self, edit: Edit) -> EditReport:
        """Add and remove states and moves of a stored DAG game, re-solving only what changes.

        Raises
        ------
        NotStoredError
            When the game is not stored.
        EditError, CyclicGraphError
            When the edit is refused; nothing is written.

        Examples
        --------
        >>> from explorer.solver.incremental import Edit
        >>> db = open_database("sqlite://")
        >>> game = db.game(db.import_graph("data/note003.json").game)
        >>> report = game.edit(Edit(remove_edges=(("b", "a"),)))
        >>> report.reexamined, report.changed, game.state("b")["grundy"]
        (1, 1, 1)
        >>> db.close()
        """
        from explorer.build.edits import edit_game

        self._normal_play("edits")
        return edit_game(self.engine, self.row(), edit)

    @translated("write to")
    def resolve(self) -> int:
        """Re-solve every stored state of the game from its stored edges; returns how many.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("2,2")
        >>> nim.resolve(), nim.state("2,2")["grundy"]
        (6, 0)
        >>> db.close()
        """
        from explorer.build.edits import solve_stored

        self._normal_play("re-solves")
        return solve_stored(self.engine, self.row())

    def verify(
        self,
        *,
        rules: bool = True,
        show: int = 20,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> Verification:
        """Check the game's stored values and moves (see `verify_database`, which takes the
        same options), and SQLite's integrity check of the whole file.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> nim = db.game("nim")
        >>> _ = nim.build("2,2")
        >>> nim.verify().ok
        True
        >>> db.close()
        """
        from explorer.build.verify import verify_database

        return verify_database(self.engine, self.row(), rules=rules, show=show, progress=progress)


class Database(storage.Database):
    """An open explorer database (see `open_database`): the reads of
    `explorer.storage.Database`, graph files imported, and every game checked at once."""

    def game(
        self, game: str | Game[Any], convention: Convention | str = NORMAL, *, rules: bool = True
    ) -> StoredGame:
        """One game of this database, able to build (see `explorer.storage.Database.game`)."""
        return StoredGame(self, game, convention, rules=rules)

    @translated("write to")
    def build(
        self,
        plan: BuildPlan,
        *,
        progress: Callable[[BuildProgress], None] | None = None,
        executor: Executor | None = None,
    ) -> BuildReport:
        """Run a build that `explorer.build.run.plan_build` checked (before this database was
        opened: the command line's way), as `StoredGame.build` runs one, without checking
        it again.

        Examples
        --------
        >>> from explorer.build.options import BuildOptions
        >>> from explorer.build.run import plan_build
        >>> from explorer.games import load_game
        >>> nim = load_game("nim")
        >>> plan = plan_build(nim, nim.parse("1,2"), BuildOptions())
        >>> db = open_database("sqlite://")
        >>> db.build(plan).states_new
        5
        >>> db.close()
        """
        from explorer.build.run import run_plan

        return run_plan(self.engine, plan, progress=progress, executor=executor)

    @translated("write to")
    def import_graph(self, source: str | DagGame) -> EditReport:
        """Store a graph file as the game ``dag:PATH``, solved; if it is stored already, apply
        only the difference and re-solve what it changes (see `explorer.build.graph_import`).

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> report = db.import_graph("data/note003.json")
        >>> report.kind, db.game(report.game).state("b")["grundy"]
        ('import', 2)
        >>> db.close()
        """
        from explorer.build.graph_import import import_graph

        return import_graph(self.engine, source)

    def verify(
        self,
        *,
        rules: bool = True,
        show: int = 20,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> Verification:
        """Check every stored game, in each convention, and the file (see `verify_database`,
        which takes the same options; `StoredGame.verify` checks one game).

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> _ = db.game("nim").build("2,2")
        >>> result = db.verify()
        >>> result.ok, result.games[0].states, result.integrity
        (True, 6, 'ok')
        >>> db.close()
        """
        from explorer.build.verify import verify_database

        return verify_database(self.engine, rules=rules, show=show, progress=progress)


def open_database(
    url: str | None = None, *, create: bool = True, read_only: bool = False
) -> Database:
    """Open (creating or upgrading as needed) the database a URL or file path names, to read
    and build: the arguments and errors are `explorer.storage.open_database`'s.

    Examples
    --------
    >>> with open_database("sqlite://") as db:
    ...     db.game("nim").build("2").states_new, db.games()[0]["states"]
    (3, 3)
    """
    return Database(create_engine(url, create=create, read_only=read_only))
