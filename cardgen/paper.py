"""Paper sizes in millimetres, and the one place where millimetres become PDF points.

Everything in the imposition code is in millimetres because that is how print
shops, card sizes and printer margins are specified; PDF user space is in points
(1/72 in).  Converting only at the moment of writing keeps rounding in one spot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

MM_PER_INCH = Fraction(254, 10)
PT_PER_MM = Fraction(72) / MM_PER_INCH

# Portrait (width <= height) sizes in mm.  US sizes are exact inch multiples.
STANDARD_SIZES: dict[str, tuple[float, float]] = {
    "a5": (148.0, 210.0),
    "a4": (210.0, 297.0),
    "a3": (297.0, 420.0),
    "letter": (215.9, 279.4),
    "legal": (215.9, 355.6),
    "tabloid": (279.4, 431.8),
}

# Sheets larger than this are almost certainly a unit mistake (cm or pt typed as mm).
MAX_SIDE_MM = 5000.0
# A sheet to print on: the largest a printer or plotter takes is A0 (841 × 1189 mm) or a
# 1200 mm roll, and the smallest must still hold a card and the printer's margins.
MAX_PAPER_MM = 1200.0
MIN_PAPER_MM = 50.0

_CUSTOM_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*mm\s*$", re.IGNORECASE)


class PaperError(ValueError):
    """Bad paper specification; the message says what to type instead. ``reason`` is what is
    wrong alone, for a caller that gives its own fix (the command line's lists every size)."""

    def __init__(self, reason: str, hint: str = "", likely: bool = False) -> None:
        super().__init__(f"{reason}; {hint}" if hint else reason)
        self.reason = reason
        self.hint = hint
        self.likely = likely   # the hint is the fix this value most likely needs, not a list of sizes


@dataclass(frozen=True)
class Paper:
    """A sheet of paper as the user named it (orientation as given)."""

    name: str
    width: float
    height: float

    @property
    def label(self) -> str:
        """Human label: "A4" for standard sizes, "300×450 mm" for custom ones."""
        if self.name in STANDARD_SIZES:
            return self.name.upper() if self.name.startswith("a") else self.name.capitalize()
        return f"{fmt_mm(self.width)}×{fmt_mm(self.height)} mm"


def fmt_mm(value: float) -> str:
    """Format a length without noise: 63 -> "63", 63.5 -> "63.5", 215.9 -> "215.9"."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text != "-0" else "0"


def parse_paper(spec: str) -> Paper:
    """Parse "a4", "Letter" or a custom "WxHmm" such as "300x450mm".

    Raises PaperError with a one-line hint, because this is user input from the CLI.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise PaperError("empty paper size", f"use one of {_names()} or WxHmm such as 300x450mm")
    key = spec.strip().lower()
    if key in STANDARD_SIZES:
        w, h = STANDARD_SIZES[key]
        return Paper(key, w, h)
    match = _CUSTOM_RE.match(key)
    if not match:
        meant = _likely_meant(key)
        raise PaperError(f"unknown paper size {spec!r}", meant or f"use one of {_names()} or WxHmm such as 300x450mm",
                         likely=bool(meant))
    w, h = float(match.group(1)), float(match.group(2))
    check_size(w, h, what=f"paper {spec!r}")
    for side, value in (("width", w), ("height", h)):
        if not MIN_PAPER_MM <= value <= MAX_PAPER_MM:
            raise PaperError(f"paper {spec!r}: {side} {fmt_mm(value)} mm is outside the sheet sizes accepted, "
                             f"{fmt_mm(MIN_PAPER_MM)} to {fmt_mm(MAX_PAPER_MM)} mm; sizes are in millimetres")
    return Paper(key.replace(" ", ""), w, h)


#: Millimetres in one of each unit a length may be written in by mistake (lengths are in
#: millimetres, written as bare numbers): for the message that converts it.
MM_PER_UNIT = {"cm": 10.0, "in": 25.4, "inch": 25.4, "inches": 25.4, '"': 25.4, "pt": 25.4 / 72, "px": 25.4 / 96}
#: A size written with another unit, or none: "8.5x11in", "21x29.7 cm", "210x297".
_OTHER_UNIT_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*(" +
                            "|".join(re.escape(u) for u in MM_PER_UNIT) + "|)$")
_ORIENTATION_RE = re.compile(r"^(.*?)[\s_-]*(landscape|portrait)$")


def _likely_meant(key: str) -> str:
    """The fix for a paper size that is not one (``key``: lower case, trimmed), when it is
    likely what was meant: a size without its unit or in another unit (in millimetres), a
    size with an orientation (which is chosen for each deck), a misspelt name; else ""."""
    import difflib

    sized = _OTHER_UNIT_RE.match(key)
    if sized:
        w, h, unit = float(sized[1]), float(sized[2]), sized[3]
        if not unit:
            return f"sizes are in millimetres, written with their unit: --paper {fmt_mm(w)}x{fmt_mm(h)}mm"
        k = MM_PER_UNIT[unit]
        return f"sizes are in millimetres: {sized[0]} is --paper {fmt_mm(w * k)}x{fmt_mm(h * k)}mm"
    turned = _ORIENTATION_RE.match(key)
    if turned and (turned[1] in STANDARD_SIZES or _CUSTOM_RE.match(turned[1])):
        return (f"give the size alone, --paper {turned[1]}: each deck's sheet is turned whichever way holds the "
                "most pieces")
    close = difflib.get_close_matches(key, list(STANDARD_SIZES), n=1, cutoff=0.6)
    return f"did you mean --paper {close[0]}?" if close else ""


def check_size(width: float, height: float, *, what: str) -> None:
    """Reject non-positive or absurd sizes with a message naming the offending object."""
    for side, value in (("width", width), ("height", height)):
        if not isinstance(value, (int, float)) or value != value:
            raise PaperError(f"{what}: {side} must be a number of millimetres, got {value!r}")
        if value <= 0:
            raise PaperError(f"{what}: {side} must be positive, got {fmt_mm(value)} mm")
        if value > MAX_SIDE_MM:
            raise PaperError(
                f"{what}: {side} {fmt_mm(value)} mm is larger than {fmt_mm(MAX_SIDE_MM)} mm; "
                "sizes are in millimetres"
            )


def name_for_size(width: float, height: float) -> str | None:
    """Return the standard name of a sheet in either orientation, so plans can say "A4"."""
    for name, (w, h) in STANDARD_SIZES.items():
        if {round(width, 2), round(height, 2)} == {round(w, 2), round(h, 2)}:
            return name
    return None


def label_for_size(width: float, height: float) -> str:
    """ "A4" for a standard sheet (either orientation), else "300×450 mm"."""
    name = name_for_size(width, height)
    return Paper(name or "custom", width, height).label


def mm_to_pt(value: float | Fraction) -> float:
    """Convert mm to PDF points, rounding only once at the end."""
    return float(Fraction(value) * PT_PER_MM)


def exact(value: float) -> Fraction:
    """The decimal value the user meant: 215.9 -> 2159/10, not the binary float near it.

    Grid counts compare sums like 3 × 63 + 6 against 200; doing that on the decimal
    value avoids a card being dropped because 0.1 has no exact binary form.
    """
    return Fraction(repr(float(value)))


def _names() -> str:
    return ", ".join(STANDARD_SIZES)
