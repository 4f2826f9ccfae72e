"""Incremental builds: warm no-change rebuild and a one-card edit, against a cold build.

Run: .venv/bin/python bench/bench_incremental.py      (prints numbers; asserts nothing)

Measured in-process through the library (what `cardgen serve` and scripts use) and through the
CLI (which adds the interpreter start and imports). Targets: warm no-change rebuild ≤ 0.3 s;
one-card edit ≤ 0.3 s plus that face.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cardgen  # noqa: E402
from cardgen.build import BuildOptions, build  # noqa: E402


def median_of(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        games_dir = tmp / "games"
        shutil.copytree(ROOT / "data/games/particle-builder", games_dir / "particle-builder")
        shutil.copytree(ROOT / "templates/particle-builder", games_dir / "particle-builder/templates")
        out = tmp / "out"
        load = lambda: [cardgen.load_game(games_dir / "particle-builder")]  # noqa: E731
        t = time.perf_counter()
        build(load(), BuildOptions(out=out))
        cold = time.perf_counter() - t
        build(load(), BuildOptions(out=out, cache=False), jobs=1)   # warm this process: imports, fonts, templates
        warm = median_of(lambda: build(load(), BuildOptions(out=out)))
        cards = games_dir / "particle-builder/components/particles.yaml"
        text = cards.read_text()
        edits = []
        for i in range(5):
            cards.write_text(text.replace("{id: H,     particle: H,     points: 5}",
                                          f"{{id: H,     particle: H,     points: {6 + i}}}"))
            t = time.perf_counter()
            build(load(), BuildOptions(out=out))
            edits.append(time.perf_counter() - t)
        cli = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "cardgen", "build", str(games_dir / "particle-builder"),
                            "--out", str(out)], check=True, capture_output=True, cwd=ROOT)
            cli.append(time.perf_counter() - t)
    print("Particle Builder (6 components, 101 distinct faces):")
    print(f"  cold build (in-process)           {cold:.3f} s")
    print(f"  warm no-change rebuild            {warm:.3f} s  ({warm / cold:.1%} of cold; target ≤ 0.3 s)")
    print(f"  one card edited, rebuild          {statistics.median(edits):.3f} s  (re-renders that card's 2 faces "
          f"and re-imposes its 36-card component; target ≤ 0.3 s + that face)")
    print(f"  warm no-change rebuild via CLI    {statistics.median(cli):.3f} s  (interpreter start + imports included)")


if __name__ == "__main__":
    main()
