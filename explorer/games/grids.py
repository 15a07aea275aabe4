"""Games on the cells of a grid, as bit boards for the pruned search: Cram (a move fills two
adjacent cells) and Node-Kayles on a grid graph (a move takes a cell and its neighbours).

A component is a region of cells joined by a side, cropped to its bounding box and turned or
mirrored to its smallest picture: the key ``mask << 20 | height << 10 | width`` of the least
(height, width, mask) of its pictures (bit ``r * width + c`` is cell (r, c)), whose text
``HxW:MASK`` (hex) is the label the part table stores, as `explorer.games.cram.board_label`
writes it. Known values skip the search, each said in the method: paths and cycles follow
the proven octal games (Cram on a strip is Dawson's Kayles 0.07, Node-Kayles on a path is
Dawson's chess 0.137), and a region that a half turn maps onto itself with no cell or move
kept in place is 0 (the second player answers each move with its image).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import Literal

#: Bits of a key that hold the height and the width (each below 1024).
SIDE_BITS = 10
SIDE = (1 << SIDE_BITS) - 1
#: Cropped regions whose canonical key is remembered (the same regions come back often).
CANONICAL_CACHE = 1 << 20

#: The shortcut names a search may report (`GridRules.used`).
SHORTCUT_PATHS = "paths and cycles by the proven octal sequence"
SHORTCUT_SYMMETRY = "half-turn symmetric regions by the mirror strategy"

Rule = Literal["cram", "nodekayles"]


def key_of(height: int, width: int, mask: int) -> int:
    """The key of a canonical (height, width, mask)."""
    return mask << 2 * SIDE_BITS | height << SIDE_BITS | width


def unkey(key: int) -> tuple[int, int, int]:
    """The (height, width, mask) of a key."""
    return (key >> SIDE_BITS) & SIDE, key & SIDE, key >> 2 * SIDE_BITS


@lru_cache(maxsize=4096)
def _frame(height: int, width: int) -> tuple[int, int, int]:
    """The masks of the cells not in the first column, not in the last, and of the board."""
    row_first = ((1 << width) - 2) if width > 1 else 0
    row_last = ((1 << (width - 1)) - 1) if width > 1 else 0
    not_first = not_last = 0
    for r in range(height):
        not_first |= row_first << (r * width)
        not_last |= row_last << (r * width)
    return not_first, not_last, (1 << height * width) - 1


def regions(width: int, mask: int, not_first: int, not_last: int) -> list[int]:
    """The masks of the regions of `mask` (cells joined by a side) on a board `width` wide."""
    found = []
    left = mask
    while left:
        region = left & -left
        while True:
            grown = (
                region
                | ((region << 1) & not_first)
                | ((region >> 1) & not_last)
                | (region << width)
                | (region >> width)
            ) & left
            if grown == region:
                break
            region = grown
        found.append(region)
        left ^= region
    return found


def cram_reduced(width: int, mask: int, not_first: int, not_last: int) -> int:
    """A Cram board with cells taken away that change no value (Beling's reductions): of the
    end cells (one neighbour) that share their neighbour, all but one (moving into either
    end leaves the same board); then each cell that is no end and whose neighbours each
    have an end, a lone cell included (any move through it is answered by the move into
    that neighbour's end, leaving the same board).

    Examples
    --------
    >>> bin(cram_reduced(3, 0b010_111, *_frame(2, 3)[:2]))  # a T: two of its arms go
    '0b11'
    >>> bin(cram_reduced(5, 0b11111, *_frame(1, 5)[:2]))  # a path of 5: two dominoes
    '0b11011'
    """
    right = mask & ((mask & not_first) >> 1)  # cells with a neighbour on the right
    left = mask & ((mask & not_last) << 1)
    down = mask & (mask >> width)
    up = mask & (mask << width)
    some = right | left | down | up
    several = (right & left) | (up & down) | ((right | left) & (up | down))
    ends = some & ~several
    kept = mask
    anchors = 0
    # each end's neighbour, one direction at a time: an end whose neighbour has one already goes
    steps: tuple[tuple[Callable[[int], int], Callable[[int], int]], ...] = (
        (lambda cells: cells << width, lambda cells: cells >> width),  # the neighbour below
        (lambda cells: (cells & not_last) << 1, lambda cells: cells >> 1),  # on the right
        (lambda cells: cells >> width, lambda cells: cells << width),  # above
        (lambda cells: (cells & not_first) >> 1, lambda cells: cells << 1),  # on the left
    )
    for toward, back in steps:
        found = toward(ends) & mask
        kept &= ~back(found & anchors)
        anchors |= found
    inner = mask & ~(ends | anchors)
    touching = (
        ((inner & not_first) >> 1) | ((inner & not_last) << 1) | (inner << width) | (inner >> width)
    )
    return kept & ~(inner & ~touching)


def _reversed_bits(row: int, width: int) -> int:
    return int(f"{row:0{width}b}"[::-1], 2)


def canonical(width: int, region: int) -> int:
    """The key of a region of a board `width` wide (cropped, then its least picture)."""
    return _canonical(width, region)


@lru_cache(maxsize=CANONICAL_CACHE)
def _canonical(width: int, region: int) -> int:
    full = (1 << width) - 1
    rows = []
    mask = region
    while mask:
        rows.append(mask & full)
        mask >>= width
    while not rows[0]:
        rows.pop(0)
    used = 0
    for row in rows:
        used |= row
    low = (used & -used).bit_length() - 1
    w = used.bit_length() - low
    h = len(rows)
    rows = [row >> low for row in rows]
    pictures: list[tuple[int, int, list[int]]] = []
    if h <= w:
        pictures.append((h, w, rows))
    if w <= h:
        columns = []
        for c in range(w):
            column = 0
            for r in range(h):
                column |= (rows[r] >> c & 1) << r
            columns.append(column)
        pictures.append((w, h, columns))
    best: tuple[int, int, int] | None = None
    for ph, pw, lines in pictures:
        mirrored = [_reversed_bits(line, pw) for line in lines]
        for picture in (lines, lines[::-1], mirrored, mirrored[::-1]):
            value = 0
            for r, line in enumerate(picture):
                value |= line << (r * pw)
            if best is None or value < best[2]:
                best = (ph, pw, value)
    assert best is not None
    return key_of(*best)


def _degrees(width: int, mask: int, not_first: int, not_last: int) -> tuple[int, int, int]:
    """The number of adjacent pairs, and the masks of cells of degree at least 3, and exactly 2."""
    right = mask & ((mask & not_first) >> 1)  # cells whose right neighbour is there
    left = mask & ((mask & not_last) << 1)
    down = mask & (mask >> width)
    up = mask & (mask << width)
    pairs = right.bit_count() + down.bit_count()
    three = (left & right & (up | down)) | (up & down & (left | right))
    two_or_more = (left & (right | up | down)) | (right & (up | down)) | (up & down)
    return pairs, three, two_or_more & ~three


class GridRules:
    """The components and moves of a grid game, for `explorer.solver.pruned`.

    Examples
    --------
    >>> rules = GridRules("cram")
    >>> key = canonical(3, 0b111111)  # a full 2x3 board
    >>> rules.label(key), [tuple(map(rules.label, m)) for m in rules.moves(key)]
    ('2x3:3f', [('2x3:f',), ('2x2:f',), ()])
    """

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.family = f"{rule}-grid"
        #: Searched compiled (`explorer.solver.pruned_kernel`) where components fit.
        self.compiled = True
        #: The shortcuts the search took (each named in the answer's method).
        self.used: set[str] = set()
        self._path_values: list[int] = []

    # -- keys -------------------------------------------------------------------------------
    def board_components(self, height: int, width: int, mask: int) -> list[int]:
        """The keys of a board's regions that carry a value (a lone cell has no Cram move)."""
        not_first, not_last, _ = _frame(height, width)
        if self.rule == "cram":
            mask = cram_reduced(width, mask, not_first, not_last)
        keys = [
            canonical(width, region)
            for region in regions(width, mask, not_first, not_last)
            if self.rule == "nodekayles" or region & (region - 1)
        ]
        return sorted(keys)

    def label(self, key: int) -> str:
        h, w, mask = unkey(key)
        return f"{h}x{w}:{mask:x}"

    def key(self, label: str) -> int:
        size, mask = label.split(":")
        h, w = size.split("x")
        return key_of(int(h), int(w), int(mask, 16))

    def canonical_key(self, label: str) -> int:
        """The key of a stored label, which must be a region's canonical label (ValueError
        if not): a component rebuilt from its label."""
        try:
            key = self.key(label)
            h, w, mask = unkey(key)
            if not 0 < mask < 1 << h * w:
                raise ValueError("its cells are not on its board")
            not_first, not_last, _ = _frame(h, w)
            if len(regions(w, mask, not_first, not_last)) != 1:
                raise ValueError("its cells are not one region")
            written = self.label(canonical(w, mask))
        except ValueError as error:
            raise ValueError(f"the label is no part's label ({error})") from None
        if written != label:
            raise ValueError(f"the label is not canonical ({written!r})")
        return key

    def size(self, key: int) -> int:
        return (key >> 2 * SIDE_BITS).bit_count()

    # -- moves ------------------------------------------------------------------------------
    def moves(self, key: int) -> Sequence[tuple[int, ...]]:
        h, w, mask = unkey(key)
        not_first, not_last, _ = _frame(h, w)
        cram = self.rule == "cram"
        after: list[int] = []
        if cram:
            right = mask & ((mask & not_first) >> 1)
            while right:
                low = right & -right
                after.append(mask & ~(low | low << 1))
                right ^= low
            down = mask & (mask >> w)
            while down:
                low = down & -down
                after.append(mask & ~(low | low << w))
                down ^= low
        else:
            cells = mask
            while cells:
                low = cells & -cells
                taken = low | ((low & not_first) >> 1) | ((low & not_last) << 1)
                taken |= low << w | low >> w
                after.append(mask & ~taken)
                cells ^= low
        found: dict[tuple[int, ...], None] = {}
        if cram:
            after = [cram_reduced(w, left, not_first, not_last) for left in after]
        for left in dict.fromkeys(after):
            keys = []
            for region in regions(w, left, not_first, not_last):
                if cram and not region & (region - 1):
                    continue  # a lone cell has no move
                keys.append(canonical(w, region))
            keys.sort()
            found[_cancel_pairs(keys)] = None
        return list(found)

    # -- what is known ----------------------------------------------------------------------
    def _octal(self, n: int) -> int:
        """G(n) of the octal game of the rule on a path of n cells."""
        values = self._path_values
        if n >= len(values):
            from explorer.games import load_game

            code = "octal:0.07" if self.rule == "cram" else "octal:0.137"
            heaps = load_game(code).heap_rules()
            assert heaps is not None
            table = heaps.heap_values(max(2 * n, 64))
            self._path_values = values = [int(v) for v in table]
        return values[n]

    def known(self, key: int) -> int | None:
        h, w, mask = unkey(key)
        n = mask.bit_count()
        if n == 1:
            return 1 if self.rule == "nodekayles" else 0
        not_first, not_last, _ = _frame(h, w)
        pairs, three, two = _degrees(w, mask, not_first, not_last)
        if not three:
            if pairs == n - 1:
                self.used.add(SHORTCUT_PATHS)
                return self._octal(n)
            if pairs == n and two == mask:  # a cycle: every move leaves a path
                self.used.add(SHORTCUT_PATHS)
                left = self._octal(n - 2 if self.rule == "cram" else n - 3)
                return 1 if left == 0 else 0
        if h % 2 == 0 and w % 2 == 0 and _half_turn(mask, h * w) == mask:
            self.used.add(SHORTCUT_SYMMETRY)
            return 0
        return None

    def lower_bound(self, key: int) -> int:
        h, w, mask = unkey(key)
        odd_sides = h % 2 + w % 2
        if odd_sides != (1 if self.rule == "cram" else 2):
            return 0
        if _half_turn(mask, h * w) != mask:
            return 0
        if self.rule == "cram":  # one side odd, the other even: the centre domino
            if h % 2 == 0:
                centre = 1 << ((h // 2 - 1) * w + w // 2) | 1 << (h // 2 * w + w // 2)
            else:
                centre = 1 << (h // 2 * w + w // 2 - 1) | 1 << (h // 2 * w + w // 2)
        else:  # both odd: the centre cell
            centre = 1 << (h // 2 * w + w // 2)
        if mask & centre == centre:
            self.used.add(SHORTCUT_SYMMETRY)
            return 1  # the first player takes the centre, then answers with images
        return 0


def _half_turn(mask: int, cells: int) -> int:
    """A board's mask turned by half a turn (its bits reversed)."""
    return int(f"{mask:0{cells}b}"[::-1], 2)


def _cancel_pairs(keys: list[int]) -> tuple[int, ...]:
    """Sorted keys with equal pairs removed (X + X is worth 0)."""
    kept: list[int] = []
    for key in keys:
        if kept and kept[-1] == key:
            kept.pop()
        else:
            kept.append(key)
    return tuple(kept)


@cache
def grid_rules(rule: Rule) -> GridRules:
    """The process's rules of one grid game (one object, so that its searches share them)."""
    return GridRules(rule)


def grid_cells(names: Sequence[str], adjacency: Sequence[int]) -> tuple[int, int, int] | None:
    """A graph as cells of a grid, when it is one as written: vertices named by numbers,
    vertex i at row i // width and column i % width, and edges exactly between the cells
    that share a side (the named graphs ``RxC``). The (height, width, mask), or None.

    Examples
    --------
    >>> grid_cells(("0", "1", "2", "3"), (0b110, 0b1001, 0b1001, 0b110))  # 2x2
    (2, 2, 15)
    >>> grid_cells(("5", "6"), (0b10, 0b1))  # an edge, numbered from 5
    (1, 2, 3)
    >>> grid_cells(("0", "1", "2"), (0b110, 0b101, 0b011)) is None  # a triangle
    True
    """
    if not names or not all(name.isdigit() for name in names):
        return None
    numbers = [int(name) for name in names]
    cells = [number - min(numbers) for number in numbers]
    steps = set()
    for i, mask in enumerate(adjacency):
        while mask:
            low = mask & -mask
            j = low.bit_length() - 1
            steps.add(abs(cells[i] - cells[j]))
            mask ^= low
    steps.discard(1)
    if len(steps) > 1:
        return None
    width = steps.pop() if steps else max(cells) + 1
    height = max(cells) // width + 1
    if height * width > 1 << 16:
        return None
    mask = 0
    for cell in cells:
        mask |= 1 << cell
    not_first, not_last, _ = _frame(height, width)
    index = {cell: i for i, cell in enumerate(cells)}
    for i, cell in enumerate(cells):
        low = 1 << cell
        near = ((low & not_first) >> 1) | ((low & not_last) << 1) | low << width | low >> width
        expected = 0
        near &= mask
        while near:
            bit = near & -near
            expected |= 1 << index[bit.bit_length() - 1]
            near ^= bit
        if expected != adjacency[i]:
            return None
    return height, width, mask
