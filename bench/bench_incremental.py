"""Incremental builds, as a user runs them: the whole ``cardgen build`` command with nothing
changed, and after one edited card; the one-card edit also in-process, through the library.

Run: .venv/bin/python bench/bench_incremental.py [--before REF] [--runs N]
(prints numbers; asserts nothing)

Targets (issue #18): a whole-command no-op ≤ 0.15 s, after one edited card ≤ 0.2 s.

Where the tree has a daemon (``cardgen daemon start``), both commands are also run through
it (a daemon folder of its own), each right after the same command without it
(``CARDGEN_DAEMON=off``); their CPU time is spent in the daemon's fork, which no rusage of
this script counts: those lines give the whole machine's busy time instead (Linux's
/proc/stat, in ticks of 1/100 s: a mean over the runs).

``--before REF`` also measures another commit (extracted with ``git archive`` into a temporary
folder), the two in alternation — before, after, before, after … — so that both see the same load from
whatever else the machine runs. Every figure is the median of ``--runs`` runs, wall time and
CPU seconds (the command's process and its workers, from ``getrusage``): on a shared machine
wall time mostly measures the neighbours. Each tree runs in a virtualenv of its own whose
``.pth`` file puts the tree, then this virtualenv's libraries, on the path (an editable
install's import hook would otherwise bring this tree's cardgen to both). Python writes its bytecode into a temporary folder
(``PYTHONPYCACHEPREFIX``) on the first run, as an installed cardgen has it, so no figure
includes compiling cardgen's source.

The no-op is the default command (every game, English, A4) into a fresh output folder, built
once before measuring; the edit changes one card of Particle Builder (a copy in a temporary
games folder) — the Higgs card's points: that card is rendered again, its two PDFs (the deck
and its spares) are written again, and the answer key, which derives from the cards, is laid
out again (it prints no card's points, so it is not drawn); the rule sheet never reads the
cards and is kept.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARD = "{id: H,     particle: H,     points: 5}"

#: One in-process edit, run by the tree's own interpreter setup: the library call a program
#: (or ``cardgen serve``) makes, after a first build in the same process.
IN_PROCESS = """
import resource, sys, time
from pathlib import Path
import cardgen
game, out, cards, runs, card = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
cardgen.build(str(game), cardgen.BuildOptions(out=out))
text = cards.read_text()
def cpu():
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime
assert card in text
for i in range(runs):
    cards.write_text(text.replace(card, card.replace("points: 5", f"points: {20 + i}")))
    t, c = time.perf_counter(), cpu()
    cardgen.build(str(game), cardgen.BuildOptions(out=out))
    print(time.perf_counter() - t, cpu() - c)
cards.write_text(text)
"""


class Tree:
    """A cardgen source tree to run: its folder, environment and scratch folders."""

    def __init__(self, name: str, root: Path, scratch: Path) -> None:
        self.name, self.root = name, root
        venv = scratch / "venv"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        ask = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        site = Path(subprocess.run([str(venv / "bin/python"), "-c", ask], check=True, capture_output=True,
                                   text=True).stdout.strip())
        (site / "cardgen-bench.pth").write_text(f"{root}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
        self.python = str(venv / "bin/python")
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        self.env.update(PYTHONPYCACHEPREFIX=str(scratch / "pycache"))
        self.out = scratch / "out"
        self.games = scratch / "games"
        self.game = self.games / "particle-builder"
        shutil.copytree(root / "data/games/particle-builder", self.game)
        shutil.copytree(root / "templates/particle-builder", self.game / "templates")
        self.cards = self.game / "components/particles.yaml"
        self.text = self.cards.read_text(encoding="utf-8")
        assert CARD in self.text
        self.edits = 0

    def run(self, *args: str, daemon: bool = False) -> tuple[float, float]:
        """(wall, CPU) seconds of one command; through the tree's daemon when ``daemon`` (its
        CPU then the whole machine's, see :func:`machine_cpu`)."""
        env = self.env if daemon else {**self.env, "CARDGEN_DAEMON": "off"}
        before, machine = resource.getrusage(resource.RUSAGE_CHILDREN), machine_cpu()
        t = time.perf_counter()
        subprocess.run([self.python, *args], check=True, capture_output=True, cwd=self.root, env=env)
        wall = time.perf_counter() - t
        if daemon:
            return wall, machine_cpu() - machine
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime

    def no_op(self, daemon: bool = False) -> tuple[float, float]:
        return self.run("-m", "cardgen", "build", "--out", str(self.out), daemon=daemon)

    def edit(self, daemon: bool = False) -> tuple[float, float]:
        self.edits += 1
        self.cards.write_text(self.text.replace(CARD, CARD.replace("points: 5", f"points: {5 + self.edits}")),
                              encoding="utf-8")
        return self.run("-m", "cardgen", "build", str(self.game), "--out", str(self.out / "edit"), daemon=daemon)

    def start_daemon(self, folder: Path) -> bool:
        """Start this tree's daemon (``cardgen daemon start``), if it has one, for the
        commands run with ``daemon=True`` until :meth:`stop_daemon`."""
        if not (self.root / "cardgen/daemon").is_dir():
            return False
        self.env["CARDGEN_DAEMON_DIR"] = str(folder)
        subprocess.run([self.python, "-m", "cardgen", "daemon", "start"], check=True, capture_output=True,
                       cwd=self.root, env=self.env)
        return True

    def stop_daemon(self) -> None:
        subprocess.run([self.python, "-m", "cardgen", "daemon", "stop"], check=True, capture_output=True,
                       cwd=self.root, env=self.env)
        del self.env["CARDGEN_DAEMON_DIR"]

    def in_process(self, runs: int) -> list[tuple[float, float]]:
        self.cards.write_text(self.text, encoding="utf-8")   # the card as shipped: each run edits it
        done = subprocess.run([self.python, "-c", IN_PROCESS, str(self.game), str(self.out / "lib"),
                               str(self.cards), str(runs), CARD], check=True, capture_output=True, text=True,
                              cwd=self.root, env=self.env)
        return [tuple(float(v) for v in line.split()) for line in done.stdout.split("\n") if line.strip()]


