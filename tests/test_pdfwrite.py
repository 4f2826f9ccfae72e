"""Parse the written PDFs and check geometry, resources, marks and determinism."""

import hashlib
import io
import zlib

import cairosvg
import pdfplumber
import pikepdf
import pytest

from cardgen.imposition import CardGeometry, Placement, Rect, apply, plan_grid, sheet_flip, transform_rect
from cardgen.paper import PT_PER_MM
from cardgen.pdfwrite import PdfWriteError, deflate, write_calibration, write_sheets, write_single, write_tiled

K = float(PT_PER_MM)
POKER = CardGeometry(63, 88, 3, "M0 0H63V88H0Z", True)
LOZENGE = CardGeometry(60, 90, 3, "M30 0L60 45L30 90L0 45Z", False)
A4 = (210.0, 297.0)


def render_face(card: CardGeometry, index: int) -> bytes:
    """A face with a unique colour and a unique bar pattern (its id in binary)."""
    aw, ah = card.art_width, card.art_height
    color = f"#{(index * 37) % 256:02x}{(index * 91) % 256:02x}{(index * 53 + 40) % 256:02x}"
    bars = "".join(
        f'<rect x="{5 + 4 * bit}" y="10" width="3" height="8" fill="black"/>'
        for bit in range(8)
        if index >> bit & 1
    )
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{aw}mm" height="{ah}mm" viewBox="0 0 {aw} {ah}">'
        f'<rect width="{aw}" height="{ah}" fill="{color}"/>{bars}</svg>'
    )
    return cairosvg.svg2pdf(bytestring=svg.encode())


def make_faces(card: CardGeometry, keys: list[str]) -> dict[str, bytes]:
    return {key: render_face(card, i) for i, key in enumerate(keys)}


def fingerprint_source(face: bytes) -> bytes:
    with pikepdf.open(io.BytesIO(face)) as pdf:
        return hashlib.sha256(pdf.pages[0].Contents.read_bytes()).digest()


def mul(m1, m2):
    """m1 then m2 (PDF row-vector convention: the product m1 × m2)."""
    a1, b1, c1, d1, e1, f1 = m1
    a2, b2, c2, d2, e2, f2 = m2
    return (
        a1 * a2 + b1 * c2,
        a1 * b2 + b1 * d2,
        c1 * a2 + d1 * c2,
        c1 * b2 + d1 * d2,
        e1 * a2 + f1 * c2 + e2,
        e1 * b2 + f1 * d2 + f2,
    )


def draws(page: pikepdf.Page):
    """Every Do on a page: (xobject, form box in page mm (top-left origin), clip in page mm, op index)."""
    height = float(page.MediaBox[3])
    ctm, clip, pending = (1, 0, 0, 1, 0, 0), None, None
    stack, out = [], []
    for i, (operands, op) in enumerate(pikepdf.parse_content_stream(page)):
        op = str(op)
        if op == "q":
            stack.append((ctm, clip))
        elif op == "Q":
            ctm, clip = stack.pop()
        elif op == "cm":
            ctm = mul(tuple(float(v) for v in operands), ctm)
        elif op == "re":
            pending = [float(v) for v in operands]
        elif op == "W":
            x, y, w, h = pending
            clip = Rect(x / K, (height - y - h) / K, w / K, h / K)
        elif op == "Do":
            xobj = page.Resources.XObject[operands[0]]
            x0, y0, x1, y1 = (float(v) for v in xobj.BBox)
            pts = [
                (x * ctm[0] + y * ctm[2] + ctm[4], x * ctm[1] + y * ctm[3] + ctm[5])
                for x in (x0, x1)
                for y in (y0, y1)
            ]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = Rect(min(xs) / K, (height - max(ys)) / K, (max(xs) - min(xs)) / K, (max(ys) - min(ys)) / K)
            out.append((xobj, box, clip, i, ctm))
    return out


def fingerprint(xobj) -> bytes:
    return hashlib.sha256(xobj.read_bytes()).digest()


def close(a: Rect, b: Rect, tol: float = 0.01) -> bool:
    return all(abs(p - q) <= tol for p, q in zip((a.x, a.y, a.w, a.h), (b.x, b.y, b.w, b.h)))


def shrink(r: Rect, d: float) -> Rect:
    return r.grow(-d, -d, -d, -d)


