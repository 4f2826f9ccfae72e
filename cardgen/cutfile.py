"""Cut-path SVG for print-and-cut machines (Cricut, Silhouette, Brother ScanNCut).

Every sheet of a deck has the same layout, so one SVG serves them all: the cutter is
told where each card's outline is, and finds the sheet by the three registration
squares, which `pdfwrite.write_sheets(..., registration=True)` prints at the same
places.  Units are millimetres end to end (width/height in mm, viewBox in mm), because
cutter software imports SVG at its declared physical size.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .imposition import CardGeometry, GridPlan, ImpositionError, compose
from .paper import fmt_mm

CUT_STROKE_MM = 0.1
"""Hairline: cutter software ignores the width, and a thin line stays precise on screen."""

CUT_COLOUR = "#ff0000"
"""Cutters treat all paths alike; red keeps cut lines apart from the black registration marks."""

HOW_TO = "Print the sheets with registration marks on, at 100 % scale, then cut each with this file."


def write_cut_svg(card: CardGeometry, plan: GridPlan, sheets: int, pieces: int | None = None) -> str:
    """Return an SVG with every card's cut outline at its place on the sheet.

    `sheets` is how many printed sheets use this layout; it is recorded in the file so
    the user knows to cut each of them with the same file.  The outlines follow the
    card's own cut path (rounded corners, lozenges, circles…), placed and turned exactly
    like the artwork on the front pages.  `pieces`, when given, is how many pieces the
    sheets print in all: only places a sheet fills get a path (a cutter would otherwise cut
    blank paper), and a last sheet filled in part is named in the file's title.
    """
    if plan.card != card:
        raise ImpositionError(
            "the grid plan was made for a different card geometry; plan again for this card"
        )
    if not isinstance(sheets, int) or sheets < 1:
        raise ImpositionError(f"sheets must be a positive whole number, got {sheets!r}")
    w, h = fmt_mm(plan.paper_w), fmt_mm(plan.paper_h)
    b = card.bleed
    trim_origin = (1.0, 0.0, 0.0, 1.0, b, b)  # cut path is relative to the trim's top-left
    used = plan.slots if pieces is None else plan.slots[:min(pieces, len(plan.slots))]
    note = f"Cut file for {sheets} sheet{'s' if sheets != 1 else ''}: {plan.describe()}"
    last = pieces - (sheets - 1) * len(plan.slots) if pieces is not None else len(plan.slots)
    if sheets > 1 and 0 < last < len(plan.slots):
        note += f"; the last sheet holds pieces 1–{last} only: cut card-1 to card-{last} on it"
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}mm" height="{h}mm" viewBox="0 0 {w} {h}">',
        f"<title>{escape(note)}</title>",
        f"<desc>{escape(HOW_TO)}</desc>",
        '<g id="registration" fill="#000000" stroke="none">',
    ]
    for mark in plan.registration_marks():
        lines.append(f'<rect x="{_n(mark.x)}" y="{_n(mark.y)}" width="{_n(mark.w)}" height="{_n(mark.h)}"/>')
    lines.append("</g>")
    lines.append(
        f'<g id="cut" fill="none" stroke="{CUT_COLOUR}" stroke-width="{_n(CUT_STROKE_MM)}" '
        'stroke-linejoin="round">'
    )
    path = quoteattr(card.cut_path)
    for slot in used:
        matrix = compose(plan.front_transform(slot), trim_origin)
        lines.append(
            f'<path id="card-{slot.index + 1}" transform="matrix({" ".join(_n(v) for v in matrix)})" d={path}/>'
        )
    lines.append("</g>")
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def _n(value: float) -> str:
    """Millimetres to 4 decimals (0.1 µm): exact enough for any cutter, no float noise."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
