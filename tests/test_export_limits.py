"""Bad input to the commands that write PNG faces (``export png``, ``export tts``, ``render``):
a resolution that is not a number, faces too large to draw, a template that fails halfway
and Ctrl-C all end with one line and a non-zero exit, and leave the outputs of earlier runs
exactly as they were."""

from __future__ import annotations

import gc
import hashlib
import io
import math
import os
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

import cardgen
import cardgen.draw
import cardgen.export
import cardgen.preview
from cardgen.cli import main
from cardgen.errors import InputError
from cardgen.export import TTS_MAX_SIDE, export_png, export_tts
from cardgen.preview import check_pixels

from .test_export import shaded_game

COMMANDS = (("export", "png"), ("export", "tts"), ("render",))


def run(*args: str):
    """``cardgen ARGS`` in this process (faster than a subprocess; exit code and output as users see them)."""
    return CliRunner().invoke(main, list(args))


def files(out: Path) -> dict[str, str]:
    """Every file under ``out`` but the lock, by path, with a digest of its content."""
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file() and p.name != ".lock"}


def _export_all(game: Path, out: Path) -> list:
    """Every command, on the game in folder ``game``, at a dpi that keeps it fast."""
    return [run(*command, str(game), "--dpi", "20", "--out", str(out)) for command in COMMANDS]


