"""What a build in tiers keeps in temporary files between expansion and solving rather than
in memory: each tier's states and moves (`KeptMoves`) and the moves into each tier found by
the tiers above it (`Incoming`). A tier's rows are written once, whole, when it is solved."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import BinaryIO

import numpy as np

from explorer.errors import DatabaseFullError
from explorer.storage.rows.moves import distinct


def database_folder(database: str | None) -> Path | None:
    """The folder of the SQLite file `database`; None for a database without a file (in
    memory, or a server's).

    >>> database_folder("/data/games.db").as_posix(), database_folder(":memory:")
    ('/data', None)
    """
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).absolute().parent


#: A tier's states: their texts, or their rows of heaps (`explorer.build.tier_numbering`).
Keys = list[str] | np.ndarray


@dataclass
class TierMoves:
    """One expanded tier: its states in order, their move counts, the ends, the seconds its
    expansion took and its states' keys (texts or rows)."""

    ids: np.ndarray
    counts: np.ndarray
    targets: np.ndarray
    seconds: float = 0.0
    keys: Keys = field(default_factory=list)


class Spill:
    """A temporary file written at its end and read back by place (the database's folder,
    else the temporary one); a write that fails is a `DatabaseFullError`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self.file: BinaryIO | None = None
        self.end = 0

    def write(self, *parts: bytes) -> int:
        """Append `parts`; the offset they start at."""
        at = self.end
        try:
            if self.file is None:
                self.file = tempfile.TemporaryFile(prefix="explorer-moves-", dir=self.folder)
            self.file.seek(at)
            for part in parts:
                self.file.write(part)
        except OSError as error:
            raise DatabaseFullError(f"cannot write the build's scratch file: {error}") from error
        self.end += sum(map(len, parts))
        return at

    def read(self, at: int, size: int) -> bytes:
        if not size:
            return b""
        assert self.file is not None
        self.file.seek(at)
        data = self.file.read(size)
        assert len(data) == size, "a build's scratch was not read whole"
        return data

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


class KeptMoves:
    """The expanded tiers not yet solved, by tier, kept in a temporary file rather than in
    memory: every tier is expanded before the lowest is solved, so they are all kept at once,
    four bytes a state and a move and the states' keys (texts, or rows of heaps of four bytes
    a heap). A tier's are read back, whole, when it is solved.

    Examples
    --------
    >>> kept = KeptMoves()
    >>> kept[3] = TierMoves(np.array([5, 6]), np.array([2, 0]), np.array([7, 8]), 0.5, ["a", "é"])
    >>> len(kept), sorted(kept)
    (1, [3])
    >>> moves = kept.pop(3)
    >>> moves.ids.tolist(), moves.counts.tolist(), moves.targets.tolist(), moves.seconds
    ([5, 6], [2, 0], [7, 8], 0.5)
    >>> moves.keys, bool(kept)
    (['a', 'é'], False)
    >>> kept[2] = TierMoves(np.array([7]), np.array([0]), np.array([]), 0.1, np.array([[1, 4]]))
    >>> kept.pop(2).keys.tolist()
    [[1, 4]]
    >>> kept.close()
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.spill = Spill(folder)
        #: Each tier's place in the file: offset, states, moves, bytes of keys, heaps a row
        #: (0: the keys are texts), seconds.
        self.places: dict[int, tuple[int, int, int, int, int, float]] = {}

    def __setitem__(self, tier: int, moves: TierMoves) -> None:
        keys, width = moves.keys, 0
        if isinstance(keys, np.ndarray):
            width = keys.shape[1]
            text = np.asarray(keys, dtype=np.int32).tobytes()
            arrays: tuple[np.ndarray, ...] = (moves.ids, moves.counts, moves.targets)
        else:
            lengths = np.fromiter(map(len, keys), dtype=np.int32, count=len(keys))
            text = "".join(keys).encode()
            arrays = (moves.ids, moves.counts, moves.targets, lengths)
        at = self.spill.write(*(np.asarray(a, dtype=np.int32).tobytes() for a in arrays), text)
        states, edges = len(moves.ids), len(moves.targets)
        self.places[tier] = (at, states, edges, len(text), width, moves.seconds)

    def pop(self, tier: int) -> TierMoves:
        at, states, edges, text, width, seconds = self.places.pop(tier)
        numbers = 4 * ((2 if width else 3) * states + edges) if states else 0
        data = np.frombuffer(self.spill.read(at, numbers), dtype=np.int32)
        ids, counts = data[:states], data[states : 2 * states]
        targets, lengths = data[2 * states : 2 * states + edges], data[2 * states + edges :]
        if width:
            rows = np.frombuffer(self.spill.read(at + numbers, text), dtype=np.int32)
            return TierMoves(ids, counts, targets, seconds, rows.reshape(states, width))
        keys = self.spill.read(at + numbers, text).decode()
        ends = [0, *accumulate(lengths.tolist())]
        every = [keys[a:b] for a, b in zip(ends, ends[1:], strict=False)]
        return TierMoves(ids, counts, targets, seconds, every)

    def __len__(self) -> int:
        return len(self.places)

    def __iter__(self) -> Iterator[int]:
        return iter(self.places)

    def close(self) -> None:
        self.spill.close()


