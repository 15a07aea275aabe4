"""Package members that load on first use: a package names where each of its members lives, and
the module holding it is imported only when the member is first asked for (PEP 562), so that a
command reading a database never imports NetworkX, numpy or the drawing code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_members(
    namespace: dict[str, Any], homes: dict[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for members ``homes`` maps to their modules.

    Examples
    --------
    >>> namespace = {"__name__": "pkg"}
    >>> getattr_, dir_ = lazy_members(namespace, {"sqrt": "math"})
    >>> getattr_("sqrt")(9.0), "sqrt" in namespace, dir_()
    (3.0, True, ['__name__', 'sqrt'])
    """
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value  # found directly from now on
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
