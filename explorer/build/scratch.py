"""What a build in tiers keeps in files between expansion and solving rather than in memory:
the moves of the tiers expanded and not solved (`KeptMoves`), and on SQLite the keys of the
states not solved (`KeyScratch`).

A build in tiers numbers its states as it expands them, highest tier first, and solves them
lowest tier first, once every tier is expanded. Writing each state when it is numbered and
setting its values when it is solved writes every row twice; on SQLite a build instead writes
each state once, whole, when it is solved, and keeps the keys of the states numbered and not
yet solved in two append-only files named after the database: the keys, one a line, and the
byte at which each key ends (little-endian 64-bit integers). State id i is line i. The builder
appends the keys of a transaction's new states, on disk, before that transaction commits, so
every state a committed move names has its key in the files; a build killed and run again cuts
the files back to the states committed, and the last transaction of the build deletes them. No
process holds the keys in memory meanwhile.

1,004,731 states (``subtraction:1,2 180,180,180``): 1.2 s of the writer's CPU for the rows
written once, against 2.6 s for an insert and an update of each.
"""

from __future__ import annotations

import mmap
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from explorer.errors import DatabaseDamagedError, DatabaseFullError

#: What a key may not hold: it ends each line.
END = b"\n"


#: What an unfinished build in tiers' states wait for, as `stats` and `verify` say it.
UNFINISHED = "stored once solved: run the build again to finish it"


def database_folder(database: str | None) -> Path | None:
    """The folder of the SQLite file `database`; None for a database without a file (in
    memory, or a server's).

    >>> database_folder("/data/games.db").as_posix(), database_folder(":memory:")
    ('/data', None)
    """
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).absolute().parent


class KeyScratch:
    """The scratch files of one build in tiers of one game (see the module's notes)."""

    def __init__(self, base: Path) -> None:
        self.keys_path = base.with_name(base.name + ".keys")
        self.ends_path = base.with_name(base.name + ".ends")
        self.count = 0  # states whose keys are written
        self.size = 0  # bytes of keys written
        self._maps: list[mmap.mmap] = []  # the files, mapped to read
        self._ends: np.ndarray | None = None
        self._keys: np.ndarray | None = None

    @classmethod
    def beside(cls, database: str | None, game_id: int) -> KeyScratch | None:
        """The scratch files of game `game_id`'s build in the SQLite file `database`; None for a
        database without a file (in memory, or a server's)."""
        folder = database_folder(database)
        if folder is None or database is None:
            return None
        return cls(folder / f"{Path(database).name}-tiers-{game_id}")

    def start(self, count: int) -> None:
        """Keep the keys of the first `count` states (those a build stored before) and drop
        the rest: what a build killed appended without committing.

        Raises
        ------
        DatabaseDamagedError
            When the files hold fewer than `count` keys (removed, or cut short).
        """
        self.close()
        if not count:
            self.remove()
            self.keys_path.touch()
            self.ends_path.touch()
            return
        stored = self.ends_path.stat().st_size // 8 if self.ends_path.exists() else 0
        size = 0
        if stored >= count:
            with self.ends_path.open("rb") as ends:
                ends.seek((count - 1) * 8)
                size = int(np.frombuffer(ends.read(8), dtype="<i8")[0])
        kept = self.keys_path.stat().st_size if self.keys_path.exists() else 0
        if stored < count or kept < size:
            raise DatabaseDamagedError(
                f"the scratch files {self.keys_path} and {self.ends_path} of an unfinished "
                f"build hold {stored:,} of its {count:,} states, so it cannot go on: "
                "build the position into a new database file"
            )
        os.truncate(self.ends_path, count * 8)
        os.truncate(self.keys_path, size)
        self.count, self.size = count, size

    def append(self, first: int, keys: list[str]) -> None:
        """Write the keys of the states `first`, `first` + 1, ... (the next ones), on disk."""
        assert first == self.count, f"keys of state {first} written after {self.count}"
        if not keys:
            return
        text = ("\n".join(keys) + "\n").encode()
        ends = np.flatnonzero(np.frombuffer(text, dtype=np.uint8) == END[0]) + (self.size + 1)
        if len(ends) != len(keys):
            raise ValueError("a state's key holds a line break: it cannot be built in tiers")
        try:
            for path, data in ((self.keys_path, text), (self.ends_path, ends.astype("<i8"))):
                with path.open("ab") as file:
                    file.write(data if isinstance(data, bytes) else data.tobytes())
                    file.flush()
                    os.fsync(file.fileno())  # on disk before the transaction naming them
        except OSError as error:
            raise DatabaseFullError(f"cannot write the build's scratch file: {error}") from error
        self.count += len(keys)
        self.size = int(ends[-1])

    def keys(self, ids: np.ndarray) -> list[str]:
        """The keys of the states `ids` (in increasing order), read from the files."""
        if not len(ids):
            return []
        if self._ends is None or len(self._ends) < self.count:
            self.close()
            for path in (self.ends_path, self.keys_path):
                with path.open("rb") as file:
                    self._maps.append(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))
            self._ends = np.frombuffer(self._maps[0], dtype="<i8")
            self._keys = np.frombuffer(self._maps[1], dtype=np.uint8)
        ends, data = self._ends, self._keys
        assert data is not None
        try:
            first, last = int(ids[0]), int(ids[-1])
            if last - first < 4 * len(ids):  # nearly a run: one read, split
                start = int(ends[first - 1]) if first else 0
                lines = bytes(data[start : int(ends[last]) - 1]).decode().split("\n")
                return [lines[i] for i in (ids - first).tolist()]
            starts = np.where(ids > 0, ends[np.maximum(ids - 1, 0)], 0).tolist()
            stops = (ends[ids] - 1).tolist()
            return [bytes(data[a:b]).decode() for a, b in zip(starts, stops, strict=True)]
        finally:
            # the pages read stay in the system's file cache, not in this process: mapped,
            # every key read would count in its memory until the build ends (10 MiB of a
            # 1M-state build's 154 MiB peak)
            for mapping in self._maps if hasattr(mmap, "MADV_DONTNEED") else ():
                mapping.madvise(mmap.MADV_DONTNEED)

    def close(self) -> None:
        """Let go of the files' mappings."""
        self._ends = self._keys = None
        self._maps = []

    def remove(self) -> None:
        """Delete the files (the build is done)."""
        self.close()
        self.keys_path.unlink(missing_ok=True)
        self.ends_path.unlink(missing_ok=True)


