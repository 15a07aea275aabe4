"""A state's moves packed into one blob of its row: the encodings, packed and unpacked for every
state at once in numpy (the SQL of the ``edges`` views that decode them in plain SQL is
`explorer.storage.tables.edges.views_sql`).

Measured by ``tests/benchmarks/bench_packing.py`` on ``subtraction:1,2 180,180,180`` (1,004,731
states, 5,913,089 moves, ids below 2**24), built by main 2d056e8, on the shared 2-core machine
(load 8-16: seconds are for ratios only). Bytes a state of each direction, and seconds to pack
and unpack every state's ids (numpy, best of 3):

    successors    fixed (3 bytes) 17.66 B  pack 0.30 s  unpack 0.22 s
                  varint          17.57 B       1.4 s          0.8 s
                  delta           10.08 B       0.6 s          0.25 s  (ids sorted first)
    predecessors  fixed (3 bytes) 17.66 B       0.15 s         0.12 s
                  delta           10.07 B       0.4 s          0.25 s
    the predecessors themselves: one stable sort of the moves by destination, 1.1-1.3 s

Varints of ids as they are save nothing over 3 fixed bytes (ids of 1M states need 3 bytes of 7
bits); gaps between sorted ids save 7.6 B a state a direction. The database with ``edges``
replaced by both columns, each state's row written whole, file bytes a state (``dbstat``):
today 228.9 (``edges`` 87.3, its reverse index 84.1, ``states`` 38.1, the key index 19.2);
fixed both ways 92.4 (``states`` 73.1, the key index 19.2); fixed successors and delta
predecessors 84.7; delta both ways 77.0. Fixed widths are chosen: under 100 B a state, the
fastest to pack and unpack, and decoded by plain SQL both ways (a varint's boundaries need a
walk over its blob, which no view can push a ``WHERE`` into). Widths grow with the game: 4
bytes from 2**24 states (16.8M) on, which the gaps would halve again; that is the choice to
measure at 10^8 states.

Since schema 0015 a row holds each id as its offset from the row's own id (`relative`), still
in fixed width and decoded by the views in plain SQL: a move joins states a build numbers
near each other (a build in tiers numbers each tier's states in one block, and a move goes to
a nearby tier), so the width is set by the farthest move rather than by the largest id. The
1M build, ``--workers 2``, main 62ba4db against the change (load about 2): ids 3 bytes, 101.7
B a state (``states`` 82.3, of it 9.6 left empty by the B-tree's page splits; the key index
19.2), against offsets in 2 bytes, 88.2 B a state (``states`` 68.8); ``verify`` passes.

PostgreSQL, the same build (``--postgres``; load 16-21): today 871 B a state (``states`` 240 at
fill factor 50, ``edges`` with its indexes 632); the moves as ``bytea`` columns of ``states``
(rows filled whole) 186. The moves of a state through the views 69 µs, into it 62 (the
``edges`` table 54 and 45); every move through the view, decoded by the server, 4.3 s; every
move read into arrays through psycopg's text results 17-24 s (the table 30): reading should
ask for binary results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from explorer.adjacency import Adjacency, Ints

#: How a state's ids are written: ``fixed`` (each id in `width` bytes, big-endian, so that
#: the blob's hex reads as the ids and the ``edges`` view decodes it in plain SQL; width 4 is
#: an int32 blob), ``varint`` (each id in 7-bit groups, low group first, the high bit set on
#: every byte but an id's last: LEB128) or ``delta`` (the ids sorted, the first as a varint,
#: each next one as its gap from the one before).
Encoding = Literal["fixed", "varint", "delta"]
ENCODINGS: tuple[Encoding, ...] = ("fixed", "varint", "delta")
#: Bytes as numpy holds them.
Bytes = npt.NDArray[np.uint8]
#: The widest fixed width: state ids are below 2**31 (`explorer.build.arrays.ID_LIMIT`).
MAX_WIDTH = 4
#: The most bytes a varint of an id below 2**35 takes.
MAX_VARINT = 5


@dataclass(frozen=True)
class Packed:
    """Every state's blob, concatenated: state s's blob is ``data[offset[s] : offset[s + 1]]``.

    `width` is the fixed width of ids (``fixed`` only; 0 for the varints)."""

    data: Bytes
    offset: Ints
    encoding: Encoding
    width: int = 0

    @property
    def size(self) -> int:
        """The number of states."""
        return len(self.offset) - 1

    def blobs(self) -> list[bytes]:
        """One ``bytes`` a state, as a row stores it."""
        raw = self.data.tobytes()
        ends = self.offset.tolist()
        return [raw[a:b] for a, b in zip(ends, ends[1:], strict=False)]

    @classmethod
    def from_blobs(cls, blobs: list[bytes], encoding: Encoding, width: int = 0) -> Packed:
        """The blobs of states 0, 1, … as rows stored them (`blobs` in state order)."""
        lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
        offset = np.zeros(len(blobs) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offset[1:])
        data = np.frombuffer(b"".join(blobs), dtype=np.uint8)
        return cls(data, offset, encoding, width)


def id_width(largest: int) -> int:
    """The fewest whole bytes that hold every id up to `largest`: a game's fixed width.

    Examples
    --------
    >>> id_width(0), id_width(255), id_width(256), id_width(1_004_730), id_width(2**31 - 1)
    (1, 1, 2, 3, 4)
    """
    if not 0 <= largest < 2 ** (8 * MAX_WIDTH):
        raise ValueError(f"state id {largest} is outside 0 .. 2**{8 * MAX_WIDTH} - 1")
    return max(1, (int(largest).bit_length() + 7) // 8)


def offset_width(farthest: int) -> int:
    """The fewest whole bytes that hold every offset from -`farthest` to `farthest` as
    `relative` writes it: a game's width (see `explorer.storage.rows.moves`).

    Examples
    --------
    >>> offset_width(0), offset_width(127), offset_width(128), offset_width(8_388_607)
    (1, 1, 2, 3)
    """
    return id_width(2 * abs(int(farthest)) + 1)


def relative(owners: Ints, ids: Ints, width: int) -> Ints:
    """`ids` as the rows of states `owners` hold them in `width` bytes: each one's offset from
    its owner, plus half of what the width holds (offset binary: never negative, and in the
    order of the ids). States numbered by tier hold neighbours: the 1M build's offsets take 2
    bytes where its ids take 3, and the 10^8 build's 3 where its ids take 4.

    Examples
    --------
    >>> relative(np.array([5, 5]), np.array([3, 7]), 1).tolist()
    [126, 130]
    >>> absolute(np.array([5, 5]), np.array([126, 130]), 1).tolist()
    [3, 7]
    """
    return ids - owners + (1 << (8 * width - 1))


def absolute(owners: Ints, values: Ints, width: int) -> Ints:
    """`relative`'s inverse: the ids that rows of states `owners` hold as `values`."""
    return values + owners - (1 << (8 * width - 1))


