"""The check gate of `cardgen build` runs in the build's process while its workers render
(cardgen.build.workers.Alongside), and nothing is staged until it has passed: a deck the rules
refuse is refused as before — same error, same exit code, no file written — however many
processes render and whatever else failed."""

from __future__ import annotations

import multiprocessing
import threading
import time
from pathlib import Path

import pytest

import cardgen
from cardgen.build import BuildOptions, RuleFindingsError, gates

BREAK = ("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".cache" not in p.parts and p.name != ".lock"}


@pytest.fixture
def slow_gate(monkeypatch) -> list[tuple[bool, int]]:
    """The gate takes 2 s longer than it does: long enough for the workers to render and, were
    it allowed, impose. Notes, per run, whether it ran off the main thread and how many
    worker processes were alive when it started."""
    seen: list[tuple[bool, int]] = []
    original = gates.check_rules

    def slow(games, *args):
        seen.append((threading.current_thread() is not threading.main_thread(),
                     len(multiprocessing.active_children())))
        time.sleep(2)
        original(games, *args)

    monkeypatch.setattr(gates, "check_rules", slow)
    return seen


def test_the_gate_runs_while_the_workers_render(slow_gate, tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    games = [cardgen.load_game("qcd")]
    cardgen.build(games, BuildOptions(out=tmp_path / "two"), jobs=2)
    assert len(slow_gate) == 1 and slow_gate[0][0] and slow_gate[0][1] >= 2   # on a thread, the workers running
    cardgen.build(games, BuildOptions(out=tmp_path / "one"), jobs=1)
    assert len(slow_gate) == 2 and not slow_gate[1][0]   # one process: first, in the build's thread
    assert _files(tmp_path / "two") == _files(tmp_path / "one") and len(_files(tmp_path / "one")) >= 5


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_deck_the_rules_refuse_leaves_no_file(slow_gate, game_copy, tmp_path, jobs):
    g = game_copy("particles-in-circle")
    g.edit(*BREAK)
    with pytest.raises(RuleFindingsError) as err:
        cardgen.build(g.load(), BuildOptions(out=tmp_path / "new"), jobs=jobs)
    assert err.value.exit_code == 1
    assert err.value.message == f"not building: {len(err.value.findings)} rule finding(s); run 'cardgen check'"
    assert any(f.rule == "antiparticles-present" and "(anti-red)" in f.message for f in err.value.findings)
    assert not (tmp_path / "new" / "particles-in-circle").exists()
    assert _files(tmp_path / "new") == {}


def test_a_refused_deck_leaves_the_last_build_as_it_was(slow_gate, game_copy, tmp_path):
    g = game_copy("particles-in-circle")
    out = tmp_path / "out"
    cardgen.build(g.load(), BuildOptions(out=out, cache=False), jobs=2)
    before = _files(out)
    assert "particles-in-circle/en/cards.pdf" in before
    g.edit(*BREAK)
    with pytest.raises(RuleFindingsError):
        cardgen.build(g.load(), BuildOptions(out=out, cache=False), jobs=2)   # every face rendered again
    assert _files(out) == before
    assert not [p for p in (out / "particles-in-circle").iterdir() if p.name.startswith(".")]   # nothing staged


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_rules_verdict_comes_before_a_template_error(game_copy, tmp_path, jobs):
    """Before, the gate ran first and a broken template was never rendered; now both run
    side by side, and the findings are still what the build reports."""
    g = game_copy("particles-in-circle")
    g.edit(*BREAK)
    g.edit("templates/card-front.svg.j2", "{% endblock %}", "{{ no_such_thing.at_all }}\n{% endblock %}")
    with pytest.raises(RuleFindingsError):
        cardgen.build(g.load(), BuildOptions(out=tmp_path), jobs=jobs)
    assert not (tmp_path / "particles-in-circle").exists()


def test_the_command_exits_1_with_the_findings(game_copy, cli, tmp_path):
    g = game_copy("particles-in-circle")
    g.edit(*BREAK)
    res = cli("build", str(g.path), "--out", str(tmp_path), "--jobs", "2")
    assert res.returncode == 1, res.stdout
    assert "cardgen: not building: " in res.stderr and "rule finding(s); run 'cardgen check'" in res.stderr
    assert any("error[antiparticles-present]" in line and "(anti-red)" in line for line in res.stderr.splitlines())
    assert not (tmp_path / "particles-in-circle").exists()
