"""Writing drawings to files: the file name's suffix must match what is written, and a file
is replaced only when complete (`explorer.files.replacing`)."""

from __future__ import annotations

from pathlib import Path

from explorer.errors import OutputFileError
from explorer.files import replacing


def check_suffix(path: str | Path, suffixes: tuple[str, ...]) -> str:
    """The lower-case suffix of `path`, which must be one of `suffixes`.

    Examples
    --------
    >>> check_suffix("kayles.SVG", (".png", ".svg"))
    '.svg'
    >>> check_suffix("kayles.jpg", (".png", ".svg"))
    Traceback (most recent call last):
    ...
    explorer.errors.OutputFileError: cannot write 'kayles.jpg': expected a .png or .svg file
    """
    suffix = Path(path).suffix.lower()
    if suffix not in suffixes:
        raise OutputFileError(
            f"cannot write {str(path)!r}: expected a {' or '.join(suffixes)} file"
        )
    return suffix


def write_text(path: str | Path, text: str, *, suffixes: tuple[str, ...]) -> Path:
    """Write `text` to `path` in UTF-8, refusing a suffix outside `suffixes`.

    Raises
    ------
    OutputFileError
        On a wrong suffix, or when the file cannot be written (missing folder, no permission,
        a full disk: the previous file is kept), or is a device, FIFO or symbolic link.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_text(folder / "page.html", "<p>G = 0</p>", suffixes=(".html",)).read_text()
    '<p>G = 0</p>'
    """
    check_suffix(path, suffixes)
    target = Path(path)
    with replacing([target]) as (file,):
        file.write(text)
    return target
