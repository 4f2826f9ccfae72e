"""Class sets, shaped packing, cut guides and the words for a teacher, read back from built PDFs."""

import json
import math
import re
from collections import Counter
from pathlib import Path

import pdfplumber
import pikepdf
import pytest

import cardgen
from cardgen.sheets import SHEETS
from cardgen import setmark
from cardgen.build import BuildOptions, _band_plan, _geometry, build, job_marks, print_jobs
from cardgen.imposition import apply, plan_sheet, stack_bands
from cardgen.paper import PT_PER_MM, parse_paper

K = float(PT_PER_MM)


@pytest.fixture(scope="module")
def three_sets(tmp_path_factory):
    out = tmp_path_factory.mktemp("sets3")
    games = [cardgen.load_game("tutti-quantum"), cardgen.load_game("particle-builder")]
    build(games, BuildOptions(out=out, sets=3), jobs=1)
    return out


@pytest.fixture(scope="module")
def one_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("sets1")
    games = [cardgen.load_game("tutti-quantum"), cardgen.load_game("particle-builder")]
    build(games, BuildOptions(out=out), jobs=1)
    return out


def manifest(folder: Path) -> dict:
    return {f["component"]: f for f in json.loads((folder / "manifest.json").read_text())["files"]}


def plan_for(comp, count, paper=(210.0, 297.0)):
    return plan_sheet(*paper, _geometry(comp), margin=5.0, paper_label="A4", count=count)


