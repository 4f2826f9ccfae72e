"""Grid planner, duplex geometry and tile planning (pure geometry, no PDF)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardgen.imposition import (
    CardGeometry,
    ImpositionError,
    Rect,
    apply,
    band_plan,
    plan_grid,
    plan_sheet,
    share_sheets,
    stack_bands,
    plan_tessellation,
    plan_tiles,
    sheet_flip,
    transform_rect,
)
from cardgen.shapes import Shape

POKER = CardGeometry(63, 88, 3, "M0 0H63V88H0Z", True)
A4 = (210.0, 297.0)
A3 = (297.0, 420.0)


def close(a: Rect, b: Rect, tol: float = 0.01) -> bool:
    return all(abs(p - q) <= tol for p, q in zip((a.x, a.y, a.w, a.h), (b.x, b.y, b.w, b.h)))


def test_poker_on_a4_goes_edge_to_edge_nine_up():
    plan = plan_grid(*A4, POKER)
    assert (plan.rows, plan.cols, plan.per_sheet, plan.layout) == (3, 3, 9, "edge")
    assert plan.orientation == "portrait" and not plan.rotated
    assert plan.describe() == "A4 portrait, 3×3 = 9 cards per sheet, edge to edge with shared cuts"
    # why the bleed gave way is kept apart: a build says it once, not on every file's line
    assert plan.note == "3 mm bleed does not fit: needs 207 mm of 200 mm printable width"
    assert plan.bleed_given_up
    # Shared cuts: 4 vertical and 4 horizontal trim lines, not 6 and 6.
    assert plan.cut_xs == pytest.approx((10.5, 73.5, 136.5, 199.5))
    assert len(plan.cut_ys) == 4
    # Bleed only on the outer edges of the block.
    middle = plan.slots[4]
    assert close(middle.clip, middle.trim)
    corner = plan.slots[0]
    assert close(corner.clip, corner.trim.grow(3, 3, 0, 0))


def test_a_plan_is_remembered_frozen_and_the_same_as_one_made_afresh():
    import dataclasses

    first = plan_grid(*A4, POKER, count=20)
    assert plan_grid(*A4, POKER, count=20) is first
    assert plan_grid.__wrapped__(*A4, POKER, count=20) == first
    assert plan_grid(*A4, POKER, count=20, margin=8.0) != first
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.rows = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.slots[0].rotated = True
    assert isinstance(first.slots, tuple)


def test_poker_on_a4_without_bleed_is_also_nine():
    plan = plan_grid(*A4, POKER, bleed=0)
    assert plan.per_sheet == 9
    assert plan.layout == "bleed"
    assert plan.describe() == "A4 portrait, 3×3 = 9 cards per sheet, no bleed"


def test_a3_holds_sixteen_poker_cards_with_bleed():
    plan = plan_grid(*A3, POKER, layout="bleed")
    assert plan.per_sheet == 16
    assert "with 3 mm bleed" in plan.describe()
    for slot in plan.slots:
        assert close(slot.clip, slot.trim.grow(3, 3, 3, 3))
    # Left to choose freely, edge to edge on A3 gains two more cards.
    auto = plan_grid(*A3, POKER)
    assert auto.per_sheet == 18 and auto.layout == "edge"


def test_card_larger_than_paper_names_a_paper_that_fits():
    big = CardGeometry(250, 300, 3, "M0 0H250V300H0Z", True)
    with pytest.raises(ImpositionError) as info:
        plan_grid(*A4, big)
    assert isinstance(info.value, ValueError)
    assert "does not fit on A4" in str(info.value)
    assert "--paper tabloid or a3" in str(info.value)
    huge = CardGeometry(600, 700, 0, "M0 0H600V700H0Z", True)
    with pytest.raises(ImpositionError, match=r"610x710mm"):
        plan_grid(*A4, huge)


@pytest.mark.parametrize(
    "kwargs",
    [dict(margin=-1), dict(margin=200), dict(bleed=5), dict(bleed=-1), dict(gutter=-2), dict(layout="x")],
)
def test_bad_options_raise(kwargs):
    with pytest.raises(ImpositionError):
        plan_grid(*A4, POKER, **kwargs)


def test_bad_card_raises():
    with pytest.raises(ImpositionError):
        CardGeometry(-63, 88, 3, "", True)
    with pytest.raises(ImpositionError):
        CardGeometry(63, 88, -1, "", True)


def test_square_cards_are_not_turned_on_a_tie():
    square = CardGeometry(70, 70, 3, "M0 0H70V70H0Z", True)
    assert not plan_grid(*A4, square).rotated


def test_landscape_cards_on_a_portrait_only_sheet_are_turned():
    wide = CardGeometry(88, 63, 3, "M0 0H88V63H0Z", True)
    plan = plan_grid(*A4, wide, orientation="portrait")
    assert plan.rotated and plan.per_sheet == 9
    assert "cards turned 90°" in plan.describe()
    slot = plan.slots[0]
    assert (slot.trim.w, slot.trim.h) == pytest.approx((63, 88))
    # The art (94 × 69 mm unturned) lands as a 69 × 94 footprint with its top on the left.
    art = transform_rect(plan.front_transform(slot), Rect(0, 0, wide.art_width, wide.art_height))
    assert close(art, plan.art_rect(slot))
    top_left = apply(plan.front_transform(slot), 0, 0)
    assert top_left == pytest.approx((art.x, art.bottom))
    assert not plan_grid(*A4, wide, orientation="portrait", allow_rotate=False).rotated


def test_gutter_separates_bleed_boxes():
    plan = plan_grid(*A3, POKER, layout="bleed", gutter=2)
    assert plan.gutter == 2
    first, second = plan.slots[0], plan.slots[1]
    assert second.clip.x - first.clip.right == pytest.approx(2)


@pytest.mark.parametrize("count", [None, 36, 52])
def test_a_gutter_asked_for_is_never_laid_edge_to_edge(count):
    """Edge to edge, neighbours share a cut and there is no space between them: a user who
    asks for a gutter gets cards with that much space between their printed areas."""
    assert plan_grid(*A4, POKER, count=52).layout == "edge"   # what the planner picks without one
    plan = plan_grid(*A4, POKER, gutter=5, count=count)
    assert plan.layout == "bleed" and plan.gutter == 5
    first, second = plan.slots[0], plan.slots[1]
    gap = max(second.clip.x - first.clip.right, second.clip.y - first.clip.bottom)
    assert gap == pytest.approx(5)


@settings(max_examples=150, deadline=None)
@given(
    w=st.floats(20, 150),
    h=st.floats(20, 150),
    bleed=st.sampled_from([0, 1.5, 3]),
    margin=st.sampled_from([0, 5, 8]),
    gutter=st.sampled_from([0, 2]),
    paper=st.sampled_from([A4, A3, (215.9, 279.4), (148, 210)]),
)
def test_plan_invariants(w, h, bleed, margin, gutter, paper):
    card = CardGeometry(w, h, bleed, "", True)
    try:
        plan = plan_grid(*paper, card, margin=margin, gutter=gutter)
    except ImpositionError:
        # Only legitimate if the card with outer bleed does not fit either way round.
        lo, hi = sorted((w + 2 * bleed, h + 2 * bleed))
        assert lo > min(paper) - 2 * margin or hi > max(paper) - 2 * margin
        return
    assert plan.per_sheet == len(plan.slots) == plan.rows * plan.cols >= 1
    blk = plan.block_bleed
    # Inside the printable area and centred on the sheet.
    assert blk.x >= margin - 1e-6 and blk.right <= plan.paper_w - margin + 1e-6
    assert blk.y >= margin - 1e-6 and blk.bottom <= plan.paper_h - margin + 1e-6
    assert blk.x == pytest.approx(plan.paper_w - blk.right)
    assert blk.y == pytest.approx(plan.paper_h - blk.bottom)
    for i, a in enumerate(plan.slots):
        tw, th = (h, w) if plan.rotated else (w, h)
        assert (a.trim.w, a.trim.h) == pytest.approx((tw, th))
        for b in plan.slots[i + 1 :]:
            assert not a.clip.overlaps(b.clip)
    # No other candidate packs more cards (with a gutter, of the layout that has gutters).
    assert gutter == 0 or plan.layout == "bleed"
    for kind in ("bleed", "edge") if gutter == 0 else ("bleed",):
        try:
            other = plan_grid(*paper, card, margin=margin, gutter=gutter, layout=kind)
        except ImpositionError:
            continue
        assert other.per_sheet <= plan.per_sheet


@pytest.mark.parametrize("paper", [A4, (297.0, 210.0)])
@pytest.mark.parametrize("duplex", ["long", "short"])
def test_backs_mirror_their_fronts(paper, duplex):
    plan = plan_grid(*paper, POKER, orientation="portrait" if paper[0] < paper[1] else "landscape")
    flip = sheet_flip(plan.paper_w, plan.paper_h, duplex)
    art = Rect(0, 0, POKER.art_width, POKER.art_height)
    for slot in plan.slots:
        back_art = transform_rect(plan.back_transform(slot, duplex, (0, 0)), art)
        assert close(transform_rect(flip, back_art), plan.art_rect(slot))
        assert close(transform_rect(flip, plan.back_clip(slot, duplex, (0, 0))), slot.clip)
        # Which slot's position does the back take?  Columns mirror when the flip axis is vertical.
        about_vertical = (duplex == "long") == (plan.paper_w <= plan.paper_h)
        twin = next(
            s
            for s in plan.slots
            if (s.row, s.col)
            == (
                (slot.row, plan.cols - 1 - slot.col)
                if about_vertical
                else (plan.rows - 1 - slot.row, slot.col)
            )
        )
        assert close(back_art, plan.art_rect(twin))


def test_back_orientation_follows_the_card_not_the_page():
    plan = plan_grid(*A4, POKER)
    slot = plan.slots[0]
    # Long edge on portrait: back drawn upright (its top-left at the art box's top-left).
    assert plan.back_transform(slot, "long", (0, 0))[:4] == pytest.approx((1, 0, 0, 1))
    # Short edge on portrait: the sheet tumbles, so the back is drawn upside down.
    assert plan.back_transform(slot, "short", (0, 0))[:4] == pytest.approx((-1, 0, 0, -1))


def test_back_offset_shifts_every_back():
    plan = plan_grid(*A4, POKER)
    for slot in plan.slots:
        base = plan.back_transform(slot, "long", (0, 0))
        moved = plan.back_transform(slot, "long", (1.5, -0.75))
        assert moved[4] - base[4] == pytest.approx(1.5)
        assert moved[5] - base[5] == pytest.approx(-0.75)


def test_registration_marks_stay_off_the_cards():
    plan = plan_grid(*A4, POKER)
    for mark in plan.registration_marks():
        assert all(not mark.overlaps(s.clip) for s in plan.slots)
        assert 0 <= mark.x and mark.right <= plan.paper_w
    tight = plan_grid(*A4, CardGeometry(100, 140, 0, "", True), margin=0)
    with pytest.raises(ImpositionError, match="margin"):
        tight.registration_marks()


def test_a3_mat_tiles_onto_four_a4_pages_with_overlap():
    tiles = plan_tiles(297, 420, *A4, margin=5, overlap=10)
    assert (tiles.cols, tiles.rows, len(tiles.tiles)) == (2, 2, 4)
    assert [t.name for t in tiles.tiles] == ["A1", "A2", "B1", "B2"]
    a1, a2, b1, _ = tiles.tiles
    assert a1.region.right - a2.region.x == pytest.approx(10)
    assert a1.region.bottom - b1.region.y == pytest.approx(10)
    assert a2.region.right == pytest.approx(297) and b1.region.bottom == pytest.approx(420)
    # the mat is shared out equally: (297 + 10) / 2 wide, (420 + 10) / 2 high
    assert close(a1.glue_right, Rect(143.5, 0, 10, 215))
    assert all(close(t.region, Rect(t.region.x, t.region.y, 153.5, 215)) for t in tiles.tiles)
    assert a2.glue_right is None
    assert tiles.describe() == "A4 portrait, 2×2 = 4 tiles with 10 mm overlap"
    assert tiles.cuts() == 16


def test_the_particle_builder_mat_tiles_into_three_equal_strips_not_two_and_a_sliver():
    tiles = plan_tiles(400, 277, *A4, margin=5, overlap=10)
    assert (tiles.cols, tiles.rows) == (3, 1)
    assert [round(t.region.w, 3) for t in tiles.tiles] == [140, 140, 140]
    assert tiles.tiles[-1].region.right == pytest.approx(400)


@settings(max_examples=120, deadline=None)
@given(w=st.floats(150, 1200), h=st.floats(150, 900), overlap=st.sampled_from([0, 5, 10]),
       paper=st.sampled_from([A4, A3, (215.9, 279.4)]))
def test_no_tile_is_a_sliver(w, h, overlap, paper):
    """Whatever the board grows to, its tiles are equal: none under 40 % of another's area."""
    tiles = plan_tiles(w, h, *paper, margin=5, overlap=overlap)
    areas = [t.region.w * t.region.h for t in tiles.tiles]
    assert min(areas) >= 0.4 * max(areas)
    for t in tiles.tiles:
        assert t.region.w <= tiles.paper_w - 10 + 1e-6 and t.region.h <= tiles.paper_h - 10 + 1e-6
    assert max(t.region.right for t in tiles.tiles) == pytest.approx(w)
    assert max(t.region.bottom for t in tiles.tiles) == pytest.approx(h)


