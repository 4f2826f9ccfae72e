"""Cut marks and the footer print: on every shipped game's sheets, on A4, A3 and US Letter,
every tick and the footer text lie inside the printable area (the paper less ``--margin``).

US Letter is 279.4 mm tall: three 88 mm rows leave 15.4 mm, most of it the 5 mm margins a
printer cannot print, so ticks and footer drawn there came out missing (no column cut marks,
no "fronts/backs" line). Pure geometry: the marks are drawn on a canvas that records them.
"""

from __future__ import annotations

import pytest

import cardgen
from cardgen.build.options import BuildOptions
from cardgen.build.plan import band_plan_of, card_geometry, print_jobs
from cardgen.imposition import MARK_ROOM, ImpositionError, plan_sheet, plan_tessellation, stack_bands
from cardgen.pdfcontent import K
from cardgen.pdfmarks import (MIN_MARK_GAP, MIN_PRINTED_TICK, SideFooter, back_footer_baseline,
                              draw_footer, draw_ticks, footer_baseline, marks_missing)

GAMES = ("qcd", "particle-builder", "particles-in-circle", "tutti-quantum")
TOL = 1e-6


class Recorder:
    """A canvas that keeps what is drawn on it."""

    def __init__(self, w: float, h: float) -> None:
        self.w, self.h = w, h
        self.segments: list[tuple[float, float, float, float]] = []
        self.texts: list[tuple[float, float, float, str, bool]] = []

    def lines(self, segments, width_pt, gray=0.0) -> None:
        self.segments.extend(segments)

    def text(self, x, y, size_pt, text, *, vertical=False) -> None:
        self.texts.append((x, y, size_pt, text, vertical))

    def text_width(self, size_pt, text) -> float:
        return 0.6 * size_pt / K * len(text)   # wide enough: real glyphs average less


def sheets_of(game_id: str, paper: str, margin: float = 5.0, bleed: float | None = None):
    """Each sheet layout of a game's build: (plans with the pieces each prints, whether shared)."""
    game = cardgen.load_game(game_id)
    options = BuildOptions(paper=paper, margin=margin, bleed=bleed)
    sheet = options.sheet()
    for job in print_jobs(game, None, options):
        if job.members:
            counts = [c.total * options.sets for c in job.members]
            plans = stack_bands([(band_plan_of(c, sheet, options), n) for c, n in zip(job.members, counts)],
                                margin=margin)
            yield job.id, list(zip(plans, counts))
            continue
        count = job.comp.total * options.sets
        try:
            plan = plan_sheet(sheet.width, sheet.height, card_geometry(job.comp), margin=margin,
                              bleed=bleed, paper_label=sheet.label, count=count)
        except ImpositionError:
            continue   # tiled (a game mat): crop ticks of their own
        yield job.id, [(plan, min(count, plan.per_sheet))] + (
            [(plan, count % plan.per_sheet)] if count > plan.per_sheet and count % plan.per_sheet else [])


def check_inside(canvas: Recorder, w: float, h: float, m: float, what: str) -> None:
    for x1, y1, x2, y2 in canvas.segments:
        assert m - TOL <= min(x1, x2) and max(x1, x2) <= w - m + TOL, f"{what}: tick {x1, y1, x2, y2} in the margin"
        assert m - TOL <= min(y1, y2) and max(y1, y2) <= h - m + TOL, f"{what}: tick {x1, y1, x2, y2} in the margin"
    for x, y, size_pt, text, vertical in canvas.texts:
        size, length = size_pt / K, canvas.text_width(size_pt, text)
        if vertical:   # reading bottom to top from (x, y), ascenders to the left of the baseline
            box = (x - 0.75 * size, y - length, x + 0.25 * size, y)
        else:
            box = (x, y - 0.75 * size, x + length, y + 0.25 * size)
        assert m - TOL <= box[0] and box[2] <= w - m + TOL, f"{what}: footer {text!r} {box} in the margin"
        assert m - TOL <= box[1] and box[3] <= h - m + TOL, f"{what}: footer {text!r} {box} in the margin"


