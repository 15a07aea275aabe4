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
    >>> said = []
    >>> notify = said.append
    >>> import explorer.notices as notices
    >>> notices.notify, saved = said.append, notices.notify
    >>> notices.say("waiting")
    >>> notices.notify = saved
    >>> said
    ['waiting']
    """
    if notify is not None:
        notify(text)
