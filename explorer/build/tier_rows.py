"""A solved tier's rows (`TierRows`): written by the build's writer thread in one transaction
with the tiers they complete (`Write`), either packed and inserted there, or first written by
a worker process into a shard file that the database takes in whole (`Shards`, SQLite with a
local worker pool: `explorer.storage.backends.shards`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.build.scratch import Keys
from explorer.build.writer import BuildProgress
from explorer.games.base import Game
from explorer.generation.tiers import heap_texts, worker_game
from explorer.storage.backends.bulk import NewStates
from explorer.storage.backends.shards import write_shard
from explorer.storage.rows.moves import packed_runs
from explorer.storage.rows.records import BuildCounts

if TYPE_CHECKING:
    from explorer.build.tier_worker import Pool


@dataclass
class TierRows:
    """The rows of solved states, their moves not yet packed: ids as stored, texts, depths
    and values; each state's ``counts[i]`` successors in `targets`, and its ``found[i]``
    predecessors in `sources` (state after state)."""

    ids: np.ndarray
    keys: Keys
    depth: np.ndarray
    grundy: np.ndarray
    remoteness: np.ndarray
    height: np.ndarray
    counts: np.ndarray
    targets: np.ndarray
    found: np.ndarray
    sources: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)

    @classmethod
    def joined(cls, parts: list[TierRows]) -> TierRows:
        """The rows of `parts`, one after the other."""
        if len(parts) == 1:
            return parts[0]
        columns = {
            name: np.concatenate([getattr(part, name) for part in parts])
            for name in cls.__dataclass_fields__
            if name != "keys"
        }
        if isinstance(parts[0].keys, np.ndarray):
            return cls(keys=np.concatenate([part.keys for part in parts]), **columns)
        return cls(keys=[key for part in parts for key in part.keys], **columns)

    def packed(self, game_id: int, build_id: int, width: int, game: Game[Any]) -> NewStates:
        """The rows as the database stores them: their texts written (`game`'s), each
        state's moves packed, `width` bytes an id (`explorer.storage.rows.moves`).

        Examples
        --------
        >>> one = np.array([1, 0])
        >>> rows = TierRows(np.array([5, 6]), ["1", "0"], one, one, one, one, one,
        ...                 np.array([6]), np.array([0, 1]), np.array([5]))
        >>> new = rows.packed(game_id=1, build_id=1, width=1, game=None)
        >>> [b and b.hex() for b in new.successors], [b and b.hex() for b in new.predecessors]
        (['81', None], [None, '7f'])
        """
        return NewStates(
            game_id,
            build_id,
            self.ids,
            as_texts(game, self.keys),
            self.depth,
            np.ones(len(self.ids), dtype=bool),
            self.grundy,
            self.remoteness,
            self.height,
            packed_runs(self.counts, self.ids, self.targets, width),
            packed_runs(self.found, self.ids, self.sources, width),
        )


def as_texts(game: Game[Any], keys: Keys) -> list[str]:
    """States' texts, from their texts or their rows of heaps."""
    return heap_texts(game, keys) if isinstance(keys, np.ndarray) else keys


def shard_rows(
    path: Path, rows: TierRows, game_id: int, build_id: int, width: int, spec: str
) -> Path:
    """A worker's task: pack `rows` (of the game `spec`) and write them into a new shard file
    at `path`."""
    write_shard(path, rows.packed(game_id, build_id, width, worker_game(spec)))
    return path


@dataclass
class Write:
    """One transaction of a build in tiers (`BatchWriter` writes it on its thread): the rows
    of tiers solved, each written once, whole, and those tiers recorded done."""

    progress: BuildProgress
    rows: list[TierRows] = field(default_factory=list)
    #: The rows written into a shard by a worker, when they are (see `Shards`) ...
    shard: Future[Path] | None = None
    #: ... else packed, for the writer thread to insert.
    packed: NewStates | None = None
    #: Each tier written: its number, states, moves, seconds to expand and to solve.
    tiers: list[tuple[str, int, int, float, float]] = field(default_factory=list)
    counts: BuildCounts | None = None
    last: bool = False
    #: Drop the unique key index before writing (see `KeyIndexPlan`).
    drop_key_index: bool = False
    #: What the rows add to the game's counts (see `explorer.storage.rows.counts`).
    tallies: list[tuple[str, str, int]] = field(default_factory=list)
    #: The longest packed column of the rows, in bytes (see `ensure_slots`).
    longest: int = 0

    @property
    def states(self) -> int:
        return sum(map(len, self.rows))


class Shards:
    """The shard files of a build's writes, in a folder of their own beside the database
    (removed at the end), each written by a worker of `pool` while the writer thread takes
    the one before into the database."""

    PREFIX = ".explorer-shards-"

    def __init__(self, folder: Path | None, pool: Pool) -> None:
        _remove_left(folder or Path(tempfile.gettempdir()), self.PREFIX)
        prefix = f"{self.PREFIX}{os.getpid()}-"
        self.folder = Path(tempfile.mkdtemp(prefix=prefix, dir=folder))
        self.pool = pool
        self.made = 0

    def submit(self, write: Write, game_id: int, build_id: int, width: int, spec: str) -> None:
        """Have a worker write `write`'s rows (one `TierRows`) into a shard."""
        self.made += 1
        path = self.folder / f"{self.made}.db"
        rows = write.rows[0]
        write.shard = self.pool.submit(shard_rows, path, rows, game_id, build_id, width, spec)

    @staticmethod
    def written(write: Write) -> Path | None:
        """The shard of `write` once written; None when its worker was lost (the rows are
        then written by the writer thread itself)."""
        if write.shard is None:
            return None
        try:
            return write.shard.result()
        except BrokenProcessPool:
            return None

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _remove_left(folder: Path, prefix: str) -> None:
    """Remove the shard folders that builds killed before their end left in `folder` (their
    process, named in the folder's name, is gone)."""
    for left in folder.glob(f"{prefix}*"):
        try:
            pid = int(left.name[len(prefix) :].split("-")[0])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(left, ignore_errors=True)
        except (ValueError, OSError):  # not one of ours, or another user's process
            continue
