"""The cache holds what the current builds use, once, compressed, and no write-ahead log."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import cardgen
from cardgen.build import BuildOptions, build
from cardgen import store

GAMES = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")


def _pdf_bytes(out: Path) -> int:
    return sum(p.stat().st_size for p in out.rglob("*.pdf"))


def _log(out: Path) -> int:
    wal = out / ".cache/cache.sqlite-wal"
    return wal.stat().st_size if wal.exists() else 0


def _rows(out: Path) -> dict[str, int]:
    with sqlite3.connect(out / ".cache/cache.sqlite") as db:
        counts = {table: db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                  for table in ("faces", "templates", "blobs")}
        used = " UNION ".join(f"SELECT digest FROM {kind}" for kind in store.KINDS)   # every kind of entry
        counts["orphans"] = db.execute(f"SELECT count(*) FROM blobs WHERE digest NOT IN ({used} "
                                       "UNION SELECT base FROM blobs WHERE base IS NOT NULL)").fetchone()[0]
    db.close()
    return counts


def test_the_shipped_build_leaves_a_cache_smaller_than_its_pdfs(cli, tmp_path):
    """Through the executable, which ends without closing SQLite (``os._exit``)."""
    result = cli("build", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    cache = (tmp_path / ".cache/cache.sqlite").stat().st_size
    assert _log(tmp_path) == 0
    assert 0 < cache <= _pdf_bytes(tmp_path)


def test_a_rebuild_evicts_the_faces_no_card_uses_any_more(game_copy, tmp_path):
    g = game_copy("qcd")
    shipped = Path(cardgen.__file__).parent.parent / "data/locale/de/LC_MESSAGES"
    (g.path / "locale/de/LC_MESSAGES").mkdir(parents=True)
    for name in ("qcd.po", "common.po"):
        shutil.copy(shipped / name, g.path / "locale/de/LC_MESSAGES" / name)
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    build([g.load()], BuildOptions(out=out, lang="de"), jobs=1)
    first = _rows(out)
    size = (out / ".cache/cache.sqlite").stat().st_size
    assert first["faces"] == 100 and first["orphans"] == 0
    for particle in ("W-", "W+", "W-"):   # three edits of one card, English only
        text = (g.path / "components/cards.yaml").read_text(encoding="utf-8")
        head, _sep, tail = text.partition("  - id: wild-w\n    particle: ")
        (g.path / "components/cards.yaml").write_text(
            f"{head}  - id: wild-w\n    particle: {particle}\n{tail.split(chr(10), 1)[1]}", encoding="utf-8")
        build([g.load()], BuildOptions(out=out), jobs=1)
        assert _log(out) == 0
    after = _rows(out)
    assert after["faces"] == 100 and after["orphans"] == 0          # German faces kept, old English ones gone
    assert after["blobs"] <= first["blobs"] + 1
    assert (out / ".cache/cache.sqlite").stat().st_size <= size * 1.05


def test_a_build_of_fewer_components_keeps_the_others(tmp_path):
    """Eviction is per component: a --level build does not drop the faces of the rest (the
    game still has them)."""
    build([cardgen.load_game("particle-builder")], BuildOptions(out=tmp_path), jobs=1)
    full = _rows(tmp_path)["faces"]
    build([cardgen.load_game("particle-builder")], BuildOptions(out=tmp_path, level=1), jobs=1)
    assert _rows(tmp_path)["faces"] == full


def test_a_scopes_base_is_looked_for_once_per_process_and_again_after_eviction(tmp_path):
    """Faces of one scope are compressed against its first; finding that base scans the
    scope's entries, so it is done once, not for every batch stored (a 10,000-card build
    stores 150 batches). Entries stay readable as entries, and the base, are evicted."""
    from cardgen.store import Store

    store = Store(tmp_path / "c.sqlite")
    looked: list[str] = []
    store._db().set_trace_callback(lambda sql: looked.append(sql) if "b.base IS NULL" in sql else None)
    pages = [f"%PDF face {i} ".encode() * 200 for i in range(30)]
    for i in range(0, 30, 5):   # six batches, one scope
        store.put("faces", [(f"k{j}", "{}", pages[j]) for j in range(i, i + 5)], scope="s")
    assert len(looked) == 1
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        bases = sorted(str(b) for (b,) in db.execute("SELECT base FROM blobs"))
    db.close()
    assert bases == sorted(["None"] + [hashlib.sha256(pages[0]).hexdigest()] * 29)
    store.keep_only("faces", {"s": [f"k{j}" for j in range(20, 30)]})   # the base's own entry goes
    store.put("faces", [("new", "{}", pages[0][::-1])], scope="s")
    assert len(looked) == 2   # looked for again: eviction may have taken the base
    assert store.get("faces", "new")[1] == pages[0][::-1]
    assert all(store.get("faces", f"k{j}")[1] == pages[j] for j in range(20, 30))
    store.keep_only("faces", {"s": []})   # everything, the base blob too
    store.put("faces", [("again", "{}", pages[3])], scope="s")
    assert store.get("faces", "again")[1] == pages[3]
    store.finish()


def test_a_store_kept_open_keeps_its_log_small_however_much_it_writes(tmp_path):
    """A process that keeps the cache open (the preview; a program that checks a game after
    each edit) never closes SQLite, so its write-ahead log is folded back by the commits
    themselves: once it holds WAL_PAGES pages, and cut back to WAL_BYTES. 2 MB of entries,
    each committed alone, leave a log of some 128 KB and a commit at most (SQLite's own mark
    is 1000 pages: 2 MB), and every entry readable."""
    import os

    from cardgen.store import Store

    st = Store(tmp_path / "c.sqlite")
    entries = [(f"k{i}", "{}", os.urandom(8000)) for i in range(256)]   # incompressible
    largest = 0
    for entry in entries:
        st.put("faces", [entry], scope="")
        largest = max(largest, (tmp_path / "c.sqlite-wal").stat().st_size)
    assert largest <= 192 * 1024   # 64 pages with their frames' headers, and the commit that passed the mark
    assert all(st.get("faces", key)[1] == data for key, _meta, data in entries)
    st.finish()


def test_checking_a_game_after_each_edit_in_one_process_keeps_the_cache_near_its_pdfs(game_copy, tmp_path):
    """Each check writes its verdicts on the faces it drew; in one process, as the preview or
    a program runs them, the log is folded back as it goes: 12 checks of Particle Builder
    left 0.4 MB of log beside its 0.6 MB file, on the way to SQLite's 2 MB."""
    g = game_copy("particle-builder")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    for n in range(12):
        g.edit("components/particles.yaml", "points: 5}" if n == 0 else f"points: {100 + n - 1}}}",
               f"points: {100 + n}}}")
        cardgen.check(g.load(), cache=out / ".cache")
    cache = sum(p.stat().st_size for p in (out / ".cache").iterdir() if p.name.startswith("cache.sqlite"))
    assert _log(out) <= store.WAL_BYTES + 64 * 1024 and cache <= _pdf_bytes(out) * 1.3
    store.finish_all()
    assert _log(out) == 0


