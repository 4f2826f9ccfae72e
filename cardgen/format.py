"""How physical values are written on cards.

Physics notation is kept in every language (units, symbols, × 10ⁿ); only the decimal separator
follows the locale. The formatting is deliberately here, not in templates, so that all games
print a mass or a lifetime the same way and a test can pin it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from .locale import Locale
from .particles import Lifetime, Measured

_SUPERSCRIPT = str.maketrans("0123456789-+", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺")
MINUS = "\u2212"


def decimal_sep(lang: str) -> str:
    """The language's decimal separator (see :class:`cardgen.locale.Locale`)."""
    return Locale.of(lang).decimal_separator


def significant(value: float, digits: int = 3, lang: str = "en") -> str:
    """``value`` to ``digits`` significant figures, keeping trailing zeros (4.70 stays 4.70)."""
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    decimals = max(digits - 1 - exponent, 0)
    text = f"{round(value, decimals):.{decimals}f}"
    return text.replace("-", MINUS).replace(".", decimal_sep(lang))


def scientific(value: float, digits: int = 3, lang: str = "en") -> str:
    """``2.20 × 10⁻⁶`` style, for values too small or large to read in plain digits."""
    exponent = math.floor(math.log10(abs(value)))
    mantissa = value / 10 ** exponent
    if round(mantissa, digits - 1) >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{significant(mantissa, digits, lang)} × 10{str(exponent).translate(_SUPERSCRIPT)}"


def charge(value: Fraction) -> str:
    """Electric charge in units of e: +2/3, −1/3, +1, 0."""
    if value == 0:
        return "0"
    sign = "+" if value > 0 else MINUS
    mag = abs(value)
    return f"{sign}{mag.numerator}" if mag.denominator == 1 else f"{sign}{mag.numerator}/{mag.denominator}"


def spin(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def written_figures(literal: str) -> int:
    """Significant figures of a number as the data wrote it ('0.8' → 1, '172.6' → 4)."""
    mantissa = literal.lower().split("e")[0].lstrip("+-").replace(".", "").lstrip("0")
    return max(len(mantissa), 1)


def mass(m: Measured, lang: str = "en", digits: int = 3) -> str:
    """Mass with its unit over c²: '2.16 MeV/c²', '173 GeV/c²', '< 0.8 eV/c²', '0'.
    Never more figures than the data has (a limit of 0.8 eV must not print as 0.800)."""
    if m.value == 0 and not m.upper_limit:
        return "0"
    digits = min(digits, written_figures(m.digits))
    number = significant(m.value, digits, lang) if m.value >= 0.01 else scientific(m.value, digits, lang)
    return f"{'< ' if m.upper_limit else ''}{number} {m.unit}/c²"


def lifetime(lt: Lifetime, lang: str = "en", digits: int = 3, stable_word: str = "stable") -> str:
    """Mean lifetime in seconds: 'stable' (infinite) or '2.20 × 10⁻⁶ s'. Never more figures
    than the data has, as for a mass (a lifetime written 2.2e-22 must not print as 2.20)."""
    if lt.stable:
        return stable_word
    if lt.measured is not None:
        digits = min(digits, written_figures(lt.measured.digits))
    seconds = lt.seconds
    return (f"{significant(seconds, digits, lang)} s" if 0.01 <= seconds < 1000
            else f"{scientific(seconds, digits, lang)} s")


def quantity_filters(lang: str, stable: Callable[[], str]) -> dict[str, Callable[[Any], str]]:
    """How templates print a particle's quantities in ``lang`` (their filters ``charge``,
    ``spin``, ``mass``, ``lifetime``; ``stable``: the word for an infinite lifetime, asked when
    one is printed). The checker's ``printed-values`` rule formats with the same functions."""
    return {"charge": charge, "spin": spin, "mass": lambda m: mass(m, lang),
            "lifetime": lambda lt: lifetime(lt, lang, stable_word=stable())}
