"""The cache holds what the current builds use, once, compressed, and no write-ahead log."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import cardgen
from cardgen.build import BuildOptions, build

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
        counts["orphans"] = db.execute("SELECT count(*) FROM blobs WHERE digest NOT IN (SELECT digest FROM faces "
                                       "UNION SELECT digest FROM templates UNION SELECT base FROM blobs "
                                       "WHERE base IS NOT NULL)").fetchone()[0]
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
    """Eviction is per component: a --level build does not drop the faces of the rest."""
    build([cardgen.load_game("particle-builder")], BuildOptions(out=tmp_path), jobs=1)
    full = _rows(tmp_path)["faces"]
    build([cardgen.load_game("particle-builder")], BuildOptions(out=tmp_path, level=1), jobs=1)
    assert _rows(tmp_path)["faces"] == full