def test_small_sheet_is_one_tile_and_bad_overlap_raises():
    assert len(plan_tiles(100, 100, *A4).tiles) == 1
    with pytest.raises(ImpositionError):
        plan_tiles(297, 420, *A4, overlap=150)


def test_cut_svg_places_every_outline_and_the_registration_marks():
    import xml.etree.ElementTree as ET

    import cairosvg

    from cardgen.cutfile import write_cut_svg

    lozenge = CardGeometry(60, 90, 3, "M30 0L60 45L30 90L0 45Z", False)
    plan = plan_grid(*A4, lozenge)
    svg = write_cut_svg(lozenge, plan, sheets=3)
    root = ET.fromstring(svg)
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == ("210mm", "297mm", "0 0 210 297")
    assert "3 sheets" in root.find("s:title", ns).text
    paths = root.findall(".//s:g[@id='cut']/s:path", ns)
    assert len(paths) == plan.per_sheet
    group = root.find(".//s:g[@id='cut']", ns)
    assert group.get("fill") == "none"
    for path, slot in zip(paths, plan.slots):
        assert path.get("d") == lozenge.cut_path
        m = [float(v) for v in path.get("transform")[len("matrix(") : -1].split()]
        # The path's top vertex (30, 0) lands on the middle of the trim's top edge.
        assert apply(tuple(m), 30, 0) == pytest.approx((slot.trim.x + 30, slot.trim.y), abs=1e-3)
    rects = root.findall(".//s:g[@id='registration']/s:rect", ns)
    marks = plan.registration_marks()
    got = [v for r in rects for v in (float(r.get("x")), float(r.get("y")))]
    assert got == pytest.approx([v for m in marks for v in (m.x, m.y)])
    assert cairosvg.svg2png(bytestring=svg.encode())  # cutter software must be able to parse it
    with pytest.raises(ImpositionError):
        write_cut_svg(lozenge, plan, sheets=0)