def test_a_designers_edits_leave_the_cache_as_large_as_the_latest_build_and_check(game_copy, tmp_path):
    """Each edit makes new faces, new files and a new template source; the cache holds what
    the latest build and check made of them, not one more entry per edit: the rows that vouch
    for a written file, the faces a check drew and a template's facts are replaced as the
    faces are (they piled up before, 2.6 KB an edit). And a build with nothing changed after
    them still keeps every file as it is: the files of the latest build are vouched for."""
    g = game_copy("qcd")
    out = tmp_path / "out"

    def edited(n: int) -> None:
        # a hairline in the bleed whose length changes: every front's SVG, both PDFs'
        # bytes and the template's source are new, and nothing it covers is printed
        g.edit("templates/card-front.svg.j2", "{% endblock %}",
               f'<rect x="0" y="0" width="{n / 10}" height="0.2" fill="#808080"/>\n{{% endblock %}}')
        game = g.load()
        build([game], BuildOptions(out=out), jobs=1)
        assert cardgen.check(game, cache=out / ".cache").ok

    def rows() -> dict[str, int]:
        with sqlite3.connect(out / ".cache/cache.sqlite") as db:
            counts = {t: db.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in (*store.KINDS, "metas")}
        db.close()
        return counts | _rows(out)

    edited(1)
    edited(2)
    settled, size = rows(), (out / ".cache/cache.sqlite").stat().st_size
    # the files' rows (3) and the verdicts on the faces the check drew or took from the build
    assert settled["drawn"] > 3 + 25 and settled["template_facts"] >= 1 and settled["orphans"] == 0
    for n in range(3, 9):
        edited(n)
    now = rows()
    # a scope's faces are compressed against a base the next edit's faces may still use
    assert now.pop("blobs") <= settled.pop("blobs") + 1 and now == settled
    assert (out / ".cache/cache.sqlite").stat().st_size <= size * 1.1   # SQLite's pages come and go a little
    pdfs = sorted((out / "qcd/en").glob("*.pdf"))
    stamps = [pdf.stat().st_mtime_ns for pdf in pdfs]
    build([g.load()], BuildOptions(out=out), jobs=1)
    assert [pdf.stat().st_mtime_ns for pdf in pdfs] == stamps


