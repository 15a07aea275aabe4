"""Files explorer writes (exports, pages, pictures): complete or not at all.

Every file is written beside its destination under a temporary name, flushed to disk, and
renamed over the destination only when complete. A write that fails (a full disk, a missing
folder, no permission) leaves the previous file as it was and no temporary file behind. A
destination that is a symbolic link, a directory, a device or a FIFO is refused before anything
is written: a rename would replace the device with a file, and opening a FIFO would block.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from explorer.errors import ExplorerError, OutputFileError


def check_destination(path: Path, error: type[ExplorerError] = OutputFileError) -> None:
    """Refuse a destination that is not a regular file or a new name.

    Examples
    --------
    >>> check_destination(Path("/dev/null"))
    Traceback (most recent call last):
    ...
    explorer.errors.OutputFileError: cannot write '/dev/null': it is not a regular file
    """
    if path.is_symlink():
        raise error(
            f"{str(path)!r} is a symbolic link: explorer never writes through one (remove the "
            "link or name another file)"
        )
    if path.is_dir():
        raise error(f"cannot write {str(path)!r}: it is a directory")
    if path.exists() and not path.is_file():
        raise error(f"cannot write {str(path)!r}: it is not a regular file")


def _file_mode(path: Path) -> int:
    """The mode the new file gets: the old file's, else what the umask gives a new file."""
    with suppress(OSError):
        return path.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def replacing(
    paths: Sequence[Path], *, binary: bool = False, error: type[ExplorerError] = OutputFileError
) -> Iterator[list[IO[Any]]]:
    """Files (text in UTF-8, or `binary`) that replace `paths` only if the block completes.

    Raises
    ------
    OutputFileError (or `error`)
        For a destination that is a symbolic link, a directory, a device or a FIFO, or a write
        that fails (full disk, no permission, missing folder): nothing is replaced then.

    Examples
    --------
    >>> folder = Path(tempfile.mkdtemp())
    >>> with replacing([folder / "a.txt"]) as (file,):
    ...     _ = file.write("G = 0")
    >>> (folder / "a.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('G = 0', ['a.txt'])
    """
    for path in paths:
        check_destination(path, error)
    temporary: list[str] = []
    current = paths[0]
    try:
        with ExitStack() as stack:
            files: list[IO[Any]] = []
            for path in paths:
                current = path
                fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
                temporary.append(name)
                os.fchmod(fd, _file_mode(path))
                if binary:
                    file: IO[Any] = os.fdopen(fd, "wb", buffering=1 << 20)
                else:
                    file = os.fdopen(fd, "w", encoding="utf-8", newline="", buffering=1 << 20)
                files.append(stack.enter_context(file))
            yield files
            for path, file in zip(paths, files, strict=True):
                current = path
                file.flush()
                os.fsync(file.fileno())
        while temporary:
            current = paths[len(paths) - len(temporary)]
            check_destination(current, error)
            os.replace(temporary[0], current)
            temporary.pop(0)
    except OSError as failure:
        raise error(
            f"cannot write {str(current)!r}: {failure.strerror or failure} (nothing was replaced)"
        ) from None
    finally:
        for name in temporary:
            with suppress(OSError):
                os.unlink(name)
