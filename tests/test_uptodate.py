"""A build with nothing to do: the up-to-date stamp (cardgen.uptodate) ends it before any game
is loaded or any drawing library imported, prints what the build printed, and any change to an
input or an output — or a stamp that cannot be trusted — makes the build run again."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardgen
from cardgen import uptodate
from cardgen.build import BuildOptions, gates
from cardgen.errors import InputError

from .conftest import ROOT

#: What a no-op must never import: the drawing, template, PDF and physics libraries, and the
#: stages that load games, check rules, render and write.
HEAVY = ("cairo", "cairocffi", "cairosvg", "jinja2", "pikepdf", "particle", "pandas", "yaml", "uharfbuzz",
         "cardgen.loader", "cardgen.check", "cardgen.rules", "cardgen.render", "cardgen.build", "cardgen.cache")


def stamps(out: Path) -> list[Path]:
    return list((out / uptodate.FOLDER).glob(f"{uptodate.PREFIX}*{uptodate.SUFFIX}"))


def stamp_text(stamp: Path) -> str:
    """A stamp's JSON: the file's second line on, inflated."""
    import zlib

    return zlib.decompress(stamp.read_bytes().split(b"\n", 1)[1]).decode()


def built_again(folder: Path, before: os.stat_result) -> bool:
    """A build that ran (rather than finding nothing to do) swaps the folder's new version in,
    with a manifest written afresh: a new inode."""
    return (folder / "manifest.json").stat().st_ino != before.st_ino


def command(*args: str, importtime: bool = False) -> subprocess.CompletedProcess:
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run([sys.executable, *flags, "-m", "cardgen", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)


def test_a_no_op_build_imports_nothing_heavy_and_prints_what_the_build_printed(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    first = command("build", str(g.path), "--out", str(out))
    assert first.returncode == 0, first.stderr
    folder = out / "particles-in-circle/en"
    manifest, pdf = (folder / "manifest.json").stat(), (folder / "cards.pdf").stat()
    again = command("build", str(g.path), "--out", str(out), importtime=True)
    assert again.returncode == 0
    assert again.stdout == first.stdout and "cards.pdf" in again.stdout
    imported = {line.split("|")[-1].strip() for line in again.stderr.splitlines() if line.startswith("import time:")}
    assert "cardgen.uptodate" in imported   # the stamp was read ...
    heavy = sorted(m for m in imported if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == []                      # ... and nothing else was needed
    assert not built_again(folder, manifest) and (folder / "cards.pdf").stat().st_mtime_ns == pdf.st_mtime_ns
    assert len(stamps(out)) == 1


def test_warnings_are_printed_again_by_a_no_op(game_copy, tmp_path):
    g = game_copy("qcd")
    shutil.copytree(ROOT / "data/locale/de", g.path / "locale/de")   # the game's catalog, some strings untranslated
    (g.path / "locale/de/LC_MESSAGES/common.po").unlink()
    (g.path / "locale/de/LC_MESSAGES/qcd.po").write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n', encoding="utf-8")
    out = tmp_path / "out"
    first = command("build", str(g.path), "--lang", "de", "--out", str(out))
    assert first.returncode == 0, first.stderr
    assert "untranslated (de)" in first.stderr and "warning(s)" in first.stderr
    again = command("build", str(g.path), "--lang", "de", "--out", str(out))
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)


def test_every_kind_of_change_makes_the_build_run_again(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    folder = out / "particles-in-circle/en"
    build = lambda **kw: cardgen.build(str(g.path), BuildOptions(out=out, **kw), jobs=1)  # noqa: E731
    last = build()
    cards = (folder / "cards.pdf").read_bytes()

    def ran(change) -> bool:
        nonlocal last
        before = (folder / "manifest.json").stat()
        change()
        results = build()
        again = built_again(folder, before)
        assert again or results == last   # a no-op returns what the build it stands for returned
        last = results
        return again

    assert not ran(lambda: None)
    assert not ran(lambda: os.utime(g.path / "game.yaml"))   # touched, not changed: its hash says so
    stamp = stamps(out)[0]
    assert str(os.stat(g.path / "game.yaml").st_mtime_ns) in stamp_text(stamp)   # the stamp took the new time

    def edit_card():
        g.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]",
               "colour: [anti-blue, anti-green, anti-red]")

    assert ran(edit_card)
    assert (folder / "cards.pdf").read_bytes() != cards
    back = g.path / "templates/card-back.svg.j2"
    assert ran(lambda: back.write_text(back.read_text(encoding="utf-8") + "{# a note #}\n", encoding="utf-8"))
    assert ran(lambda: (g.path / "locale/fr/LC_MESSAGES").mkdir(parents=True)
               or (g.path / "locale/fr/LC_MESSAGES/particles-in-circle.po").write_text('msgid ""\nmsgstr ""\n'))
    assert ran(lambda: (g.path / "fonts").mkdir() or shutil.copy(ROOT / "cardgen/fonts/NotoSans-Regular.ttf",
                                                                   g.path / "fonts/Extra.ttf"))
    assert not ran(lambda: None)
    pdf = (folder / "cards.pdf").read_bytes()
    assert ran(lambda: (folder / "cards.pdf").unlink())
    assert (folder / "cards.pdf").read_bytes() == pdf
    assert ran(lambda: (folder / "cards.pdf").write_bytes(pdf[:-10] + b"%%EOF\n\n\n\n\n"))
    assert (folder / "cards.pdf").read_bytes() == pdf
    assert ran(lambda: (folder / "stray.pdf").write_bytes(b"%PDF-1.7\n"))
    assert not (folder / "stray.pdf").exists()   # as any build, it dropped the build product it did not make
    assert not ran(lambda: None)


def test_other_options_build_and_the_first_options_build_again(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    folder = out / "particles-in-circle/en"
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    a4 = (folder / "cards.pdf").read_bytes()
    before = (folder / "manifest.json").stat()
    cardgen.build(str(g.path), BuildOptions(out=out, paper="a3"), jobs=1)
    assert built_again(folder, before) and (folder / "cards.pdf").read_bytes() != a4
    before = (folder / "manifest.json").stat()
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)   # its stamp is there, but the files are not its own
    assert built_again(folder, before) and (folder / "cards.pdf").read_bytes() == a4
    before = (folder / "manifest.json").stat()
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=2)   # --jobs does not change a file
    assert not built_again(folder, before)


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"format": "cardgen-uptodate/0"}', b"[1, 2]",
                                    b'{"format": "cardgen-uptodate/1", "key": "%s", "recorded_ns": "x"}'])
def test_a_stamp_that_cannot_be_trusted_means_a_normal_build(game_copy, tmp_path, damage):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    folder = out / "particles-in-circle/en"
    result = command("build", str(g.path), "--out", str(out))
    stamp = stamps(out)[0]
    key = stamp.stem.removeprefix(uptodate.PREFIX)
    stamp.write_bytes(damage.replace(b"%s", key.encode()))
    before = (folder / "manifest.json").stat()
    again = command("build", str(g.path), "--out", str(out))
    assert (again.returncode, again.stdout) == (0, result.stdout) and built_again(folder, before)
    assert uptodate._read(uptodate.Request(out, key, ())) is not None   # a good stamp again


def test_a_stamp_is_stored_compressed_and_one_inflating_past_the_limit_is_no_stamp(game_copy, tmp_path, monkeypatch):
    """A stamp lists every input's digest: it is stored compressed, a third of its JSON or
    less, and read back whole. One that would inflate past MAX_STAMP_BYTES is not inflated
    further, even signed with this user's key: the build runs."""
    import zlib

    from cardgen import userkey

    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    folder = out / "particles-in-circle/en"
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    (stamp,) = stamps(out)
    packed = stamp.read_bytes().split(b"\n", 1)[1]
    body = zlib.decompress(packed)
    assert json.loads(body)["format"] == uptodate.FORMAT and len(packed) * 2.5 < len(body)
    key = stamp.name.removeprefix(uptodate.PREFIX).removesuffix(uptodate.SUFFIX)
    assert uptodate._read(uptodate.Request(out, key, ())) == json.loads(body)
    monkeypatch.setattr(uptodate, "MAX_STAMP_BYTES", len(body) - 1)
    assert uptodate._read(uptodate.Request(out, key, ())) is None
    monkeypatch.setattr(uptodate, "MAX_STAMP_BYTES", len(body))
    bomb = zlib.compress(body + b" " * (64 << 20))   # valid JSON, 64 MB of it past the stamp
    stamp.write_bytes(userkey.sign(bomb).encode() + b"\n" + bomb)
    assert uptodate._read(uptodate.Request(out, key, ())) is None
    before = (folder / "manifest.json").stat()
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert built_again(folder, before)


