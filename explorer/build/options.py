"""How a build is asked for and what it answers: `BuildOptions` (from the command line or
`explorer.build.StoredGame.build`) and `BuildReport`."""

from __future__ import annotations

from concurrent.futures import CancelledError
from dataclasses import asdict, dataclass

from explorer.build.plans import (
    DEFAULT_MEMORY_BYTES,
    DEFER_KEY_INDEX_AT,
)
from explorer.errors import WorkerPoolError, WorkLimitError
from explorer.games.convention import NORMAL, Convention

#: States expanded per transaction: large enough for bulk rates, small enough to lose little.
BATCH_STATES = 50_000


@dataclass(frozen=True)
class BuildOptions:
    """How to build, from the command line or `explorer.build.StoredGame.build` to the builder.

    Attributes
    ----------
    max_states : int or None
        Stop once this many new states are stored (a state's moves are stored together).
    batch_states : int
        States expanded per transaction (fewer when states have many moves: a transaction
        takes about `BATCH_MOVES` moves at most).
    memory : int or None
        Stop cleanly, as at `max_states`, once the process uses this many bytes (resident);
        None for no budget.
    defer_key_index_at : int or None
        Drop the unique key index once this many new states are written, and at least as
        many as the database held (the index is created again at the end: see
        `explorer.build.plans.DEFER_KEY_INDEX_AT`); None keeps it throughout.
    workers : int
        Worker processes: more than one builds a game with tiers in tiers
        (`explorer.build.tier_manager`); 1, or a game without tiers, builds in this process.
    in_tiers : bool
        Build a game with tiers in tiers even on one worker, whose tasks then run in this
        process (``--workers 1`` given): each state's row is written once, whole, when its
        tier is solved.

    Examples
    --------
    >>> BuildOptions(max_states=1000).memory == DEFAULT_MEMORY_BYTES
    True
    """

    max_states: int | None = None
    batch_states: int = BATCH_STATES
    memory: int | None = DEFAULT_MEMORY_BYTES
    defer_key_index_at: int | None = DEFER_KEY_INDEX_AT
    workers: int = 1
    in_tiers: bool = False


@dataclass(frozen=True)
class BuildReport:
    """What a build did (see `to_dict` for the JSON form).

    ``status`` is ``complete`` when every state reachable from the position is stored and
    solved, ``stopped`` when ``max_states`` or the memory budget cut it short (``stopped_by``
    says which; building again continues).
    ``convention`` is ``misere`` for a misère build, whose ``grundy`` is G⁻ (zero exactly on
    misère P-positions) and whose outcome and remoteness are misère play's. In a game whose
    play may loop, a root of value ∞(K) has ``grundy`` None, ``infinite`` True and ``escapes``
    K; its outcome is N or D (a draw, with remoteness None).
    """

    game: str
    position: str
    build_id: int
    status: str
    states_new: int
    states_reused: int
    edges_new: int
    values_computed: int
    frontier: int
    states_stored: int
    grundy: int | None
    outcome: str | None
    remoteness: int | None
    seconds: float
    convention: Convention = NORMAL
    stopped_by: str | None = None
    infinite: bool = False
    escapes: list[int] | None = None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def __repr__(self) -> str:
        """One line: what was stored and the start's value."""
        value = "∞" if self.infinite else ("-" if self.grundy is None else self.grundy)
        return (
            f"<BuildReport {self.game} at {self.position}: {self.status}, "
            f"{self.states_stored:,} states stored ({self.states_new:,} new), G = {value}, "
            f"{self.outcome}, {self.seconds:.2f} s>"
        )


def ended_status(error: BaseException) -> str:
    """The status of a build that `error` ended: ``interrupted`` when the user stopped it (Ctrl-C,
    the work bound of ``--max-seconds``) or it lost the processes running its tasks (a cluster's
    scheduler gone, which cancels every task; a local pool that kept breaking): the same
    command resumes it. Else ``failed``."""
    stopped = KeyboardInterrupt | WorkLimitError | CancelledError | WorkerPoolError
    return "interrupted" if isinstance(error, stopped) else "failed"
