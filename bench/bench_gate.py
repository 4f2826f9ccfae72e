"""The check gate's CPU in a command forked from a daemon, per game: what a build's gate costs
the machine after an edit (its rules run on a core of their own, beside the workers).

Run: .venv/bin/python bench/bench_gate.py [--runs N] [--before DIR ...] [GAME ...]
(prints numbers; asserts nothing)

For each tree (this one, then each ``--before`` checkout: ``git archive COMMIT | tar -x -C
DIR``), a process prepares as ``cardgen daemon start`` does (its imports, the particle table,
what it works out from it, the fonts, the digest of cardgen's files), reads the games, and
forks ``--runs`` times (default 7); each fork runs the gate's rules on the games as a build
does (``cardgen.build.gates.check_rules``, the templates' facts from the machine's cache) and
reports the CPU it took. The trees take turns, four rounds each, so that both see the same
load; printed: the median and the least CPU per game and tree. Default games: every shipped
game. The games are read once per process, before the forks: this measures the rules, not
the loading (see ``bench_incremental.py`` and ``trace_edit.py`` for the whole command).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("particle-builder", "qcd", "tutti-quantum", "particles-in-circle")
ROUNDS = 4

#: One tree's measuring process: argv is the tree, the runs, the games.
CHILD = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from cardgen.daemon import server
server._preload()
from cardgen import cache
getattr(cache, "hold_code_digest", lambda: None)()
import cardgen
from cardgen.build import gates
runs, names = int(sys.argv[2]), sys.argv[3:]
games = {name: cardgen.load_game(name) for name in names}
for game in games.values():   # the templates' facts into the machine's cache, as any earlier build left them
    gates.check_rules([game], None, machine=True)
out = {name: [] for name in names}
for name, game in games.items():
    for _ in range(runs):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            cpu = time.process_time()
            gates.check_rules([game], None, machine=True)
            os.write(write, str(time.process_time() - cpu).encode())
            os._exit(0)
        os.close(write)
        took = float(os.read(read, 64))
        os.close(read)
        os.waitpid(pid, 0)
        out[name].append(took)
print(json.dumps(out))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--before", type=Path, action="append", default=[])
    parser.add_argument("games", nargs="*", default=list(GAMES))
    args = parser.parse_args()
    trees = {"after": ROOT, **{f"before: {t.name}": t.resolve() for t in args.before}}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "cardgen")], check=True)
    cpu: dict[str, dict[str, list[float]]] = {label: {g: [] for g in args.games} for label in trees}
    order = list(trees.items())
    for i in range(ROUNDS):
        for label, tree in order[i % len(order):] + order[:i % len(order)]:
            done = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(args.runs), *args.games],
                                  check=True, capture_output=True, text=True, cwd=tree)
            for game, took in json.loads(done.stdout.splitlines()[-1]).items():
                cpu[label][game] += took
    print(f"The check gate's CPU in a fork of a daemon-like process ({ROUNDS} rounds × {args.runs} forks):")
    for game in args.games:
        line = "  ".join(f"{label} {1000 * statistics.median(cpu[label][game]):6.1f} ms "
                         f"(least {1000 * min(cpu[label][game]):5.1f})" for label in trees)
        print(f"  {game:22s} {line}")


if __name__ == "__main__":
    main()
