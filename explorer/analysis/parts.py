"""Values of parts by their canonical labels: one value per shape, shared by every position.

A game that labels its parts (`Game.part_label`: Node-Kayles, Arc-Kayles, Cram, Hackenbush,
``explorer.graph_game``) is valued here: a part's value is the mex over its moves of the XOR
of the values of the parts each move leaves, with a memo keyed by (family, label). The walk is
iterative (an explicit stack) and never builds a game graph, let alone a product of parts.
The memo (`PART_TABLE`) lives for the process; storage loads it from and saves it to a
database's part table. A value read from a store is checked against the part's moves when
first used (`PartTable.add_stored`): one changed value is never served.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from explorer.errors import CyclicGraphError, StoredPartError
from explorer.games.base import Components, Game, Position
from explorer.solver.pruned import DEFAULT_SEARCH_MEMORY_MB, PrunedSearch


@dataclass
class PartTable:
    """Values of parts, keyed by family then label, and counters of work done."""

    values: dict[str, dict[str, int]] = field(default_factory=dict)
    #: Parts valued by walking their moves (each label once).
    computed: int = 0
    #: Label look-ups answered by the table.
    hits: int = 0
    #: Label look-ups in all.
    lookups: int = 0
    #: Look-ups and hits per family since the last `take_counts`.
    counted: dict[str, list[int]] = field(default_factory=dict)
    #: Called now and then by a long search: storage saves what is new (``--db``).
    checkpoint: Callable[[], None] | None = None
    #: Called now and then by a long search with a line of progress.
    progress: Callable[[str], None] | None = None
    #: The memory a search's tables may take, in MiB (None: the search's default).
    max_memory_mb: int | None = None
    #: Processes a pruned search may split into (`explorer.analysis.parallel_search`).
    workers: int = 1
    #: Labels whose values were read from a store and not checked yet, by family.
    unchecked: dict[str, set[str]] = field(default_factory=dict)

    def family(self, family: str) -> dict[str, int]:
        """The values of one family's labels (a live dict)."""
        return self.values.setdefault(family, {})

    def add(self, family: str, label: str, value: int) -> None:
        self.family(family)[label] = value

    def add_stored(self, family: str, stored: dict[str, int]) -> None:
        """Take values read from a store (a database's part table), which `part_value`
        checks against each part's moves before it first uses one; a label the table knows
        already keeps its value, and a stored value that differs from it is refused.

        Raises
        ------
        StoredPartError
            When a stored value differs from the one the table holds.
        """
        values = self.family(family)
        for label, value in stored.items():
            known = values.get(label)
            if known is not None and known != value:
                raise StoredPartError.of(family, label, value, known)
        new = {label: value for label, value in stored.items() if label not in values}
        values.update(new)
        self.unchecked.setdefault(family, set()).update(new)

    def count(self, family: str, lookups: int, hits: int) -> None:
        self.lookups += lookups
        self.hits += hits
        counts = self.counted.setdefault(family, [0, 0])
        counts[0] += lookups
        counts[1] += hits

    def take_counts(self) -> dict[str, list[int]]:
        """Look-ups and hits per family since the last call."""
        counted, self.counted = self.counted, {}
        return counted

    def reset_counters(self) -> None:
        self.computed = self.hits = self.lookups = 0

    def clear(self) -> None:
        self.values.clear()
        self.counted.clear()
        self.unchecked.clear()
        self.reset_counters()
        _SEARCHES.clear()


#: The process's part values (storage fills it from a database and saves what is new).
PART_TABLE = PartTable()


def part_families(game: Game[Any]) -> list[str]:
    """The part families of a game and of a sum's components: those whose parts have labels
    (a game offers `Game.part_label`)."""
    games, found = [game], []
    while games:
        current = games.pop()
        summands = current.summands()
        if summands is not None:
            games.extend(summands)
        elif type(current).part_label is not Game.part_label:
            found.append(current.part_family())
    return sorted(set(found))


def search_families(game: Game[Any]) -> list[str]:
    """The part families the pruned search of a game (and of a sum's components) fills
    beyond `part_families`: its grid families (``cram-grid``, ``nodekayles-grid``)."""
    games, found = [game], []
    while games:
        current = games.pop()
        summands = current.summands()
        if summands is not None:
            games.extend(summands)
        else:
            found += [rules.family for rules in current.search_rules()]
    return sorted(set(found))


