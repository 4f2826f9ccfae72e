"""SVG emission: glyph outlines, defined once per document and placed with ``<use>``, or
written inline; or *deferred* — held as numbers until someone needs the SVG text.

cairosvg cannot shape text, so cardgen never emits ``<text>``; it draws glyph outlines.
Outline path strings are computed once per glyph and cached, so the choice below is only
about the SVG document:

* ``GlyphRegistry()`` collects each glyph's path once for the document's ``<defs>`` and
  places every occurrence with a short ``<use>`` — the smallest SVG, best for files people
  open and edit;
* ``GlyphRegistry(inline=True)`` writes each occurrence as its own ``<path>``. cairosvg
  re-parses a referenced element for every ``<use>``, so inline paths rasterise about a
  third faster (measured: 35.8 → 23.5 ms for a Particle Builder card); the PDF drawn is
  the same;
* ``GlyphRegistry(inline=..., defer=True)`` writes a short placeholder element
  (:data:`PLACEHOLDER`) and keeps the glyph placements as :class:`PlacedText`. Parsing
  outline strings was 87 % of cairosvg's time on the shipped decks, so the print path
  (:mod:`cardgen.draw`) draws deferred text straight from the font's outlines, while
  :meth:`GlyphRegistry.expand` turns the placeholders into the markup above for anyone who
  wants the SVG document itself (previews, exports, the browser).

Paths stay in font units (y up) so that one definition serves all sizes; each placement
scales by ``size / units-per-em`` and flips the y axis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from cardgen.text.fonts import Face, TextEngineError, fmt

if TYPE_CHECKING:
    from cardgen.text.layout import TextResult

#: Namespace of the placeholder element; SVG renderers ignore elements they do not know.
PLACEHOLDER_NS = "urn:cardgen:glyphs"
#: Stands for the ``n``-th deferred text of its document.
PLACEHOLDER = '<cg:glyphs xmlns:cg="' + PLACEHOLDER_NS + '" n="{n}"/>'
_PLACEHOLDER_RE = re.compile(re.escape(PLACEHOLDER).replace(r"\{n\}", r"(\d+)"))


def fmt_scale(value: float) -> str:
    """Scale factors are tiny (size/upem, e.g. 0.0035), so they keep 6 significant digits
    instead of 3 decimals; still deterministic and short."""
    return f"{value:.6g}"


@dataclass(frozen=True, slots=True)
class GlyphPlacement:
    """One glyph on the page: its origin in mm (rounded exactly as the SVG writes it, so
    every consumer draws the same geometry) and the font-units-to-mm scale."""

    face: Face
    gid: int
    x: float
    y: float
    scale: float


@dataclass(frozen=True, slots=True)
class PlacedText:
    """The glyphs of one ``text()`` call with their fill: what a placeholder stands for."""

    fill: str
    glyphs: tuple[GlyphPlacement, ...]

    def digest_parts(self) -> str:
        """Exact, canonical text of this placement, for content hashes (no outline strings:
        glyph ids identify outlines, and the fonts are part of every cache key)."""
        return self.fill + "|" + ";".join(f"{g.face.index},{g.gid},{g.x!r},{g.y!r},{g.scale!r}" for g in self.glyphs)


def place(result: TextResult, x: float, y: float, fill: str) -> PlacedText:
    """Where every glyph of ``result`` goes when its box origin is at ``(x, y)`` mm; glyphs
    without an outline (spaces) are left out. A character no font covers is drawn as the
    font's ``.notdef`` box with its code point written inside (see :func:`code_point_digits`)."""
    glyphs = []
    for line in result.lines:
        left = x + line.x
        baseline = y + line.baseline
        for run in line.runs:
            scale = float(fmt_scale(result.size / run.face.upem))
            face = run.face
            for glyph in run.glyphs:
                if face.has_outline(glyph.gid):
                    gx, gy = round(left + glyph.x, 3), round(baseline - glyph.y, 3)
                    glyphs.append(GlyphPlacement(face, glyph.gid, gx, gy, scale))
                    if glyph.gid == NOTDEF:
                        glyphs.extend(code_point_digits(face, ord(result.text[glyph.cluster]), gx, gy, scale))
    return PlacedText(fill, tuple(glyphs))


NOTDEF = 0


