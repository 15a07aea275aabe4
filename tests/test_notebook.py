"""A notebook as a user runs one: executed by nbconvert in a real kernel, it stays light and
every object's text form is one line."""

from __future__ import annotations

import pytest

nbformat = pytest.importorskip("nbformat")
preprocessors = pytest.importorskip("nbconvert.preprocessors")

pytestmark = pytest.mark.slow

CELLS = [
    "import explorer\nfrom explorer import open_database\n"
    "from explorer.viz import draw_game\n"
    "db = open_database('notebook.db')\nnim = explorer.load_game('nim')",
    "db.game('nim').build('3,4,5')",
    "db.game('nim').state('1,4,5')",
    "page = draw_game(nim, nim.parse('3,4,5'))\npage",
    "page.interactive().__repr__()",
    "explorer.value_sequence(explorer.load_game('kayles'), 1000)",
    "explorer.solve(nim, nim.parse('3,4,5'))",
    "explorer.explain(nim, nim.parse('3,4,5'))",
]


def test_a_notebook_with_a_build_a_query_a_page_and_a_sequence_is_light(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    runner = preprocessors.ExecutePreprocessor(timeout=300, kernel_name="python3")
    runner.preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    path = tmp_path / "session.ipynb"
    nbformat.write(notebook, str(path))
    assert path.stat().st_size < 200_000, f"{path.stat().st_size:,} bytes"
    texts, tables = [], []
    for cell in notebook.cells:
        assert all(output["output_type"] != "error" for output in cell.outputs), cell.outputs
        for output in cell.outputs:
            if "data" in output and "text/plain" in output["data"]:
                texts.append(output["data"]["text/plain"])
                tables.append("<table" in output["data"].get("text/html", ""))
    # the build report, the state, the sequence, the solution and the explanation are tables
    assert tables == [True, True, False, False, True, True, True], tables
    assert len(texts) == len(CELLS) - 1
    assert texts[1].startswith("{'game': 'nim',")  # a stored state is a plain dict
    for text in texts[:1] + texts[2:]:  # explorer's own objects: one short line each
        assert "\n" not in text.strip() and len(text) < 300, text
    assert texts[2] == "<GraphPage 'nim from 3,4,5': 48 states and 262 moves drawn; 500 kB of HTML>"
    assert texts[3].startswith("'<InteractivePage: ")