def test_a_cut_file_cuts_only_the_places_its_sheets_fill():
    """A cutter cuts every path: a sheet filled in part gets paths for its pieces only, and a
    last sheet filled in part is named in the title."""
    import xml.etree.ElementTree as ET

    from cardgen.cutfile import write_cut_svg

    lozenge = CardGeometry(60, 90, 3, "M30 0L60 45L30 90L0 45Z", False)
    plan = plan_grid(*A4, lozenge)
    ns = {"s": "http://www.w3.org/2000/svg"}

    def cut(sheets: int, pieces: int) -> tuple[list[str], str]:
        root = ET.fromstring(write_cut_svg(lozenge, plan, sheets, pieces=pieces))
        return ([p.get("id") for p in root.findall(".//s:g[@id='cut']/s:path", ns)], root.find("s:title", ns).text)

    few = plan.per_sheet - 2
    ids, title = cut(1, few)
    assert ids == [f"card-{i}" for i in range(1, few + 1)] and "last sheet" not in title
    ids, title = cut(2, plan.per_sheet + 1)
    assert len(ids) == plan.per_sheet and title.endswith("the last sheet holds pieces 1–1 only: cut card-1 to card-1 on it")
    ids, title = cut(2, 2 * plan.per_sheet)
    assert len(ids) == plan.per_sheet and "last sheet" not in title