# --- --dpi -------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("dpi", ["nan", "inf"])
def test_a_dpi_that_is_not_a_number_is_a_usage_error(tmp_path, command, dpi):
    """'nan' passed the 10–1200 range check (NaN compares false with both bounds) and failed
    drawing, blaming the template; render left an SVG behind."""
    result = run(*command, "qcd", "--dpi", dpi, "--out", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert "'--dpi'" in result.output and "template" not in result.output
    assert not (tmp_path / "out").exists()


def test_the_library_refuses_a_dpi_that_is_not_a_number(tmp_path):
    game = cardgen.load_game("qcd")
    for export in (lambda: export_png(game, "en", math.nan, tmp_path), lambda: export_tts(game, "en", tmp_path, math.nan)):
        with pytest.raises(InputError, match="resolution"):
            export()
    assert files(tmp_path) == {}


# --- pixel limit -------------------------------------------------------------------------------

def test_a_face_above_the_pixel_limit_is_refused_with_the_dpi_that_fits():
    """The particle-builder mat at 1200 dpi (475 Mpx) took 1.9 GB and ended in Pillow's
    DecompressionBombError (exit 70); it is now refused before drawing, with advice."""
    mat = cardgen.load_game("particle-builder").components["mat"]
    with pytest.raises(InputError) as refused:
        check_pixels(mat, 1200)
    message = str(refused.value)
    assert "'mat'" in message and "560 × 380 mm" in message and "26,457 × 17,953 = 474,982,521 px" in message
    assert "at most 50,000,000" in message and "--dpi 389 or lower" in message
    check_pixels(mat, 389)   # the dpi advised fits


@pytest.mark.parametrize("command", [("export", "png"), ("render",)])
def test_components_above_the_limit_are_refused_before_anything_is_drawn(tmp_path, monkeypatch, command):
    monkeypatch.setattr(cardgen.preview, "MAX_FACE_PIXELS", 20_000)
    drawn = []
    monkeypatch.setattr(cardgen.preview, "render_png", lambda face, dpi: drawn.append(face) or b"")
    out = tmp_path / "out"
    result = run(*command, "qcd", "--dpi", "60", "--out", str(out))
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and "component 'cards'" in line and "69 × 94 mm" in line
    assert "163 × 222 = 36,186 px" in line and "at most 20,000" in line and "--dpi 44 or lower" in line
    assert "template" not in line
    assert drawn == [] and files(out) == {}
    monkeypatch.undo()
    monkeypatch.setattr(cardgen.preview, "MAX_FACE_PIXELS", 20_000)
    assert run(*command, "qcd", "--dpi", "44", "--out", str(out)).exit_code == 0


def test_tts_draws_faces_at_the_size_tts_takes_not_larger(tmp_path, monkeypatch, game_copy):
    """A board's image is at most 4096 px, a deck's sheet too: the faces are drawn at the dpi that
    gives that size, not at the dpi asked and scaled down (a 1500 mm board at 300 dpi crashed)."""
    g = game_copy("particle-builder")
    g.edit("components/mat.yaml", "size: {width: 560, height: 380}", "size: {width: 1000, height: 380}")
    drawn: dict[str, list[float]] = {}
    draw = cardgen.export.draw_png

    def recording(face, dpi):
        drawn.setdefault(face.component, []).append(dpi)
        return draw(face, dpi)

    monkeypatch.setattr(cardgen.export, "draw_png", recording)
    export_tts(g.load(), "en", tmp_path, dpi=300, components=["mat"])
    assert drawn["mat"] == [pytest.approx(TTS_MAX_SIDE * 25.4 / 1000, abs=0.01)]
    with Image.open(tmp_path / "particle-builder" / "en" / "tts" / "mat-mat.png") as board:
        assert board.size == (TTS_MAX_SIDE, round(380 * TTS_MAX_SIDE / 1000))

    deck = cardgen.load_game(shaded_game(tmp_path, 9))   # 5 × 2 cells of 50 × 70 mm at 600 dpi: 5905 px wide
    export_tts(deck, "en", tmp_path / "deck", dpi=600)
    assert len(drawn["cards"]) == 10 and all(dpi == pytest.approx(600 * TTS_MAX_SIDE / (5 * 1181))
                                             for dpi in drawn["cards"])
    with Image.open(tmp_path / "deck" / "shades" / "en" / "tts" / "cards-sheet-1.png") as sheet:
        assert max(sheet.size) <= TTS_MAX_SIDE and sheet.width > TTS_MAX_SIDE - 10


def test_png_export_holds_one_face_at_a_time(tmp_path, monkeypatch):
    """All faces were kept for the run: 20 targets at 1200 dpi reached 3.6 GB. Count the images
    alive each time a face is drawn: it must not grow with the faces already written."""
    alive = []
    draw = cardgen.export.draw_png

    def counting(face, dpi):
        gc.collect()
        alive.append(sum(isinstance(o, Image.Image) for o in gc.get_objects()))
        return draw(face, dpi)

    monkeypatch.setattr(cardgen.export, "draw_png", counting)
    export_png(cardgen.load_game(shaded_game(tmp_path, 12)), "en", 30, tmp_path / "out")
    assert len(alive) == 13 and max(alive) == alive[0]   # 12 fronts and one shared back, drawn once


# --- all or nothing ----------------------------------------------------------------------------

def test_a_template_error_leaves_earlier_outputs_unchanged(tmp_path, game_copy):
    """One card's template error left 96 PNGs of the other cards, some new, some old."""
    g = game_copy("qcd")
    out = tmp_path / "out"
    assert [r.exit_code for r in _export_all(g.path, out)] == [0, 0, 0]
    before = files(out)
    g.edit("templates/card-front.svg.j2", "{% block artwork %}",
           '{% block artwork %}<rect width="1" height="1" fill="#123456"/>'
           '{% if card.id == "wild-w" %}{{ 1 // 0 }}{% endif %}')
    for result in _export_all(g.path, out):
        assert result.exit_code == 2 and "ZeroDivisionError" in result.output, result.output
    assert files(out) == before
    # nothing staged left (the lock, and the record of what the last export wrote, are kept)
    assert not [p for p in out.rglob(".*") if p.name not in (".lock", cardgen.export.TTS_RECORD)]


def test_a_template_error_on_a_first_run_writes_nothing(tmp_path, game_copy):
    g = game_copy("qcd")
    g.edit("templates/card-front.svg.j2", "{% block artwork %}",
           '{% block artwork %}{% if card.id == "wild-w" %}{{ 1 // 0 }}{% endif %}')
    out = tmp_path / "out"
    assert [r.exit_code for r in _export_all(g.path, out)] == [2, 2, 2]
    # not even an empty folder for the game or its language: the lock alone
    assert sorted(out.rglob("*")) == [out / ".lock"]


def _tiny(game_copy):
    """QCD with 1 × 1 mm cards: less than a pixel at 10 dpi."""
    g = game_copy("qcd")
    g.edit("components/cards.yaml", "size: {width: 63, height: 88}", "size: {width: 1, height: 1}")
    g.edit("components/cards.yaml", "radius: 3}", "radius: 0.2}")
    g.edit("components/cards.yaml", "bleed: 3", "bleed: 0")
    g.edit("components/cards.yaml", "safe: 4", "safe: 0.1")
    for side in ("front", "back"):
        g.write(f"templates/card-{side}.svg.j2", '{% extends "base.svg.j2" %}{% block artwork %}'
                '<rect width="1" height="1" fill="#123456"/>{% endblock %}')
    return g


@pytest.mark.parametrize("command", COMMANDS)
def test_a_face_smaller_than_a_pixel_is_refused_with_the_dpi_that_draws_it(tmp_path, game_copy, command):
    """1 mm cards at 10 dpi round to 0 px: cairo's error blamed the template, and the TTS
    export's layout divided by zero (an internal error)."""
    g = _tiny(game_copy)
    out = tmp_path / "out"
    result = run(*command, str(g.path), "--dpi", "10", "--out", str(out))
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and "component 'cards'" in line and "1 × 1 mm" in line, line
    assert "0 × 0 px at 10 dpi" in line and "--dpi 13 or higher" in line and "template" not in line
    assert [p for p in out.rglob("*") if p.name != ".lock"] == []
    assert run(*command, str(g.path), "--dpi", "13", "--out", str(out)).exit_code == 0


# --- Ctrl-C ------------------------------------------------------------------------------------

class _InterruptedWrite(io.BytesIO):
    """What cairo writes a PNG into, hit by Ctrl-C as the PNG is written."""

    def write(self, data: object) -> int:
        raise KeyboardInterrupt


@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_inside_cairos_write_callback_is_an_interruption(tmp_path, monkeypatch, command):
    """cffi swallows an exception raised in a callback ("Exception ignored from cffi callback")
    and cairo reports a write error: the command ended with "cannot use: 11", exit 2, files left."""
    monkeypatch.setattr(cardgen.draw, "io", types.SimpleNamespace(BytesIO=_InterruptedWrite))
    out = tmp_path / "out"
    result = run(*command, "qcd", "--dpi", "20", "--out", str(out))
    assert result.exit_code == 130, result.output
    assert result.output.strip() == "cardgen: interrupted; outputs from before this run are unchanged"
    assert files(out) == {}


def _png_written_since(out: Path, start: int) -> bool:
    """Whether a PNG (staged or not) under ``out`` was written after ``start`` (ns)."""
    for path in out.rglob("*.png"):
        try:
            if path.stat().st_mtime_ns > start:
                return True
        except FileNotFoundError:   # renamed meanwhile
            pass
    return False


@pytest.mark.parametrize("command", [("export", "png"), ("render",)])
def test_ctrl_c_midway_leaves_the_previous_outputs(tmp_path, game_copy, command):
    """Ctrl-C 1.8 s into a re-export had already replaced 36 of 100 PNGs, under a message
    saying outputs were unchanged. Interrupted once it has written its first new file."""
    g = game_copy("qcd")
    out = tmp_path / "out"
    args = [sys.executable, "-m", "cardgen", *command, str(g.path), "--dpi", "100", "--out", str(out)]
    env = {**os.environ, "CARDGEN_DAEMON": "off"}
    subprocess.run(args, env=env, check=True, capture_output=True, timeout=300)
    before = files(out)
    g.edit("templates/card-front.svg.j2", "{% block artwork %}",
           '{% block artwork %}<rect width="20" height="20" fill="#123456"/>')
    start = time.time_ns()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not _png_written_since(out, start) and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip() == "cardgen: interrupted; outputs from before this run are unchanged"
    assert files(out) == before
    assert not [p for p in out.rglob(".*") if p.name != ".lock"]


# --- several languages --------------------------------------------------------------------------

@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_writes_each_language_asked_for(tmp_path, command):
    """``--lang all`` and ``--lang de,fr`` were refused ("one language at a time") by the
    commands that write PNGs, though ``build`` and ``fonts`` take them: each language now goes
    to its own folder, as one run per language would write it."""
    out = tmp_path / "out"
    result = run(*command, "qcd", "--component", "cards", "--lang", "de,fr", "--dpi", "12", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "qcd").iterdir()) == ["de", "fr"]
    one = tmp_path / "one"
    assert run(*command, "qcd", "--component", "cards", "--lang", "fr", "--dpi", "12", "--out", str(one)).exit_code == 0
    fr, alone = files(out / "qcd" / "fr"), files(one / "qcd" / "fr")
    assert fr.keys() == alone.keys()
    for name in fr:   # a TTS save names its images by their paths, which differ by the output folder
        if name.endswith(".json"):
            ours = (out / "qcd/fr" / name).read_text().replace(str(out), str(one))
            assert ours == (one / "qcd/fr" / name).read_text()
        else:
            assert fr[name] == alone[name], name
    every = run(*command, "qcd", "--component", "cards", "--lang", "all", "--dpi", "12", "--out", str(tmp_path / "all"))
    assert every.exit_code == 0, every.output
    assert sorted(p.name for p in (tmp_path / "all" / "qcd").iterdir()) == cardgen.languages("all", cardgen.load_game("qcd"))


