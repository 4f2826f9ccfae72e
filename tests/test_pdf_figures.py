"""What a built PDF carries, read back with pikepdf as a print shop's preflight reads it:
bytes per distinct face, every font embedded and stored once, the cache beside the PDFs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pikepdf
import pytest

import cardgen
from cardgen.build import BuildOptions, build

#: Issue #18: a PDF weighs at most this per distinct face it prints.
BYTES_PER_FACE = 60_000


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out")
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=out))
    return out / "tutti-quantum/en"


def forms_drawn(pdf: pikepdf.Pdf) -> dict[tuple[int, int], pikepdf.Object]:
    return {xobj.objgen: xobj for page in pdf.pages
            for xobj in page.obj.get("/Resources", {}).get("/XObject", {}).values() if xobj.Subtype == "/Form"}


def fonts_used(pdf: pikepdf.Pdf) -> list[pikepdf.Object]:
    """Every font a page, a form drawn on it (nested ones too) or a Type 3 font uses."""
    found: dict[tuple[int, int], pikepdf.Object] = {}
    seen: set[tuple[int, int]] = set()
    todo = [page.obj.get("/Resources", {}) for page in pdf.pages]
    while todo:
        resources = todo.pop()
        for font in resources.get("/Font", {}).values():
            if font.objgen not in found:
                found[font.objgen] = font
                todo.append(font.get("/Resources", {}))
        for xobj in resources.get("/XObject", {}).values():
            if xobj.get("/Subtype") == "/Form" and xobj.objgen not in seen:
                seen.add(xobj.objgen)
                todo.append(xobj.get("/Resources", {}))
    return list(found.values())


def embedded(font: pikepdf.Object) -> list[pikepdf.Object]:
    """The streams holding a font's glyphs: its program (FontFile, FontFile2, FontFile3) or
    its Type 3 glyph procedures; none for a font that is only named."""
    if font.Subtype == "/Type3":
        return list(font.CharProcs.values())
    descendant = font.DescendantFonts[0] if font.Subtype == "/Type0" else font
    descriptor = descendant.get("/FontDescriptor", {})
    return [descriptor[k] for k in ("/FontFile", "/FontFile2", "/FontFile3") if k in descriptor]


def test_every_pdf_has_text_and_embeds_every_font_once(built):
    """Footers, tile labels and the rules' text layer all use fonts stored in the file, and
    no font program or glyph procedure is stored twice in one document."""
    pdfs = sorted(built.glob("*.pdf"))
    assert {p.name for p in pdfs} >= {"particles.pdf", "reference+pawn.pdf", "rules.pdf"}
    for path in pdfs:
        with pikepdf.open(path) as pdf:
            fonts = fonts_used(pdf)
            assert fonts, f"{path.name}: no text at all (footers are missing)"
            for font in fonts:
                assert embedded(font), f"{path.name}: font {font.get('/BaseFont', font.get('/Name'))} is not embedded"
            streams = {s.objgen: s for font in fonts for s in embedded(font)}
            digests = [hashlib.sha256(s.read_bytes()).digest() for s in streams.values()]
            assert len(digests) == len(set(digests)), f"{path.name}: a font program or glyph is stored twice"


def test_footers_are_in_one_type3_font_set_per_document(built):
    """The footer of every sheet is drawn with the document's own glyph fonts: one set for
    the whole file, not one per page."""
    with pikepdf.open(built / "particles.pdf") as pdf:
        per_page = [{f.objgen for f in page.obj.Resources.get("/Font", {}).values()} for page in pdf.pages]
        assert len(pdf.pages) >= 2 and all(per_page)
        assert len(set().union(*per_page)) <= 2   # 255 glyphs a font: the footers' glyphs fit one or two
        fonts = [pdf.get_object(og) for og in set().union(*per_page)]
        assert all(f.Subtype == "/Type3" and f.ToUnicode for f in fonts)


@pytest.mark.parametrize("name", ["particles.pdf", "reference+pawn.pdf", "score-tokens.pdf"])
def test_an_imposed_pdf_weighs_at_most_60_kb_per_distinct_face(built, name):
    """Each distinct face is one Form XObject, drawn wherever a copy of it is printed: the
    file grows with the faces, not with the copies."""
    path = built / name
    with pikepdf.open(path) as pdf:
        forms = forms_drawn(pdf)
        placed = sum(page.Contents.read_bytes().count(b" Do") for page in pdf.pages)
    assert forms and placed >= len(forms)
    assert path.stat().st_size <= BYTES_PER_FACE * len(forms), (path.stat().st_size, len(forms))


def test_the_cache_is_no_larger_than_the_pdfs_it_serves(built):
    out = built.parent.parent
    cache = sum(p.stat().st_size for p in (out / ".cache").iterdir() if p.is_file())
    pdfs = sum(p.stat().st_size for p in out.rglob("*.pdf"))
    assert 0 < cache <= pdfs, (cache, pdfs)
