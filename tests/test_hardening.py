"""Untrusted inputs and outputs a class depends on: artwork safety, template containment,
killed and concurrent builds, reproducibility over time, limits."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

import cardgen
from cardgen.errors import CardgenError, InputError
from cardgen.build import BuildOptions, build
from cardgen.draw import render_png
from cardgen.render import Renderer
from tests.test_render import make_game

ROOT = Path(__file__).resolve().parent.parent

ART = """{% extends "base.svg.j2" %}
{% block artwork %}{{ image(card.title, 0, 0, 50, 70, fit="slice") }}{% endblock %}
"""


def art_game(tmp_path: Path, rel: str) -> Path:
    fields = "  title: {type: text, translatable: false}"
    return make_game(tmp_path, ART, f"  - {{id: one, title: '{rel}'}}", fields)


def face(path: Path):
    game = cardgen.load_game(path)
    return Renderer(game).face(game.components["cards"], game.components["cards"].card("one")).face


def test_png_artwork_is_embedded_and_drawn(tmp_path):
    path = art_game(tmp_path, "art/red.png")
    (path / "art").mkdir()
    Image.new("RGB", (100, 140), (200, 10, 10)).save(path / "art/red.png")
    f = face(path)
    assert 'href="data:image/png;base64,' in f.svg
    im = Image.open(io.BytesIO(render_png(f, 72))).convert("RGB")
    assert im.getpixel((im.width // 2, im.height // 2)) == (200, 10, 10)


@pytest.mark.parametrize("rel, words", [
    ("../../etc/passwd.png", "leaves the game folder"),
    ("/etc/passwd.png", "leaves the game folder"),
    ("art/missing.png", "not found"),
    ("art/notes.txt", "is not PNG, JPEG or SVG"),
])
def test_bad_artwork_paths(tmp_path, rel, words):
    path = art_game(tmp_path, rel)
    (path / "art").mkdir()
    (path / "art/notes.txt").write_text("hello")
    with pytest.raises(InputError) as info:
        face(path)
    assert words in info.value.message and "card 'one'" in info.value.message


def test_symlink_out_of_the_game_is_refused(tmp_path):
    secret = tmp_path / "secret.png"
    Image.new("RGB", (10, 10)).save(secret)
    path = art_game(tmp_path, "art/link.png")
    (path / "art").mkdir()
    (path / "art/link.png").symlink_to(secret)
    with pytest.raises(InputError) as info:
        face(path)
    assert "symbolic link" in info.value.message


def test_oversized_and_bomb_images_are_refused(tmp_path):
    path = art_game(tmp_path, "art/huge.png")
    (path / "art").mkdir()
    (path / "art/huge.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * (21 * 1024 * 1024))
    with pytest.raises(InputError) as info:
        face(path)
    assert "the limit is 20 MiB" in info.value.message
    Image.new("1", (9000, 5000)).save(path / "art/huge.png")          # 45 Mpx in a tiny file
    with pytest.raises(InputError) as info:
        face(path)
    assert "megapixel limit" in info.value.message
    Image.new("1", (20000, 20000)).save(path / "art/huge.png")        # 400 Mpx: past Pillow's own limit
    with pytest.raises(InputError) as info:
        face(path)
    assert "more pixels than the 40 megapixel limit" in info.value.message
    assert info.value.fix == "scale it down to the printed size at 300 dpi"


def test_an_image_reached_through_a_link_inside_the_game_is_named_as_the_game_names_it(tmp_path):
    path = art_game(tmp_path, "art/link.png")
    (path / "art").mkdir()
    (path / "art/real.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really a PNG")
    (path / "art/link.png").symlink_to(path / "art/real.png")
    with pytest.raises(InputError) as info:
        face(path)
    assert info.value.location.file.endswith("art/link.png") and "link.png" in info.value.message


@pytest.mark.parametrize("svg, words", [
    ('<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
     '<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>', "DOCTYPE or entities"),
    ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">'
     '<image xlink:href="file:///etc/passwd" width="5" height="5"/></svg>', "outside files or URLs"),
    ('<svg xmlns="http://www.w3.org/2000/svg"><image href="http://example.com/x.png"/></svg>', "outside files or URLs"),
    ("<svg", "invalid SVG"),
])
def test_unsafe_svg_artwork_is_refused(tmp_path, svg, words):
    path = art_game(tmp_path, "art/a.svg")
    (path / "art").mkdir()
    (path / "art/a.svg").write_text(svg)
    with pytest.raises(InputError) as info:
        face(path)
    assert words in info.value.message


def test_plain_svg_artwork_is_embedded(tmp_path):
    path = art_game(tmp_path, "art/a.svg")
    (path / "art").mkdir()
    (path / "art/a.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
                                    '<rect width="10" height="10" fill="#0a0"/></svg>')
    f = face(path)
    im = Image.open(io.BytesIO(render_png(f, 72))).convert("RGB")
    assert im.getpixel((im.width // 2, im.height // 2)) == (0, 170, 0)


def test_templates_cannot_follow_a_symlink_out_of_their_folder(tmp_path):
    outside = tmp_path / "outside.svg.j2"
    outside.write_text('{% extends "base.svg.j2" %}')
    path = make_game(tmp_path, '{% include "evil.svg.j2" %}')
    (path / "templates/evil.svg.j2").symlink_to(outside)
    with pytest.raises(CardgenError) as info:
        face(path)
    assert "leaves the template folder" in str(info.value)


OUTSIDE = '<image href="file:///etc/hostname" width="50" height="70"/><image href="http://127.0.0.1:9/x.png" width="5" height="5"/>'


def test_faces_never_fetch_files_or_urls(tmp_path):
    """A template drawing from outside the face is refused where it is rendered; and should
    such a face reach the drawing layer anyway, it fetches nothing (the references are ignored)."""
    template = '{% extends "base.svg.j2" %}\n{% block artwork %}' + OUTSIDE + '{% endblock %}\n'
    with pytest.raises(CardgenError, match="outside the face"):
        face(make_game(tmp_path, template))
    plain = face(make_game(tmp_path / "plain", '{% extends "base.svg.j2" %}\n{% block artwork %}<g id="art"/>'
                                                 '{% endblock %}\n'))
    from dataclasses import replace

    from cardgen.draw import render_pdf

    assert '<g id="art"/>' in plain.body
    pdf = render_pdf(replace(plain, body=plain.body.replace('<g id="art"/>', OUTSIDE)))
    assert Path("/etc/hostname").read_bytes().strip() not in pdf


# --- builds as a class depends on them --------------------------------------------------------

def cli_build(out: Path, *extra: str, wait: bool = True):
    args = [sys.executable, "-m", "cardgen", "build", "qcd", "tutti-quantum", "--out", str(out), "--no-cache", *extra]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if wait:
        proc.communicate(timeout=300)
    return proc


def digests(out: Path) -> dict[str, str]:
    """The PDFs a user sees: not the next version a build is writing beside a folder."""
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*.pdf"))
            if not any(part.startswith(".") for part in p.relative_to(out).parts)}


def test_killing_a_build_at_any_moment_keeps_every_file_whole(tmp_path):
    out = tmp_path / "out"
    assert cli_build(out, "--marks", "lines").returncode == 0
    old = digests(out)
    new_out = tmp_path / "reference"
    assert cli_build(new_out).returncode == 0
    new = {k: v for k, v in digests(new_out).items()}
    for delay in (0.4, 0.9, 1.5, 2.2):
        proc = cli_build(out, wait=False)
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        now = digests(out)
        assert set(now) == set(old)
        for name, digest in now.items():
            assert digest in (old[name], new[name]), f"{name} is neither the old nor the new file"
            with pikepdf.open(out / name) as pdf:
                assert len(pdf.pages) > 0
    # the next build sweeps the killed builds' temporary files
    assert cli_build(out).returncode == 0
    assert not list(out.rglob("*.part"))
    assert digests(out) == new


def test_sigterm_ends_a_build_as_ctrl_c_does(tmp_path):
    """SIGTERM left the staged folders and spooled faces behind until a later build into the
    same folder, and said nothing."""
    out = tmp_path / "out"
    assert cli_build(out, "--marks", "lines").returncode == 0
    before = digests(out)
    for delay in (0.8, 0.4, 1.6):   # a moment inside the build; a finished build is tried again
        proc = cli_build(out, "--sets", "4", "--jobs", "2", wait=False)
        time.sleep(delay)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=300)
        if proc.returncode == 0:
            before = digests(out)
            continue
        assert proc.returncode == 143, err
        assert err.decode().strip().endswith("cardgen: terminated; outputs from before this run are unchanged")
        assert digests(out) == before
        assert not [p for p in out.rglob("*") if p.name.startswith(".") and p.name.endswith((".next", ".part", ".old"))]
        break
    else:
        pytest.fail("every build ended before it was terminated")


def test_two_builds_into_one_folder_do_not_corrupt_each_other(tmp_path):
    out = tmp_path / "out"
    a = cli_build(out, wait=False)
    b = cli_build(out, "--marks", "lines", wait=False)
    (_, err_a), (_, err_b) = a.communicate(timeout=300), b.communicate(timeout=300)
    assert a.returncode == 0 and b.returncode == 0
    for game in ("qcd", "tutti-quantum"):
        manifest = json.loads((out / game / "en/manifest.json").read_text())
        for f in manifest["files"]:
            assert hashlib.sha256((out / f["path"]).read_bytes()).hexdigest() == f["sha256"]
    assert b"waiting for another build" in err_a + err_b


def test_builds_on_different_days_are_byte_identical(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    runs = []
    for i, tz in enumerate(("UTC", "Asia/Tokyo")):
        out = tmp_path / f"run{i}"
        res = subprocess.run([sys.executable, "-m", "cardgen", "build", "qcd", "--out", str(out)], cwd=ROOT,
                             env={**env, "TZ": tz}, capture_output=True)
        assert res.returncode == 0
        subprocess.run([sys.executable, "-m", "cardgen", "render", "qcd", "--card", "u-red", "--out", str(out)],
                       cwd=ROOT, env={**env, "TZ": tz}, check=True, capture_output=True)
        runs.append({str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*")
                     if p.is_file() and ".cache" not in p.parts})
        time.sleep(1.1)
    assert runs[0] == runs[1]
    assert any(k.endswith(".png") for k in runs[0]) and any(k.endswith(".pdf") for k in runs[0])


def test_fifty_thousand_copies_are_fine_fifty_thousand_and_one_are_refused(tmp_path):
    path = make_game(tmp_path, '{% extends "base.svg.j2" %}{% block artwork %}{% endblock %}',
                     "  - {id: one, title: a, count: 49999}\n  - {id: two, title: b}")
    from cardgen.build import BuildOptions, build

    (res,) = build([cardgen.load_game(path)], BuildOptions(out=tmp_path / "o", duplex="none"), jobs=1)
    assert res.files[0].cards == 50_000
    (path / "cards.yaml").write_text((path / "cards.yaml").read_text().replace("{id: two, title: b}",
                                                                              "{id: two, title: b, count: 2}"))
    with pytest.raises(InputError) as info:
        cardgen.load_game(path)
    assert "more than" in info.value.message and "50000" in info.value.message


def test_a_named_pipe_instead_of_a_file_is_refused_not_waited_on(game_copy):
    g = game_copy("qcd")
    target = g.path / "tables" / "flavours.yaml"
    target.unlink()
    os.mkfifo(target)
    with pytest.raises(InputError) as info:
        g.load()
    assert info.value.message == "not a regular file"


def test_a_failed_build_leaves_no_staged_files(tmp_path):
    """Components imposed before another game's template failed were staged, never committed:
    the failed build removes them, and nothing of it appears in the output folder."""
    bad = make_game(tmp_path, '{% extends "base.svg.j2" %}{% block artwork %}{{ card.nope }}{% endblock %}')
    games = [cardgen.load_game("qcd"), cardgen.load_game("tutti-quantum"), cardgen.load_game(bad)]
    out = tmp_path / "out"
    with pytest.raises(CardgenError, match="nope"):
        build(games, BuildOptions(out=out, cache=False), jobs=2)
    assert not list(out.rglob("*.part"))
    assert not list(out.rglob("*.pdf")) and not list(out.rglob("manifest.json"))


# --- a build killed between any two file-system steps ---------------------------------------

#: Runs `cardgen build` in a subprocess that SIGKILLs itself at its Nth file-system step
#: (writing, flushing, linking, renaming, swapping, deleting); N = 0 counts the steps into
#: the file given as the second argument instead.
KILL_AT_STEP = """
import os, shutil, signal, sys
from cardgen import cli, output