def glyph_box_centre(mark) -> tuple[float, float]:
    """Where the middle of a set glyph's bounding box lies from the mark's point (mm): a
    polygon's corners are on a circle about the point, so a triangle's box sits higher."""
    path = setmark.glyph_path(mark.glyph, mark.size / 2)
    if not re.fullmatch(r"M[-\d. L]+Z", path):   # arcs, or lines along the axes: symmetric
        return 0.0, 0.0
    points = [(float(x), float(y)) for x, y in re.findall(r"(-?[\d.]+) (-?[\d.]+)", path)]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def mark_signatures(pdf_path: Path, comp, plan, marks, pages) -> list[tuple]:
    """For every piece on the given pages: the shape drawn where its set glyph must be
    (kind of object and corner count), read with pdfplumber from the page's objects."""
    size = marks[0].size
    found = []
    with pdfplumber.open(pdf_path) as pdf:
        for page_no in pages:
            page = pdf.pages[page_no]
            shapes = [o for o in page.rects + page.curves + page.lines]
            sheet_index = page_no // 2
            for slot in plan.slots:
                piece = sheet_index * plan.per_sheet + slot.index
                if piece >= len(marks) * comp.total:
                    break
                mark = marks[piece // comp.total]
                dx, dy = glyph_box_centre(mark)
                x, y = apply(plan.front_transform(slot), mark.x + dx + comp.bleed, mark.y + dy + comp.bleed)
                near = [o for o in shapes
                        if abs((o["x0"] + o["x1"]) / 2 / K - x) < 0.6 and abs((o["top"] + o["bottom"]) / 2 / K - y) < 0.6
                        and 0.75 * size < (o["x1"] - o["x0"]) / K < 1.35 * size]
                assert near, f"no set glyph at {x:.1f}, {y:.1f} mm on page {page_no + 1}"
                # a piece on the block's edge is drawn twice (its outer bleed, then itself): one glyph
                found.append(tuple(sorted({(o["object_type"], len(o.get("pts") or ())) for o in near})))
    return found


def test_three_sets_carry_three_distinct_marks_on_every_front(three_sets):
    game = cardgen.load_game("tutti-quantum")
    comp = game.components["particles"]
    folder = three_sets / "tutti-quantum/en"
    files = manifest(folder)
    assert files["particles"]["cards"] == 3 * 44 and files["particles"]["sets"] == 3
    job = next(j for j in print_jobs(game, None) if j.id == "particles")
    marks = job_marks(game, job, 3)
    assert [m.set for m in marks] == [1, 2, 3] and len({m.glyph for m in marks}) == 3
    plan = plan_for(comp, 3 * 44)
    sheets = math.ceil(3 * 44 / plan.per_sheet)
    signatures = mark_signatures(folder / "particles.pdf", comp, plan, marks, range(0, 2 * sheets, 2))
    assert len(signatures) == 3 * 44
    by_set = [Counter(signatures[i * 44:(i + 1) * 44]) for i in range(3)]
    assert all(len(c) == 1 for c in by_set)                  # one mark per set...
    assert len({next(iter(c)) for c in by_set}) == 3         # ...and three different ones


def test_level_five_extras_and_the_spare_set_carry_set_and_level_marks(three_sets):
    game = cardgen.load_game("particle-builder")
    folder = three_sets / "particle-builder/en"
    files = manifest(folder)
    assert files["particles-spare"]["spare_of"] == "particles"
    assert files["particles-spare"]["cards"] == 3 * 36 and files["particles-spare"]["level_mark"] == 5
    assert files["level5-extra"]["level_mark"] == 5 and files["level7-extra"]["level_mark"] == 7
    assert files["particles"]["level_mark"] is None and files["colour-tokens"]["level_mark"] is None
    for job_id in ("level5-extra", "particles-spare"):
        job = next(j for j in print_jobs(game, None) if j.id == job_id)
        comp = job.comp
        marks = job_marks(game, job, 3)
        assert all(m.level == 5 for m in marks)
        plan = plan_for(comp, 3 * comp.total)
        sheets = math.ceil(3 * comp.total / plan.per_sheet)
        signatures = mark_signatures(folder / f"{job_id}.pdf", comp, plan, marks, range(0, 2 * sheets, 2))
        assert len(set(signatures)) == 3
        # the level badge sits beside the glyph: a rectangle "5+" in its own place
        with pdfplumber.open(folder / f"{job_id}.pdf") as pdf:
            page = pdf.pages[0]
            slot = plan.slots[0]
            lx, ly = apply(plan.front_transform(slot), marks[0].for_template()["level_x"] + comp.bleed,
                           marks[0].for_template()["level_y"] + comp.bleed)
            badges = [o for o in page.rects + page.curves
                      if abs((o["x0"] + o["x1"]) / 2 / K - lx) < 0.5 and abs((o["top"] + o["bottom"]) / 2 / K - ly) < 0.5
                      and (o["x1"] - o["x0"]) / K > 1.3 * marks[0].size]
            assert badges


def test_sheets_and_cuts_in_the_manifest_follow_the_sets(three_sets, one_set):
    for game_id in ("tutti-quantum", "particle-builder"):
        game = cardgen.load_game(game_id)
        for sets, folder in ((1, one_set), (3, three_sets)):
            files = manifest(folder / game_id / "en")
            printed = Counter()
            for f in files.values():
                if f["component"] in SHEETS:        # the rule sheet and answer key hold no pieces
                    continue
                parts = f["members"] or [f["spare_of"] or f["component"]]
                assert f["cards"] == sets * sum(game.components[c].total for c in parts)
                printed.update(c for c in parts if not f["spare_of"])
                if f["cards_per_sheet"]:
                    assert f["sheets"] == math.ceil(f["cards"] / f["cards_per_sheet"])
                    assert f["pages"] == f["sheets"] * (2 if f["double_sided"] else 1)
                else:                               # tiled: one page per tile, tiles per copy
                    assert f["sheets"] == f["pages"] and f["pages"] % sets == 0
                assert f["cuts"] > 0
            assert printed == Counter(list(game.components))   # every component printed, once
    text = (three_sets / "particle-builder/en/PRINTING.txt").read_text()
    total = sum(f["sheets"] for f in manifest(three_sets / "particle-builder/en").values())
    assert f"Sheets of paper: {total} in all, for 3 set(s) of the game." in text
    assert "Class sets: every piece carries its set's mark on both sides" in text
    assert "1 ○, 2 □, 3 △" in text


def test_a_single_set_has_no_set_mark_but_keeps_level_marks(one_set):
    game = cardgen.load_game("particle-builder")
    marks = {j.id: job_marks(game, j, 1) for j in print_jobs(game, None)}
    assert marks["particles"] == [None] and marks["targets"] == [None]
    assert marks["level5-extra"][0].set is None and marks["level5-extra"][0].level == 5
    text = (one_set / "particle-builder/en/PRINTING.txt").read_text()
    assert "Class sets" not in text


def test_tutti_lozenges_interlock_sixteen_or_more_per_a4_sheet_without_overlap(one_set):
    """Read the pieces back from the PDF: every face drawn inside a polygon clip is a lozenge."""
    pdf = pikepdf.open(one_set / "tutti-quantum/en/particles.pdf")
    polygons = clip_polygons(pdf.pages[0])
    # a piece on the block's edge is clipped twice (its outer bleed, then its outline): keep outlines
    outlines = [p for p in dict.fromkeys(polygons) if abs(area(p) - 50 * 86.603 / 2) < 2]
    assert len(outlines) >= 16
    for i, a in enumerate(outlines):
        for b in outlines[i + 1:]:
            assert not interiors_overlap(a, b)
    files = manifest(one_set / "tutti-quantum/en")
    assert files["particles"]["cards_per_sheet"] >= 16
    assert files["particles"]["cuts"] < 44 * 4 / 2       # shared straight cuts: under half of 176
    assert "interlocking rows" in files["particles"]["layout"]


def clip_polygons(page) -> list[tuple]:
    """Polygons given to 'W n' (clips) in a page's own content stream, in mm, y down."""
    h = float(page.MediaBox[3])
    out, path = [], []
    for operands, op in pikepdf.parse_content_stream(page):
        name = str(op)
        if name == "m":
            path = [(float(operands[0]), float(operands[1]))]
        elif name == "l" and path:
            path.append((float(operands[0]), float(operands[1])))
        elif name == "W" and len(path) >= 3:
            out.append(tuple((x / K, (h - y) / K) for x, y in path))
            path = []
        elif name in ("n", "re"):
            path = [] if name == "re" else path
    return out


def area(poly) -> float:
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]))) / 2


