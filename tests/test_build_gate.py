"""The check gate of `cardgen build` runs while its workers render — in a child of its own
where there is a second core, else on a thread of the build's process
(cardgen.build.workers.Alongside) — and nothing is staged until it has passed: a deck the rules
refuse is refused as before — same error, same exit code, no file written — however many
processes render and whatever else failed."""

from __future__ import annotations

import contextlib
import importlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import cardgen
from cardgen import forkpair
from cardgen.build import BuildOptions, RuleFindingsError, gates
from cardgen.cache import cache_file

BREAK = ("components/cards.yaml", "colour: [anti-red, anti-green, anti-blue]", "colour: [anti-green, anti-blue]")


def _files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".cache" not in p.parts and p.name != ".lock"}


@dataclass(frozen=True)
class GateRun:
    pid: int          # the process the gate ran in
    on_thread: bool   # off that process's main thread
    faces: int        # faces in the build's cache once the gate's extra 2 s were up


class SlowGate:
    """The gate takes 2 s longer than it does: long enough for the workers to render and, were
    it allowed, impose. Each run is noted in a file (the gate may run in a forked child):
    where it ran, and how many faces the workers had rendered into the cache of ``out`` by
    the end of its 2 s."""

    def __init__(self, monkeypatch, log: Path) -> None:
        self.log, self.out = log, None
        original = gates.check_rules

        def slow(games, *args):
            on_thread = threading.current_thread() is not threading.main_thread()
            time.sleep(2)
            with open(self.log, "a", encoding="utf-8") as f:
                f.write(f"{os.getpid()} {int(on_thread)} {self._faces()}\n")
            original(games, *args)

        monkeypatch.setattr(gates, "check_rules", slow)

    def _faces(self) -> int:
        db = self.out and cache_file(self.out / ".cache")
        if not db or not db.exists():
            return 0
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT count(*) FROM faces").fetchone()[0]

    def runs(self) -> list[GateRun]:
        lines = self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []
        return [GateRun(int(pid), bool(int(thread)), int(faces)) for pid, thread, faces in map(str.split, lines)]


@pytest.fixture
def slow_gate(monkeypatch, tmp_path) -> SlowGate:
    return SlowGate(monkeypatch, tmp_path / "gate.log")


def test_the_gate_runs_while_the_workers_render(slow_gate, tmp_path, monkeypatch):
    """A process's first gate, with a second core, runs in a child forked as soon as the games
    are read (the build's process plans and starts its workers meanwhile); a later build of
    the same process — or any without a second core — runs it on a thread once the workers
    run, keeping what the rules read for the next. Either way the workers render while it
    runs. One process: first, here."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    monkeypatch.setattr(importlib.import_module("cardgen.build"), "_gated_here", False)   # as a new process
    games = [cardgen.load_game("qcd")]
    forks = len(forkpair.cores()) >= 2
    for name in ("first", "second"):
        slow_gate.out = tmp_path / name
        cardgen.build(games, BuildOptions(out=slow_gate.out), jobs=2)
    first, second = slow_gate.runs()
    assert (first.pid != os.getpid(), first.on_thread) == ((True, False) if forks else (False, True))
    assert second.pid == os.getpid() and second.on_thread
    assert first.faces >= 26 and second.faces >= 26   # every QCD face rendered while it ran
    slow_gate.out = tmp_path / "one"
    cardgen.build(games, BuildOptions(out=slow_gate.out), jobs=1)
    assert slow_gate.runs()[2:] == [GateRun(os.getpid(), False, 0)]   # first, in the build's thread
    assert _files(tmp_path / "first") == _files(tmp_path / "one") == _files(tmp_path / "second")
    assert len(_files(tmp_path / "one")) >= 5


def test_a_gate_whose_child_is_lost_runs_here(tmp_path):
    """A forked gate that dies without answering (killed, out of memory) is no pass: the build's
    process runs the function itself, and raises what it raises."""
    from cardgen.build.workers import Alongside

    parent, calls = os.getpid(), []

    def fn():
        if os.getpid() != parent:
            os._exit(3)   # the child dies without a word
        calls.append("here")
        raise RuleFindingsError([])

    gate = Alongside(fn)
    gate.fork()
    if len(forkpair.cores()) >= 2:
        assert gate.forked
    with pytest.raises(RuleFindingsError):
        gate.wait()
    assert calls == ["here"] and not gate.forked


def test_a_forked_gate_says_when_it_has_answered(tmp_path, monkeypatch):
    """Once the workers run, a gate running in a child gives the build a future that is done
    when the child has answered — not before (the build then releases the PDFs it held) —
    and its verdict is read as before; a gate on a thread gives none (its own thread ends)."""
    from cardgen.build.workers import Alongside

    monkeypatch.setattr(forkpair, "cores", lambda: [0, 1])   # a second core, whatever this machine has
    go = tmp_path / "go"

    def fn():
        while not go.exists():
            time.sleep(0.01)

    gate = Alongside(fn)
    gate.fork()
    answered = gate.start()
    assert answered is not None
    time.sleep(0.2)
    assert not answered.done() and not gate.passed()
    go.touch()
    answered.result(timeout=30)
    assert gate.passed() and not gate.forked
    on_thread = Alongside(lambda: None)
    assert on_thread.start() is None
    on_thread.wait()
    assert on_thread.passed()


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