stop, counter = int(sys.argv[1]), sys.argv[2]
steps = 0

def step(fn):
    def counted(*args, **kwargs):
        global steps
        steps += 1
        if steps == stop:
            os.kill(os.getpid(), signal.SIGKILL)
        if not stop:
            with open(counter, "w") as fh:
                fh.write(str(steps))
        return fn(*args, **kwargs)
    return counted

for module, name in ((os, "fsync"), (os, "rename"), (os, "replace"), (os, "link"), (os, "unlink"),
                     (shutil, "rmtree"), (output, "exchange")):
    setattr(module, name, step(getattr(module, name)))
cli.main(sys.argv[3:])
"""


def folders_agree_with_manifests(out: Path) -> list[str]:
    """Every OUT/<game>/<lang>/ folder as its manifest describes it: each listed file's
    sha256, no unlisted PDF, one paper size; what disagrees, as messages."""
    problems = []
    for folder in sorted(p for p in out.glob("*/*") if p.is_dir() and not p.name.startswith(".")):
        manifest = folder / "manifest.json"
        if not manifest.is_file():
            problems.append(f"{folder}: no manifest")
            continue
        files = json.loads(manifest.read_text())["files"]
        for f in files:
            path = out / f["path"]
            if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != f["sha256"]:
                problems.append(f"{path}: not the file its manifest lists")
        listed = {Path(f["path"]).name for f in files}
        problems += [f"{pdf}: not in the manifest" for pdf in folder.glob("*.pdf") if pdf.name not in listed]
        if len({f["paper"] for f in files}) != 1:
            problems.append(f"{folder}: PDFs of several paper sizes")
    return problems


def test_a_build_killed_at_any_file_system_step_leaves_folders_that_agree_with_their_manifests(tmp_path):
    out, counter = tmp_path / "out", tmp_path / "steps"

    def build_killed_at(step: int, paper: str) -> int:
        for stamp in (out / ".cache").glob("uptodate-*.stamp"):   # each build has work to do, and steps to count
            stamp.unlink()
        args = ["build", "qcd", "--lang", "all", "--paper", paper, "--jobs", "1",
                "--out", str(out)]
        return subprocess.run([sys.executable, "-c", KILL_AT_STEP, str(step), str(counter), *args], cwd=ROOT,
                              capture_output=True, timeout=300).returncode

    assert build_killed_at(0, "a4") == 0
    assert build_killed_at(0, "letter") == 0
    steps = int(counter.read_text())
    assert steps > 20, "the build takes enough file-system steps to be killed between"
    papers = ["a4", "letter"]
    for i, stop in enumerate(sorted({1, 2, steps // 2, steps - 2, steps - 1, *range(3, steps, max(1, steps // 9))})):
        assert build_killed_at(stop, papers[i % 2]) == -signal.SIGKILL
        assert folders_agree_with_manifests(out) == [], f"killed at step {stop} of {steps}"
    assert build_killed_at(0, "a4") == 0   # the next build sweeps what the killed ones left
    assert not list(out.glob("*/.*.next")) and folders_agree_with_manifests(out) == []
    papers = {json.loads(m.read_text())["files"][0]["paper"] for m in out.glob("*/*/manifest.json")}
    assert papers == {"A4"}


SIGNAL_AT_SWAP = """
import os, signal, sys
from cardgen import cli, output

