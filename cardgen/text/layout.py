"""Line breaking, bidi reordering per line, alignment and auto-shrink.

Input is shaped paragraphs in logical order (see :mod:`cardgen.text.shaping`); output
is a :class:`TextResult` whose glyphs carry final positions in millimetres. Lines are
broken on logical text and only then reordered for display, as UAX #9 requires
(rule L2 applies per line).

Line breaking is a deliberately small subset of UAX #14 that covers card text: breaks
after spaces, after a hyphen inside a word, at a soft hyphen (U+00AD: the line then ends
with a hyphen; otherwise it shows nothing), and between ideographs (except before
closing or after opening CJK punctuation). A word is split between clusters only when it
is wider than the box on its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cardgen.text.bidi import visual_order
from cardgen.text.fonts import Face
from cardgen.text.chars import SOFT_HYPHEN
from cardgen.text.shaping import ShapedGlyph, ShapedParagraph, char_script

if TYPE_CHECKING:
    from cardgen.text.svg import GlyphRegistry

_SPACES = frozenset(" \t\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2008\u2009\u200a"
                    "\u200b\u205f\u3000")
_HYPHENS = frozenset("-\u2010\u2013")
_IDEOGRAPHIC_SCRIPTS = frozenset({"Hani", "Hira", "Kana", "Bopo"})
# Kinsoku: characters that must not start a line / must not end one.
_NO_LINE_START = frozenset("、。，．：；？！）」』】〕〉》〗〙〛’”…‥・ー々〻ゝゞヽヾ"
                           "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ"
                           ")]}!,.:;?%‰℃°・｝］）｡｣､･")
_NO_LINE_END = frozenset("（「『【〔〈《〖〘〚‘“([{｛［｢")

ALIGN_FACTORS = {"left": 0.0, "middle": 0.5, "right": 1.0}
VALIGNS = ("top", "middle", "bottom", "baseline")
SHRINK_STEP = 0.98  # auto-shrink tries sizes in 2 % steps


@dataclass(frozen=True, slots=True)
class PlacedGlyph:
    """A glyph with its final position; lengths in mm."""

    gid: int
    cluster: int  # index into the laid-out text of the first character it renders
    x: float  # from the line's left edge, HarfBuzz x offset included
    y: float  # above the baseline (HarfBuzz y offset)
    advance: float


@dataclass(frozen=True, slots=True)
class GlyphRun:
    """Glyphs of one face and one direction, in display order."""

    face: Face
    level: int
    glyphs: tuple[PlacedGlyph, ...]

    @property
    def rtl(self) -> bool:
        return self.level % 2 == 1


@dataclass(frozen=True, slots=True)
class Line:
    """One laid-out line. ``x``/``baseline`` are offsets from the ``to_svg`` origin (mm)."""

    runs: tuple[GlyphRun, ...]
    width_mm: float
    x: float
    baseline: float
    start: int  # logical character range of the text shown on this line
    end: int

    @property
    def glyphs(self) -> list[PlacedGlyph]:
        return [g for run in self.runs for g in run.glyphs]


@dataclass(frozen=True)
class TextResult:
    """A finished layout. Immutable, so the engine can cache and share it."""

    text: str
    size: float
    lines: tuple[Line, ...]
    width: float
    height: float
    overflow: float
    fits: bool
    missing_chars: tuple[str, ...]
    direction: str

    @property
    def missing(self) -> list[str]:
        """Sorted characters no bundled font covers; they were dropped, not drawn as boxes.
        A fresh list each time, because results are cached and shared."""
        return list(self.missing_chars)

    def to_svg(self, x: float, y: float, reg: GlyphRegistry, fill: str = "#000") -> str:
        """A ``<g>`` of ``<use>`` elements placing this text with its box at ``(x, y)`` (mm);
        glyph outlines are registered in ``reg`` for its ``<defs>``."""
        from cardgen.text.svg import render

        return render(self, x, y, reg, fill)


@dataclass(frozen=True)
class _Broken:
    """Lines of one paragraph in em units, before alignment."""

    ranges: list[tuple[int, int]]
    forced_excess: float  # em by which the widest word that had to be split exceeds the box


def is_space(char: str) -> bool:
    return char in _SPACES


def _ideographic(char: str) -> bool:
    return char_script(char) in _IDEOGRAPHIC_SCRIPTS


def break_opportunities(para: ShapedParagraph) -> list[int]:
    """Indices ``i`` (0 < i < len) before which a line may be broken."""
    text = para.text
    found = []
    for i in range(1, len(text)):
        if not para.boundary[i]:
            continue
        before, after = text[i - 1], text[i]
        if is_space(after):
            continue
        if is_space(before):
            found.append(i)
        elif before == SOFT_HYPHEN:
            if i >= 2 and any(h[0] == i - 1 for h in para.hyphens):
                found.append(i)
        elif before in _HYPHENS:
            if i >= 2 and text[i - 2].isalnum() and after.isalnum():
                found.append(i)
        elif (_ideographic(before) or _ideographic(after)) and after not in _NO_LINE_START \
                and before not in _NO_LINE_END:
            found.append(i)
    return found


def _trim(text: str, start: int, end: int) -> int:
    """End of a line with its trailing spaces removed: they hang outside the box."""
    while end > start and is_space(text[end - 1]):
        end -= 1
    return end


def wrap(para: ShapedParagraph, max_width: float | None) -> _Broken:
    """Greedy line filling in em units; ``max_width`` None means no wrapping."""
    text, adv = para.text, para.advances
    n = len(text)
    if max_width is None or n == 0:
        return _Broken([(0, n)], 0.0)
    cuts = [0, *break_opportunities(para), n]
    hyphen = {h[0] + 1: h[3] for h in para.hyphens}   # a line cut here ends with a hyphen this wide
    ranges: list[tuple[int, int]] = []
    line_start, line_width = 0, 0.0
    forced_excess = 0.0
    for seg_start, seg_end in zip(cuts, cuts[1:]):
        content_end = _trim(text, seg_start, seg_end)
        content = sum(adv[seg_start:content_end]) + (hyphen.get(seg_end, 0.0) if seg_end < n else 0.0)
        if line_start < seg_start and line_width + content > max_width:
            ranges.append((line_start, seg_start))
            line_start, line_width = seg_start, 0.0
        if line_start == seg_start and content > max_width:
            # A single word wider than the box: split it between clusters.
            forced_excess = max(forced_excess, content - max_width)
            for i in range(seg_start, content_end):
                if i > line_start and para.boundary[i] and line_width + adv[i] > max_width:
                    ranges.append((line_start, i))
                    line_start, line_width = i, 0.0
                line_width += adv[i]
            line_width += sum(adv[content_end:seg_end])
        else:
            line_width += sum(adv[seg_start:seg_end])
    ranges.append((line_start, n))
    return _Broken(ranges, forced_excess)


def _visual_line(
    para: ShapedParagraph, start: int, end: int, offset: int, size: float
) -> tuple[tuple[GlyphRun, ...], float]:
    """Glyph runs of ``para[start:end]`` in display order, positioned from x = 0 (mm); a line
    broken at a soft hyphen ends with a hyphen (at the logical end of the run holding it)."""
    shy = next((h for h in para.hyphens if h[0] == end - 1), None) if start < end < len(para.text) else None
    pieces = []
    for run in para.runs:
        if run.end <= start or run.start >= end:
            continue
        glyphs = [g for g in run.glyphs if start <= g.cluster < end]
        if shy is not None and run.start <= shy[0] < run.end and run.face is shy[1]:
            mark = ShapedGlyph(shy[2], shy[0], shy[3], 0.0, 0.0)
            glyphs = [mark, *glyphs] if run.level % 2 else [*glyphs, mark]
        if glyphs:
            pieces.append((run, glyphs))
    order = visual_order([run.level for run, _ in pieces])
    pen = 0.0
    runs = []
    for index in order:
        run, glyphs = pieces[index]
        placed = []
        for g in glyphs:
            placed.append(PlacedGlyph(g.gid, g.cluster + offset, (pen + g.dx) * size,
                                      g.dy * size, g.advance * size))
            pen += g.advance
        runs.append(GlyphRun(run.face, run.level, tuple(placed)))
    return tuple(runs), pen * size


@dataclass(frozen=True)
class LayoutRequest:
    """Everything :func:`lay_out` needs besides the size, resolved and validated."""

    text: str
    paragraphs: tuple[tuple[int, ShapedParagraph], ...]  # (offset in text, shaped)
    width: float | None
    height: float | None
    align_factor: float  # 0 left, 0.5 centre, 1 right
    valign: str
    line_height: float
    ascender: float  # em, primary face
    descender: float  # em, positive
    missing: tuple[str, ...]
    direction: str


def _attempt(req: LayoutRequest, size: float) -> TextResult:
    """Lay out at one size, measuring how far the block overflows its box."""
    max_em = req.width / size if req.width is not None else None
    lines_em: list[tuple[ShapedParagraph, int, int, int]] = []
    forced = 0.0
    for offset, para in req.paragraphs:
        broken = wrap(para, max_em)
        forced = max(forced, broken.forced_excess)
        lines_em.extend((para, offset, start, end) for start, end in broken.ranges)

    pitch = req.line_height * size
    block = (req.ascender + req.descender) * size + (len(lines_em) - 1) * pitch
    box_w = req.width or 0.0
    if req.valign == "baseline":
        first = 0.0
    else:
        box_h = req.height or 0.0
        slack = box_h - block
        first = req.ascender * size + {"top": 0.0, "middle": slack / 2, "bottom": slack}[req.valign]

    lines = []
    widest = 0.0
    for k, (para, offset, start, end) in enumerate(lines_em):
        trimmed = _trim(para.text, start, end)
        runs, line_w = _visual_line(para, start, trimmed, offset, size)
        widest = max(widest, line_w)
        lines.append(Line(runs, line_w, (box_w - line_w) * req.align_factor,
                          first + k * pitch, start + offset, trimmed + offset))

    over_w = 0.0
    if req.width is not None:
        over_w = max(widest - req.width, forced * size, 0.0)
    over_h = max(block - req.height, 0.0) if req.height is not None else 0.0
    overflow = max(over_w, over_h)
    # Sub-micrometre excess is float noise, not overflow.
    fits = overflow < 1e-6
    reported = 0.0 if fits else math.ceil(overflow * 1000) / 1000  # never rounds down to 0
    return TextResult(req.text, size, tuple(lines), widest, block, reported, fits, req.missing,
                      req.direction)


def lay_out(req: LayoutRequest, size: float, min_size: float | None) -> TextResult:
    """Lay out at ``size``; if that overflows and ``min_size`` is given, use the largest size
    on a 2 % grid between them that fits (binary search, so deterministic and cheap)."""
    result = _attempt(req, size)
    if result.fits or min_size is None or min_size >= size:
        return result
    smallest = _attempt(req, min_size)
    if not smallest.fits:
        return smallest
    steps = math.ceil(math.log(min_size / size) / math.log(SHRINK_STEP))

    def size_at(step: int) -> float:
        return max(min_size, round(size * SHRINK_STEP**step, 4)) if step < steps else min_size

    low, high, best = 0, steps, smallest  # step `low` overflows, step `high` fits
    while high - low > 1:
        mid = (low + high) // 2
        attempt = _attempt(req, size_at(mid))
        if attempt.fits:
            high, best = mid, attempt
        else:
            low = mid
    return best
