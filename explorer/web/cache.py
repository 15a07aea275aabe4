"""`Counts`, the counts of the stored games a page shows, computed in the background and kept
until the database changes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from explorer.storage import Database, GameStats, StoredGame

#: Seconds the counts of a game stay cached while one of its builds runs.
BUILDING_TTL = 5.0
#: Seconds a page waits for counts before it shows what it has (and reloads itself).
COUNT_WAIT = 1.0


@dataclass
class _Cached:
    value: Any
    version: tuple[object, ...]
    at: float
    building: bool


class Counts:
    """The counts of the stored games (`Database.games`, `StoredGame.stats`), computed in the
    background and kept until the database changes.

    Counting reads every state of a game (seconds on millions of states), so a page never waits
    for it more than `COUNT_WAIT` seconds: it shows what was counted before, or nothing yet,
    and a fresh count is made in a thread of its own. Counts are kept until a build, import or
    edit starts or ends, and for `BUILDING_TTL` seconds only while a build runs.

    Examples
    --------
    >>> from explorer import open_database
    >>> db = open_database("sqlite://")
    >>> _ = db.game("nim").build("1,2")
    >>> Counts(db).stats(db.game("nim"), building=False, wait=30).states
    5
    >>> db.close()
    """

    def __init__(self, database: Database) -> None:
        self.database = database
        self.lock = threading.Lock()
        self.cache: dict[str, _Cached] = {}
        self.running: dict[str, threading.Event] = {}
        self.failed: dict[str, BaseException] = {}

    def stats(
        self, stored: StoredGame, building: bool, wait: float = COUNT_WAIT
    ) -> GameStats | None:
        """`StoredGame.stats` of a stored game, or None while it is being counted."""
        found: GameStats | None = self._get(
            f"stats {stored.convention} {stored.spec}", building, stored.stats, wait
        )
        return found

    def games(self, building: bool) -> list[dict[str, Any]] | None:
        """`Database.games` (each game with its numbers of states and edges), or None."""
        found: list[dict[str, Any]] | None = self._get(
            "games", building, self.database.games, COUNT_WAIT
        )
        return found

    def _get(self, name: str, building: bool, compute: Callable[[], Any], wait: float) -> Any:
        version = self.database.version()
        now = time.monotonic()
        with self.lock:
            if name in self.failed:
                raise self.failed.pop(name)
            hit = self.cache.get(name)
            if (
                hit is not None
                and hit.version == version
                and not (hit.building and now - hit.at > BUILDING_TTL)
            ):
                return hit.value
            done = self.running.get(name)
            if done is None:
                done = self.running[name] = threading.Event()
                worker = threading.Thread(
                    target=self._count, args=(name, compute, version, building, done), daemon=True
                )
                worker.start()
        done.wait(wait)
        with self.lock:
            if name in self.failed and done.is_set():
                raise self.failed.pop(name)
            hit = self.cache.get(name)
        return None if hit is None else hit.value

    def _count(
        self,
        name: str,
        compute: Callable[[], Any],
        version: tuple[object, ...],
        building: bool,
        done: threading.Event,
    ) -> None:
        try:
            value = compute()
        except BaseException as error:  # handed to the page that asks next
            with self.lock:
                self.failed[name] = error
                del self.running[name]
            done.set()
            return
        with self.lock:
            self.cache[name] = _Cached(value, version, time.monotonic(), building)
            del self.running[name]
        done.set()
