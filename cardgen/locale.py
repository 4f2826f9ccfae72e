"""What a language asks of the printed page, in one value: :class:`Locale`.

Rendering needs the writing direction and whether first letters are capitalised, the text
engine which fonts to prefer for punctuation and digits, and number formatting the decimal
separator. Each depends on the language alone (the primary subtag of its code: ``pt-BR`` and
``pt_PT`` are Portuguese), and is decided here, so that adding a language is one edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

#: Languages written right to left.
RTL = frozenset({"ar", "he", "fa", "ur"})
#: Languages whose sentences do not start with a capital letter (no case, or none in their
#: script): ``capfirst`` leaves their text as it is.
NO_CAPITALS = frozenset({"zh", "ja", "ko", "ar", "he", "fa"})
#: Languages whose decimal separator is a comma (CLDR). Others use a point.
DECIMAL_COMMA = frozenset({"de", "fr", "es", "it", "pt", "nl", "ru", "pl", "cs", "sv", "da", "fi", "nb", "tr",
                           "uk"})


@dataclass(frozen=True)
class Locale:
    """A language code and what it means for printing."""

    code: str
    language: str            # the primary subtag, lower case: "zh" for "zh-Hans-CN"
    direction: str           # "ltr" or "rtl"
    capitalises: bool        # sentence case starts with a capital letter
    decimal_separator: str   # "." or ","

    @property
    def font_preference(self) -> str:
        """The language whose fonts come first for script-neutral characters (see
        :meth:`cardgen.text.fonts.FontChain.chain`): CJK punctuation for Chinese text."""
        return self.language

    @staticmethod
    @lru_cache(maxsize=None)
    def of(code: str) -> "Locale":
        language = primary_subtag(code)
        return Locale(code, language, "rtl" if language in RTL else "ltr", language not in NO_CAPITALS,
                      "," if language in DECIMAL_COMMA else ".")


def primary_subtag(code: str) -> str:
    """``"zh-Hans-CN"`` → ``"zh"``, ``"pt_BR"`` → ``"pt"``."""
    return code.replace("_", "-").split("-")[0].lower()
