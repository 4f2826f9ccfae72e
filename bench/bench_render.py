"""Median milliseconds per card face, per game: template + text + drawing to PDF (as a build
does, with cardgen.draw), the text layer's share of it, and — for comparison — cairosvg
drawing the same face's complete SVG document.

Run: .venv/bin/python bench/bench_render.py        (prints a table; asserts nothing)

Each game is measured in a fresh process so caches start cold, as in a real build; faces are
rendered in deck order, so strings repeated across cards (stat labels) hit the text caches the
way they do in a build.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

GAMES = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")


def measure(game_id: str) -> dict:
    import cairosvg

    import cardgen
    from cardgen.draw import render_pdf
    from cardgen.render import Renderer
    from cardgen.text import TextEngine
    from cardgen.text.layout import TextResult

    text_time = [0.0]
    real_layout, real_to_svg = TextEngine.layout, TextResult.to_svg

    def timed(fn):
        def wrapper(*a, **kw):
            t = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                text_time[0] += time.perf_counter() - t
        return wrapper

    TextEngine.layout, TextResult.to_svg = timed(real_layout), timed(real_to_svg)
    game = cardgen.load_game(game_id)
    renderer = Renderer(game)
    totals, templates, texts, draws, cairos = [], [], [], [], []
    for comp in game.components.values():
        for card in comp.cards:
            for side in ("front", "back") if comp.back else ("front",):
                text_time[0] = 0.0
                t0 = time.perf_counter()
                face = renderer.face(comp, card, side).face
                t1 = time.perf_counter()
                render_pdf(face)
                t2 = time.perf_counter()
                cairosvg.svg2pdf(bytestring=face.svg.encode())
                t3 = time.perf_counter()
                totals.append(t2 - t0)
                templates.append(t1 - t0 - text_time[0])
                texts.append(text_time[0])
                draws.append(t2 - t1)
                cairos.append(t3 - t2)
    ms = lambda xs: statistics.median(xs) * 1000  # noqa: E731
    return {"game": game_id, "faces": len(totals), "total_ms": ms(totals), "template_ms": ms(templates),
            "text_ms": ms(texts), "draw_ms": ms(draws), "cairosvg_ms": ms(cairos),
            "text_share": sum(texts) / sum(totals)}


def main() -> None:
    if len(sys.argv) == 2:
        print(json.dumps(measure(sys.argv[1])))
        return
    print(f"{'game':<22}{'faces':>6}{'median/face':>13}{'template':>10}{'text':>8}{'draw':>9}{'text share':>12}"
          f"{'cairosvg, full SVG':>20}")
    for game in GAMES:
        out = subprocess.run([sys.executable, __file__, game], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout)
        print(f"{r['game']:<22}{r['faces']:>6}{r['total_ms']:>10.2f} ms{r['template_ms']:>7.2f} ms"
              f"{r['text_ms']:>5.2f} ms{r['draw_ms']:>6.2f} ms{r['text_share']:>11.1%}{r['cairosvg_ms']:>17.2f} ms")
    print("targets: ≤ 15 ms per face including text; text layer ≤ 25 % of the face cost")


if __name__ == "__main__":
    main()
