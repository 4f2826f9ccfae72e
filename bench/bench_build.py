"""Full default build, cold, against the renderer floor; and a 1000-card synthetic deck.

Run: .venv/bin/python bench/bench_build.py            (prints numbers; asserts nothing)

* build: `cardgen build` (all four games, English, A4) in a fresh process, wall time, median
  of 5 runs, each into an empty folder.
* floor: cairosvg alone rendering the same distinct face SVGs to PDF, one process, same run.
  The target is build ≤ 1.3 × floor ÷ cores.
* 1000-card deck: a generated game of 1000 distinct cards built in a fresh process; wall time
  and peak RSS of that process (targets ≤ 15 s and ≤ 500 MB).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARDGEN = [sys.executable, "-m", "cardgen"]


def timed_run(args: list[str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (MB) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run(args, check=True, cwd=ROOT, capture_output=True)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, max(peak, before) // 1024


def floor_seconds() -> tuple[float, int]:
    import cairosvg

    import cardgen
    from cardgen.render import Renderer

    svgs = []
    for game in cardgen.load_games():
        r = Renderer(game)
        for comp in game.components.values():
            keys = set()
            for face in r.faces(comp):
                if face.key not in keys:
                    keys.add(face.key)
                    svgs.append(face.svg.encode())
    t = time.perf_counter()
    for svg in svgs:
        cairosvg.svg2pdf(bytestring=svg)
    return time.perf_counter() - t, len(svgs)


def synthetic_game(root: Path, cards: int) -> Path:
    """A designer-style game with `cards` distinct cards, using the QCD card templates."""
    g = root / "big"
    (g / "templates").mkdir(parents=True)
    for name in ("card-front.svg.j2", "card-back.svg.j2"):
        (g / "templates" / name).write_text((ROOT / "templates/qcd" / name).read_text())
    (g / "game.yaml").write_text("id: big\nname: Big deck\ncomponents: [cards.yaml]\ntables: [flavours.yaml, "
                                 "transmutations.yaml]\n")
    for name in ("flavours.yaml", "transmutations.yaml"):
        (g / name).write_text((ROOT / "data/games/qcd/tables" / name).read_text())
    lines = []
    flavours = ["u", "d", "s", "c", "ubar", "dbar", "sbar", "cbar"]
    colours = ["red", "green", "blue", "anti-red", "anti-green", "anti-blue"]
    for i in range(cards):
        f = flavours[i % 8]
        c = colours[(i // 8) % 3 + (3 if f.endswith("bar") else 0)]
        lines.append(f"  - {{id: card-{i}, particle: {f}, colour: {c}, serial: '#{i}'}}")
    (g / "cards.yaml").write_text(textwrap.dedent("""\
        id: cards
        name: Cards
        size: {width: 63, height: 88}
        front: card-front.svg.j2
        back: card-back.svg.j2
        fields:
          particle: {type: particle, required: true}
          colour: {type: colour}
          wild: {type: bool}
          serial: {type: text}
        defaults: {wild: false}
        cards:
        """) + "\n".join(lines) + "\n")
    front = g / "templates" / "card-front.svg.j2"
    front.write_text(front.read_text().replace("{% endblock %}", "{{ text(card.serial, 5, 80, size=3, field='serial') }}\n"
                                               "{% endblock %}", 1))
    return g


def main() -> None:
    cores = os.cpu_count() or 1
    walls = []
    for _ in range(5):
        with tempfile.TemporaryDirectory() as out:
            walls.append(timed_run(CARDGEN + ["build", "--out", out])[0])
    build = statistics.median(walls)
    floors = [floor_seconds() for _ in range(3)]
    floor = statistics.median(f[0] for f in floors)
    print(f"full default build, cold process: median {build:.2f} s (runs: {', '.join(f'{w:.2f}' for w in walls)})")
    print(f"renderer floor: cairosvg alone on the same {floors[0][1]} distinct faces: {floor:.2f} s on one core")
    print(f"ratio build / (floor ÷ {cores} cores) = {build / (floor / cores):.2f}  (target ≤ 1.3; build target ≤ 3 s)")
    with tempfile.TemporaryDirectory() as tmp:
        game = synthetic_game(Path(tmp), 1000)
        wall, rss = timed_run(CARDGEN + ["build", str(game), "--out", str(Path(tmp) / "out")])
        print(f"1000 distinct cards + shared back: {wall:.2f} s, peak RSS {rss} MB  (targets ≤ 15 s, ≤ 500 MB)")


if __name__ == "__main__":
    main()
