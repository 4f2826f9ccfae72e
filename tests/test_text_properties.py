"""Property tests: any mix of scripts lays out without errors and respects its box."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from cardgen.text import GlyphRegistry, TextEngine

ALPHABET = ("abcdefgh XYZ 0123 -.,()+/ νμτγ ū\u0305 →≤ كوارك علوي קוורק 上夸克，。 क्षत्रिय "
            "\u200e\u200f\U0001F9EA\n")
texts = st.text(alphabet=ALPHABET, max_size=60)


@settings(max_examples=500, deadline=None)
@given(text=texts, width=st.floats(8, 60), size=st.floats(2, 6))
@example(text="\U0001F9EA\u093f", width=8.0, size=2.0)       # a mark riding on a character no font has
@example(text="\u0915\U0001F9EA\u093f", width=8.0, size=2.0)
def test_layout_respects_box_and_keeps_every_visible_character(text, width, size):
    engine = TextEngine.default()
    res = engine.layout(text, size=size, width=width)
    for line in res.lines:
        assert line.width_mm <= width + 1e-6 or not res.fits
    # Every non-space character of the input is on exactly one line.
    shown = "".join(res.text[line.start:line.end] for line in res.lines)
    assert [c for c in shown if not c.isspace()] == [c for c in text if not c.isspace()]
    assert res.missing == (["\U0001F9EA"] if "\U0001F9EA" in text else [])
    # A character no font covers is drawn as the .notdef placeholder box, and nothing else is.
    glyphs = [g for line in res.lines for g in line.glyphs]
    assert all((g.gid == 0) == (res.text[g.cluster] == "\U0001F9EA") for g in glyphs)
    assert sum(g.gid == 0 for g in glyphs) == shown.count("\U0001F9EA")


@settings(max_examples=200, deadline=None)
@given(text=texts, min_size=st.floats(1, 3))
def test_auto_shrink_result_is_consistent(text, min_size):
    engine = TextEngine.default()
    res = engine.layout(text, size=5, width=25, height=12, min_size=min_size)
    assert min_size <= res.size <= 5
    assert res.fits == (res.overflow == 0)
    if res.fits:
        assert res.height <= 12 + 1e-6
    else:
        assert res.size == min_size and res.overflow > 0
    reg = GlyphRegistry()
    assert res.to_svg(0, 0, reg) == res.to_svg(0, 0, reg)
