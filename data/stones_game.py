"""The example game as a function from a position (sorted heaps) to its successors."""

import explorer


@explorer.game(example="10")
def stones(p):
    heaps = p if isinstance(p, tuple) else (p,)
    for i, h in enumerate(heaps):
        rest = heaps[:i] + heaps[i + 1 :]
        options = [(h - k,) for k in (1, 2, 4) if k <= h]
        options += [(a, h - a) for a in range(1, h) if a < h - a]
        for option in options:
            new = tuple(sorted(rest + tuple(x for x in option if x)))
            yield new[0] if len(new) == 1 else new
