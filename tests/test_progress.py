"""Progress bars: on a terminal once work outlasts the delay, never in pipes or logs; the
library reports progress through callbacks that count up to the total the CLI announces."""

from __future__ import annotations

import io

import cardgen
from cardgen.export import card_count, export_png
from cardgen.progress import Progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run(stream, delay: float, steps: int = 3) -> str:
    with Progress("exporting", steps, stream=stream, delay=delay) as step:
        for n in range(steps):
            step(f"card-{n}")
    return stream.getvalue()


def test_a_terminal_gets_a_bar_that_counts_to_the_total():
    shown = run(FakeTerminal(), delay=0)
    assert "exporting" in shown and "3/3" in shown


def test_nothing_is_written_to_a_pipe_or_for_quick_work():
    assert run(io.StringIO(), delay=0) == ""
    assert run(FakeTerminal(), delay=60) == ""


def test_export_reports_each_card_and_the_total_matches(tmp_path):
    game = cardgen.load_game("qcd")
    seen: list[str] = []
    export_png(game, "en", 20, tmp_path, ["cards"], on_progress=seen.append)
    assert len(seen) == card_count(game, ["cards"]) == len(game.components["cards"].cards)
    assert seen[0] == f"cards/{game.components['cards'].cards[0].id}"


def test_commands_in_a_pipe_print_no_progress(cli, tmp_path):
    res = cli("export", "png", "qcd", "--dpi", "20", "--out", str(tmp_path))
    assert res.returncode == 0 and "\x1b[" not in res.stderr and "exporting" not in res.stderr
