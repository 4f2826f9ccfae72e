"""Bidi levels and reordering, cross-checked against python-bidi."""

from __future__ import annotations

import pytest
from bidi import get_display

from cardgen.text import TextEngine
from cardgen.text.bidi import paragraph_level, resolve_levels, visual_order


@pytest.mark.parametrize("text", [
    "abc كوارك علوي def",
    "كوارك 12.5 GeV علوي",
    "שלום world 42% end",
    "الكتلة 173 GeV/c² تقريبا",
    "quark كوارك ١٢٣ x",
    "כוורק up/down 1-2",
    "קוורק עליון (up) 2.2 MeV",
    "abc (כוורק) def",
    "كوارك (a [b] c) x",
    "a (b كوارك) c",
    "كوارك (1) x",
])
def test_reordering_matches_python_bidi(text):
    level = paragraph_level(text)
    levels = resolve_levels(text, level)
    mine = "".join(text[i] for i in visual_order(levels))
    assert mine == get_display(text, base_dir="R" if level else "L")


def test_paragraph_level_first_strong():
    assert paragraph_level("123 كوارك abc") == 1
    assert paragraph_level("(quark) كوارك") == 0
    assert paragraph_level("123 ...") is None


def test_numbers_and_latin_stay_ltr_inside_arabic():
    engine = TextEngine.default()
    text = "كتلة W تساوي 80.4 GeV"
    res = engine.layout(text, size=4)
    assert res.direction == "rtl"
    glyphs = {g.cluster: g for line in res.lines for run in line.runs for g in run.glyphs}
    digits = [glyphs[text.index(c)].x for c in "80.4"]
    assert digits == sorted(digits), "digits run left to right"
    g, e, v = (glyphs[text.index(c)].x for c in "GeV")
    assert g < e < v
    assert glyphs[0].x > glyphs[text.index("W")].x > glyphs[text.index("8")].x
