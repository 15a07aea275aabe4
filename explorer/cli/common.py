"""What every command shares: turning library errors into one-line CLI errors, JSON output."""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from explorer.errors import ExplorerError

F = TypeVar("F", bound=Callable[..., Any])

console = Console(highlight=False, soft_wrap=True, markup=False, emoji=False)


def reports_errors(func: F) -> F:
    """Print ``Error: ...`` and exit 1 on an `ExplorerError`; anything else keeps its traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ExplorerError as error:
            click.echo(f"Error: {error}", err=True)
            sys.exit(1)

    return wrapper  # type: ignore[return-value]


def print_json(data: object) -> None:
    """One JSON document on standard output."""
    click.echo(json.dumps(data, ensure_ascii=False))


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")
max_states_option = click.option(
    "--max-states",
    type=click.IntRange(min=1),
    default=None,
    help="Largest game graph to build in memory (default 200,000 states).",
)

misere_option = click.option(
    "--misere",
    is_flag=True,
    help="Misère play: the player who makes the last move loses (outcome and remoteness).",
)


max_memory_option = click.option(
    "--max-memory",
    type=click.IntRange(min=1),
    default=None,
    metavar="MIB",
    help="Most memory for value tables, in MiB (default 2,048).",
)


@contextmanager
def sequence_progress(enabled: bool) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on standard error for long value computations: heaps per second and the
    largest value so far (only on a terminal)."""
    errors = Console(stderr=True)
    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.fields[done]:>14,} heaps"),
        TextColumn("{task.fields[rate]:>12,.0f} heaps/s"),
        TextColumn("largest value {task.fields[largest]:,}"),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=not enabled or not errors.is_terminal,
    )
    began = time.perf_counter()
    with bar:
        task = bar.add_task("values", total=None, done=0, rate=0.0, largest=0)

        def update(done: int, largest: int) -> None:
            spent = time.perf_counter() - began
            bar.update(task, done=done, rate=done / spent if spent else 0.0, largest=largest)

        yield update


def upto_option(help_text: str) -> Callable[[F], F]:
    """``--upto N`` (default 100): the last n of a value sequence G(0..N)."""
    return click.option(  # type: ignore[return-value]
        "--upto", type=click.IntRange(min=0), default=100, show_default=True, help=help_text
    )
