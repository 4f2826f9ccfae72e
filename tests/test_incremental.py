"""Incremental builds: the face cache reuses what did not change, and only what did is redone."""

from __future__ import annotations

import gc
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest

import cardgen
from cardgen import render
from cardgen.build import BuildOptions, build
from cardgen.cache import CachedFace, FaceCache


@pytest.fixture
def count_renders(monkeypatch):
    calls: list[tuple[str, str, str]] = []
    real = render.Renderer.face

    def counting(self, component, card, side="front", mark=None):
        calls.append((component.id, card.id, side))
        return real(self, component, card, side, mark)

    monkeypatch.setattr(render.Renderer, "face", counting)
    return calls


def test_no_change_rebuild_renders_and_rewrites_nothing(tmp_path, count_renders):
    game = cardgen.load_game("qcd")
    build([game], BuildOptions(out=tmp_path), jobs=1)
    first = len(count_renders)
    pdfs = [tmp_path / "qcd/en" / name for name in ("cards.pdf", "rules.pdf", "answers.pdf")]
    stamps = [pdf.stat().st_mtime_ns for pdf in pdfs]
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    cards = [c for c in count_renders if c[0] == "cards"]
    assert len(cards) == 50 and len(count_renders) == first     # 25 cards × 2 sides and the sheet pages, then nothing
    assert {c[0] for c in count_renders} == {"cards", "rules", "answers"}
    assert [pdf.stat().st_mtime_ns for pdf in pdfs] == stamps   # the PDFs were not even rewritten


def test_one_card_edit_renders_only_that_card(game_copy, tmp_path, count_renders, monkeypatch):
    from cardgen import sheets

    laid_out: list[str] = []
    real_layout = sheets.laid_out
    monkeypatch.setattr(sheets, "laid_out",
                        lambda game, kind, *a: laid_out.append(kind) or real_layout(game, kind, *a))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    g = game_copy("qcd")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    before = (out / "qcd/en/cards.pdf").read_bytes()
    count_renders.clear()
    g.edit("tables/flavours.yaml", "energy_mev: 1500", "energy_mev: 1600")   # a table: every charm card
    g.edit("components/cards.yaml", "  - id: wild-w\n    particle: W+\n", "  - id: wild-w\n    particle: W-\n")
    build([g.load()], BuildOptions(out=out), jobs=1)
    rendered = {(c, card) for c, card, _side in count_renders if c == "cards"}
    assert {c for c, _card, _ in count_renders} == {"cards", "rules", "answers"}
    # a table edit changes every face of the game; isolate the card edit with a second round
    count_renders.clear()
    laid_out.clear()
    g.edit("components/cards.yaml", "  - id: wild-w\n    particle: W-\n", "  - id: wild-w\n    particle: W+\n")
    build([g.load()], BuildOptions(out=out), jobs=1)
    # of the cards only the edited one; the answer key derives from the deck, so it is laid
    # out again, and, its pages the same (it prints no wild card's particle), not rendered;
    # the rule sheet never reads the deck (test_rule_sheets.py::test_the_rule_sheet_never_
    # reads_the_cards) and is kept, as after the table edit it was rendered again
    assert {(c, card) for c, card, _ in count_renders if c == "cards"} == {("cards", "wild-w")}
    assert {c for c, _card, _ in count_renders} == {"cards"}
    assert laid_out == ["answers"]
    assert len(rendered) == 25
    assert (out / "qcd/en/cards.pdf").read_bytes() != before
    fresh = tmp_path / "fresh"
    build([g.load()], BuildOptions(out=fresh, cache=False), jobs=1)
    for name in ("cards.pdf", "rules.pdf", "answers.pdf"):
        assert (out / "qcd/en" / name).read_bytes() == (fresh / "qcd/en" / name).read_bytes()