signum, at = int(sys.argv[1]), int(sys.argv[2])
exchange, swaps = output.exchange, 0

def signalled(*args, **kwargs):
    global swaps
    swaps += 1
    if swaps == at:
        os.kill(os.getpid(), signum)
    return exchange(*args, **kwargs)

output.exchange = signalled
cli.main(sys.argv[3:])
"""


@pytest.mark.parametrize("signum, code, how", [(signal.SIGINT, 130, "interrupted"),
                                               (signal.SIGTERM, 143, "terminated")])
def test_a_signal_while_the_folders_are_swapped_in_waits_for_all_of_them_and_says_so(tmp_path, signum, code, how):
    """A build replaces one folder per game and language; a Ctrl-C or SIGTERM between two
    swaps left some languages new and some old under a message that said none changed (a
    stress run of Ctrl-C at random moments found the message wrong after the last swap)."""
    out = tmp_path / "out"
    args = ["build", "qcd", "--lang", "all", "--jobs", "1", "--out", str(out)]
    assert subprocess.run([sys.executable, "-m", "cardgen", *args, "--paper", "a4"], cwd=ROOT,
                          capture_output=True, timeout=300).returncode == 0
    folders = sorted(p for p in (out / "qcd").iterdir() if p.is_dir() and not p.name.startswith("."))
    assert len(folders) > 2
    for at in (1, len(folders)):
        paper = "letter" if at == 1 else "a3"
        for stamp in (out / ".cache").glob("uptodate-*.stamp"):
            stamp.unlink()
        done = subprocess.run([sys.executable, "-c", SIGNAL_AT_SWAP, str(int(signum)), str(at), *args,
                               "--paper", paper], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == code, done.stderr
        assert done.stderr.strip().endswith(f"cardgen: {how} once this run had written {len(folders)} output "
                                            f"folder(s) in full; any others are unchanged")
        assert folders_agree_with_manifests(out) == []
        papers = {json.loads(m.read_text())["files"][0]["paper"] for m in out.glob("qcd/*/manifest.json")}
        assert papers == {paper.upper() if paper != "letter" else "Letter"}
        assert not list(out.glob("*/.*.next"))


# --- errors cross processes; limits of one face --------------------------------------------------

def all_subclasses(cls: type) -> list[type]:
    return [cls] + [s for sub in cls.__subclasses__() for s in all_subclasses(sub)]


def test_every_cardgen_error_survives_pickling_with_everything_it_carries():
    import pickle

    import cardgen.build  # noqa: F401  (their error classes register as subclasses on import)
    import cardgen.render  # noqa: F401
    import cardgen.text.engine  # noqa: F401
    from cardgen.errors import Location

    classes = all_subclasses(CardgenError)
    assert {"TextEngineError", "MissingGlyphs", "TemplateError", "UntranslatedError", "InternalError",
            "FileSystemError"} <= {c.__name__ for c in classes}
    for cls in classes:
        err = cls.__new__(cls)
        CardgenError.__init__(err, f"{cls.__name__} went wrong", Location("a.yaml", 3, 4), "fix it", code="x")
        err.extra = ["kept"]
        copy = pickle.loads(pickle.dumps(err))
        assert type(copy) is cls and str(copy) == str(err) and copy.extra == ["kept"]
        assert (copy.message, copy.location, copy.fix, copy.code, copy.exit_code) == \
            (err.message, err.location, err.fix, err.code, err.exit_code)
    from cardgen.text.engine import MissingGlyphs

    glyphs = pickle.loads(pickle.dumps(MissingGlyphs("xyz", ["y"])))
    assert glyphs.chars == ["y"] and "U+0079" in glyphs.message


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_full_disk_is_one_clear_error_and_the_old_outputs_stay(tmp_path, monkeypatch, jobs):
    import errno

    from cardgen import output

    out = tmp_path / "out"
    games = [cardgen.load_game("qcd"), cardgen.load_game("particles-in-circle")]
    build(games, BuildOptions(out=out), jobs=1)
    before = digests(out)
    real_open = open

    def full_disk(path, mode="r", *args, **kwargs):
        if "w" in mode and str(path).endswith(".pdf"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_open(path, mode, *args, **kwargs)

    monkeypatch.setattr(output, "open", full_disk, raising=False)   # workers fork with it
    with pytest.raises(CardgenError) as info:
        build(games, BuildOptions(out=out, paper="letter", cache=False), jobs=jobs)
    err = info.value
    assert err.code == "io" and err.exit_code == 2
    assert re.fullmatch(r"cannot write '.*/out/(qcd|particles-in-circle)/en/\w+\.pdf': No space left on device",
                        err.message), err.message
    assert err.fix == "free some disk space, or write to another disk with --out"
    assert digests(out) == before and not list(out.glob("*/.*.next"))


def test_a_read_only_output_folder_is_one_clear_error(tmp_path, cli):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = cli("build", "qcd", "--out", str(blocker / "out"))
    assert res.returncode == 2 and "Traceback" not in res.stderr
    assert res.stderr.strip() == (f"cardgen: error[io]: cannot write into the output folder '{blocker / 'out'}': "
                                  "Not a directory. Fix: a file stands where a folder is needed: remove it or "
                                  "choose another --out.")


def test_a_language_that_fails_leaves_every_language_as_it_was(game_copy, tmp_path):
    """`--lang all` is one build: a German text that does not fit stopped it after Arabic had
    been written (and the error said nothing was written)."""
    from cardgen.build.gates import TextProblemsError

    g, po = _german_qcd(game_copy)
    for lang in ("ar", "fr"):   # German fails between these two, in the order languages are built
        (g.path / "locale" / lang / "LC_MESSAGES").mkdir(parents=True)
        (g.path / "locale" / lang / "LC_MESSAGES" / "qcd.po").write_bytes(
            (ROOT / f"data/locale/{lang}/LC_MESSAGES/qcd.po").read_bytes())
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out, lang="all"), jobs=1)
    before = digests(out)
    assert {p.split("/")[1] for p in before} == {"ar", "de", "en", "fr"}
    po.write_text(po.read_text(encoding="utf-8").replace(
        'msgstr "Joker"', 'msgstr "Joker-Karte mit einer Bezeichnung, die niemals passt"', 1), encoding="utf-8")
    with pytest.raises(TextProblemsError) as info:
        build([g.load()], BuildOptions(out=out, lang="all", sets=2), jobs=1)
    assert "nothing was written" in info.value.message
    assert str(info.value).endswith("\nFix: fix them (cardgen check --lang de lists them), or print them anyway with "
                                    "--allow-overflow / --allow-missing-glyphs.")
    assert digests(out) == before
    assert not list(out.glob("*/.*.next"))


def test_a_template_saved_while_the_build_runs_stops_it_before_anything_is_replaced(game_copy, tmp_path, monkeypatch):
    """Workers read templates as they render: an edit mid-build gave a cards.pdf whose pages
    were half old, half new, with exit 0."""
    import cardgen.build as stage_module

    g = game_copy("qcd")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    before = digests(out)
    real = stage_module._build_language

    def edited_meanwhile(*args, **kwargs):
        built = real(*args, **kwargs)
        g.edit("templates/card-back.svg.j2", "{% block artwork %}", "{% block artwork %}<!-- saved -->")
        return built

    monkeypatch.setattr(stage_module, "_build_language", edited_meanwhile)
    with pytest.raises(InputError) as info:
        build([g.load()], BuildOptions(out=out, sets=2), jobs=1)
    assert info.value.message == ("the files of qcd changed while it was being built (en): its decks would mix old "
                                  "and new; nothing was written")
    assert info.value.fix == "build again once the files are saved"
    assert digests(out) == before and not list(out.glob("*/.*.next"))


def test_a_build_folder_made_read_only_is_kept_as_it_is(tmp_path, monkeypatch):
    """Renaming a folder needs the right to write to its parent only, so without a check of its
    own the build would swap a protected folder out and fail on deleting the old version."""
    from cardgen import output

    out = tmp_path / "out"
    games = [cardgen.load_game("qcd"), cardgen.load_game("particles-in-circle")]
    build(games, BuildOptions(out=out), jobs=1)
    before = digests(out)
    protected = out / "qcd" / "en"
    protected.chmod(0o555)
    if os.geteuid() == 0:   # root may write anywhere: ask the mode bits as any other user's build would
        monkeypatch.setattr(output.os, "access", lambda path, mode: bool(os.stat(path).st_mode & 0o200))
    try:
        with pytest.raises(CardgenError) as info:
            build(games, BuildOptions(out=out, sets=2, cache=False), jobs=1)
    finally:
        protected.chmod(0o755)
    err = info.value
    assert err.code == "io" and err.exit_code == 2
    assert err.message == f"cannot write '{protected}': the folder is read-only"
    assert err.fix == "choose a folder you may write to with --out, or change its permissions"
    assert digests(out) == before                       # the other game is not half-updated either
    assert not list(out.glob("*/.*.next")) and not list(out.glob("*/.*.old"))


def test_a_face_that_runs_too_long_is_stopped_and_named(tmp_path, monkeypatch):
    """A tight loop passes no check of the budget: the watchdog stops it."""
    from cardgen import budget

    monkeypatch.setattr(budget, "FACE_SECONDS", 0.5)
    template = ('{% extends "base.svg.j2" %}{% block artwork %}{% set s = "ab" * 3000 %}'
                '{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}{% endblock %}')
    started = time.monotonic()
    with pytest.raises(CardgenError) as info:
        face(make_game(tmp_path, template))
    assert time.monotonic() - started < 5
    assert info.value.message == ("rendering took longer than 0.5 s, the limit for one face (rendering card 'one' of "
                                  "component 'cards', front)")
    assert info.value.location.file.endswith("front.svg.j2") and info.value.location.line == 1
    assert info.value.fix == "look for a loop that runs far more often than intended"
    # the watchdog stopped only that render: the next face renders normally
    ok = face(make_game(tmp_path / "again", '{% extends "base.svg.j2" %}{% block artwork %}{% endblock %}'))
    assert ok.svg.startswith("<svg")


def test_after_a_face_runs_out_of_time_no_other_face_of_the_game_is_tried(tmp_path, monkeypatch):
    """A check's rules read every face: each would otherwise spend the whole limit (a runaway
    template in a 24-card game kept `cardgen check` busy four minutes for one error)."""
    from cardgen import budget

    monkeypatch.setattr(budget, "FACE_SECONDS", 0.3)
    timeouts = []
    real = budget.FaceBudget.timed_out
    monkeypatch.setattr(budget.FaceBudget, "timed_out", lambda self: timeouts.append(1) or real(self))
    template = ('{% extends "base.svg.j2" %}{% block artwork %}{% set s = "ab" * 30000 %}'
                '{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}{{ card.title }}{% endblock %}')
    cards = "\n".join(f"  - {{id: c{n}, title: T{n}}}" for n in range(6))
    game = cardgen.load_game(make_game(tmp_path, template, cards))
    comp = game.components["cards"]
    renderer = Renderer(game)
    errors = []
    for card in comp.cards:
        with pytest.raises(CardgenError) as info:
            renderer.face(comp, card)
        errors.append(info.value)
    assert len(timeouts) == 1
    assert all(e.message == errors[0].message for e in errors)
    assert "rendering card 'c0' of component 'cards', front" in errors[0].message
    assert errors[0].location.file.endswith("front.svg.j2")
    # a renderer of its own (the next command, a rebuilt game) tries again
    with pytest.raises(CardgenError):
        Renderer(game).face(comp, comp.card("c3"))
    assert len(timeouts) == 2


def test_after_a_face_nests_without_end_no_other_face_of_the_game_is_tried(tmp_path, monkeypatch):
    """A template that includes itself took ~2 s per card to reach Python's recursion limit,
    and the check's rules rendered every card: 116 s and 477 MB for one error."""
    game_dir = make_game(tmp_path, '{% extends "base.svg.j2" %}{% block artwork %}{% include "loop.svg.j2" %}'
                         '{{ card.title }}{% endblock %}',
                         "\n".join(f"  - {{id: c{n}, title: T{n}}}" for n in range(6)))
    (game_dir / "templates" / "loop.svg.j2").write_text('<g>{% include "loop.svg.j2" %}</g>', encoding="utf-8")
    game = cardgen.load_game(game_dir)
    comp = game.components["cards"]
    renders = []
    renderer = Renderer(game)
    errors = []
    original = renderer.env.get_template

    def counting(name, *args, **kwargs):
        renders.append(name)
        return original(name, *args, **kwargs)

    monkeypatch.setattr(renderer.env, "get_template", counting)
    for card in comp.cards:
        with pytest.raises(CardgenError) as info:
            renderer.face(comp, card)
        errors.append(info.value)
    assert renders.count("front.svg.j2") == 1   # the first card's face only: the others are not tried
    assert all(e.message == errors[0].message for e in errors)
    assert "nest too deeply" in errors[0].message and "card 'c0'" in errors[0].message


