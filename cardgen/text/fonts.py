"""Font faces and the fallback chain.

A card's text may mix Latin particle names, Greek symbols, Arabic, Hebrew, Devanagari
and Chinese, and no single font covers all of that. The engine therefore works with an
ordered *chain* of faces per weight and picks, for every character cluster, the first
face that has glyphs for it. All faces ship inside ``cardgen/fonts`` so that output never
depends on what the rendering machine has installed.

Each face is opened twice: fontTools (a lazily read ``TTFont``) validates the file and reads
its vertical metrics; HarfBuzz (``uharfbuzz``) shapes, tells which characters the face covers
and draws glyph outlines. HarfBuzz reads a table where it lies, as a glyph needs it; fontTools
would decode whole tables first (glyph names, the character map, every glyph's record: 0.03 s
for the three faces an English deck uses, in every process that draws text). Both are created
once and cached on the :class:`Face`.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import uharfbuzz as hb
from fontTools.pens.svgPathPen import SVGPathPen
from fontTools.ttLib import TTFont, TTLibError

from cardgen.errors import CardgenError, Location
from cardgen.locale import Locale
from cardgen.text.chars import describe, needs_ink

FONT_DIR = Path(__file__).resolve().parent.parent / "fonts"


class TextEngineError(CardgenError):
    """A font could not be used (missing, unreadable, not a font)."""

    def __init__(self, message: str, path: Path | str | None = None, fix: str | None = None) -> None:
        super().__init__(message, location=Location.of_file(path) if path else None, fix=fix, code="font")


#: What to do about a font file cardgen cannot read.
FONT_FIX = "use a complete TrueType (.ttf) or OpenType (.otf) font file, as its maker ships it"


def fmt(value: float) -> str:
    """Format a number with at most 3 decimals and no trailing zeros.

    Every number in emitted SVG goes through here so that output is compact and
    byte-stable (no ``-0``, no float noise such as ``0.30000000000000004``).
    """
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


@dataclass(frozen=True)
class FaceSpec:
    """Where a face lives and which languages want it first for shared characters."""

    file: str
    langs: tuple[str, ...] = ()


_SFNT_MAGIC = (b"\x00\x01\x00\x00", b"OTTO", b"true")
#: Web fonts (read through fontTools into a plain font in memory) and collections (one font).
_WRAPPED_MAGIC = (b"wOFF", b"wOF2", b"ttcf")
#: The tables a glyph's outline can come from; cardgen draws nothing else (no bitmaps).
_OUTLINE_TABLES = ("glyf", "CFF ", "CFF2")
_BITMAP_TABLES = ("sbix", "CBDT", "EBDT", "bdat")


@dataclass(frozen=True)
class _Metrics:
    upem: int
    ascender: float
    descender: float
    glyph_count: int
    coverage: frozenset[int]


class _AsFontTools:
    """HarfBuzz's pen calls as fontTools' glyph set makes them: HarfBuzz ends a contour that
    stops short of its start with a line back to it, then ``closePath``; fontTools leaves that
    line to ``closePath``. With that line dropped the calls are the same, point for point, on
    every glyph of the bundled fonts (``tests/test_text_svg.py`` draws each both ways). A
    contour whose own last point repeats its first loses that zero-length line too: nothing
    drawn changes."""

    def __init__(self, pen: Any) -> None:
        self._pen = pen
        self._start: tuple[float, float] | None = None
        self._back_to_start = False   # a line to the start is held until we know what follows
        #: What a call raised. HarfBuzz calls the pen from C, which cannot pass an exception
        #: on: it was printed ("Exception ignored in ...") and lost, so a Ctrl-C that landed
        #: while a glyph was drawn let the command run on. Kept here, raised once HarfBuzz is
        #: done (see :meth:`FontFace.draw_glyph`); no call is made after it.
        self.raised: BaseException | None = None

    def _call(self, fn: Any, *args: Any) -> None:
        if self.raised is not None:
            return
        try:
            fn(*args)
        except BaseException as exc:  # noqa: BLE001 - re-raised by draw_glyph, outside the C callback
            self.raised = exc

    def _flush(self) -> None:
        if self._back_to_start:
            self._back_to_start = False
            self._pen.lineTo(self._start)

    def _move(self, pt: tuple[float, float]) -> None:
        self._flush()
        self._start = pt
        self._pen.moveTo(pt)

    def _line(self, pt: tuple[float, float]) -> None:
        self._flush()
        if pt == self._start:
            self._back_to_start = True
        else:
            self._pen.lineTo(pt)

    def _qcurve(self, *points: tuple[float, float]) -> None:
        self._flush()
        self._pen.qCurveTo(*points)

    def _curve(self, *points: tuple[float, float]) -> None:
        self._flush()
        self._pen.curveTo(*points)

    def _close(self) -> None:
        self._back_to_start = False
        self._pen.closePath()

    def moveTo(self, pt: tuple[float, float]) -> None:
        self._call(self._move, pt)

    def lineTo(self, pt: tuple[float, float]) -> None:
        self._call(self._line, pt)

    def qCurveTo(self, *points: tuple[float, float]) -> None:
        self._call(self._qcurve, *points)

    def curveTo(self, *points: tuple[float, float]) -> None:
        self._call(self._curve, *points)

    def closePath(self) -> None:
        self._call(self._close)


class Face:
    """One font file, ready for shaping and outline extraction (HarfBuzz), validated and its
    vertical metrics read by fontTools.

    The file is read on first use, not when the chain is built: an English deck never
    touches the Arabic, Devanagari or Chinese faces, and reading those cost ~0.2 s in every
    process that renders.
    """

    def __init__(self, index: int, path: Path, langs: tuple[str, ...] = ()) -> None:
        self.index = index
        self.path = path
        self.langs = langs
        self._paths: dict[int, str] = {}
        self._drawn: dict[int, bool] = {}
        self.blank: dict[int, str] = {}   # mapped characters whose glyph draws nothing, and why
        try:  # a cheap check now; the tables are read (and validated) on first use
            with open(path, "rb") as f:
                magic = f.read(4)
        except OSError as exc:
            raise TextEngineError(f"cannot read font file: {exc.strerror}", path, FONT_FIX) from None
        if magic not in _SFNT_MAGIC + _WRAPPED_MAGIC:
            raise TextEngineError("not a TrueType, OpenType or WOFF font file", path, FONT_FIX)
        self._wrapped = magic in _WRAPPED_MAGIC

    @cached_property
    def _data(self) -> bytes:
        """The font as a plain TrueType/OpenType font: the file's bytes, or for a WOFF file or a
        collection of one font, that font unpacked by fontTools."""
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            raise TextEngineError(f"cannot read font file: {exc.strerror}", self.path, FONT_FIX) from None
        if not self._wrapped:
            return data
        number = 0
        if data[:4] == b"ttcf":
            count = struct.unpack(">I", data[8:12])[0] if len(data) >= 12 else 0
            if count != 1:
                raise TextEngineError(
                    f"a font collection of {count} fonts: cardgen reads one font per file", self.path,
                    "extract the font you want into a .ttf/.otf file of its own, e.g. "
                    f"'fonttools ttLib -y 0 {self.path.name} -o {self.path.stem}-0.ttf' (0 is the first font)")
        else:
            number = -1
        try:
            font = TTFont(io.BytesIO(data), fontNumber=number)
            font.flavor = None
            out = io.BytesIO()
            font.save(out)
        except ImportError:
            raise TextEngineError("reading a WOFF2 font needs the 'brotli' package", self.path,
                                  "convert the font to .ttf or .otf, or install the 'brotli' package") from None
        except (TTLibError, AssertionError, ValueError, KeyError, struct.error, EOFError) as exc:
            raise TextEngineError(f"cannot read font file: {exc}", self.path, FONT_FIX) from None
        return out.getvalue()

    @cached_property
    def _ttfont(self) -> TTFont:
        # From the file's bytes, not the file: a lazily read TTFont keeps its file open and
        # seeks in it on demand, and build workers forked after a face was opened would share
        # that descriptor's position with each other (a glyph read in one process moved the
        # others' reads: "not enough 'glyf' table data").
        try:
            data = self._data
            font = TTFont(io.BytesIO(data), lazy=True)
        except (OSError, TTLibError, AssertionError, ValueError) as exc:
            raise TextEngineError(f"cannot read font file: {exc}", self.path, FONT_FIX) from None
        # the tables are read on demand: one cut short would fail on some glyph, or not at all
        for tag, entry in font.reader.tables.items():
            if entry.offset + entry.length > len(data):
                raise TextEngineError(f"the font file is cut short: its '{tag}' table runs past its end "
                                      f"({len(data)} bytes)", self.path, FONT_FIX)
        return font

    @cached_property
    def _metrics(self) -> _Metrics:
        try:
            # fontTools validates the file properly; HarfBuzz would silently accept garbage
            # and shape everything to .notdef.
            font = self._ttfont
            upem = font["head"].unitsPerEm
            hhea = font["hhea"]
            hb_face = self._hb_face
            return _Metrics(upem, hhea.ascent / upem, -hhea.descent / upem, hb_face.glyph_count,
                            self._inked(font, frozenset(hb_face.unicodes)))
        except (OSError, TTLibError, KeyError, AssertionError, ValueError, ZeroDivisionError) as exc:
            raise TextEngineError(f"cannot read font file: {exc}", self.path, FONT_FIX) from None

    def _inked(self, font: TTFont, mapped: frozenset[int]) -> frozenset[int]:
        """The characters the face really draws: of those its character map has, a character
        drawn with ink counts only when its glyph has an outline (a font whose glyphs are empty,
        or only bitmaps, would print blank space). White space and default-ignorable characters
        need no outline. The bundled fonts draw every character they map (``tests/test_fonts.py``
        checks each one), so only fonts a game brings are read here."""
        self.blank = {}
        if self.path.parent == FONT_DIR:
            return mapped
        outlines = any(tag in font for tag in _OUTLINE_TABLES)
        bitmaps = any(tag in font for tag in _BITMAP_TABLES)
        hb_font = hb.Font(self._hb_face)
        drawn: dict[int, bool] = {}
        blank: dict[int, str] = {}
        for cp in mapped:
            char = chr(cp)
            if not needs_ink(char):
                continue
            gid = hb_font.get_nominal_glyph(cp)
            if gid is None:
                continue
            ok = drawn.get(gid)
            if ok is None:
                ok = drawn[gid] = outlines and _draws(hb_font, gid, bitmaps)
            if not ok:
                blank[cp] = ("the font has no outlines (glyf or CFF table), only bitmaps or nothing"
                             if not outlines else "its glyph has no outline")
        self.blank = blank
        return mapped - frozenset(blank)

    @property
    def upem(self) -> int:
        return self._metrics.upem

    @property
    def ascender(self) -> float:
        return self._metrics.ascender

    @property
    def descender(self) -> float:
        return self._metrics.descender

    @property
    def coverage(self) -> frozenset[int]:
        return self._metrics.coverage

    @cached_property
    def _hb_face(self) -> hb.Face:
        if self._wrapped:
            return hb.Face(hb.Blob(self._data))
        return hb.Face(hb.Blob.from_file_path(str(self.path)))

    @cached_property
    def hb_font(self) -> hb.Font:
        self._metrics  # noqa: B018 - validate with fontTools before HarfBuzz shapes with the file
        return hb.Font(self._hb_face)

    def __repr__(self) -> str:
        return f"Face({self.index}, {self.path.name})"

    def covers(self, char: str) -> bool:
        return ord(char) in self.coverage

    def blank_reason(self, char: str) -> str | None:
        """Why the face does not cover ``char`` although its character map has it (its glyph
        draws nothing), or None."""
        self._metrics  # noqa: B018 - coverage is worked out with the metrics
        return self.blank.get(ord(char))

    def draw_glyph(self, gid: int, pen: Any) -> None:
        """Draw glyph ``gid``'s outline, in font units (y up), into a fontTools pen, with the
        calls fontTools' own glyph set makes for it (composite glyphs come resolved)."""
        if not 0 <= gid < self._metrics.glyph_count:
            raise TextEngineError(f"cannot read outline of glyph {gid}: the font has "
                                  f"{self._metrics.glyph_count} glyphs", self.path)
        drawing = _AsFontTools(pen)
        self.hb_font.draw_glyph_with_pen(gid, drawing)
        if drawing.raised is not None:
            raise drawing.raised

    def has_outline(self, gid: int) -> bool:
        """Whether glyph ``gid`` draws anything (a space does not), from HarfBuzz's extents:
        no outline has to be read or written out for it (a test checks that it agrees with
        :meth:`glyph_path` on every glyph of the bundled fonts)."""
        drawn = self._drawn.get(gid)
        if drawn is None:
            drawn = self._drawn[gid] = _draws(self.hb_font, gid, bitmaps=False)
        return drawn

    def glyph_path(self, gid: int) -> str:
        """SVG path data of glyph ``gid`` in font units (y up), cached per face.

        Coordinates stay in font units so that one definition serves every size; each
        placement's transform scales and flips it.
        """
        path = self._paths.get(gid)
        if path is None:
            pen = SVGPathPen(None, ntos=fmt)
            self.draw_glyph(gid, pen)
            path = pen.getCommands()
            self._paths[gid] = path
        return path


