"""Text drawn as glyphs (cardgen.glyphprocs): each glyph's outline stored once per face,
document and cache; the shipped PDFs within issue #18's 60 KB per distinct face; drawn
glyphs never read as text."""

from __future__ import annotations

import io
import sqlite3
import subprocess
from collections import Counter
from pathlib import Path

import pdfplumber
import pikepdf
import pytest

import cardgen
from cardgen import glyphprocs
from cardgen.build import BuildOptions, build
from cardgen.cache import CachedFace, FaceCache
from cardgen.draw import render_pdf

from tests.test_draw import one_card

GAMES = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")
PER_FACE = 60_000


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    """The default build of the four shipped games (English, A4)."""
    out = tmp_path_factory.mktemp("shipped")
    build([cardgen.load_game(g) for g in GAMES], BuildOptions(out=out), jobs=1)
    return out


def pdfs(out: Path) -> list[Path]:
    found = sorted(out.glob("*/*/*.pdf"))
    assert len(found) == 20
    return found


def forms(pdf: pikepdf.Pdf) -> dict:
    """The faces a document's pages draw (its glyph forms, /cg…, are not faces)."""
    return {x.objgen: x for page in pdf.pages for name, x in page.obj.get("/Resources", {}).get("/XObject", {}).items()
            if x.get("/Subtype") == "/Form" and not name.startswith("/cg")}


def glyph_forms(resources, seen=None) -> dict:
    """objgen → glyph form of every glyph a resource dictionary reaches (through faces too)."""
    seen = set() if seen is None else seen
    found = {}
    for name, x in resources.get("/XObject", {}).items():
        if name.startswith("/cg"):
            found[x.objgen] = x
        elif x.get("/Subtype") == "/Form" and x.objgen not in seen:
            seen.add(x.objgen)
            found.update(glyph_forms(x.get("/Resources", {}), seen))
    return found


def fonts_in(resources, seen=None) -> list:
    """Every font a resource dictionary reaches (forms, patterns and fonts' own resources)."""
    seen = set() if seen is None else seen
    found = []
    for font in resources.get("/Font", {}).values():
        if font.objgen not in seen:
            seen.add(font.objgen)
            found += [font, *fonts_in(font.get("/Resources", {}), seen)]
    for kind in ("/XObject", "/Pattern"):
        for obj in resources.get(kind, {}).values():
            if isinstance(obj, pikepdf.Stream) and obj.objgen not in seen:
                seen.add(obj.objgen)
                found += fonts_in(obj.get("/Resources", {}), seen)
    return found


def procs_of(pdf: pikepdf.Pdf) -> dict[tuple[int, int], bytes]:
    """objgen → bytes of every glyph form and Type 3 glyph procedure the pages use."""
    out = {}
    for page in pdf.pages:
        for font in fonts_in(page.obj.get("/Resources", {})):
            if font.get("/Subtype") == "/Type3":
                for proc in font.CharProcs.values():
                    out[proc.objgen] = proc.read_bytes()
        for objgen, form in glyph_forms(page.obj.get("/Resources", {})).items():
            out[objgen] = form.read_bytes()
    return out


def test_every_shipped_pdf_weighs_at_most_60_kb_per_distinct_face(shipped):
    """Distinct faces: the forms a document's pages draw; a rule sheet, which has none,
    counts its pages."""
    for path in pdfs(shipped):
        with pikepdf.open(path) as pdf:
            faces = len(forms(pdf)) or len(pdf.pages)
        assert path.stat().st_size / faces <= PER_FACE, (path.relative_to(shipped), path.stat().st_size, faces)


def test_every_shipped_pdf_embeds_its_fonts_and_stores_each_glyph_once(shipped):
    for path in pdfs(shipped):
        with pikepdf.open(path) as pdf:
            fonts = [f for page in pdf.pages for f in fonts_in(page.obj.get("/Resources", {}))]
            assert fonts, path   # the footers' or the text layer's
            for font in fonts:
                if font.get("/Subtype") == "/Type3":
                    assert len(font.CharProcs) == int(font.LastChar) - int(font.FirstChar) + 1
                else:   # the rule sheets' invisible text layer: a TrueType program of blank glyphs
                    descendant = font.DescendantFonts[0] if font.get("/Subtype") == "/Type0" else font
                    assert "/FontFile2" in descendant.FontDescriptor, (path, font.get("/BaseFont"))
            procs = procs_of(pdf)
            twice = [n for n in Counter(procs.values()).values() if n > 1]
            assert procs and not twice, (path.relative_to(shipped), len(twice))


