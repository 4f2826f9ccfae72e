"""SVG emission: glyph registry, <use> placement, determinism, rendering through cairosvg."""

from __future__ import annotations

import io
import re

import cairosvg
import pytest
from PIL import Image

from cardgen.text import GlyphRegistry, TextEngine, TextEngineError
from cardgen.text.fonts import BOLD_CHAIN, REGULAR_CHAIN, FaceSpec, FontChain

USE = re.compile(r'<use href="#([^"]+)" transform="translate\(([-\d.]+) ([-\d.]+)\) '
                 r'scale\(([-\d.e]+) -([-\d.e]+)\)"/>')


@pytest.fixture(scope="module")
def engine() -> TextEngine:
    return TextEngine.default()


def document(body: str, reg: GlyphRegistry, width: float, height: float) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm" '
            f'viewBox="0 0 {width} {height}">{reg.defs()}{body}</svg>')


def rasterise(svg: str, px_per_mm: int = 10) -> Image.Image:
    png = cairosvg.svg2png(bytestring=svg.encode(), scale=px_per_mm / (96 / 25.4),
                           background_color="white")
    return Image.open(io.BytesIO(png)).convert("L")


def ink_columns(image: Image.Image) -> tuple[int, int]:
    """First and last pixel column holding ink."""
    bbox = Image.eval(image, lambda v: 255 - v).getbbox()
    assert bbox is not None, "nothing was drawn"
    return bbox[0], bbox[2]


def test_each_glyph_defined_once_and_reused(engine):
    reg = GlyphRegistry()
    body = engine.layout("aaaa bbbb", size=5).to_svg(0, 0, reg)
    defs = reg.defs()
    assert defs.count("<path ") == 2 and len(reg) == 2
    assert body.count("<use ") == 8, "the space has no outline and emits nothing"
    ids = re.findall(r'<path id="([^"]+)"', defs)
    assert sorted(set(m[0] for m in USE.findall(body))) == sorted(ids)
    engine.layout("abba", size=9).to_svg(0, 10, reg)
    assert reg.defs() == defs, "later documents' text reuses existing definitions"


def test_use_placement_and_rounding(engine):
    reg = GlyphRegistry(prefix="t")
    res = engine.layout("Hi", size=3.5, valign="baseline")
    body = res.to_svg(10.00001, 20, reg, fill="#123456")
    assert body.startswith('<g fill="#123456"><use href="#tg0-')
    uses = USE.findall(body)
    assert len(uses) == 2
    first, second = uses
    assert (first[1], first[2]) == ("10", "20")
    assert first[3] == first[4] == "0.0035"
    assert float(second[1]) == pytest.approx(10 + res.lines[0].runs[0].glyphs[1].x, abs=0.001)
    for number in re.findall(r"\d+\.(\d+)", re.sub(r"scale\([^)]*\)", "", body)):
        assert len(number) <= 3
    assert re.match(r'<defs><path id="tg0-\d+" d="M[-\d. A-Z]+"/>', reg.defs())


def test_output_is_deterministic_across_engines():
    text = "Quark u\u0305 كوارك 上夸克 क्षत्रिय → 80 GeV"
    outputs = []
    for _ in range(2):
        engine = TextEngine(FontChain({"regular": REGULAR_CHAIN, "bold": BOLD_CHAIN}))
        reg = GlyphRegistry()
        body = engine.layout(text, size=4, width=35, align="middle").to_svg(1, 2, reg)
        body += engine.layout(text, size=3, weight="bold").to_svg(1, 30, reg)
        outputs.append(reg.defs() + body)
    assert outputs[0] == outputs[1]


def test_defs_order_is_independent_of_use_order(engine):
    first, second = GlyphRegistry(), GlyphRegistry()
    engine.layout("ab", size=4).to_svg(0, 0, first)
    engine.layout("ba", size=4).to_svg(0, 0, second)
    assert first.defs() == second.defs()


def test_registry_refuses_a_second_font_chain(engine):
    reg = GlyphRegistry()
    engine.layout("a", size=4).to_svg(0, 0, reg)
    other = TextEngine(FontChain({"regular": REGULAR_CHAIN, "bold": BOLD_CHAIN}))
    with pytest.raises(TextEngineError, match="two different font chains"):
        other.layout("b", size=4).to_svg(0, 0, reg)