def _draws(font: hb.Font, gid: int, bitmaps: bool) -> bool:
    """Whether glyph ``gid`` has an outline. HarfBuzz's extents are read from the outline, or
    from a bitmap when the font has bitmaps: then the outline itself is drawn."""
    if not bitmaps:
        extents = font.get_glyph_extents(gid)
        return extents is not None and (extents.width != 0 or extents.height != 0)
    pen = _AnyInk()
    font.draw_glyph_with_pen(gid, pen)
    return pen.inked


class _AnyInk:
    """A pen that notes whether anything was drawn."""

    inked = False

    def moveTo(self, pt: tuple[float, float]) -> None:
        pass

    def lineTo(self, pt: tuple[float, float]) -> None:
        self.inked = True

    def qCurveTo(self, *points: tuple[float, float]) -> None:
        self.inked = True

    def curveTo(self, *points: tuple[float, float]) -> None:
        self.inked = True

    def closePath(self) -> None:
        pass


def missing_text(chars: list[str] | tuple[str, ...], faces: tuple["Face", ...] = ()) -> str:
    """The characters no face covers, each by its code point (see :func:`describe`), with the
    fonts among ``faces`` that map it but draw nothing for it."""
    parts = []
    for char in chars:
        blank = [f"{face.path.name} maps it but {reason}" for face in faces
                 if (reason := face.blank_reason(char)) is not None]
        parts.append(describe(char) + (f" ({'; '.join(blank)})" if blank else ""))
    return ", ".join(parts)


