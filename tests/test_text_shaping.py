"""Shaping, itemization and font fallback of the text engine."""

from __future__ import annotations

import pytest

from cardgen.text import TextEngine, TextEngineError
from cardgen.text.fonts import FaceSpec, FontChain

ARABIC = "كوارك علوي"


@pytest.fixture(scope="module")
def engine() -> TextEngine:
    return TextEngine.default()


def glyphs_of(res):
    return [(run, g) for line in res.lines for run in line.runs for g in run.glyphs]


def ink_x_range(run, glyph, size):
    """Horizontal ink extent of a placed glyph in mm, from HarfBuzz glyph extents."""
    ext = run.face.hb_font.get_glyph_extents(glyph.gid)
    scale = size / run.face.upem
    return glyph.x + ext.x_bearing * scale, glyph.x + (ext.x_bearing + ext.width) * scale


def test_arabic_letters_join(engine):
    res = engine.layout(ARABIC, size=5)
    joined = {g.cluster: g.gid for _, g in glyphs_of(res)}
    isolated = {}
    for i, char in enumerate(ARABIC):
        if char != " ":
            (_, g), = glyphs_of(engine.layout(char, size=5))
            isolated[i] = g.gid
    differing = sorted(i for i in isolated if joined[i] != isolated[i])
    # ك-و join (initial+final), ا ر ك stay isolated after the right-joining و/ا;
    # ع-ل-و join (initial, medial, final), ي after و stays isolated.
    assert differing == [0, 1, 6, 7, 8], (joined, isolated)


def test_arabic_is_right_to_left(engine):
    res = engine.layout(ARABIC, size=5)
    assert res.direction == "rtl"
    placed = glyphs_of(res)
    assert all(run.rtl for run, _ in placed)
    first = next(g for _, g in placed if g.cluster == 0)
    last = next(g for _, g in placed if g.cluster == len(ARABIC) - 1)
    assert first.x == max(g.x for _, g in placed)
    assert last.x == min(g.x for _, g in placed)


def test_devanagari_forms_conjuncts(engine):
    text = "क्षत्रिय"
    res = engine.layout(text, size=5)
    placed = glyphs_of(res)
    assert {run.face.path.name for run, _ in placed} == {"NotoSansDevanagari-Regular.ttf"}
    assert 0 < len(placed) < len(text)


def test_cjk_uses_bundled_subset(engine):
    res = engine.layout("上夸克", size=5, lang="zh")
    placed = glyphs_of(res)
    assert len(placed) == 3
    assert {run.face.path.name for run, _ in placed} == {"NotoSansSC-Regular-GB2312.otf"}
    assert all(run.face.glyph_path(g.gid) for run, g in placed)
    assert res.missing == []


def test_combining_overline_sits_over_its_base(engine):
    text = "Quark u u\u0305 →"
    res = engine.layout(text, size=10)
    base_index = text.index("u\u0305")
    cluster = [(run, g) for run, g in glyphs_of(res) if g.cluster == base_index]
    assert len(cluster) == 2, "base and mark must shape together as one cluster"
    (base_run, base), (mark_run, mark) = cluster
    assert base_run is mark_run
    assert mark.advance == 0
    b0, b1 = ink_x_range(base_run, base, res.size)
    m0, m1 = ink_x_range(mark_run, mark, res.size)
    assert m0 < b1 and b0 < m1, "overline must overlap its base horizontally"
    # ... and sit above the x-height of "u".
    base_top = base_run.face.hb_font.get_glyph_extents(base.gid).y_bearing * res.size / 1000
    mark_ext = mark_run.face.hb_font.get_glyph_extents(mark.gid)
    mark_bottom = mark.y + (mark_ext.y_bearing + mark_ext.height) * res.size / 1000
    assert mark_bottom > base_top


def test_fallback_uses_one_face_per_script(engine):
    res = engine.layout("Quark كوارك 夸克", size=5)
    faces = {run.face.path.name for line in res.lines for run in line.runs}
    assert faces == {"NotoSans-Regular.ttf", "NotoSansArabic-Regular.ttf",
                     "NotoSansSC-Regular-GB2312.otf"}


def test_bold_uses_bold_faces(engine):
    res = engine.layout("Quark كوارك 夸克", size=5, weight="bold")
    faces = {run.face.path.name for line in res.lines for run in line.runs}
    assert faces == {"NotoSans-Bold.ttf", "NotoSansArabic-Bold.ttf", "NotoSansSC-Bold-GB2312.otf"}


def test_language_prefers_cjk_punctuation(engine):
    plain = engine.layout("夸克 quark", size=5)
    chinese = engine.layout("quark: 夸克", size=5, lang="zh")
    colon = next(run.face.path.name for line in chinese.lines for run in line.runs
                 for g in run.glyphs if g.cluster == 5)
    assert colon == "NotoSansSC-Regular-GB2312.otf"
    latin = {run.face.path.name for line in plain.lines for run in line.runs
             if any(g.cluster >= 3 for g in run.glyphs)}
    assert latin == {"NotoSans-Regular.ttf"}


def test_physics_symbols_are_covered(engine):
    text = "νμτγπΔΩ ū u\u0305 u\u0304 ⁺⁻⁰ ₀₁₂₃₄₅₆₇₈₉ ± × ≤ ≥ ∞ → · \u25cc − ≈ ℏ"
    assert engine.covers(text) == set()
    assert engine.covers(text, weight="bold") == set()
    assert engine.layout(text, size=4, weight="bold").missing == []


