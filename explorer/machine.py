"""What the machine has: its physical memory, the cap of every memory option; and the check of
work against a memory budget."""

from __future__ import annotations

import os
from pathlib import Path

from explorer.errors import GraphTooLargeError, MemoryOptionError

MIB = 2**20


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (``os.sysconf``, else ``/proc/meminfo``), or None
    where neither says.

    Examples
    --------
    >>> machine_memory() > 2**20
    True
    """
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        if pages > 0 and size > 0:
            return int(pages * size)
    except (ValueError, OSError, AttributeError):
        pass
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory_option(option: str, mib: int) -> int:
    """`mib` (MiB) when the machine has that much memory, else a `MemoryOptionError` naming
    the option and what the machine has.

    Examples
    --------
    >>> check_memory_option("--max-memory", 64)
    64
    >>> try:
    ...     check_memory_option("--max-memory", 2**40)
    ... except MemoryOptionError as error:
    ...     print(str(error).split(" is ")[0])
    --max-memory 1,099,511,627,776 MiB
    """
    total = machine_memory()
    if total is not None and mib * MIB > total:
        raise MemoryOptionError(
            f"{option} {mib:,} MiB is more than this machine's memory ({total // MIB:,} MiB): "
            f"give at most {total // MIB:,}"
        )
    return mib


def check_memory_need(need: int, limit_mb: int, what: str, *, option: str) -> None:
    """Refuse work that needs `need` bytes when its budget is `limit_mb` MiB.

    Raises
    ------
    GraphTooLargeError
        When `need` is over the budget, saying "`what` about N MiB, over the limit of L MiB
        (raise it with `option`)": `what` names the work and its verb (``"the values of nim up
        to heap 9 need"``); the error's `limit` is `limit_mb`.

    Examples
    --------
    >>> check_memory_need(2**20, 1, "a table needs", option="--memory")
    >>> try:
    ...     check_memory_need(3 * 2**20, 1, "a table needs", option="--memory")
    ... except GraphTooLargeError as error:
    ...     print(error)
    a table needs about 3 MiB, over the limit of 1 MiB (raise it with --memory)
    """
    if need > limit_mb * MIB:
        raise GraphTooLargeError(
            f"{what} about {need / MIB:,.0f} MiB, over the limit of {limit_mb:,} MiB "
            f"(raise it with {option})",
            limit_mb,
        )


#: Bytes a state of a game graph held in memory takes (a NetworkX graph with its moves and
#: values, measured: 310 MB for 200,000 WindUp states).
GRAPH_BYTES_PER_STATE = 1_600


def check_states_option(option: str, states: int) -> int:
    """`states` when a game graph of that many states fits in the machine's memory, else a
    `MemoryOptionError` naming the option and the most that fit.

    Examples
    --------
    >>> check_states_option("--max-states", 1000)
    1000
    """
    total = machine_memory()
    if total is not None and states * GRAPH_BYTES_PER_STATE > total:
        most = total // GRAPH_BYTES_PER_STATE
        raise MemoryOptionError(
            f"{option} {states:,} would hold about {states * GRAPH_BYTES_PER_STATE // MIB:,} "
            f"MiB of game graph in memory, more than this machine's {total // MIB:,} MiB: "
            f"give at most {most:,}"
        )
    return states