def interiors_overlap(p, q) -> bool:
    for poly in (p, q):
        for k in range(len(poly)):
            (ax, ay), (bx, by) = poly[k], poly[(k + 1) % len(poly)]
            nx, ny = by - ay, -(bx - ax)
            pa = [x * nx + y * ny for x, y in p]
            qa = [x * nx + y * ny for x, y in q]
            tol = 1e-3 * math.hypot(nx, ny)
            if max(pa) <= min(qa) + tol or max(qa) <= min(pa) + tol:
                return False
    return True


def stroked_segments(page) -> list[tuple[float, float, float, float, float]]:
    """Straight segments stroked by the page's own content (not inside card faces): x1, y1,
    x2, y2 in mm (y down) and the line width in points."""
    h = float(page.MediaBox[3])
    segs, current, width = [], None, 1.0
    pending = []
    for operands, op in pikepdf.parse_content_stream(page):
        name = str(op)
        if name == "w":
            width = float(operands[0])
        elif name == "m":
            current = (float(operands[0]), float(operands[1]))
        elif name == "l" and current is not None:
            nxt = (float(operands[0]), float(operands[1]))
            pending.append((current, nxt))
            current = nxt
        elif name == "S":
            for (x1, y1), (x2, y2) in pending:
                segs.append((x1 / K, (h - y1) / K, x2 / K, (h - y2) / K, width))
            pending = []
        elif name in ("f", "n", "W", "h", "B"):
            pending = [] if name != "h" else pending
    return segs


def strictly_inside(poly, x, y, margin=0.05) -> bool:
    """(x, y) inside the convex polygon and farther than `margin` mm from its edges."""
    n = len(poly)
    cx, cy = sum(p[0] for p in poly) / n, sum(p[1] for p in poly) / n
    for k in range(n):
        (ax, ay), (bx, by) = poly[k], poly[(k + 1) % n]
        nx, ny = by - ay, -(bx - ax)
        length = math.hypot(nx, ny)
        side = ((x - ax) * nx + (y - ay) * ny) / length
        centre = ((cx - ax) * nx + (cy - ay) * ny) / length
        if side * math.copysign(1, centre) < margin:
            return False
    return True


def trim_polygons(plan):
    return [s.polygon or ((s.trim.x, s.trim.y), (s.trim.right, s.trim.y), (s.trim.right, s.trim.bottom),
                          (s.trim.x, s.trim.bottom)) for s in plan.slots]


@pytest.mark.parametrize("game_id,comp_id", [("tutti-quantum", "particles"), ("particle-builder", "particles"),
                                             ("tutti-quantum", "score-tokens"), ("tutti-quantum", "reference+pawn"),
                                             ("particle-builder", "colour-tokens")])
