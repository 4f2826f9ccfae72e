"""A cache from someone else — a shared folder, a colleague's zipped output — is data that is
never trusted: nothing in it runs, and nothing in it reaches the printed files."""

from __future__ import annotations

import hashlib
import json
import marshal
import os
import pickle
import sqlite3
import stat
from pathlib import Path

import jinja2
import pytest
from jinja2.bccache import Bucket, bc_magic

import cardgen
from cardgen import render, store
from cardgen.build import BuildOptions, build
from cardgen.loader import SHARED_TEMPLATES
from cardgen.store import open_store


@pytest.fixture
def as_user(monkeypatch, tmp_path):
    """``as_user("ann")``: from now on this process is Ann, with her own data folder (and key)."""
    def switch(name: str) -> Path:
        home = tmp_path / "users" / name
        monkeypatch.setenv("XDG_DATA_HOME", str(home))
        store.user_key.cache_clear()
        monkeypatch.setattr(render, "_COMPILED", {})   # as a new process: nothing compiled in memory
        return home

    yield switch
    store.user_key.cache_clear()


class _Touch:
    """Unpickling this creates the marker file: what a crafted cache entry would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def _payloads(source: str, filename: str, marker: Path) -> list[tuple[str, bytes]]:
    """(meta, data) of template entries that run code when loaded: Jinja bytecode with a
    pickle in place of the source checksum, the right checksum followed by marshalled code
    of the attacker's, and Python source in the layout cardgen keeps (right checksum too)."""
    evil = f"open({str(marker)!r}, 'w').close()"
    checksum = hashlib.sha1(source.encode("utf-8")).hexdigest()
    return [("", bc_magic + pickle.dumps(_Touch(marker), 2)),
            ("", bc_magic + pickle.dumps(checksum, 2) + marshal.dumps(compile(evil, "<cache>", "exec"))),
            (json.dumps({"checksum": checksum, "filename": filename}), evil.encode())]


def test_the_planted_payloads_run_when_jinja_loads_them(tmp_path):
    """The control: handed straight to Jinja, either entry creates the marker."""
    for i, (_meta, payload) in enumerate(_payloads("{{ x }}", "x.j2", tmp_path / "marker")[:2]):
        env = jinja2.Environment()
        bucket = Bucket(env, "key", hashlib.sha1(b"{{ x }}").hexdigest())
        bucket.bytecode_from_string(payload)
        if bucket.code is not None:
            exec(bucket.code, {})
        assert (tmp_path / "marker").exists(), i
        (tmp_path / "marker").unlink()


@pytest.mark.parametrize("payload", [0, 1, 2], ids=["pickle", "marshal", "source"])
def test_a_crafted_cache_runs_nothing_and_changes_no_output(tmp_path, as_user, monkeypatch, payload):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    fresh = tmp_path / "fresh"
    build([cardgen.load_game("qcd")], BuildOptions(out=fresh, cache=False), jobs=1)

    # Mallory builds, then rewrites every entry of her cache: each compiled template becomes
    # a payload and every other face another card's face — all consistently signed, with her key
    as_user("mallory")
    out = tmp_path / "shared"
    build([cardgen.load_game("qcd")], BuildOptions(out=out), jobs=1)
    marker = tmp_path / "marker"
    db = out / ".cache/cache.sqlite"
    mallory = open_store(db)
    with sqlite3.connect(db) as conn:
        templates = [k for (k,) in conn.execute("SELECT key FROM templates")]
        faces = [k for (k,) in conn.execute("SELECT key FROM faces ORDER BY key")]
    conn.close()
    assert len(templates) >= 3 and len(faces) == 50
    game = cardgen.load_game("qcd")
    entries = []
    for folder in (game.templates_dir, SHARED_TEMPLATES):
        for path in folder.glob("*.j2"):
            key = jinja2.BytecodeCache().get_cache_key(path.name, os.path.join(str(folder), path.name))
            filename = os.path.join(str(folder), path.name)
            meta, data = _payloads(path.read_text(encoding="utf-8"), filename, marker)[payload]
            entries.append((key, meta, data))
    assert {k for k, _m, _d in entries} >= set(templates)
    wrong = mallory.get("faces", faces[0])
    genuine = {k: mallory.get("faces", k) for k in faces}
    mallory.put("templates", entries)
    mallory.put("faces", [(k, wrong[0], wrong[1]) for k in faces[::2]])
    with sqlite3.connect(db) as conn:   # the others missing: Ann's build must compile templates
        conn.executemany("DELETE FROM faces WHERE key = ?", [(k,) for k in faces[1::2]])
    conn.close()
    target = next(k for k in faces[::2] if genuine[k] != wrong)   # a card whose face is not the forged one
    assert mallory.get("faces", target) == wrong          # valid entries, for Mallory
    (out / "qcd/en/cards.pdf").unlink()                     # so the faces are needed again

    # Ann builds into the folder she was given
    as_user("ann")
    build([cardgen.load_game("qcd")], BuildOptions(out=out), jobs=1)
    assert not marker.exists()
    assert (out / "qcd/en/cards.pdf").read_bytes() == (fresh / "qcd/en/cards.pdf").read_bytes()
    # and her own entries replaced Mallory's: the next build uses them
    assert open_store(db).get("faces", target) == genuine[target]


