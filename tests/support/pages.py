"""Reading a drawn page back, and the hostile names every page must show only as text."""

from __future__ import annotations

import json

from tests.support.environment import DATA

#: A graph file whose vertex names are markup.
HOSTILE_FILE = DATA / "hostile-labels.json"
HOSTILE = "<img src=x onerror=alert(1)>"
#: Labels that try every way out of the page: markup, the end of the script holding the JSON,
#: pyvis' switch to an innerHTML popup ("href"), template syntax, a line break.
NASTY = [
    HOSTILE,
    "</script><script>alert(2)</script>",
    '<a href="javascript:alert(3)">x</a>',
    "{{ 7 * 7 }}",
    "line\nbreak",
    "émoji 🎲",
]


def page_data(page: str) -> tuple[list[dict], list[dict]]:
    """The node and edge lists the page hands to vis-network."""
    decoder = json.JSONDecoder()
    found = []
    for name in ("nodes", "edges"):
        marker = f"{name} = new vis.DataSet("
        found.append(decoder.raw_decode(page, page.index(marker) + len(marker))[0])
    return found[0], found[1]