def test_no_cut_guide_crosses_a_piece(one_set, game_id, comp_id):
    game = cardgen.load_game(game_id)
    if "+" in comp_id:
        comps = [game.components[c] for c in comp_id.split("+")]
        bands = stack_bands([(_band_plan(c, parse_paper("a4"), BuildOptions()), c.total) for c in comps])
        trims = [t for band in bands for t in trim_polygons(band)]
        plan = bands[0]
    else:
        plan = plan_for(game.components[comp_id], game.components[comp_id].total)
        trims = trim_polygons(plan)
    pdf = pikepdf.open(one_set / game_id / "en" / f"{comp_id}.pdf")
    segs = stroked_segments(pdf.pages[0])
    assert segs
    for x1, y1, x2, y2, _width in segs:
        for t in [i / 40 for i in range(41)]:
            x, y = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
            assert not any(strictly_inside(p, x, y) for p in trims), (x1, y1, x2, y2)
    if comp_id == "particles" and game_id == "tutti-quantum":
        hairlines = [s for s in segs if s[4] < 0.3]
        assert len(hairlines) == len(plan.cut_lines())     # one hairline per shared cut line, on it


def test_every_font_in_every_pdf_is_embedded(one_set, three_sets):
    checked = 0
    for path in list(one_set.rglob("*.pdf")) + list(three_sets.rglob("*.pdf")):
        with pikepdf.open(path) as pdf:
            for page in pdf.pages:
                for font in fonts_of(page.obj.get("/Resources")):
                    checked += 1
                    assert embedded(font), f"{path.name}: font {font.get('/BaseFont')} is not embedded"
    assert checked > 0


def fonts_of(resources, seen=None):
    seen = seen if seen is not None else set()
    if resources is None or resources.objgen in seen and resources.objgen != (0, 0):
        return
    seen.add(resources.objgen)
    for font in (resources.get("/Font") or {}).values():
        yield font
    for xobj in (resources.get("/XObject") or {}).values():
        if xobj.get("/Subtype") == "/Form":
            yield from fonts_of(xobj.get("/Resources"), seen)


def embedded(font) -> bool:
    if font.get("/Subtype") == "/Type3":
        return "/CharProcs" in font and len(font.CharProcs) > 0
    if font.get("/Subtype") == "/Type0":
        font = font.DescendantFonts[0]
    desc = font.get("/FontDescriptor")
    return desc is not None and any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3"))


def test_footers_and_tile_labels_are_translated_and_clear_of_the_ticks(tmp_path):
    game = cardgen.load_game("particle-builder")
    build([game], BuildOptions(out=tmp_path, lang="de", level=1), jobs=1)
    folder = tmp_path / "particle-builder/de"
    mat = pikepdf.open(folder / "mat.pdf")
    with pdfplumber.open(folder / "mat.pdf") as pdf:
        names = ["A1", "A2", "B1", "B2"] * game.components["mat"].total   # each 560 × 380 mm mat on A4: 2 × 2 equal tiles
        assert len(pdf.pages) == len(names) == 12
        for n, page in enumerate(pdf.pages):
            text = page.extract_text()
            assert f"Kachel {names[n]} von 2×2" in text
            assert "tile" not in text
            if names[n].endswith("1"):
                assert f"{names[n][0]}2 kommt rechts daneben" in text
                turned = sorted((c for c in page.chars if not c["upright"]), key=lambda c: -c["top"])
                assert "".join(c["text"] for c in turned) == "Hier kleben"     # reads bottom to top
            label = next(w for w in page.extract_words() if w["text"].startswith("Kachel"))
            line = [w for w in page.extract_words() if abs(w["top"] - label["top"]) < 1]
            box = (min(w["x0"] for w in line) / K, label["top"] / K, max(w["x1"] for w in line) / K,
                   label["bottom"] / K)
            # inside the printable area (5 mm margins), not in the margin under the crop ticks
            assert box[1] > 5 and box[3] < 297 - 5
            for x1, y1, x2, y2, _w in stroked_segments(mat.pages[n]):
                assert not (min(x1, x2) < box[2] and max(x1, x2) > box[0] - 0.5
                            and min(y1, y2) < box[3] + 0.5 and max(y1, y2) > box[1] - 0.5), (x1, y1, x2, y2)
    with pdfplumber.open(folder / "particles.pdf") as pdf:
        assert "Teilchenkarten" in pdf.pages[0].extract_text() or "Bogen 1/4 · Vorderseiten" in pdf.pages[0].extract_text()
        assert "Bogen 1/4 · Rückseiten" in pdf.pages[1].extract_text()