def machine_cpu() -> float:
    """CPU seconds the whole machine has spent busy (user, nice, system, interrupts), from
    Linux's /proc/stat (0 elsewhere): what a command served by the daemon costs is spent in
    the daemon's fork and its workers, which no rusage of this process counts. Counted in
    ticks of 1/100 s, so its figures are means over the runs, not medians."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = f.readline().split()
    except OSError:
        return 0.0
    user, nice, system, _idle, _iowait, irq, softirq = (int(v) for v in fields[1:8])
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def median(pairs: list[tuple[float, float]]) -> str:
    wall, cpu = (statistics.median(v) for v in zip(*pairs))
    return f"{wall:6.3f} s wall  {cpu:6.3f} s CPU"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", help="a commit to measure against this tree, in alternation")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trees = []
        if args.before:
            source = tmp / "before-src"
            source.mkdir()
            archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
            trees.append(Tree(f"before ({args.before})", source, tmp / "before"))
        trees.append(Tree("after (this tree)", ROOT, tmp / "after"))
        for tree in trees:   # the first builds: every face rendered, the bytecode written
            tree.no_op()
            tree.edit()
        figures: dict[str, dict[str, list]] = {t.name: {"no-op": [], "edit": [], "daemon no-op": [], "daemon edit": []}
                                               for t in trees}
        served = [t for i, t in enumerate(trees) if t.start_daemon(tmp / f"daemon-{i}")]
        try:   # each command here and, where the tree has a daemon, through it: in alternation
            for tree in served:
                tree.no_op(daemon=True)
                tree.edit(daemon=True)
            for _ in range(args.runs):
                for what in ("no-op", "edit"):
                    for tree in trees:
                        figures[tree.name][what].append(getattr(tree, what.replace("-", "_"))())
                        if tree in served:
                            figures[tree.name][f"daemon {what}"].append(getattr(tree, what.replace("-", "_"))(True))
        finally:
            for tree in served:
                tree.stop_daemon()
        for tree in trees:
            figures[tree.name]["in-process"] = tree.in_process(args.runs)
    print(f"Medians of {args.runs} runs on {os.cpu_count()} cores, load average {load_before:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end:")
    for name, rows in figures.items():
        print(f"  {name}")
        print(f"    whole command, nothing changed (all games)   {median(rows['no-op'])}   target ≤ 0.15 s")
        print(f"    whole command, one card edited (Particle B.)  {median(rows['edit'])}   target ≤ 0.2 s")
        print(f"    in-process, one card edited (library)        {median(rows['in-process'])}")
        if rows["daemon edit"]:   # CPU: the command's process is the daemon's child, not counted here
            wall = statistics.median(w for w, _ in rows["daemon no-op"])
            cpu = statistics.mean(c for _, c in rows["daemon no-op"])
            print(f"    through the daemon, nothing changed          {wall:6.3f} s wall  {cpu:6.3f} s CPU (machine, mean)")
            wall = statistics.median(w for w, _ in rows["daemon edit"])
            cpu = statistics.mean(c for _, c in rows["daemon edit"])
            pairs = [d / h for (h, _), (d, _) in zip(rows["edit"], rows["daemon edit"])]
            print(f"    through the daemon, one card edited          {wall:6.3f} s wall  {cpu:6.3f} s CPU (machine, mean)"
                  f"   target ≤ 0.2 s   (÷ the same edit without it, in pairs: median {statistics.median(pairs):.2f}, "
                  f"range {min(pairs):.2f}–{max(pairs):.2f})")
    rows = [r for r in figures.values() if r["daemon edit"]]
    if len(rows) == 2:   # the runs were made in alternation: each after run paired with the before run next to it
        pairs = [a / b for (b, _), (a, _) in zip(rows[0]["daemon edit"], rows[1]["daemon edit"])]
        print(f"  through the daemon, one card edited: after ÷ before, in pairs: median {statistics.median(pairs):.2f}, "
              f"range {min(pairs):.2f}–{max(pairs):.2f}; CPU (machine, means): "
              f"{statistics.mean(c for _, c in rows[1]['daemon edit']) / statistics.mean(c for _, c in rows[0]['daemon edit']):.2f}")


if __name__ == "__main__":
    main()
