"""`cardgen check` of all four shipped games: rules only, rendering every face, and rendering
with a build's cache at hand.

Run: .venv/bin/python bench/bench_check.py      (prints numbers; asserts nothing)

Each figure is the median of several runs of the real command (interpreter start and imports
included), wall clock and CPU of the child process; CPU shows what the command costs when other
work shares the machine. Target: under 2 s for all four games, rendering included.

* --no-render: the rules alone;
* cold: every face rendered and drawn, templates compiled afresh (--no-cache);
* again: every face rendered, compiled templates from OUT/.cache and faces an earlier check
  drew not drawn again (the second check onwards);
* after a build: faces the build cache holds are taken from it (what a check after
  `cardgen build` costs).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5


def timed(*args: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one `cardgen ARGS` run; fails loudly if it does not pass."""
    before = os.times()
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = os.times()
    if res.returncode != 0:
        raise SystemExit(f"cardgen {' '.join(args)} failed:\n{res.stdout}{res.stderr}")
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def median(*args: str) -> tuple[float, float]:
    runs = [timed(*args) for _ in range(RUNS)]
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> None:
    # cardgen's modules byte-compiled first, as any install does (a shell that sets
    # PYTHONDONTWRITEBYTECODE=1 would otherwise make every run compile them again)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "cardgen")], check=True)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "out")
        rows = [("rules only (--no-render)", median("check", "--no-render", "--out", out)),
                ("cold: render + draw, templates compiled (--no-cache)", median("check", "--no-cache", "--out", out))]
        timed("check", "--out", out)   # keeps the compiled templates and what it drew in OUT/.cache
        rows.append(("again: render, templates and drawn faces from the cache", median("check", "--out", out)))
        subprocess.run([sys.executable, "-m", "cardgen", "build", "--out", out], check=True, capture_output=True,
                       cwd=ROOT)
        rows.append(("after a build: faces from its cache", median("check", "--out", out)))
    print(f"cardgen check, all four shipped games (median of {RUNS} runs; target < 2 s):")
    for label, (wall, cpu) in rows:
        print(f"  {label:<55} {wall:6.3f} s wall  {cpu:6.3f} s CPU")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
