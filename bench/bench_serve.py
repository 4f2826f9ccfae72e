"""Median milliseconds from saving a file to the preview's Server-Sent Event reaching a client.

Run: .venv/bin/python bench/bench_serve.py        (prints a table; asserts nothing)

For each case a copy of a shipped game is served from a temporary folder; the bench opens the
event stream as a page does, then saves an edit that changes one card (alternately there and
back) and times until the ``update`` event naming that card has arrived. That covers the file
watcher, re-loading, checking and re-rendering the whole game, diffing face hashes and the
push; the page's fetch of the one face SVG comes after (a few ms on localhost).
"""

from __future__ import annotations

import http.client
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EDITS = 10
# game, file, text before, text after, card whose face changes
CASES = (
    ("qcd", "tables/transmutations.yaml", "{id: d-u, from: d, to: u}", "{id: d-u, from: d, to: s}", "wild-w"),
    ("particle-builder", "components/targets.yaml", "points: 10, description: \"Found", "points: 11, description: \"Found",
     "proton"),
)


def copy_game(base: Path, game_id: str) -> Path:
    """A writable copy of a shipped game with its templates, as a designer's game folder."""
    target = base / "games" / game_id
    shutil.copytree(ROOT / "data" / "games" / game_id, target)
    shutil.copytree(ROOT / "templates" / game_id, target / "templates")
    return target


def read_update(response: http.client.HTTPResponse) -> str:
    """The data line of the next ``update`` event (pings and other events are skipped)."""
    event = ""
    for raw in response.fp:
        line = raw.decode("utf-8")
        if line.startswith("event: "):
            event = line[7:].strip()
        elif line.startswith("data: ") and event == "update":
            return line[6:]
    raise RuntimeError("the event stream ended")


def measure(game_id: str, rel: str, old: str, new: str, card: str) -> list[float]:
    from cardgen.serve import PreviewServer

    with tempfile.TemporaryDirectory() as tmp:
        game_dir = copy_game(Path(tmp), game_id)
        server = PreviewServer(games_dirs=[game_dir.parent], game=game_id, port=0).start()
        try:
            port = int(server.url.rstrip("/").rsplit(":", 1)[1])
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/events")
            response = conn.getresponse()
            path = game_dir / rel
            text = path.read_text(encoding="utf-8")
            assert old in text, f"{old!r} is not in {rel}: update the bench"
            times = []
            for i in range(EDITS):
                time.sleep(0.2)  # let the previous batch settle, as between a designer's saves
                start = time.perf_counter()
                path.write_text(text.replace(old, new) if i % 2 == 0 else text, encoding="utf-8")
                while f'"{card}"' not in read_update(response):
                    pass
                times.append((time.perf_counter() - start) * 1000)
            conn.close()
            return times
        finally:
            server.stop()


def main() -> None:
    print(f"{'game':<18} {'edits':>5} {'median ms':>10} {'max ms':>8}")
    for game_id, rel, old, new, card in CASES:
        times = measure(game_id, rel, old, new, card)
        print(f"{game_id:<18} {len(times):>5} {statistics.median(times):>10.1f} {max(times):>8.1f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
