"""Line breaking, alignment, vertical placement and auto-shrink."""

from __future__ import annotations

import pytest

from cardgen.text import TextEngine, TextStyle

SENTENCE = ("Quarks combine in threes to make baryons such as the proton and the neutron, "
            "or in quark-antiquark pairs to make mesons.")


@pytest.fixture(scope="module")
def engine() -> TextEngine:
    return TextEngine.default()


def visible_text(res, line):
    return res.text[line.start:line.end]


def test_wraps_into_lines_no_wider_than_box(engine):
    res = engine.layout(SENTENCE, size=3.5, width=30)
    assert len(res.lines) >= 4
    assert all(line.width_mm <= 30 for line in res.lines)
    assert res.fits and res.overflow == 0.0
    words = " ".join(visible_text(res, line) for line in res.lines).split()
    assert words == SENTENCE.split(), "breaks only at spaces, never inside words"
    assert res.width == max(line.width_mm for line in res.lines)


@pytest.mark.parametrize("align, factor", [("start", 0.0), ("left", 0.0), ("middle", 0.5),
                                           ("end", 1.0), ("right", 1.0)])
def test_alignment_offsets(engine, align, factor):
    res = engine.layout(SENTENCE, size=3.5, width=30, align=align)
    for line in res.lines:
        assert line.x == pytest.approx((30 - line.width_mm) * factor, abs=0.01)


def test_start_and_end_follow_rtl_paragraphs(engine):
    text = "كوارك علوي كوارك سفلي كوارك ساحر"
    start = engine.layout(text, size=4, width=25, align="start")
    end = engine.layout(text, size=4, width=25, align="end")
    assert start.direction == "rtl" and len(start.lines) > 1
    for line in start.lines:
        assert line.x + line.width_mm == pytest.approx(25, abs=0.01)
    for line in end.lines:
        assert line.x == pytest.approx(0, abs=0.01)


def test_explicit_direction_overrides_detection(engine):
    assert engine.layout("كوارك", size=4, direction="ltr").direction == "ltr"
    assert engine.layout("quark", size=4, direction="rtl").direction == "rtl"
    assert engine.layout("123 quark", size=4).direction == "ltr"
    assert engine.layout("123 كوارك", size=4).direction == "rtl"


def test_newline_starts_new_line(engine):
    res = engine.layout("Up\nquark", size=4)
    assert [visible_text(res, line) for line in res.lines] == ["Up", "quark"]
    pitch = res.lines[1].baseline - res.lines[0].baseline
    assert pitch == pytest.approx(4 * 1.2)
    res = engine.layout("a\r\n\nb", size=4, line_height=1.5)
    assert len(res.lines) == 3
    assert res.lines[2].baseline - res.lines[0].baseline == pytest.approx(2 * 4 * 1.5)


def test_hyphenated_word_breaks_after_hyphen(engine):
    res = engine.layout("antiquark-antiquark", size=4, width=25)
    assert [visible_text(res, line) for line in res.lines] == ["antiquark-", "antiquark"]
    assert res.fits


def test_overlong_word_is_split_by_cluster_and_reported(engine):
    res = engine.layout("Supercalifragilistic", size=4, width=12)
    assert len(res.lines) > 1
    assert all(line.width_mm <= 12 for line in res.lines)
    assert "".join(visible_text(res, line) for line in res.lines) == "Supercalifragilistic"
    assert not res.fits and res.overflow > 0


def test_chinese_breaks_between_ideographs_but_not_before_closing_punctuation(engine):
    text = "上夸克和下夸克，组成质子和中子。"
    res = engine.layout(text, size=4, width=17, lang="zh")
    assert len(res.lines) > 1
    assert all(line.width_mm <= 17 for line in res.lines)
    assert "".join(visible_text(res, line) for line in res.lines) == text
    assert not any(visible_text(res, line)[0] in "，。" for line in res.lines)


def test_vertical_alignment(engine):
    size, height = 4.0, 20.0
    top = engine.layout("Quark", size=size, height=height, valign="top")
    ascender = 1069 / 1000 * size
    assert top.lines[0].baseline == pytest.approx(ascender)
    assert top.height == pytest.approx((1069 + 293) / 1000 * size)
    middle = engine.layout("Quark", size=size, height=height, valign="middle")
    assert middle.lines[0].baseline == pytest.approx(ascender + (height - top.height) / 2)
    bottom = engine.layout("Quark", size=size, height=height, valign="bottom")
    assert bottom.lines[0].baseline == pytest.approx(ascender + height - top.height)
    baseline = engine.layout("Quark", size=size, valign="baseline")
    assert baseline.lines[0].baseline == 0


def test_auto_shrink_finds_a_smaller_size_that_fits(engine):
    natural = engine.measure("Antineutrino", size=5)
    box = natural * 0.8
    res = engine.layout("Antineutrino", size=5, width=box, min_size=3)
    assert 3 <= res.size < 5
    assert res.fits and res.overflow == 0.0
    assert len(res.lines) == 1 and res.width <= box
    # The 2 % grid step above the chosen size would not have fitted.
    assert engine.measure("Antineutrino", size=res.size / 0.98) > box


def test_auto_shrink_gives_up_at_min_size(engine):
    res = engine.layout(SENTENCE * 3, size=5, width=30, height=10, min_size=3)
    assert res.size == 3
    assert not res.fits
    assert res.overflow == pytest.approx(res.height - 10, abs=0.001)


def test_auto_shrink_for_height(engine):
    res = engine.layout(SENTENCE, size=5, width=30, height=20, min_size=2)
    assert res.fits and 2 <= res.size < 5
    assert res.height <= 20


def test_without_min_size_overflow_is_reported_at_given_size(engine):
    res = engine.layout(SENTENCE, size=5, width=30, height=10)
    assert res.size == 5 and not res.fits and res.overflow > 0


def test_style_object_and_overrides(engine):
    style = TextStyle(size=4, weight="bold", align="middle")
    res = engine.layout("Quark", style=style, width=30)
    assert res.size == 4
    assert res.lines[0].runs[0].face.path.name == "NotoSans-Bold.ttf"
    assert res.lines[0].x == pytest.approx((30 - res.width) / 2)
    assert engine.layout("Quark", style=style, size=6).size == 6


def test_measure_is_additive_for_latin(engine):
    one = engine.measure("o", size=4)
    assert engine.measure("ooo", size=4) == pytest.approx(3 * one)
    assert engine.measure("ooo", size=8) == pytest.approx(6 * one)


def test_layout_is_cached_and_immutable(engine):
    a = engine.layout(SENTENCE, size=3.5, width=30)
    b = engine.layout(SENTENCE, size=3.5, width=30)
    assert a is b