def parts_of(game: Game[Any], position: Position) -> list[Position]:
    """The parts of a position: those of its decomposition, or the position itself."""
    split = game.decompose(position)
    return [position] if split is None else [part.position for part in split.parts]


def part_value(game: Game[Any], position: Position, table: PartTable | None = None) -> int:
    """The Grundy value of a part of a game with part labels, from the table or by walking
    its moves (each new label once, iteratively).

    Examples
    --------
    >>> from explorer import load_game
    >>> kayles = load_game("nodekayles")
    >>> part_value(kayles, kayles.parse("P9"))  # Dawson's chess: G(9) of 0.137
    3
    """
    table = PART_TABLE if table is None else table
    family = game.part_family()
    values = table.family(family)
    label = game.part_label(position)
    if label is None:
        raise ValueError(f"{game.spec} gives no part label for {game.format(position)!r}")
    unchecked = table.unchecked.get(family, set())
    if label in values:
        table.count(family, 1, 1)
        if label in unchecked:
            _check_stored(game, position, label, table)
        return values[label]
    lookups, hits = 1, 0
    # each frame: a part, its label, and its moves as tuples of labels once expanded
    stack: list[tuple[Position, str]] = [(position, label)]
    expanded: dict[str, list[tuple[str, ...]]] = {}
    moves: list[tuple[str, ...]] | None
    while stack:
        part, name = stack[-1]
        if name in values:
            stack.pop()
            continue
        moves = expanded.get(name)
        if moves is None:
            moves = []
            missing = []
            for successor in dict.fromkeys(game.successors(part)):
                labels: list[str] = []
                for piece in parts_of(game, successor):
                    piece_label = game.part_label(piece)
                    assert piece_label is not None
                    lookups += 1
                    if piece_label in values:
                        hits += 1
                        if piece_label in unchecked:  # before any value rests on it
                            _check_stored(game, piece, piece_label, table)
                    elif piece_label == name or piece_label in expanded:
                        # a part being valued comes back: its value would rest on itself
                        raise CyclicGraphError(
                            f"{game.spec}: a part shaped as {game.format(piece)[:60]!r} comes "
                            f"back among the parts its own moves leave (from "
                            f"{game.format(part)[:60]!r}): the game has a cycle, so its parts "
                            "have no Grundy values"
                        )
                    else:
                        missing.append((piece, piece_label))
                    labels.append(piece_label)
                moves.append(tuple(labels))
            if missing:
                expanded[name] = moves
                stack.extend(missing)
                continue
        else:
            del expanded[name]
        table.add(family, name, _mex_of_moves(moves, values))
        table.computed += 1
        stack.pop()
    table.count(family, lookups, hits)
    return values[label]


# -- the pruned search ---------------------------------------------------------------------
#: The process's pruned searches, by part family: their tables live as long as the part table.
_SEARCHES: dict[tuple[str, bool], Any] = {}


def pruned_search(rules: Any, table: PartTable | None = None, keys: Sequence[Hashable] = ()) -> Any:
    """The process's search of a rule set's family (a `PrunedSearch`, or its compiled form
    where the rules offer one and every key fits it), holding every value the part table has
    for it (stored values read by storage included)."""
    table = PART_TABLE if table is None else table
    compiled = getattr(rules, "compiled", False) and all(map(_fits, keys))
    search = _SEARCHES.get((rules.family, compiled))
    if search is None or search.rules is not rules:
        if compiled:
            from explorer.solver.pruned_kernel import CompiledGridSearch

            search = CompiledGridSearch(rules)
        else:
            search = PrunedSearch(rules)
        _SEARCHES[(rules.family, compiled)] = search
    known = table.family(rules.family)
    if len(known) > search.adopted:  # a stored value is checked by the search at first use
        search.adopt(known, table.unchecked.setdefault(rules.family, set()))
        search.adopted = len(known)
    search.max_memory_mb = table.max_memory_mb or DEFAULT_SEARCH_MEMORY_MB
    search.report = lambda s: _report(s, table)
    return search


def _fits(key: Hashable) -> bool:
    from explorer.solver.pruned_kernel import CompiledGridSearch

    return CompiledGridSearch.fits(key)  # type: ignore[arg-type]


def _report(search: Any, table: PartTable) -> None:
    """Now and then in a search: its new values into the part table, stored (``--db``), and
    the table's size shown."""
    _keep_fresh(search, table)
    if table.checkpoint is not None:
        table.checkpoint()
    if table.progress is not None:
        table.progress(f"{search.size():,} parts valued ({search.stats.searched:,} searched)")


