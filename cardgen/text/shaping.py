"""Itemize a paragraph into runs and shape each run with HarfBuzz.

HarfBuzz shapes one run at a time and needs each run to have a single font, script and
direction. A paragraph is therefore cut wherever the bidi level, the script or the font
changes. Font choice happens per *cluster* (a base character plus the combining marks,
joiners and variation selectors that follow it), so a mark such as the combining
overline of an anti-quark ``ū`` always lands in its base's run and HarfBuzz can position
it with the font's mark attachment (GPOS) data.

Shaping works in em units (font units / units-per-em) and is independent of the font
size, so results are cached per paragraph and reused for every size tried by
auto-shrink and for every card that repeats a label.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache
from unicodedata import bidirectional, category

import uharfbuzz as hb
from fontTools.unicodedata import script as _script_of

from cardgen.text.bidi import resolve_levels
from cardgen.text.chars import SOFT_HYPHEN, is_ignorable
from cardgen.text.fonts import Face, FontChain

# Scripts that do not decide a run's script or font on their own: Common, Inherited, Unknown.
_NEUTRAL_SCRIPTS = frozenset({"Zyyy", "Zinh", "Zzzz"})
_ATTACHING_CATEGORIES = frozenset({"Mn", "Mc", "Me", "Cf"})
SHAPE_CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class ShapedGlyph:
    """One glyph as HarfBuzz placed it; lengths in em."""

    gid: int
    cluster: int  # index (in the paragraph) of the first character of the glyph's cluster
    advance: float
    dx: float
    dy: float


@dataclass(frozen=True, slots=True)
class ShapedRun:
    """Characters ``start:end`` of a paragraph shaped with one face, script and direction."""

    start: int
    end: int
    level: int
    face: Face
    script: str
    glyphs: tuple[ShapedGlyph, ...]  # HarfBuzz order, i.e. visual order inside the run


@dataclass(frozen=True, slots=True)
class ShapedParagraph:
    """A shaped paragraph in logical order, ready for line breaking.

    ``advances[i]`` is the em advance of the cluster starting at character ``i`` (0 for
    characters inside a cluster and for default-ignorable characters HarfBuzz hides); ``boundary[i]`` says that a
    line may be cut before character ``i`` without splitting a cluster.
    """

    text: str
    runs: tuple[ShapedRun, ...]
    advances: tuple[float, ...]
    boundary: tuple[bool, ...]
    missing: frozenset[str]
    #: Each soft hyphen (U+00AD) as ``(index, face, glyph id, advance in em)`` of the hyphen
    #: shown when a line is broken at it (HarfBuzz hides the soft hyphen itself).
    hyphens: tuple[tuple[int, Face, int, float], ...] = ()


@lru_cache(maxsize=8192)
def char_script(char: str) -> str:
    """ISO 15924 script code of a character (``"Latn"``, ``"Arab"``, ``"Zyyy"``...)."""
    return _script_of(char)


@lru_cache(maxsize=8192)
def _attaches(char: str) -> bool:
    """Whether ``char`` belongs to the preceding character's cluster (marks, joiners,
    variation selectors and other invisible format characters)."""
    return category(char) in _ATTACHING_CATEGORIES


def _clusters(text: str) -> list[tuple[int, int]]:
    """Split text into font-selection clusters ``(start, end)``."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or not _attaches(text[i]):
            bounds.append((start, i))
            start = i
    return bounds


def _face_covers(face: Face, chars: str) -> bool:
    coverage = face.coverage
    # Default-ignorable characters (ZWJ, LRM, variation selectors, the soft hyphen...): HarfBuzz
    # hides them in any font, so they never count as missing even when a font's cmap lacks them.
    return all(ord(c) in coverage or is_ignorable(c) for c in chars)


def _split_uncovered(text: str, clusters: list[tuple[int, int]],
                     chain: tuple[Face, ...]) -> list[tuple[int, int]]:
    """Split clusters that no single face covers: the marks its base's face lacks start a
    cluster of their own (HarfBuzz draws them on a dotted circle), so a mark that some
    face has is shown rather than dropped, e.g. a Devanagari vowel sign after a Latin letter.
    """
    out = []
    for start, end in clusters:
        while end - start > 1 and not any(_face_covers(f, text[start:end]) for f in chain):
            base_face = next((f for f in chain if ord(text[start]) in f.coverage), None)
            if base_face is None:
                break
            cut = next(i for i in range(start + 1, end) if not _face_covers(base_face, text[i]))
            out.append((start, cut))
            start = cut
        out.append((start, end))
    return out


def _pick_face(chain: tuple[Face, ...], chars: str) -> Face | None:
    """First face covering the whole cluster, else the first covering its base character."""
    for face in chain:
        if _face_covers(face, chars):
            return face
    base = ord(chars[0])
    for face in chain:
        if base in face.coverage:
            return face
    return None


def _invisible(chars: str) -> bool:
    """Clusters made only of default-ignorable characters (LRM, ZWJ...) render as nothing in any face."""
    return all(is_ignorable(c) for c in chars)