def test_a_checksum_beside_the_data_is_not_enough(tmp_path, as_user):
    """An entry whose stored digest matches its bytes but whose tag was not made with the
    reader's key is a miss: anyone can compute a sha256."""
    as_user("ann")
    db = tmp_path / "cache.sqlite"
    open_store(db).put("faces", [("k", "{}", b"%PDF ann")])
    forged = b"%PDF forged"
    digest = hashlib.sha256(forged).hexdigest()
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO blobs (digest, data) VALUES (?, ?)", (digest, store._zlib.compress(forged)))
        conn.execute("UPDATE faces SET digest = ? WHERE key = 'k'", (digest,))
    conn.close()
    assert open_store(db).get("faces", "k") is None


def test_the_key_lives_with_the_user_readable_by_the_user_only(tmp_path, as_user):
    home = as_user("ann")
    first = store.user_key()
    key_file = home / "cardgen" / store.KEY_FILE
    assert key_file.read_bytes() == first and len(first) == 32
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    store.user_key.cache_clear()
    assert store.user_key() == first          # the same key in every later process
    as_user("bob")
    assert store.user_key() != first


def test_a_cache_made_by_another_user_is_rendered_again(tmp_path, as_user, monkeypatch):
    calls = []
    real = render.Renderer.face
    monkeypatch.setattr(render.Renderer, "face", lambda self, *a: calls.append(a) or real(self, *a))
    as_user("ann")
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    os.unlink(tmp_path / "qcd/en/cards.pdf")
    as_user("bob")
    calls.clear()
    build([cardgen.load_game("qcd")], BuildOptions(out=tmp_path), jobs=1)
    cards = [c for c in calls if c[0].id == "cards"]
    assert len(cards) == 50
    # the rule sheet and answer key too: the cache that vouched for them is not bob's
    pages = sum(f["pages"] for f in json.loads((tmp_path / "qcd/en/manifest.json").read_text())["files"]
                if f["component"] in ("rules", "answers"))
    assert len(calls) - len(cards) == pages


def test_a_rule_sheet_in_an_output_folder_from_elsewhere_is_made_again(tmp_path, monkeypatch):
    """A sheet was kept when its manifest entry and the digest inside it matched, which whoever
    edits the file can arrange: it is kept only if this user's build wrote those very bytes."""
    import hashlib
    import json

    import cardgen
    from cardgen.build import BuildOptions, build

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "colleague"))
    store.user_key.cache_clear()
    out = tmp_path / "out"
    game = cardgen.load_game("qcd")
    build([game], BuildOptions(out=out), jobs=1)
    folder = out / "qcd/en"
    good = (folder / "rules.pdf").read_bytes()
    import io

    import pikepdf

    with pikepdf.open(io.BytesIO(good)) as pdf:   # a red box drawn over the sheet, its Info kept
        pdf.pages[0].contents_add(pikepdf.Stream(pdf, b"1 0 0 rg 100 100 200 200 re f"))
        buf = io.BytesIO()
        pdf.save(buf)
    doctored = buf.getvalue()
    assert doctored != good
    (folder / "rules.pdf").write_bytes(doctored)
    manifest = json.loads((folder / "manifest.json").read_text())
    for f in manifest["files"]:
        if f["component"] == "rules":
            f["sha256"] = hashlib.sha256(doctored).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for stamp in (out / ".cache").glob("uptodate-*.stamp"):
        stamp.unlink()
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "me"))
    store.user_key.cache_clear()
    try:
        build([game], BuildOptions(out=out), jobs=1)   # the folder reached me: its sheet is made again
        assert (folder / "rules.pdf").read_bytes() == good
        (folder / "rules.pdf").write_bytes(doctored)  # and my own build's sheet, edited with its digests, too
        (folder / "manifest.json").write_text(json.dumps(manifest))
        build([game], BuildOptions(out=out, sets=1), jobs=1)
        assert (folder / "rules.pdf").read_bytes() == good
    finally:
        store.user_key.cache_clear()
