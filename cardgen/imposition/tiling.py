"""A sheet larger than the paper (a game mat) split over pages that overlap by glue strips."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..paper import check_size, exact, fmt_mm, label_for_size
from .geometry import ImpositionError, Rect
from .words import Say, english, orientation


@dataclass(frozen=True)
class Tile:
    """One printed page of a large sheet split over smaller paper.

    `region` is the part of the large sheet (mm, origin at its top-left) printed on this
    page, placed at the top-left corner of the printable area.  `glue_right` and
    `glue_below` are the strips shared with the neighbour to the right / below, which
    that neighbour covers when the tiles are assembled.
    """

    name: str
    row: int
    col: int
    region: Rect
    glue_right: Rect | None
    glue_below: Rect | None


@dataclass(frozen=True)
class TilePlan:
    """How a large sheet (e.g. an A3 game mat) is split over several pages."""

    paper_w: float
    paper_h: float
    margin: float
    overlap: float
    rows: int
    cols: int
    tiles: tuple[Tile, ...]

    def cuts(self) -> int:
        """Straight cuts to trim the tiles: each page is trimmed to its printed area on all
        four sides (the tiles then overlap by the glue strips)."""
        return 4 * len(self.tiles)

    def describe(self, _: Say = english) -> str:
        """One phrase for the user, e.g. "A4 portrait, 2×2 = 4 tiles with 10 mm overlap", in
        the language of ``_`` (see :meth:`cardgen.imposition.plan.GridPlan.describe`)."""
        which = "landscape" if self.paper_w > self.paper_h else "portrait"
        return _("{paper} {orientation}, {cols}×{rows} = {count} tiles with {overlap} mm overlap").format(
            paper=label_for_size(self.paper_w, self.paper_h), orientation=orientation(_, which),
            cols=self.cols, rows=self.rows, count=len(self.tiles), overlap=fmt_mm(self.overlap))


def plan_tiles(
    width: float, height: float, paper_w: float, paper_h: float, *, margin: float = 5.0, overlap: float = 10.0
) -> TilePlan:
    """Split a width × height mm sheet into the fewest pages, neighbours sharing `overlap` mm.

    The fewest tiles along each axis are found first; then the sheet is shared out equally
    among them (every pair of neighbours still overlapping by exactly `overlap` mm), so no
    tile is a sliver on a page of its own.  Both paper orientations are tried; ties keep
    the paper as given.
    """
    check_size(width, height, what="tiled sheet")
    check_size(paper_w, paper_h, what="paper")
    if not 0 <= margin < min(paper_w, paper_h) / 2:
        raise ImpositionError(
            f"margin must be between 0 and half the paper's short side, got {fmt_mm(margin)} mm"
        )
    best: TilePlan | None = None
    for sw, sh in ((paper_w, paper_h), (paper_h, paper_w)):
        pw, ph = sw - 2 * margin, sh - 2 * margin
        if not 0 <= overlap < min(pw, ph) / 2:
            raise ImpositionError(
                f"overlap must be between 0 and half the printable size ({fmt_mm(min(pw, ph) / 2)} mm), "
                f"got {fmt_mm(overlap)} mm"
            )
        cols, xs = _tile_axis(width, pw, overlap)
        rows, ys = _tile_axis(height, ph, overlap)
        if best is not None and rows * cols >= len(best.tiles):
            continue
        tiles = []
        for r, (y0, th) in enumerate(ys):
            for c, (x0, tw) in enumerate(xs):
                glue_right = Rect(x0 + tw - overlap, y0, overlap, th) if c < cols - 1 else None
                glue_below = Rect(x0, y0 + th - overlap, tw, overlap) if r < rows - 1 else None
                tiles.append(
                    Tile(f"{_row_name(r)}{c + 1}", r, c, Rect(x0, y0, tw, th), glue_right, glue_below)
                )
        best = TilePlan(sw, sh, margin, overlap, rows, cols, tuple(tiles))
    assert best is not None
    return best


def _tile_axis(total: float, printable: float, overlap: float) -> tuple[int, list[tuple[float, float]]]:
    """Start and length of each tile along one axis: the fewest that cover `total`, all of
    one length (total + (count − 1) × overlap) / count."""
    if total <= printable + 1e-9:
        return 1, [(0.0, float(total))]
    step = printable - overlap
    count = math.ceil((exact(total) - exact(overlap)) / exact(step))
    length = (total + (count - 1) * overlap) / count
    spans = [(i * (length - overlap), length) for i in range(count)]
    return count, spans


def _row_name(index: int) -> str:
    """Spreadsheet-style row letters: A … Z, AA, AB …"""
    name = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        name = chr(ord("A") + rem) + name
    return name