def test_arabic_footer_is_shaped_from_the_bundled_fonts(tmp_path):
    game = cardgen.load_game("qcd")
    build([game], BuildOptions(out=tmp_path, lang="ar"), jobs=1)
    with pikepdf.open(tmp_path / "qcd/ar/cards.pdf") as pdf:
        fonts = list(fonts_of(pdf.pages[0].obj.Resources))
        assert fonts and all(f.Subtype == "/Type3" for f in fonts)
    with pdfplumber.open(tmp_path / "qcd/ar/cards.pdf") as pdf:
        text = pdf.pages[0].extract_text()
        assert "الوجوه"[::-1] in text          # glyphs sit in visual (right-to-left) order


def test_printing_txt_tells_sides_pages_cuts_and_the_bleed_choice_once(one_set):
    text = (one_set / "particle-builder/en/PRINTING.txt").read_text()
    assert "does not fit" not in text
    choice = ("Cards edge to edge with shared cuts: one cut separates two neighbours and saves paper, but each "
              "card has no bleed of its own. For a bleed around every card, ask for space between the cards with "
              "--gutter 1 (fewer cards per sheet).")
    assert text.count(choice) == 1
    blocks = {}
    for line in text.splitlines():
        if not line.startswith(" ") and ".pdf:" in line:
            current = line.split(":")[0]
            blocks[current] = []
        elif line.startswith("    ") and blocks:
            blocks[current].append(line.strip())
    double = "Double-sided: odd pages (1, 3, …) are fronts, even pages (2, 4, …) are their backs."
    single = "Single-sided: every page is a front."
    assert double in blocks["particles.pdf"] and double in blocks["targets.pdf"]
    assert single in blocks["mat.pdf"] and single in blocks["colour-tokens.pdf"]
    files = manifest(one_set / "particle-builder/en")
    assert f"Cut: {files['particles']['cuts']} straight cuts (guillotine or ruler) from tick to tick." in blocks["particles.pdf"]
    assert any(s.startswith("Tiled: first lay the pages out as the label under each page says") for s in blocks["mat.pdf"])
    assert any(s.startswith("Cut out each piece along its grey outline") for s in blocks["colour-tokens.pdf"])
    assert 'Marked "5+": needed from level 5 on; keep these apart from the base set.' in blocks["particles-spare.pdf"]
    tq = (one_set / "tutti-quantum/en/PRINTING.txt").read_text()
    tq_files = manifest(one_set / "tutti-quantum/en")
    assert (f"Cut: {tq_files['particles']['cuts']} straight cuts along the grey lines, each line from tick to tick "
            "across the sheet; neighbouring pieces share every cut.") in tq
    assert f"Sheets of paper: {sum(f['sheets'] for f in tq_files.values())} in all, for 1 set(s) of the game." in tq


def test_glyphs_are_distinct_for_every_set_number():
    seen = {setmark.glyph_for(n) for n in range(1, setmark.MAX_SETS + 1)}
    assert len(seen) == setmark.MAX_SETS
    with pytest.raises(ValueError):
        setmark.glyph_for(setmark.MAX_SETS + 1)


def test_sets_out_of_range_is_a_clear_error(tmp_path, cli):
    res = cli("build", "qcd", "--sets", "40", "--out", str(tmp_path))
    assert res.returncode == 2 and "--sets" in res.stderr and "Traceback" not in res.stderr


def test_small_pieces_share_a_sheet_instead_of_a_page_each(one_set):
    files = manifest(one_set / "tutti-quantum/en")
    shared = files["reference+pawn"]
    assert shared["members"] == ["reference", "pawn"] and shared["sheets"] == 1 and shared["pages"] == 2
    assert shared["cards"] == 4 + 1 and "pawn" not in files and "reference" not in files
    pieces = [f for f in files.values() if f["component"] not in SHEETS]
    assert sum(f["sheets"] for f in pieces) == 5                  # 3 + 1 + 1 instead of 3 + 1 + 1 + 1
    pdf = pikepdf.open(one_set / "tutti-quantum/en/reference+pawn.pdf")
    drawn = Counter(str(name) for _ops, op in pikepdf.parse_content_stream(pdf.pages[0]) if str(op) == "Do"
                    for name in _ops)
    assert sum(drawn.values()) >= 5                               # 4 reference fronts + the pawn (+ outline)
    text = (one_set / "tutti-quantum/en/PRINTING.txt").read_text()
    assert "reference+pawn.pdf: Reference cards + First-player pawn — 5 piece(s) on 1 sheet(s), 2 page(s)" in text
    assert "Small pieces share sheets: a file named after several components (a+b.pdf)" in text


