"""`cardgen build` end to end: files, manifest, PDF structure in millimetres, determinism, atomicity."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pikepdf
import pytest

import cardgen
from cardgen.build import BuildOptions, build

MM = 72 / 25.4


def qcd_build(out: Path, **kw):
    return build([cardgen.load_game("qcd")], BuildOptions(out=out, **kw))[0]


def form_xobjects(pdf: pikepdf.Pdf) -> set:
    seen = set()
    for page in pdf.pages:
        for name, obj in page.Resources.get("/XObject", {}).items():
            if obj.get("/Subtype") == "/Form":
                seen.add(obj.objgen)
    return seen


def placements(page: pikepdf.Page) -> list[tuple[list[float], str]]:
    """(cm matrix, XObject name) for every face drawn on a page."""
    out, stack, cm = [], [], [1, 0, 0, 1, 0, 0]
    for operands, op in pikepdf.parse_content_stream(page):
        op = str(op)
        if op == "q":
            stack.append(cm)
        elif op == "Q":
            cm = stack.pop()
        elif op == "cm":
            a, b, c, d, e, f = (float(x) for x in operands)
            A, B, C, D, E, F = cm
            cm = [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F]
        elif op == "Do":
            out.append((cm, str(operands[0])))
    return out


def test_qcd_build_files_manifest_and_instructions(tmp_path):
    res = qcd_build(tmp_path)
    folder = tmp_path / "qcd" / "en"
    assert sorted(p.name for p in folder.iterdir()) == ["PRINTING.txt", "answers.pdf", "cards.pdf", "manifest.json",
                                                       "rules.pdf"]
    manifest = json.loads((folder / "manifest.json").read_text())
    entry, rules, answers = manifest["files"]
    assert (rules["component"], answers["component"]) == ("rules", "answers")
    data = (folder / "cards.pdf").read_bytes()
    assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert (entry["cards"], entry["cards_per_sheet"], entry["pages"]) == (52, 9, 12)
    assert entry["paper"] == "A4" and "edge to edge" in entry["layout"]
    text = (folder / "PRINTING.txt").read_text()
    assert "100 %" in text and "LONG edge" in text and "One deck for 2 to 4 players" in text
    assert res.files[0].distinct_faces == 26


def test_qcd_pdf_pages_faces_and_card_sizes(tmp_path):
    qcd_build(tmp_path)
    with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as pdf:
        assert len(pdf.pages) == 12
        for page in pdf.pages:
            box = [float(v) for v in page.MediaBox]
            assert box == pytest.approx([0, 0, 595.2756, 841.8898], abs=1e-3)
        assert len(form_xobjects(pdf)) == 26          # 25 distinct fronts + 1 shared back, each stored once
        drawn = [(cm, name) for cm, name in placements(pdf.pages[0])]
        faces = [(cm, n) for cm, n in drawn if pdf.pages[0].Resources.XObject[n].get("/BBox") is not None
                 and abs(float(pdf.pages[0].Resources.XObject[n].BBox[2]) - 69 * MM) < 0.5]
        assert len(faces) == 9
        for cm, name in faces:
            bbox = [float(v) for v in pdf.pages[0].Resources.XObject[name].BBox]
            width_mm = (bbox[2] - bbox[0]) * abs(cm[0]) / MM
            height_mm = (bbox[3] - bbox[1]) * abs(cm[3]) / MM
            assert width_mm - 6 == pytest.approx(63, abs=0.1) and height_mm - 6 == pytest.approx(88, abs=0.1)


def test_same_inputs_give_byte_identical_files(tmp_path):
    qcd_build(tmp_path / "a")
    qcd_build(tmp_path / "b")
    for name in ("cards.pdf", "manifest.json", "PRINTING.txt"):
        assert (tmp_path / "a/qcd/en" / name).read_bytes() == (tmp_path / "b/qcd/en" / name).read_bytes()


def test_source_date_epoch_is_honoured(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    qcd_build(tmp_path / "a")
    qcd_build(tmp_path / "b")
    a = (tmp_path / "a/qcd/en/cards.pdf").read_bytes()
    assert a == (tmp_path / "b/qcd/en/cards.pdf").read_bytes()
    with pikepdf.open(io.BytesIO(a)) as pdf:
        assert str(pdf.docinfo["/CreationDate"]).startswith("D:20231114")


def test_no_temporary_files_are_left(tmp_path):
    qcd_build(tmp_path)
    leftovers = [p for p in (tmp_path / "qcd/en").iterdir() if p.name.startswith(".")]
    assert leftovers == []


def test_failed_build_keeps_the_previous_good_pdf(tmp_path, game_copy, cli):
    g = game_copy("qcd")
    out = tmp_path / "out"
    first = cli("build", str(g.path), "--out", str(out))
    assert first.returncode == 0, first.stderr
    before = (out / "qcd/en/cards.pdf").read_bytes()
    g.edit("templates/card-front.svg.j2", "card.wild", "card.wilde")
    second = cli("build", str(g.path), "--out", str(out))
    assert second.returncode == 2 and "card-front.svg.j2" in second.stderr and "Traceback" not in second.stderr
    assert (out / "qcd/en/cards.pdf").read_bytes() == before


def test_single_mode_sets_trim_and_bleed_boxes(tmp_path):
    qcd_build(tmp_path, mode="single")
    with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as pdf:
        assert len(pdf.pages) == 104               # 52 fronts, each followed by its back
        page = pdf.pages[0]
        trim = [float(v) for v in page.TrimBox]
        bleed = [float(v) for v in page.BleedBox]
        media = [float(v) for v in page.MediaBox]
        assert (trim[2] - trim[0]) / MM == pytest.approx(63, abs=0.01)
        assert (trim[3] - trim[1]) / MM == pytest.approx(88, abs=0.01)
        assert (bleed[2] - bleed[0]) / MM == pytest.approx(69, abs=0.01)
        assert media[0] <= bleed[0] <= trim[0] and media[2] >= bleed[2] >= trim[2]


def test_letter_paper_and_short_edge_flip(tmp_path):
    qcd_build(tmp_path, paper="letter", duplex="short")
    with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as pdf:
        assert [float(v) for v in pdf.pages[0].MediaBox][2:] == pytest.approx([612, 792], abs=1e-3)
        assert str(pdf.Root.ViewerPreferences.Duplex) == "/DuplexFlipShortEdge"
        fronts = placements(pdf.pages[0])
        backs = placements(pdf.pages[1])
        assert len(fronts) == len(backs)


def test_bad_options_are_usage_errors(cli):
    res = cli("build", "qcd", "--paper", "b7")
    assert res.returncode == 2 and "b7" in res.stderr and "Traceback" not in res.stderr
    res = cli("build", "qcd", "--back-offset", "1")
    assert res.returncode == 2


def test_calibration_page(tmp_path, cli):
    res = cli("calibrate", "--paper", "letter", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    with pikepdf.open(tmp_path / "calibration-letter-long.pdf") as pdf:
        assert len(pdf.pages) == 2


def test_tutti_deck_of_44_stores_its_distinct_faces_once(tmp_path):
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path, cut_file=True))
    folder = tmp_path / "tutti-quantum/en"
    manifest = {f["component"]: f for f in json.loads((folder / "manifest.json").read_text())["files"]}
    assert manifest["particles"]["cards"] == 44 and manifest["particles"]["distinct_faces"] == 6
    with pikepdf.open(folder / "particles.pdf") as pdf:
        faces = {o for o in form_xobjects(pdf)}
        # 5 fronts + 1 shared back; the lozenges' cut lines are drawn on the page itself
        assert len(faces) == 6
    cut = (folder / "particles-cut.svg").read_text()
    per_sheet = manifest["particles"]["cards_per_sheet"]
    assert cut.count('<path id="card-') == per_sheet and 'width="210mm"' in cut and 'id="registration"' in cut
    assert not (folder / "reference-cut.svg").exists()   # rectangles are guillotined, no cut file


def test_cut_files_cut_printed_pieces_only_and_their_marks_print(tmp_path):
    """Every cut path of a cut file is a printed piece, and the registration squares lie inside
    the printer's margin (5 mm by default), where the printer can print them."""
    import xml.etree.ElementTree as ET

    build([cardgen.load_game("particle-builder")], BuildOptions(out=tmp_path, cut_file=True, level=3))
    folder = tmp_path / "particle-builder/en"
    manifest = {f["component"]: f for f in json.loads((folder / "manifest.json").read_text())["files"]}
    ns = {"s": "http://www.w3.org/2000/svg"}
    cut_files = sorted(folder.glob("*-cut.svg"))
    assert cut_files
    for cut in cut_files:
        root = ET.fromstring(cut.read_text(encoding="utf-8"))
        built = manifest[cut.name.removesuffix("-cut.svg")]
        paths = root.findall(".//s:g[@id='cut']/s:path", ns)
        assert len(paths) == min(built["cards"], built["cards_per_sheet"]), cut.name
        w, h = (float(root.get(k).removesuffix("mm")) for k in ("width", "height"))
        for r in root.findall(".//s:g[@id='registration']/s:rect", ns):
            x, y, rw, rh = (float(r.get(k)) for k in ("x", "y", "width", "height"))
            assert x >= 5 and y >= 5 and x + rw <= w - 5 and y + rh <= h - 5, (cut.name, x, y)


