"""Where a one-card edit's time goes, step by step: a timeline of the build a daemon forks.

Run: .venv/bin/python bench/trace_edit.py [--runs N] [--tree DIR]
(prints numbers; asserts nothing)

The process prepares as ``cardgen daemon start`` does (its imports, the particle table, the
fonts, the digest of cardgen's files), builds a copy of Particle Builder once, then for each
run edits the Higgs card's points (as ``bench_incremental.py`` does) and forks the ``cardgen
build`` command line, as the daemon forks a command. In the fork, each step below is wrapped
to note, per process (the build's, its check gate's child, its workers), when it started and
ended and the CPU it used; the step names missing from a tree are left out. Printed: the
last run's timeline (P0 the build's process, then the others in the order they first ran a
step) and, per step, medians over the runs but the first: start, duration, CPU, and how many
times a run took it. The wrapping itself costs the fork about 10 ms before its first step.

``--tree DIR``: another checkout of cardgen (``git archive COMMIT | tar -x -C DIR``), traced
instead of this one.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CARD = "{id: H,     particle: H,     points: 5}"
#: module:function, the steps traced (functions found by name in every cardgen module that
#: holds them, so that a worker's task, pickled by name, is the traced one).
STEPS = (
    "cardgen.uptodate:verdict", "cardgen.cli:load_games", "cardgen.build:plan", "cardgen.build:run_tasks",
    "cardgen.build.gates:check_rules", "cardgen.build:render_sheet_file", "cardgen.build:render_chunk",
    "cardgen.build.impose:write_job", "cardgen.pdfdoc:Doc.prepare", "cardgen.build.gates:measured_faces",
    "cardgen.schedule:_shut_down", "cardgen.build:_Run.finish_game", "cardgen.build:commit",
    "cardgen.build:_vouch", "cardgen.uptodate:Recorder.record",
)


def _wrap(log: str, step: str, fn):
    @functools.wraps(fn)
    def traced(*args, **kwargs):
        start, cpu = time.perf_counter(), time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            with open(log, "a", encoding="utf-8") as f:
                f.write(json.dumps([os.getpid(), step, start, time.perf_counter(), time.process_time() - cpu]) + "\n")
    return traced


def _trace(log: str) -> None:
    """Wrap every step this tree has (in the fork, before the command runs)."""
    for step in STEPS:
        module_name, qualname = step.split(":")
        try:
            owner = importlib.import_module(module_name)
            *path, name = qualname.split(".")
            for part in path:
                owner = getattr(owner, part)
            fn = getattr(owner, name)
        except (ImportError, AttributeError):
            continue
        traced = _wrap(log, step, fn)
        setattr(owner, name, traced)
        if not path:   # the same function wherever a module imported it by name
            for module in [m for n, m in list(sys.modules.items()) if n.startswith("cardgen") and m is not None]:
                for attr, value in list(vars(module).items()):
                    if value is fn:
                        setattr(module, attr, traced)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--tree", type=Path, default=ROOT)
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree.resolve()))
    os.chdir(args.tree)
    from cardgen.daemon import server

    server._preload()
    hold = getattr(importlib.import_module("cardgen.cache"), "hold_code_digest", None)
    if hold is not None:
        hold()
    import cardgen.cli

    with tempfile.TemporaryDirectory() as tmp:
        game = Path(tmp) / "games/particle-builder"
        shutil.copytree(ROOT / "data/games/particle-builder", game)
        shutil.copytree(ROOT / "templates/particle-builder", game / "templates")
        cards = game / "components/particles.yaml"
        text = cards.read_text(encoding="utf-8")
        assert CARD in text
        log = str(Path(tmp) / "trace.jsonl")
        argv = ["cardgen", "build", str(game), "--out", str(Path(tmp) / "out")]
        runs: list[tuple[float, list]] = []
        for i in range(args.runs + 1):   # the first builds every face: not counted
            cards.write_text(text.replace(CARD, CARD.replace("points: 5", f"points: {10 + i}")), encoding="utf-8")
            Path(log).unlink(missing_ok=True)
            started = time.perf_counter()
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    _trace(log)
                    sys.argv = argv
                    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
                    code = cardgen.cli.exit_code()
                    with open(log, "a", encoding="utf-8") as f:
                        f.write(json.dumps([os.getpid(), "whole command", started, time.perf_counter(),
                                            time.process_time()]) + "\n")
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            if status:
                sys.exit(f"the traced build failed (status {status})")
            with open(log, encoding="utf-8") as f:
                runs.append((started, [json.loads(line) for line in f]))
    _report(runs[1:])


def _report(runs: list[tuple[float, list]]) -> None:
    started, events = runs[-1]
    print("The last run (ms from the fork; P0 the build's process):")
    names: dict[int, int] = {}
    for pid, step, start, end, cpu in sorted(events, key=lambda e: e[2]):
        p = names.setdefault(pid, len(names))
        print(f"  P{p} {1000 * (start - started):7.1f} → {1000 * (end - started):7.1f}  "
              f"({1000 * (end - start):6.1f} ms, CPU {1000 * cpu:6.1f})  {step}")
    print(f"Medians of {len(runs)} runs (start, duration, CPU in ms; times per run):")
    steps: dict[str, list[tuple[float, float, float]]] = {}
    for started, events in runs:
        for _pid, step, start, end, cpu in events:
            steps.setdefault(step, []).append((start - started, end - start, cpu))
    for step, seen in sorted(steps.items(), key=lambda kv: statistics.median(v[0] for v in kv[1])):
        start, took, cpu = (1000 * statistics.median(v[i] for v in seen) for i in range(3))
        print(f"  {start:7.1f} {took:7.1f} {cpu:7.1f} {len(seen) / len(runs):4.1f}  {step}")


if __name__ == "__main__":
    main()