def test_the_watchdog_is_woken_only_for_a_deadline_before_the_one_it_waits_for(monkeypatch):
    """Rendering a face does not wake the watchdog thread (a face of a large deck took a
    thread switch each) unless its deadline comes before the one the thread sleeps until."""
    from cardgen import budget

    watchdog = budget._Watchdog()
    monkeypatch.setattr(budget, "_WATCHDOG", watchdog)
    with budget.FaceBudget(10):
        pass
    started = time.monotonic()
    while watchdog._wakes_at == float("-inf") and time.monotonic() - started < 5:
        time.sleep(0.01)   # the thread has started and sleeps
    woken = []
    notify = watchdog._wake.notify
    monkeypatch.setattr(watchdog._wake, "notify", lambda: (woken.append(1), notify()))
    for _ in range(100):
        with budget.FaceBudget(10):
            pass
    assert woken == []
    with budget.FaceBudget(0.5):
        pass
    assert woken == [1]


@pytest.mark.parametrize("words", [2000, 8000])
def test_text_far_too_long_for_its_box_is_overflow_at_once(tmp_path, words):
    template = ('{% extends "base.svg.j2" %}{% block artwork %}'
                '{{ text("word " * ' + str(words) + ', 2, 10, size=3, width=46, min_size=2, field="rules") }}'
                '{% endblock %}')
    game = cardgen.load_game(make_game(tmp_path, template))
    renderer = Renderer(game)
    started = time.monotonic()
    result = renderer.face(game.components["cards"], game.components["cards"].card("one"))
    f = result.face
    assert time.monotonic() - started < 2
    (issue,) = result.issues
    assert (issue.kind, issue.field, issue.card) == ("overflow", "rules", "one")
    assert issue.detail.startswith(f"{5 * words:,} characters cannot fit 46 × 74 mm even at 2 mm")
    assert len(issue.text) <= 81 and f.svg.count('aria-label="word') == 1


