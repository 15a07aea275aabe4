"""The ``explorer`` command line: a thin click layer over the library.

Commands live in one module per pipeline stage and are registered here explicitly.
"""

from __future__ import annotations

import click

from explorer.cli import core, edit, serve, storage, viz
from explorer.cli.common import ExplorerGroup


@click.group(
    cls=ExplorerGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="explorer")
def main() -> None:
    """Explore impartial games: Sprague-Grundy values, outcomes, game graphs.

    Exit status: 0 on success, 2 for a usage error (a bad option or argument), 1 for any
    other refusal, which prints one line starting with "Error:".

    \b
    Example:
      explorer solve nim 3,4,5
    """


for command in [*core.COMMANDS, *storage.COMMANDS, *edit.COMMANDS, *viz.COMMANDS, *serve.COMMANDS]:
    main.add_command(command)
