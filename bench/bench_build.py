"""Cold default build against the renderer floor, measured in the same run; and synthetic decks of 1,000 to 10,000 cards.

Run: .venv/bin/python bench/bench_build.py [--runs N] [--before DIR ...] [--no-big]
(prints numbers; asserts nothing)

Each figure is taken in a fresh process into an empty folder (no face cache beside the
output; the templates come compiled from the machine's cache, as on any machine that has
built once: see cardgen.templatecache), wall time and CPU time (user + system, the process and its workers), median of
``--runs`` runs (default 7), the runs of different figures interleaved so that load the
machine's neighbours add falls on all of them alike:

* whole command: ``cardgen build`` (all four games, English, A4), everything it writes;
* cards, boards and tokens: the same build with the rule sheets and answer keys left out
  (``cardgen.sheets.SHEETS`` emptied in the child process), the games named as the command
  names them (so its check gate, too, takes a game this machine has seen pass as proved):
  issue #18's cold-build figure;
* rule sheets and answer keys: the eight sheets alone, rendered and assembled one after
  another in one process (``cardgen.sheets.render_sheet``), their own line;
* floors: cairosvg alone drawing the same distinct face SVGs (complete documents, glyph
  outlines included) to PDF in this process, one core: the card faces, and the sheet pages.
  The ratio is build wall ÷ (floor ÷ cores), per adjacent pair and from the medians; build
  CPU ÷ floor is the load-proof figure.

``--before DIR`` (repeatable): another checkout of cardgen (``git archive COMMIT | tar -x -C
DIR``); every build figure is then also taken with DIR's code (through ``PYTHONPATH``), each
run paired with this tree's, so before and after see the same load. The floors come from this tree's
renderer (the faces are the same: the printed result does not change between them).

cardgen's own modules are byte-compiled first, as any non-editable install does (this
machine sets PYTHONDONTWRITEBYTECODE=1, which would otherwise make every run recompile them).

* end to end, 100 cards: a generated game of 100 distinct cards (the QCD card templates) and
  its shared back, built by cardgen in a fresh process (``--child cards``, the sheets left out)
  against cairosvg drawing the same 101 faces (complete SVG documents) and pdfimpose's
  ``cards`` schema imposing them with their back on A4, also in a fresh process
  (``--child pdfimpose``), each run paired; pdfimpose is a bench extra
  (``pip install -e '.[bench]'``): without it this figure is skipped. Target ≥ 5×. Paired
  with them, the whole ``cardgen build`` command on the same game through a daemon of this
  tree (``cardgen daemon start``, in a folder of its own), as a user who runs one has it: it
  does more (the rule sheet, the answer key, the check gate), and its imports are the
  daemon's; wall time only.
* large decks: a generated game of 1,000, 5,000 and 10,000 distinct cards (one component,
  a shared back) built in a fresh process each, with the face cache; wall time, CPU time
  (the process and its workers) and peak RSS of the largest of those processes, and the load
  average before each run (the machine may be shared; ``--no-big`` leaves them out). Issue #18's target: 10,000 cards in
  ≤ 25 s and ≤ 200 MB, memory flat as the deck grows. Only these:
  ``python bench/bench_build.py decks``; other sizes and ``cardgen check`` of each deck too:
  ``python bench/bench_build.py decks 20000 50000 --check`` (above 10,000 cards the deck is
  read from a CSV file). The generated game declares no rule that reads what its faces print,
  so a build does not measure them; ``--legibility`` declares text size and contrast, and
  every face is measured too.
"""

from __future__ import annotations

import contextlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARDGEN = [sys.executable, "-m", "cardgen"]


def timed_run(args: list[str], tree: Path = ROOT, served: bool = False) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak RSS (MB) of a child process and its workers, run
    with the cardgen of ``tree`` (first on its module path); a ``cardgen`` command runs in
    that process, not in a daemon, unless ``served`` (see :func:`_daemon`)."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    env["CARDGEN_DAEMON"] = "on" if served else "off"
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


def floor_seconds(svgs: list[bytes]) -> tuple[float, float]:
    """Wall and CPU seconds of cairosvg drawing ``svgs`` to PDF in this process."""
    import cairosvg

    t, c = time.perf_counter(), time.process_time()
    for svg in svgs:
        cairosvg.svg2pdf(bytestring=svg)
    return time.perf_counter() - t, time.process_time() - c