# --- files a shared game folder may hold, that nothing refers to --------------------------------

def _odd_files(game: Path) -> None:
    """A named pipe, a link to an endless device and a 50 GB (sparse) file, nowhere referred to."""
    os.mkfifo(game / "notes.txt")
    os.mkfifo(game / "templates" / "unused.svg.j2")
    (game / "templates" / "zero.svg.j2").symlink_to("/dev/zero")
    with open(game / "templates" / "big.bin", "wb") as fh:
        fh.truncate(50 << 30)


def test_pipes_devices_and_huge_files_in_a_game_folder_are_not_read(game_copy, tmp_path):
    """They go into no key by their bytes: a check and a build finish (a plain read blocked for
    ever on the pipe, never ended on /dev/zero and read 50 GB into memory)."""
    g = game_copy("qcd")
    _odd_files(g.path)
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    for args in (["check", str(g.path)], ["build", str(g.path), "--out", str(tmp_path / "out")],
                 ["build", str(g.path), "--out", str(tmp_path / "out")]):
        res = subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True, timeout=120,
                             env=env)
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "out/qcd/en/cards.pdf").is_file()


def test_a_pipe_where_a_data_file_belongs_is_a_clear_error(game_copy, tmp_path, cli):
    g = game_copy("qcd")
    (g.path / "tables" / "flavours.yaml").unlink()
    os.mkfifo(g.path / "tables" / "flavours.yaml")
    for args in (["check", str(g.path)], ["build", str(g.path), "--out", str(tmp_path / "out")]):
        res = cli(*args)
        assert res.returncode == 2 and "flavours.yaml: error[input]: not a regular file" in res.stderr, res.stderr
    assert not (tmp_path / "out" / "qcd").exists()


