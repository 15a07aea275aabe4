"""Graphs as the tests hand them to explorer: graph files for `explorer import` (a name never
used before, so a new game), and explorer's own from-scratch solve an edit must agree with."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import networkx as nx

from explorer.solver import grundy_values, remoteness
from explorer.solver.incremental import StateValue

_names = itertools.count()


def write_graph(folder: Path, graph: nx.DiGraph) -> Path:
    """The graph as a JSON graph file in `folder`, under a name this process never used."""
    path = folder / f"g{next(_names)}.json"
    path.write_text(json.dumps({"vertices": list(graph.nodes), "edges": list(graph.edges)}))
    return path


def from_scratch(graph: nx.DiGraph) -> dict[str, StateValue]:
    """Every state's value solved from nothing (what an incremental re-solve must equal)."""
    grundy = grundy_values(graph)
    far = remoteness(graph)
    return {s: StateValue(grundy[s], far[s]) for s in graph}