def test_mat_tiles_onto_two_a3_or_four_a4_sheets(tmp_path):
    """The 560 × 380 mm mat (every place holds a real card) is glued from two A3 or four A4
    sheets; a 190 × 260 mm target prints one per A4 sheet."""
    game = cardgen.load_game("particle-builder")
    build([game], BuildOptions(out=tmp_path / "a3", paper="a3", level=1))
    build([game], BuildOptions(out=tmp_path / "a4", level=1))
    a3 = json.loads((tmp_path / "a3/particle-builder/en/manifest.json").read_text())
    a4 = json.loads((tmp_path / "a4/particle-builder/en/manifest.json").read_text())
    mat3 = next(f for f in a3["files"] if f["component"] == "mat")
    mat4 = next(f for f in a4["files"] if f["component"] == "mat")
    mats = game.components["mat"].total   # one per player of a group
    assert mats == 3
    assert mat3["pages"] == 2 * mats and "tiled onto A3" in mat3["layout"] and "--paper a3" not in mat3["layout"]
    assert mat4["pages"] == 4 * mats and "tiled onto A4" in mat4["layout"] and "--paper a3" in mat4["layout"]
    targets4 = next(f for f in a4["files"] if f["component"] == "targets")
    assert targets4["cards_per_sheet"] == 1 and targets4["pages"] == 2 * game.components["targets"].total
    # --level 1 leaves out the level 3, 5 and 7 components
    assert {f["component"] for f in a4["files"]} == {"particles", "targets", "mat", "rules", "answers"}


