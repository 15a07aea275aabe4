"""Games written in Python, as the tests write them to files: the issue's example game in its
three forms, games with bugs, and an independent brute force of the example's values."""

from __future__ import annotations

import functools
import shutil
import textwrap
import tomllib
from pathlib import Path

from tests.support.environment import DATA

#: G(0..19) of "remove 1, 2 or 4 stones, or split a heap into two unequal heaps" (tb:4!.3303).
STONES_VALUES = [0, 1, 2, 0, 3, 4, 0, 2, 1, 3, 4, 0, 5, 1, 2, 4, 3, 5, 0, 2]

#: The example game in its three forms, as the repository ships them in ``data/``: five lines
#: (the decorator and four of rules), a function of sorted tuples of heaps, a Game subclass.
STONES_HEAP = (DATA / "stones.py").read_text(encoding="utf-8")
STONES_GAME = (DATA / "stones_game.py").read_text(encoding="utf-8")
STONES_CLASS = (DATA / "stones_class.py").read_text(encoding="utf-8")

#: A game whose play may loop: a token on 0..4, moving one step either way, 0 ends.
LOOPY = """\
import explorer


@explorer.game(example="3", acyclic=False)
def walk(n):
    return [m for m in (n - 1, n + 1) if 0 <= m <= 4] if n else []
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


@functools.cache
def stones_value(n: int) -> int:
    """G of one heap, from the definition (not the code under test)."""
    seen = {stones_value(n - k) for k in (1, 2, 4) if k <= n}
    seen |= {stones_value(a) ^ stones_value(n - a) for a in range(1, n) if 2 * a < n}
    value = 0
    while value in seen:
        value += 1
    return value


def stones_moves(heaps: tuple[int, ...]) -> set[tuple[int, ...]]:
    """The positions one move away, from the rules as the issue states them."""
    moves = set()
    for i, h in enumerate(heaps):
        rest = heaps[:i] + heaps[i + 1 :]
        options = [(h - k,) for k in (1, 2, 4) if k <= h]
        options += [(a, h - a) for a in range(1, h) if 2 * a < h]
        for option in options:
            moves.add(tuple(sorted(rest + tuple(x for x in option if x))))
    return moves


@functools.cache
def misere_outcome(heaps: tuple[int, ...]) -> str:
    """Misère outcome by brute force: with no move the player to move has won."""
    moves = stones_moves(heaps)
    return "N" if not moves or any(misere_outcome(m) == "P" for m in moves) else "P"


#: A package that registers a game through an entry point, as a third party would.
PLUGIN = Path(__file__).resolve().parents[1] / "plugin_pkg"


def install_plugin(folder: Path) -> Path:
    """Lay the test package out in `folder` as pip installs it: the module, and a
    ``.dist-info`` folder whose ``entry_points.txt`` comes from its pyproject. Put `folder`
    on ``sys.path`` (or PYTHONPATH) and importlib.metadata finds its entry points."""
    project = tomllib.loads((PLUGIN / "pyproject.toml").read_text())["project"]
    shutil.copytree(PLUGIN / "explorer_stones_plugin", folder / "explorer_stones_plugin")
    name = project["name"].replace("-", "_")
    info = folder / f"{name}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    groups = project["entry-points"]
    (info / "entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in points.items())
            for group, points in groups.items()
        )
    )
    return folder