def _keep_fresh(search: Any, table: PartTable) -> None:
    fresh = search.take_fresh()
    family = table.family(search.rules.family)
    for label, value in fresh:
        family[label] = value
    table.computed += len(fresh)
    search.adopted = len(family)


@dataclass(frozen=True)
class PrunedAnswer:
    """A value found by the pruned search, and how: the shortcuts it took and its work."""

    value: int
    family: str
    shortcuts: tuple[str, ...]
    searched: int
    parts: int


def pruned_value(components: Components, table: PartTable | None = None) -> PrunedAnswer:
    """The value of a position given as components (`Game.search_components`), by the pruned search;
    the values it finds go to the part table (even when it stops early).

    Examples
    --------
    >>> from explorer import load_game
    >>> cram = load_game("cram")
    >>> pruned_value(cram.search_components(cram.parse("4x5"))).value  # Beling's table: *2
    2
    """
    table = PART_TABLE if table is None else table
    value = searched = 0
    shortcuts: set[str] = set()
    families = []
    for rules, _ in components.groups:
        rules.used.clear()
    for rules, keys in components.groups:
        search = pruned_search(rules, table, keys)
        before = search.stats.searched
        try:
            value ^= search.total(keys)
        finally:
            _keep_fresh(search, table)
        searched += search.stats.searched - before
        shortcuts |= rules.used
        families.append(rules.family)
    return PrunedAnswer(
        value=value,
        family=", ".join(families),
        shortcuts=tuple(sorted(shortcuts)),
        searched=searched,
        parts=sum(len(table.family(f)) for f in families),
    )


def pruned_sum_is(components: Components, target: int, table: PartTable | None = None) -> bool:
    """Whether a position given as components is worth `target`: every component but the
    largest valued, the largest only asked ("is it `target` XOR the others?")."""
    table = PART_TABLE if table is None else table
    pieces = [
        (rules.size(key), pruned_search(rules, table, keys), key)
        for rules, keys in components.groups
        for key in keys
    ]
    if not pieces:
        return target == 0
    pieces.sort(key=lambda piece: piece[0], reverse=True)
    try:
        rest = 0
        for _, search, key in pieces[1:]:
            rest ^= search.total([key])
        _, search, key = pieces[0]
        return bool(search.sum_is([key], target ^ rest))
    finally:
        for _, search, _ in pieces:
            _keep_fresh(search, table)


def pruned_moves_to_value(
    game: Game[Any], position: Position, target: int, table: PartTable | None = None
) -> list[Position] | None:
    """The moves of `position` to a position of value `target`, each decided by the pruned
    search ("is the value `target`?", not the full value); None when the game has no
    components."""
    found = []
    answers: dict[tuple[tuple[str, tuple[Hashable, ...]], ...], bool] = {}
    for successor in dict.fromkeys(game.successors(position)):
        components = game.search_components(successor)
        if components is None:
            return None
        # moves equal under the position's symmetries leave equal components: asked once
        shape = tuple((rules.family, keys) for rules, keys in components.groups)
        if shape not in answers:
            answers[shape] = pruned_sum_is(components, target, table)
        if answers[shape]:
            found.append(successor)
    return found


def _mex_of_moves(moves: list[tuple[str, ...]], values: dict[str, int]) -> int:
    """The mex over moves (each the labels of the parts it leaves) of their XORs."""
    reached = 0
    for move in moves:
        total = 0
        for piece_label in move:
            total ^= values[piece_label]
        reached |= 1 << total
    return (~reached & (reached + 1)).bit_length() - 1


def _check_stored(game: Game[Any], part: Position, label: str, table: PartTable) -> None:
    """Check a stored value against the part's moves, one level down (the values the table
    holds for what they leave; a part it lacks is valued): a value changed in the store is
    refused when first used, and the table forgets it."""
    family = game.part_family()
    values = table.family(family)
    table.unchecked[family].discard(label)
    moves = []
    for successor in dict.fromkeys(game.successors(part)):
        labels = []
        for piece in parts_of(game, successor):
            piece_label = game.part_label(piece)
            assert piece_label is not None
            if piece_label not in values:
                part_value(game, piece, table)
            labels.append(piece_label)
        moves.append(tuple(labels))
    expected = _mex_of_moves(moves, values)
    if values[label] != expected:
        stored = values.pop(label)
        raise StoredPartError.of(family, label, stored, expected)