def code_point_digits(face: Face, code_point: int, x: float, y: float, scale: float) -> list[GlyphPlacement]:
    """The hexadecimal code point of a missing character, in two rows inside the ``.notdef``
    box drawn at ``(x, y)`` (as Unicode's "last resort" boxes show it), so a reader can tell
    which character is missing. Digits come from the same face; a face without them leaves
    the box empty."""
    digits = f"{code_point:04X}"
    font = face.hb_font
    gid = {c: font.get_nominal_glyph(ord(c)) for c in set(digits)}
    box = font.get_glyph_extents(NOTDEF)
    if box is None or not all(gid.values()):
        return []
    advance = {c: font.get_glyph_h_advance(g) for c, g in gid.items()}
    rows = [digits[:len(digits) // 2], digits[len(digits) // 2:]]
    row_height = face.upem * 0.75                                   # cap height of a Latin face, roughly
    widest = max(sum(advance[c] for c in row) for row in rows)
    # Inside the stroke of the box: two thirds of its width, three quarters of its height.
    k = min(box.width * 0.66 / widest, -box.height * 0.75 / (2.2 * row_height))  # HarfBuzz heights are negative
    centre_x = box.x_bearing + box.width / 2
    centre_y = box.y_bearing + box.height / 2                       # font units, y up
    placed = []
    for r, row in enumerate(rows):
        pen = centre_x - sum(advance[c] for c in row) * k / 2
        base = centre_y + row_height * k * 0.1 if r == 0 else centre_y - row_height * k * 1.1
        for c in row:
            placed.append(GlyphPlacement(face, gid[c], round(x + pen * scale, 3), round(y - base * scale, 3),
                                         float(fmt_scale(scale * k))))
            pen += advance[c] * k
    return placed


class GlyphRegistry:
    """The glyphs used by one SVG document, each defined exactly once.

    Ids are ``<prefix>g<face-index>-<glyph-id>``: short, and deterministic because face
    indices come from the fixed bundled chain. ``prefix`` keeps ids unique when several
    documents are merged into one. With ``defer``, texts are kept in :attr:`deferred` and
    stand in the document as placeholders until :meth:`expand`.
    """

    def __init__(self, prefix: str = "", inline: bool = False, defer: bool = False) -> None:
        self.prefix = prefix
        self.inline = inline
        self.defer = defer
        self.deferred: list[PlacedText] = []
        self._ids: dict[tuple[int, int], str | None] = {}
        self._faces: dict[int, Face] = {}

    def __len__(self) -> int:
        return sum(1 for ref in self._ids.values() if ref is not None)

    def ref(self, face: Face, gid: int) -> str | None:
        """Id to ``<use>`` for this glyph, or None if it has no outline (e.g. a space)."""
        key = (face.index, gid)
        try:
            ref = self._ids[key]
        except KeyError:
            known = self._faces.setdefault(face.index, face)
            if known is not face:
                raise TextEngineError(
                    "one GlyphRegistry was used with two different font chains; "
                    "use one registry per engine and document"
                ) from None
            ref = f"{self.prefix}g{face.index}-{gid}" if face.has_outline(gid) else None
            self._ids[key] = ref
        return ref

    def defs(self) -> str:
        """``<defs>`` with one ``<path>`` per glyph used so far, ordered by (face, glyph)
        so the output does not depend on the order cards were drawn in ('' when inline)."""
        if not self._ids:
            return ""
        paths = [
            f'<path id="{ref}" d="{self._faces[face].glyph_path(gid)}"/>'
            for (face, gid), ref in sorted(self._ids.items())
            if ref is not None
        ]
        return "<defs>" + "".join(paths) + "</defs>"

    def markup(self, placed: PlacedText) -> str:
        """``<g>`` drawing ``placed`` as inline paths or ``<use>`` of this registry's defs."""
        parts = [f'<g fill="{escape(placed.fill, quote=True)}">']
        for g in placed.glyphs:
            s = fmt_scale(g.scale)
            where = f'transform="translate({fmt(g.x)} {fmt(g.y)}) scale({s} -{s})"/>'
            if self.inline:
                parts.append(f'<path d="{g.face.glyph_path(g.gid)}" {where}')
            else:
                parts.append(f'<use href="#{self.ref(g.face, g.gid)}" {where}')
        parts.append("</g>")
        return "".join(parts)

    def add(self, placed: PlacedText) -> str:
        """The SVG for ``placed``: its markup, or a placeholder when deferring."""
        if not self.defer:
            return self.markup(placed)
        self.deferred.append(placed)
        return PLACEHOLDER.format(n=len(self.deferred) - 1)

    def expand(self, body: str, deferred: tuple[PlacedText, ...] | list[PlacedText]) -> str:
        """``body`` with every placeholder replaced by the markup of the text it stands for
        (a placeholder whose number is out of range — copied by hand — draws nothing)."""
        def one(match: re.Match[str]) -> str:
            n = int(match[1])
            return self.markup(deferred[n]) if n < len(deferred) else ""

        return _PLACEHOLDER_RE.sub(one, body)


def render(result: TextResult, x: float, y: float, reg: GlyphRegistry, fill: str) -> str:
    """``<g>`` placing every glyph of ``result`` with its box origin at ``(x, y)`` mm (or a
    placeholder for it, when ``reg`` defers)."""
    return reg.add(place(result, x, y, fill))
