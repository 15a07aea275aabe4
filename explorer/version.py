"""The package's version, read once from the installed package's metadata: pyproject.toml's
``version`` is the one place it is written. Low in the layers, so storage can name it.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def _installed_version() -> str:
    """The installed explorer's version, or ``0+unknown`` for a source tree not installed.

    Examples
    --------
    >>> _installed_version() == __version__
    True
    """
    try:
        return version("explorer")
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _installed_version()
