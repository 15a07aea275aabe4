"""What a build in tiers keeps in a file between expansion and solving rather than in memory:
the moves of the tiers expanded and not solved (`KeptMoves`). The database holds them too,
packed in the states' rows, for a build run again after a kill."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from explorer.errors import DatabaseFullError


def database_folder(database: str | None) -> Path | None:
    """The folder of the SQLite file `database`; None for a database without a file (in
    memory, or a server's).

    >>> database_folder("/data/games.db").as_posix(), database_folder(":memory:")
    ('/data', None)
    """
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).absolute().parent


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
