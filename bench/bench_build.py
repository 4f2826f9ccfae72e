"""Full default build, cold, against the renderer floor; and synthetic decks of 1,000 to 10,000 cards.

Run: .venv/bin/python bench/bench_build.py            (prints numbers; asserts nothing)

* build: `cardgen build` (all four games, English, A4) in a fresh process, wall time and CPU
  time (user + system, all its processes), median of 11 runs, each into an empty folder (no
  face cache, no compiled templates). cardgen's own modules are byte-compiled first, as any
  non-editable install does: this machine sets PYTHONDONTWRITEBYTECODE=1, which would
  otherwise make every run recompile them (~0.1 s).
* floor: cairosvg alone rendering the same distinct face SVGs (complete documents, glyph
  outlines included) to PDF, one process, measured between the build runs.
  The target is build ≤ 1.3 × floor ÷ cores.
* capacity: this VM's cores are not always equal (a neighbour can slow one of them): a
  pure-Python loop is timed alone and then in one process per core at once, between the build
  runs, and the build is also compared with floor ÷ that measured capacity, for context.
* large decks: a generated game of 1,000, 5,000 and 10,000 distinct cards (one component,
  a shared back) built in a fresh process each, with the face cache; wall time, CPU time
  (the process and its workers) and peak RSS of the largest of those processes, and the load
  average before each run (the machine may be shared). Issue #18's target: 10,000 cards in
  ≤ 25 s and ≤ 200 MB, memory flat as the deck grows. Only these:
  ``python bench/bench_build.py decks``.
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


def timed_run(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (MB) of a child process and its workers."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, check=True, cwd=ROOT, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, max(after.ru_maxrss, before.ru_maxrss) // 1024


def distinct_svgs() -> list[bytes]:
    import cardgen
    from cardgen.render import Renderer

    svgs = []
    for game in cardgen.load_games():
        r = Renderer(game)
        for comp in game.components.values():
            keys = set()
            for face in (rendered.face for rendered in r.faces(comp)):
                if face.key not in keys:
                    keys.add(face.key)
                    svgs.append(face.svg.encode())
    return svgs


def floor_seconds(svgs: list[bytes]) -> float:
    import cairosvg

    t = time.perf_counter()
    for svg in svgs:
        cairosvg.svg2pdf(bytestring=svg)
    return time.perf_counter() - t


def _spin(n: int = 4_000_000) -> float:
    t = time.perf_counter()
    x = 0
    for i in range(n):
        x += i
    return time.perf_counter() - t


def parallel_capacity(cores: int) -> float:
    """How many single-core equivalents ``cores`` busy processes get right now."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    alone = min(_spin(), _spin())   # the faster core's pace
    with ProcessPoolExecutor(cores, mp_context=multiprocessing.get_context("fork")) as pool:
        together = list(pool.map(_spin, [4_000_000] * cores))
    return sum(alone / t for t in together)


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
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "cardgen")], check=True)
    svgs = distinct_svgs()
    floor_seconds(svgs[:10])   # warm cairosvg's imports
    walls, cpus, floors, capacities = [], [], [], []
    for _ in range(11):
        with tempfile.TemporaryDirectory() as out:
            wall, cpu, _rss = timed_run(CARDGEN + ["build", "--out", out])
        walls.append(wall)
        cpus.append(cpu)
        floors.append(floor_seconds(svgs))
        capacities.append(parallel_capacity(cores))
    build, floor = statistics.median(walls), statistics.median(floors)
    ratios = [w / (f / cores) for w, f in zip(walls, floors)]
    print(f"full default build, cold process: median {build:.2f} s wall, {statistics.median(cpus):.2f} s CPU "
          f"(runs: {', '.join(f'{w:.2f}' for w in walls)})")
    print(f"renderer floor: cairosvg alone on the same {len(svgs)} distinct faces: median {floor:.2f} s on one core "
          f"(runs: {', '.join(f'{f:.2f}' for f in floors)})")
    print(f"ratio build / (floor ÷ {cores} cores) = {build / (floor / cores):.2f} from the medians; "
          f"per adjacent pair: median {statistics.median(ratios):.2f}, range {min(ratios):.2f}–{max(ratios):.2f}  "
          "(target ≤ 1.3; build target ≤ 3 s)")
    print(f"best runs: build {min(walls):.2f} s against floor {min(floors):.2f} s: ratio "
          f"{min(walls) / (min(floors) / cores):.2f}  (each at this VM's fastest pace)")
    capacity = statistics.median(capacities)
    fair = [w / (f / c) for w, f, c in zip(walls, floors, capacities)]
    print(f"parallel capacity: {cores} busy processes got the work of {capacity:.2f} cores (median; runs: "
          f"{', '.join(f'{c:.2f}' for c in capacities)}); build / (floor ÷ measured capacity): median "
          f"{statistics.median(fair):.2f}, range {min(fair):.2f}–{max(fair):.2f}")
    large_decks()


#: The run of one command, from a process of its own: RUSAGE_CHILDREN's peak RSS is the
#: largest of every child a process ever waited for, so each deck is measured in a fresh one.
_MEASURE = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "subprocess.run(sys.argv[1:], check=True, capture_output=True)\n"
            "wall = time.perf_counter() - t\n"
            "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(wall, r.ru_utime + r.ru_stime, r.ru_maxrss)\n")


def large_decks(sizes: tuple[int, ...] = (1_000, 5_000, 10_000)) -> None:
    """Each deck built in a fresh process: wall, CPU and peak RSS, with the load average."""
    for cards in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            game = synthetic_game(Path(tmp), cards)
            load = os.getloadavg()[0]
            res = subprocess.run([sys.executable, "-c", _MEASURE, *CARDGEN, "build", str(game), "--out",
                                  str(Path(tmp) / "out")], check=True, cwd=ROOT, capture_output=True, text=True)
            wall, cpu, rss = res.stdout.split()
        print(f"{cards:>6} distinct cards + shared back: {float(wall):6.1f} s wall, {float(cpu):6.1f} s CPU, "
              f"peak RSS {int(rss) // 1024} MB (load average {load:.1f})  (10,000: targets ≤ 25 s, ≤ 200 MB)")


if __name__ == "__main__":
    if sys.argv[1:] == ["decks"]:
        large_decks()
    else:
        main()
