"""What the commands over a stored game share: the ``--db`` and ``--misere`` options, and how a
stored game is named in their output."""

from __future__ import annotations

import click

from explorer.cli.common import misere_flag, visible
from explorer.viz.palette import game_title

db_option = click.option(
    "--db",
    "url",
    metavar="URL",
    default=None,
    help="Database file or URL: a path, sqlite:///FILE or postgresql://USER@HOST/DB "
    "(default: $EXPLORER_DB, else ./explorer.db). A database an older explorer wrote is "
    "upgraded when opened, by any command, which says so.",
)
stored_misere_option = misere_flag(
    "The game's misère build (explorer build --misere), stored beside its normal-play one."
)


def shown_game(game: str, convention: str) -> str:
    """A stored game's spec as shown (see `visible`), marked when it is a misère build."""
    return game_title(visible(game), convention)