#: Noto Sans lacks arrows and relations (→ ≤ ∞ −); Noto Sans Math matches its design, so
#: it comes straight after it, before the CJK face (which has some of them too). It has no
#: bold, so both weights use the regular cut.
MATH = FaceSpec("NotoSansMath-Regular.ttf")

#: The bundled chain, in fallback order. The first face of a chain is its *primary* face:
#: its ascender/descender define line boxes for every language, so that translated cards
#: keep the same baseline grid.
REGULAR_CHAIN: tuple[FaceSpec, ...] = (
    FaceSpec("NotoSans-Regular.ttf"),
    MATH,
    FaceSpec("NotoSansArabic-Regular.ttf", ("ar", "fa", "ur", "ps")),
    FaceSpec("NotoSansHebrew-Regular.ttf", ("he", "iw", "yi")),
    FaceSpec("NotoSansDevanagari-Regular.ttf", ("hi", "mr", "ne", "sa")),
    FaceSpec("NotoSansSC-Regular-GB2312.otf", ("zh",)),
)
BOLD_CHAIN: tuple[FaceSpec, ...] = (
    FaceSpec("NotoSans-Bold.ttf"),
    MATH,
    FaceSpec("NotoSansArabic-Bold.ttf", ("ar", "fa", "ur", "ps")),
    FaceSpec("NotoSansHebrew-Bold.ttf", ("he", "iw", "yi")),
    FaceSpec("NotoSansDevanagari-Bold.ttf", ("hi", "mr", "ne", "sa")),
    FaceSpec("NotoSansSC-Bold-GB2312.otf", ("zh",)),
)


