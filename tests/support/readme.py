"""The README's console sessions: each ``$ `` line and the output printed under it."""

from __future__ import annotations

import re

from tests.support.environment import REPO

README = REPO / "README.md"


def session_lines() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ `` line of the console blocks, in order."""
    text = README.read_text(encoding="utf-8")
    cases = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        lines = block.splitlines(keepends=True)
        i = 0
        while i < len(lines):
            if lines[i].startswith("$ "):
                command = lines[i][2:].strip()
                j = i + 1
                while j < len(lines) and not lines[j].startswith("$ "):
                    j += 1
                cases.append((command, "".join(lines[i + 1 : j])))
                i = j
            else:
                i += 1
    return cases


def session_blocks() -> list[tuple[str, str]]:
    """(command, expected output) for every ``$ explorer`` line of the console blocks."""
    return [case for case in session_lines() if case[0].startswith("explorer")]
