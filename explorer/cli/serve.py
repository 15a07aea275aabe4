"""The serve command: browse a stored database in a local web app (read-only)."""

from __future__ import annotations

import click

from explorer.cli.common import AsciiIntRange, json_option, print_json


@click.command("serve")
@click.option(
    "--db",
    "url",
    metavar="URL",
    help="The database to browse (a path, sqlite:///FILE or postgresql://...); "
    "default $EXPLORER_DB or explorer.db.",
)
@click.option(
    "--port",
    type=AsciiIntRange(min=0, max=65535),
    default=8000,
    show_default=True,
    help="The port to listen on (0: any free port).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on. Anything but a loopback address lets other machines "
    "read the database.",
)
@click.option("--open", "open_browser", is_flag=True, help="Open the app in a web browser.")
@json_option("one object, once listening: url, database")
def serve_command(url: str | None, port: int, host: str, open_browser: bool, as_json: bool) -> None:
    """Browse the games of a database in a local web app, read-only.

    Pages for the stored games, each position (values, moves best first, predecessors, its
    neighbourhood drawn: click a state to go there), searches, and play against perfect play.
    The database is opened read-only; the app answers only on the address it listens on.
    Ctrl-C stops it.

    \b
    Examples:
      explorer serve
      explorer serve --db kayles.db --port 8080 --open
    """
    from explorer.storage import open_database
    from explorer.web.middleware import is_loopback
    from explorer.web.server import serve

    def listening(address: str) -> None:
        if as_json:
            print_json({"url": address, "database": database.url})
        else:
            click.echo(f"serving {database.url} (read-only) at {address}; Ctrl-C stops")
        if open_browser:
            import webbrowser

            webbrowser.open(address)

    if not is_loopback(host):
        click.echo(
            f"warning: listening on {host}: anyone who can reach this address can read the "
            "database",
            err=True,
        )
    with open_database(url, read_only=True) as database:
        try:
            serve(database, host=host, port=port, on_listening=listening)
        except KeyboardInterrupt:  # its own words: a server only read, so nothing resumes
            click.echo(f"\nstopped serving {database.url} (read-only: nothing to resume)", err=True)
            raise click.exceptions.Exit(130) from None


COMMANDS = [serve_command]