BOLD_WEIGHT_CLASS = 600


def is_bold(path: Path) -> bool:
    """Whether a font file is a bold cut (OS/2 weight class 600 or more)."""
    try:
        font = TTFont(str(path), lazy=True, fontNumber=0)
        weight = font["OS/2"].usWeightClass if "OS/2" in font else 400
        font.close()
    except ImportError:
        return False   # a WOFF2 file without brotli: opening it says so
    except (OSError, TTLibError, AssertionError, ValueError, KeyError) as exc:
        raise TextEngineError(f"cannot read font file: {exc}", path, FONT_FIX) from None
    return weight >= BOLD_WEIGHT_CLASS


def chains_with(extra: tuple[Path, ...]) -> dict[str, tuple[FaceSpec, ...]]:
    """The bundled chains with ``extra`` fonts after them, in the order given: a regular
    font serves both weights unless a bold file comes with it, a bold font only the bold
    chain. Bundled faces stay first, so shipped text looks the same with or without extras;
    extras draw what the bundled fonts lack (another script, a symbol)."""
    bold = [p for p in extra if is_bold(p)]
    regular = [p for p in extra if p not in bold]
    return {"regular": REGULAR_CHAIN + tuple(FaceSpec(str(p)) for p in regular or bold),
            "bold": BOLD_CHAIN + tuple(FaceSpec(str(p)) for p in (bold or regular))}


