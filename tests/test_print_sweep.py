"""Print sweep (issue 17, never a silent bad print): fonts that map characters they cannot draw,
default-ignorable characters, web fonts and collections, soft hyphens, text outside the safe area."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, TTFont

from cardgen.errors import InputError
from cardgen.fontfiles import user_fonts
from cardgen.text import TextEngine
from cardgen.text.chars import describe, shown
from cardgen.text.engine import MissingGlyphs

from .conftest import run_cli
from cardgen.text.fonts import Face, FontChain, chains_with

KR = "\uC870\uCEE4"   # 조커


def _font(path: Path, empty: bool = False, family: str = "SweepKR") -> Path:
    names = [".notdef", "space", "uniC870", "uniCEE4"]
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap({0x20: "space", 0xC870: "uniC870", 0xCEE4: "uniCEE4"})
    glyphs = {}
    for n in names:
        pen = TTGlyphPen(None)
        if n == ".notdef" or (n.startswith("uni") and not empty):
            pen.moveTo((100, 0)); pen.lineTo((100, 700)); pen.lineTo((800, 700)); pen.lineTo((800, 0)); pen.closePath()
        glyphs[n] = pen.glyph()
    fb.setupGlyf(glyphs)
    fb.setupHorizontalMetrics({n: (900 if n != "space" else 300, 100) for n in names})
    fb.setupHorizontalHeader(ascent=880, descent=-120)
    fb.setupNameTable({"familyName": family, "styleName": "Regular"})
    fb.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120, usWeightClass=400)
    fb.setupPost()
    fb.save(str(path))
    return path


def _engine(*paths: Path) -> TextEngine:
    return TextEngine(FontChain(chains_with(tuple(paths))))


# -- 1. a glyph without an outline covers nothing --------------------------------------------------

def test_empty_glyphs_are_not_coverage(tmp_path: Path) -> None:
    empty = _font(tmp_path / "empty.ttf", empty=True)
    assert not Face(0, empty).covers("\uC870")
    assert Face(0, empty).covers(" ")          # a space needs no outline
    with pytest.raises(MissingGlyphs, match=r"U\+C870 .*empty\.ttf maps it but its glyph has no outline"):
        _engine(empty).layout(KR, size=4, strict=True)


def test_outline_less_font_falls_back_to_the_next_font(tmp_path: Path) -> None:
    empty = _font(tmp_path / "a-empty.ttf", empty=True)
    good = _font(tmp_path / "b-good.ttf")
    result = _engine(empty, good).layout(KR, size=4)
    assert result.missing == []
    assert {run.face.path.name for line in result.lines for run in line.runs} == {"b-good.ttf"}


def test_font_without_outline_tables(tmp_path: Path) -> None:
    font = TTFont(str(_font(tmp_path / "x.ttf")))
    del font["glyf"], font["loca"]
    font.save(str(tmp_path / "bitmaps.ttf"))
    face = Face(0, tmp_path / "bitmaps.ttf")
    assert not face.covers("\uC870") and "no outlines" in face.blank_reason("\uC870")


# -- 2. default-ignorable characters ----------------------------------------------------------------

@pytest.mark.parametrize("text", ["Herz 1\ufe0f", "a\u200db", "a\u200cb", "a\u200bb", "x\u2060y", "e\ufe00"])
def test_default_ignorables_need_no_glyph(text: str) -> None:
    engine = TextEngine.default()
    assert engine.layout(text, size=4).missing == []
    assert engine.covers(text) == set()


def test_messages_show_invisible_characters_by_code_point() -> None:
    assert describe("\ufe0f") == "U+FE0F (VARIATION SELECTOR-16)"
    assert describe("\u00e9") == "U+00E9 'é'"
    assert shown("a\u200bb c") == "'a<U+200B>b c'"
    with pytest.raises(MissingGlyphs) as err:
        TextEngine.default().layout("\U0001F600\u200b", size=4, strict=True)
    assert "\u200b" not in str(err.value) and "<U+200B>" in str(err.value)


# -- 3. WOFF and collections ------------------------------------------------------------------------

def test_woff_and_single_font_collection_are_read(tmp_path: Path) -> None:
    good = _font(tmp_path / "src.ttf")
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    woff = TTFont(str(good)); woff.flavor = "woff"; woff.save(str(fonts / "a.woff"))
    ttc = TTCollection(); ttc.fonts = [TTFont(str(good))]; ttc.save(str(fonts / "b.ttc"))
    found = user_fonts(fonts)
    assert [p.name for p in found] == ["a.woff", "b.ttc"]
    for path in found:
        assert Face(0, path).covers("\uC870")
        assert _engine(path).layout(KR, size=4, strict=True).missing == []


def test_unreadable_font_files_are_named(tmp_path: Path) -> None:
    good = _font(tmp_path / "src.ttf")
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    ttc = TTCollection(); ttc.fonts = [TTFont(str(good)), TTFont(str(good))]; ttc.save(str(fonts / "two.ttc"))
    with pytest.raises(InputError, match="collection of 2 fonts") as err:
        user_fonts(fonts)
    assert "two.ttc" in str(err.value) and "-y 0" in str(err.value)
    (fonts / "two.ttc").unlink()
    (fonts / "old.pfb").write_bytes(b"\x80\x01")
    with pytest.raises(InputError, match="Type 1") as err:
        user_fonts(fonts)
    assert "old.pfb" in str(err.value)


# -- 4. soft hyphens ---------------------------------------------------------------------------------

WORD = "Donau\u00addampf\u00adschiff\u00adfahrts\u00adgesell\u00adschaft"


def test_soft_hyphen_breaks_with_a_hyphen() -> None:
    engine = TextEngine.default()
    result = engine.layout(WORD, size=4, width=30)
    assert result.fits and len(result.lines) > 1
    face = result.lines[0].runs[-1].face
    hyphen = face.hb_font.get_nominal_glyph(0x2010)
    for line in result.lines[:-1]:
        assert WORD[line.end - 1] == "\u00ad"
        assert line.glyphs[-1].gid == hyphen
    assert hyphen not in [g.gid for g in result.lines[-1].glyphs]


def test_soft_hyphen_unbroken_shows_nothing() -> None:
    engine = TextEngine.default()
    plain = engine.layout(WORD.replace("\u00ad", ""), size=4)
    result = engine.layout(WORD, size=4)
    assert len(result.lines) == 1 and abs(result.width - plain.width) < 1e-6


# -- 5. text outside the safe area ---------------------------------------------------------------------

def _faces(box: tuple[float, float, float, float]):
    from cardgen.legibility import FaceRef, FaceTexts, Printed

    printed = Printed("Vector boson", "", 0, 8.5, "#000000", "#ffffff", 21.0, 0.0, "", False, 0, *box)
    return [FaceTexts(FaceRef("cards", "w", "front", "en", "k", "t.svg.j2"), 1, (printed,))]


@pytest.mark.parametrize(("box", "severity"), [
    ((52.0, 80.0, 72.0, 83.0), "error"),      # runs past the right trim (63 mm card, 3 mm bleed)
    ((10.0, 86.0, 30.0, 89.5), "warning"),    # inside the trim, beyond the 3 mm safe margin
    ((10.0, 10.0, 30.0, 14.0), None),         # well inside
])
def test_text_beyond_trim_or_safe(monkeypatch: pytest.MonkeyPatch, box, severity) -> None:
    from cardgen.rules import legibility as rules

    comp = SimpleNamespace(width=63.0, height=88.0, bleed=3.0, safe=3.0, kind="deck")
    game = SimpleNamespace(id="g", components={"cards": comp})
    monkeypatch.setattr(rules, "_where", lambda game, face, printed: "t.svg.j2:3")
    found = [f for _, f in rules._outside_safe(game, _faces(box))]
    assert [f.severity for f in found] == ([severity] if severity else [])
    if severity == "error":
        assert "right trim edge" in found[0].message and "'Vector boson'" in found[0].message


def test_raster_artwork_printed_below_150_dpi_is_a_warning_naming_the_size_it_needs(game_copy, tmp_path):
    """A 12 × 12 px image stretched over 35 mm (9 dpi) printed blocky without a word."""
    from PIL import Image

    import cardgen

    g = game_copy("qcd")
    (g.path / "art").mkdir()
    Image.new("RGB", (12, 12), "#336699").save(g.path / "art" / "low.png")
    Image.new("RGB", (420, 420), "#336699").save(g.path / "art" / "fine.png")   # 35 mm at 305 dpi
    g.edit("templates/card-back.svg.j2", "{% block artwork %}",
           '{% block artwork %}{{ image("art/low.png", 14, 15, 35, 35) }}{{ image("art/fine.png", 14, 15, 35, 35) }}')
    found = [f for f in cardgen.check(g.load()).findings if f.rule == "artwork-resolution"]
    assert len(found) == 1 and found[0].severity == "warning", found
    assert "image 'art/low.png': 12 × 12 px printed at 35.0 × 35.0 mm is 9 dpi, below 150" in found[0].message
    assert "at least 207 px across" in found[0].message
    res = run_cli("build", str(g.path), "--out", str(tmp_path / "out"))
    assert res.returncode == 0 and "fine.png" not in res.stderr, res.stderr
    assert res.stderr.count("low-resolution") == 1, res.stderr   # once, though 25 cards share the back


def test_a_class_sets_marks_by_the_edge_are_no_finding_of_a_build(tmp_path, monkeypatch):
    """The level and set marks sit in the safe margin on purpose: the build's gate found 34
    'crosses the safe margin' warnings on Particle Builder's level 5 and 7 cards, and rendered
    each face again to place them (a quarter of a second of every rebuild)."""
    import cardgen
    import cardgen.check
    from cardgen.build import BuildOptions

    seen, called = [], []
    real = cardgen.check.measuring_findings

    def measuring(game, faces):
        called.append(len(faces))
        found = real(game, faces)
        seen.extend(found)
        return found
    monkeypatch.setattr(cardgen.check, "measuring_findings", measuring)
    cardgen.build("particle-builder", BuildOptions(out=tmp_path / "out", sets=2, cache=False), jobs=1)
    assert called, "the gate measured nothing"
    assert not [f for f in seen if f.rule == "text-size"], seen