def test_with_a_count_the_planner_minimises_sheets_and_keeps_bleed():
    """36 tokens fit one A4 sheet either way: keep their bleed. 36 poker cards need fewer
    sheets edge to edge (4) than with bleed (6): go edge to edge."""
    from cardgen.imposition import CardGeometry, plan_grid

    token = CardGeometry(20, 20, 2, "M0 10A10 10 0 1 0 20 10A10 10 0 1 0 0 10Z", False)
    assert plan_grid(210, 297, token, count=36).layout == "bleed"
    assert plan_grid(210, 297, token).layout == "edge"          # without a count: most per sheet
    poker = CardGeometry(63, 88, 3, "M0 0H63V88H0Z", True)
    assert plan_grid(210, 297, poker, count=36).layout == "edge"


def lozenge(w=50.0, h=86.603, bleed=3.0, angle=120):
    shape = Shape("lozenge", angle=angle)
    return CardGeometry(w, h, bleed, shape.cut_path(w, h), False, tuple(shape.vertices(w, h)))


def overlap_area_positive(p, q) -> bool:
    """Separating-axis test for convex polygons: True if their interiors intersect."""
    for poly in (p, q):
        for k in range(len(poly)):
            (ax, ay), (bx, by) = poly[k], poly[(k + 1) % len(poly)]
            nx, ny = by - ay, -(bx - ax)
            pa = [x * nx + y * ny for x, y in p]
            qa = [x * nx + y * ny for x, y in q]
            tol = 1e-6 * (abs(nx) + abs(ny))
            if max(pa) <= min(qa) + tol or max(qa) <= min(pa) + tol:
                return False
    return True


