"""Golden-image comparison shared by the visual regression tests.

A face is rasterised at 72 dpi and compared with a stored PNG: the mean absolute difference
per channel must stay under 2.0 and fewer than 1 % of pixels may differ by more than 40 (so
anti-aliasing noise passes and a moved or recoloured element fails). Set
CARDGEN_UPDATE_GOLDEN=1 to rewrite the goldens after an intended change.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image, ImageChops

from cardgen.draw import render_png
from cardgen.render import Face

GOLDEN = Path(__file__).resolve().parent / "golden"
DPI = 72


def difference(got: Image.Image, want: Image.Image) -> tuple[float, float]:
    """(worst channel's mean absolute difference, share of pixels off by > 40 in any channel)."""
    assert got.size == want.size, (got.size, want.size)
    diff = ImageChops.difference(got, want)
    n = got.size[0] * got.size[1]
    mean = max(sum(i * v for i, v in enumerate(band.histogram())) / n for band in diff.split())
    far = diff.convert("L").point(lambda v: 255 if v > 40 else 0).histogram()[255] / n
    return mean, far


def assert_matches_golden(face: Face, name: str) -> None:
    """Compare ``face`` with ``tests/golden/<name>.png`` (created/rewritten on request)."""
    path = GOLDEN / f"{name}.png"
    got = Image.open(io.BytesIO(render_png(face, DPI))).convert("RGB")
    if os.environ.get("CARDGEN_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        got.save(path, optimize=True)
    assert path.exists(), f"no golden {path}: run with CARDGEN_UPDATE_GOLDEN=1 to create it"
    mean, far = difference(got, Image.open(path).convert("RGB"))
    assert mean < 2.0 and far < 0.01, f"{path.name}: mean diff {mean:.2f}, {far:.2%} pixels off by > 40"
