"""cardgen's text engine: HarfBuzz shaping, bidi, font fallback and line layout, emitted
as SVG glyph outlines (cairosvg cannot shape ``<text>`` itself).

Typical use while rendering one SVG document::

    engine = TextEngine.default()
    reg = GlyphRegistry()
    res = engine.layout("Up quark", size=4.2, width=30, align="middle")
    body = res.to_svg(10, 12, reg)
    svg = f'<svg ...>{reg.defs()}{body}</svg>'
"""

from cardgen.text.engine import MissingGlyphs, TextEngine, TextStyle
from cardgen.text.fonts import TextEngineError
from cardgen.text.layout import GlyphRun, Line, PlacedGlyph, TextResult
from cardgen.text.svg import GlyphRegistry

__all__ = [
    "GlyphRegistry",
    "GlyphRun",
    "Line",
    "MissingGlyphs",
    "PlacedGlyph",
    "TextEngine",
    "TextEngineError",
    "TextResult",
    "TextStyle",
]