def test_a_sheet_is_drawn_again_only_when_its_pages_change(game_copy, tmp_path, monkeypatch):
    """A particle card's points are printed on no sheet: the answer key, which derives from
    the cards, is laid out again, found the same, and not drawn; the rule sheet, which never
    reads the cards, is not even laid out. A target's points are printed in the answer key:
    it alone is drawn again. A sheet edited since it was written is drawn again. Every time,
    both files are byte for byte what a build without a cache writes."""
    from cardgen import draw
    from cardgen import sheets as sheets_module

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    g = game_copy("particle-builder")
    out, sheets = tmp_path / "out", ("rules", "answers")
    drawn: list[str] = []
    laid_out: list[str] = []
    real, real_layout = draw.render_pdf, sheets_module.laid_out   # where every sheet is laid out
    monkeypatch.setattr(draw, "render_pdf", lambda face: drawn.append(face.component) or real(face))
    monkeypatch.setattr(sheets_module, "laid_out",
                        lambda game, kind, *a: laid_out.append(kind) or real_layout(game, kind, *a))
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert sorted(set(c for c in drawn if c in sheets)) == ["answers", "rules"]
    edits = [("particles.yaml", "points: 5", "points: 6", set(), {"answers"}),
             ("targets.yaml", "requires: [u, u, d],      points: 10", "requires: [u, u, d],      points: 11",
              {"answers"}, {"answers"}),
             ("particles.yaml", "points: 6", "points: 7", {"rules"}, {"rules", "answers"})]
    for n, (name, old, new, redrawn, laid) in enumerate(edits):
        if redrawn == {"rules"}:   # edited by hand since the last build: not the file the manifest lists
            with open(out / "particle-builder/en/rules.pdf", "ab") as f:
                f.write(b"\n")
        drawn.clear()
        laid_out.clear()
        g.edit(f"components/{name}", old, new)
        cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
        assert {c for c in drawn if c in sheets} == redrawn
        assert set(laid_out) == laid
        fresh = tmp_path / f"fresh-{n}"
        cardgen.build(str(g.path), BuildOptions(out=fresh, cache=False), jobs=1)
        for kind in sheets:
            name = f"particle-builder/en/{kind}.pdf"
            assert (out / name).read_bytes() == (fresh / name).read_bytes()


