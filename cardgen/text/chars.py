"""What a character needs from a font, and how messages name it.

* *Default-ignorable* code points (Unicode's ``Default_Ignorable_Code_Point``: joiners, variation
  selectors, bidi controls, the soft hyphen, zero-width space...) are never drawn: HarfBuzz hides
  them in any font, so no font has to cover them.
* Every other character that is not white space or a control must be drawn with ink: a font
  whose glyph for it has no outline covers it no better than a font without it.
* A message names a character by its code point, and shows the character itself only when it
  is visible (an invisible one would read as nothing, or as a stray space).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

#: Default_Ignorable_Code_Point, Unicode 15 (DerivedCoreProperties.txt), as ranges.
_DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
SOFT_HYPHEN = "\u00ad"


@lru_cache(maxsize=4096)
def is_ignorable(char: str) -> bool:
    """Whether ``char`` is default-ignorable: shown as nothing, needing no glyph."""
    cp = ord(char)
    return any(lo <= cp <= hi for lo, hi in _DEFAULT_IGNORABLE)


@lru_cache(maxsize=4096)
def needs_ink(char: str) -> bool:
    """Whether ``char`` is drawn with ink: not white space, a control or default-ignorable."""
    return not (is_ignorable(char) or char.isspace() or unicodedata.category(char) in ("Zs", "Zl", "Zp", "Cc"))


def visible(char: str) -> bool:
    """Whether a reader sees ``char`` itself when a message shows it."""
    return needs_ink(char) and unicodedata.category(char)[0] not in "CZ" and unicodedata.category(char) != "Mn"


def describe(char: str) -> str:
    """``U+00E9 'é'`` for a visible character, ``U+FE0F (VARIATION SELECTOR-16)`` for one that is
    not: a message never prints an invisible character bare."""
    code = f"U+{ord(char):04X}"
    if visible(char):
        return f"{code} {char!r}"
    name = unicodedata.name(char, "")
    return f"{code} ({name})" if name else code


def shown(text: str) -> str:
    """``text`` quoted as a message shows it, with its characters that draw nothing (other than
    plain spaces: default-ignorables, controls, other white space) written as ``<U+200B>``."""
    return repr("".join(c if c == " " or needs_ink(c) else f"<U+{ord(c):04X}>" for c in text))