def area(poly) -> float:
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]))) / 2


def test_lozenges_interlock_eighteen_to_an_a4_sheet_without_overlap():
    card = lozenge()
    plan = plan_tessellation(*A4, card)
    assert plan.layout == "tessellated" and plan.per_sheet == 18 >= 16
    assert [sum(1 for s in plan.slots if s.row == r) for r in range(plan.rows)] == [4, 3, 4, 3, 4]
    polys = [s.polygon for s in plan.slots]
    for i, p in enumerate(polys):
        assert area(p) == pytest.approx(50 * 86.603 / 2)
        for q in polys[i + 1:]:
            assert not overlap_area_positive(p, q)
        # inside the printable area
        assert all(5 - 1e-6 <= x <= 205 + 1e-6 and 5 - 1e-6 <= y <= 292 + 1e-6 for x, y in p)
    # Pieces cover 18 × 2165 mm² = 39 000 mm² of 62 370 mm² (62 %), a grid 12 × 2165 (42 %).
    assert sum(area(p) for p in polys) / (210 * 297) > 0.6
    assert plan.describe() == (
        "A4 portrait, 18 pieces per sheet in 5 interlocking rows, edge to edge with shared cuts")


def test_lozenge_neighbours_share_full_edges_and_cuts_are_straight_lines():
    plan = plan_tessellation(*A4, lozenge())
    lines = plan.cut_lines()
    # 14 full-length lines separate 18 lozenges (4 × 18 = 72 separate edges otherwise)
    assert len(lines) == 14
    for x1, y1, x2, y2 in lines:
        slope = math.degrees(math.atan2(y2 - y1, x2 - x1))
        assert min(abs(slope - 60), abs(slope + 60), abs(slope - 120), abs(slope + 120)) < 0.01
    # every edge of every piece lies on one of the lines
    for slot in plan.slots:
        for k in range(4):
            (ax, ay), (bx, by) = slot.polygon[k], slot.polygon[(k + 1) % 4]
            assert any(on_segment(ax, ay, line) and on_segment(bx, by, line) for line in lines)
    # 44 cards on three sheets (18 + 18 + 8): 38 cuts instead of 44 × 4 = 176
    assert plan.cuts(44) < 44
    assert plan_grid(*A4, lozenge(), count=44).cuts(44) == 176


def on_segment(x, y, seg, tol=1e-3):
    x1, y1, x2, y2 = seg
    cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1)
    length = math.hypot(x2 - x1, y2 - y1)
    dot = (x - x1) * (x2 - x1) + (y - y1) * (y2 - y1)
    return abs(cross) / length < tol and -tol <= dot / length <= length + tol