def test_the_safe_digest_reads_regular_files_only_and_big_ones_by_size(tmp_path):
    from cardgen.filedigest import HASH_LIMIT, sha256_file

    plain = tmp_path / "plain"
    plain.write_bytes(b"x" * 3_000_000)
    assert sha256_file(plain) == hashlib.sha256(b"x" * 3_000_000).hexdigest()
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(HASH_LIMIT + 1)
    assert sha256_file(big) == f"size:{HASH_LIMIT + 1}:{big.stat().st_mtime_ns}"
    os.mkfifo(tmp_path / "pipe")
    for path in (tmp_path / "pipe", Path("/dev/zero")):
        with pytest.raises(OSError, match="not a regular file"):
            sha256_file(path)


# --- templates: size, encoding, includes -------------------------------------------------------

def test_a_template_of_more_than_a_mebibyte_is_refused_before_it_is_read(game_copy, cli):
    g = game_copy("qcd")
    with open(g.path / "templates" / "card-back.svg.j2", "a", encoding="utf-8") as fh:
        fh.write("{# " + "x" * (2 << 20) + " #}\n")
    res = cli("check", str(g.path))
    assert res.returncode == 2
    assert ("card-back.svg.j2: error[input]: template 'card-back.svg.j2' is larger than 1 MiB. Fix: a template draws "
            "one face: move long content into the game's data files.") in res.stderr, res.stderr


def test_a_template_that_is_not_utf8_is_found_at_its_byte(game_copy, cli):
    g = game_copy("qcd")
    path = g.path / "templates" / "card-back.svg.j2"
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2] + b" \xff\xfe"
    path.write_bytes(b"\n".join(lines))
    res = cli("check", str(g.path))
    assert res.returncode == 2 and "Traceback" not in res.stderr and "UnicodeDecodeError" not in res.stderr
    assert (f"card-back.svg.j2:3:{len(lines[2]) - 1}: error[input]: template 'card-back.svg.j2' is not UTF-8 text: "
            f"byte 0xff cannot be read. Fix: save the template as UTF-8") in res.stderr, res.stderr


@pytest.mark.parametrize("name", ["missing.svg.j2", "../game.yaml", "/etc/passwd"])
def test_a_missing_or_outside_include_is_found_at_the_line_that_includes_it(game_copy, cli, name):
    g = game_copy("qcd")
    path = g.path / "templates" / "card-back.svg.j2"
    text = path.read_text(encoding="utf-8")
    line = text.count("\n") + 1
    path.write_text(text + f'{{% include "{name}" %}}\n', encoding="utf-8")
    res = cli("check", str(g.path))
    assert res.returncode == 2
    assert f"card-back.svg.j2:{line}:1: error[input]: template '{name}' not found" in res.stderr, res.stderr


# --- translation catalogs are read strictly -----------------------------------------------------

def _german_qcd(game_copy):
    g = game_copy("qcd")
    folder = g.path / "locale" / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "qcd.po"
    po.write_bytes((Path(__file__).resolve().parent.parent / "data/locale/de/LC_MESSAGES/qcd.po").read_bytes())
    return g, po


def _line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


