"""Cold default build against the renderer floor, measured in the same run; and a 1000-card deck.

Run: .venv/bin/python bench/bench_build.py [--runs N] [--before DIR] [--no-big]
(prints numbers; asserts nothing)

Each figure is taken in a fresh process into an empty folder (no face cache beside the
output), wall time and CPU time (user + system, the process and its workers), median of
``--runs`` runs (default 7), the runs of different figures interleaved so that load the
machine's neighbours add falls on all of them alike:

* whole command: ``cardgen build`` (all four games, English, A4), everything it writes;
* cards, boards and tokens: the same build with the rule sheets and answer keys left out
  (``cardgen.sheets.SHEETS`` emptied in the child process): issue #18's cold-build figure;
* rule sheets and answer keys: the eight sheets alone, rendered and assembled one after
  another in one process (``cardgen.sheets.render_sheet``), their own line;
* floors: cairosvg alone drawing the same distinct face SVGs (complete documents, glyph
  outlines included) to PDF in this process, one core: the card faces, and the sheet pages.
  The ratio is build wall ÷ (floor ÷ cores), per adjacent pair and from the medians; build
  CPU ÷ floor is the load-proof figure.

``--before DIR``: another checkout of cardgen (``git archive COMMIT | tar -x -C DIR``); every
build figure is then also taken with DIR's code (through ``PYTHONPATH``), each run paired
with this tree's, so before and after see the same load. The floors come from this tree's
renderer (the faces are the same: the printed result does not change between them).

cardgen's own modules are byte-compiled first, as any non-editable install does (this
machine sets PYTHONDONTWRITEBYTECODE=1, which would otherwise make every run recompile them).

* 1000-card deck (``--no-big`` skips it): a generated game of 1000 distinct cards built in a
  fresh process; wall time and peak RSS of that process (targets ≤ 15 s and ≤ 500 MB).
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARDGEN = [sys.executable, "-m", "cardgen"]


def timed_run(args: list[str], tree: Path = ROOT) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (MB) of a child process and its workers, run
    with the cardgen of ``tree`` (first on its module path)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, check=True, cwd=tree, capture_output=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu, max(after.ru_maxrss, before.ru_maxrss) // 1024


def distinct_svgs() -> list[bytes]:
    """Every distinct card, board and token face of the four games, as a complete SVG document."""
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


def sheet_svgs() -> list[bytes]:
    """Every page of the four games' rule sheets and answer keys (English, A4), as SVG."""
    import cardgen
    from cardgen import i18n, sheets
    from cardgen.render import Renderer

    svgs = []
    for game in cardgen.load_games():
        renderer = Renderer(game, "en", translate=i18n.translator(game, "en"))
        for kind in sheets.SHEETS:
            svgs += [r.face.svg.encode() for r in sheets.sheet_faces(game, kind, renderer)]
    return svgs


def floor_seconds(svgs: list[bytes]) -> float:
    import cairosvg

    t = time.perf_counter()
    for svg in svgs:
        cairosvg.svg2pdf(bytestring=svg)
    return time.perf_counter() - t


def child(what: str, out: str) -> None:
    """A measured process (``--child``): the build without its sheets, or the sheets alone."""
    import cardgen
    from cardgen import sheets

    if what == "cards":
        sheets.SHEETS = ()   # the build then stages no rule sheet or answer key
        cardgen.build(cardgen.load_games(), cardgen.BuildOptions(out=Path(out)))
        return
    from cardgen import i18n

    for game in cardgen.load_games():
        for kind in ("rules", "answers"):
            sheets.render_sheet(game, kind, "en", 210.0, 297.0, i18n.translator(game, "en"), None, kind, 0)


#: name of the figure → the command measuring it (a fresh process; "{out}": an empty folder)
FIGURES = {
    "whole command": CARDGEN + ["build", "--out", "{out}"],
    "cards, boards and tokens": [sys.executable, str(Path(__file__).resolve()), "--child", "cards", "{out}"],
    "rule sheets and answer keys": [sys.executable, str(Path(__file__).resolve()), "--child", "sheets", "{out}"],
}


@dataclass
class Runs:
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)

    def add(self, args: list[str], tree: Path) -> None:
        with tempfile.TemporaryDirectory() as out:
            wall, cpu, _rss = timed_run([a.replace("{out}", str(Path(out) / "out")) for a in args], tree)
        self.walls.append(wall)
        self.cpus.append(cpu)

    def line(self) -> str:
        return (f"median {statistics.median(self.walls):.2f} s wall, {statistics.median(self.cpus):.2f} s CPU "
                f"(walls: {', '.join(f'{w:.2f}' for w in self.walls)}; CPU: {', '.join(f'{c:.2f}' for c in self.cpus)})")


def ratios(runs: Runs, floors: list[float], cores: int) -> str:
    """Build ÷ (floor ÷ cores) per adjacent pair and from the medians; CPU ÷ floor likewise."""
    pairs = [w / (f / cores) for w, f in zip(runs.walls, floors)]
    cpu = [c / f for c, f in zip(runs.cpus, floors)]
    median_floor = statistics.median(floors)
    return (f"wall ÷ (floor ÷ {cores} cores) = {statistics.median(runs.walls) / (median_floor / cores):.2f} from the "
            f"medians (pairs: median {statistics.median(pairs):.2f}, range {min(pairs):.2f}–{max(pairs):.2f}); "
            f"CPU ÷ floor = {statistics.median(runs.cpus) / median_floor:.2f} (pairs: median {statistics.median(cpu):.2f})")


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
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3])
        return
    args = sys.argv[1:]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 7
    before = Path(args[args.index("--before") + 1]).resolve() if "--before" in args else None
    cores = os.cpu_count() or 1
    trees = {"after": ROOT, **({"before": before} if before else {})}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "cardgen")], check=True)
    faces, pages = distinct_svgs(), sheet_svgs()
    floor_seconds(faces[:10])   # warm cairosvg's imports
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    measured = {(name, label): Runs() for name in FIGURES for label in trees}
    face_floors, page_floors = [], []
    for i in range(runs):
        for name, command in FIGURES.items():
            order = list(trees.items())
            for label, tree in order[::-1] if i % 2 else order:   # before and after take turns going first
                measured[(name, label)].add(command, tree)
        face_floors.append(floor_seconds(faces))
        page_floors.append(floor_seconds(pages))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for (name, label), r in measured.items():
        print(f"{name} ({label}, cold process): {r.line()}")
        floors = page_floors if name.startswith("rule") else face_floors if name.startswith("cards") else None
        if floors:
            print(f"    {ratios(r, floors, 1 if name.startswith('rule') else cores)}")
    print(f"floor, cairosvg alone on the same {len(faces)} distinct card, board and token faces: median "
          f"{statistics.median(face_floors):.2f} s on one core (runs: {', '.join(f'{f:.2f}' for f in face_floors)})")
    print(f"floor, cairosvg alone on the same {len(pages)} sheet pages: median {statistics.median(page_floors):.2f} s "
          f"on one core (runs: {', '.join(f'{f:.2f}' for f in page_floors)})")
    if "--no-big" in args:
        return
    with tempfile.TemporaryDirectory() as tmp:
        game = synthetic_game(Path(tmp), 1000)
        wall, _cpu, rss = timed_run(CARDGEN + ["build", str(game), "--out", str(Path(tmp) / "out")])
        print(f"1000 distinct cards + shared back: {wall:.2f} s, peak RSS {rss} MB  (targets ≤ 15 s, ≤ 500 MB)")


if __name__ == "__main__":
    main()
