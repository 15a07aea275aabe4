"""Misère quotients of heap games: the finite monoid, its P-portion and the pretending function
that answer misère play of any sum of heaps, computed from the definition and verified.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from explorer.analysis.monoids import phi_period, present, tame_index
from explorer.analysis.quotient_check import Checked, Letter, check_all, first_inconsistent
from explorer.errors import PositionError, QuotientTooLargeError, SpecError
from explorer.games.arguments import as_count, as_game
from explorer.games.base import Game, HeapRules
from explorer.limits import QUOTIENT_MAX_SIZE, QUOTIENT_MAX_STATES

Heaps = tuple[int, ...]

#: Heaps computed between two looks for a proven period of Φ (octal games), which ends the work.
PERIOD_CHECKS = 32


@dataclass(frozen=True)
class MisereQuotient:
    """The misère quotient of a heap game restricted to heaps 0..max_heap, as plain data.

    Elements are indices into `elements` (their names, the identity ``1`` first); ``table[i][j]``
    is the product of elements i and j; `p` the P-portion; ``phi[n]`` the element of a heap of n.
    `generators` and `relations` present the monoid (`presentation` is their text, or the tame
    quotient's name ``Tn``); `changed_at` is the last heap that changed it and ``sizes[n]`` its
    size for heaps up to n. Φ has period `period` from heap `preperiod` when one is seen over
    three periods, `period_proven` once max_heap reaches `proof_heap` (octal games).
    """

    game: str
    max_heap: int
    size: int
    p_size: int
    tame: bool
    elements: list[str]
    table: list[list[int]]
    p: list[int]
    phi: list[int]
    generators: list[str]
    relations: list[tuple[str, str]]
    presentation: str
    changed_at: int
    sizes: list[int]
    period: int | None
    preperiod: int | None
    period_proven: bool
    proof_heap: int | None

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def __repr__(self) -> str:
        """One line: the game, the heaps, the presentation and the sizes."""
        return (
            f"<MisereQuotient of {self.game}, heaps 0..{self.max_heap:,}: {self.presentation}, "
            f"|Q| = {self.size}, |P| = {self.p_size}>"
        )

    def element_of(self, heaps: Iterable[int]) -> int:
        """The product of the heaps' elements (Φ of the sum).

        Examples
        --------
        >>> from explorer import load_game
        >>> q = misere_quotient(load_game("nim"), 3)
        >>> q.elements[q.element_of([1, 2, 3])]
        'b^2'
        """
        element = 0
        for h in heaps:
            if not 0 <= h <= self.max_heap:
                raise PositionError(
                    f"heap {h!r} is beyond the quotient of {self.game}, computed for heaps "
                    f"up to {self.max_heap} (compute it with --max-heap {h})"
                )
            element = self.table[element][self.phi[h]]
        return element


def misere_quotient(
    game: Game[Any] | str,
    max_heap: int,
    *,
    max_size: int = QUOTIENT_MAX_SIZE,
    max_states: int = QUOTIENT_MAX_STATES,
    progress: Callable[[int, int], None] | None = None,
) -> MisereQuotient:
    """The misère quotient of `game` restricted to heaps 0..max_heap, from the definition.

    Notes
    -----
    What a misère quotient is, in five lines. Two sums of heaps X and Y are indistinguishable
    when X + Z and Y + Z have the same misère outcome for every sum Z of heaps <= max_heap.
    The classes form a commutative monoid Q (adding sums multiplies classes), P is the set of
    classes of the misère P-positions, and Φ sends a heap to its class. A sum of heaps is
    then a P-position exactly when the product of its heaps' Φ lies in P: misère outcomes are
    table lookups, as the XOR of Grundy values is in normal play (Plambeck and Siegel, 2008).

    How it is computed: heap by heap, each candidate quotient checked by the definition by
    induction and, when it fails, its classes learnt afresh from experiments (Angluin's L*);
    the bounds `max_size` and `max_states` stop it honestly (see `_Builder`).

    The period of Φ is reported as observed, or as proven for octal games whose moves remove
    at most k tokens (the Guy-Smith argument, see `_add_heaps`): Q is then the quotient of the
    whole game and Φ is periodic forever.

    Parameters
    ----------
    game : Game or str
        A game on heaps (``heap_moves(n)`` says what a heap of n becomes), or its spec.
    max_heap : int
        The largest heap of the sums the quotient describes.
    max_size : int
        Most elements the quotient may have (``--max-size``).
    max_states : int
        Most positions and checked pairs held at once (``--max-states``).
    progress : callable, optional
        Called as ``progress(heaps_done, max_heap)`` after each heap is added.

    Returns
    -------
    MisereQuotient

    Raises
    ------
    QuotientTooLargeError
        When the quotient has more than `max_size` elements, or its computation needs more
        than `max_states` positions or pairs; callers fall back to the game graph.

    Examples
    --------
    >>> misere_quotient("nim", 3).presentation
    'T2'
    >>> from explorer import load_game
    >>> q = misere_quotient(load_game("octal:0.75"), 16)
    >>> q.size, q.p_size, q.presentation
    (8, 2, '<a, b, c | a^2 = 1, b^3 = b, bc = ab, c^2 = b^2>')
    >>> " ".join(q.elements[x] for x in q.phi)
    '1 a b a b c b c b ab^2 b ab^2 b ab^2 b ab^2 b'
    >>> misere_quotient(load_game("nim"), 7).presentation
    'T3'
    """
    game = as_game(game)
    max_heap = as_count(max_heap, "max_heap")
    heap_game = game.heap_rules()
    if heap_game is None:
        raise SpecError(f"misère quotients are for heap games, not {game.spec}")
    removal = heap_game.octal_removal()
    if max_heap < 0:
        raise SpecError(f"bad max heap {max_heap!r} (expected a heap size >= 0)")
    builder = _Builder(heap_game, max_size=max_size, max_states=max_states)
    _add_heaps(builder, max_heap, removal, progress)
    return _describe(heap_game, builder)


def _add_heaps(
    builder: _Builder,
    max_heap: int,
    removal: int | None,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Add heaps 1..max_heap to the quotient, stopping early at a proven period of Φ.

    A period is proven for an octal game whose moves remove at most k = `removal` tokens: if
    Φ(n + p) = Φ(n) for preperiod <= n <= max_heap - p and max_heap >= 2·preperiod + 2p + k - 1,
    every heap past max_heap has the options' classes (T) of a heap p smaller (the Guy-Smith
    argument), so the check of `misere_quotient` covers every heap.
    """
    for n in range(1, max_heap + 1):
        builder.add_heap(n)
        if progress is not None:
            progress(n, max_heap)
        if n % PERIOD_CHECKS == 0 and removal is not None:
            found = phi_period(builder.phi)
            if found is not None and n >= _proof_heap(removal, *found):
                # proven: every later heap is the one a period before
                pre, period = found
                builder.proven = found
                builder.phi += [
                    builder.phi[pre + (h - pre) % period] for h in range(n + 1, max_heap + 1)
                ]
                builder.sizes += [builder.sizes[-1]] * (max_heap - n)
                return


def _proof_heap(removal: int, preperiod: int, period: int) -> int:
    """The heaps to compute for a period of Φ seen in them to be proven (see Notes), in an
    octal game whose moves remove at most `removal` tokens."""
    return 2 * max(preperiod, 1) + 2 * period + removal - 1


def quotient_outcome(quotient: MisereQuotient, heaps: Iterable[int]) -> str:
    """The misère outcome of a sum of heaps: ``"P"`` when its element lies in P, else ``"N"``.

    Examples
    --------
    >>> from explorer import load_game
    >>> q = misere_quotient(load_game("nim"), 3)
    >>> quotient_outcome(q, [1, 1, 1]), quotient_outcome(q, []), quotient_outcome(q, [2, 2])
    ('P', 'N', 'P')
    """
    return "P" if quotient.element_of(heaps) in set(quotient.p) else "N"


def quotient_winning_moves(
    quotient: MisereQuotient, game: HeapRules, heaps: Sequence[int]
) -> list[Heaps]:
    """The winning misère moves of a sum of heaps: each move of one heap whose resulting
    product lies in P, once per distinct resulting position, as sorted tuples.

    Examples
    --------
    >>> from explorer import load_game
    >>> game = load_game("octal:0.75")
    >>> quotient_winning_moves(misere_quotient(game, 5), game, [1, 5])
    [(1, 1, 3)]
    """
    heaps = sorted(h for h in heaps if h > 0)
    table, phi = quotient.table, quotient.phi
    p = set(quotient.p)
    quotient.element_of(heaps)  # refuses heaps beyond the quotient
    before = [0]
    for h in heaps:
        before.append(table[before[-1]][phi[h]])
    after = [0]
    for h in reversed(heaps):
        after.append(table[after[-1]][phi[h]])
    after.reverse()
    moves: dict[Heaps, None] = {}
    for i, h in enumerate(heaps):
        if i and heaps[i - 1] == h:
            continue
        rest = table[before[i]][after[i + 1]]
        for result in game.heap_moves(h):
            element = rest
            for part in result:
                element = table[element][phi[part]]
            if element in p:
                moved = heaps[:i] + heaps[i + 1 :] + [x for x in result if x > 0]
                moves[tuple(sorted(moved))] = None
    return list(moves)


class _Builder:
    """The quotient of heaps 0..n, grown one heap at a time (identity at index 0).

    Heap n is added to the quotient of heaps < n: as an element x already there if one passes
    the check below (at most one can), else by learning the classes afresh (Angluin's L*,
    Rivest and Schapire's counterexamples): sums are told apart by experiments, sums Z whose
    outcomes X + Z are solved by the moves (sums of heaps < n by the quotient already
    proven), until the candidate passes. The check is the definition by induction: for every
    sum X, with q = Φ(X) and T the set of Φ of X's options (the pair of X + h follows from the
    pair of X and from h, so finitely many pairs arise), q is in P exactly when T is not empty
    and misses P. Passing it, a candidate gets every outcome right; its classes are told apart
    by actual sums, so it is the quotient. Bounds: a candidate never has more elements than
    the quotient (so `max_size` stops a growing quotient honestly); the check visits at most
    |Q|·2^|Q| pairs (a few per element in practice) and the positions solved by their moves
    are counted too, within `max_states`.
    """

    def __init__(self, game: HeapRules, *, max_size: int, max_states: int) -> None:
        self.game = game
        self.max_size = max_size
        self.max_states = max_states
        self.table, self.accept = [[0]], [False]  # the empty sum is a misère N-position
        self.reps: list[Heaps] = [()]
        self.phi: list[int] = [0]
        self.sizes: list[int] = [1]
        self.proven: tuple[int, int] | None = None  # a period of Φ proven for every heap
        self.letters: list[Letter] = []
        self.heap_of: dict[tuple[object, ...], int] = {}
        self.nodes: Checked = {(0, 0): None}

    # heaps -----------------------------------------------------------------
    def heap_options(self, n: int) -> list[Heaps]:
        """What a heap of n can become, distinct, as sorted tuples without zeros."""
        options = []
        for result in self.game.heap_moves(n):
            parts = tuple(sorted(h for h in result if h > 0))
            if parts and parts[-1] >= n:
                raise SpecError(
                    f"{self.game.spec}: a heap of {n} can become {parts!r}; misère quotients "
                    "need every move to leave smaller heaps"
                )
            options.append(parts)
        return list(dict.fromkeys(options))

    def add_heap(self, n: int) -> None:
        try:
            if not self._extend(n):
                self._learn(n)
        except QuotientTooLargeError as error:
            if error.args[0]:
                raise
            raise QuotientTooLargeError(
                f"the misère quotient of {self.game.spec} needs more than "
                f"{self.max_states:,} positions or checked pairs at heap {n} (sizes so far: "
                f"{_sizes_text(self.sizes)}; raise it with --max-states)",
                self.max_states,
            ) from None
        self.sizes.append(len(self.table))

    def product(self, heaps: Iterable[int]) -> int:
        element = 0
        for h in heaps:
            element = self.table[element][self.phi[h]]
        return element

    def _letter(self, x: int, targets: Iterable[int]) -> Letter:
        table = self.table
        targets = list(targets)
        opt = []
        for row in table:
            mask = 0
            for s in targets:
                mask |= 1 << row[s]
            opt.append(mask)
        return Letter([row[x] for row in table], opt)

    def _extend(self, n: int) -> bool:
        """Try heap n as an element already there: the one whose check passes (at most one
        can, as the quotient tells every two elements apart)."""
        targets = {self.product(w) for w in self.heap_options(n)}
        p_mask = sum(1 << q for q, a in enumerate(self.accept) if a)
        t_mask = sum(1 << t for t in targets)
        heap_is_p = t_mask != 0 and not t_mask & p_mask
        for x in range(len(self.table)):
            if self.accept[x] != heap_is_p:
                continue
            letter = self._letter(x, targets)
            if letter.key in self.heap_of:
                self.phi.append(x)
                return True
            trial = dict(self.nodes)
            self.heap_of[letter.key] = n
            todo = [(node, letter) for node in trial]
            letters = [*self.letters, letter]
            bad = first_inconsistent(
                self.accept, letters, trial, todo, self.heap_of, self.max_states
            )
            if bad is None:
                self.nodes = trial
                self.letters = letters
                self.phi.append(x)
                return True
            del self.heap_of[letter.key]
        return False

    def _learn(self, n: int) -> None:
        learner = _Learner(self, n)
        self.table, self.accept, self.reps, self.phi = learner.run()
        targets = [{self.product(w) for w in learner.options[h]} for h in range(n + 1)]
        self.nodes, self.letters, self.heap_of, bad = check_all(
            self.accept,
            n,
            lambda h: [row[self.phi[h]] for row in self.table],
            lambda h, q: (self.table[q][t] for t in targets[h]),
            self.max_states,
        )
        assert bad is None, "a learned quotient failed its check"


def _distinguishing(table: list[list[int]], accept: list[bool], reps: list[Heaps]) -> list[Heaps]:
    """Few sums that tell every two elements apart (the empty sum first), the smallest first."""
    chosen: list[Heaps] = [()]
    signature: list[tuple[bool, ...]] = [(a,) for a in accept]
    blocks = len(set(signature))
    for z in sorted(range(len(reps)), key=lambda z: (sum(reps[z]), reps[z])):
        if blocks == len(table):
            break
        refined = [(*s, accept[table[x][z]]) for x, s in enumerate(signature)]
        if len(set(refined)) > blocks:
            chosen.append(reps[z])
            signature, blocks = refined, len(set(refined))
    return chosen


def _sizes_text(sizes: list[int]) -> str:
    return ("..., " if len(sizes) > 12 else "") + ", ".join(map(str, sizes[-12:]))


class _Learner:
    """The classes of sums of heaps 0..n learned from outcomes (L*): states are sums told
    apart by experiments; a failed check gives a sum whose outcome the candidate gets wrong,
    and that sum gives a new experiment (Rivest-Schapire)."""

    def __init__(self, builder: _Builder, n: int) -> None:
        self.builder = builder
        self.n = n
        self.options = [builder.heap_options(h) for h in range(n + 1)]
        self.memo: dict[Heaps, bool] = {}
        self.experiments = _distinguishing(builder.table, builder.accept, builder.reps)
        self.reps: list[Heaps] = list(builder.reps)
        self.rows: dict[Heaps, list[bool]] = {}
        self.delta: list[list[int]] = []

    # outcomes ----------------------------------------------------------------
    def _known(self, position: Heaps) -> bool | None:
        """Whether a sum is a P-position, if known without search: sums of heaps < n from
        the quotient already proven."""
        if not position or position[-1] < self.n:
            builder = self.builder
            return builder.accept[builder.product(position)]
        return self.memo.get(position)

    def is_p(self, position: Heaps) -> bool:
        """Whether a sum (sorted) is a misère P-position, by its moves: depth first with an
        explicit stack, a position's unknown moves followed one at a time, and none once a
        move to a P-position is found."""
        known = self._known(position)
        if known is not None:
            return known
        n, memo, options = self.n, self.memo, self.options
        table, phi, accept = self.builder.table, self.builder.phi, self.builder.accept
        unknown: dict[Heaps, list[Heaps]] = {}  # the moves of a position still to follow
        stack = [position]
        while stack:
            top = stack[-1]
            if top in memo:
                stack.pop()
                continue
            later = unknown.get(top)
            if later is None:
                later = []
                value, moved = True, False  # P unless a move reaches a P-position; none: N
                for i, h in enumerate(top):
                    if i and top[i - 1] == h:
                        continue
                    rest = top[:i] + top[i + 1 :]
                    for result in options[h]:
                        moved = True
                        option = tuple(sorted(rest + result))
                        if not option or option[-1] < n:
                            element = 0
                            for x in option:
                                element = table[element][phi[x]]
                            found: bool | None = accept[element]
                        else:
                            found = memo.get(option)
                        if found is None:
                            later.append(option)
                        elif found:
                            value = False
                            break
                    if not value:
                        break
                if not value or not later:
                    memo[top] = value and moved
                    stack.pop()
                    continue
                unknown[top] = later
            while later and memo.get(later[-1]) is False:
                later.pop()
            if later and later[-1] not in memo:
                stack.append(later[-1])
                continue
            memo[top] = not later  # every move reaches an N-position, or one a P-position
            del unknown[top]
            stack.pop()
            if len(memo) > self.builder.max_states:
                raise QuotientTooLargeError("", self.builder.max_states)
        return memo[position]

    def row(self, position: Heaps) -> list[bool]:
        row = self.rows.setdefault(position, [])
        for e in self.experiments[len(row) :]:
            row.append(self.is_p(tuple(sorted(position + e))))
        return row

    # the table ---------------------------------------------------------------
    def close(self) -> None:
        """Every state's move by every heap, adding the states found (smallest sums first)."""
        index = {tuple(self.row(r)): q for q, r in enumerate(self.reps)}
        self.delta = [[0] * (self.n + 1) for _ in self.reps]
        queue = [(sum(r), q) for q, r in enumerate(self.reps)]
        heapq.heapify(queue)
        while queue:
            _, q = heapq.heappop(queue)
            for h in range(1, self.n + 1):
                moved = tuple(sorted((*self.reps[q], h)))
                key = tuple(self.row(moved))
                target = index.get(key)
                if target is None:
                    target = index[key] = len(self.reps)
                    self.reps.append(moved)
                    self.delta.append([0] * (self.n + 1))
                    heapq.heappush(queue, (sum(moved), target))
                    if len(self.reps) > self.builder.max_size:
                        sizes = _sizes_text(self.builder.sizes)
                        raise QuotientTooLargeError(
                            f"the misère quotient of {self.builder.game.spec} has more than "
                            f"{self.builder.max_size:,} elements at heap {self.n} (sizes so "
                            f"far: {sizes}; raise it with --max-size)",
                            self.builder.max_size,
                        )
                self.delta[q][h] = target

    def read(self, q: int, heaps: Iterable[int]) -> int:
        for h in heaps:
            q = self.delta[q][h]
        return q

    def predicted(self, word: Sequence[int]) -> bool:
        return self.rows[self.reps[self.read(0, word)]][0]

    def wrong(self, words: Iterable[list[int]]) -> list[int]:
        """The first word whose predicted outcome differs from its outcome."""
        for word in words:
            if self.predicted(word) != self.is_p(tuple(sorted(word))):
                return word
        raise AssertionError("no wrongly predicted sum where one must be")

    def counterexample(self) -> list[int] | None:
        """A sum (as a word of heaps) that the candidate gets wrong, or None if it passes."""
        states = range(len(self.reps))
        accept = [self.rows[r][0] for r in self.reps]
        columns: dict[tuple[int, ...], int] = {}
        for h in range(1, self.n + 1):
            columns.setdefault(tuple(self.delta[q][h] for q in states), h)
        distinct = sorted(columns.values())
        for q in states:
            for i, a in enumerate(distinct):
                for b in distinct[i + 1 :]:
                    one, two = self.delta[self.delta[q][a]][b], self.delta[self.delta[q][b]][a]
                    if one != two:
                        e = next(
                            e
                            for j, e in enumerate(self.experiments)
                            if self.rows[self.reps[one]][j] != self.rows[self.reps[two]][j]
                        )
                        base = list(self.reps[q])
                        return self.wrong(
                            [
                                [*base, a, b, *e],
                                [*base, b, a, *e],
                                [*self.reps[one], *e],
                                [*self.reps[two], *e],
                            ]
                        )
        nodes, _, _, bad = check_all(
            accept,
            self.n,
            lambda h: [row[h] for row in self.delta],
            lambda h, q: (self.read(q, w) for w in self.options[h]),
            self.builder.max_states,
        )
        if bad is None:
            return None
        word: list[int] = []
        node = bad
        while (parent := nodes[node]) is not None:
            node, heap = parent
            word.append(heap)
        word.reverse()
        options = (
            word[:i] + word[i + 1 :] + list(w) for i, h in enumerate(word) for w in self.options[h]
        )
        return self.wrong(iter([[*word], *options]))

    def refine(self, word: list[int]) -> None:
        """Add the experiment that a wrongly predicted word reveals (Rivest-Schapire)."""
        prefix = [0]
        for h in word:
            prefix.append(self.delta[prefix[-1]][h])

        def outcome(i: int) -> bool:
            return self.is_p(tuple(sorted(self.reps[prefix[i]] + tuple(word[i:]))))

        low, high = 0, len(word)
        first = outcome(0)
        while high - low > 1:
            middle = (low + high) // 2
            if outcome(middle) == first:
                low = middle
            else:
                high = middle
        experiment = tuple(sorted(word[low + 1 :]))
        assert experiment not in self.experiments, "a counterexample gave no new experiment"
        self.experiments.append(experiment)

    def run(self) -> tuple[list[list[int]], list[bool], list[Heaps], list[int]]:
        """The learned quotient: its table, P, the smallest sum of each class and Φ."""
        while True:
            self.close()
            word = self.counterexample()
            if word is None:
                break
            self.refine(word)
        table = [
            [self.read(y, self.reps[x]) for y in range(len(self.reps))]
            for x in range(len(self.reps))
        ]
        accept = [self.rows[r][0] for r in self.reps]
        phi = [self.delta[0][h] if h else 0 for h in range(self.n + 1)]
        return table, accept, self.reps, phi


def _describe(game: HeapRules, builder: _Builder) -> MisereQuotient:
    """The quotient as plain data: elements renumbered by their names, a presentation, the
    tame name when there is one, and the period of Φ."""
    table, phi, size = builder.table, builder.phi, len(builder.table)
    shown = present(table, phi)
    renumber = {old: new for new, old in enumerate(shown.order)}
    new_table = [[renumber[table[x][y]] for y in shown.order] for x in shown.order]
    accept = [builder.accept[x] for x in shown.order]
    tame = tame_index(new_table, accept)
    sizes = builder.sizes
    changed = max((n for n in range(1, len(sizes)) if sizes[n] != sizes[n - 1]), default=0)
    new_phi = [renumber[x] for x in phi]
    found = builder.proven or phi_period(new_phi)
    pre, period = found if found else (None, None)
    removal = game.octal_removal()
    proof = _proof_heap(removal, *found) if found and removal is not None else None
    max_heap = len(phi) - 1
    return MisereQuotient(
        game=game.spec,
        max_heap=max_heap,
        size=size,
        p_size=sum(accept),
        tame=tame is not None,
        elements=shown.names,
        table=new_table,
        p=[x for x in range(size) if accept[x]],
        phi=new_phi,
        generators=shown.generators,
        relations=shown.relations,
        presentation=f"T{tame}" if tame is not None else shown.text(),
        changed_at=changed,
        sizes=list(sizes),
        period=period,
        preperiod=pre,
        period_proven=proof is not None and max_heap >= proof,
        proof_heap=proof,
    )
