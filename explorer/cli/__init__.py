"""The ``explorer`` command line: a thin click layer over the library.

Commands live in one module per pipeline stage and are registered here explicitly, by name and
module: a command's module, and what it imports, loads only when that command runs (or when
``explorer --help`` lists every command), so that ``explorer query`` does not pay for the
libraries that ``explorer viz`` draws with.
"""

from __future__ import annotations

import click

from explorer.cli.common import ExplorerGroup, LazyCommands

#: Each module of commands and the names of the commands it defines (its ``COMMANDS``; a test
#: keeps the two the same).
COMMAND_MODULES = {
    "explorer.cli.core": ("games", "solve", "explain", "sequence", "table"),
    "explorer.cli.storage": ("build", "query", "stats"),
    "explorer.cli.export": ("export",),
    "explorer.cli.verify": ("verify",),
    "explorer.cli.edit": ("import", "edit", "diff"),
    "explorer.cli.viz": ("viz", "plot"),
    "explorer.cli.serve": ("serve",),
    "explorer.cli.patterns": ("patterns", "sweep"),
    "explorer.cli.quotient": ("quotient",),
    "explorer.cli.check": ("check",),
}


@click.group(
    cls=ExplorerGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.version_option(package_name="explorer")
def main() -> None:
    """Explore impartial games: Sprague-Grundy values, outcomes, game graphs.

    Exit status: 0 on success, 2 for a usage error (a bad option or argument), 1 for any
    other refusal, which prints one line starting with "Error:", 130 on Ctrl-C (what was
    already written is kept: run the same command again to resume).

    \b
    Example:
      explorer solve nim 3,4,5
    """


main.commands = LazyCommands(
    {name: module for module, names in COMMAND_MODULES.items() for name in names}
)