@pytest.mark.parametrize("paper", ["a4", "a3", "letter"])
@pytest.mark.parametrize("game_id", GAMES)
def test_every_tick_and_footer_lies_inside_the_printable_area(game_id, paper):
    footer = "Particles in Circle · cards · sheet 1/8 · fronts"
    no_room: list[str] = []
    for job, bands in sheets_of(game_id, paper):
        first = bands[0][0]
        w, h, m = first.paper_w, first.paper_h, first.margin
        lowest = max((p for p, _ in bands), key=lambda p: p.block_bleed.bottom)
        footer_y = footer_baseline(lowest)
        if footer_y is None:   # no footer rather than one in the margin, where it would not print
            no_room.append(job)
        canvas = Recorder(w, h)
        for plan, used in bands:
            draw_ticks(canvas, plan, footer_y, used)
            assert not marks_missing(plan, footer_y, used), f"{game_id}/{job} on {paper}: a cut has no tick"
        draw_footer(canvas, footer, footer_y, min(p.block_bleed.x for p, _ in bands), 1, 1, "fronts")
        art = lowest.block_bleed
        for duplex in ("long", "short"):
            back_y = back_footer_baseline(h, min(p.block_bleed.y for p, _ in bands), art.bottom, duplex, 0.0,
                                          footer_y)
            draw_footer(canvas, footer, back_y, art.x, 1, 1, "backs")
        check_inside(canvas, w, h, m, f"{game_id}/{job} on {paper}")
    # every layout has room for its footer (Tutti Quantum's lozenges filled Letter's printable
    # area: the planner now keeps a band below them when that costs no sheet)
    assert no_room == [], no_room


def test_column_cuts_on_letter_get_ticks_and_the_footer_moves_to_the_side():
    """3 × 3 poker cards on Letter: the outer bleed gives way to printable ticks above and
    below every column cut, and the footer, with no room under them, goes in the side margin."""
    (_, bands), = [s for s in sheets_of("qcd", "letter") if s[0] == "cards"][:1]
    plan = bands[0][0]
    assert (plan.cols, plan.rows, plan.paper_h) == (3, 3, 279.4)
    blk = plan.block_bleed
    assert blk.y - plan.margin >= MARK_ROOM - TOL and plan.paper_h - plan.margin - blk.bottom >= MARK_ROOM - TOL
    footer_y = footer_baseline(plan)
    assert isinstance(footer_y, SideFooter)
    canvas = Recorder(plan.paper_w, plan.paper_h)
    draw_ticks(canvas, plan, footer_y)
    for x in plan.cut_xs:
        ends = [s for s in canvas.segments if s[0] == s[2] == x]
        assert len(ends) == 2 and all(abs(s[3] - s[1]) >= MIN_PRINTED_TICK - TOL for s in ends)
    assert MARK_ROOM == MIN_MARK_GAP + MIN_PRINTED_TICK


def test_a4_poker_cards_keep_their_full_bleed_and_bottom_footer():
    (_, bands), = [s for s in sheets_of("qcd", "a4") if s[0] == "cards"][:1]
    plan = bands[0][0]
    assert plan.bleed == 3.0
    footer_y = footer_baseline(plan)
    assert not isinstance(footer_y, SideFooter) and footer_y > plan.block_bleed.bottom