def pack(moves: Adjacency, encoding: Encoding, width: int | None = None) -> Packed:
    """Each state's ids (``moves.of(s)``) as its blob.

    ``fixed`` writes the ids in `width` bytes (default: `id_width` of the largest id) in the
    order given; ``varint`` in the order given; ``delta`` sorted (a state's ids are a set).

    Examples
    --------
    >>> moves = Adjacency.from_degrees(np.array([2, 0, 1]), np.array([300, 1, 2]))
    >>> pack(moves, "fixed").blobs()
    [b'\\x01,\\x00\\x01', b'', b'\\x00\\x02']
    >>> pack(moves, "varint").blobs(), pack(moves, "delta").blobs()
    ([b'\\xac\\x02\\x01', b'', b'\\x02'], [b'\\x01\\xab\\x02', b'', b'\\x02'])
    """
    ids = moves.of(np.arange(moves.size, dtype=np.int64))
    if len(ids) and int(ids.min()) < 0:
        raise ValueError(f"state id {int(ids.min())} is negative")
    if encoding == "fixed":
        chosen = id_width(int(ids.max(initial=0))) if width is None else width
        if len(ids) and id_width(int(ids.max())) > chosen:
            raise ValueError(f"state id {int(ids.max())} does not fit in {chosen} bytes")
        data = _fixed(ids, chosen)
        offset = np.zeros(moves.size + 1, dtype=np.int64)
        np.cumsum(moves.degree * chosen, out=offset[1:])
        return Packed(data, offset, encoding, chosen)
    if encoding == "delta":
        ids = _gaps(moves, _sorted_within(moves, ids))
    data, lengths = _varints(ids)
    ends = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(lengths, out=ends[1:])
    first = np.zeros(moves.size + 1, dtype=np.int64)
    np.cumsum(moves.degree, out=first[1:])
    return Packed(data, ends[first], encoding)


