"""Benchmark graph pages: export time, and time to first draw in headless Chromium.

Run: ``python tests/benchmarks/bench_viz.py [--chromium /usr/bin/chromium] [--repeat 3]``.
Goal: a 2,000-state page exported in under a second and drawn in under two.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from explorer import load_game
from explorer.viz import DEFAULT_BUDGET, draw_game, game_graph

# (spec, start): a sparse game (at most 12 moves a state) and a dense one (Kayles, 18 a state)
GAMES = [("subtraction:1,2,3", "20,20,20,20"), ("kayles", "34")]
SIZES = sorted({500, 2_000, DEFAULT_BUDGET, 5_000})
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def first_draw_ms(browser: object, path: Path) -> float:
    """Milliseconds from navigation start to vis-network's first afterDrawing event."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        page.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=120_000)
        return float(page.evaluate("window.explorerFirstDraw"))
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    start = time.perf_counter()
    import pyvis.network  # noqa: F401  (a one-off cost of every process that draws)

    print(f"import pyvis (pulls in IPython): {time.perf_counter() - start:.2f} s, once per process")
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp(prefix="bench-viz-"))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=FLAGS)
        print(
            f"{'game':<32}{'states':>7}{'moves':>8}{'graph s':>9}{'export s':>10}"
            f"{'page MB':>9}{'first draw s':>14}"
        )
        for spec, text in GAMES:
            game = load_game(spec)
            position = game.parse(text)
            for size in SIZES:
                graph_times, export_times, draws = [], [], []
                for _ in range(args.repeat):
                    t0 = time.perf_counter()
                    game_graph(game, position, budget=size)  # generate + solve + cut alone
                    t1 = time.perf_counter()
                    page = draw_game(game, position, budget=size)
                    path = page.save(folder / f"{spec}-{size}.html")
                    t2 = time.perf_counter()
                    graph_times.append(t1 - t0)
                    export_times.append(t2 - t1)
                    draws.append(first_draw_ms(browser, path) / 1000)
                print(
                    f"{spec + ' ' + text:<32}{page.nodes:>7,}{page.edges:>8,}"
                    f"{statistics.median(graph_times):>9.2f}{statistics.median(export_times):>10.2f}"
                    f"{len(page.html) / 1e6:>9.2f}{statistics.median(draws):>14.2f}"
                )
        browser.close()
    print("export = generate, solve, cut, lay out and write the page (graph s is its first part);")
    print(f"medians of {args.repeat} runs; pages in {folder}")


if __name__ == "__main__":
    main()
