"""Two facts about reading print, shared by the templates and the legibility rules.

* Turned 180°, some letters are other letters (u/n, d/p, b/q, 6/9, M/W) or themselves
  (s, o, x, N, S, Z...): a corner index turned for a fanned hand can read as another symbol.
  :func:`turned` says what a string reads as the other way up.
* WCAG 2 contrast: :func:`contrast_ratio` of two colours, and :func:`ink_on` the darker or
  the lighter ink, whichever reads better on a fill, so a template colours a letter on a
  colour badge from the data instead of by hand.
"""

from __future__ import annotations

import functools
import unicodedata

RGB = tuple[float, float, float]

#: Letters that turned 180° are each other, from their shapes.
TURNED_PAIRS = ("un", "dp", "bq", "69", "MW")
#: Letters that turned 180° are themselves.
SELF_TURNED = "NSZHIOXosxzl08"
_TURNED = {**{a: b for a, b in TURNED_PAIRS}, **{b: a for a, b in TURNED_PAIRS}, **{c: c for c in SELF_TURNED}}

DARK_INK = "#111111"
LIGHT_INK = "#ffffff"


def letters(s: str) -> str:
    """The letters and digits of ``s`` in base form: combining marks (an antiparticle's bar),
    sub- and superscripts left out."""
    out = []
    for ch in unicodedata.normalize("NFD", str(s)):
        if unicodedata.combining(ch) or not ch.isalnum():
            continue
        if unicodedata.decomposition(ch).startswith(("<super>", "<sub>")):
            continue
        out.append(ch)
    return "".join(out)


def turned(s: str) -> str:
    """What the letters of ``s`` read as turned 180° (right to left, each letter turned), or
    '' when one of them reads as no letter (a turned 'e')."""
    out = []
    for ch in reversed(letters(s)):
        if ch not in _TURNED:
            return ""
        out.append(_TURNED[ch])
    return "".join(out)


def reads_otherwise(s: str) -> str:
    """What ``s`` reads as turned 180° when that is something else ('' when it reads as
    itself or as nothing): 'u' → 'n', 'q' → 'b', 's' → ''."""
    other = turned(s)
    return other if other and other != letters(s) else ""


@functools.lru_cache(maxsize=4096)   # the legibility rules ask for the same few colours thousands of times
def luminance(c: RGB) -> float:
    """WCAG 2 relative luminance of an sRGB colour with 0..1 channels."""
    def lin(v: float) -> float:
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio of two colours, 1 (none) to 21 (black on white)."""
    la, lb = luminance(a), luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def hex_rgb(value: str) -> RGB:
    """``#rrggbb`` or ``#rgb`` as 0..1 channels."""
    v = value.strip().lstrip("#")
    if len(v) == 3:
        v = "".join(ch * 2 for ch in v)
    if len(v) != 6:
        raise ValueError(f"not a #rrggbb colour: {value!r}")
    return (int(v[0:2], 16) / 255, int(v[2:4], 16) / 255, int(v[4:6], 16) / 255)


def ink_on(fill: str) -> str:
    """The text ink (dark or white) with the higher contrast on ``fill`` (a #rrggbb colour)."""
    bg = hex_rgb(fill)
    dark, light = contrast_ratio(hex_rgb(DARK_INK), bg), contrast_ratio(hex_rgb(LIGHT_INK), bg)
    return DARK_INK if dark >= light else LIGHT_INK


#: Unicode's mathematical italic and bold italic small alpha: the Greek small letters follow
#: in the order of U+03B1..U+03C9 (final sigma included).
_MATH_ITALIC_ALPHA = 0x1D6FC
_MATH_BOLD_ITALIC_ALPHA = 0x1D736


def unmistakable_greek(s: str, weight: str = "regular") -> str:
    """``s`` with each Greek small letter as its mathematical italic (bold italic for bold
    text): in an upright sans face γ is a Latin y, ν a v, μ a u with a tail and τ a small T,
    while the italic forms of the bundled math face cannot be taken for Latin letters.
    Physics writes particle symbols in italic Greek anyway; Latin letters are unchanged."""
    start = _MATH_BOLD_ITALIC_ALPHA if weight == "bold" else _MATH_ITALIC_ALPHA
    return "".join(chr(start + ord(ch) - 0x3B1) if "\u03b1" <= ch <= "\u03c9" else ch for ch in str(s))
