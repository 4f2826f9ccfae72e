"""Right-to-left rule sheets mirror as one: column headers over their cells at the start (right)
edge, headings and paragraphs right-aligned; table cells never run past their cell unreported;
formulas print in their own order. Measured on the rendered pages (glyph extents in mm, from
the placements the PDF is drawn and its text layer written from) and the laid-out items."""

from __future__ import annotations

import re

import pytest

import cardgen
from cardgen import i18n, sheetlayout, sheets
from cardgen.fitcheck import issue_finding
from cardgen.render import Renderer
from cardgen.text import TextEngine

SheetW = sheetlayout.SheetLayout("ar", 210, 297, lambda m, c=None: m, True)
MARKS = re.compile("[\u2066-\u2069\u200e\u200f]")
W, H = 210.0, 297.0


@pytest.fixture(scope="module")
def pb_ar():
    game = cardgen.load_game("particle-builder")
    tr = i18n.translator(game, "ar")
    renderer = Renderer(game, "ar", translate=tr)
    results = sheets.sheet_faces(game, "rules", renderer, W, H)
    pages = sheets.sheet_pages(game, "rules", "ar", W, H, tr, None)
    return game, tr, results, pages


class Run:
    """Where a text item's glyphs print: left and right edge and baseline (mm), laid out with
    the options the sheet template passes the renderer's text()."""

    def __init__(self, it: dict, lang: str = "ar") -> None:
        res = TextEngine.default().layout(it["s"], size=it["size"], width=it["w"], height=it["h"],
                                          weight=it["weight"], lang=lang, align=it["align"], valign="middle",
                                          min_size=it["min_size"], direction=it.get("direction"))
        self.text, self.size = it["s"], res.size
        self.x = it["x"] + min(line.x for line in res.lines)
        self.right = it["x"] + max(line.x + line.width_mm for line in res.lines)
        self.y = it["y"] + res.lines[0].baseline


def _runs(items):
    return [(MARKS.sub("", it["s"]), Run(it)) for it in items if it["kind"] == "text"]


def _decay_page(pb_ar):
    _game, tr, _results, pages = pb_ar
    for items in pages:
        texts = [t for t, _r in _runs(items)]
        if any(t == tr("becomes", None) for t in texts) and any("W W*" in t for t in texts):
            return tr, items
    raise AssertionError("no page with the Level 7 decay table")


def test_headers_and_cells_share_the_start_edge_of_their_column(pb_ar) -> None:
    """'roll' sat at x=439–458 pt over values at 507–521 pt: the header was aligned left (an
    Arabic text's 'end'), the die faces right (digits' 'end'). Every column's header and
    cells now end at the column's right edge (within 0.3 mm)."""
    tr, items = _decay_page(pb_ar)
    runs = _runs(items)
    header_y = next(r.y for t, r in runs if t == tr("roll", None))
    heads = {t: r for t, r in runs if abs(r.y - header_y) < 0.3}
    roll, becomes = heads[tr("roll", None)], heads[tr("becomes", None)]
    faces = [r for t, r in runs if re.fullmatch(r"↳? ?\d(–\d)?", t.strip()) and r.y > header_y]
    assert len(faces) >= 10
    for r in faces:
        assert abs(r.right - roll.right) < 0.3, (r.text, r.right, roll.right)
    no_change = [r for t, r in runs if t == tr("no change", None)]
    assert no_change
    for r in no_change:
        assert abs(r.right - becomes.right) < 0.3, (r.right, becomes.right)
    # columns run right to left: particle, roll, becomes
    particle = heads[tr("particle", None)]
    assert particle.right > roll.right > becomes.right


def test_titles_headings_and_paragraphs_align_right(pb_ar) -> None:
    game, tr, _results, pages = pb_ar
    edge = W - sheetlayout.MARGIN
    for items in pages:
        titles = [r for t, r in _runs([it for it in items if it.get("field") in ("section title", "paragraph")])]
        assert titles
        for r in titles:
            # flush with the right margin (a footnote's or bullet's text: beside its mark)
            assert any(e - 0.3 < r.right <= e + 0.01 for e in (edge, edge - 6)), (r.text, r.right)


