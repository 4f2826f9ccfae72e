"""Components that share a sheet: each one's pieces as a band, stacked top to bottom."""

from __future__ import annotations

import functools
from dataclasses import replace

from .geometry import CardGeometry, ImpositionError, bbox
from .grid import plan_grid
from .plan import GridPlan

BAND_GAP = 14.0
"""Space between the blocks of components sharing a sheet, mm: room for both blocks' tick
marks (2 mm gap + 4.5 mm tick each) and a millimetre between them."""


def plan_band(plan: GridPlan, count: int, top: float) -> GridPlan:
    """The slots of a plan that ``count`` pieces use, moved up or down so their printed
    block starts ``top`` mm from the sheet's top edge (for components sharing a sheet)."""
    used = plan.slots[:count]
    dy = top - bbox([s.clip for s in used]).y
    moved = []
    for s in used:
        poly = tuple((x, y + dy) for x, y in s.polygon) if s.polygon else None
        grown = tuple((x, y + dy) for x, y in s.bleed_polygon) if s.bleed_polygon else None
        moved.append(replace(s, trim=s.trim.moved(0, dy), clip=s.clip.moved(0, dy), polygon=poly, bleed_polygon=grown))
    rows = len({s.row for s in used})
    return replace(plan, slots=tuple(moved), rows=rows)


@functools.lru_cache(maxsize=256)
def band_plan(paper_w: float, paper_h: float, card: CardGeometry, count: int, *, margin: float = 5.0,
              gutter: float | None = None, bleed: float | None = None, paper_label: str | None = None) -> GridPlan | None:
    """The flattest grid holding all ``count`` pieces on one sheet as given (upright or
    turned), for a component that shares its sheet; None if they need more than a sheet.

    Kept per process (its arguments and its plan are frozen values): a build asks it for
    every component while planning, again when it sorts the faces the cache keeps, and each
    PDF's worker again to find its job — 7 ms each time for Particle Builder, three times on
    the way from a one-card edit to its PDFs. The workers are forked after planning and
    inherit the answers."""
    best: tuple[float, GridPlan] | None = None
    for rotate in (False, True):
        try:
            plan = plan_grid(paper_w, paper_h, card, margin=margin, gutter=gutter, bleed=bleed,
                             orientation="portrait" if paper_w <= paper_h else "landscape",
                             turned=rotate, paper_label=paper_label, count=count)
        except ImpositionError:
            continue
        if plan.per_sheet < count:
            continue
        height = bbox([s.clip for s in plan.slots[:count]]).h
        if best is None or height < best[0] - 1e-6:
            best = (height, plan)
    return best[1] if best else None


def share_sheets(bands: list[tuple[GridPlan | None, int]], *, margin: float = 5.0,
                 footer: float = 8.0) -> list[list[int]]:
    """Which components share a sheet. A component whose pieces fit one sheet (a band plan,
    see :func:`band_plan`) joins the first sheet begun by an earlier such component that
    still has room for its block under the others (BAND_GAP apart, `footer` mm kept at the
    bottom); the others print alone. The answer lists groups of indices into ``bands``, in
    order (a group of one prints alone)."""
    groups: list[list[int]] = []
    room: dict[int, float] = {}      # group index → height still free on its sheet
    for index, (plan, count) in enumerate(bands):
        if plan is None:
            groups.append([index])
            continue
        height = bbox([s.clip for s in plan.slots[:count]]).h
        for g, free in room.items():
            first = bands[groups[g][0]][0]
            if first is not None and _same_paper(plan, first) and height + BAND_GAP <= free:
                groups[g].append(index)
                room[g] = free - height - BAND_GAP
                break
        else:
            groups.append([index])
            room[len(groups) - 1] = plan.paper_h - 2 * margin - footer - height
    return groups


def _same_paper(a: GridPlan, b: GridPlan) -> bool:
    return abs(a.paper_w - b.paper_w) < 1e-6 and abs(a.paper_h - b.paper_h) < 1e-6


def stack_bands(bands: list[tuple[GridPlan, int]], *, margin: float = 5.0) -> list[GridPlan]:
    """Plans of components sharing one sheet, each moved to its place, top to bottom."""
    top = margin + 1.0
    out = []
    for plan, count in bands:
        band = plan_band(plan, count, top)
        out.append(band)
        top = band.block_bleed.bottom + BAND_GAP
    return out