def test_a_sheet_laid_out_the_same_is_not_rendered_and_reports_what_rendering_would(game_copy, tmp_path,
                                                                                      monkeypatch, count_renders):
    """A card edit the answer key does not print: the key is laid out, its pages found the
    same as those its file was rendered from, and taken as it is, with the untranslated
    strings and text issues its rendering reported then: the build says exactly what a build
    without a cache says, and writes the same bytes."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    g = game_copy("particle-builder")
    catalogs = g.path / "locale/de/LC_MESSAGES"
    catalogs.mkdir(parents=True)
    for name in ("common.po", "particle-builder.po"):
        shutil.copy(Path(cardgen.__file__).parent.parent / "data/locale/de/LC_MESSAGES" / name, catalogs / name)
    # a target name no catalog translates, and one too long for its answer-key cell
    g.edit("components/targets.yaml", "name: Positive pion,", "name: Pion with a name no catalog has,")
    g.edit("components/targets.yaml", "name: Neutral kaon,", f"name: {'Neutralkaon' * 12},")
    out = tmp_path / "out"
    options = BuildOptions(out=out, lang="de", allow_overflow=True)
    first = cardgen.build(str(g.path), options, jobs=1)[0]
    assert ("Pion with a name no catalog has", "targets.name") in first.untranslated
    assert any(i.component == "answers" for i in first.issues)
    count_renders.clear()
    g.edit("components/particles.yaml", "points: 5", "points: 6")
    kept = cardgen.build(str(g.path), options, jobs=1)[0]
    assert "answers" not in {c for c, _card, _side in count_renders}
    fresh = cardgen.build(str(g.path), BuildOptions(out=tmp_path / "fresh", lang="de", allow_overflow=True,
                                                    cache=False), jobs=1)[0]
    assert kept.untranslated == fresh.untranslated and kept.issues == fresh.issues
    for name in ("answers.pdf", "rules.pdf", "particles.pdf"):
        assert (out / "particle-builder/de" / name).read_bytes() == (tmp_path / "fresh/particle-builder/de" /
                                                                     name).read_bytes()


def test_no_cache_renders_everything_again(tmp_path, count_renders):
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    count_renders.clear()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path, cache=False), jobs=1)
    assert len([c for c in count_renders if c[0] == "cards"]) == 50
    assert {c[0] for c in count_renders} == {"cards", "rules", "answers"}


def test_cached_build_is_identical_to_a_fresh_one(tmp_path):
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path / "a"), jobs=1)
    (tmp_path / "a/tutti-quantum/en/particles.pdf").unlink()          # forces re-imposition from cache
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path / "a"), jobs=2)
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path / "b", cache=False), jobs=2)
    for name in ("particles.pdf", "reference+pawn.pdf", "score-tokens.pdf"):   # reference cards and pawn share a sheet
        assert (tmp_path / "a/tutti-quantum/en" / name).read_bytes() == (tmp_path / "b/tutti-quantum/en" / name).read_bytes()
    a = json.loads((tmp_path / "a/tutti-quantum/en/manifest.json").read_text())
    b = json.loads((tmp_path / "b/tutti-quantum/en/manifest.json").read_text())
    assert a == b


def test_a_damaged_cache_entry_is_a_miss_not_a_wrong_card(tmp_path, count_renders):
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    with sqlite3.connect(tmp_path / ".cache" / "cache.sqlite") as db:
        # 50 faces, stored once per distinct PDF (every card shares its back)
        distinct = db.execute("SELECT count(DISTINCT digest) FROM faces").fetchone()[0]
        assert db.execute("UPDATE blobs SET data = CAST('%PDF-1.4 garbage' AS BLOB) "
                          "WHERE digest IN (SELECT digest FROM faces)").rowcount == distinct < 30
    db.close()
    (tmp_path / "qcd/en/cards.pdf").unlink()
    count_renders.clear()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    assert len(count_renders) == 50


@pytest.mark.parametrize("damage", ["garbage", "torn"])
def test_a_damaged_cache_file_is_replaced(tmp_path, count_renders, damage):
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    before = (tmp_path / "qcd/en/cards.pdf").read_bytes()
    db = tmp_path / ".cache" / "cache.sqlite"
    with sqlite3.connect(db) as conn:   # move every entry from the write-ahead log into the file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    size = db.stat().st_size
    assert size > 100_000
    # damaged behind the back of this process, which still has the file open
    noise = bytes((i * 7919) % 251 for i in range(size))
    # garbage: not a database at all; torn: the header page intact, every other page noise
    db.write_bytes(noise if damage == "garbage" else db.read_bytes()[:4096] + noise[4096:])
    (tmp_path / "qcd/en/cards.pdf").unlink()
    count_renders.clear()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    # every card face, and the sheets: the damaged cache can no longer vouch for them
    assert len([r for r in count_renders if r[0] == "cards"]) == 50
    assert {r[0] for r in count_renders} == {"cards", "rules", "answers"}
    assert (tmp_path / "qcd/en/cards.pdf").read_bytes() == before
    count_renders.clear()
    (tmp_path / "qcd/en/cards.pdf").unlink()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)   # the new file caches again
    assert count_renders == []


def test_faces_and_templates_share_one_cache_file(tmp_path):
    build([cardgen.load_game("qcd"), cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path), jobs=2)
    cache = tmp_path / ".cache"
    assert {p.name for p in cache.iterdir()} <= {"cache.sqlite", "cache.sqlite-wal", "cache.sqlite-shm"}
    with sqlite3.connect(cache / "cache.sqlite") as db:
        faces = db.execute("SELECT count(*) FROM faces").fetchone()[0]
        templates = db.execute("SELECT count(*) FROM templates").fetchone()[0]
    db.close()
    assert faces == 50 + sum(len(c.cards) * (2 if c.back else 1)
                             for c in cardgen.load_game("tutti-quantum").components.values())
    assert templates >= 4


def test_building_into_many_folders_keeps_few_cache_files_open(tmp_path):
    def open_caches() -> int:
        fds = Path("/proc/self/fd")
        return sum(1 for fd in fds.iterdir() if "cache.sqlite" in os.path.realpath(fd))

    game = cardgen.load_game("qcd")
    for i in range(10):
        build([game], BuildOptions(out=tmp_path / str(i)), jobs=1)
    gc.collect()
    assert open_caches() <= 4 * 3   # the four most recent: database, log and index each


def test_damaged_compiled_templates_are_compiled_again(tmp_path, monkeypatch, count_renders):
    from cardgen.templatecache import default_folder

    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    before = (tmp_path / "qcd/en/cards.pdf").read_bytes()
    kept = list(default_folder().glob("*.code"))   # the machine's copies, cut short too
    assert len(kept) >= 3
    for path in kept:
        path.write_bytes(path.read_bytes()[:60])
    with sqlite3.connect(tmp_path / ".cache" / "cache.sqlite") as db:
        # entries cut short: Jinja would fail to unpickle or unmarshal them
        assert db.execute("UPDATE blobs SET data = substr(data, 1, 60) "
                          "WHERE digest IN (SELECT digest FROM templates)").rowcount >= 3
        db.execute("DELETE FROM faces")
    db.close()
    monkeypatch.setattr(render, "_COMPILED", {})   # as a new process: nothing compiled in memory
    (tmp_path / "qcd/en/cards.pdf").unlink()
    count_renders.clear()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    assert len(count_renders) == 50   # the faces; the sheets are still vouched for, and kept
    assert (tmp_path / "qcd/en/cards.pdf").read_bytes() == before


def test_a_cache_file_of_another_layout_is_emptied(tmp_path, count_renders):
    (tmp_path / ".cache").mkdir()
    with sqlite3.connect(tmp_path / ".cache" / "cache.sqlite") as db:   # the first layout: no checksum column
        db.execute("CREATE TABLE faces (key TEXT PRIMARY KEY, meta TEXT NOT NULL, data BLOB NOT NULL) WITHOUT ROWID")
    db.close()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    (tmp_path / "qcd/en/cards.pdf").unlink()
    count_renders.clear()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    assert count_renders == []   # the first build could store its faces


def test_the_cache_says_which_faces_it_holds_in_one_query(tmp_path):
    """present(): the keys with an entry, however many are asked about at once (SQLite
    binds at most 999 values per statement); a cache that cannot be read holds nothing."""
    cache = FaceCache(tmp_path / ".cache")
    face = CachedFace("svg", b"%PDF-1.5 face", (), ())
    stored = [f"key-{i}" for i in range(0, 2400, 2)]
    cache.put([(k, face) for k in stored])
    asked = [f"key-{i}" for i in range(2400)] + ["key-0"]
    assert cache.present(asked) == set(stored)
    assert FaceCache(None).present(asked) == set()


def test_a_new_cache_file_has_small_pages(tmp_path):
    """Entries are compressed to a few kilobytes: with 16 KiB pages the half-empty last page
    of each made the file a fifth larger than its contents; with 1 KiB pages an entry's row
    (key, digests, tag: ~300 bytes) spills to a page of its own (measured on the shipped
    build: 1 KiB 1.04 MB, 2 KiB 0.83 MB, 4 KiB 0.91 MB)."""
    cache = FaceCache(tmp_path / ".cache")
    cache.put([("k", CachedFace("svg", b"%PDF-1.5 face", (), ()))])
    with sqlite3.connect(tmp_path / ".cache/cache.sqlite") as conn:
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 2048
    conn.close()


def test_a_build_lays_out_each_band_of_a_shared_sheet_once(tmp_path, monkeypatch):
    """Planning, sorting the kept faces and writing each PDF all ask for the band plans of
    the components that may share a sheet: each grid is searched once per process (three
    times each before), and the files are those a build without the memory writes."""
    from cardgen.imposition import bands

    searched: list[tuple] = []
    real = bands.plan_grid

    def counting(*args, **kwargs):
        searched.append((args, tuple(sorted(kwargs.items()))))
        return real(*args, **kwargs)

    monkeypatch.setattr(bands, "plan_grid", counting)
    getattr(bands.band_plan, "cache_clear", lambda: None)()   # nothing remembered from other tests
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path / "a"), jobs=1)
    assert searched and len(searched) == len(set(searched)), searched
    plain = getattr(bands.band_plan, "__wrapped__", bands.band_plan)   # no memory: each plan found anew
    monkeypatch.setattr(bands, "band_plan", plain)
    monkeypatch.setattr(sys.modules["cardgen.build.plan"], "band_plan", plain)
    build([cardgen.load_game("tutti-quantum")], BuildOptions(out=tmp_path / "b"), jobs=1)
    folder = Path("tutti-quantum/en")
    made = {p.name: p.read_bytes() for p in (tmp_path / "a" / folder).glob("*.pdf")}
    assert made and made == {p.name: p.read_bytes() for p in (tmp_path / "b" / folder).glob("*.pdf")}
