"""Canonical labels of graph parts: isomorphic graphs get equal labels, by bliss (igraph).

igraph was chosen over pynauty by measurement (920 random graphs of 8-30 vertices, CPython
3.11): igraph 30 us a label, an 18 MB wheel installed in 4 s; pynauty 19 us, but no wheel
here, so a 30 s C build at install. The label is the graph relabelled canonically, written as
its adjacency masks, so it is also the key a part table stores (`label_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

#: Shapes whose labels are kept (an lru cache: the same shape comes back from many positions).
LABEL_CACHE = 1 << 18


def _edge_list(adjacency: Sequence[int]) -> list[tuple[int, int]]:
    edges = []
    for i, mask in enumerate(adjacency):
        mask >>= i + 1
        j = i + 1
        while mask:
            if mask & 1:
                edges.append((i, j))
            mask >>= 1
            j += 1
    return edges


@lru_cache(maxsize=LABEL_CACHE)
def graph_label(adjacency: tuple[int, ...], colours: tuple[int, ...] | None = None) -> str:
    """The canonical label of a graph given by its adjacency masks (and vertex colours,
    which an isomorphism must keep): equal for two graphs exactly when they are isomorphic.

    Examples
    --------
    >>> graph_label((0b10, 0b101, 0b10)) == graph_label((0b110, 0b1, 0b1))  # P3, centre moved
    True
    >>> graph_label((0b10, 0b101, 0b10)) == graph_label((0b110, 0b101, 0b11))  # P3 and K3
    False
    """
    n = len(adjacency)
    if n <= 2 and colours is None:
        return label_text(adjacency)  # one graph of each shape: already canonical
    import igraph

    edges = _edge_list(adjacency)
    graph = igraph.Graph(n, edges)
    # bliss lists, for each place of the canonical form, the vertex put there
    placed = graph.canonical_permutation(color=list(colours) if colours is not None else None)
    order = [0] * n
    for place, vertex in enumerate(placed):
        order[vertex] = place
    canonical = [0] * n
    for i, j in edges:
        a, b = order[i], order[j]
        canonical[a] |= 1 << b
        canonical[b] |= 1 << a
    text = label_text(canonical)
    if colours is None:
        return text
    coloured = [0] * n
    for i, colour in enumerate(colours):
        coloured[order[i]] = colour
    return f"{text}/{''.join(map(str, coloured))}"


def label_text(adjacency: Sequence[int]) -> str:
    """Adjacency masks as text: hex masks joined by ``.`` (the stored form of a label)."""
    return ".".join(f"{mask:x}" for mask in adjacency)


def label_graph(label: str) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """The adjacency masks (and vertex colours) a label was written from: the inverse of
    `graph_label`'s text, so a stored label gives back a graph of its shape; ValueError when
    the text is no label.

    Examples
    --------
    >>> label_graph(graph_label((0b10, 0b101, 0b10)))
    ((4, 4, 3), None)
    >>> label_graph("2.1/10")
    ((2, 1), (1, 0))
    """
    text, slash, colours = label.partition("/")
    masks = tuple(int(mask, 16) for mask in text.split(".")) if text else ()
    n = len(masks)
    if any(mask < 0 or mask >> n or mask >> i & 1 for i, mask in enumerate(masks)) or any(
        mask >> j & 1 != masks[j] >> i & 1 for i, mask in enumerate(masks) for j in range(n)
    ):
        raise ValueError(f"{label!r} is no graph label (its masks are not a simple graph's)")
    if not slash:
        return masks, None
    if len(colours) != len(masks) or not colours.isdigit():
        raise ValueError(f"{label!r} is no graph label (expected a colour a vertex)")
    return masks, tuple(map(int, colours))
