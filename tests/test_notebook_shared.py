"""The README's Python section as a notebook a user runs, executed by nbconvert in a real
kernel: everything imports from `explorer`, every ``interactive()`` page after the first shares
the first one's drawing library (each output under 100 kB), and in a real browser each frame
still draws."""

from __future__ import annotations

import doctest
import re

import pytest

from tests.support.readme import README

nbformat = pytest.importorskip("nbformat")
preprocessors = pytest.importorskip("nbconvert.preprocessors")
exporters = pytest.importorskip("nbconvert")

pytestmark = pytest.mark.slow

#: The interactive pages the notebook shows after the README's examples.
INTERACTIVE = [
    "page.interactive()",
    "draw_game('kayles', 12).interactive()",
    "draw_game('nim', '2,3').interactive()",
]


def _readme_cells() -> list[str]:
    """Each Python block of the README's Python section, as one cell of its examples."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Python API and notebooks", 1)[1].split("\n## ", 1)[0]
    cells = []
    for block in re.findall(r"```python\n(.*?)```", section, re.S):
        examples = doctest.DocTestParser().get_examples(block)
        cells.append("".join(example.source for example in examples))
    return cells


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notebook")
    cells = _readme_cells()
    assert len(cells) >= 2 and "page = draw_game(" in cells[-1]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells + INTERACTIVE]
    runner = preprocessors.ExecutePreprocessor(timeout=300, kernel_name="python3")
    runner.preprocess(notebook, {"metadata": {"path": str(folder)}})
    return notebook, folder


def test_the_readme_section_runs_and_interactive_pages_share_the_library(executed):
    notebook, _ = executed
    for cell in notebook.cells:
        assert all(output["output_type"] != "error" for output in cell.outputs), cell.outputs
        assert not re.search(r"^\s*(from|import) explorer\.", cell.source, re.M), cell.source
    sizes = []
    for cell in notebook.cells[-len(INTERACTIVE) :]:
        (output,) = [o for o in cell.outputs if "text/html" in o.get("data", {})]
        sizes.append(len(output["data"]["text/html"].encode("utf-8")))
    assert sizes[0] > 300_000  # the first carries vis-network
    assert all(size <= 100_000 for size in sizes[1:]), sizes


def test_every_shared_frame_draws_in_a_browser(executed, browser):
    notebook, folder = executed
    body, _ = exporters.HTMLExporter().from_notebook_node(notebook)
    path = folder / "notebook.html"
    path.write_text(body, encoding="utf-8")
    # the frames' own policy forbids the string evaluation Playwright's waits use
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        frames = page.locator("iframe[id^='explorer-frame-']")
        assert frames.count() == len(INTERACTIVE)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        nodes = []
        for i, frame in enumerate(page.frames[1:]):
            frames.nth(i).scroll_into_view_if_needed()  # Chromium does not draw frames off-screen
            frame.wait_for_function("typeof window.explorerFirstDraw === 'number'", timeout=60_000)
            nodes.append(frame.evaluate("network.body.nodeIndices.length"))
        assert nodes == [14, 50, 9] and errors == []
    finally:
        context.close()