def test_a_document_draws_each_glyph_from_one_form_whatever_its_faces(shipped):
    """Every face of a card sheet that shows a glyph draws the document's one form of it, and
    so does the footer's font."""
    with pikepdf.open(shipped / "qcd/en/cards.pdf") as pdf:
        page = pdf.pages[0].obj
        by_face = [{objgen for objgen in glyph_forms(x.get("/Resources", {}))} for x in forms(pdf).values()]
        shared = set.intersection(*[f for f in by_face if f])
        assert len([f for f in by_face if f]) > 10 and shared   # one form object, used by every face
        # the footer is real text, a Type 3 font whose procedures draw the same forms
        footer = {x.objgen for f in page.Resources.Font.values() for x in f.Resources.XObject.values()}
        assert footer & set.union(*by_face) and all(b" Do" in p.read_bytes() or p.read_bytes().endswith(b" d1")
                                       for f in page.Resources.Font.values() for p in f.CharProcs.values())


def test_a_face_keeps_each_glyph_once_whatever_its_sizes(tmp_path):
    """cairo makes a Type 3 font per text size; the face draws one form per glyph instead, the
    font's outline in 1/1000 em (the same bytes at every size), and no font."""
    face = one_card(tmp_path, '{{ text("Quark gluon", 2, 20, size=5) }}{{ text("gluon Quark", 2, 40, size=9) }}')
    glyphs = {(g.face, g.gid) for t in face.texts for g in t.glyphs if g.face.has_outline(g.gid)}
    with pikepdf.open(io.BytesIO(render_pdf(face))) as pdf:
        resources = pdf.pages[0].Resources
        assert "/Font" not in resources
        drawn = glyph_forms(resources)
        assert all("/Filter" not in x for x in drawn.values())   # kept apart by the cache
        bodies = sorted(x.read_raw_bytes() for x in drawn.values())
        ops = [op for _o, op in pikepdf.parse_content_stream(pdf.pages[0])]
    assert bodies == sorted(glyphprocs.glyph_proc(f, g).partition(b" d1 ")[2] for f, g in glyphs)
    assert len(bodies) == len(set("Quarkgluon")) == 9
    assert ops.count(pikepdf.Operator("Do")) >= 2 * len("Quarkgluon")   # each occurrence drawn


def test_a_glyph_procedure_is_its_outline_in_thousandths_of_an_em():
    engine = cardgen.text.TextEngine.default()
    run = engine.layout("H", size=5, cache=False).lines[0].runs[0]
    face, gid = run.face, run.glyphs[0].gid
    proc = glyphprocs.glyph_proc(face, gid).decode()
    head, _, path = proc.partition(" d1 ")
    advance = face.hb_font.get_glyph_h_advance(gid) * 1000 / face.upem
    x0, y0, x1, y1 = (float(v) for v in head.split()[2:])
    assert float(head.split()[0]) == pytest.approx(advance, abs=0.05)
    assert y0 == 0 and 700 < y1 < 730 and 0 < x0 < x1 < advance   # NotoSans' H: cap height 714, on the baseline
    assert path == ("643 0 m 553 0 l 553 333 l 187 333 l 187 0 l 97 0 l 97 714 l 187 714 l 187 412 l 553 412 l "
                    "553 714 l 643 714 l h f")   # NotoSans-Regular's H, 1000 units to the em
    assert (x0, x1) == (97, 643)


def test_drawn_glyphs_read_as_no_text(tmp_path):
    face = one_card(tmp_path, '{{ text("Quark gluon", 2, 20, size=6) }}')
    data = render_pdf(face)
    shown = subprocess.run(["pdftotext", "-", "-"], input=data, capture_output=True, check=True).stdout
    assert shown.strip() == b""
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        chars, curves = pdf.pages[0].chars, pdf.pages[0].curves
    assert chars == [] and len(curves) >= len("Quarkgluon")   # shapes, as the outlines were, not characters