def test_a_stamp_an_earlier_layout_left_is_removed_when_a_build_writes_its_own(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    (out / uptodate.FOLDER).mkdir(parents=True)
    old = out / uptodate.FOLDER / f"{uptodate.PREFIX}{'0' * 32}.json"
    old.write_bytes(b"0" * 64 + b"\n{}")
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert not old.exists() and len(stamps(out)) == 1


def test_the_gate_checks_only_the_games_whose_files_changed(game_copy, tmp_path, monkeypatch):
    a, b = game_copy("particles-in-circle"), game_copy("qcd")
    out = tmp_path / "out"
    gated: list[list[str]] = []
    real = gates.check_rules
    monkeypatch.setattr(gates, "check_rules", lambda games, *args: gated.append([g.id for g in games]) or real(games, *args))
    build = lambda: cardgen.build([str(a.path), str(b.path)], BuildOptions(out=out), jobs=1)  # noqa: E731
    build()
    b.edit("components/cards.yaml", "  - id: wild-w\n    particle: W+\n", "  - id: wild-w\n    particle: W-\n")
    build()
    (out / "qcd/en/rules.pdf").unlink()   # an output alone: the inputs, and so the rules' verdict, are unchanged
    build()
    assert gated == [["particles-in-circle", "qcd"], ["qcd"], []]


def test_a_failed_build_leaves_no_stamp(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert len(stamps(out)) == 1
    old, new = "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]"
    g.edit("components/cards.yaml", old, new)
    with pytest.raises(cardgen.RuleFindingsError):
        cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert stamps(out) == []
    g.edit("components/cards.yaml", new, old)   # back as it was: built again all the same, and stamped
    before = (out / "particles-in-circle/en/manifest.json").stat()
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert built_again(out / "particles-in-circle/en", before)
    assert len(stamps(out)) == 1


def test_the_command_refuses_a_deck_the_rules_find_wrong(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    g.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")
    result = command("build", str(g.path), "--out", str(tmp_path / "out"))
    assert result.returncode == 1 and "antiparticles-present" in result.stderr
    assert "not building: " in result.stderr and not (tmp_path / "out/particles-in-circle").exists()


def test_a_font_dir_is_an_input_and_no_cache_builds_anyway(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    fonts, out = tmp_path / "fonts", tmp_path / "out"
    fonts.mkdir()
    shutil.copy(ROOT / "cardgen/fonts/NotoSans-Regular.ttf", fonts / "Extra.ttf")
    args = ("build", str(g.path), "--font-dir", str(fonts), "--out", str(out))
    folder = out / "particles-in-circle/en"
    assert command(*args).returncode == 0
    before = (folder / "manifest.json").stat()
    assert command(*args).returncode == 0 and not built_again(folder, before)
    shutil.copy(ROOT / "cardgen/fonts/NotoSans-Bold.ttf", fonts / "Extra.ttf")
    assert command(*args).returncode == 0 and built_again(folder, before)
    before = (folder / "manifest.json").stat()
    assert command(*args, "--no-cache").returncode == 0 and built_again(folder, before)


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    folder = out / "particles-in-circle/en"
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    cards = g.path / "components/cards.yaml"
    st = cards.stat()
    g.edit("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]",
           "colour: [anti-blue, anti-green, anti-red]")
    os.utime(cards, ns=(st.st_atime_ns, st.st_mtime_ns))   # as `touch -r` or an archive would leave it
    assert cards.stat().st_size == st.st_size and cards.stat().st_mtime_ns == st.st_mtime_ns
    before = (folder / "manifest.json").stat()
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert built_again(folder, before)   # its ctime moved, and then its hash differed


def test_an_input_changed_while_the_build_ran_leaves_no_stamp(game_copy, tmp_path, monkeypatch):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    real = gates.check_rules

    def edit_meanwhile(games, *args):   # after the game was loaded: the build goes on with what it read
        g.edit("game.yaml", "name:", "name: ", 1)
        return real(games, *args)

    monkeypatch.setattr(gates, "check_rules", edit_meanwhile)
    with pytest.raises(InputError, match="changed while it was being built"):   # nothing drawn from a moving target
        cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    assert not (out / "particles-in-circle/en/cards.pdf").exists()
    assert stamps(out) == []


def test_a_stamp_this_user_did_not_write_vouches_for_nothing(game_copy, tmp_path):
    """A stamp is compressed JSON beside the files it vouches for, which anyone may inflate,
    edit and compress again: a PDF replaced together with the stamp's digest of it (or an
    output folder brought with a stamp from someone else) was kept by a build that found
    nothing to do."""
    import hashlib
    import json
    import zlib

    from cardgen import userkey

    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
    folder = out / "particles-in-circle/en"
    good = (folder / "cards.pdf").read_bytes()
    (stamp,) = stamps(out)
    mac, packed = stamp.read_bytes().split(b"\n", 1)
    assert mac == userkey.sign(packed).encode()
    body = zlib.decompress(packed)
    doctored = (folder / "rules.pdf").read_bytes()
    (folder / "cards.pdf").write_bytes(doctored)
    text = body.decode().replace(hashlib.sha256(good).hexdigest(), hashlib.sha256(doctored).hexdigest())
    assert text != body.decode()
    repacked = zlib.compress(text.encode())
    for signed in (b"0" * 64, hashlib.sha256(repacked).hexdigest().encode()):   # no key, or a checksum
        stamp.write_bytes(signed + b"\n" + repacked)
        before = (folder / "manifest.json").stat()
        cardgen.build(str(g.path), BuildOptions(out=out), jobs=1)
        assert built_again(folder, before) and (folder / "cards.pdf").read_bytes() == good
        (folder / "cards.pdf").write_bytes(doctored)
        (stamp,) = stamps(out)
    json.loads(zlib.decompress(stamp.read_bytes().split(b"\n", 1)[1]))   # the build wrote a signed stamp again
