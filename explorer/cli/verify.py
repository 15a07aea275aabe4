"""The ``verify`` command: a stored game (or every stored game) and the database file checked."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from explorer.cli.common import (
    AsciiIntRange,
    console,
    json_option,
    plural,
    print_json,
    progress_bar,
    visible,
)
from explorer.cli.stored_options import db_option, shown_game, stored_misere_option
from explorer.games.convention import MISERE, Convention


@contextmanager
def _verify_progress(enabled: bool) -> Iterator[Callable[[str, int, int], None]]:
    """A progress bar on standard error while `verify` reads each game: its states checked of
    those stored, and the time left; a stage with no count (the file's integrity check) shows
    by name, with a spinner."""
    fields = {"game": "{}", "done": "{:>11,}", "of": "of {} states"}
    with progress_bar("verifying", fields, total=None, eta=True, enabled=enabled) as update:

        def on_step(game: str, done: int, total: int) -> None:
            of = f"{total:,}" if total else "?"
            update(completed=done, total=total or None, game=visible(game), done=done, of=of)

        yield on_step


@click.command("verify")
@click.argument("spec", required=False)
@db_option
@click.option(
    "--rules/--no-rules",
    default=True,
    show_default=True,
    help="Regenerate every state's moves from the game's rules and compare them.",
)
@click.option(
    "--show",
    type=AsciiIntRange(min=0, max=10_000),
    default=20,
    show_default=True,
    help="Mismatches to list (all are counted).",
)
@stored_misere_option
@json_option(
    "one object: database, integrity, integrity_problems, games, kinds, mismatches, problems, ok"
)
def verify_command(
    spec: str | None, url: str | None, rules: bool, show: int, convention: Convention, as_json: bool
) -> None:
    """Check a stored game (or every stored game) and the database file.

    Recomputes every state's Grundy value, outcome, remoteness and height from its stored
    successors, regenerates every state's moves from the rules (games imported from a file
    excepted), checks depths, the per-game counts and stored sequences, values every part of
    the part table again from its label and its moves (not with --no-rules), and runs
    SQLite's integrity check (PostgreSQL has none). Prints a summary, one line per kind of
    damage and the first mismatches; exits 1 if anything is wrong. A misère build (SPEC
    --misere, or every game without SPEC) is checked by the misère rule: G⁻ = 1 without a
    move, else the mex.

    \b
    Examples:
      explorer verify
      explorer verify nim --db games.db --show 5
      explorer verify nim --misere
    """
    from explorer.build import open_database

    if convention == MISERE and not spec:
        raise click.UsageError("--misere names a game's misère build: give its SPEC")
    with open_database(url, create=False) as database, _verify_progress(not as_json) as update:
        checked = database if spec is None else database.game(spec, convention)
        result = checked.verify(rules=rules, show=show, progress=update)
    if as_json:
        print_json(result.to_dict())
    else:
        console.print(f"verified {visible(database.url)}")
        console.print(f"  integrity  {result.integrity}")
        for problem in result.integrity_problems:
            console.print(f"    {problem}")
        for game in result.games:
            verdict = "ok" if not game.problems else plural(game.problems, "problem")
            console.print(
                f"  {shown_game(game.game, game.convention)}: {game.states:,} {game.unit}, "
                f"{game.edges:,} moves ({game.rules}): {verdict}"
            )
        for line in result.damage():
            console.print(f"  damage: {visible(line)}")
        for m in result.mismatches:
            console.print(
                f"  {shown_game(m.game, m.convention)} {visible(m.position)}: {m.check}: "
                f"{visible(m.detail)}"
            )
    if not result.ok:
        total = result.problems + len(result.integrity_problems)
        shown = len(result.mismatches) + len(result.integrity_problems)
        click.echo(
            f"Error: {plural(total, 'problem')} found in {visible(database.url)}"
            + (f" (the first {shown:,} listed)" if shown < total else ""),
            err=True,
        )
        sys.exit(1)


COMMANDS = [verify_command]