def test_missing_characters_are_reported_and_shown_as_boxes_with_their_code_point(engine):
    from cardgen.text.svg import place

    text = "A\U0001F9EA B\U00010000"
    res = engine.layout(text, size=5)
    assert res.missing == sorted(["\U0001F9EA", "\U00010000"])
    assert {g.cluster for _, g in glyphs_of(res)} == {0, 1, 2, 3, 4}
    boxes = [g for _, g in glyphs_of(res) if g.gid == 0]
    assert [g.cluster for g in boxes] == [1, 4] and all(g.advance > 1 for g in boxes)   # they take room
    # Inside each box: the code point's hex digits, smaller, in two rows within the box.
    placed = place(res, 0, 0, "#000").glyphs
    for box in boxes:
        i = next(n for n, p in enumerate(placed) if p.gid == 0 and abs(p.x - round(box.x, 3)) < 1e-6)
        digits = f"{ord(text[box.cluster]):04X}"
        inner = placed[i + 1:i + 1 + len(digits)]
        face = inner[0].face
        assert [p.gid for p in inner] == [face.hb_font.get_nominal_glyph(ord(c)) for c in digits]
        assert all(p.scale < placed[i].scale / 2 for p in inner)
        assert all(box.x < p.x - placed[i].x + box.x < box.x + box.advance for p in inner)
        assert len({p.y for p in inner}) == 2                          # two rows
    assert engine.covers(text) == {"\U0001F9EA", "\U00010000"}


def test_strict_mode_raises_missing_glyphs(engine):
    from cardgen.text import MissingGlyphs

    with pytest.raises(MissingGlyphs) as info:
        engine.layout("x\U0001F9EA", size=5, strict=True)
    assert info.value.chars == ["\U0001F9EA"]
    assert "U+1F9EA" in str(info.value)


def test_unreadable_font_is_a_clear_error(tmp_path):
    (tmp_path / "Broken.ttf").write_bytes(b"this is not a font at all")
    with pytest.raises(TextEngineError) as info:
        FontChain({"regular": (FaceSpec("Broken.ttf"),)}, font_dir=tmp_path)
    assert "Broken.ttf" in str(info.value)
    with pytest.raises(TextEngineError) as info:
        FontChain({"regular": (FaceSpec("Absent.ttf"),)}, font_dir=tmp_path)
    assert "Absent.ttf" in str(info.value)


def test_invalid_options_are_rejected(engine):
    with pytest.raises(TextEngineError, match="align"):
        engine.layout("x", size=5, align="justify")
    with pytest.raises(TextEngineError, match="weight"):
        engine.layout("x", size=5, weight="black")
    with pytest.raises(TextEngineError, match="size"):
        engine.layout("x", size=0)


def test_mark_missing_from_its_base_face_falls_back(engine):
    res = engine.layout("a\u093f", size=5)  # Devanagari vowel sign after a Latin letter
    assert res.missing == []
    faces = [run.face.path.name for line in res.lines for run in line.runs]
    assert faces == ["NotoSans-Regular.ttf", "NotoSansDevanagari-Regular.ttf"]


def test_symbol_fallback_does_not_capture_following_digits(engine):
    """'−' exists only in Noto Sans Math; the digits after it stay in the primary bold face."""
    res = engine.layout("−2/3", size=4, weight="bold")
    faces = [run.face.path.name for line in res.lines for run in line.runs]
    assert faces == ["NotoSansMath-Regular.ttf", "NotoSans-Bold.ttf"]


def test_a_simple_latin_paragraph_is_itemized_as_character_by_character(engine, monkeypatch):
    """The one-run shortcut for left-to-right Latin text the first face has gives what the
    cluster-by-cluster path gives, on random paragraphs mixing what it takes with what it
    must leave to that path (other scripts, marks, a soft hyphen, right-to-left text, digits
    alone, characters no face has), for every weight, language and paragraph direction."""
    import random

    from cardgen.text import shaping

    rng = random.Random(18)
    simple = sorted(shaping._simple_latin()[0])
    others = list("αβγΩ" "ДЖ" "كو" "\u0305\u0301\u00ad\u200d\u200f" "→−√" "漢字" "\U0001d11e") + ["\ufffe"]
    taken = 0
    for _ in range(1500):
        pool = simple if rng.random() < 0.6 else simple + others
        text = "".join(rng.choice(pool) for _ in range(rng.randint(1, 30)))
        for weight, lang, level in [("regular", None, 0), ("bold", "en", 0), ("regular", "ar", 0),
                                    ("regular", "zh", 0), ("regular", None, 1)]:
            got = shaping.itemize(text, engine.fonts, weight, lang, level)
            assert got == shaping._itemize_each(text, engine.fonts, weight, lang, level), (text, weight, lang, level)
            taken += len(got[0]) == 1 and got[0][0][4] == "Latn" and level == 0
    assert taken > 2000   # the shortcut was met many times

    monkeypatch.setattr(shaping, "_itemize_each", None)   # a footer takes the shortcut
    shaping.shape_paragraph.cache_clear()
    assert engine.layout("Deck · Cards · en · sheet 12/1112 · fronts", size=2.5, cache=False).lines