def test_a_tiles_crop_ticks_print_where_the_paper_lets_them():
    """The mat's tiles reach the margin: their corner ticks ran 1–4 mm from the paper's edge,
    where no printer prints. Ticks now stay inside the margin, on the sides that have room."""
    from cardgen.imposition import Rect
    from cardgen.pdfmarks import draw_crop_ticks

    w, h, m = 297.0, 210.0, 5.0                      # A4 landscape, as Particle Builder's mat tiles print
    area = Rect(5.0, 10.0, 285.0, 195.0)             # x 5–290, y 10–205: left and bottom on the margin
    canvas = Recorder(w, h)
    draw_crop_ticks(canvas, area, m)
    check_inside(canvas, w, h, m, "mat tile")
    vertical = [s for s in canvas.segments if s[0] == s[2]]
    horizontal = [s for s in canvas.segments if s[1] == s[3]]
    assert {s[0] for s in vertical} == {5.0, 290.0} and all(max(s[1], s[3]) <= 10.0 for s in vertical)
    assert {s[1] for s in horizontal} == {10.0, 205.0} and all(min(s[0], s[2]) >= 290.0 for s in horizontal)


@pytest.mark.parametrize("game_id", ["particle-builder", "particles-in-circle", "qcd"])
def test_a_backs_page_gets_its_footer_where_the_fronts_page_does(game_id):
    """US Letter without bleed: the fronts' footer fitted below the cards, and every backs page,
    whose cards cover the same band, lost its footer (it kept a whole text size clear of them
    where the fronts keep their ascent)."""
    for job, bands in sheets_of(game_id, "letter", bleed=0.0):
        plan = bands[0][0]
        footer_y = footer_baseline(plan)
        if footer_y is None:
            continue
        art = plan.block_bleed
        for duplex in ("long", "short"):
            back = back_footer_baseline(plan.paper_h, art.y, art.bottom, duplex, 0.0, footer_y)
            assert back is not None, f"{game_id}/{job} ({duplex}): no footer on the backs"


def test_print_and_cut_sheets_keep_their_footer_below_the_block():
    """With --cut-file the layout's margin holds the registration squares, and Tutti Quantum's
    lozenge sheets lost their footer on every page; it prints in the paper's printable band
    below the block, clear of the squares (they sit off the block's corners)."""
    from cardgen.imposition import REGISTRATION_GAP, REGISTRATION_SIZE

    game = cardgen.load_game("tutti-quantum")
    comp = game.components["particles"]
    room = REGISTRATION_SIZE + REGISTRATION_GAP
    # the rows as they fill the layout's margin (no band kept below them)
    plan = plan_tessellation(210, 297, card_geometry(comp), margin=5 + room, bleed=None, paper_label="A4")
    assert footer_baseline(plan) is None   # none inside the layout's own margin
    footer_y = footer_baseline(plan, 5.0)
    assert footer_y is not None
    canvas = Recorder(210, 297)
    draw_footer(canvas, "Tutti Quantum · Particle cards · en", footer_y, plan.block_bleed.x, 1, 3, "fronts")
    check_inside(canvas, 210, 297, 5.0, "print and cut")
    (x, y, size_pt, _text, _v), = canvas.texts
    for square in plan.registration_marks():   # clear of every registration square
        assert x > square.right or y - 0.75 * size_pt / K > square.bottom or y + 0.25 * size_pt / K < square.y


def test_interlocking_rows_keep_a_band_for_the_footer_when_it_costs_no_sheet():
    """Tutti Quantum's 18 lozenges filled US Letter's printable area: every page printed without
    its footer. The rows now leave a band below them, with the same 18 pieces a sheet."""
    from cardgen.imposition import FOOTER_ROOM

    comp = cardgen.load_game("tutti-quantum").components["particles"]
    full = plan_tessellation(215.9, 279.4, card_geometry(comp), margin=5, bleed=None, paper_label="Letter")
    kept = plan_sheet(215.9, 279.4, card_geometry(comp), margin=5, bleed=None, paper_label="Letter", count=44)
    assert footer_baseline(full) is None and footer_baseline(kept) is not None
    assert kept.per_sheet == full.per_sheet == 18
    assert kept.paper_h - kept.margin - kept.block_bleed.bottom >= FOOTER_ROOM - TOL
