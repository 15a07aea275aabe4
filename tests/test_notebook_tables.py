"""Patterns, misère quotients, sweeps and genus sequences show in a notebook as HTML tables
holding their facts, and as one short line of text."""

from __future__ import annotations

import html
import re

import explorer
from tests.support.notebook import shown_html


def _cells(page: str) -> list[list[str]]:
    """Each table row's cells, as text."""
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)
    return [
        [html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)] for r in rows
    ]


def _one_line(value: object) -> None:
    text = repr(value)
    assert "\n" not in text and len(text) < 300, text


def test_patterns_are_a_table():
    found = explorer.patterns("kayles")
    cells = _cells(shown_html(found))
    assert cells[0] == ["pattern", "what it says", "status"]
    assert [row[0] for row in cells[1:]] == [p.kind for p in found.patterns]
    assert "period 12, preperiod 71" in cells[1][1] and cells[1][2].startswith("proved")
    _one_line(found)


def test_a_misere_quotient_is_tables_of_its_facts():
    quotient = explorer.misere_quotient("octal:0.75", 16)
    page = shown_html(quotient)
    cells = _cells(page)
    assert ["presentation", quotient.presentation] in cells
    assert ["|Q|, |P|", "8, 2"] in cells
    phi = next(row for row in cells if row and row[0] == "Φ")
    assert phi[1:] == [quotient.elements[x] for x in quotient.phi]
    products = next(i for i, row in enumerate(cells) if row and row[0] == "×")
    assert cells[products][1:] == quotient.elements
    assert len(cells) - products - 1 == quotient.size
    _one_line(quotient)


def test_a_sweep_is_a_table_of_variants():
    sweep = explorer.sweep_variants("subtraction:{1..3}", 200)
    cells = _cells(shown_html(sweep))
    assert cells[0][:2] == ["variant", "period"]
    assert [row[0] for row in cells[1:]] == [r.spec for r in sweep.rows] and len(cells) == 8
    # a subtraction game {1..k}'s values repeat with period k + 1 (GAMES.md)
    assert ["subtraction:1,2,3", "4"] == cells[-1][:2]
    _one_line(sweep)


def test_a_genus_sequence_is_a_table():
    genus = explorer.genus_sequence(explorer.load_game("nim"), 4)
    cells = _cells(shown_html(genus))
    assert cells[0] == ["heap", "genus", "G", "G⁻"]
    assert [row[1] for row in cells[1:]] == [g.text() for g in genus.genera]
    # Nim: G(n) = n, and G⁻ (Bouton's misère rule): 1 for heap 0, 0 for heap 1, n from 2 on
    assert [row[2:] for row in cells[1:]] == [
        ["0", "1"],
        ["1", "0"],
        ["2", "2"],
        ["3", "3"],
        ["4", "4"],
    ]
    _one_line(genus)