Run = tuple[int, int, int, Face, str]


def itemize(
    text: str, chain: FontChain, weight: str, lang: str | None, base_level: int
) -> tuple[list[Run], set[str]]:
    """Cut a paragraph into ``(start, end, level, face, script)`` runs; report uncovered
    characters, which are left out of every run (dropped, never drawn as boxes).

    A left-to-right paragraph of Latin letters, digits, spaces and punctuation that the
    first face has whole (a page's footer, most card labels) is one run of that face: the
    general path below, a few Python steps for every character, finds just that, and it was
    half the time of laying such a line out. tests/test_text_shaping.py compares the two."""
    plain_chain = chain.chain(weight)
    if base_level == 0 and text and chain.chain(weight, lang)[0] is plain_chain[0]:
        simple, letters = _simple_latin()
        chars = set(text)
        if chars <= simple and not chars.isdisjoint(letters) and _face_covers(plain_chain[0], chars):
            return [(0, len(text), 0, plain_chain[0], "Latn")], set()
    return _itemize_each(text, chain, weight, lang, base_level)


#: The bidi classes that resolve to the paragraph's level in a left-to-right paragraph with
#: no right-to-left character (numbers after the start of the paragraph count as Latin).
_LEFT_TO_RIGHT = frozenset({"L", "EN", "ES", "ET", "CS", "WS", "ON"})


@cache
def _simple_latin() -> tuple[frozenset[str], frozenset[str]]:
    """The characters of ASCII and Latin-1 that never start a cluster of their own, never
    leave the paragraph's level and are Latin or common to all scripts; and the Latin ones
    among them (letters). Worked out with the functions the general path asks."""
    candidates = [chr(c) for c in (*range(0x20, 0x7F), *range(0xA0, 0x100))]
    simple = frozenset(c for c in candidates if char_script(c) in ("Latn", "Zyyy") and not _attaches(c)
                       and bidirectional(c) in _LEFT_TO_RIGHT)
    return simple, frozenset(c for c in simple if char_script(c) == "Latn")


def _itemize_each(
    text: str, chain: FontChain, weight: str, lang: str | None, base_level: int
) -> tuple[list[Run], set[str]]:
    """:func:`itemize`, cluster by cluster: levels, scripts and faces."""
    levels = resolve_levels(text, base_level)
    plain_chain = chain.chain(weight)
    clusters = _split_uncovered(text, _clusters(text), plain_chain)
    lang_chain = chain.chain(weight, lang)
    scripts, faces, neutral = _classify(text, clusters, plain_chain)
    _attach_neutrals(text, clusters, scripts, faces, neutral, plain_chain, lang_chain)
    return _runs(text, clusters, levels, scripts, faces, plain_chain)


def _classify(
    text: str, clusters: list[tuple[int, int]], plain_chain: tuple[Face, ...]
) -> tuple[list[str | None], list[Face | None], list[bool]]:
    """Each cluster's script and face, both None for a neutral cluster (decided later
    by its neighbours), and whether it is neutral."""
    scripts: list[str | None] = []
    faces: list[Face | None] = []
    neutral: list[bool] = []
    for start, end in clusters:
        script = char_script(text[start])
        is_neutral = script in _NEUTRAL_SCRIPTS
        neutral.append(is_neutral)
        scripts.append(None if is_neutral else script)
        faces.append(None if is_neutral else _pick_face(plain_chain, text[start:end]))
    return scripts, faces, neutral


def _attach_neutrals(
    text: str,
    clusters: list[tuple[int, int]],
    scripts: list[str | None],
    faces: list[Face | None],
    neutral: list[bool],
    plain_chain: tuple[Face, ...],
    lang_chain: tuple[Face, ...],
) -> None:
    """Give each neutral cluster a script and a face, in place.

    Neutral clusters (spaces, digits, punctuation, symbols) join a neighbouring *script*
    run when that face has them, so that runs are not cut at every space; the language's
    own face wins when it covers them (full-width punctuation in Chinese). A face picked
    only as a symbol fallback (Noto Sans Math for "−" or "→") is never a neighbour to
    join: the digits in "−2/3" stay in the primary (bold) face."""
    preferred = lang_chain[0] if lang_chain[0] is not plain_chain[0] else None
    next_face, next_script = _lookahead(faces, scripts, neutral)
    prev_face: Face | None = None
    prev_script: str | None = None
    for k, (start, end) in enumerate(clusters):
        chars = text[start:end]
        if neutral[k]:
            scripts[k] = prev_script or next_script[k] or "Zyyy"
            if _invisible(chars):
                faces[k] = prev_face or next_face[k] or plain_chain[0]
            else:
                candidates = [preferred, prev_face, next_face[k]]
                faces[k] = next(
                    (f for f in candidates if f is not None and _face_covers(f, chars)), None
                ) or _pick_face(lang_chain, chars)
        if faces[k] is not None and not neutral[k]:
            prev_face = faces[k]
        prev_script = scripts[k] if not neutral[k] else prev_script or scripts[k]


