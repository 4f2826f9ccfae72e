"""Decks of many distinct cards: a component of up to 50,000 cards is built whole,
its faces go from the workers to the PDF writer through files (never all in memory), the
writer's memory does not grow with the deck, and the limits (50,000 cards in a component,
50,000 distinct cards in one PDF) are refused up front with a clear error."""

from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
import tracemalloc
from collections.abc import Iterator, Mapping
from pathlib import Path

import pdfplumber
import pikepdf
import pytest
from click.testing import CliRunner

import cardgen
from cardgen import pdfdoc, relocatable
from cardgen.build import BuildOptions, build
from cardgen.build.spool import Spool, SpooledFaces
from cardgen.errors import CardgenError, FileSystemError, InputError
from cardgen.imposition import CardGeometry, Placement, plan_sheet
from cardgen.pdfwrite import write_sheets, write_single
from tests.test_pdfwrite import LOZENGE, POKER, draws, render_face
from tests.test_render import make_game

ROOT = Path(__file__).resolve().parent.parent
#: the module (``cardgen.build.plan`` is also the name of its function)
build_plan = importlib.import_module("cardgen.build.plan")

#: A front whose drawing depends on the card (a bar as long as its number): distinct PDFs.
BAR = """{% extends "base.svg.j2" %}
{% block artwork %}<rect x="2" y="30" width="{{ card.n * 0.02 + 1 }}" height="5" fill="#224466"/>{% endblock %}
"""


def numbered_game(root: Path, cards: int) -> Path:
    lines = "\n".join(f"  - {{id: c{i}, n: {i}}}" for i in range(cards))
    return make_game(root, BAR, lines, "  n: {type: number}")


def test_a_component_above_the_old_limit_is_built_whole_each_card_in_its_place(tmp_path):
    cards = 2_100   # the build refused more than 2,000 distinct faces in a component
    game = cardgen.load_game(numbered_game(tmp_path, cards))
    out = tmp_path / "out"
    (res,) = build([game], BuildOptions(out=out, duplex="none"), jobs=2)
    (built,) = [f for f in res.files if f.component == "cards"]
    assert (built.cards, built.distinct_faces, built.cards_per_sheet) == (2_100, 2_100, 16)
    assert built.pages == built.sheets == 132   # 2,100 / 16, rounded up
    manifest = json.loads((res.folder / "manifest.json").read_text())
    assert [f["pages"] for f in manifest["files"] if f["component"] == "cards"] == [132]

    pdf = pikepdf.open(out / built.path)
    assert len(pdf.pages) == 132
    assert len(draws(pdf.pages[0])) == 16
    placed = draws(pdf.pages[-1])
    assert len(placed) == 4   # 2,100 − 131 × 16
    # 50 × 70 mm cards edge to edge, 4 × 4 on A4 portrait: a 200 × 280 mm block centred,
    # its top left corner at (5, 8.5) mm; each face drawn with its 2 mm of bleed around.
    # The last card, c2099, is the fourth of the last sheet's first row: trim at x = 155 mm.
    xobj, box = placed[-1][0], placed[-1][1]
    assert (round(box.x, 1), round(box.y, 1), round(box.w, 1), round(box.h, 1)) == (153.0, 6.5, 54.0, 74.0)
    assert xobj.read_bytes() == _drawn(game, "c2099") != _drawn(game, "c2098")
    # nothing of the faces' journey is left in the output folder
    assert not list(out.rglob(".faces-*"))


def _drawn(game, card: str) -> bytes:
    """The drawing operators of a card's front, drawn on its own."""
    from cardgen.draw import render_pdf
    from cardgen.render import Renderer

    comp = game.components["cards"]
    with pikepdf.open(io.BytesIO(render_pdf(Renderer(game).face(comp, comp.card(card)).face))) as pdf:
        return pdf.pages[0].Contents.read_bytes()


class LazyFaces(Mapping[str, bytes]):
    """Faces made when asked for (never all in memory): distinct PDFs, ~12 KB each, the
    content of one of a few drawings plus a number of their own."""

    def __init__(self, count: int, drawings: list[bytes]) -> None:
        self.count, self.drawings = count, drawings

    def __getitem__(self, key: str) -> bytes:
        i = int(key[1:])
        return self.drawings[i % len(self.drawings)] + b"%% face " + str(i).encode() + b"\n"

    def __iter__(self) -> Iterator[str]:
        return (f"f{i}" for i in range(self.count))

    def __len__(self) -> int:
        return self.count


