"""Incremental builds: warm no-change rebuild and a one-card edit, against a cold build.

Run: .venv/bin/python bench/bench_incremental.py      (prints numbers; asserts nothing)

Measured in-process through the library (what `cardgen serve` and scripts use) and through the
CLI (which adds the interpreter start and imports). Targets: warm no-change rebuild ≤ 0.3 s;
one-card edit ≤ 0.3 s plus that face. Each in-process figure also gives the CPU seconds of this
process and the build's workers (``getrusage``): on a shared machine, wall time mostly measures
the neighbours.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import resource
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cardgen  # noqa: E402
from cardgen.build import BuildOptions, build  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the build's workers)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of one call."""
    t, c = time.perf_counter(), cpu_seconds()
    fn()
    return time.perf_counter() - t, cpu_seconds() - c


def median_of(fn, runs: int = 5) -> tuple[float, float]:
    walls, cpus = zip(*(timed(fn) for _ in range(runs)))
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        games_dir = tmp / "games"
        shutil.copytree(ROOT / "data/games/particle-builder", games_dir / "particle-builder")
        shutil.copytree(ROOT / "templates/particle-builder", games_dir / "particle-builder/templates")
        out = tmp / "out"
        load = lambda: [cardgen.load_game(games_dir / "particle-builder")]  # noqa: E731
        cold, cold_cpu = timed(lambda: build(load(), BuildOptions(out=out)))
        build(load(), BuildOptions(out=out, cache=False), jobs=1)   # warm this process: imports, fonts, templates
        warm, warm_cpu = median_of(lambda: build(load(), BuildOptions(out=out)))
        cards = games_dir / "particle-builder/components/particles.yaml"
        text = cards.read_text()
        edits = []
        for i in range(5):
            cards.write_text(text.replace("{id: H,     particle: H,     points: 5}",
                                          f"{{id: H,     particle: H,     points: {6 + i}}}"))
            edits.append(timed(lambda: build(load(), BuildOptions(out=out))))
        cli = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "cardgen", "build", str(games_dir / "particle-builder"),
                            "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
            cli.append(time.perf_counter() - t)
    print("Particle Builder (6 components, 101 distinct faces):")
    edit, edit_cpu = (statistics.median(v) for v in zip(*edits))
    print(f"  cold build (in-process)           {cold:.3f} s  ({cold_cpu:.3f} s CPU)")
    print(f"  warm no-change rebuild            {warm:.3f} s  ({warm_cpu:.3f} s CPU; {warm / cold:.1%} of cold; "
          "target ≤ 0.3 s)")
    print(f"  one card edited, rebuild          {edit:.3f} s  ({edit_cpu:.3f} s CPU; re-renders that card's 2 faces "
          f"and re-imposes its 36-card component; target ≤ 0.3 s + that face)")
    print(f"  warm no-change rebuild via CLI    {statistics.median(cli):.3f} s  (interpreter start + imports included)")


if __name__ == "__main__":
    main()
