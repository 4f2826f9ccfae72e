"""Time the sheet writer on realistic decks and compare with pdfimpose's "cards" schema.

Run:  python bench/bench_pdf.py   (prints a report; no assertions)

Faces are rendered once up front with cairosvg (with text, so every face carries its own
font subset, as real cards do); only the imposition is timed.  pdfimpose needs its input
as one multi-page PDF, so the faces are merged first (merge time reported separately).
"""

from __future__ import annotations

import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cairosvg
import pikepdf

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardgen.imposition import CardGeometry, Placement, plan_grid  # noqa: E402
from cardgen.pdfwrite import write_sheets  # noqa: E402

CARD = CardGeometry(63, 88, 3, "M0 0H63V88H0Z", True)
RUNS = 5


def face(label: str, hue: int) -> bytes:
    """A card-like face: background, frame, title and a line of body text."""
    aw, ah = CARD.art_width, CARD.art_height
    svg = f"""<svg xmlns="http://www.w3.org/2000/svg" width="{aw}mm" height="{ah}mm" viewBox="0 0 {aw} {ah}">
<rect width="{aw}" height="{ah}" fill="hsl({hue},60%,75%)"/>
<rect x="6" y="6" width="{aw - 12}" height="{ah - 12}" rx="3" fill="white" stroke="black" stroke-width="0.4"/>
<text x="{aw / 2}" y="20" font-family="DejaVu Sans" font-size="7" text-anchor="middle">{label}</text>
<text x="10" y="70" font-family="DejaVu Serif" font-size="3.5">Charge, spin and mass of {label}</text>
</svg>"""
    return cairosvg.svg2pdf(bytestring=svg.encode())


def median_time(fn: Callable[[], bytes]) -> tuple[float, int]:
    times, size = [], 0
    for _ in range(RUNS):
        start = time.perf_counter()
        size = len(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times), size


def merge(pdfs: list[bytes]) -> bytes:
    out = pikepdf.new()
    sources = [pikepdf.open(io.BytesIO(p)) for p in pdfs]
    for src in sources:
        out.pages.extend(src.pages)
    buf = io.BytesIO()
    out.save(buf)
    return buf.getvalue()


def pdfimpose_cards(fronts: bytes, back_path: str) -> bytes:
    from pdfimpose.schema import cards

    out = io.BytesIO()
    cards.impose([io.BytesIO(fronts)], out, size="A4", back=back_path, mark=["crop"])
    return out.getvalue()


def main() -> None:
    plan = plan_grid(210, 297, CARD)
    print(f"layout: {plan.describe()}")
    t0 = time.perf_counter()
    distinct = {f"card{i}": face(f"Particle {i}", i * 3) for i in range(100)}
    five = {f"q{i}": face(f"Quark {i}", i * 60) for i in range(5)}
    back = face("cardgen", 200)
    render = time.perf_counter() - t0
    print(f"rendering {len(distinct) + len(five) + 1} faces with cairosvg (not timed below): {render:.2f} s")

    deck100 = [Placement(key, "back") for key in distinct]
    deck44 = [Placement(f"q{i % 5}", "back") for i in range(44)]
    faces100 = {**distinct, "back": back}
    faces44 = {**five, "back": back}

    def ours100() -> bytes:
        return write_sheets(deck100, faces100, CARD, plan, duplex="long", footer="bench", creation_epoch=0)

    def ours44() -> bytes:
        return write_sheets(deck44, faces44, CARD, plan, duplex="long", footer="bench", creation_epoch=0)

    t100, s100 = median_time(ours100)
    t44, s44 = median_time(ours44)
    print(
        f"cardgen, 100 distinct cards + shared back, A4 duplex: {t100 * 1000:7.1f} ms  {s100 / 1024:7.1f} KiB"
    )
    print(
        f"cardgen, 44 cards / 5 faces + shared back, A4 duplex: {t44 * 1000:7.1f} ms  {s44 / 1024:7.1f} KiB"
    )

    try:
        import pdfimpose  # noqa: F401
    except ImportError:
        print("pdfimpose is not installed (pip install 'pdfimpose>=2.10'); comparison skipped")
        return
    t0 = time.perf_counter()
    merged = merge(list(distinct.values()))
    merge_time = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        back_path = str(Path(tmp) / "back.pdf")
        Path(back_path).write_bytes(back)
        try:
            timp, simp = median_time(lambda: pdfimpose_cards(merged, back_path))
        except Exception as exc:  # report, then fall back as the brief says
            print(f"pdfimpose 'cards' could not impose the deck: {exc!r}; try 'cartuli' instead")
            return
    print(f"(merging the 100 faces into pdfimpose's one input PDF: {merge_time * 1000:.1f} ms, not included)")
    print(
        f"pdfimpose 'cards' schema, same 100 cards + back, A4: {timp * 1000:7.1f} ms  {simp / 1024:7.1f} KiB"
    )
    print(f"ratio pdfimpose / cardgen: time {timp / t100:.2f}x, size {simp / s100:.2f}x")


if __name__ == "__main__":
    main()