def test_a_long_cell_stays_inside_its_table(pb_ar) -> None:
    """The τ row for a roll of 2 ran from x=67.6 mm, past the table's shading at 78.0 mm. Its
    runs now shrink into the cell; every glyph of the decay table lies within the table."""
    _game, _tr, _results, pages = pb_ar
    from collections import Counter

    items = max(pages, key=lambda page: max(Counter(round(it["y"], 1) for it in page if it["kind"] == "sym").values(),
                                            default=0))
    rules = [it for it in items if it["kind"] == "rule"]
    rows: dict[float, list] = {}
    for it in items:
        if it["kind"] == "sym":   # a particle symbol: its width as the renderer's symbol() sets it
            rows.setdefault(round(it["y"], 1), []).append((it["x"], it["x"] + SheetW.sym_width(it["sym"], it["size"])))
    y = max(rows, key=lambda k: len(rows[k]))
    longest = rows[y]          # the τ row of three options, twenty-one symbols (and two 'or')
    longest += [(r.x, r.right) for it in items if it["kind"] == "text" and it.get("field") == "cell"
                for r in [Run(it)] if abs(r.y - y) < 1.0]
    assert len(longest) >= 23
    table = min((rl for rl in rules if rl["y"] < y), key=lambda rl: y - rl["y"])
    assert min(x for x, _r in longest) >= table["x"] - 0.01, (min(x for x, _r in longest), table["x"])
    assert max(r for _x, r in longest) <= table["x"] + table["w"] + 0.01


def test_a_cell_that_cannot_fit_is_reported_as_a_text_fit_error(monkeypatch) -> None:
    """Runs that do not fit their cell even shrunk are a text issue like a card's, and the
    finding a build stops with names the catalog entry of the cell's translated text."""
    monkeypatch.setattr(sheetlayout, "CELL_MIN_SCALE", 0.97)
    game = cardgen.load_game("particle-builder")
    tr = i18n.translator(game, "ar")
    result = sheets.render_sheet(game, "rules", "ar", W, H, tr, None, "t", None)
    cells = [i for i in result.issues if i.field == "cell" and i.kind == "overflow"]
    assert cells and all(i.component == "rules" and i.card.startswith("page-") for i in cells)
    finding = issue_finding(game, next(i for i in cells if i.text == tr("or", None)))
    assert finding.rule == "text-fit" and "msgid 'or'" in finding.message


def _visual(text: str, lang: str = "ar") -> str:
    """The characters of ``text`` in the order they print, left to right, as the template
    lays a right-to-left item out (a bracket in a right-to-left run prints mirrored)."""
    res = TextEngine.default().layout(text, size=3.0, lang=lang, direction="rtl")
    out = []
    for line in res.lines:
        for run in line.runs:
            for g in run.glyphs:
                ch = res.text[g.cluster]
                if run.rtl:
                    ch = {"(": ")", ")": "("}.get(ch, ch)
                out.append((line.x + g.x, ch))
    return "".join(ch for _x, ch in sorted(out) if not ch.isspace() and not MARKS.match(ch))


def test_a_formula_prints_in_its_own_order_in_an_arabic_sentence(pb_ar) -> None:
    """'(H → W W*)' printed as '(*H → W W)': the star that marks W as virtual moved to H."""
    _game, _tr, _results, pages = pb_ar
    items = [it for page in pages for it in page if it["kind"] == "text" and "W W*" in it["s"]]
    assert items and all(it["direction"] == "rtl" for it in items)
    for it in items:
        assert "(H→WW*)" in _visual(it["s"])
    ranges = [it for page in pages for it in page if it["kind"] == "text" and MARKS.sub("", it["s"]) == "1–2"]
    assert ranges and all(_visual(it["s"]) == "1–2" for it in ranges)
