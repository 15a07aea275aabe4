"""The pace of long loops against the work bound a command runs under (``--max-seconds``): a
loop that knows how much is left says within seconds that it cannot end before the bound,
instead of running to it.

The command line starts the bound (`start_bound`); without one (the Python API) a pace never
stops anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from explorer.errors import WorkLimitError

#: Seconds a loop runs before its pace is first read, and between two readings.
FIRST_LOOK = 2.0
LOOK_EVERY = 1.0
#: How far past the time left a loop's forecast must go before it is stopped: the forecast
#: reads the pace of the last second only, so it is not misled by a slow start.
MARGIN = 1.25

#: The running bound: its end (time.monotonic), its length, the command it bounds.
_BOUND: dict[str, float | str] = {}


def start_bound(seconds: float, command: str) -> None:
    """Bound the loops that follow to end `seconds` from now (`command` names the runner)."""
    _BOUND.update(end=time.monotonic() + seconds, seconds=seconds, command=command)


def end_bound() -> None:
    """Lift the bound `start_bound` set."""
    _BOUND.clear()


def pace(what: str, total: int) -> Callable[[int], None]:
    """A check to call with the units of work done so far, out of `total`: once a loop has run
    `FIRST_LOOK` seconds, each second it forecasts the time the rest takes at the pace of the
    last second, and stops with `WorkLimitError` when that is past the bound by `MARGIN`.

    Only for loops whose units cost no less as they go (values of heap n, whose moves grow with
    n): a loop whose first unit fills a memo for the rest would be forecast far too long.

    Examples
    --------
    >>> check = pace("the values of nim up to heap 10", 10)
    >>> check(5)  # no bound: never stops
    """
    now = time.monotonic()
    last = [now, 0.0]
    next_look = [now + FIRST_LOOK]

    def check(done: int) -> None:
        if not _BOUND:
            return
        now = time.monotonic()
        if now < next_look[0]:
            return
        then, done_then = last
        last[:] = [now, done]
        next_look[0] = now + LOOK_EVERY
        if done <= done_then:
            return
        left = (total - done) * (now - then) / (done - done_then)
        end = float(_BOUND["end"])
        if left > MARGIN * (end - now):
            raise WorkLimitError(
                f"{_BOUND['command']} would run past its work bound of "
                f"{float(_BOUND['seconds']):,.0f} s: {what} would take about {_duration(left)} "
                f"more at its pace so far ({done:,} of {total:,} done; raise the bound with "
                "--max-seconds N, or --max-seconds 0 for none, or ask for less)"
            )

    return check


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.2 h``, ``41 days``.

    Examples
    --------
    >>> _duration(45.2), _duration(720), _duration(11520), _duration(3.5e6)
    ('45 s', '12 min', '3.2 h', '41 days')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.0f} days"