def busy_face(card: CardGeometry, index: int) -> bytes:
    """A face with a few hundred shapes, as heavy as a real card's (~10 KB of PDF)."""
    import cairosvg

    aw, ah = card.art_width, card.art_height
    shapes = "".join(f'<circle cx="{(i * 7.3 + index) % aw:.2f}" cy="{(i * 3.1) % ah:.2f}" r="{1 + i % 5}" '
                     f'fill="#{(i * 41 + index) % 256:02x}{(i * 13) % 256:02x}80"/>' for i in range(400))
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{aw}mm" height="{ah}mm" viewBox="0 0 {aw} {ah}">{shapes}</svg>'
    return cairosvg.svg2pdf(bytestring=svg.encode())


def _printed(data: bytes) -> list:
    """What a PDF prints, object numbers aside: each page's box, content and every object it
    draws with, resolved (streams decoded)."""
    def plain(obj, depth=0):
        if depth > 24:   # a pattern's tile is a form inside the face's form: a dozen levels
            raise AssertionError("too deep")
        if isinstance(obj, pikepdf.Stream):
            head = {k: plain(v, depth + 1) for k, v in obj.items() if k not in ("/Length", "/Filter", "/DecodeParms")}
            return ("stream", head, obj.read_bytes())
        if isinstance(obj, pikepdf.Dictionary):
            return {k: plain(v, depth + 1) for k, v in obj.items() if k != "/Parent"}
        if isinstance(obj, pikepdf.Array):
            return [plain(v, depth + 1) for v in obj]
        return str(obj)
    with pikepdf.open(io.BytesIO(data)) as pdf:
        return [plain(page.obj) for page in pdf.pages]