def test_a_component_the_game_no_longer_has_leaves_no_faces_behind(game_copy, tmp_path):
    """A renamed (or removed) component's faces were kept under its old name for good: no
    build looks there again. The next build of the game evicts them (and keeps those of the
    components it has but did not print: see the test above)."""
    g = game_copy("qcd")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)

    def scopes() -> dict[str, int]:
        with sqlite3.connect(out / ".cache/cache.sqlite") as db:
            found = dict(db.execute("SELECT scope, count(*) FROM faces GROUP BY scope").fetchall())
        db.close()
        return found

    assert scopes() == {"qcd/en/cards": 50}
    g.edit("components/cards.yaml", "id: cards\n", "id: deck\n")
    g.edit("game.yaml", "component: cards", "component: deck", count=6)
    build([g.load()], BuildOptions(out=out), jobs=1)
    assert scopes() == {"qcd/en/deck": 50} and _rows(out)["orphans"] == 0


def test_copies_of_a_game_checked_into_one_folder_keep_one_set_of_template_facts(tmp_path, monkeypatch):
    """A template's facts are kept by game and template name, not by folder: a copy of a game
    elsewhere (a designer's experiment, a test's game) replaces them instead of adding its own."""
    from cardgen import checkfaces
    from cardgen.rules import pdg_values

    from .conftest import GameCopy

    # every template's facts found afresh and kept in the check's cache: none from this
    # process's memory or the machine's cache, where other checks of QCD may have left them
    monkeypatch.setattr(pdg_values, "_FACTS", {})
    monkeypatch.setattr(checkfaces, "keeps_on_machine", lambda: False)
    out = tmp_path / "out"
    first = GameCopy(tmp_path / "a", "qcd")
    cardgen.check(first.load(), cache=out / ".cache")
    with sqlite3.connect(out / ".cache/cache.sqlite") as db:
        scopes = sorted(s for (s,) in db.execute("SELECT scope FROM template_facts"))
    db.close()
    assert "facts:qcd/card-front.svg.j2" in scopes
    assert all(s.startswith(("facts:qcd/", "facts:shared/")) for s in scopes)
    for n, where in enumerate(("b", "c", "d")):   # each copy's front edited: its facts are new
        copy = GameCopy(tmp_path / where, "qcd")
        copy.edit("templates/card-front.svg.j2", "{% endblock %}", f"<!-- copy {n} -->\n{{% endblock %}}")
        cardgen.check(copy.load(), cache=out / ".cache")
    with sqlite3.connect(out / ".cache/cache.sqlite") as db:
        assert sorted(s for (s,) in db.execute("SELECT scope FROM template_facts")) == scopes
    db.close()