def child(what: str, out: str, *games: str) -> None:
    """A measured process (``--child``): the build without its sheets, the sheets alone, or
    cairosvg and pdfimpose on the faces in folder ``out``."""
    if what == "pdfimpose":
        cairosvg_and_pdfimpose(Path(out))
        return
    import cardgen
    from cardgen import sheets

    if what == "cards":
        from cardgen.loader import discover_games

        sheets.SHEETS = ()   # the build then stages no rule sheet or answer key
        # named, not loaded here: the build then reads the games and runs its check gate as
        # the command does (a game whose files this machine saw pass is not proved again)
        cardgen.build(list(games) or list(discover_games()), cardgen.BuildOptions(out=Path(out)))
        return
    from cardgen import i18n

    for game in cardgen.load_games():
        for kind in ("rules", "answers"):
            sheets.render_sheet(game, kind, "en", 210.0, 297.0, i18n.translator(game, "en"), None, kind, 0)


def cairosvg_and_pdfimpose(folder: Path) -> None:
    """Every ``front-*.svg`` of ``folder`` drawn by cairosvg, merged into one PDF (pdfimpose
    reads one document) and imposed with ``back.svg`` by pdfimpose's ``cards`` schema on A4."""
    import io

    import cairosvg
    import pikepdf
    from pdfimpose.schema import cards

    merged = pikepdf.new()
    for path in sorted(folder.glob("front-*.svg")):
        merged.pages.extend(pikepdf.open(io.BytesIO(cairosvg.svg2pdf(bytestring=path.read_bytes()))).pages)
    merged.save(folder / "fronts.pdf")
    (folder / "back.pdf").write_bytes(cairosvg.svg2pdf(bytestring=(folder / "back.svg").read_bytes()))
    with open(folder / "imposed.pdf", "wb") as out:
        cards.impose([str(folder / "fronts.pdf")], out, size="A4", back=str(folder / "back.pdf"), mark=["crop"])


def hundred_cards(root: Path) -> tuple[Path, Path]:
    """The 100-card game and a folder holding its faces as SVG documents (front-NNN.svg, back.svg)."""
    import cardgen
    from cardgen.render import Renderer

    game_dir = synthetic_game(root, 100)
    game = cardgen.load_game(game_dir)
    comp = game.components["cards"]
    faces = root / "faces"
    faces.mkdir()
    renderer = Renderer(game)
    for i, card in enumerate(comp.cards):
        (faces / f"front-{i:03d}.svg").write_text(renderer.face(comp, card, "front").face.svg, encoding="utf-8")
    (faces / "back.svg").write_text(renderer.face(comp, comp.cards[0], "back").face.svg, encoding="utf-8")
    return game_dir, faces


