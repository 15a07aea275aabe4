"""What Jupyter shows of a value: its HTML from a real IPython display formatter, with explorer's
notebook views registered as ``import explorer`` registers them in a running IPython."""

from __future__ import annotations

from types import SimpleNamespace

from IPython.core.formatters import DisplayFormatter

import explorer

_SHELL = SimpleNamespace(display_formatter=DisplayFormatter())
explorer.load_ipython_extension(_SHELL)


def shown_html(value: object) -> str:
    """The HTML IPython shows for `value` (a KeyError when it has none)."""
    data, _ = _SHELL.display_formatter.format(value)
    return str(data["text/html"])
