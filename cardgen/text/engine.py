"""The public entry point: :class:`TextEngine` ties fonts, shaping and layout together."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from functools import lru_cache

from cardgen.text.bidi import paragraph_level
from cardgen.text.fonts import FontChain, TextEngineError, chains_with, missing_text
from cardgen.text.layout import ALIGN_FACTORS, VALIGNS, LayoutRequest, TextResult, lay_out
from cardgen.text.chars import is_ignorable, shown
from cardgen.text.shaping import ShapedParagraph, shape_paragraph

LAYOUT_CACHE_SIZE = 4096
#: Largest text size, box side or line height accepted (mm, or times the size for line
#: height): far beyond any sheet, and small enough for every number to stay drawable.
MAX_LENGTH = 10_000.0
_DIRECTIONS = (None, "ltr", "rtl")
_NEWLINES = str.maketrans({"\r": "\n", "\u2028": "\n", "\u2029": "\n", "\t": " "})


class MissingGlyphs(TextEngineError):
    """Raised by ``layout(..., strict=True)`` when no bundled font covers some characters."""

    def __init__(self, text: str, chars: list[str], faces: tuple = ()) -> None:
        super().__init__(f"no font has glyphs for {missing_text(chars, faces)} in {shown(text)}")
        self.text = text
        self.chars = chars


@dataclass(frozen=True)
class TextStyle:
    """Reusable text settings (a template's "title style"); pass as ``layout(style=...)``.

    Keyword arguments given to ``layout`` explicitly override the style's fields.
    """

    size: float
    weight: str = "regular"
    lang: str | None = None
    align: str = "start"
    valign: str = "top"
    min_size: float | None = None
    line_height: float = 1.2
    direction: str | None = None


def _normalise(text: str) -> str:
    """One newline convention; tabs are plain spaces on a card."""
    return text.replace("\r\n", "\n").translate(_NEWLINES)


class TextEngine:
    """Shapes and lays out card text with the bundled fonts; results are cached.

    One engine should live for the whole process (see :meth:`default`): its caches of
    fonts, shaped paragraphs, layouts and glyph outlines are what make per-card cost low.
    """

    def __init__(self, fonts: FontChain) -> None:
        self.fonts = fonts
        self._layout = lru_cache(maxsize=LAYOUT_CACHE_SIZE)(self._layout_uncached)

    @classmethod
    def default(cls) -> TextEngine:
        """The engine over the bundled font chain, created once per process."""
        return _engine(())

    @classmethod
    def with_fonts(cls, extra: tuple[Path, ...]) -> TextEngine:
        """The engine over the bundled chain followed by ``extra`` font files (a game's own
        fonts, ``--font-dir``), created once per process for each set."""
        return _engine(tuple(extra))

    def layout(
        self,
        text: str,
        *,
        size: float | None = None,
        width: float | None = None,
        height: float | None = None,
        weight: str | None = None,
        lang: str | None = None,
        align: str | None = None,
        valign: str | None = None,
        min_size: float | None = None,
        line_height: float | None = None,
        direction: str | None = None,
        style: TextStyle | None = None,
        strict: bool = False,
        cache: bool = True,
    ) -> TextResult:
        """Lay out ``text`` in a box of ``width`` x ``height`` mm (None = unbounded).

        ``size`` is the em size in mm. ``align`` is start/middle/end (following the
        paragraph direction) or left/right; ``valign`` is top/middle/bottom, or baseline
        to make ``y`` the first baseline. Without a width (height) the box is a point, so
        middle/end alignment centre/end the text on ``x`` (``y``). With ``min_size`` the
        size shrinks in 2 % steps until the text fits. ``strict`` raises
        :class:`MissingGlyphs` instead of silently dropping uncovered characters.

        ``direction`` None takes the first strong character of the whole text, and all
        its lines share that direction so a card's text block aligns as one unit.
        Explicit arguments override the fields of ``style``. ``cache=False`` lays out text met
        once (a sheet's footer, with its sheet number) without keeping it or its shaping: a deck
        of thousands of sheets would otherwise fill both caches (~35 KB a text) with footers.
        """
        given = {"size": size, "weight": weight, "lang": lang, "align": align, "valign": valign,
                 "min_size": min_size, "line_height": line_height, "direction": direction}
        base = asdict(style) if style is not None else {}
        opts = {k: (v if v is not None else base.get(k)) for k, v in given.items()}
        if opts["size"] is None:
            raise TextEngineError("layout() needs a size (or a style with one)")
        defaults = TextStyle(size=opts["size"])
        opts = {k: (v if v is not None else getattr(defaults, k)) for k, v in opts.items()}
        args = (_normalise(text), width, height, opts["size"], opts["weight"], opts["lang"], opts["align"],
                opts["valign"], opts["min_size"], opts["line_height"], opts["direction"])
        result = self._layout(*args) if cache else self._layout_uncached(*args, shape=shape_paragraph.__wrapped__)
        if strict and result.missing:
            raise MissingGlyphs(text, result.missing, tuple(self.fonts.faces))
        return result

    def _layout_uncached(
        self, text: str, width: float | None, height: float | None, size: float, weight: str,
        lang: str | None, align: str, valign: str, min_size: float | None, line_height: float,
        direction: str | None, shape: Callable[..., ShapedParagraph] = shape_paragraph,
    ) -> TextResult:
        self._validate(size, width, height, weight, align, valign, min_size, line_height,
                       direction)
        level = {"ltr": 0, "rtl": 1}.get(direction) if direction else paragraph_level(text)
        level = level or 0
        rtl = level == 1
        factor = ALIGN_FACTORS.get(align)
        if factor is None:  # start / end follow the paragraph direction
            factor = float((align == "end") != rtl)

        paragraphs = []
        missing: set[str] = set()
        offset = 0
        for para in text.split("\n"):
            shaped = shape(para, self.fonts, weight, lang, level)
            missing |= shaped.missing
            paragraphs.append((offset, shaped))
            offset += len(para) + 1
        primary = self.fonts.primary(weight)
        request = LayoutRequest(
            text, tuple(paragraphs), width, height, factor, valign, line_height,
            primary.ascender, primary.descender, tuple(sorted(missing)), "rtl" if rtl else "ltr",
        )
        return lay_out(request, size, min_size)

    def _validate(
        self, size: float, width: float | None, height: float | None, weight: str, align: str,
        valign: str, min_size: float | None, line_height: float, direction: str | None,
    ) -> None:
        """Reject option values early with a message a template author can act on."""
        problems = []
        for name, value in (("size", size), ("min_size", min_size), ("width", width),
                            ("height", height), ("line_height", line_height)):
            if (value is not None or name == "size") and not _positive(value):
                problems.append(f"{name} must be a positive number, got {value!r}")
            elif value is not None and value > MAX_LENGTH:
                problems.append(f"{name} must be at most {MAX_LENGTH:g}, got {value!r}")
        if weight not in self.fonts.weights:
            weights = ", ".join(self.fonts.weights)
            problems.append(f"weight must be one of {weights}, got {weight!r}")
        if align not in ("start", "end", *ALIGN_FACTORS):
            problems.append(f"align must be start, middle, end, left or right, got {align!r}")
        if valign not in VALIGNS:
            problems.append(f"valign must be one of {', '.join(VALIGNS)}, got {valign!r}")
        if direction not in _DIRECTIONS:
            problems.append(f"direction must be ltr, rtl or None, got {direction!r}")
        if problems:
            error = TextEngineError("; ".join(problems))
            error.code = "text"   # the caller's arguments, not a font
            raise error

    def covers(self, text: str, weight: str = "regular") -> set[str]:
        """Characters of ``text`` that no face of the chain has (for coverage reports)."""
        chain = self.fonts.chain(weight)
        return {
            c for c in _normalise(text)
            if c != "\n" and not any(face.covers(c) for face in chain)
            and not is_ignorable(c)
        }

    def missing_text(self, chars: list[str] | tuple[str, ...]) -> str:
        """The characters no face covers as a message names them: each by code point (an
        invisible one never bare), with the fonts that map it but draw nothing for it."""
        return missing_text(chars, tuple(self.fonts.faces))

    def measure(self, text: str, *, size: float, weight: str = "regular",
                lang: str | None = None) -> float:
        """Advance width (mm) of ``text`` as one unwrapped line (widest line if it has
        newlines)."""
        return self.layout(text, size=size, weight=weight, lang=lang).width


def _positive(value: object) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and value > 0)


@lru_cache(maxsize=8)
def _engine(extra: tuple[Path, ...]) -> TextEngine:
    return TextEngine(FontChain(chains_with(extra)))