def test_a_bleed_above_the_artworks_is_printed_as_the_artwork_has_and_said(tmp_path, cli):
    """--bleed 10 on 3 mm bleed artwork: the cards print 3 mm (there is no more artwork), the
    manifest says so per file, and the command says why."""
    res = cli("build", "qcd", "--bleed", "10", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert "note: cards.pdf printed with 3 mm bleed, not 10 mm: its artwork has 3 mm of bleed" in res.stderr
    files = {f["component"]: f for f in json.loads((tmp_path / "qcd/en/manifest.json").read_text())["files"]}
    assert files["cards"]["bleed_mm"] == 3.0
    with pikepdf.open(tmp_path / "qcd/en/cards.pdf") as pdf:
        forms = [o for page in pdf.pages for o in page.Resources.get("/XObject", {}).values()]
        sizes = {tuple(round(float(v) / 72 * 25.4, 1) for v in (o.BBox[2] - o.BBox[0], o.BBox[3] - o.BBox[1]))
                 for o in forms if o.get("/Subtype") == "/Form"}
    assert (69.0, 94.0) in sizes   # 63 × 88 mm and 3 mm on every side
    quiet = cli("build", "qcd", "--bleed", "2", "--out", str(tmp_path / "two"))
    assert quiet.returncode == 0 and "note:" not in quiet.stderr


def test_rectangular_pieces_share_sheets_with_cut_files_as_without(tmp_path):
    """--cut-file turned sheet sharing off for every piece: one pawn printed alone on an A4
    sheet. Only shaped pieces, whose cut file and registration squares are their sheet's,
    keep sheets of their own."""
    def pdfs(out, cut_file):
        build([cardgen.load_game("tutti-quantum")], BuildOptions(out=out, cut_file=cut_file))
        folder = out / "tutti-quantum/en"
        return sorted(p.name for p in folder.glob("*.pdf")), sorted(p.name for p in folder.glob("*-cut.svg"))

    plain, _ = pdfs(tmp_path / "plain", False)
    with_cuts, cut_files = pdfs(tmp_path / "cut", True)
    assert with_cuts == plain == ["answers.pdf", "particles.pdf", "reference+pawn.pdf", "rules.pdf", "score-tokens.pdf"]
    assert cut_files == ["particles-cut.svg", "score-tokens-cut.svg"]