class FontChain:
    """Ordered fallback faces per weight, with per-language preference.

    Faces are numbered once across all weights (a file used by both weights is loaded
    once); that number is the ``<face-index>`` in glyph ids, so it must be stable.
    """

    def __init__(self, chains: dict[str, tuple[FaceSpec, ...]], font_dir: Path = FONT_DIR) -> None:
        self.faces: list[Face] = []
        by_file: dict[str, Face] = {}
        # Bundled faces are numbered before fonts given by path (a game's, --font-dir), so
        # adding fonts never renumbers the bundled ones.
        specs = [spec for chain in chains.values() for spec in chain]
        for spec in sorted(specs, key=lambda spec: Path(spec.file).is_absolute()):
            if spec.file not in by_file:
                path = font_dir / spec.file
                if not path.is_file():
                    raise TextEngineError("font file not found", path)
                face = Face(len(self.faces), path, spec.langs)
                self.faces.append(face)
                by_file[spec.file] = face
        self._chains: dict[str, tuple[Face, ...]] = {
            weight: tuple(by_file[spec.file] for spec in chain) for weight, chain in chains.items()}
        self._ordered: dict[tuple[str, str | None], tuple[Face, ...]] = {}

    @property
    def weights(self) -> tuple[str, ...]:
        return tuple(self._chains)

    def chain(self, weight: str, lang: str | None = None) -> tuple[Face, ...]:
        """Faces for ``weight`` with the faces preferred by ``lang`` moved to the front.

        The reordered chain is only consulted for script-neutral characters (punctuation,
        digits, symbols): that is how ``zh`` text gets full-width CJK punctuation while a
        Latin word inside it still uses the Latin face.
        """
        key = (weight, primary_subtag(lang))
        ordered = self._ordered.get(key)
        if ordered is None:
            try:
                base = self._chains[weight]
            except KeyError:
                raise TextEngineError(
                    f"unknown font weight {weight!r}; expected one of {', '.join(self._chains)}"
                ) from None
            preferred = tuple(f for f in base if key[1] and key[1] in f.langs)
            ordered = preferred + tuple(f for f in base if f not in preferred)
            self._ordered[key] = ordered
        return ordered

    def primary(self, weight: str) -> Face:
        return self.chain(weight)[0]


def primary_subtag(lang: str | None) -> str | None:
    """``"zh-Hans-CN"`` → ``"zh"``: font preference only depends on the language itself."""
    if not lang:
        return None
    return Locale.of(lang).font_preference