@dataclass
class TierMoves:
    """The moves of one expanded tier: its states in order, their move counts, the ends."""

    ids: np.ndarray
    counts: np.ndarray
    targets: np.ndarray
    seconds: float = 0.0


class KeptMoves:
    """The moves of the tiers expanded and not yet solved, by tier, kept in a temporary file
    rather than in memory: every tier is expanded before the lowest is solved, so they are
    all kept at once, four bytes a state and four a move (a third of what the coordinator
    holds). A tier's are read back, whole, when it is solved.

    Examples
    --------
    >>> kept = KeptMoves()
    >>> kept[3] = TierMoves(np.array([5, 6]), np.array([2, 0]), np.array([7, 8]), 0.5)
    >>> len(kept), sorted(kept)
    (1, [3])
    >>> moves = kept.pop(3)
    >>> moves.ids.tolist(), moves.counts.tolist(), moves.targets.tolist(), moves.seconds
    ([5, 6], [2, 0], [7, 8], 0.5)
    >>> bool(kept)
    False
    >>> kept.close()
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder  # where the file goes: the database's folder, else the temporary one
        self.file: BinaryIO | None = None
        self.end = 0
        #: Each tier's place in the file: offset, states, moves, seconds to expand.
        self.places: dict[int, tuple[int, int, int, float]] = {}

    def __setitem__(self, tier: int, moves: TierMoves) -> None:
        try:
            if self.file is None:
                self.file = tempfile.TemporaryFile(prefix="explorer-moves-", dir=self.folder)
            self.file.seek(self.end)
            for array in (moves.ids, moves.counts, moves.targets):
                self.file.write(np.asarray(array, dtype=np.int32).tobytes())
        except OSError as error:
            raise DatabaseFullError(f"cannot write the build's scratch file: {error}") from error
        states, edges = len(moves.ids), len(moves.targets)
        self.places[tier] = (self.end, states, edges, moves.seconds)
        self.end += 4 * (2 * states + edges)

    def pop(self, tier: int) -> TierMoves:
        at, states, edges, seconds = self.places.pop(tier)
        data = np.zeros(0, dtype=np.int32)
        if states:
            assert self.file is not None
            self.file.seek(at)
            read = self.file.read(4 * (2 * states + edges))
            assert len(read) == 4 * (2 * states + edges), "a tier's moves were not read whole"
            data = np.frombuffer(read, dtype=np.int32)
        return TierMoves(data[:states], data[states : 2 * states], data[2 * states :], seconds)

    def __len__(self) -> int:
        return len(self.places)

    def __iter__(self) -> Iterator[int]:
        return iter(self.places)

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