def test_a_rule_sheet_reads_as_its_text_layer_alone(shipped, tmp_path):
    """Without its invisible text layer (each page's last content stream), a rule sheet
    extracts nothing: its drawn glyphs add no text to what the layer gives."""
    path = shipped / "qcd/en/rules.pdf"
    with_layer = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, check=True).stdout
    assert b"QCD" in with_layer
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            contents = page.obj.Contents
            assert isinstance(contents, pikepdf.Array) and b"3 Tr" in contents[-1].read_bytes()
            page.obj.Contents = pikepdf.Array(list(contents)[:-1])
        pdf.save(tmp_path / "no-layer.pdf")
    without = subprocess.run(["pdftotext", str(tmp_path / "no-layer.pdf"), "-"], capture_output=True, check=True).stdout
    assert without.strip() == b""


def _pieces(root: Path) -> int:
    with sqlite3.connect(root / "cache.sqlite") as db:
        count = db.execute("SELECT count(*) FROM pieces").fetchone()[0]
    db.close()
    return count


def test_the_cache_keeps_a_glyph_once_for_all_faces_and_gives_faces_back_exactly(tmp_path):
    face_a = one_card(tmp_path / "a", '{{ text("Quark gluon", 2, 20, size=5) }}')
    face_b = one_card(tmp_path / "b", '{{ text("gluon Quarks", 2, 30, size=7) }}')
    a, b = render_pdf(face_a), render_pdf(face_b)
    def bodies(face) -> set[bytes]:
        return {glyphprocs.glyph_proc(g.face, g.gid).partition(b" d1 ")[2] for t in face.texts for g in t.glyphs
                if g.face.has_outline(g.gid)}

    procs_a, procs_b = bodies(face_a), bodies(face_b)
    assert {a[s:e] for s, e in glyphprocs.proc_spans(a)} == procs_a and len(procs_a | procs_b) == 10   # + "s"
    cache = FaceCache(tmp_path / ".cache")
    cache.put([("a", CachedFace("sa", a, (), ())), ("b", CachedFace("sb", b, (), ()))], scope="s")
    assert _pieces(tmp_path / ".cache") == 10
    with sqlite3.connect(tmp_path / ".cache/cache.sqlite") as db:
        kept = b"".join(row[0] for row in db.execute("SELECT data FROM blobs"))
    db.close()
    assert len(kept) < (len(a) + len(b)) / 10   # compressed, b against a, without their glyphs
    assert cache.get("a").pdf == a and cache.get("b").pdf == b
    cache.keep_only({"s": ["a"]})
    assert _pieces(tmp_path / ".cache") == len(procs_a) == 9
    assert cache.get("a").pdf == a and cache.get("b") is None


def test_an_altered_glyph_piece_is_a_miss(tmp_path):
    """A piece is part of the face's bytes, whose digest the entry's tag binds."""
    a = render_pdf(one_card(tmp_path / "a", '{{ text("Quark", 2, 20, size=5) }}'))
    cache = FaceCache(tmp_path / ".cache")
    cache.put([("a", CachedFace("sa", a, (), ()))], scope="s")
    with sqlite3.connect(tmp_path / ".cache/cache.sqlite") as db:
        (number, data), *_ = db.execute("SELECT id, data FROM pieces ORDER BY id").fetchall()
        from cardgen.store import _zlib
        forged = _zlib.decompress(data).replace(b" f", b" 0 0 1000 1000 re f")
        db.execute("UPDATE pieces SET data = ? WHERE id = ?", (_zlib.compress(forged), number))
    db.close()
    fresh = FaceCache(tmp_path / ".cache")
    fresh.store._bases.clear()
    assert fresh.get("a") is None


def test_the_same_face_drawn_twice_is_the_same_bytes(tmp_path):
    face = one_card(tmp_path, '{{ text("Quark gluon ∞", 2, 20, size=5) }}')
    assert render_pdf(face) == render_pdf(face)


def test_text_cairo_writes_another_way_is_drawn_as_outlines(tmp_path, monkeypatch):
    """Should cairo write text operators canonical_face does not read, the face is drawn
    with its text as outlines in the page content: the same picture, never a broken one."""
    face = one_card(tmp_path, '{{ text("Quark gluon", 2, 20, size=6) }}')

    def refuse(data, fonts):
        raise glyphprocs.Unconvertible("text operator '")

    monkeypatch.setattr(glyphprocs, "canonical_face", refuse)
    with pikepdf.open(io.BytesIO(render_pdf(face))) as pdf:
        page = pdf.pages[0]
        ops = [op for _o, op in pikepdf.parse_content_stream(page)]
        assert "/Font" not in page.Resources and not glyph_forms(page.Resources)
    assert ops.count(pikepdf.Operator("c")) > 50 and pikepdf.Operator("Do") not in ops