class Incoming:
    """The moves into each tier not yet solved, added as the tiers above it are expanded
    (kept in a temporary file, by destination tier) and read back sorted by destination when
    the tier is solved: its states' predecessors. Memory holds one tier's moves at a time.

    Examples
    --------
    >>> into = Incoming()
    >>> into.add(2, np.array([9, 7]), np.array([1, 1]))
    >>> into.add(2, np.array([7]), np.array([0]))
    >>> [a.tolist() for a in into.pop(2)], [a.tolist() for a in into.pop(5)]
    ([[7, 7, 9], [0, 1, 1]], [[], []])
    >>> into.close()
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.spill = Spill(folder)
        #: Each tier's parts in the file: offset and moves.
        self.parts: dict[int, list[tuple[int, int]]] = {}

    def add(self, tier: int, dst: np.ndarray, src: np.ndarray) -> None:
        """Add the moves ``src[i] -> dst[i]`` into `tier`."""
        if len(dst):
            dst, src = np.asarray(dst, np.int32), np.asarray(src, np.int32)
            at = self.spill.write(dst.tobytes(), src.tobytes())
            self.parts.setdefault(tier, []).append((at, len(dst)))

    def pop(self, tier: int) -> tuple[np.ndarray, np.ndarray]:
        """The moves into `tier` as (dst, src), sorted by (dst, src)."""
        pairs = [
            np.frombuffer(self.spill.read(at, 8 * size), dtype=np.int32).reshape(2, size)
            for at, size in self.parts.pop(tier, [])
        ]
        if not pairs:
            return np.zeros(0, np.int32), np.zeros(0, np.int32)
        # one sort of (dst, src) pairs, as 64-bit numbers: ids are below 2**31
        key = np.concatenate([p[0].astype(np.int64) << 32 | p[1] for p in pairs])
        key.sort()
        return (key >> 32).astype(np.int32), (key & 0xFFFFFFFF).astype(np.int32)

    def close(self) -> None:
        self.spill.close()


def by_tier(
    into: dict[int, list[tuple[np.ndarray, np.ndarray]]],
    tiers: np.ndarray | list[int],
    targets: np.ndarray,
    dst: np.ndarray,
    src: np.ndarray,
) -> None:
    """Add the moves ``src[i] -> dst[i]`` (``targets[i]`` the index of `dst[i]`'s tier in
    `tiers`) to `into`, by the tier they go into (a slice's moves reach a few tiers).

    Examples
    --------
    >>> into = {}
    >>> by_tier(into, [4, 3], np.array([1, 0, 1]), np.array([7, 8, 7]), np.array([1, 1, 2]))
    >>> {t: [(d.tolist(), s.tolist()) for d, s in parts] for t, parts in sorted(into.items())}
    {3: [([7, 7], [1, 2])], 4: [([8], [1])]}
    """
    reached = np.asarray(tiers)
    tiers_reached = distinct(reached).tolist()
    if len(tiers_reached) == 1:
        into.setdefault(int(tiers_reached[0]), []).append((dst, src))
        return
    of_move = reached[targets]
    for tier in tiers_reached:
        part = of_move == tier
        if part.any():
            into.setdefault(int(tier), []).append((dst[part], src[part]))