# --- resolution -----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", [("export", "png"), ("render",)])
def test_every_png_face_states_the_dpi_it_was_drawn_at(tmp_path, command):
    """The PNGs had no pHYs chunk: image programs and print dialogs took them for 72 or 96 dpi,
    and a card drawn at 300 dpi printed three to four times its size."""
    out = tmp_path / "out"
    assert run(*command, "qcd", "--component", "cards", "--dpi", "254", "--out", str(out)).exit_code == 0
    pngs = [p for p in out.rglob("*.png") if "contact" not in p.name]
    assert pngs
    for png in pngs:
        with Image.open(png) as image:
            assert image.info["dpi"] == pytest.approx((254, 254), abs=0.01), png
            with_bleed = png.parent.parent.name != "png-trim"
            mm = (69, 94) if with_bleed else (63, 88)
            assert image.size == (round(mm[0] * 10), round(mm[1] * 10))   # 254 dpi: 10 px a mm


# --- what rendering reported ----------------------------------------------------------------------

@pytest.mark.parametrize("command", [("export", "png"), ("export", "tts")])
def test_an_export_says_which_faces_print_badly(tmp_path, game_copy, command):
    """A German title too long for its box, which stops a build, was exported without a word."""
    from .test_hardening import _german_qcd

    g, po = _german_qcd(game_copy)
    po.write_text(po.read_text(encoding="utf-8").replace(
        'msgstr "Joker"', 'msgstr "Joker-Karte mit einer Bezeichnung, die niemals passt"', 1), encoding="utf-8")
    result = run(*command, str(g.path), "--component", "cards", "--lang", "de", "--dpi", "12",
                 "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.output.splitlines() if line.startswith("warning:")]
    assert any("Joker-Karte" in w and "wild-w" in w for w in warnings), result.output
    assert warnings[-1].endswith("'cardgen check' lists what would stop a build")
    clean = run(*command, str(g.path), "--component", "cards", "--lang", "en", "--dpi", "12",
                "--out", str(tmp_path / "out"))
    assert clean.exit_code == 0 and "warning:" not in clean.output