def test_lozenge_bleed_only_on_the_block_outer_edges():
    plan = plan_tessellation(*A4, lozenge())
    inner = [s for s in plan.slots if s.bleed_polygon == s.polygon]
    outer = [s for s in plan.slots if s.bleed_polygon != s.polygon]
    assert inner and outer
    for slot in outer:
        assert area(slot.bleed_polygon) > area(slot.polygon)
        # bleed lies outside the block: it never reaches into another piece's outline
        for other in plan.slots:
            if other is not slot:
                assert not overlap_area_positive(slot.bleed_polygon, other.polygon)


@pytest.mark.parametrize("paper", [A4, A3, (215.9, 279.4), (148, 210)])
@pytest.mark.parametrize("angle", [120, 90, 60])
def test_plan_sheet_never_holds_fewer_lozenges_than_the_grid(paper, angle):
    w = 50.0
    h = w * math.tan(math.radians(angle / 2)) if angle != 90 else 50.0
    card = lozenge(w, h, angle=angle)
    grid = plan_grid(*paper, card, count=44)
    best = plan_sheet(*paper, card, count=44)
    assert best.per_sheet >= grid.per_sheet
    for i, a in enumerate(best.slots):
        for b in best.slots[i + 1:]:
            assert not overlap_area_positive(a.polygon or rect_poly(a.trim), b.polygon or rect_poly(b.trim))


def rect_poly(r):
    return ((r.x, r.y), (r.right, r.y), (r.right, r.bottom), (r.x, r.bottom))


def test_grid_cut_lines_count_shared_cuts_once():
    plan = plan_grid(*A4, POKER)
    assert len(plan.cut_lines()) == 8                   # 4 vertical + 4 horizontal
    assert plan.cuts(36) == 4 * 8
    assert plan.cuts(10) == 8 + len(plan.cut_lines(1)) == 12
    hexagon = CardGeometry(25, 21.651, 2, "", False, tuple(Shape("hexagon").vertices(25, 21.651)))
    hexes = plan_grid(*A4, hexagon, count=42)
    assert hexes.cut_lines() == () and hexes.cuts(42) == 42 * 6


def test_small_components_share_a_sheet_where_their_blocks_fit():
    reference = CardGeometry(88, 63, 3, "", True)
    tokens = CardGeometry(25, 21.651, 2, "", False, tuple(Shape("hexagon").vertices(25, 21.651)))
    pawn = CardGeometry(40, 90, 2, "", True)
    bands = [(band_plan(*A4, reference, 4), 4), (band_plan(*A4, tokens, 42), 42), (band_plan(*A4, pawn, 1), 1),
             (band_plan(*A4, POKER, 36), 36)]
    assert bands[3][0] is None                          # 36 poker cards need more than a sheet
    assert bands[2][0].rotated                          # the pawn lies flat: its block is 44 mm, not 94
    assert share_sheets(bands) == [[0, 2], [1], [3]]    # the pawn joins the reference cards' sheet
    stacked = stack_bands([bands[0], bands[2]])
    top, below = stacked
    assert below.block_bleed.y - top.block_bleed.bottom == pytest.approx(14)
    assert below.block_bleed.bottom <= 297 - 5
    pieces = [s.trim for band in stacked for s in band.slots]
    assert len(pieces) == 5
    for i, a in enumerate(pieces):
        for b in pieces[i + 1:]:
            assert not a.overlaps(b)


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_lozenge_backs_land_behind_their_fronts(duplex):
    plan = plan_tessellation(*A4, lozenge())
    flip = sheet_flip(plan.paper_w, plan.paper_h, duplex)
    for slot in plan.slots:
        back = plan.back_polygon(slot.polygon, duplex, (0, 0))
        assert [v for x, y in back for v in apply(flip, x, y)] == pytest.approx([v for p in slot.polygon for v in p])
        # the back artwork's outline (its trim inside the art box) covers exactly that polygon
        art = transform_rect(plan.back_transform(slot, duplex, (0, 0)), Rect(0, 0, 56, 92.603))
        xs = [x for x, _ in back]
        ys = [y for _, y in back]
        assert art.x + 3 == pytest.approx(min(xs)) and art.y + 3 == pytest.approx(min(ys))