def end_to_end(runs: int) -> None:
    """cardgen against cairosvg + pdfimpose on the same 100 cards, paired runs (fresh processes)."""
    import importlib.util

    if importlib.util.find_spec("pdfimpose") is None:
        print("end to end: pdfimpose is not installed (pip install -e '.[bench]'); skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        game, faces = hundred_cards(Path(tmp))
        ours, theirs, served = Runs(), Runs(), Runs()
        with _daemon(Path(tmp) / "daemon"):
            for _ in range(runs):
                ours.add([sys.executable, str(Path(__file__).resolve()), "--child", "cards", "{out}", str(game)], ROOT)
                theirs.add([sys.executable, str(Path(__file__).resolve()), "--child", "pdfimpose", str(faces)], ROOT)
                served.add(CARDGEN + ["build", str(game), "--out", "{out}"], ROOT, served=True)
        speed = [t / o for o, t in zip(ours.walls, theirs.walls)]
        print(f"end to end, 100 distinct cards + back: cardgen {ours.line()}")
        print(f"    cairosvg + pdfimpose: {theirs.line()}")
        print(f"    cairosvg + pdfimpose ÷ cardgen, wall: median of pairs {statistics.median(speed):.2f}× "
              f"(range {min(speed):.2f}–{max(speed):.2f}); CPU: "
              f"{statistics.median(theirs.cpus) / statistics.median(ours.cpus):.2f}× from the medians  (target ≥ 5×)")
        speed = [t / o for o, t in zip(served.walls, theirs.walls)]
        print(f"    the whole command through the daemon (rule sheet, answer key and check gate included): median "
              f"{statistics.median(served.walls):.2f} s wall (walls: {', '.join(f'{w:.2f}' for w in served.walls)}); "
              f"cairosvg + pdfimpose ÷ it, wall: median of pairs {statistics.median(speed):.2f}× "
              f"(range {min(speed):.2f}–{max(speed):.2f})")


@contextlib.contextmanager
def _daemon(folder: Path) -> Iterator[None]:
    """A daemon of this tree (``cardgen daemon start``) in a folder of its own, serving the
    commands run within; its CPU time is spent in its forks, which a run cannot count."""
    folder.mkdir(mode=0o700)
    saved = os.environ.get("CARDGEN_DAEMON_DIR")
    os.environ["CARDGEN_DAEMON_DIR"] = str(folder)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(CARDGEN + ["daemon", "start"], check=True, cwd=ROOT, capture_output=True, env=env)
    try:
        yield
    finally:
        subprocess.run(CARDGEN + ["daemon", "stop"], cwd=ROOT, capture_output=True, env=env)
        if saved is None:
            del os.environ["CARDGEN_DAEMON_DIR"]
        else:
            os.environ["CARDGEN_DAEMON_DIR"] = saved


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

    def add(self, args: list[str], tree: Path, served: bool = False) -> None:
        with tempfile.TemporaryDirectory() as out:
            wall, cpu, _rss = timed_run([a.replace("{out}", str(Path(out) / "out")) for a in args], tree, served)
        self.walls.append(wall)
        self.cpus.append(cpu)

    def line(self) -> str:
        return (f"median {statistics.median(self.walls):.2f} s wall, {statistics.median(self.cpus):.2f} s CPU "
                f"(walls: {', '.join(f'{w:.2f}' for w in self.walls)}; CPU: {', '.join(f'{c:.2f}' for c in self.cpus)})")


def ratios(runs: Runs, floors: list[tuple[float, float]], cores: int) -> str:
    """Build wall ÷ (floor wall ÷ cores) per adjacent pair and from the medians; build CPU ÷
    floor CPU likewise (the figure the machine's load moves least)."""
    walls, cpus = [f[0] for f in floors], [f[1] for f in floors]
    pairs = [w / (f / cores) for w, f in zip(runs.walls, walls)]
    cpu = [c / f for c, f in zip(runs.cpus, cpus)]
    return (f"wall ÷ (floor ÷ {cores} cores) = {statistics.median(runs.walls) / (statistics.median(walls) / cores):.2f}"
            f" from the medians (pairs: median {statistics.median(pairs):.2f}, range {min(pairs):.2f}–{max(pairs):.2f});"
            f" CPU ÷ floor CPU = {statistics.median(runs.cpus) / statistics.median(cpus):.2f} "
            f"(pairs: median {statistics.median(cpu):.2f}, range {min(cpu):.2f}–{max(cpu):.2f})")


def floor_line(what: str, floors: list[tuple[float, float]]) -> str:
    return (f"floor, cairosvg alone on the same {what}: median {statistics.median(f[0] for f in floors):.2f} s wall, "
            f"{statistics.median(f[1] for f in floors):.2f} s CPU on one core "
            f"(walls: {', '.join(f'{f[0]:.2f}' for f in floors)}; CPU: {', '.join(f'{f[1]:.2f}' for f in floors)})")


def synthetic_game(root: Path, cards: int, legibility: bool = False) -> Path:
    """A designer-style game with `cards` distinct cards, using the QCD card templates; above
    10,000 cards the list is a CSV file (a YAML data file holds at most 2 MiB). With
    ``legibility`` it declares the rules that read what the faces print (text size and
    contrast), and a build measures every face for them."""
    g = root / "big"
    (g / "templates").mkdir(parents=True)
    for name in ("card-front.svg.j2", "card-back.svg.j2"):
        (g / "templates" / name).write_text((ROOT / "templates/qcd" / name).read_text())
    (g / "game.yaml").write_text("id: big\nname: Big deck\ncomponents: [cards.yaml]\ntables: [flavours.yaml, "
                                 "transmutations.yaml]\n"
                                 + ("checks:\n  - rule: text-size\n  - rule: text-contrast\n" if legibility else ""))
    for name in ("flavours.yaml", "transmutations.yaml"):
        (g / name).write_text((ROOT / "data/games/qcd/tables" / name).read_text())
    rows = []
    flavours = ["u", "d", "s", "c", "ubar", "dbar", "sbar", "cbar"]
    colours = ["red", "green", "blue", "anti-red", "anti-green", "anti-blue"]
    for i in range(cards):
        f = flavours[i % 8]
        rows.append((f"card-{i}", f, colours[(i // 8) % 3 + (3 if f.endswith("bar") else 0)], f"#{i}"))
    if cards > 10_000:
        (g / "cards.csv").write_text("id,particle,colour,serial\n" + "".join(",".join(r) + "\n" for r in rows))
        listed = "cards: {from: cards.csv}\n"
    else:
        listed = "cards:\n" + "".join(f"  - {{id: {i}, particle: {f}, colour: {c}, serial: '{n}'}}\n"
                                       for i, f, c, n in rows)
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
        """) + listed)
    front = g / "templates" / "card-front.svg.j2"
    front.write_text(front.read_text().replace("{% endblock %}", "{{ text(card.serial, 5, 80, size=3, field='serial') }}\n"
                                               "{% endblock %}", 1))
    return g


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(*sys.argv[2:])
        return
    args = sys.argv[1:]
    runs = int(args[args.index("--runs") + 1]) if "--runs" in args else 7
    befores = [Path(args[i + 1]).resolve() for i, a in enumerate(args) if a == "--before"]
    cores = os.cpu_count() or 1
    trees = {"after": ROOT, **{f"before: {tree.name}": tree for tree in befores}}
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
            for label, tree in order[i % len(order):] + order[:i % len(order)]:   # each tree takes its turn first
                measured[(name, label)].add(command, tree)
        face_floors.append(floor_seconds(faces))
        page_floors.append(floor_seconds(pages))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for (name, label), r in measured.items():
        print(f"{name} ({label}, cold process): {r.line()}")
        floors = page_floors if name.startswith("rule") else face_floors if name.startswith("cards") else None
        if floors:
            print(f"    {ratios(r, floors, 1 if name.startswith('rule') else cores)}")
    print(floor_line(f"{len(faces)} distinct card, board and token faces", face_floors))
    print(floor_line(f"{len(pages)} sheet pages", page_floors))
    end_to_end(runs)
    if "--no-big" in args:
        return
    large_decks()


#: The run of one command, from a process of its own: RUSAGE_CHILDREN's peak RSS is the
#: largest of every child a process ever waited for, so each deck is measured in a fresh one.
_MEASURE = ("import resource, subprocess, sys, time\n"
            "t = time.perf_counter()\n"
            "subprocess.run(sys.argv[1:], check=True, capture_output=True)\n"
            "wall = time.perf_counter() - t\n"
            "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(wall, r.ru_utime + r.ru_stime, r.ru_maxrss)\n")


#: Reading a deck as a build's first step does (``cardgen.load_game``), in a fresh process.
_READ = ("import sys, time\n"
         "import cardgen\n"
         "t = time.perf_counter()\n"
         "cardgen.load_game(sys.argv[1])\n"
         "print(time.perf_counter() - t)\n")


def large_decks(sizes: tuple[int, ...] = (1_000, 5_000, 10_000), check: bool = False,
                legibility: bool = False) -> None:
    """Each deck built in a fresh process: wall, CPU and peak RSS, with the load average; with
    ``check``, ``cardgen check`` of it too (no cache: every face rendered and drawn); with
    ``legibility``, the deck declares the rules that measure every face's texts. First, the
    deck read alone in a fresh process whose machine cache is empty (what the build's first
    step does with a deck it has not seen: the build itself then reads it the same way)."""
    for cards in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            game = synthetic_game(Path(tmp), cards, legibility)
            res = subprocess.run([sys.executable, "-c", _READ, str(game)], check=True, cwd=ROOT, capture_output=True,
                                 text=True, env={**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "machine-cache")})
            print(f"read  {cards:>6} distinct cards: {float(res.stdout):6.2f} s (fresh process, empty machine cache)")
            commands = [("build", [*CARDGEN, "build", str(game), "--out", str(Path(tmp) / "out")])]
            if check:
                commands.append(("check", [*CARDGEN, "check", str(game), "--no-cache"]))
            for what, command in commands:
                load = os.getloadavg()[0]
                res = subprocess.run([sys.executable, "-c", _MEASURE, *command], check=True, cwd=ROOT,
                                     capture_output=True, text=True)
                wall, cpu, rss = res.stdout.split()
                print(f"{what} {cards:>6} distinct cards + shared back{' (texts measured)' if legibility else ''}: "
                      f"{float(wall):6.1f} s wall, "
                      f"{float(cpu):6.1f} s CPU, peak RSS {int(rss) // 1024} MB (load average {load:.1f})"
                      + ("  (10,000: targets ≤ 25 s, ≤ 200 MB)" if what == "build" else ""))


if __name__ == "__main__":
    if sys.argv[1:2] == ["decks"]:
        wanted = [a for a in sys.argv[2:] if not a.startswith("--")]
        large_decks(tuple(int(a) for a in wanted) if wanted else (1_000, 5_000, 10_000), "--check" in sys.argv[2:],
                    "--legibility" in sys.argv[2:])
    else:
        main()
