"""What every command shares: the exit-code rule, names made visible, tables that drop nothing,
progress bars, JSON output and the common options.

The exit-code rule, applied once by `ExplorerGroup` for every command:

* a usage error (an unknown option, a missing argument, a bad value: click's `UsageError`,
  `BadParameter`, `ParamType.fail`) exits 2 with click's usage message, and so does the
  library's `UsageError` (options that do not fit the game), as one ``Error: ...`` line;
* any other refusal (an `ExplorerError`: a bad spec, position, file or database) exits 1
  with exactly one ``Error: ...`` line on standard error;
* output into a closed pipe (``explorer stats nim | head -1``) ends quietly with exit status
  141, as a Unix tool ended by SIGPIPE does;
* anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import unicodedata
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.cells import cell_len
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from explorer import notices, pace
from explorer.errors import ExplorerError, UsageError, WorkLimitError
from explorer.limits import DEFAULT_MAX_SECONDS, MAX_STORED_INT

if TYPE_CHECKING:  # the games load with the commands that use them, not with every command
    from explorer.games.convention import Convention

F = TypeVar("F", bound=Callable[..., Any])


class _Console(Console):
    """rich's console, but a closed pipe ends the command as every other output does (see
    `ExplorerGroup`), not by rich's own exit status 1."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


console = _Console(highlight=False, soft_wrap=True, markup=False, emoji=False)

#: Most states a command may be asked to build or hold in memory at once.
MAX_STATES_IN_MEMORY = 100_000_000
#: Most states a database build may be asked to stop after.
MAX_STATES_STORED = 10_000_000_000
#: Most memory an option may allow a command (MiB): 16 TiB.
MAX_MEMORY_MIB = 2**24
#: Longest side of a value table (rows, columns); the cells are guarded by the library too.
MAX_SIDE = 1_000_000


#: Longest ``Error:`` line printed; longer messages are cut in the middle.
LONGEST_ERROR = 2_000


#: What Ctrl-C prints: writes commit in batches, so what was written stays and is reused.
INTERRUPTED = (
    "Interrupted: everything already written is kept (a build or a stored sequence "
    "continues from it); run the same command again to resume."
)


