"""Same inputs, same bytes: however many processes draw the faces, and whichever come from the cache."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import cardgen
from cardgen.build import BuildOptions, build

GAMES = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")


def _outputs(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".cache" not in p.parts}


def _half_cache(src: Path, dst: Path) -> None:
    """``src``'s cache with every other face dropped: a build then mixes hits and fresh renders."""
    shutil.copytree(src / ".cache", dst / ".cache")
    with sqlite3.connect(dst / ".cache/cache.sqlite") as db:
        keys = [k for (k,) in db.execute("SELECT key FROM faces ORDER BY key")]
        assert len(keys) > 200
        db.executemany("DELETE FROM faces WHERE key = ?", [(k,) for k in keys[::2]])
    db.close()


def test_every_jobs_count_and_cache_state_writes_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")

    def run(out: Path, jobs: int | None) -> dict[str, bytes]:
        build([cardgen.load_game(g) for g in GAMES], BuildOptions(out=out), jobs=jobs)
        return _outputs(out)

    one = run(tmp_path / "one", 1)                 # every face drawn in this process
    two = run(tmp_path / "two", 2)                 # drawn by two worker processes
    _half_cache(tmp_path / "one", tmp_path / "warm-default")
    warm_default = run(tmp_path / "warm-default", None)   # half from this process's drawings, half by workers
    _half_cache(tmp_path / "two", tmp_path / "warm-one")
    warm_one = run(tmp_path / "warm-one", 1)       # half drawn by workers earlier, half here
    listed = {f["path"] for g in GAMES for f in json.loads(one[f"{g}/en/manifest.json"])["files"]}
    assert {n for n in one if n.endswith(".pdf")} == listed and len(listed) >= 2 * len(GAMES) + 10
    for name, data in one.items():
        assert two[name] == data, name
        assert warm_default[name] == data, name
        assert warm_one[name] == data, name
    assert one.keys() == two.keys() == warm_default.keys() == warm_one.keys()


def test_a_face_drawn_twice_is_the_same_bytes():
    """cairo would date each face PDF by the clock: drawn a second apart, they would differ
    (and the cache would keep two copies of every shared back)."""
    import time

    from cardgen.draw import render_pdf
    from cardgen.render import Renderer

    game = cardgen.load_game("qcd")
    comp = game.components["cards"]
    face = Renderer(game).face(comp, comp.cards[0], "back").face
    first = render_pdf(face)
    time.sleep(1.1)
    assert render_pdf(face) == first


def test_the_same_game_built_from_anywhere_writes_the_same_bytes(tmp_path, cli):
    """The working folder, the game folder's place and how --games-dir is written changed
    the manifest's inputs (a field's file:line was in the key) and the rule sheets' IDs
    (absolute paths were in the fingerprint)."""
    import os

    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "CARDGEN_DAEMON": "off"}
    first = tmp_path / "one" / "games"
    assert cli("new", "lepton-snap", "--from", "qcd", "--dir", str(first), env=env).returncode == 0
    second = tmp_path / "two" / "deeper" / "games"
    shutil.copytree(first, second)
    (tmp_path / "elsewhere").mkdir()
    runs = [(["--games-dir", str(first)], tmp_path, "a"),
            (["--games-dir", "games"], tmp_path / "one", "b"),
            (["--games-dir", str(second)], tmp_path / "elsewhere", "c")]
    for args, cwd, out in runs:
        res = cli("build", "lepton-snap", *args, "--out", str(tmp_path / "out" / out), "--no-cache", cwd=cwd, env=env)
        assert res.returncode == 0, res.stderr
    outputs = [_outputs(tmp_path / "out" / out) for _args, _cwd, out in runs]
    assert outputs[0] and outputs[0] == outputs[1] == outputs[2]


def test_a_shipped_game_built_from_the_repository_or_from_elsewhere_writes_the_same_bytes(tmp_path, cli):
    """Where the shared physics data's entries were written is shown relative to the working
    folder: from the repository's folder QCD's and Particles in Circle's rule sheets (their
    colour wheels' charges) recorded a different layout digest than from anywhere else, so
    the same inputs wrote other bytes. (The build from elsewhere shows every path whole.)"""
    import os

    from tests.conftest import ROOT

    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "CARDGEN_DAEMON": "off"}
    (tmp_path / "elsewhere").mkdir()
    for cwd, out in ((ROOT, "here"), (tmp_path / "elsewhere", "there")):
        res = cli("build", "qcd", "particles-in-circle", "--out", str(tmp_path / out), "--no-cache", cwd=cwd, env=env)
        assert res.returncode == 0, res.stderr
    here, there = _outputs(tmp_path / "here"), _outputs(tmp_path / "there")
    assert any(name.endswith("rules.pdf") for name in here)
    assert here == there


