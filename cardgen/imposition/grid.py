"""Grids of cards on a sheet: the planner that picks the sheet orientation, card rotation and
layout (bleed or edge to edge) that print the most cards, or need the fewest sheets.

Counting is done on exact decimal values (fractions) because the interesting cases
sit right on the boundary (3 × 63 mm + 2 × 3 mm bleed = 195 mm of 200 mm) and a
binary-float rounding error must not cost a card.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from ..paper import STANDARD_SIZES, PaperError, check_size, exact, fmt_mm, label_for_size
from .geometry import CardGeometry, ImpositionError, LayoutKind, Rect, Slot, printed_bleed
from .plan import MARK_ROOM, GridPlan


@functools.lru_cache(maxsize=512)
def plan_grid(
    paper_w: float,
    paper_h: float,
    card: CardGeometry,
    *,
    margin: float = 5.0,
    gutter: float | None = None,
    bleed: float | None = None,
    allow_rotate: bool = True,
    layout: Literal["auto", "bleed", "edge"] = "auto",
    orientation: Literal["auto", "portrait", "landscape"] = "auto",
    paper_label: str | None = None,
    count: int | None = None,
    turned: bool | None = None,
) -> GridPlan:
    """Choose the sheet orientation, card rotation and layout that print the most cards.

    Candidates are both sheet orientations, cards upright or (if allowed) turned, and the
    two layouts: "bleed" (every card keeps its bleed, cells separated by `gutter`) and
    "edge" (cards butt against each other with one shared cut; bleed only around the
    block); a `gutter` above 0 asks for space between the cards, so "auto" then plans
    "bleed" only.  Ties prefer bleed (each card can be cut with slack), then upright cards,
    then the sheet orientation as given.  `bleed` defaults to the card's own bleed and may only
    reduce it, since artwork that does not exist cannot be printed.

    Turning the cards on a portrait sheet is the same geometry as upright cards on a
    landscape sheet, so rotation only wins when `orientation` pins the sheet (some
    printers and print shops want portrait pages only).

    With ``count`` (the pieces to print) the planner minimises *sheets* rather than cards
    per sheet: 36 tokens fit one A4 sheet with bleed as well as edge to edge, so they keep
    their bleed. ``turned`` True or False pins the cards' rotation.

    Remembered: a build asks for the same plans when it decides which components share a
    sheet, again in each process that writes a file, and again in every later build of a
    process that lives on (the daemon's, serve, a program) — 0.01–0.03 s of pure geometry
    each time. A plan and everything in it is frozen, so its callers share it.
    """
    label = paper_label or label_for_size(paper_w, paper_h)
    try:
        check_size(paper_w, paper_h, what=f"paper {label}")
    except PaperError as exc:
        raise ImpositionError(str(exc)) from None
    b = printed_bleed(card, bleed)
    g = 0.0 if gutter is None else gutter
    _check_options(paper_w, paper_h, margin, g, layout, orientation)
    # a gutter asked for is space between the cards: edge to edge would have none
    kinds: tuple[LayoutKind, ...] = (("bleed",) if g > 0 else ("bleed", "edge")) if layout == "auto" else (layout,)
    turns = (turned,) if turned is not None else ((False, True) if allow_rotate else (False,))
    best: tuple[tuple, _Candidate] | None = None
    for turn_sheet, (sw, sh) in enumerate(_sheet_sizes(paper_w, paper_h, orientation)):
        for rotated in turns:
            for kind in kinds:
                cand = _fit(sw, sh, card, rotated, kind, exact(margin), exact(b), exact(g))
                if cand.count == 0:
                    continue
                rank = _rank(cand, count, turn_sheet)
                if best is None or rank > best[0]:
                    best = (rank, cand)
    if best is None:
        raise ImpositionError(_no_fit_message(paper_w, paper_h, card, margin, b, label))
    return _build(best[1], card, label, float(margin), b, g)


def _check_options(paper_w: float, paper_h: float, margin: float, gutter: float, layout: str,
                   orientation: str) -> None:
    """Refuse a gutter, margin, layout or orientation the planner cannot honour."""
    if not 0 <= gutter < 100:
        raise ImpositionError(f"gutter must be between 0 and 100 mm, got {fmt_mm(gutter)} mm")
    if not 0 <= margin < min(paper_w, paper_h) / 2:
        raise ImpositionError(
            f"margin must be between 0 and half the paper's short side, got {fmt_mm(margin)} mm"
        )
    if layout not in ("auto", "bleed", "edge"):
        raise ImpositionError(f"layout must be 'auto', 'bleed' or 'edge', got {layout!r}")
    if orientation not in ("auto", "portrait", "landscape"):
        raise ImpositionError(f"orientation must be 'auto', 'portrait' or 'landscape', got {orientation!r}")


def _sheet_sizes(paper_w: float, paper_h: float, orientation: str) -> tuple[tuple[float, float], ...]:
    """The sheet sizes (width, height) to try: as given then turned, or only the pinned one."""
    portrait = (min(paper_w, paper_h), max(paper_w, paper_h))
    return {
        "auto": ((paper_w, paper_h), (paper_h, paper_w)),
        "portrait": (portrait,),
        "landscape": (portrait[::-1],),
    }[orientation]


def _rank(cand: _Candidate, count: int | None, turn_sheet: int) -> tuple:
    """Sort key of a candidate, best highest: fewest sheets for ``count`` pieces (else most
    pieces a sheet), then bleed kept, cards upright, the sheet as given."""
    sheets_needed = -(-count // cand.count) if count else 0
    return (-sheets_needed, cand.count if not count else 0, cand.kind == "bleed", not cand.rotated,
            not turn_sheet, cand.count)


@dataclass(frozen=True)
class _Candidate:
    sheet_w: float
    sheet_h: float
    rotated: bool
    kind: LayoutKind
    cols: int
    rows: int

    @property
    def count(self) -> int:
        return self.cols * self.rows


def _fit(
    sw: float,
    sh: float,
    card: CardGeometry,
    rotated: bool,
    kind: LayoutKind,
    margin: Fraction,
    b: Fraction,
    g: Fraction,
) -> _Candidate:
    """How many columns and rows of one kind fit in the printable area of one sheet."""
    cw, ch = (exact(card.height), exact(card.width)) if rotated else (exact(card.width), exact(card.height))
    avail_w, avail_h = exact(sw) - 2 * margin, exact(sh) - 2 * margin
    if kind == "bleed":
        cols = math.floor((avail_w + g) / (cw + 2 * b + g))
        rows = math.floor((avail_h + g) / (ch + 2 * b + g))
    else:
        # Edge to edge: the outer bleed shrinks to whatever slack the sheet leaves (down to 0),
        # so e.g. 3 × 3 poker cards still fit US Letter with 2.7 mm of bleed top and bottom.
        cols = math.floor(avail_w / cw)
        rows = math.floor(avail_h / ch)
    return _Candidate(sw, sh, rotated, kind, max(cols, 0), max(rows, 0))


def _build(c: _Candidate, card: CardGeometry, label: str, margin: float, b: float, g: float) -> GridPlan:
    """Turn the winning candidate into centred slot rectangles."""
    cw, ch = (exact(card.height), exact(card.width)) if c.rotated else (exact(card.width), exact(card.height))
    eb = exact(b)
    eg = exact(g) if c.kind == "bleed" else Fraction(0)
    if c.kind == "bleed":
        step_x, step_y = cw + 2 * eb + eg, ch + 2 * eb + eg
        block_w, block_h = c.cols * step_x - eg, c.rows * step_y - eg
        bx = by = eb
    else:
        step_x, step_y = cw, ch
        m = exact(margin)
        # the outer bleed takes what the printable slack leaves after the room for cut marks:
        # a trim line needs a printable tick more than its outer edge needs bleed
        room = exact(MARK_ROOM)
        bx = min(eb, max(Fraction(0), (exact(c.sheet_w) - 2 * m - c.cols * cw) / 2 - room))
        by = min(eb, max(Fraction(0), (exact(c.sheet_h) - 2 * m - c.rows * ch) / 2 - room))
        block_w, block_h = c.cols * cw + 2 * bx, c.rows * ch + 2 * by
    x0 = (exact(c.sheet_w) - block_w) / 2 + bx
    y0 = (exact(c.sheet_h) - block_h) / 2 + by
    slots = []
    for row in range(c.rows):
        for col in range(c.cols):
            tx, ty = x0 + col * step_x, y0 + row * step_y
            trim = Rect(float(tx), float(ty), float(cw), float(ch))
            if c.kind == "bleed":
                clip = trim.grow(b, b, b, b)
            else:
                clip = trim.grow(
                    float(bx) if col == 0 else 0.0,
                    float(by) if row == 0 else 0.0,
                    float(bx) if col == c.cols - 1 else 0.0,
                    float(by) if row == c.rows - 1 else 0.0,
                )
            slots.append(Slot(len(slots), row, col, trim, clip, c.rotated))
    note = ""
    if c.kind == "edge" and b > 0:
        note = _why_not_bleed(c, cw, ch, eb, eg, margin)
        if min(bx, by) < eb:
            note += f"; outer bleed trimmed to {fmt_mm(float(min(bx, by)))} mm to fit the margin and cut marks"
    return GridPlan(
        paper_w=float(c.sheet_w),
        paper_h=float(c.sheet_h),
        paper_label=label,
        orientation="landscape" if c.sheet_w > c.sheet_h else "portrait",
        rows=c.rows,
        cols=c.cols,
        layout=c.kind,
        rotated=c.rotated,
        card=card,
        bleed=float(min(bx, by)),
        gutter=float(g) if c.kind == "bleed" else 0.0,
        margin=margin,
        slots=tuple(slots),
        note=note,
    )


def _why_not_bleed(c: _Candidate, cw: Fraction, ch: Fraction, b: Fraction, g: Fraction, margin: float) -> str:
    """Explain which dimension the same grid with full bleed would overflow."""
    m = exact(margin)
    need_w = c.cols * (cw + 2 * b) + (c.cols - 1) * g
    need_h = c.rows * (ch + 2 * b) + (c.rows - 1) * g
    avail_w, avail_h = exact(c.sheet_w) - 2 * m, exact(c.sheet_h) - 2 * m
    if need_w > avail_w:
        need, avail, side = need_w, avail_w, "width"
    elif need_h > avail_h:
        need, avail, side = need_h, avail_h, "height"
    else:
        return f"{fmt_mm(float(b))} mm bleed kept around the block"
    return (
        f"{fmt_mm(float(b))} mm bleed does not fit: needs {fmt_mm(float(need))} mm "
        f"of {fmt_mm(float(avail))} mm printable {side}"
    )


def _no_fit_message(
    paper_w: float, paper_h: float, card: CardGeometry, margin: float, b: float, label: str
) -> str:
    """Say why nothing fits and name the smallest standard paper that would work."""
    size = f"{fmt_mm(card.width)}×{fmt_mm(card.height)} mm"
    if b:
        size += f" ({fmt_mm(card.width + 2 * b)}×{fmt_mm(card.height + 2 * b)} mm with bleed)"
    text = (
        f"card {size} does not fit on {label} with {fmt_mm(margin)} mm margins "
        f"(printable {fmt_mm(paper_w - 2 * margin)}×{fmt_mm(paper_h - 2 * margin)} mm)"
    )
    lo, hi = sorted((card.width + 2 * b, card.height + 2 * b))
    fitting = [
        name
        for name, (w, h) in sorted(STANDARD_SIZES.items(), key=lambda kv: kv[1][0] * kv[1][1])
        if lo <= w - 2 * margin and hi <= h - 2 * margin
    ]
    if fitting:
        return f"{text}; use --paper {' or '.join(fitting[:2])}"
    need_w = fmt_mm(card.width + 2 * b + 2 * margin)
    need_h = fmt_mm(card.height + 2 * b + 2 * margin)
    return f"{text}; use a custom paper of at least --paper {need_w}x{need_h}mm"