def _lookahead(
    faces: list[Face | None], scripts: list[str | None], neutral: list[bool]
) -> tuple[list[Face | None], list[str | None]]:
    """For each cluster, the face and script of the first non-neutral cluster from it on
    (None past the last one)."""
    count = len(faces)
    next_face: list[Face | None] = [None] * (count + 1)
    next_script: list[str | None] = [None] * (count + 1)
    for k in range(count - 1, -1, -1):
        next_face[k] = faces[k] if not neutral[k] else next_face[k + 1]
        next_script[k] = scripts[k] if not neutral[k] else next_script[k + 1]
    return next_face, next_script


def _runs(
    text: str,
    clusters: list[tuple[int, int]],
    levels: list[int],
    scripts: list[str | None],
    faces: list[Face | None],
    plain_chain: tuple[Face, ...],
) -> tuple[list[Run], set[str]]:
    """Neighbouring clusters of one level, face and script merged into runs, and the
    characters no face covers."""
    runs: list[Run] = []
    missing: set[str] = set()
    for k, (start, end) in enumerate(clusters):
        face = faces[k]
        if face is None:
            # The base has no glyph anywhere: report the characters that really lack coverage
            # (not the marks riding on that base), and shape the base alone with the face before
            # it (or the first of the chain), where it becomes one .notdef placeholder box; the
            # marks riding on it are left out, as they have nothing to sit on.
            missing.update(c for c in text[start:end]
                           if not any(_face_covers(f, c) for f in plain_chain))
            face = runs[-1][3] if runs and runs[-1][1] == start else plain_chain[0]
            end = start + 1
        else:
            missing.update(c for c in text[start:end] if not _face_covers(face, c))
        key = (levels[start], face, scripts[k])
        if runs and runs[-1][1] == start and runs[-1][2:] == key:
            runs[-1] = (runs[-1][0], end, *key)
        else:
            runs.append((start, end, *key))
    return runs, missing


def _shape_run(
    text: str, start: int, end: int, level: int, face: Face, script: str, lang: str | None
) -> tuple[ShapedGlyph, ...]:
    """Shape ``text[start:end]``, giving HarfBuzz the whole paragraph as context so that
    joining across a run boundary (e.g. a font change inside an Arabic word) still works."""
    buf = hb.Buffer()
    buf.add_str(text, start, end - start)
    buf.direction = "rtl" if level % 2 else "ltr"
    buf.script = script
    if lang:
        buf.language = lang
    hb.shape(face.hb_font, buf, {})
    scale = 1.0 / face.upem
    # Glyph 0 (.notdef) only appears for characters the face lacks (reported as missing).
    # It is kept: every bundled font draws it as a box, and the placement writes the
    # character's code point inside (cardgen.text.svg.place), so a missing character shows
    # on the page as a visible placeholder, never as blank space.
    return tuple(
        ShapedGlyph(info.codepoint, info.cluster, pos.x_advance * scale,
                    pos.x_offset * scale, pos.y_offset * scale)
        for info, pos in zip(buf.glyph_infos, buf.glyph_positions)
    )


@lru_cache(maxsize=SHAPE_CACHE_SIZE)
def shape_paragraph(
    text: str, chain: FontChain, weight: str, lang: str | None, base_level: int
) -> ShapedParagraph:
    """Itemize and shape one paragraph (no line breaks inside); cached because card
    labels repeat across cards and auto-shrink lays the same text out many times."""
    items, missing = itemize(text, chain, weight, lang, base_level)
    advances = [0.0] * len(text)
    boundary = [True] * len(text)
    runs = []
    for start, end, level, face, script in items:
        glyphs = _shape_run(text, start, end, level, face, script, lang)
        starts = {glyph.cluster for glyph in glyphs}
        for i in range(start, end):
            boundary[i] = i == start or i in starts
        for glyph in glyphs:
            advances[glyph.cluster] += glyph.advance
        runs.append(ShapedRun(start, end, level, face, script, glyphs))
    hyphens = tuple(h for h in (_hyphen(i, runs) for i, c in enumerate(text) if c == SOFT_HYPHEN) if h)
    return ShapedParagraph(text, tuple(runs), tuple(advances), tuple(boundary), frozenset(missing), hyphens)


def _hyphen(index: int, runs: list[ShapedRun]) -> tuple[int, Face, int, float] | None:
    """The hyphen a line broken at the soft hyphen ``index`` ends with: the hyphen (U+2010, else
    U+002D) of the face of the run holding it; None when that face has neither."""
    run = next((r for r in runs if r.start <= index < r.end), None)
    if run is None:
        return None
    for char in "\u2010-":
        if run.face.covers(char):
            gid = run.face.hb_font.get_nominal_glyph(ord(char))
            if gid:
                return index, run.face, gid, run.face.hb_font.get_glyph_h_advance(gid) / run.face.upem
    return None