class AsciiIntRange(click.IntRange):
    """An integer option written in ASCII digits only, within a range: ``int`` would also take
    ``"３"``, ``"1_000"`` and ``" 5"``, which no position or parameter accepts either."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            digits = value[1:] if value.startswith("-") else value
            if not (digits.isascii() and digits.isdigit()):
                self.fail(f"{value!r} is not a whole number in ASCII digits.", param, ctx)
        return super().convert(value, param, ctx)


class ExplorerGroup(click.Group):
    """A command group that applies the exit-code rule (see the module's docstring) to every
    command under it: an `ExplorerError` becomes one ``Error: ...`` line and exit 1."""

    def invoke(self, ctx: click.Context) -> Any:
        notices.notify = _notify  # a writer that waits for another says so
        try:
            result = _invoke_unwrapped(super().invoke, ctx)
            sys.stdout.flush()  # here, so that a reader gone away is met below, not at exit
            return result
        except BrokenPipeError:  # the reader stopped (| head): end quietly, as Unix tools do
            _discard_stdout()
            raise click.exceptions.Exit(SIGPIPE_EXIT) from None
        except WorkLimitError as error:  # a stop, not an error: what was written is kept
            raise click.ClickException(visible(str(error))) from None
        except KeyboardInterrupt:
            click.echo(f"\n{INTERRUPTED}", err=True)
            raise click.exceptions.Exit(130) from None
        except UsageError as error:  # options that do not fit the game: exit 2, one line
            raise click.UsageError(visible(str(error))) from None
        except ExplorerError as error:
            message = visible(str(error))
            if len(message) > LONGEST_ERROR:  # a message quoting a huge input keeps both ends
                message = f"{message[: LONGEST_ERROR // 2]} ... {message[-LONGEST_ERROR // 4 :]}"
            raise click.ClickException(message) from None
        finally:
            end_work_bound()


def _invoke_unwrapped(invoke: Callable[[click.Context], Any], ctx: click.Context) -> Any:
    """`invoke`, with the stop or Ctrl-C that a signal raised inside a C extension given back:
    such code (igraph's canonical labelling, say) runs the handler, then reports the exception
    it raised as a `SystemError` whose cause it is."""
    try:
        return invoke(ctx)
    except SystemError as error:
        if isinstance(error.__cause__, WorkLimitError | KeyboardInterrupt):
            raise error.__cause__ from None
        raise


# -- the work bound ----------------------------------------------------------------------------
#: The command whose work bound is running, and the handler of SIGALRM before it started.
_BOUND: dict[str, Any] = {}


def _work_bound(ctx: click.Context, param: click.Parameter, value: int | None) -> None:
    """Start the command's work bound (`DEFAULT_MAX_SECONDS`, or ``--max-seconds``; 0 for
    none): past it, SIGALRM raises `WorkLimitError` wherever the command is, and before it a
    loop that knows its length stops when its pace says it cannot end in time (`pace`).
    Where Python drops an exception (a finaliser the garbage collector ran, say), it is
    raised again at once."""
    import signal
    import threading

    seconds = DEFAULT_MAX_SECONDS if value is None else value
    end_work_bound()
    if not seconds or threading.current_thread() is not threading.main_thread():
        return
    command = f"explorer {ctx.info_name}"
    unraisable = sys.unraisablehook

    def stop(signum: int, frame: Any) -> None:
        raise WorkLimitError(
            f"{command} ran past its work bound of {seconds:,} s and stopped (raise it with "
            "--max-seconds N, or --max-seconds 0 for none; a build or a stored sequence keeps "
            "what it wrote and continues from there)"
        )

    def dropped(what: Any) -> None:
        if isinstance(what.exc_value, WorkLimitError):
            signal.setitimer(signal.ITIMER_REAL, 0.001)  # again, outside the finaliser
        else:
            unraisable(what)

    _BOUND["previous"] = signal.signal(signal.SIGALRM, stop), unraisable
    sys.unraisablehook = dropped
    signal.setitimer(signal.ITIMER_REAL, seconds)
    pace.start_bound(seconds, command)  # loops that know their length stop early


def end_work_bound() -> None:
    """Stop the running work bound, if any, and give SIGALRM its handler back."""
    import signal

    pace.end_bound()
    if "previous" in _BOUND:
        signal.setitimer(signal.ITIMER_REAL, 0)
        handler, sys.unraisablehook = _BOUND.pop("previous")
        signal.signal(signal.SIGALRM, handler)


def max_seconds_option() -> click.Option:
    """``--max-seconds``, which every command but ``serve`` takes (see `_work_bound`)."""
    return click.Option(
        ["--max-seconds"],
        type=AsciiIntRange(min=0, max=10**9),
        default=None,
        expose_value=False,
        callback=_work_bound,
        metavar="S",
        help=f"Stop with an error after S seconds of work (default {DEFAULT_MAX_SECONDS:,}; "
        "0: no bound), or at once when work of known length shows by its pace that it cannot "
        "end by then.",
    )


#: Commands without a work bound: a server runs until it is stopped.
UNBOUNDED_COMMANDS = frozenset({"serve"})


#: The exit status of a command whose reader went away: what a shell reports for a process
#: that SIGPIPE ended (128 + 13), as for ``yes | head -1``.
SIGPIPE_EXIT = 141


def _discard_stdout() -> None:
    """Point standard output at /dev/null, so that what is still buffered is not flushed into
    the closed pipe at exit (which Python would report)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's capture)
        pass


def _notify(text: str) -> None:
    click.echo(visible(text), err=True)


class LazyCommands(MutableMapping[str, click.Command]):
    """A command group's commands, each imported from its module when first looked up.

    Made from a mapping of command name to module name; the module's ``COMMANDS`` list holds
    the command. Commands added later (`click.Group.add_command`) are kept as given.
    """

    def __init__(self, modules: dict[str, str]) -> None:
        self._modules = dict(modules)
        self._loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self._loaded:
            module = importlib.import_module(self._modules[name])  # KeyError: no such command
            command = next(c for c in module.COMMANDS if c.name == name)
            if name not in UNBOUNDED_COMMANDS and not any(
                p.name == "max_seconds" for p in command.params
            ):
                command.params.append(max_seconds_option())
            self._loaded[name] = command
        return self._loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._loaded[name] = command
        self._modules.pop(name, None)

    def __delitem__(self, name: str) -> None:
        if name not in self:
            raise KeyError(name)
        self._modules.pop(name, None)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**self._modules, **self._loaded})

    def __len__(self) -> int:
        return len({**self._modules, **self._loaded})


