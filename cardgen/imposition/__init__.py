"""Sheet geometry for printing cards: how many fit, where each one goes, how backs line up.

Pure geometry, no PDF: every length is in millimetres with the origin at the top-left
corner of the sheet and y growing downwards, which is how people measure a printed
page.  The PDF writer converts to points and flips y only when it writes.

One module a concern, all names importable from here:

- :mod:`.geometry` — the card, its slot, rectangles, polygons and the affine maps that
  place artwork and flip a sheet for its back (their arithmetic is :mod:`cardgen.affine`'s,
  which the drawing stage uses too);
- :mod:`.plan` — the :class:`GridPlan` of one sheet that the writers follow;
- :mod:`.grid` — the grid planner (orientation, rotation, bleed or edge to edge);
- :mod:`.tessellation` — lozenges packed edge to edge by their outline, and
  :func:`plan_sheet`, which picks that or a grid;
- :mod:`.bands` — components sharing one sheet;
- :mod:`.tiling` — a sheet larger than the paper split over overlapping pages.
"""

from .bands import BAND_GAP, band_plan, plan_band, share_sheets, stack_bands
from ..affine import Affine, apply, compose, image_bounds
from .geometry import (CardGeometry, Duplex, ImpositionError, LayoutKind, Placement, Point, Polygon, Rect, Segment,
                       Slot, sheet_flip, transform_rect)
from .grid import plan_grid
from .plan import FOOTER_ROOM, MARK_ROOM, REGISTRATION_GAP, REGISTRATION_SIZE, GridPlan
from .tessellation import plan_sheet, plan_tessellation
from .tiling import Tile, TilePlan, plan_tiles

__all__ = [
    "BAND_GAP", "FOOTER_ROOM", "MARK_ROOM", "REGISTRATION_GAP", "REGISTRATION_SIZE", "Affine", "CardGeometry",
    "Duplex", "GridPlan",
    "ImpositionError", "LayoutKind", "Placement", "Point", "Polygon", "Rect", "Segment", "Slot", "Tile", "TilePlan",
    "apply", "band_plan", "compose", "image_bounds", "plan_band", "plan_grid", "plan_sheet", "plan_tessellation",
    "plan_tiles", "share_sheets", "sheet_flip", "stack_bands", "transform_rect",
]
