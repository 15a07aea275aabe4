"""The build stage: where a build runs. It expands a game's positions, solves them and hands the
rows to `explorer.storage` to write: in one process (`one_process`), in tiers on worker
processes (`tier_manager`) or on a cluster (`cluster`); and the imports, edits, undo and checks
(`verify`) of what a build stored. `open_database` gives the `Database` that does all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from explorer.lazy import lazy_members

if TYPE_CHECKING:
    from explorer.build.database import Database, StoredGame, open_database
    from explorer.build.edits import EditReport
    from explorer.build.options import BuildOptions, BuildReport
    from explorer.build.run import build_position
    from explorer.build.writer import BuildProgress

#: Where each name lives: its module loads when the name is first asked for, so that a command
#: that only reads does not load the builder and the editor.
_HOMES = {
    **dict.fromkeys(("Database", "StoredGame", "open_database"), "explorer.build.database"),
    **dict.fromkeys(("BuildOptions", "BuildReport"), "explorer.build.options"),
    "build_position": "explorer.build.run",
    "BuildProgress": "explorer.build.writer",
    "EditReport": "explorer.build.edits",
}


__getattr__, __dir__ = lazy_members(globals(), _HOMES)


__all__ = [
    "BuildOptions",
    "BuildProgress",
    "BuildReport",
    "Database",
    "EditReport",
    "StoredGame",
    "build_position",
    "open_database",
]
