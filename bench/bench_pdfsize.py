"""What a build's PDFs weigh and carry: bytes per distinct face, fonts, and the face cache.

Run: .venv/bin/python bench/bench_pdfsize.py [--out FOLDER] [--edits N] [--checks N]   (prints a table; asserts nothing)

Without ``--out`` the four shipped games are built (English, A4) into a temporary folder; with
it, an existing build is read. For every PDF: its size, its distinct faces (the Form XObjects
its pages draw; a document without forms, such as the rules, counts its pages) and bytes per
distinct face (issue #18's target: ≤ 60 KB), where those bytes go (face artwork, fonts and
shared glyph forms, the rest), its fonts (every one embedded? any subset or glyph stored
twice?), then the cache's size beside the PDFs it serves. Parsing is done with pikepdf, as a
print shop's preflight would read the file.

``--edits N``: the cache through a designer's session instead: a copy of Particle Builder is
built and checked, then one card is edited, built and checked N times (through the library,
as ``cardgen build`` and ``cardgen check`` do it); the cache's entries and size after the
first edit and after the last, beside the PDFs (issue #18: the cache no larger than the PDFs).

``--checks N``: a process that keeps the cache open, as the preview does: the copy is built
once, then one card is edited and checked N times in that process; the cache's files (the
database, its write-ahead log and the log's index) after the first check and after the last.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pikepdf

ROOT = Path(__file__).resolve().parent.parent
KB = 1000
TARGET_PER_FACE = 60 * KB


@dataclass
class PdfFigures:
    path: Path
    size: int
    faces: int
    face_bytes: int     # compressed bytes of the face forms' own content streams
    font_bytes: int     # compressed bytes of the font programs, glyph procedures and shared glyph forms
    fonts: int
    not_embedded: list[str]
    stored_twice: int   # font programs, glyph procedures or glyph forms stored again (the same bytes in another object)

    @property
    def per_face(self) -> int:
        return self.size // max(1, self.faces)


def font_streams(font: pikepdf.Dictionary) -> list[pikepdf.Stream]:
    """The streams that embed a font: its program (FontFile*) or its Type 3 glyph procedures;
    empty when the font is only named (a viewer or printer would substitute it)."""
    if font.get("/Subtype") == "/Type3":
        return [proc for proc in font.get("/CharProcs", {}).values()]
    if font.get("/Subtype") == "/Type0":
        font = font.DescendantFonts[0]
    descriptor = font.get("/FontDescriptor", {})
    return [descriptor[k] for k in ("/FontFile", "/FontFile2", "/FontFile3") if k in descriptor]


def fonts_of(pdf: pikepdf.Pdf) -> dict[tuple[int, int], pikepdf.Dictionary]:
    """Every font a page or a form (nested forms and Type 3 fonts' resources too) uses."""
    found: dict[tuple[int, int], pikepdf.Dictionary] = {}
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
    return found


def glyph_forms(pdf: pikepdf.Pdf) -> list[pikepdf.Stream]:
    """The shared glyph forms (cardgen.glyphforms: named /cg…) the pages and their forms draw."""
    found: dict[tuple[int, int], pikepdf.Stream] = {}
    seen: set[tuple[int, int]] = set()
    todo = [page.obj.get("/Resources", {}) for page in pdf.pages]
    while todo:
        for name, xobj in todo.pop().get("/XObject", {}).items():
            if xobj.get("/Subtype") != "/Form" or xobj.objgen in seen:
                continue
            seen.add(xobj.objgen)
            if name.startswith("/cg"):
                found[xobj.objgen] = xobj
            else:
                todo.append(xobj.get("/Resources", {}))
    return list(found.values())


def figures(path: Path) -> PdfFigures:
    with pikepdf.open(path) as pdf:
        forms = {xobj.objgen: xobj for page in pdf.pages
                 for name, xobj in page.obj.get("/Resources", {}).get("/XObject", {}).items()
                 if xobj.get("/Subtype") == "/Form" and not name.startswith("/cg")}
        fonts = fonts_of(pdf)
        streams = list({s.objgen: s for font in fonts.values() for s in font_streams(font)}.values())
        streams += glyph_forms(pdf)
        digests = [hashlib.sha256(s.read_bytes()).digest() for s in streams]
        return PdfFigures(
            path=path, size=path.stat().st_size, faces=len(forms) or len(pdf.pages),
            face_bytes=sum(len(f.read_raw_bytes()) for f in forms.values()),
            font_bytes=sum(len(s.read_raw_bytes()) for s in streams),
            fonts=len(fonts),
            not_embedded=[str(f.get("/BaseFont", f.get("/Name", "?"))) for f in fonts.values() if not font_streams(f)],
            stored_twice=len(digests) - len(set(digests)),
        )


def cache_bytes(out: Path) -> int:
    return sum(p.stat().st_size for p in (out / ".cache").glob("**/*") if p.is_file())


def report(out: Path) -> None:
    rows = [figures(p) for p in sorted(out.glob("*/*/*.pdf"))]
    print(f"{'PDF':48} {'bytes':>9} {'faces':>5} {'per face':>9} {'artwork':>8} {'fonts':>7}  fonts: embedded, stored twice")
    for r in rows:
        name = r.path.relative_to(out).as_posix()
        mark = "" if r.per_face <= TARGET_PER_FACE else "  > 60 KB"
        embedded = "all" if not r.not_embedded else "NOT " + ", ".join(r.not_embedded)
        print(f"{name:48} {r.size:9} {r.faces:5} {r.per_face:9} {r.face_bytes:8} {r.font_bytes:7}  "
              f"{r.fonts} font(s), {embedded}, {r.stored_twice} twice{mark}")
    pdfs, cache = sum(r.size for r in rows), cache_bytes(out)
    over = [r for r in rows if r.per_face > TARGET_PER_FACE]
    print(f"\n{len(rows)} PDFs, {pdfs / 1e6:.2f} MB; {len(over)} above {TARGET_PER_FACE // KB} KB per distinct face"
          f" (largest: {max(r.per_face for r in rows) // KB} KB per face)")
    print(f"fonts: {sum(r.fonts for r in rows)} in all, {sum(len(r.not_embedded) for r in rows)} not embedded, "
          f"{sum(r.stored_twice for r in rows)} programs or glyphs stored twice within a document")
    print(f"cache: {cache / 1e6:.2f} MB beside {pdfs / 1e6:.2f} MB of PDFs ({cache / pdfs:.0%})")


CARD = "{id: H,     particle: H,     points: 5}"


def _particle_builder(tmp: str) -> tuple[Path, Path]:
    """A copy of Particle Builder with its templates, and an output folder beside it."""
    import shutil

    game, out = Path(tmp) / "games" / "particle-builder", Path(tmp) / "out"
    shutil.copytree(ROOT / "data/games/particle-builder", game)
    shutil.copytree(ROOT / "templates/particle-builder", game / "templates")
    return game, out


def check_session(checks: int) -> None:
    """See ``--checks`` in the module's text."""
    import cardgen

    with tempfile.TemporaryDirectory() as tmp:
        game, out = _particle_builder(tmp)
        cards = game / "components/particles.yaml"
        text = cards.read_text(encoding="utf-8")
        cardgen.build([cardgen.load_game(game)], cardgen.BuildOptions(out=out))
        pdfs = sum(p.stat().st_size for p in out.rglob("*.pdf"))

        def checked(n: int) -> str:
            cards.write_text(text.replace(CARD, CARD.replace("points: 5", f"points: {100 + n}")), encoding="utf-8")
            cardgen.check(cardgen.load_game(game), cache=out / ".cache")
            files = {p.name: p.stat().st_size for p in (out / ".cache").iterdir() if p.name.startswith("cache.sqlite")}
            return (f"cache files {sum(files.values()) / 1e3:6.0f} KB beside {pdfs / 1e3:.0f} KB of PDFs ("
                    + ", ".join(f"{name} {size / 1e3:.0f} KB" for name, size in sorted(files.items())) + ")")

        print(f"Particle Builder, after 1 check in one process:  {checked(1)}")
        for n in range(2, checks):
            checked(n)
        print(f"Particle Builder, after {checks} checks in one process: {checked(checks)}")


def edit_session(edits: int) -> None:
    """See ``--edits`` in the module's text."""
    import sqlite3

    import cardgen
    from cardgen.store import KINDS

    with tempfile.TemporaryDirectory() as tmp:
        game, out = _particle_builder(tmp)
        cards = game / "components/particles.yaml"
        text = cards.read_text(encoding="utf-8")

        def edited(n: int) -> str:
            cards.write_text(text.replace(CARD, CARD.replace("points: 5", f"points: {100 + n}")), encoding="utf-8")
            cardgen.build([cardgen.load_game(game)], cardgen.BuildOptions(out=out))
            cardgen.check(cardgen.load_game(game), cache=out / ".cache")
            with sqlite3.connect(out / ".cache/cache.sqlite") as db:
                rows = {kind: db.execute(f"SELECT count(*) FROM {kind}").fetchone()[0] for kind in (*KINDS, "blobs")}
            db.close()
            pdfs = sum(p.stat().st_size for p in out.rglob("*.pdf"))
            return (f"cache {cache_bytes(out) / 1e3:6.0f} KB beside {pdfs / 1e3:.0f} KB of PDFs; entries "
                    + ", ".join(f"{kind} {count}" for kind, count in rows.items()))

        print(f"Particle Builder, after 1 edit (built and checked):  {edited(1)}")
        for n in range(2, edits):
            edited(n)
        print(f"Particle Builder, after {edits} edits (built and checked): {edited(edits)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="read this build's output folder instead of building")
    parser.add_argument("--edits", type=int, help="the cache after this many edits of one card, each built and checked")
    parser.add_argument("--checks", type=int, help="the cache after this many edits, each checked in one process")
    args = parser.parse_args()
    if args.edits:
        edit_session(args.edits)
        return
    if args.checks:
        check_session(args.checks)
        return
    if args.out:
        report(args.out)
        return
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "cardgen", "build", "--out", tmp], check=True, capture_output=True, cwd=ROOT)
        report(Path(tmp))


if __name__ == "__main__":
    main()