@pytest.fixture(scope="module")
def deck44():
    faces = make_faces(POKER, ["up", "down", "charm", "strange", "top", "back"])
    fronts = ["up", "down", "charm", "strange", "top"]
    placements = [Placement(fronts[i % 5], "back") for i in range(44)]
    return placements, faces


def test_page_size_is_exact_a4(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    pdf = pikepdf.open(io.BytesIO(write_sheets(placements, faces, POKER, plan, creation_epoch=0)))
    for page in pdf.pages:
        assert [round(float(v), 4) for v in page.MediaBox] == [0, 0, 595.2756, 841.8898]
    # 44 cards at 9 per sheet = 5 sheets, each a fronts and a backs page.
    assert len(pdf.pages) == 10
    prefs = pdf.Root.ViewerPreferences
    assert prefs.Duplex == "/DuplexFlipLongEdge" and prefs.PrintScaling == "/None"


def test_each_distinct_face_is_embedded_once(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    for with_back, expected in ((False, 5), (True, 6)):
        deck = placements if with_back else [Placement(p.front, None) for p in placements]
        pdf = pikepdf.open(io.BytesIO(write_sheets(deck, faces, POKER, plan)))
        used = {xobj.objgen for page in pdf.pages for xobj, *_ in draws(page)}
        assert len(used) == expected
        forms = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Form"]
        assert len(forms) == expected
        assert sum(len(draws(page)) for page in pdf.pages) == 44 * (2 if with_back else 1)


def test_every_card_lands_on_its_trim_rectangle():
    keys = [f"card{i}" for i in range(12)] + ["b"]
    faces = make_faces(POKER, keys)
    placements = [Placement(k, "b") for k in keys[:12]]
    plan = plan_grid(*A4, POKER)
    pdf = pikepdf.open(io.BytesIO(write_sheets(placements, faces, POKER, plan, duplex="none")))
    assert len(pdf.pages) == 2
    expected = iter(placements)
    for page in pdf.pages:
        for (xobj, box, clip, _, _), slot in zip(draws(page), plan.slots):
            placement = next(expected)
            assert fingerprint(xobj) == fingerprint_source(faces[placement.front])
            trim = shrink(box, POKER.bleed)
            assert close(trim, slot.trim)
            assert abs(trim.w - 63) < 0.1 and abs(trim.h - 88) < 0.1
            assert close(clip, slot.clip)


def test_turned_cards_are_drawn_a_quarter_turn():
    wide = CardGeometry(88, 63, 3, "M0 0H88V63H0Z", True)
    faces = make_faces(wide, ["f"])
    plan = plan_grid(*A4, wide, orientation="portrait")
    assert plan.rotated
    pdf = pikepdf.open(io.BytesIO(write_sheets([Placement("f", None)] * 9, faces, wide, plan)))
    for (_, box, _, _, ctm), slot in zip(draws(pdf.pages[0]), plan.slots):
        assert close(shrink(box, 3), slot.trim)
        # In PDF space (y up) the form's up vector (0, 1) goes to (-1, 0): the card's top faces left.
        assert ctm[:4] == pytest.approx((0, 1, -1, 0), abs=1e-4)


@pytest.mark.parametrize("paper", [A4, (297.0, 210.0)])
@pytest.mark.parametrize("duplex", ["long", "short"])
def test_backs_mirror_fronts_through_the_flip(paper, duplex):
    keys = [f"f{i}" for i in range(9)] + [f"b{i}" for i in range(9)]
    faces = make_faces(POKER, keys)
    placements = [Placement(f"f{i}", f"b{i}") for i in range(9)]
    orientation = "portrait" if paper[0] < paper[1] else "landscape"
    plan = plan_grid(*paper, POKER, orientation=orientation)
    pdf = pikepdf.open(io.BytesIO(write_sheets(placements, faces, POKER, plan, duplex=duplex)))
    assert len(pdf.pages) == 2
    flip = sheet_flip(plan.paper_w, plan.paper_h, duplex)
    fronts = draws(pdf.pages[0])
    backs = draws(pdf.pages[1])
    assert len(fronts) == len(backs) == min(9, plan.per_sheet)
    for placement, front, back in zip(placements, fronts, backs):
        assert fingerprint(back[0]) == fingerprint_source(faces[placement.back])
        assert close(transform_rect(flip, back[1]), front[1])
        # The back's clip is its own bleed box where that does not reach a neighbour.
        assert close(transform_rect(flip, back[2]), front[2])
    expected_name = "/DuplexFlipLongEdge" if duplex == "long" else "/DuplexFlipShortEdge"
    assert pdf.Root.ViewerPreferences.Duplex == expected_name


def test_portrait_long_edge_mirrors_columns():
    faces = make_faces(POKER, [f"f{i}" for i in range(9)] + ["b0", "b2"])
    placements = [Placement(f"f{i}", "b0" if i == 0 else ("b2" if i == 2 else None)) for i in range(9)]
    plan = plan_grid(*A4, POKER)
    pdf = pikepdf.open(io.BytesIO(write_sheets(placements, faces, POKER, plan, duplex="long")))
    backs = draws(pdf.pages[1])
    assert len(backs) == 2
    # The back of the card in column 0 is printed in column 2 of the back page, and vice versa.
    assert close(shrink(backs[0][1], 3), plan.slots[2].trim)
    assert close(shrink(backs[1][1], 3), plan.slots[0].trim)


def test_back_offset_moves_backs_exactly(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    base_pdf = pikepdf.open(io.BytesIO(write_sheets(placements[:9], faces, POKER, plan)))
    moved_pdf = pikepdf.open(
        io.BytesIO(write_sheets(placements[:9], faces, POKER, plan, back_offset=(1.25, -0.5)))
    )
    base, moved = draws(base_pdf.pages[1]), draws(moved_pdf.pages[1])
    for a, b in zip(base, moved):
        assert b[1].x - a[1].x == pytest.approx(1.25, abs=1e-4)
        assert b[1].y - a[1].y == pytest.approx(-0.5, abs=1e-4)
        assert b[2].x - a[2].x == pytest.approx(1.25, abs=1e-4)
    assert [f[1] for f in draws(base_pdf.pages[0])] == [f[1] for f in draws(moved_pdf.pages[0])]


def plumber_lines(data: bytes, page_no: int = 0):
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        page = pdf.pages[page_no]
        return [(ln["x0"] / K, ln["top"] / K, ln["x1"] / K, ln["bottom"] / K, ln["linewidth"]) for ln in page.lines]


@pytest.mark.parametrize("layout", ["edge", "bleed"])
def test_tick_marks_sit_outside_the_cards_on_trim_lines(deck44, layout):
    placements, faces = deck44
    paper = A4 if layout == "edge" else (297.0, 420.0)
    plan = plan_grid(*paper, POKER, layout=layout)
    data = write_sheets(placements, faces, POKER, plan, footer="Test deck")
    lines = plumber_lines(data)
    assert lines
    marked_x, marked_y = set(), set()
    for x0, y0, x1, y1, width in lines:
        assert width >= 0.25
        segment = Rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
        for slot in plan.slots:
            assert not segment.grow(0.01, 0.01, 0.01, 0.01).overlaps(plan.art_rect(slot))
        assert not segment.overlaps(plan.block_bleed.grow(0.49, 0.49, 0.49, 0.49))
        assert 0.99 <= segment.x and segment.right <= plan.paper_w - 0.99
        # at least 2 mm of every tick prints on a printer that cannot print the 5 mm margin
        printable = Rect(5.0, 5.0, plan.paper_w - 10.0, plan.paper_h - 10.0)
        inside = (min(segment.right, printable.right) - max(segment.x, printable.x) if segment.h < 0.01
                  else min(segment.bottom, printable.bottom) - max(segment.y, printable.y))
        assert inside >= 1.99, (segment, inside)
        if segment.w < 0.01:  # vertical tick: on a vertical trim line
            assert any(abs(segment.x - x) < 0.01 for x in plan.cut_xs)
            assert 1.0 <= segment.h <= 5.0
            marked_x.add(round(segment.x, 2))
        else:
            assert segment.h < 0.01
            assert any(abs(segment.y - y) < 0.01 for y in plan.cut_ys)
            assert 1.0 <= segment.w <= 5.0
            marked_y.add(round(segment.y, 2))
    assert marked_x == {round(x, 2) for x in plan.cut_xs}
    assert marked_y == {round(y, 2) for y in plan.cut_ys}
    # Edge to edge: one mark pair per shared cut (4 lines for 3 columns), not two.
    if layout == "edge":
        assert len(marked_x) == plan.cols + 1


def test_full_cut_lines_are_drawn_under_the_artwork(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    data = write_sheets(placements, faces, POKER, plan, marks="lines")
    pdf = pikepdf.open(io.BytesIO(data))
    page = pdf.pages[0]
    ops = [str(op) for _, op in pikepdf.parse_content_stream(page)]
    first_draw = ops.index("Do")
    first_stroke = ops.index("S")
    assert first_stroke < first_draw
    long_lines = [ln for ln in plumber_lines(data) if max(abs(ln[2] - ln[0]), abs(ln[3] - ln[1])) > 150]
    assert len(long_lines) == len(plan.cut_xs) + len(plan.cut_ys)


def test_no_marks_means_no_strokes(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    assert plumber_lines(write_sheets(placements, faces, POKER, plan, marks="none")) == []


def test_shaped_cards_get_their_cut_path_on_top():
    faces = make_faces(LOZENGE, ["a", "b"])
    plan = plan_grid(*A4, LOZENGE)
    placements = [Placement("a" if i % 2 else "b", None) for i in range(plan.per_sheet)]
    pdf = pikepdf.open(io.BytesIO(write_sheets(placements, faces, LOZENGE, plan)))
    drawn = draws(pdf.pages[0])
    face_prints = {fingerprint_source(f) for f in faces.values()}
    cards = [d for d in drawn if fingerprint(d[0]) in face_prints]
    outlines = [d for d in drawn if fingerprint(d[0]) not in face_prints]
    assert len(cards) == len(outlines) == plan.per_sheet
    assert len({o[0].objgen for o in outlines}) == 1
    assert max(c[3] for c in cards) < min(o[3] for o in outlines)
    for outline, slot in zip(outlines, plan.slots):
        assert close(shrink(outline[1], 3), slot.trim)
    assert b"m" in outlines[0][0].read_bytes()


def test_footer_text_and_unsafe_characters(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    data = write_sheets(
        placements, faces, POKER, plan, footer=lambda i, n, side: f"Kvark (ő) \\ 中 {i}/{n} {side}"
    )
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        texts = [p.extract_text() for p in pdf.pages]
        # drawn from the bundled fonts: every character kept, none replaced
        assert "Kvark (ő) \\ 中 1/5 fronts" in texts[0]
        assert "Kvark (ő) \\ 中 1/5 backs" in texts[1]
        assert "5/5 backs" in texts[9]
        footer_chars = pdf.pages[0].chars
        assert footer_chars and all(c["top"] / K > plan.block_bleed.bottom + 2 for c in footer_chars)
    data = write_sheets(placements, faces, POKER, plan, footer="QCD the Game · Quark cards")
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        assert "QCD the Game · Quark cards · sheet 2/5 · fronts" in pdf.pages[2].extract_text()


def test_single_mode_sets_trim_and_bleed_boxes():
    faces = make_faces(POKER, ["a", "b", "back"])
    placements = [Placement("a", "back"), Placement("b", None)]
    pdf = pikepdf.open(io.BytesIO(write_single(placements, faces, POKER, creation_epoch=0)))
    assert len(pdf.pages) == 4
    for page in pdf.pages:
        media = [float(v) / K for v in page.MediaBox]
        bleed = [float(v) / K for v in page.BleedBox]
        trim = [float(v) / K for v in page.TrimBox]
        assert media[2] - media[0] == pytest.approx(69, abs=0.01)
        assert bleed == pytest.approx(media, abs=1e-4)
        assert trim == pytest.approx([3, 3, 66, 91], abs=0.01)
    assert len(draws(pdf.pages[3])) == 0  # card b has no back: blank page keeps pairs aligned
    assert fingerprint(draws(pdf.pages[1])[0][0]) == fingerprint_source(faces["back"])


def test_output_is_byte_identical_and_timestamp_free(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    args = (placements, faces, POKER, plan)
    one = write_sheets(*args, title="Quarks", creation_epoch=1700000000, footer="x")
    two = write_sheets(*args, title="Quarks", creation_epoch=1700000000, footer="x")
    assert one == two
    pdf = pikepdf.open(io.BytesIO(one))
    assert pdf.docinfo.CreationDate == "D:20231114221320Z"
    assert pdf.docinfo.Producer == "cardgen" and pdf.docinfo.Title == "Quarks"
    for obj in pdf.objects:
        if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)) and obj.objgen != pdf.docinfo.objgen:
            assert "/CreationDate" not in obj and "/ModDate" not in obj and "/Metadata" not in obj
    undated = write_sheets(*args)
    assert "/CreationDate" not in pikepdf.open(io.BytesIO(undated)).docinfo
    assert write_single(placements[:3], faces, POKER) == write_single(placements[:3], faces, POKER)


def test_bad_faces_are_reported(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    with pytest.raises(PdfWriteError, match="no rendered face for 'nope'"):
        write_sheets([Placement("nope", None)], faces, POKER, plan)
    wrong = {"up": render_face(LOZENGE, 1)}
    with pytest.raises(PdfWriteError, match="render its SVG at that size"):
        write_sheets([Placement("up", None)], wrong, POKER, plan)
    with pytest.raises(PdfWriteError, match="not a readable PDF"):
        write_sheets([Placement("up", None)], {"up": b"garbage"}, POKER, plan)
    with pytest.raises(ValueError):
        write_sheets([], faces, POKER, plan)


def mat_face(width: float, height: float) -> bytes:
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}mm" height="{height}mm" '
        f'viewBox="0 0 {width} {height}"><rect width="{width}" height="{height}" fill="#8ac"/>'
        f'<circle cx="{width / 2}" cy="{height / 2}" r="50" fill="#fff"/></svg>'
    )
    return cairosvg.svg2pdf(bytestring=svg.encode())


def test_tiling_an_a3_mat_onto_a4():
    data = write_tiled(mat_face(297, 420), 297, 420, *A4, margin=5, overlap=10, creation_epoch=0)
    pdf = pikepdf.open(io.BytesIO(data))
    assert len(pdf.pages) == 4
    placed = [draws(page)[0] for page in pdf.pages]
    # Every tile shows the whole mat shifted; neighbours are 190 mm / 277 mm apart and their
    # printed areas (clips) share exactly 10 mm of the mat.
    mats = [box for _, box, _, _, _ in placed]
    clips = [clip for _, _, clip, _, _ in placed]
    # Balanced: 297 + 10 mm overlap over two columns = 153.5 mm each; 420 + 10 over two rows = 215 mm.
    assert mats[0].x - mats[1].x == pytest.approx(143.5, abs=0.01)
    assert mats[0].y - mats[2].y == pytest.approx(205, abs=0.01)
    assert mats[0].w == pytest.approx(297, abs=0.01)
    in_mat = [clip.moved(-mat.x, -mat.y) for clip, mat in zip(clips, mats)]
    assert in_mat[0].right - in_mat[1].x == pytest.approx(10, abs=0.01)
    assert in_mat[0].bottom - in_mat[2].y == pytest.approx(10, abs=0.01)
    assert close(clips[0], Rect(5, 5, 153.5, 215))
    assert all(close(c, Rect(5, 5, 153.5, 215)) for c in clips)
    with pdfplumber.open(io.BytesIO(data)) as doc:
        assert "tile A1" in doc.pages[0].extract_text()
        assert "A2 goes on the right" in doc.pages[0].extract_text()
        assert "glue here" in doc.pages[0].extract_text()


def test_calibration_back_crosshairs_sit_behind_the_front_targets():
    for duplex in ("long", "short"):
        data = write_calibration(*A4, duplex=duplex, creation_epoch=0)
        pdf = pikepdf.open(io.BytesIO(data))
        assert len(pdf.pages) == 2
        front = plumber_lines(data, 0)
        back = plumber_lines(data, 1)
        # The 100 mm scale bar.
        assert any(abs((x1 - x0) - 100) < 0.01 and abs(y1 - y0) < 0.01 for x0, y0, x1, y1, _ in front)
        flip = sheet_flip(*A4, duplex)
        # Centres of the back crosshairs, mapped to the front, are the centres of the front scales.
        back_centres = {
            (round((x0 + x1) / 2, 2), round((y0 + y1) / 2, 2))
            for x0, y0, x1, y1, _ in back
            if abs(y1 - y0) < 0.01
        }
        front_centres = {
            (round((x0 + x1) / 2, 2), round((y0 + y1) / 2, 2))
            for x0, y0, x1, y1, _ in front
            if abs(y1 - y0) < 0.01 and abs(x1 - x0 - 12) < 0.01
        }
        assert len(front_centres) == 5
        mapped = {tuple(round(v, 2) for v in apply(flip, x, y)) for x, y in back_centres}
        assert mapped == front_centres
    with pytest.raises(ValueError):
        write_calibration(*A4, duplex="none")


def test_registration_squares_match_the_plan_and_backs_carry_no_marks(deck44):
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    data = write_sheets(placements[:9], faces, POKER, plan, registration=True)
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        rects = [
            Rect(r["x0"] / K, r["top"] / K, (r["x1"] - r["x0"]) / K, (r["bottom"] - r["top"]) / K)
            for r in pdf.pages[0].rects
            if r["fill"] and abs(r["x1"] - r["x0"] - 5 * K) < 0.01  # the faces' own rects are larger
        ]
        assert len(rects) == 3
        for got, want in zip(
            sorted(rects, key=lambda r: (r.y, r.x)),
            sorted(plan.registration_marks(), key=lambda r: (r.y, r.x)),
        ):
            assert close(got, want)
        assert pdf.pages[1].lines == []
        assert not [r for r in pdf.pages[1].rects if abs(r["x1"] - r["x0"] - 5 * K) < 0.01]


def uncompressed_copy(face: bytes) -> bytes:
    """The same face with its content stream stored without compression."""
    with pikepdf.open(io.BytesIO(face)) as pdf:
        page = pdf.pages[0]
        page.Contents = pdf.make_stream(page.Contents.read_bytes())
        out = io.BytesIO()
        pdf.save(out, compress_streams=False)
        return out.getvalue()


def test_face_forms_carry_the_face_content_however_it_was_stored():
    """A face's form draws exactly its page content with the page's box, compressed once at
    deflate() from the decoded operators: a face cairo compressed and the same face stored
    uncompressed give byte-identical forms."""
    plan = plan_grid(*A4, POKER, margin=5)
    placements = [Placement("a", None), Placement("b", None), Placement("c", None)]
    faces = make_faces(POKER, ["a", "b"])
    faces["c"] = uncompressed_copy(faces["a"])
    with pikepdf.open(io.BytesIO(faces["a"])) as src:
        assert src.pages[0].Contents.Filter == pikepdf.Name.FlateDecode   # cairo's own compression
        content = src.pages[0].Contents.read_bytes()
    pdf = pikepdf.open(io.BytesIO(write_sheets(placements, faces, POKER, plan, duplex="none")))
    forms = {name: xobj for name, xobj in pdf.pages[0].Resources.XObject.items()}
    assert len(forms) == 3
    assert all(f.Filter == pikepdf.Name.FlateDecode for f in forms.values())
    expected = deflate(content)
    assert zlib.decompress(expected) == content
    assert sum(f.read_raw_bytes() == expected for f in forms.values()) == 2   # a and c alike
    sources = {fingerprint_source(faces[k]) for k in "abc"}
    assert {hashlib.sha256(f.read_bytes()).digest() for f in forms.values()} == sources
    for form in forms.values():
        assert [float(v) for v in form.BBox] == pytest.approx([0, 0, POKER.art_width * K, POKER.art_height * K],
                                                              abs=0.01)


def marked_lines(data: bytes, page_no: int = 0) -> tuple[set[float], set[float]]:
    """The x of every vertical and the y of every horizontal stroke on a page (mm)."""
    xs, ys = set(), set()
    for x0, y0, x1, y1, _width in plumber_lines(data, page_no):
        if abs(x1 - x0) < 0.01:
            xs.add(round(x0, 2))
        else:
            ys.add(round(y0, 2))
    return xs, ys


@pytest.mark.parametrize("marks", ["ticks", "lines"])
def test_a_partly_filled_sheet_marks_only_the_cuts_its_pieces_need(deck44, marks):
    """The last sheet of a deck marked every row and column of a full sheet: three cards in
    the top row got ticks for eight cut lines (and a pawn alone on its page for twelve)
    while the printing instructions counted six."""
    _placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    three = [Placement("up", "back")] * 3
    xs, ys = marked_lines(write_sheets(three, faces, POKER, plan, marks=marks))
    used = plan.slots[:3]
    assert xs == {round(v, 2) for s in used for v in (s.trim.x, s.trim.right)}
    assert ys == {round(v, 2) for s in used for v in (s.trim.y, s.trim.bottom)}
    assert len(xs) + len(ys) == len(plan.cut_lines(3)) == 6
    xs, ys = marked_lines(write_sheets([Placement("up", "back")] * 9, faces, POKER, plan, marks=marks))
    assert len(xs) + len(ys) == len(plan.cut_lines()) == 8   # a full sheet: as before


def shared_sheet(duplex: str, marks: str = "ticks") -> tuple[bytes, list]:
    """Poker cards and small tokens sharing one A4 sheet, stacked from its top."""
    from cardgen.imposition import band_plan, stack_bands
    from cardgen.pdfwrite import write_shared

    token = CardGeometry(20, 20, 2, "M0 0H20V20H0Z", True)
    faces = {**make_faces(POKER, ["card", "card-back"]), **make_faces(token, ["token", "token-back"])}
    bands = stack_bands([(band_plan(*A4, POKER, 4), 4), (band_plan(*A4, token, 12), 12)])
    data = write_shared([(bands[0], [Placement("card", "card-back")] * 4), (bands[1], [Placement("token", "token-back")] * 12)],
                        faces, duplex=duplex, marks=marks, footer="Shared · test")
    return data, bands


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_a_shared_sheets_footer_stays_clear_of_the_backs(duplex):
    """On a short-edge flip the backs of pieces stacked from the top of a shared sheet land
    at its bottom: the footer, placed under the fronts, ran across a reference card's back."""
    data, bands = shared_sheet(duplex)
    flip = sheet_flip(*A4, duplex)
    backs = [transform_rect(flip, s.clip) for plan in bands for s in plan.slots]
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page, art in zip(pdf.pages, ([s.clip for plan in bands for s in plan.slots], backs)):
            chars = page.chars
            assert chars, "a footer on every page"
            for c in chars:
                box = Rect(c["x0"] / K, c["top"] / K, (c["x1"] - c["x0"]) / K, (c["bottom"] - c["top"]) / K)
                assert not any(box.overlaps(r) for r in art), (c["text"], box)
                assert box.y >= 0.99 and box.bottom <= A4[1] - 0.99


def test_cut_lines_on_a_shared_sheet_stay_in_their_own_strip():
    """--marks lines: the reference cards' vertical cut lines ran from the top of the sheet
    to its footer, through the pawn and the score tokens below them."""
    data, bands = shared_sheet("long", marks="lines")
    lines = plumber_lines(data)
    assert lines
    for x0, y0, x1, y1, _width in lines:
        segment = Rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
        owners = [plan for plan in bands if any(abs(segment.x - s.trim.x) < 0.01 or abs(segment.x - s.trim.right) < 0.01
                                                or abs(segment.y - s.trim.y) < 0.01 or abs(segment.y - s.trim.bottom) < 0.01
                                                for s in plan.slots)]
        others = [s.clip for plan in bands if plan not in owners for s in plan.slots]
        assert owners and not any(segment.overlaps(r) for r in others), segment


def test_the_footer_prints_inside_the_printable_margin_where_the_sheet_has_room(deck44):
    """The footer's baseline sat 4.4 mm from the bottom of an A4 sheet of poker cards, in the
    5 mm a home printer cannot print: it came out cut off. The bottom ticks give way to it."""
    placements, faces = deck44
    plan = plan_grid(*A4, POKER)
    data = write_sheets(placements, faces, POKER, plan, footer="Test deck")
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        chars = pdf.pages[0].chars
    size = 6.0 / K   # the footer's size in mm: its descenders reach a quarter of it below the baseline
    baselines = {round(A4[1] - c["matrix"][5] / K, 3) for c in chars}   # mm from the top
    assert chars and len(baselines) == 1
    baseline = baselines.pop()
    assert baseline + 0.25 * size <= A4[1] - 5.0 + 0.01
    ticks = [ln for ln in plumber_lines(data) if abs(ln[2] - ln[0]) < 0.01 and ln[1] > plan.block_bleed.bottom]
    assert ticks and all(max(ln[1], ln[3]) < baseline - 0.75 * size for ln in ticks)