def unpack(packed: Packed) -> Adjacency:
    """The states' ids from their blobs: `pack`'s inverse (``delta`` gives each state's ids
    sorted)."""
    data, offset = packed.data, packed.offset
    if packed.encoding == "fixed":
        width = packed.width
        lengths = np.diff(offset)
        if len(data) % width or np.any(lengths % width):
            raise ValueError(f"a blob's length is not a multiple of the width {width}")
        columns = data.reshape(-1, width).astype(np.int64)
        ids = np.zeros(len(columns), dtype=np.int64)
        for k in range(width):
            ids = (ids << 8) | columns[:, k]
        return Adjacency.from_degrees(lengths // width, ids)
    last = (data & 0x80) == 0
    if len(data) and not last[-1] or np.any(~last[offset[1:][np.diff(offset) > 0] - 1]):
        raise ValueError("a blob ends inside a varint")
    ids = _from_varints(data, last)
    ended = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(last, out=ended[1:])
    degree = np.diff(ended[offset])
    moves = Adjacency.from_degrees(degree, ids)
    if packed.encoding == "delta":
        moves = Adjacency.from_degrees(degree, _sums(moves))
    return moves


def _fixed(ids: Ints, width: int) -> Bytes:
    """The ids big-endian in `width` bytes each."""
    wide = ids.astype(">u8").view(np.uint8).reshape(-1, 8)
    return np.ascontiguousarray(wide[:, 8 - width :]).reshape(-1)


def _sorted_within(moves: Adjacency, ids: Ints) -> Ints:
    """`ids` sorted within each state's run (often they are: no sort then)."""
    falls = np.flatnonzero(np.diff(ids) < 0) + 1
    if np.isin(falls, moves.start).all():
        return ids
    owner = np.repeat(np.arange(moves.size, dtype=np.int64), moves.degree)
    return ids[np.lexsort((ids, owner))]


def _gaps(moves: Adjacency, ids: Ints) -> Ints:
    """Each id minus the one before it in its state's run (the first kept whole)."""
    gaps = ids.copy()
    gaps[1:] -= ids[:-1]
    firsts = moves.start[moves.degree > 0]
    gaps[firsts] = ids[firsts]
    return gaps


def _sums(moves: Adjacency) -> Ints:
    """`_gaps`' inverse: running sums within each state's run."""
    total = np.cumsum(moves.target)
    firsts = moves.start[moves.degree > 0]
    before = total[firsts] - moves.target[firsts]
    return total - np.repeat(before, moves.degree[moves.degree > 0])


def _varints(values: Ints) -> tuple[Bytes, Ints]:
    """The values as LEB128 varints, concatenated, and each one's length in bytes."""
    values = values.astype(np.uint64)
    lengths = np.ones(len(values), dtype=np.int64)
    for k in range(1, MAX_VARINT + 4):
        lengths += values >= np.uint64(1 << (7 * k))
    starts = np.cumsum(lengths) - lengths
    data = np.empty(int(lengths.sum()), dtype=np.uint8)
    for k in range(int(lengths.max(initial=0))):
        here = lengths > k
        group = (values[here] >> np.uint64(7 * k)) & np.uint64(0x7F)
        more = (lengths[here] > k + 1).astype(np.uint64) << np.uint64(7)
        data[starts[here] + k] = (group | more).astype(np.uint8)
    return data, lengths


def _from_varints(data: Bytes, last: npt.NDArray[np.bool_]) -> Ints:
    """The LEB128 varints of `data` (`last` marks each one's final byte)."""
    if not len(data):
        return np.empty(0, dtype=np.int64)
    firsts = np.flatnonzero(np.concatenate(([True], last[:-1])))
    place = np.arange(len(data), dtype=np.int64) - np.repeat(
        firsts, np.diff(np.append(firsts, len(data)))
    )
    groups = (data & 0x7F).astype(np.int64) << (7 * place)
    return np.add.reduceat(groups, firsts)
