"""Glyph outlines kept once per machine (cardgen.outlinecache): a build into a new folder works
out no glyph another build wrote out before, and prints byte for byte what it prints without
them; a damaged, forged or misshapen entry, a changed font file or other code works them out
afresh; --no-cache takes and keeps nothing; the folder stays bounded."""

from __future__ import annotations

import marshal
import os
import shutil
from pathlib import Path

import pytest

import cardgen
from cardgen import glyphforms, machinefiles, outlinecache, pdfcontent
from cardgen.machinefiles import TaggedFiles
from cardgen.text.fonts import FONT_DIR, Face

FONT = FONT_DIR / "NotoSans-Regular.ttf"


@pytest.fixture
def fresh_process(monkeypatch):
    """This process as a new one would be: no outline worked out or read yet; each outline
    this test works out is counted."""
    glyphforms.glyph_form.cache_clear()
    monkeypatch.setattr(outlinecache, "_FONTS", {})
    made: list[tuple] = []
    for module, name in ((glyphforms, "_outline"), (pdfcontent, "_type3_outline")):
        real = getattr(module, name)

        def counting(face, gid, *rest, real=real, name=name):
            made.append((name, face.path.name, gid, *rest))
            return real(face, gid, *rest)

        monkeypatch.setattr(module, name, counting)
    yield made
    glyphforms.glyph_form.cache_clear()


def _pdfs(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.pdf"))}


def _entries() -> list[Path]:
    return sorted(outlinecache.default_folder().glob(f"*{outlinecache.SUFFIX}"))


def test_a_build_into_a_new_folder_works_out_no_glyph_again_and_prints_the_same(fresh_process, tmp_path, monkeypatch):
    made = fresh_process
    cardgen.build("qcd", cardgen.BuildOptions(out=tmp_path / "one"), jobs=1)
    first = list(made)
    assert {m[0] for m in first} == {"_outline", "_type3_outline"}   # faces' glyphs, footers' and sheets' text
    assert _entries()
    glyphforms.glyph_form.cache_clear()
    monkeypatch.setattr(outlinecache, "_FONTS", {})   # as another process
    made.clear()
    cardgen.build("qcd", cardgen.BuildOptions(out=tmp_path / "two"), jobs=1)
    assert made == []
    assert _pdfs(tmp_path / "two") == _pdfs(tmp_path / "one")


def test_without_the_cache_nothing_is_taken_or_kept(fresh_process, tmp_path):
    made = fresh_process
    cardgen.build("qcd", cardgen.BuildOptions(out=tmp_path / "one", cache=False), jobs=1)
    assert made and not outlinecache.default_folder().exists()
    outlinecache.kept(FONT, ("form", 36, False), lambda: glyphforms._outline(Face(0, FONT), 36, False),
                      glyphforms._is_outline)
    outlinecache.keep()
    glyphforms.glyph_form.cache_clear()
    made.clear()
    with machinefiles.switch(False):
        glyphforms.glyph_form(Face(0, FONT), 36, False)
    assert made == [("_outline", FONT.name, 36, False)]


def _kept_form(gid: int = 36) -> glyphforms.GlyphForm:
    return glyphforms.glyph_form(Face(0, FONT), gid, False)


def test_damaged_forged_or_misshapen_entries_are_worked_out_afresh(fresh_process, monkeypatch):
    made = fresh_process
    genuine_form = _kept_form()
    outlinecache.keep()
    (path,) = _entries()
    genuine = path.read_bytes()
    sign = TaggedFiles.tag
    forged = {("form", 36, False): (b"0 0 m 1000 1000 l h f", (0, 0, 1000, 1000))}
    for bad in (genuine[:-1] + bytes([genuine[-1] ^ 1]), genuine[:20], b"", b"\0" * 32 + genuine[32:],
                marshal.dumps(forged),                                           # no tag
                b"\1" * 32 + marshal.dumps(forged),                              # another user's tag
                sign(path.name, b"not marshal") + b"not marshal",
                sign(path.name, marshal.dumps([1, 2])) + marshal.dumps([1, 2]),
                sign(path.name, marshal.dumps({("form", 36, False): ("text", (0, 0, 1, 1))}))
                + marshal.dumps({("form", 36, False): ("text", (0, 0, 1, 1))}),
                sign(path.name, marshal.dumps({("form", 36, False): (b"x", (0, 0, 1.5, 1))}))
                + marshal.dumps({("form", 36, False): (b"x", (0, 0, 1.5, 1))})):
        path.write_bytes(bad)
        glyphforms.glyph_form.cache_clear()
        monkeypatch.setattr(outlinecache, "_FONTS", {})
        made.clear()
        assert _kept_form() == genuine_form
        assert made == [("_outline", FONT.name, 36, False)]


def test_a_changed_font_file_or_other_code_works_its_outlines_out_afresh(fresh_process, tmp_path, monkeypatch):
    made = fresh_process
    font = tmp_path / "Mine.ttf"
    shutil.copyfile(FONT, font)
    form = glyphforms.glyph_form(Face(0, font), 36, False)
    outlinecache.keep()
    assert len(_entries()) == 1

    def again() -> None:
        glyphforms.glyph_form.cache_clear()
        monkeypatch.setattr(outlinecache, "_FONTS", {})
        made.clear()
        assert glyphforms.glyph_form(Face(0, font), 36, False) == form

    again()
    assert made == []   # kept
    st = font.stat()
    os.utime(font, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    again()
    assert len(made) == 1
    monkeypatch.setattr(outlinecache, "writer_digest", lambda: "other code")
    again()
    assert len(made) == 1


def test_what_two_processes_add_to_a_font_is_kept_together(fresh_process, monkeypatch):
    made = fresh_process
    _kept_form(36)
    outlinecache.keep()
    monkeypatch.setattr(outlinecache, "_FONTS", {})   # another process, which read the file before the first kept
    _kept_form(37)
    outlinecache.keep()
    glyphforms.glyph_form.cache_clear()
    monkeypatch.setattr(outlinecache, "_FONTS", {})
    made.clear()
    _kept_form(36), _kept_form(37)
    assert made == []


def test_the_folder_stays_bounded(fresh_process, tmp_path, monkeypatch):
    fonts = []
    for n in range(6):
        fonts.append(tmp_path / f"f{n}.ttf")
        shutil.copyfile(FONT, fonts[-1])
    glyphforms.glyph_form(Face(0, fonts[0]), 36, False)
    outlinecache.keep()
    size = _entries()[0].stat().st_size
    monkeypatch.setattr(outlinecache, "LIMIT", 3 * size)
    for font in fonts[1:]:
        glyphforms.glyph_form(Face(0, font), 36, False)
        outlinecache.keep()
    assert sum(p.stat().st_size for p in _entries()) <= 3 * size
