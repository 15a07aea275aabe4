"""`Database`, the way into a stored database to read it: its games (`Database.game` gives a
`StoredGame` to read one), and what the web app watches (the builds running, a version that
changes with every write). The build stage's `explorer.build.Database` adds the writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from explorer.games.convention import NORMAL, Convention
from explorer.games.specs import GameSpec
from explorer.storage.backends.engine import checkpoint_away, create_engine
from explorer.storage.backends.errors import translated
from explorer.storage.rows.findings import stored_findings
from explorer.storage.rows.part_values import SharedParts
from explorer.storage.rows.sequences import stored_sequences
from explorer.storage.stored_game import StoredGame

if TYPE_CHECKING:
    from explorer.games.base import Game


class Database:
    """An open explorer database, to read: `open_database` gives one; `close` it when done.
    `explorer.build.Database` (what `explorer.open_database` gives) adds builds and checks.

    Examples
    --------
    >>> from explorer import open_database  # one that builds as well
    >>> db = open_database("sqlite://")  # in memory
    >>> db.game("nim").build("1,2").states_new
    5
    >>> db.game("nim").state("2,1")["grundy"]
    3
    >>> [(g["game"], g["states"]) for g in db.games()]
    [('nim', 5)]
    >>> db.close()
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.url = engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        """Release every connection; a SQLite file's ``-wal`` and ``-shm`` files go too when
        no other program has it open (`checkpoint_away`), even after read-only use."""
        self.engine.dispose()
        checkpoint_away(self.engine)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"open_database({self.url!r})"

    @property
    def parts(self) -> SharedParts:
        """The part table this database shares between games, positions and runs (the values
        of Node-Kayles, Cram, ... parts by canonical label): see `SharedParts`."""
        return SharedParts(self.engine)

    def game(
        self, game: str | Game[Any], convention: Convention | str = NORMAL, *, rules: bool = True
    ) -> StoredGame:
        """One game of this database, by spec (or rules), in normal play or its misère build.

        Nothing is read until a method needs the game's row (so a game not stored yet can be
        built); reads of a game not stored raise `NotStoredError`. With ``rules=False`` the
        game's rules are never loaded (a graph file is not read): positions are looked up
        exactly as typed.

        Raises
        ------
        SpecError
            For a convention other than ``normal`` and ``misere``.
        ArgumentTypeError
            When `game` is neither a spec nor a `Game`.

        Examples
        --------
        >>> db = open_database("sqlite://")
        >>> db.game("kayles", "misere")
        open_database('sqlite://').game('kayles', 'misere')
        >>> db.close()
        """
        return StoredGame(self, game, convention, rules=rules)

    @translated("read")
    def games(self) -> list[dict[str, Any]]:
        """Every stored game with its convention (``normal``, or ``misere`` for a misère
        build), its numbers of states and edges, its stored value sequence (None when there
        is none), and ``findings`` (see `stored_findings`) when it has patterns or a misère
        quotient stored."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT g.spec, g.convention, "
                    "(SELECT COALESCE(SUM(c.count), 0) FROM state_counts AS c "
                    "WHERE c.game_id = g.id AND c.kind = 'states') AS states, "
                    "(SELECT COALESCE(SUM(c.count), 0) FROM state_counts AS c "
                    "WHERE c.game_id = g.id AND c.kind = 'edges') AS edges "
                    "FROM games AS g ORDER BY g.id"
                )
            ).all()
            sequences = stored_sequences(conn)
            findings = stored_findings(conn)
        return [
            {
                "game": GameSpec.parse(r.spec).shown(),
                "convention": r.convention,
                "states": int(r.states),
                "edges": int(r.edges),
                # sequences are of normal play (misère ones are computed, not stored)
                "sequence": sequences.get(r.spec) if r.convention == NORMAL else None,
                # patterns and quotients counted, only for a game with some stored
                **(
                    {"findings": findings[r.spec]}
                    if r.convention == NORMAL and r.spec in findings
                    else {}
                ),
            }
            for r in rows
        ]

    # -- what the web app watches ---------------------------------------------------------
    @translated("read")
    def building(self) -> set[str]:
        """The games with a build still marked running (running now, or killed while running)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                sa.text(
                    "SELECT DISTINCT g.spec FROM builds AS b JOIN games AS g ON g.id = b.game_id "
                    "WHERE b.status = 'running'"
                )
            )
            return {r.spec for r in rows}

    @translated("read")
    def version(self) -> tuple[object, ...]:
        """Changes whenever a build, import or edit starts or finishes (for caches of counts)."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.text(
                    "SELECT COUNT(*) AS n, MAX(id) AS last, MAX(finished_at) AS finished, "
                    "SUM(CASE WHEN status = 'running' THEN 1 ELSE 0 END) AS running FROM builds"
                )
            ).one()
        return (row.n, row.last, str(row.finished), row.running)


def open_database(
    url: str | None = None, *, create: bool = True, read_only: bool = False
) -> Database:
    """Open (creating or upgrading as needed) the database a URL or file path names.

    Parameters
    ----------
    url : str or None
        A file path (SQLite), ``sqlite:///FILE``, ``postgresql://USER@HOST/DB``, or None for
        ``$EXPLORER_DB`` or else ``./explorer.db``. ``sqlite://`` is a database in memory.
    create : bool
        With False, a SQLite file that does not exist is an error (for commands that read).
    read_only : bool
        With True, the database must exist at the newest schema, and every write through this
        object fails (the connection itself is read-only): for servers and viewers.

    Returns
    -------
    Database

    Raises
    ------
    DatabaseURLError, DatabaseError, SchemaTooNewError
        See `explorer.storage.backends.engine.create_engine`; nothing is written when they are
        raised.

    Examples
    --------
    >>> with open_database("sqlite://") as db:
    ...     db.games()
    []
    """
    return Database(create_engine(url, create=create, read_only=read_only))