def test_two_installations_of_the_same_cardgen_write_the_same_bytes(tmp_path, cli):
    """cardgen's own files are part of every game's fingerprint, which the manifests and the
    rule sheets carry; its large files (the Chinese fonts) were known by their modification
    time, so a second clone of the same commit wrote other manifests and rule sheets."""
    import os

    from tests.conftest import installation_copy

    outputs = []
    for n, when in enumerate((1_600_000_000, 1_700_000_000)):
        src = installation_copy(tmp_path / f"install-{n}")
        large = [f for f in (src / "cardgen" / "fonts").iterdir() if f.stat().st_size > 1 << 20]
        assert large
        for font in large:
            os.utime(font, (when, when))
        env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "CARDGEN_DAEMON": "off", "PYTHONPATH": str(src)}
        out = tmp_path / f"out-{n}"
        res = cli("build", "qcd", "--out", str(out), "--no-cache", cwd=tmp_path, env=env)
        assert res.returncode == 0, res.stderr
        ran = subprocess.run([sys.executable, "-c", "import cardgen; print(cardgen.__file__)"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, check=True)
        assert ran.stdout.startswith(str(src))   # this installation's cardgen built it
        outputs.append(_outputs(out))
    assert "qcd/en/rules.pdf" in outputs[0] and "qcd/en/manifest.json" in outputs[0]
    assert outputs[0] == outputs[1]


def test_a_source_date_epoch_that_is_no_date_is_an_input_error(cli, tmp_path):
    """A year past 9999 was 'internal error: ValueError: year 31690708 is out of range'."""
    import os

    for value, words in (("999999999999999", "is not a date between 1970 and 9999"), ("-5", "is not a date"),
                         ("abc", "is not a whole number of seconds")):
        env = {**os.environ, "SOURCE_DATE_EPOCH": value, "CARDGEN_DAEMON": "off"}
        res = cli("build", "qcd", "--out", str(tmp_path / "out"), env=env)
        assert res.returncode == 2 and f"error[input]: SOURCE_DATE_EPOCH={value}" in res.stderr.replace("'", ""), \
            res.stderr
        assert words in res.stderr
    assert not (tmp_path / "out" / "qcd").exists()


def test_installing_an_unrelated_library_changes_no_byte_and_draws_no_face_again(tmp_path, cli):
    """Every installed distribution was part of every face's key and every game's fingerprint:
    installing anything beside cardgen (the test suite's tools, a newer pip) drew every face
    again and wrote other manifests and rule sheets. Only what cardgen uses counts now; a
    second copy of a library it draws with still changes every face."""
    import os

    user_site = tmp_path / "user"
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "CARDGEN_DAEMON": "off", "PYTHONUSERBASE": str(user_site)}
    ask = subprocess.run([sys.executable, "-c", "import site; print(site.getusersitepackages())"], env=env,
                         capture_output=True, text=True, check=True)
    libraries = Path(ask.stdout.strip())
    out = tmp_path / "out"

    def build_qcd() -> tuple[dict[str, bytes], set[str]]:
        res = cli("build", "qcd", "--out", str(out), env=env)
        assert res.returncode == 0, res.stderr
        with sqlite3.connect(out / ".cache/cache.sqlite") as db:
            keys = {k for (k,) in db.execute("SELECT key FROM faces")}
        db.close()
        return _outputs(out), keys

    files, keys = build_qcd()
    assert any(name.endswith("manifest.json") for name in files) and len(keys) > 20
    for name in ("zzunrelated-1.0", "pip-99.0", "pytest-99.0"):
        (libraries / f"{name}.dist-info").mkdir(parents=True)
    assert build_qcd() == (files, keys)
    (libraries / "cairosvg-0.0.1.dist-info").mkdir()   # another cairosvg where Python looks for libraries
    files_after, keys_after = build_qcd()
    assert not keys_after & keys
    assert files_after["qcd/en/manifest.json"] != files["qcd/en/manifest.json"]