def test_a_missing_glyph_is_emitted_as_a_box_holding_its_code_point(engine):
    reg = GlyphRegistry()
    body = engine.layout("\U0001F9EA", size=4).to_svg(0, 0, reg)
    uses = re.findall(r'href="#g(\d+)-(\d+)"', body)
    face = engine.fonts.chain("regular")[0]
    digits = [str(face.hb_font.get_nominal_glyph(ord(c))) for c in "1F9EA"]
    assert uses[0][1] == "0" and [gid for _, gid in uses[1:]] == digits


def test_arabic_renders_right_aligned(engine):
    reg = GlyphRegistry()
    res = engine.layout("كوارك علوي", size=5, width=60, height=10, align="start",
                        direction="rtl")
    image = rasterise(document(res.to_svg(0, 0, reg), reg, 60, 10))
    left, right = ink_columns(image)
    assert right >= 590 - 5, "ink reaches the right edge of the box"
    assert left > 300, "and leaves the left half empty"


def test_latin_renders_centred_and_wrapped(engine):
    reg = GlyphRegistry()
    res = engine.layout("Up quark and down quark", size=5, width=40, height=20,
                        align="middle", valign="middle")
    assert len(res.lines) == 2
    image = rasterise(document(res.to_svg(0, 0, reg), reg, 40, 20))
    left, right = ink_columns(image)
    assert abs((left + right) / 2 - 200) < 6
    bbox = Image.eval(image, lambda v: 255 - v).getbbox()
    assert abs((bbox[1] + bbox[3]) / 2 - 100) < 15


@pytest.mark.parametrize("name", sorted({spec.file for spec in REGULAR_CHAIN + BOLD_CHAIN}))
def test_has_outline_agrees_with_the_outline_on_every_glyph(name):
    """Which glyphs are drawn is decided from HarfBuzz's extents, without writing outlines
    out: on every glyph of every bundled font, exactly those with a non-empty outline."""
    chain = FontChain({"regular": REGULAR_CHAIN, "bold": BOLD_CHAIN})
    face = next(f for w in chain.weights for lang in (None, "ar", "he", "hi", "zh")
                for f in chain.chain(w, lang) if f.path.name == name)
    count = face._metrics.glyph_count
    gids = list(range(count)) if count < 5000 else [*range(300), *range(300, count, 7)]   # CJK: 20 s for all
    assert [g for g in gids if face.has_outline(g) != bool(face.glyph_path(g))] == []
    assert any(not face.has_outline(g) for g in gids) and any(face.has_outline(g) for g in gids)


@pytest.mark.parametrize("name", sorted({spec.file for spec in REGULAR_CHAIN + BOLD_CHAIN}))
def test_harfbuzz_draws_every_glyph_as_fonttools_does(name):
    """Outlines and coverage come from HarfBuzz, which reads only the glyphs it draws; fontTools
    decoded whole tables first. On every glyph of every bundled font, the two draw the same
    path, point for point, and cover the same characters: the printed glyphs did not change."""
    from fontTools.ttLib import TTFont
    from fontTools.pens.svgPathPen import SVGPathPen

    from cardgen.text.fonts import FONT_DIR, fmt

    face = FontChain({"regular": (FaceSpec(name),)}).faces[0]
    reference = TTFont(str(FONT_DIR / name), lazy=True)
    names, glyphs = reference.getGlyphOrder(), reference.getGlyphSet()
    assert face._metrics.glyph_count == len(names)
    assert face.coverage == frozenset(reference.getBestCmap())
    differ = []
    for gid, glyph_name in enumerate(names):
        pen = SVGPathPen(glyphs, ntos=fmt)
        glyphs[glyph_name].draw(pen)
        if face.glyph_path(gid) != pen.getCommands():
            differ.append(glyph_name)
    assert differ == []


def test_a_glyph_outside_the_font_is_a_clear_error():
    face = FontChain({"regular": REGULAR_CHAIN[:1]}).faces[0]
    with pytest.raises(TextEngineError, match="cannot read outline of glyph 99999: the font has 3317 glyphs"):
        face.glyph_path(99999)
