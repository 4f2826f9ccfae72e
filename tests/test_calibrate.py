"""Printer calibration as a user lives it: print the page, read the scales, type what was read
with ``cardgen calibrate --read``, and every later build shifts its backs by exactly the amount
that puts them behind their fronts.

A simulated printer shifts everything it prints on the back page by ``e`` mm. The test reads the
label the page itself prints where the shifted crosshair crosses a scale (parsed from the PDF),
types it as a user would, and checks the saved offset cancels ``e``.
"""

from __future__ import annotations

import json

import pdfplumber
import pytest

from cardgen.imposition import CardGeometry, apply, compose, plan_grid, sheet_flip
from cardgen.paper import parse_paper

MM = 72 / 25.4


@pytest.fixture
def config_home(tmp_path, monkeypatch):
    """A private per-user config folder (platformdirs honours XDG_CONFIG_HOME)."""
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def labels_near(pdf_path, x_mm: float, y_mm: float) -> list[tuple[str, float, float]]:
    """Scale labels on the front page near a target: text and the origin of its first glyph
    (x, and the baseline y from the top), in mm, read from the text matrix so that the font's
    own metrics do not matter."""
    with pdfplumber.open(pdf_path) as pdf:
        page = pdf.pages[0]
        words = page.extract_words(x_tolerance=0.8, keep_blank_chars=False, use_text_flow=False)
        chars = page.chars
        height = page.height
    out = []
    for w in words:
        first = min((c for c in chars if abs(c["x0"] - w["x0"]) < 1e-6 and abs(c["top"] - w["top"]) < 1e-6),
                    key=lambda c: c["x0"])
        ox, oy = first["matrix"][4] / MM, (height - first["matrix"][5]) / MM
        if abs(ox - x_mm) < 12 and abs(oy - y_mm) < 12 and w["text"][0] in "+-":
            out.append((w["text"], ox, oy))
    return out


def read_scale(pdf_path, target: tuple[float, float], crossing: tuple[float, float]) -> tuple[float, float]:
    """What a user reads at a target: the label of the X-scale tick nearest where the back's
    vertical line crosses it, and of the Y-scale tick nearest where the horizontal line
    crosses it. The page writes an X label 0.9 mm left of its tick, just under the scale, and
    a Y label 3.2 mm left of the vertical scale with its baseline 0.5 mm below its tick."""
    x, y = target
    words = labels_near(pdf_path, x, y)
    x_labels = [(abs(wx + 0.9 - crossing[0]), t) for t, wx, wy in words if 0 < wy - y < 3.5]
    y_labels = [(abs(wy - 0.5 - crossing[1]), t) for t, wx, wy in words if abs(x - 3.2 - wx) < 0.05]
    (dx, x_text), (dy, y_text) = min(x_labels), min(y_labels)
    assert dx < 0.2 and dy < 0.2, (x_labels, y_labels)
    return float(x_text), float(y_text)


@pytest.mark.parametrize("duplex, error", [("long", (2.0, -4.0)), ("short", (-2.0, 4.0)), ("long", (4.0, -2.0))])
def test_the_offset_read_off_the_page_and_saved_cancels_the_printers_shift(tmp_path, cli, config_home,
                                                                           duplex, error):
    made = cli("calibrate", "--paper", "a4", "--duplex", duplex, "--out", str(tmp_path))
    assert made.returncode == 0, made.stderr
    assert "Worked example" in made.stdout and "--read" in made.stdout
    paper = parse_paper("a4")
    flip = sheet_flip(paper.width, paper.height, duplex)
    centre = (paper.width / 2, paper.height / 2)
    # The crosshair printed behind the centre, shifted by the printer, seen from the front.
    back_point = apply(flip, *centre)
    seen = apply(flip, back_point[0] + error[0], back_point[1] + error[1])
    reading = read_scale(tmp_path / f"calibration-a4-{duplex}.pdf", centre, seen)

    saved = cli("calibrate", "--duplex", duplex, "--read", f"{reading[0]:g},{reading[1]:g}")
    assert saved.returncode == 0, saved.stderr
    stored = json.loads((config_home / "cardgen" / "printer.json").read_text())["back_offset_mm"][duplex]
    assert stored == [reading[0], reading[1]]

    # The build applies it, says so, and records it.
    out = tmp_path / "out"
    built = cli("build", "qcd", "--duplex", duplex, "--out", str(out))
    assert built.returncode == 0, built.stderr
    assert f"backs shifted by {reading[0]:+g},{reading[1]:+g} mm" in built.stdout
    manifest = json.loads((out / "qcd" / "en" / "manifest.json").read_text())
    assert manifest["options"]["back_offset_mm"] == [reading[0], reading[1]]

    # With the saved offset, the printer's shift puts every back exactly where a perfect printer would.
    plan = plan_grid(paper.width, paper.height, CardGeometry(63, 88, 3, "", True))
    printer = (1.0, 0.0, 0.0, 1.0, error[0], error[1])
    for slot in plan.slots:
        corrected = compose(printer, plan.back_transform(slot, duplex, tuple(stored)))
        ideal = plan.back_transform(slot, duplex, (0.0, 0.0))
        assert all(abs(a - b) < 1e-9 for a, b in zip(corrected, ideal))


def test_readings_are_averaged_per_edge_and_an_explicit_offset_wins(tmp_path, cli, config_home):
    assert cli("calibrate", "--read", "1.5,-1", "--read", "2,-1").returncode == 0
    assert cli("calibrate", "--duplex", "short", "--read", "-0.5,0.5").returncode == 0
    saved = json.loads((config_home / "cardgen" / "printer.json").read_text())["back_offset_mm"]
    assert saved == {"long": [1.75, -1.0], "short": [-0.5, 0.5]}

    out = tmp_path / "out"
    built = cli("build", "qcd", "--back-offset", "0,0", "--out", str(out))
    assert built.returncode == 0 and "backs shifted" not in built.stdout
    manifest = json.loads((out / "qcd" / "en" / "manifest.json").read_text())
    assert manifest["options"]["back_offset_mm"] == [0.0, 0.0]


@pytest.mark.parametrize("reading, message", [
    ("9,0", "beyond the page's scales"),
    ("1", "give two numbers in mm as X,Y"),
    ("nan,0", "give two numbers in mm as X,Y"),
])
def test_a_reading_off_the_scales_is_refused_and_nothing_is_saved(cli, config_home, reading, message):
    res = cli("calibrate", "--read", reading)
    assert res.returncode == 2 and message in res.stderr and "Traceback" not in res.stderr
    assert not (config_home / "cardgen" / "printer.json").exists()


def test_a_damaged_settings_file_is_a_clear_error_naming_it(tmp_path, cli, config_home):
    path = config_home / "cardgen" / "printer.json"
    path.parent.mkdir(parents=True)
    for text in ("not json", '{"back_offset_mm": {"long": [1, 500]}}', '{"back_offset_mm": {"sideways": [1, 1]}}'):
        path.write_text(text)
        res = cli("build", "qcd", "--out", str(tmp_path / "out"))
        assert res.returncode == 2 and str(path) in res.stderr and "calibrate --read" in res.stderr
        assert "Traceback" not in res.stderr