@pytest.mark.parametrize("old, new, message", [
    ('msgstr "Joker"', 'msgstr "Joker', "is not a keyword with a quoted string (an unclosed quote?)"),
    ('msgstr "Joker"', 'msgstr Joker', "is not a keyword with a quoted string (an unclosed quote?)"),
])
def test_a_damaged_catalog_line_is_an_error_at_its_line_not_a_shortened_translation(game_copy, cli, old, new, message):
    """Babel reads an unclosed quote by dropping the last letter ('Joke'): the card would print
    it, and 'i18n update' would write it back."""
    g, po = _german_qcd(game_copy)
    line = _line_of(po, old)
    po.write_text(po.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    before = po.read_bytes()
    for args in (["check", str(g.path), "--lang", "de"], ["i18n", "update", "--lang", "de", str(g.path)]):
        res = cli(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert f"qcd.po:{line}:1: error[input]: line {line} {message}" in res.stderr, res.stderr
    assert po.read_bytes() == before   # update refused to rewrite it


@pytest.mark.parametrize("old, new, at, message", [
    ('msgstr "Joker"\n', '', 'msgid "Wild card"', "missing msgstr for msgid 'Wild card'"),
    ('msgid "Wild card"', '#-#-#-#-#  de.po  #-#-#-#-#\nmsgid "Wild card"', "#-#-#-#-#",
     "cannot parse po file with conflicts"),
])
def test_a_catalog_error_babel_finds_is_located_at_its_line(game_copy, cli, old, new, at, message):
    """Babel counts its lines from 0 inside its message ("... on 20"): the error names the
    catalog's line as an editor numbers it, in the location like every other input error."""
    g, po = _german_qcd(game_copy)
    po.write_text(po.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    res = cli("check", str(g.path), "--lang", "de")
    assert res.returncode == 2, res.stderr
    assert f"qcd.po:{_line_of(po, at)}:1: error[input]: cannot read catalog: {message}. Fix:" in res.stderr, res.stderr


@pytest.mark.parametrize("new, message", [
    ('msgstr "{nam}: {points} {unit}"', "uses {nam}, which the English text does not have (it has {name}, {points}, {unit})"),
    ('msgstr "{name: {points} {unit}"', "has a brace that opens or closes nothing"),
    ('msgstr "{0}: {points} {unit}"', "uses {0}, which the English text does not have"),
    ('msgstr "{name}: {points}"', "leaves out {unit}: the card would print without that value"),
    ('msgstr "   "', "is only spaces: the card would print nothing there"),
    ('msgstr "{name.__class__}: {points} {unit}"', "writes {name.__class__}, which the English text does not"),
    ('msgstr "{name}: {points:>999999999} {unit}"', "writes {points:>999999999}, which the English text does not"),
    ('msgstr "{name!r}: {points} {unit}"', "writes {name!r}, which the English text does not"),
    ('msgstr "{name}:\x01 {points} {unit}"', "holds the control character U+0001"),
])
def test_a_translation_that_would_print_wrongly_is_an_error_at_its_entry(game_copy, cli, new, message):
    """A wrong placeholder failed the template that formats it ("KeyError: 'nam'" at a template
    line); a dropped one, or a translation of spaces, printed without a word."""
    g = game_copy("tutti-quantum")
    folder = g.path / "locale" / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    po = folder / "tutti-quantum.po"
    po.write_bytes((ROOT / "data/locale/de/LC_MESSAGES/tutti-quantum.po").read_bytes())
    old = 'msgstr "{name}: {points} {unit}"'
    line = _line_of(po, 'msgid "{name}: {points} {unit}"')
    po.write_text(po.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    res = cli("check", str(g.path), "--lang", "de")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert (f"tutti-quantum.po:{line}:1: error[input]: the translation of '{{name}}: {{points}} {{unit}}' {message}"
            in res.stderr), res.stderr


def test_a_message_listed_twice_in_a_catalog_is_an_error(game_copy, cli):
    g, po = _german_qcd(game_copy)
    text = po.read_text(encoding="utf-8")
    entry = text[text.index('msgid "Wild card"'):]
    entry = entry[:entry.index("\n\n") + 2]
    first = _line_of(po, 'msgid "Wild card"')
    po.write_text(text.rstrip("\n") + "\n\n" + entry, encoding="utf-8")
    again = len(po.read_text(encoding="utf-8").splitlines()) - entry.count("\n") + 1
    res = cli("check", str(g.path), "--lang", "de")
    assert res.returncode == 2
    assert (f"qcd.po:{again}:1: error[input]: message 'Wild card' is listed twice (first at line {first})"
            in res.stderr), res.stderr


def test_a_catalog_that_is_not_utf8_is_found_at_its_byte(game_copy, cli):
    g, po = _german_qcd(game_copy)
    po.write_bytes(po.read_bytes().replace(b'msgstr "Joker"', b'msgstr "Jok\xe9r"', 1))
    res = cli("check", str(g.path), "--lang", "de")
    line = _line_of_bytes(po, b"Jok\xe9r")
    column = len('msgstr "Jok') + 1
    assert res.returncode == 2 and f"qcd.po:{line}:{column}: error[input]: the catalog is not UTF-8 text" in res.stderr, \
        res.stderr


def _line_of_bytes(path: Path, text: bytes) -> int:
    return next(n for n, line in enumerate(path.read_bytes().split(b"\n"), 1) if text in line)


def test_numbers_up_to_the_limit_render_and_a_power_is_counted_by_its_real_size(game_copy):
    """2 ** 4095 has 4,096 bits: allowed (the estimate counted 2 ** 2100 as 4,200 bits)."""
    from cardgen.budget import BudgetExceeded, FaceBudget, _check_binop

    with FaceBudget(10):
        _check_binop("**", 2, 4095)
        _check_binop("*", 2 ** 2000, 2 ** 2000)
        with pytest.raises(BudgetExceeded, match="about 4,097 bits"):
            _check_binop("**", 2, 4096)
        with pytest.raises(BudgetExceeded, match="the product is a number of about 4,098 bits"):
            _check_binop("*", 2 ** 4095, 2)


@pytest.mark.parametrize("element", [
    '<image href="/etc/passwd" x="0" y="0" width="5" height="5"/>',
    '<image xlink:href="http://example.com/x.png" x="0" y="0" width="5" height="5"/>',
    '<use href="other.svg#shape"/>',
])
def test_a_face_drawing_from_outside_itself_is_refused_at_its_line(game_copy, cli, element):
    """Nothing outside a face is read (no file, no URL): an element drawing from outside printed
    nothing, without a word."""
    g = game_copy("qcd")
    path = g.path / "templates" / "card-back.svg.j2"
    text = path.read_text(encoding="utf-8")
    marker = "{% endblock %}"
    line = text[:text.rindex(marker)].count("\n") + 1
    path.write_text(text[:text.rindex(marker)] + element + "\n" + text[text.rindex(marker):], encoding="utf-8")
    res = cli("check", str(g.path))
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"card-back.svg.j2:{line}:1: error[input]: the template draws <" in res.stderr, res.stderr
    assert "Fix: place artwork with the image() helper" in res.stderr


def test_a_face_that_failed_in_a_check_is_not_rendered_again_for_each_reader(tmp_path, monkeypatch):
    """The rules that read faces, and the render pass after them, share each face: one that ran
    out of its time raises the same error to each of them instead of taking its time again."""
    from cardgen import budget, checkfaces

    monkeypatch.setattr(budget, "FACE_SECONDS", 0.3)
    template = ('{% extends "base.svg.j2" %}{% block artwork %}{% set s = "ab" * 3000 %}'
                '{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}{% endblock %}')
    game = cardgen.load_game(make_game(tmp_path, template))
    calls = []
    real = Renderer.face

    def counting(self, comp, card, side="front", mark=None):
        calls.append((comp.id, card.id, side))
        return real(self, comp, card, side, mark)

    monkeypatch.setattr(Renderer, "face", counting)
    comp = game.components["cards"]
    card = comp.card("one")
    with checkfaces.shared_faces():
        faces = checkfaces.faces_of(game)
        errors = []
        for read in (lambda: faces.face(comp, card), lambda: faces.rendered(comp, card),
                     lambda: faces.take(comp, card, "front")):
            with pytest.raises(CardgenError) as info:
                read()
            errors.append(info.value)
    assert calls == [("cards", "one", "front")]
    assert all(e is errors[0] for e in errors) and "rendering took longer than 0.3 s" in errors[0].message


def test_files_are_written_under_the_umask_of_the_moment(tmp_path):
    """The daemon runs each command under its caller's umask: a mode computed once, when the
    module was imported, gave PNGs 0644 to a caller whose umask asked for 0600."""
    from cardgen.output import atomic_write

    old = os.umask(0o077)
    try:
        atomic_write(tmp_path / "private.png", b"x")
        os.umask(0o022)
        atomic_write(tmp_path / "shared.png", b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "private.png").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "shared.png").stat().st_mode & 0o777 == 0o644


def test_a_file_size_limit_while_a_deck_is_written_is_one_clear_error(game_copy, tmp_path):
    """qpdf writing a deck into a file that failed aborted the process from C++ ('terminate
    called after throwing QPDFSystemError', exit 134), leaving the staged folder behind."""
    import resource

    g = game_copy("qcd")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    sizes = {p.name: p.stat().st_size for p in (out / "qcd/en").glob("*.pdf")}
    before = digests(out)
    limit = sizes["cards.pdf"] - 1   # the sheets fit, the deck does not
    assert limit > max(v for k, v in sizes.items() if k != "cards.pdf")

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    for extra in ([], ["--sets", "2"]):   # the deck's PDF is what fails first; then the faces spooled for it
        res = subprocess.run([sys.executable, "-m", "cardgen", "build", str(g.path), "--out", str(out), "--no-cache",
                              "--jobs", "1", "--marks", "lines", *extra], cwd=ROOT, capture_output=True, text=True,
                             timeout=300, preexec_fn=limited, env={**os.environ, "CARDGEN_DAEMON": "off"})
        assert res.returncode == 2, res.stderr
        assert "error[io]: cannot write '" in res.stderr and "': File too large" in res.stderr, res.stderr
        assert "(ulimit -f)" in res.stderr and "terminate called" not in res.stderr
        assert digests(out) == before and not list(out.glob("*/.*.next"))


def test_a_face_with_too_many_elements_is_refused_before_it_is_drawn(tmp_path):
    """Template output within its limits could still hold 200,000 shapes: drawing them took
    minutes and most of a gigabyte."""
    from cardgen import draw

    many = ('{% extends "base.svg.j2" %}{% block artwork %}{% for i in range(60000) %}'
            '<rect x="1" y="1" width="1" height="1"/>{% endfor %}{% endblock %}')
    started = time.monotonic()
    with pytest.raises(CardgenError) as info:
        draw.render_pdf(face(make_game(tmp_path, many)))
    assert time.monotonic() - started < 5
    assert "more than the 50,000 one face may have" in info.value.message and "card 'one'" in info.value.message
    assert info.value.location.file.endswith("front.svg.j2") and "<use>" in info.value.fix


@pytest.mark.parametrize("directly", [True, False])
def test_a_face_that_draws_too_long_is_stopped_with_a_clear_error(tmp_path, monkeypatch, directly):
    """20,000 translucent circles drew for 102 s: drawing has a time limit of its own, for
    faces cairo is driven to straight (directdraw) and those cairosvg draws alike."""
    from cardgen import draw

    monkeypatch.setattr(draw, "DRAW_SECONDS", 0.2)
    if not directly:   # a filter is drawn by cairosvg, not by cardgen's own drawer
        monkeypatch.setattr(draw, "direct_drawing", lambda _face: None)
    slow = ('{% extends "base.svg.j2" %}{% block artwork %}{% for i in range(20000) %}'
            '<g opacity="0.3"><circle cx="{{ i % 60 }}" cy="{{ i % 80 }}" r="30" fill="red"/></g>'
            '{% endfor %}{% endblock %}')
    started = time.monotonic()
    with pytest.raises(CardgenError) as info:
        draw.render_pdf(face(make_game(tmp_path, slow)))
    assert time.monotonic() - started < 10
    assert "drawing the face took longer than 0.2 s" in info.value.message
    assert info.value.location.file.endswith("front.svg.j2")
    ok = ('{% extends "base.svg.j2" %}{% block artwork %}<circle cx="10" cy="10" r="5"/>{% endblock %}')
    assert draw.render_pdf(face(make_game(tmp_path / "ok", ok))).startswith(b"%PDF")   # the next face draws


def test_a_templates_own_output_is_bounded_apart_from_its_artwork(tmp_path):
    """A template wrote 38 million characters of its own (a comment) within the face's limit
    and took 2 GB on the way to the drawn face; artwork is the one large legitimate part."""
    import random

    from cardgen import budget

    long = ('{% extends "base.svg.j2" %}{% block artwork %}<!-- {% set s = "x" * 900000 %}'
            '{% for i in range(6) %}{{ s }}{% endfor %} -->{% endblock %}')
    with pytest.raises(CardgenError) as info:
        face(make_game(tmp_path / "long", long))
    assert f"more than {budget.MAX_TEMPLATE_CHARS:,} characters besides its artwork" in info.value.message
    # a photo larger than that limit once encoded is still embedded and drawn
    path = art_game(tmp_path / "photo", "art/noise.png")
    (path / "art").mkdir()
    noise = random.Random(1).randbytes(1300 * 1300 * 3)
    Image.frombytes("RGB", (1300, 1300), noise).save(path / "art/noise.png")
    assert (path / "art/noise.png").stat().st_size * 4 / 3 > budget.MAX_TEMPLATE_CHARS
    drawn = face(path)
    assert len(drawn.body) > budget.MAX_TEMPLATE_CHARS


def test_a_build_never_writes_through_a_link_in_the_output_folder(tmp_path):
    """With <out>/.cache a link to /etc, a build wrote its cache database there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / ".cache").symlink_to(elsewhere)
    with pytest.raises(InputError) as info:
        build([cardgen.load_game("qcd")], BuildOptions(out=out))
    assert ".cache is a link" in info.value.message and "remove the link" in info.value.fix
    assert list(elsewhere.iterdir()) == [] and not (out / "qcd").exists()


def test_svg_artwork_with_too_many_elements_is_refused_at_its_file(tmp_path):
    """A 17.6 MB SVG of 250,000 rectangles (under the 20 MiB file limit) took 3 GB to draw."""
    from cardgen import images

    path = art_game(tmp_path, "art/busy.svg")
    (path / "art").mkdir()
    rects = "".join('<rect x="1" y="1" width="1" height="1"/>' for _ in range(images.MAX_SVG_ELEMENTS + 1))
    (path / "art/busy.svg").write_text(f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">{rects}</svg>')
    with pytest.raises(InputError) as info:
        face(path)
    assert f"more than the {images.MAX_SVG_ELEMENTS:,} a piece of artwork may have" in info.value.message
    assert info.value.location.file.endswith("busy.svg") and "PNG" in info.value.fix