def plural(number: int, noun: str) -> str:
    """A count and its noun, plural unless the count is one: ``1 problem``, ``2,048 states``.

    Examples
    --------
    >>> plural(1, "problem"), plural(2048, "state")
    ('1 problem', '2,048 states')
    """
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


def visible(text: object) -> str:
    """`text` with its control characters made visible, so it prints on one line as itself.

    Newlines, escape sequences, bidirectional overrides and other non-printing characters
    (Unicode categories Cc, Cf, Zl, Zp) become ``\\n``, ``\\x1b``, ``\\u202e``, ...; every other
    character, backslashes included, is kept. Every name a command prints (positions, games,
    files) goes through it.

    Examples
    --------
    >>> visible("a\\x1b]0;owned\\x07b\\nc")
    'a\\\\x1b]0;owned\\\\x07b\\\\nc'
    >>> visible("3,4,5")
    '3,4,5'
    """
    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        repr(ch)[1:-1] if unicodedata.category(ch) in _HIDDEN or ch == "\x7f" else ch for ch in text
    )


_HIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}

#: Longest position a command prints whole (``--json`` prints every position whole).
LONGEST_POSITION = 200
#: How much of a longer one it prints.
SHOWN_START = 60


def shown(text: object) -> str:
    """A position as commands print it: `visible`, and one longer than `LONGEST_POSITION`
    cut to its start and its length.

    Examples
    --------
    >>> shown("3,4,5")
    '3,4,5'
    >>> shown("0-1," * 100)[-60:]
    '0-1,0-1,0-1,... (400 characters; --json prints it whole)'
    """
    text = visible(text)
    if len(text) <= LONGEST_POSITION:
        return text
    return f"{text[:SHOWN_START]}... ({len(text):,} characters; --json prints it whole)"


def print_table(table: Table) -> None:
    """Print a rich table without dropping a value, at any width, on a terminal or not.

    Columns that do not fit the console's width go to further tables, each repeating the first
    column (the row's name); a cell wider than the console folds onto several lines.
    """
    columns = table.columns
    for column in columns:
        column.overflow = "fold"
    widths = [
        max([cell_len(str(column.header)), *(cell_len(str(c)) for c in column.cells)]) + 3
        for column in columns
    ]
    room = console.width - 1
    if sum(widths) <= room or len(columns) <= 2:
        console.print(table)
        return
    chunks: list[list[int]] = [[]]
    used = widths[0]
    for i in range(1, len(columns)):
        if chunks[-1] and used + widths[i] > room:
            chunks.append([])
            used = widths[0]
        chunks[-1].append(i)
        used += widths[i]
    cells = [list(column.cells) for column in columns]
    for n, chunk in enumerate(chunks):
        part = Table(
            title=table.title if n == 0 else None,
            box=table.box,
            show_header=table.show_header,
        )
        for i in [0, *chunk]:
            part.add_column(
                columns[i].header, justify=columns[i].justify, overflow="fold", no_wrap=False
            )
        for r in range(table.row_count):
            part.add_row(*(cells[i][r] for i in [0, *chunk]))
        console.print(part)