def test_card_sized_paper_prints_the_pieces_and_says_the_sheets_need_a_page(tmp_path, cli):
    """80 × 105 mm stock holds one card with its bleed, not a rule sheet: the pieces are built,
    and the command and PRINTING.txt say how to get the sheets (it refused the whole build)."""
    res = cli("build", "qcd", "--paper", "80x105mm", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    folder = tmp_path / "qcd" / "en"
    assert (folder / "cards.pdf").is_file() and not (folder / "rules.pdf").exists()
    assert not (folder / "answers.pdf").exists()
    note = "no rule sheet or answer key on 80×105 mm paper, too small for them; build them with --paper a4"
    assert note in res.stderr
    assert "The rule sheet and answer key are not printed on 80×105 mm paper" in (folder / "PRINTING.txt").read_text()
    with pikepdf.open(folder / "cards.pdf") as pdf:
        box = pdf.pages[0].MediaBox
        assert (round(float(box[2]) / PT_PER_MM, 1), round(float(box[3]) / PT_PER_MM, 1)) == (80.0, 105.0)
    again = cli("build", "qcd", "--paper", "80x105mm", "--out", str(tmp_path))   # nothing to do: said again
    assert again.returncode == 0 and note in again.stderr


def test_the_advice_for_separate_bleed_gives_every_card_its_bleed(one_set, tmp_path):
    """PRINTING.txt advised --paper a3 (still edge to edge) or --bleed 0 (no bleed at all)."""
    shared = [f for f in manifest(one_set / "particle-builder/en").values() if "shared cuts" in f["layout"]]
    assert shared
    game = cardgen.load_game("particle-builder")
    build([game], BuildOptions(out=tmp_path, gutter=1.0), jobs=1)
    after = manifest(tmp_path / "particle-builder/en")
    for f in shared:
        layout = after[f["component"]]["layout"]
        assert "shared cuts" not in layout and re.search(r"with [\d.]+ mm bleed", layout), layout
    assert "Cards edge to edge" not in (tmp_path / "particle-builder/en/PRINTING.txt").read_text()


@pytest.mark.parametrize("marks, mode", [("none", "sheets"), ("lines", "sheets"), ("ticks", "single")])
def test_the_cutting_advice_names_what_the_file_prints_to_cut_along(tmp_path, marks, mode):
    """With --marks none the instructions still said to cut "from tick to tick" on sheets
    without a tick, and with --mode single on pages that are one piece each."""
    games = [cardgen.load_game(g) for g in ("qcd", "tutti-quantum")]
    cardgen.build(games, cardgen.BuildOptions(out=tmp_path, marks=marks, mode=mode))
    qcd = (tmp_path / "qcd/en/PRINTING.txt").read_text()
    tq = (tmp_path / "tutti-quantum/en/PRINTING.txt").read_text()
    cuts = manifest(tmp_path / "qcd/en")["cards"]["cuts"]
    if mode == "single":
        assert "tick" not in qcd and "tick" not in tq.replace("sticker", "")
        assert "One piece per page, for a print service: the PDF's trim box is the cut (63 × 88 mm" in qcd
        with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as pdf:
            trim = [float(v) / 72 * 25.4 for v in pdf.pages[0].TrimBox]
        assert abs(trim[2] - trim[0] - 63) < 0.1 and abs(trim[3] - trim[1] - 88) < 0.1
        return
    assert "from tick to tick" not in qcd and "from tick to tick" not in tq
    said = {"none": f"Cut: {cuts} straight cuts (guillotine or ruler) along the pieces' edges: no cut marks are printed",
            "lines": f"Cut: {cuts} straight cuts (guillotine or ruler) along the printed lines."}[marks]
    assert said in qcd
    assert "straight cuts along the grey lines, each line across the sheet" in tq
    with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as pdf:
        strokes = stroked_segments(pdf.pages[0])
    assert (not strokes) if marks == "none" else len(strokes) >= 8


def test_every_player_of_a_full_group_can_start_on_a_proton_or_a_neutron():
    """The rulebook starts beginners on the proton or neutron target; a set prints one mat per
    player, so it must hold at least as many of those targets as mats."""
    import cardgen

    game = cardgen.load_game("particle-builder")
    targets = game.components["targets"].cards
    beginners = sum(card.count for card in targets if card.id in ("proton", "neutron"))
    assert beginners >= sum(card.count for card in game.components["mat"].cards) >= 3
