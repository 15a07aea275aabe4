"""Notices for the person waiting: one line said while a command waits on something (another
writer's lock). The library never prints; the command line sets `notify` to print to stderr.
"""

from __future__ import annotations

from collections.abc import Callable

#: Called with each notice; None (a library caller) says nothing.
notify: Callable[[str], None] | None = None


def say(text: str) -> None:
    """Pass one notice to `notify`, if it is set.

    Examples
    --------
    >>> import explorer.notices as notices
    >>> said: list[str] = []
    >>> saved, notices.notify = notices.notify, said.append
    >>> notices.say("waiting")
    >>> notices.notify = saved
    >>> said
    ['waiting']
    """
    if notify is not None:
        notify(text)
