"""What the machine has: its physical memory, the cap of every memory option."""

from __future__ import annotations

import os
from pathlib import Path

from explorer.errors import MemoryOptionError

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