class _Elapsed(TimeElapsedColumn):
    """Elapsed time that never shrinks (rich drops the last column first when space runs out)."""

    def get_table_column(self) -> Any:
        column = super().get_table_column()
        column.no_wrap = True
        column.min_width = 7
        return column


def stderr_progress(
    *columns: ProgressColumn, enabled: bool = True, errors: Console | None = None
) -> Progress:
    """A rich progress display of `columns` on standard error (or the console `errors`), shown
    only on a terminal and when `enabled`, and removed when done: the form of every progress
    bar and spinner of the CLI, whose standard output stays for results."""
    errors = errors or Console(stderr=True)
    return Progress(
        *columns,
        console=errors,
        transient=True,
        disable=not enabled or not errors.is_terminal,
    )


@contextmanager
def progress_bar(
    label: str,
    fields: dict[str, str],
    *,
    total: int | None,
    eta: bool | None = None,
    enabled: bool = True,
    errors: Console | None = None,
    initial: dict[str, Any] | None = None,
) -> Iterator[Callable[..., None]]:
    """A progress bar on standard error (only on a terminal, removed when done), with the time
    left when the `total` is known (or, with `eta`, once an update gives it: ``total=``).

    `fields` maps a field name to its column's format (e.g. ``"{:>10,} states"``); the
    function yielded takes ``completed=`` and the fields as keywords. The columns fit in 80
    characters, the elapsed time included. Fields start at 0, or at their `initial` value.
    """
    texts = [
        TextColumn(fmt.replace("{", f"{{task.fields[{name}]", 1)) for name, fmt in fields.items()
    ]
    bar = stderr_progress(
        SpinnerColumn(),
        TextColumn(label),
        BarColumn(bar_width=10),
        *texts,
        _Elapsed(),
        *([TimeRemainingColumn()] if (total is not None if eta is None else eta) else []),
        enabled=enabled,
        errors=errors,
    )
    with bar:
        start: dict[str, Any] = {**dict.fromkeys(fields, 0), **(initial or {})}
        task = bar.add_task(label, total=total, **start)

        def update(completed: int | None = None, **values: Any) -> None:
            bar.update(task, completed=completed, **values)

        yield update


@contextmanager
def working(label: str, *, enabled: bool = True) -> Iterator[Callable[[str], None]]:
    """A spinner with the current stage and the elapsed time, on standard error (terminals
    only): for long work whose size is not known in advance. Yields a function that names
    the next stage."""
    bar = stderr_progress(
        SpinnerColumn(), TextColumn("{task.description}"), _Elapsed(), enabled=enabled
    )
    with bar:
        task = bar.add_task(label, total=None)

        def stage(description: str) -> None:
            bar.update(task, description=f"{label}: {description}")

        yield stage


@contextmanager
def search_progress(
    stage: Callable[[str], None], max_memory: int | None, workers: int = 1
) -> Iterator[None]:
    """Within the block, a long pruned search names its progress (the part table's size) in
    a spinner's stage (`working`), keeps its tables within ``--memory`` when given, and
    splits into ``--workers`` processes."""
    from explorer.analysis.parts import PART_TABLE

    before = PART_TABLE.progress, PART_TABLE.max_memory_mb, PART_TABLE.workers
    PART_TABLE.progress = stage
    PART_TABLE.max_memory_mb = max_memory
    PART_TABLE.workers = workers
    try:
        yield
    finally:
        PART_TABLE.progress, PART_TABLE.max_memory_mb, PART_TABLE.workers = before


def print_json(data: object) -> None:
    """One JSON document on standard output."""
    click.echo(json.dumps(data, ensure_ascii=False))