@pytest.mark.parametrize("writer", ["sheets", "shaped", "single"])
def test_a_document_of_many_faces_written_as_it_goes_prints_as_one_made_in_memory(monkeypatch, tmp_path, writer):
    """Above IN_MEMORY_FACES the document is written to its file face by face and page by
    page: the same pages, forms, footers (their fonts), boxes and document information as
    qpdf writes from memory, a valid file, the same bytes each time and to a file."""
    card = LOZENGE if writer == "shaped" else POKER
    faces = {f"f{i}": render_face(card, i) for i in range(14)}
    faces["back"] = render_face(card, 99)
    faces["f13"] = faces["f2"]   # the same drawing under two keys is stored once
    placements = [Placement(f"f{i}", "back") for i in range(14)] + [Placement("f0", "back")]

    def write(to=None) -> bytes:
        if writer == "single":
            return write_single(placements, faces, card, creation_epoch=1700000000, title="Jeu – t", to=to)
        plan = plan_sheet(210, 297, card, margin=5, gutter=None, bleed=None, paper_label="A4", count=len(placements))
        return write_sheets(placements, faces, card, plan, duplex="long", creation_epoch=1700000000, title="Jeu – t",
                            footer="Deck · Ελληνικά", to=to)

    in_memory = write()
    monkeypatch.setattr(pdfdoc, "IN_MEMORY_FACES", 4)
    from_file = write()
    assert from_file == write()   # the same bytes each time
    with open(tmp_path / "deck.pdf", "wb") as fh:
        assert write(fh) == b""
    assert (tmp_path / "deck.pdf").read_bytes() == from_file
    assert _printed(from_file) == _printed(in_memory)
    with pikepdf.open(io.BytesIO(from_file)) as pdf, pikepdf.open(io.BytesIO(in_memory)) as mem:
        assert pdf.check_pdf_syntax() == []
        assert dict(pdf.docinfo.items()) == dict(mem.docinfo.items())
        assert pdf.Root.ViewerPreferences == mem.Root.ViewerPreferences
        forms = {o.objgen for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Subtype") == "/Form"}
        assert len(forms) == 14 + (writer == "shaped")   # 13 distinct fronts, the back, the cut outline
        if writer != "single":
            assert "Deck · Ελληνικά" in pdfplumber.open(io.BytesIO(from_file)).pages[0].extract_text()


def test_the_writer_keeps_no_face_in_python_memory(monkeypatch, tmp_path):
    """tracemalloc sees what Python holds: per face a few hundred bytes of bookkeeping, not
    its ~10 KB of PDF (which a dict of the faces, or a list of their bytes, would)."""
    monkeypatch.setattr(pdfdoc, "IN_MEMORY_FACES", 10)
    drawings = [busy_face(POKER, i) for i in range(3)]
    assert all(len(d) > 8_000 for d in drawings)

    def peak(count: int) -> int:
        placements = [Placement(f"f{i}", None) for i in range(count)]
        plan = plan_sheet(210, 297, POKER, margin=5, gutter=None, bleed=None, paper_label="A4", count=count)
        tracemalloc.start()
        with open(tmp_path / "deck.pdf", "wb") as fh:
            write_sheets(placements, LazyFaces(count, drawings), POKER, plan, duplex="none", to=fh)
        top = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return top

    small, large = peak(150), peak(600)
    assert large - small < 450 * 1_000, (small, large)   # under 1 KB more per face


MEASURE = """
import resource, sys
from cardgen.imposition import CardGeometry, Placement, plan_sheet
from cardgen.pdfwrite import write_sheets
from tests.test_large_decks import LazyFaces, busy_face
from tests.test_pdfwrite import POKER
count = int(sys.argv[1])
drawings = [busy_face(POKER, i) for i in range(3)]
placements = [Placement(f"f{i}", None) for i in range(count)]
plan = plan_sheet(210, 297, POKER, margin=5, gutter=None, bleed=None, paper_label="A4", count=count)
with open(sys.argv[2], "wb") as fh:
    write_sheets(placements, LazyFaces(count, drawings), POKER, plan, duplex="none", to=fh)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_the_writers_peak_memory_hardly_grows_with_the_deck(tmp_path):
    """Peak RSS of a process writing N and 3N distinct faces, both above IN_MEMORY_FACES: the
    document is written as it goes, and only an offset and a few hundred bytes of bookkeeping
    a face grow (3.5 MB from 1,500 to 4,500 faces, measured). Written by qpdf from the faces'
    file, as before, it grew by 20 MB: qpdf keeps each object it has read until it saves; a
    writer that held the faces' bytes until it saved (as it did before that) by some 130 MB."""
    def peak_mb(count: int) -> float:
        res = subprocess.run([sys.executable, "-c", MEASURE, str(count), str(tmp_path / f"{count}.pdf")], cwd=ROOT,
                             capture_output=True, text=True, check=True)
        return int(res.stdout.split()[-1]) / 1024

    small, large = peak_mb(1_500), peak_mb(4_500)
    with pikepdf.open(tmp_path / "4500.pdf") as pdf:
        assert len(pdf.pages) == 500   # 9 a sheet
    assert large - small < 8, (small, large)


def test_spooled_faces_are_read_back_from_disk_each_once(tmp_path):
    with Spool(tmp_path) as a, Spool(tmp_path) as b:
        a.add("x", b"%PDF x")
        a.add("y", b"%PDF yy")
        a.add("x", b"never written: x is there")
        b.add("y", b"%PDF yy")
        b.add("z", b"%PDF zzz")
        assert a.read("x") == b"%PDF x"
    assert a.places == {"x": (0, 6), "y": (6, 7)} and a.path.read_bytes() == b"%PDF x%PDF yy"
    assert a.path.name.startswith(".faces-") and a.path.suffix == ".part"   # swept with a killed build's files
    with SpooledFaces([(str(a.path), a.places, {}), (str(b.path), b.places, {})]) as faces:
        assert dict(faces) == {"x": b"%PDF x", "y": b"%PDF yy", "z": b"%PDF zzz"}
        assert len(faces) == 3 and "z" in faces and "w" not in faces
    a.path.write_bytes(b"%PDF")   # cut short since
    with SpooledFaces([(str(a.path), a.places, {})]) as faces, pytest.raises(CardgenError) as info:
        faces["y"]
    assert "cannot read" in info.value.message and a.path.name in info.value.message


def test_more_distinct_cards_than_one_pdf_holds_are_refused_before_rendering(monkeypatch, tmp_path):
    monkeypatch.setattr(build_plan, "MAX_CARDS_PER_PDF", 5)
    path = numbered_game(tmp_path, 6)
    game = cardgen.load_game(path)
    with pytest.raises(InputError) as info:
        build([game], BuildOptions(out=tmp_path / "o"), jobs=1)
    err = info.value
    assert err.message == ("component 'cards' would print 6 distinct cards in one PDF (6 cards); one PDF holds at "
                           "most 5 (writing it keeps ~5 KB of bookkeeping per face in memory)")
    assert err.fix == "split the component into several components (copies of one card are not limited)"
    assert (Path(err.location.file).name, err.location.line) == ("cards.yaml", 1)
    assert not (tmp_path / "o" / "mini").exists()

    three = numbered_game(tmp_path / "sets", 3)
    with pytest.raises(InputError) as info:
        build([cardgen.load_game(three)], BuildOptions(out=tmp_path / "o", sets=2), jobs=1)
    assert "would print 6 distinct cards in one PDF (3 cards × 2 sets)" in info.value.message
    assert info.value.fix.endswith(", or build fewer --sets")
    # copies are not limited: 3 cards of 4 copies each are 3 distinct cards
    many = numbered_game(tmp_path / "copies", 3)
    (many / "cards.yaml").write_text((many / "cards.yaml").read_text().replace("n: 2}", "n: 2, count: 4}"))
    (res,) = build([cardgen.load_game(many)], BuildOptions(out=tmp_path / "o", duplex="none"), jobs=1)
    assert res.files[0].cards == 6


def test_the_command_reports_the_limit_as_an_error_not_a_traceback(monkeypatch, tmp_path):
    from cardgen.cli import main

    monkeypatch.setattr(build_plan, "MAX_CARDS_PER_PDF", 5)
    path = numbered_game(tmp_path, 6)
    result = CliRunner().invoke(main, ["build", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    assert "cards.yaml:1" in result.output and "at most 5" in result.output
    assert "Traceback" not in result.output


def test_sheet_footers_are_laid_out_without_filling_the_text_caches(tmp_path):
    """Every sheet's footer is a new text (its sheet number): a deck of thousands of sheets
    must not fill the text engine's caches with them (~35 KB a footer), nor draw them
    differently from text laid out the usual way."""
    from cardgen.text import TextEngine
    from cardgen.text.shaping import shape_paragraph

    engine = TextEngine.default()
    text = "Mini · Cards · en · sheet 12345/67890 · fronts"
    fresh = engine.layout(text, size=1.2, valign="baseline", cache=False)
    layouts, shapings = engine._layout.cache_info().currsize, shape_paragraph.cache_info().currsize
    for n in range(30):
        engine.layout(f"{text} {n}", size=1.2, valign="baseline", cache=False)
    assert (engine._layout.cache_info().currsize, shape_paragraph.cache_info().currsize) == (layouts, shapings)
    assert fresh == engine.layout(text, size=1.2, valign="baseline")

    faces = {f"f{i}": render_face(POKER, i) for i in range(3)}
    placements = [Placement(f"f{i % 3}", None) for i in range(40)]
    plan = plan_sheet(210, 297, POKER, margin=5, gutter=None, bleed=None, paper_label="A4", count=40)
    before = engine._layout.cache_info().currsize
    data = write_sheets(placements, faces, POKER, plan, duplex="none", footer="Mini · Cards")
    assert engine._layout.cache_info().currsize == before
    with pdfplumber.open(io.BytesIO(data)) as doc:
        assert len(doc.pages) == 5 and "Mini · Cards · sheet 5/5 · fronts" in doc.pages[4].extract_text()


def test_the_face_file_renumbers_references_and_leaves_strings_alone():
    text = pikepdf.Dictionary(A=pikepdf.String("x(y) 1 0 R"), B=pikepdf.String(b"\x00\xff 2 0 R"),
                              C=pikepdf.Array([1, 0, 2])).unparse(resolved=True)
    text = text[:-2] + b"/D 3 0 R /E [4 0 R 5 0 R] /F 1.5 >>"
    assert relocatable.renumbered(lambda n: n + 100, text) == (
        b"<< /A (x\\(y\\) 1 0 R) /B <00ff203220302052> /C [ 1 0 2 ] /D 103 0 R /E [104 0 R 105 0 R] /F 1.5 >>")


def _spooled(monkeypatch, *, relocate: bool) -> list[str]:
    """Record which faces the writer finds relocated in the spool; with ``relocate`` False,
    the rendering tasks write none, and the writer makes every face's objects itself."""
    from cardgen.build import faces as faces_module

    found: list[str] = []
    real = SpooledFaces.relocated

    def relocated(self, key):
        made = real(self, key)
        if made is not None:
            found.append(key)
        return made

    monkeypatch.setattr(SpooledFaces, "relocated", relocated)
    if not relocate:
        monkeypatch.setattr(faces_module, "_relocate", lambda spool, key, pdf: None)
    return found


@pytest.mark.parametrize("mode", ["sheets", "single"])
def test_faces_relocated_where_they_are_drawn_make_the_same_document(monkeypatch, tmp_path, mode):
    """A document written as it goes stores each face as objects made by the task that drew
    it (in parallel), read from the spool; the document is the same bytes as when the writer
    makes them itself, and for any number of processes."""
    monkeypatch.setattr(pdfdoc, "IN_MEMORY_FACES", 4)
    game = cardgen.load_game(numbered_game(tmp_path, 40))

    def built(name: str, relocate: bool, jobs: int) -> tuple[bytes, list[str]]:
        with monkeypatch.context() as m:
            found = _spooled(m, relocate=relocate)
            (res,) = build([game], BuildOptions(out=tmp_path / name, duplex="none", mode=mode), jobs=jobs)
        (f,) = [f for f in res.files if f.component == "cards"]
        assert f.distinct_faces == 40
        return (tmp_path / name / f.path).read_bytes(), found

    spooled, found = built("spooled", True, 1)
    by_writer, none = built("writer", False, 1)
    assert sorted(found) == sorted(set(found)) and len(found) == 40   # every face from the spool, once
    assert none == []
    assert spooled == by_writer
    assert built("two", True, 2)[0] == spooled   # relocated by two worker processes
    with pikepdf.open(io.BytesIO(spooled)) as pdf:
        assert pdf.check_pdf_syntax() == []
        assert (len(pdf.pages), len(draws(pdf.pages[0]))) == ((3, 16) if mode == "sheets" else (40, 1))


#: A front filled with an SVG pattern: cairo writes the pattern's tile as a stream left
#: uncompressed, whose /Length is an object of its own.
PATTERNED = """{% extends "base.svg.j2" %}
{% block artwork %}<defs><pattern id="q" patternUnits="userSpaceOnUse" x="1" y="1" width="5" height="3">
<circle cx="2" cy="1.5" r="1" fill="#000"/></pattern></defs>
<rect x="2" y="30" width="{{ card.n * 0.5 + 3 }}" height="5" fill="url(#q)"/>{% endblock %}
"""


def _built_both_ways(monkeypatch, tmp_path: Path, template: str, cards: int) -> tuple[bytes, bytes]:
    """The cards' PDF of a game of ``cards`` cards numbered ``n`` drawn by ``template``, built by
    two processes in memory, then written as it goes (its faces relocated by the workers)."""
    lines = "\n".join(f"  - {{id: c{i}, n: {i}}}" for i in range(cards))
    game = cardgen.load_game(make_game(tmp_path, template, lines, "  n: {type: number}"))

    def built(name: str) -> bytes:
        (res,) = build([game], BuildOptions(out=tmp_path / name, duplex="none"), jobs=2)
        (f,) = [f for f in res.files if f.component == "cards"]
        return (tmp_path / name / f.path).read_bytes()

    in_memory = built("memory")
    monkeypatch.setattr(pdfdoc, "IN_MEMORY_FACES", cards // 3)
    return in_memory, built("file")


def test_faces_drawn_with_a_pattern_are_written_as_they_go_as_in_memory(monkeypatch, tmp_path):
    """Relocating a face copies every object its form uses, a bare number included (the
    tile's length): the document written as it goes prints what the one made in memory
    prints (it stopped with an internal error)."""
    in_memory, as_it_goes = _built_both_ways(monkeypatch, tmp_path, PATTERNED, 12)
    assert as_it_goes != in_memory and _printed(as_it_goes) == _printed(in_memory)
    with pikepdf.open(io.BytesIO(as_it_goes)) as pdf:
        assert pdf.check_pdf_syntax() == []
        tiles = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/PatternType") == 1]
        assert len(tiles) == 12


def _artwork() -> dict[str, str]:
    from tests.test_directdraw import SUBSET
    from tests.test_facepdf import CAIROSVG

    return {**SUBSET, **CAIROSVG, "texts": '{{ text("Quark " ~ card.n, 2, 30, size=6) }}'
                                           '<g opacity="0.5">{{ text("gluon", 2, 40, size=5) }}</g>'}


@pytest.mark.parametrize("artwork", list(_artwork()))
def test_every_kind_of_artwork_is_written_as_it_goes_as_in_memory(monkeypatch, tmp_path, artwork):
    """Whatever a face draws — each piece of SVG the direct drawer knows, what only cairosvg
    draws (gradients, masks, images), shared and unshared text — its objects are relocated
    by the workers and the document prints what the one made in memory prints."""
    body = _artwork()[artwork] + '<rect x="1" y="60" width="{{ card.n + 1 }}" height="2" fill="#123"/>'
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}' + body + "{% endblock %}\n"
    in_memory, as_it_goes = _built_both_ways(monkeypatch, tmp_path, template, 6)
    assert _printed(as_it_goes) == _printed(in_memory)


def test_a_relocated_face_travels_as_bytes_and_damage_is_a_clear_error(tmp_path):
    """A face's objects go to the writer through the spool as bytes: read back the same, and
    bytes that are not what was written (cut short, or anything else) are refused by name."""
    face = pdfdoc.relocatable("f1", render_face(POKER, 1))
    raw = face.to_bytes()
    assert relocatable.Relocatable.from_bytes(raw) == face
    assert face.objects[0][0].startswith(b"<<") and face.objects[0][1] is not None   # the form: a stream first
    from cardgen.draw import render_pdf
    from cardgen.render import Renderer

    qcd = cardgen.load_game("qcd")
    comp = qcd.components["cards"]
    lettered = pdfdoc.relocatable("q", render_pdf(Renderer(qcd).face(comp, comp.cards[0], "front").face)).to_bytes()
    known: dict = {}   # the glyph forms a writer has read: each decoded once, the same objects after
    first, again = (relocatable.Relocatable.from_bytes(lettered, known) for _ in range(2))
    assert first == again == relocatable.Relocatable.from_bytes(lettered) and len(known) == len(first.glyphs) > 0
    assert all(a is b for a, b in zip(first.glyphs, again.glyphs))
    for bad in (raw[:-1], raw + b"x", raw[:40], b"", lettered[:-1], lettered[:200], lettered + b"x"):
        for memo in (None, known):
            with pytest.raises(relocatable.DamagedRelocatable):
                relocatable.Relocatable.from_bytes(bad, memo)
    with Spool(tmp_path) as spool:
        spool.add("f1", render_face(POKER, 1))
        spool.add_relocated("f1", face)
    with SpooledFaces([(str(spool.path), spool.places, spool.relocated)]) as faces:
        assert faces.relocated("f1") == face and faces["f1"] == render_face(POKER, 1)
    spool.path.write_bytes(spool.path.read_bytes()[:spool.relocated["f1"][0] + 50])   # cut short since
    with SpooledFaces([(str(spool.path), spool.places, spool.relocated)]) as faces:
        with pytest.raises(CardgenError, match="cannot read"):
            faces.relocated("f1")
    with pytest.raises(pdfdoc.PdfWriteError, match="face 'f1' cannot be printed: its prepared form is damaged"):
        pdfdoc._relocated("f1", _Damaged())


class _Damaged(relocatable.RelocatedFaces):
    """Faces whose objects are not what was written."""

    def relocated(self, key):
        return relocatable.Relocatable.from_bytes(b"not objects")

    def __getitem__(self, key):
        raise KeyError(key)

    def __iter__(self):
        return iter(())

    def __len__(self):
        return 0


TWO_TEXTS = """{% extends "base.svg.j2" %}
{% block artwork %}
<rect x="0" y="0" width="50" height="12" fill="#123456"/>
{{ text(card.title, 2, 8, size=5, width=46, field="title") }}
{{ text(card.serial, 2, 60, size=4, width=46, field="serial") }}
{% endblock %}
"""


def test_the_measures_stay_in_the_builds_process_each_text_record_shared(monkeypatch, tmp_path):
    """A chunk carries each face's measured texts for the legibility gate, a text printed the
    same way on many faces as one record; the task that writes the PDF is handed the faces'
    order and spool, not the measures (a chunk of 1,667 cards carried 12 MB of them there)."""
    import cardgen.build as build_module

    lines = "\n".join(f"  - {{id: c{i}, title: Same title, serial: '#{i}'}}" for i in range(30))
    path = make_game(tmp_path, TWO_TEXTS, lines, "  title: {type: text}\n  serial: {type: text}")
    with open(path / "game.yaml", "a", encoding="utf-8") as fh:
        fh.write("checks:\n  - rule: text-size\n")   # a rule that reads the texts: the faces are measured
    game = cardgen.load_game(path)
    chunks, handed = [], []
    real_render, real_write = build_module.render_chunk, build_module.write_job

    def render(*args):
        chunks.append(real_render(*args))
        return chunks[-1]

    def write(game_ref, job_id, parts, *rest):
        handed.extend(parts)
        return real_write(game_ref, job_id, parts, *rest)

    monkeypatch.setattr(build_module, "render_chunk", render)
    monkeypatch.setattr(build_module, "write_job", write)
    (res,) = build([game], BuildOptions(out=tmp_path / "out", duplex="none"), jobs=1)
    assert [f.distinct_faces for f in res.files if f.component == "cards"] == [30]

    faces = [texts for chunk in chunks for _template, texts in chunk.measured.values()]
    assert len(faces) == 30
    titles = [t for texts in faces for t in texts if t["field"] == "title"]
    serials = [t for texts in faces for t in texts if t["field"] == "serial"]
    assert len(titles) == len(serials) == 30
    assert len({id(t) for t in titles}) == len(chunks)          # one record per chunk for the same title
    assert len({t["text"] for t in serials}) == 30              # each serial its own
    assert handed and all(not c.measured and not c.issues for c in handed)
    assert [c.order for c in handed] == [c.order for c in chunks]


def test_the_gate_reads_a_text_printed_the_same_way_on_many_faces_once():
    from cardgen.legibility import texts_as_data, texts_from_data, Printed

    one = Printed("Same", "title", 0, 14.0, "#ffffff", "#123456", 9.4, 0.0, "", False, 0)
    other = Printed("#7", "serial", 1, 11.0, "#000000", "#ffffff", 21.0, 0.0, "", False, 1)
    memo: dict = {}
    first = texts_from_data(texts_as_data([one, other]), memo)
    second = texts_from_data(texts_as_data([one]), memo)
    assert first == (one, other) and second == (one,)
    assert second[0] is first[0]
    assert texts_from_data(texts_as_data([one])) == (one,)


@pytest.mark.parametrize("at", ["first", "middle", "last"])
def test_a_full_disk_while_writing_a_large_document_is_a_clear_error(monkeypatch, at):
    """The temporary file a document of many faces is written to runs out of room — at its
    first write (the header), in the middle (faces and pages) or at its last (the trailer):
    an error saying where and what to do, no traceback."""
    import errno

    monkeypatch.setattr(pdfdoc, "IN_MEMORY_FACES", 4)
    faces = {f"f{i}": render_face(POKER, i) for i in range(12)}
    placements = [Placement(f"f{i}", None) for i in range(12)]
    plan = plan_sheet(210, 297, POKER, margin=5, gutter=None, bleed=None, paper_label="A4", count=12)
    calls = [0]
    fail_at = [None]
    real = pdfdoc._DocumentFile._out

    def out(self, data):
        calls[0] += 1
        if calls[0] == fail_at[0]:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, data)

    monkeypatch.setattr(pdfdoc._DocumentFile, "_out", out)
    write_sheets(placements, faces, POKER, plan, duplex="none", footer="Deck")
    total, calls[0] = calls[0], 0
    fail_at[0] = {"first": 1, "middle": total // 2, "last": total}[at]
    # the temporary folder's disk is named, with its own fix (as a deck's PDF error it was given
    # the fix "choose a larger --paper")
    with pytest.raises(FileSystemError) as info:
        write_sheets(placements, faces, POKER, plan, duplex="none", footer="Deck")
    assert info.value.code == "io" and "temporary file in" in info.value.message
    assert info.value.message.endswith("No space left on device")
    assert info.value.fix == "free some disk space there, or set TMPDIR to a folder on a disk with room"


def test_a_component_of_fifty_thousand_distinct_cards_loads_from_a_csv_and_one_more_is_refused(game_copy):
    """The component limit is 50,000 cards; a card list that long is read from a spreadsheet
    (a YAML file is bounded by its size first, and its error says so)."""
    from cardgen.loader import MAX_CARDS_PER_COMPONENT

    from .test_spreadsheets import use_sheet

    assert MAX_CARDS_PER_COMPONENT == 50_000
    copy = game_copy("qcd")
    quarks = [(p, c) for p in "udsc" for c in ("red", "green", "blue")]
    rows = ["id,particle,colour"] + [f"card-{i},{quarks[i % 12][0]},{quarks[i % 12][1]}" for i in range(50_000)]
    sheet = copy.path / "components" / "cards.csv"
    sheet.write_text("\n".join(rows) + "\n", encoding="utf-8")
    use_sheet(copy, "{from: cards.csv}")
    cards = copy.load().components["cards"].cards
    last = cards[-1]   # 49,999 = 12 × 4,166 + 7: a green strange quark
    assert len(cards) == 50_000 and last.id == "card-49999"
    assert (last.fields["particle"].id, last.fields["colour"].id) == ("s", "green")
    sheet.write_text("\n".join(rows) + "\ncard-50000,u,red\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        copy.load()
    assert info.value.message == "'cards.csv' has more than 50000 card rows"
    assert info.value.location.cell == "A50002" and info.value.fix == "split the component"


def test_cards_the_cache_holds_weigh_little_in_a_piece_of_work():
    """After a one-card edit a deck's cards are taken from the cache but one: one piece of work,
    not one per handful of cards; pieces of cards to render are cut as before, and a long run
    of cached cards weighs what rendering a few would (counted in cards, the 24 cards to draw
    below went into two pieces of 31 cards, and the other four pieces had nothing to draw)."""
    cached, drawn = build_plan.CACHED_WEIGHT, 1.0
    assert [len(c) for c in build_plan.chunks(list(range(36)), 2, [cached] * 20 + [drawn] + [cached] * 15)] == [36]
    assert ([len(c) for c in build_plan.chunks(list(range(30)), 2, [drawn] * 30)]
            == [len(c) for c in build_plan.chunks(list(range(30)), 2)] == [5] * 6)
    weights = [drawn] * 12 + [cached] * 160 + [drawn] * 12
    pieces = build_plan.chunks(list(range(len(weights))), 2, weights)
    assert [k for c in pieces for k in c] == list(range(len(weights)))
    assert [sum(weights[k] for k in c) for c in pieces] == [6, 6, 6, 6, 6, 4]   # a sixth of 34 each, the last less


def test_a_large_component_is_split_into_pieces_a_process_can_take_from_another():
    """Three pieces per process, but none above MAX_CHUNK cards: a process that runs out of
    work takes pieces from the other, so neither is left with a sixth of a large deck; the
    last pieces shrink, so that neither waits long for the other's last piece."""
    assert [len(c) for c in build_plan.chunks(list(range(30)), 2)] == [5] * 6
    pieces = build_plan.chunks(list(range(10_000)), 2)
    sizes = [len(c) for c in pieces]
    assert sizes[:36] == [build_plan.MAX_CHUNK] * 36
    assert sizes[36:-1] == sorted(sizes[36:-1], reverse=True) and sizes[-2] == build_plan.MAX_CHUNK // 8
    assert build_plan.MAX_CHUNK // 8 <= sizes[-1] < build_plan.MAX_CHUNK // 4 and len(pieces) < 52
    assert [k for c in pieces for k in c] == list(range(10_000))   # every card once, in order
