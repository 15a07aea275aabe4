"""Benchmark graph pages: export time, and time to first draw in headless Chromium.

Run: ``python tests/benchmarks/bench_viz.py [--chromium /usr/bin/chromium] [--repeat 3]``.
Goal: a 2,000-state page exported in under a second and drawn in under two.

Each case is a whole game graph of about 500, 2,000 (``--budget 2000``) and 5,000 states, for
a sparse game (at most 12 moves a state) and a dense one (Kayles, up to 26). Export is what
``explorer viz`` does after start-up: generate and solve the graph, lay it out, write the page.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from explorer import load_game
from explorer.viz import DEFAULT_BUDGET, draw_graph, game_graph

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository, for tests/
from tests.support.environment import CHROMIUM_FLAGS  # noqa: E402  (the browser tests' flags)

CASES = [
    ("subtraction:1,2,3", "8,8,8,8"),  # 495 states
    ("subtraction:1,2,3", "21,21,21"),  # 2,024
    ("subtraction:1,2,3", "16,16,16,16"),  # 4,845
    ("kayles", "18"),  # 490
    ("kayles", "24"),  # 1,958
    ("kayles", "28"),  # 4,565
]


def first_draw_s(browser: Any, path: Path) -> float:
    """Seconds from navigation start to vis-network's first drawing of the page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=120_000)
        return float(page.evaluate("window.explorerFirstDraw")) / 1000
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    from explorer.viz import templating  # a one-off cost of every process that draws

    templating.environment(), templating.vis_network()
    print(f"jinja2 and vis-network loaded: {time.perf_counter() - start:.2f} s per process")
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-viz-"))
    header = (
        f"{'game':<31}{'states':>7}{'moves':>8}{'solve s':>9}{'page s':>8}{'export s':>10}"
        f"{'MB':>6}{'first draw s':>14}"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS)
        print(header)
        for spec, text in CASES:
            game = load_game(spec)
            position = game.parse(text)
            solves, pages, draws = [], [], []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                graph = game_graph(game, position, budget=max(DEFAULT_BUDGET, 10_000))
                t1 = time.perf_counter()
                drawn = draw_graph(graph)
                path = drawn.save(folder / f"{spec}-{text}.html")
                t2 = time.perf_counter()
                solves.append(t1 - t0)
                pages.append(t2 - t1)
                draws.append(first_draw_s(browser, path))
            solve, page = statistics.median(solves), statistics.median(pages)
            print(
                f"{spec + ' ' + text:<31}{drawn.nodes:>7,}{drawn.edges:>8,}{solve:>9.2f}"
                f"{page:>8.2f}{solve + page:>10.2f}{len(drawn.html) / 1e6:>6.1f}"
                f"{statistics.median(draws):>14.2f}"
            )
        browser.close()
    print(f"medians of {args.repeat} runs; export = solve + page; pages kept in {folder}")


if __name__ == "__main__":
    main()