def json_option(shape: str) -> Callable[[F], F]:
    """``--json``, whose help says the `shape` of what it prints (its keys), so that a script
    knows what to read: ``json_option("one object: game, position, grundy")``."""
    return click.option("--json", "as_json", is_flag=True, help=f"Print JSON for scripts: {shape}.")


def graph_within_machine(
    ctx: click.Context, param: click.Parameter, value: int | None
) -> int | None:
    """A number of states to hold in memory, refused past what the machine's memory holds."""
    from explorer.machine import check_states_option

    return None if value is None else check_states_option("--max-states", value)


max_states_option = click.option(
    "--max-states",
    type=AsciiIntRange(min=1, max=MAX_STATES_IN_MEMORY),
    callback=graph_within_machine,
    default=None,
    help="Largest game graph to build in memory (default 200,000 states).",
)


def _convention(ctx: click.Context, param: click.Parameter, flag: bool) -> Convention:
    from explorer.games.convention import Convention

    return Convention.of(flag)


def misere_flag(help_text: str) -> Callable[[F], F]:
    """``--misere``, given to the command as its `Convention` (``convention``)."""
    return click.option(
        "--misere", "convention", is_flag=True, callback=_convention, help=help_text
    )


misere_option = misere_flag(
    "Misère play: the player who makes the last move loses (outcome and remoteness)."
)


def within_machine(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    """A memory option's value, refused (one ``Error:`` line) past the machine's memory."""
    from explorer.machine import MIB, check_memory_option, machine_memory

    if value is None:
        return None
    if ctx.get_parameter_source(str(param.name)) == click.core.ParameterSource.DEFAULT:
        total = machine_memory()  # a default is only lowered on a small machine
        return value if total is None else max(1, min(value, total // MIB))
    return check_memory_option(f"--{param.name}".replace("_", "-"), value)


max_memory_option = click.option(
    "--memory",
    "--max-memory",  # the spelling of earlier versions, still taken
    "max_memory",
    type=AsciiIntRange(min=1, max=MAX_MEMORY_MIB),
    callback=within_machine,
    default=None,
    metavar="MIB",
    help="Most memory for value tables, in MiB (default 2,048).",
)


workers_option = click.option(
    "--workers",
    type=AsciiIntRange(min=1, max=os.cpu_count() or 1),
    default=1,
    show_default=True,
    metavar="N",
    help="Cores to use (at most this machine's); the results are the same as with one.",
)


@contextmanager
def sequence_progress(
    enabled: bool, total: int | None = None
) -> Iterator[Callable[[int, int], None]]:
    """The progress bar of long value computations: heaps done, values a second and the
    largest value so far, with the time left when the `total` of heaps is known (from the
    recent rate: the cost of a heap grows with n, so it is an estimate)."""
    fields = {"done": "{:>12,} heaps", "rate": "{:>9,.0f}/s", "largest": "largest {:,}"}
    began = time.perf_counter()
    with progress_bar("values", fields, total=total, enabled=enabled) as bar:

        def update(done: int, largest: int) -> None:
            spent = time.perf_counter() - began
            bar(completed=done, done=done, rate=done / spent if spent else 0.0, largest=largest)

        yield update


def upto_option(help_text: str, *, default: int | None = 100) -> Callable[[F], F]:
    """``--upto N``: the last n of a value sequence G(0..N); its `default` is shown in the help
    (None: none is shown, `help_text` says what the command then chooses)."""
    return click.option(
        "--upto",
        type=AsciiIntRange(min=0, max=MAX_STORED_INT),
        default=default,
        show_default=True,
        help=help_text,
    )


def stored_option(help_text: str) -> Callable[[F], F]:
    """``--db [URL]``: keep what a computation finds in a database (`help_text` says what), the
    default database when given alone (``$EXPLORER_DB``, else ``./explorer.db``)."""
    return click.option(
        "--db",
        "url",
        metavar="URL",
        is_flag=False,
        flag_value="",
        default=None,
        help=f"{help_text}; --db alone means the default ($EXPLORER_DB, else ./explorer.db).",
    )
