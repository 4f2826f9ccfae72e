"""Ctrl-C while cardgen forks ends the command the one way a Ctrl-C does: exit 130, no traceback
from any process, nothing kept (see cardgen/interrupts.py). Before, a Ctrl-C that came during a
fork was dropped by an at-fork handler and the build ran on to exit 0, a worker hit while
starting printed its traceback, and a check gate's child hit while importing the rules made
the build report "unknown rule" (exit 2)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import click
import pytest

from cardgen import interrupts
from cardgen.interrupts import UNCHANGED

from .test_hardening import folders_agree_with_manifests

def outputs_in(out):
    """The files a command left in its output folder (not its cache or its lock)."""
    return [f for f in out.rglob("*") if f.is_file() and ".cache" not in f.parts and f.name != ".lock"]


#: The signals that stop a command, with its exit code and the word its message says.
STOPPING = [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]


def test_a_ctrl_c_inside_the_block_is_raised_when_it_ends():
    reached_end = False
    with pytest.raises(KeyboardInterrupt):
        with interrupts.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)   # the handler runs here: it must only note the signal
            reached_end = True
    assert reached_end
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_block_without_ctrl_c_raises_nothing():
    with interrupts.deferred():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_held_with_ctrl_c_is_handed_to_its_own_handler_when_the_block_ends():
    got: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, _frame: got.append(signum))
    try:
        with interrupts.deferred():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            assert got == []   # noted, not handled, inside the block
        assert got == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_forked_child_is_not_hit_and_the_parent_is_after_the_fork():
    read, write = os.pipe()
    with pytest.raises(KeyboardInterrupt):
        with interrupts.deferred():
            pid = os.fork()
            if pid == 0:   # the child: a Ctrl-C now must not raise in it
                try:
                    interrupts.child_ignores()
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.05)
                    os.write(write, b"ok")
                finally:
                    os._exit(0)
            os.kill(os.getpid(), signal.SIGINT)
            os.waitpid(pid, 0)
    assert os.read(read, 2) == b"ok"
    os.close(read)
    os.close(write)


def test_ctrl_c_at_any_moment_of_a_build_ends_it_cleanly(tmp_path):
    """The whole process group gets the Ctrl-C, as from a terminal, at moments spread over the
    build's start, when it forks its check gate and its workers."""
    env = dict(os.environ, CARDGEN_DAEMON="off")
    bad = []
    for n in range(16):
        out = tmp_path / f"out{n}"
        p = subprocess.Popen([sys.executable, "-m", "cardgen", "build", "particle-builder", "--no-cache", "--out",
                              str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                             start_new_session=True)
        time.sleep(0.2 + 0.04 * n)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=120)
        left = outputs_in(out)
        if p.returncode == 0 and not err:
            continue   # it had finished before the Ctrl-C
        if "in full; any others are unchanged" in err:   # it came as the folders were swapped in: each is whole
            left = folders_agree_with_manifests(out)
        if p.returncode != 130 or "Traceback" in err or "Exception ignored" in err or "Process " in err or left:
            bad.append((n, p.returncode, err[-800:], left[:3]))   # the end of a traceback says where
    assert not bad, bad


#: Sends a signal to the whole process group when the command's own process (not a child it
#: forked) starts importing a module: a moment in the build that timing alone hits rarely.
_SIGNAL_AT_IMPORT = """
import importlib.abc, os, signal, sys

module, signum, command = sys.argv[1], int(sys.argv[2]), os.getpid()

class Signal(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == module and os.getpid() == command:
            sys.meta_path.remove(self)
            os.killpg(os.getpgid(0), signum)
        return None

sys.meta_path.insert(0, Signal())
from cardgen import cli
cli.main(sys.argv[3:])
"""


@pytest.mark.parametrize("signum, code, how", STOPPING)
@pytest.mark.parametrize("module", ["cardgen.rules.decks", "cardgen.draw"])
def test_a_signal_while_the_build_imports_ends_it_at_once(tmp_path, signum, code, how, module):
    """A SIGTERM that came while the build's process imported the rules ended in "unknown
    rule 'deck-size'" (exit 2): the build waited for its check gate whatever stopped it, the
    gate's child had ended by the same signal, and the build ran the rules itself, from a
    rule library whose import the signal had cut short (found by a stress run of signals at
    random moments)."""
    done = subprocess.run([sys.executable, "-c", _SIGNAL_AT_IMPORT, module, str(int(signum)), "build",
                           "particle-builder", "--no-cache", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, start_new_session=True,
                          env=dict(os.environ, CARDGEN_DAEMON="off"))
    assert (done.returncode, done.stderr.strip()) == (code, f"cardgen: {how}; {UNCHANGED}")
    assert not outputs_in(tmp_path / "out")


#: Sends a signal to the whole process group the moment a build worker has written the
#: header of a large result and not yet its body (a result of more than 16 KiB goes as two
#: writes: a render task's faces and measured texts), then lets the worker go on.
_SIGNAL_MID_RESULT = """
import os, signal, struct, sys, time
from multiprocessing import connection

signum, once, command, real = int(sys.argv[1]), sys.argv[2], os.getpid(), connection.Connection._send

def send(self, buf, *args):
    real(self, buf, *args)
    if os.getpid() != command and len(buf) == 4 and struct.unpack("!i", bytes(buf))[0] > 16384:
        try:
            os.close(os.open(once, os.O_CREAT | os.O_EXCL))   # one worker, once
        except FileExistsError:
            return
        os.killpg(os.getpgid(0), signum)
        time.sleep(0.2)   # the signal's handler runs here, if the worker has one

connection.Connection._send = send
from cardgen import cli
cli.main(sys.argv[3:])
"""


@pytest.mark.parametrize("signum, code, how", STOPPING)
def test_a_signal_while_a_worker_hands_back_a_result_ends_the_build(tmp_path, signum, code, how):
    """A build worker ended on SIGTERM by itself, halfway through handing back a result: the
    build's process waited for the rest of it for ever (a stress run of signals at random
    moments hung). Workers leave SIGTERM, as Ctrl-C, to the build's process."""
    done = subprocess.run([sys.executable, "-c", _SIGNAL_MID_RESULT, str(int(signum)), str(tmp_path / "sent"),
                           "build", "particle-builder",
                           "--no-cache", "--jobs", "2", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, start_new_session=True,
                          env=dict(os.environ, CARDGEN_DAEMON="off"))
    assert (done.returncode, done.stderr.strip()) == (code, f"cardgen: {how}; {UNCHANGED}")


@pytest.mark.parametrize("module", ["cardgen.cli_export", "cardgen.cli_common", "click"])
def test_a_ctrl_c_while_the_executable_starts_is_one_line(tmp_path, module):
    """A Ctrl-C while ``cardgen`` imported its command line printed the import's traceback
    (found by a stress run of signals at random moments)."""
    executable = _SIGNAL_AT_IMPORT.replace("from cardgen import cli\ncli.main(sys.argv[3:])",
                                           "sys.argv[1:] = sys.argv[3:]\nfrom cardgen.daemon.client import run\nrun()")
    done = subprocess.run([sys.executable, "-c", executable, module, str(int(signal.SIGINT)), "list"],
                          capture_output=True, text=True, timeout=60, start_new_session=True,
                          env=dict(os.environ, CARDGEN_DAEMON="off"))
    assert (done.returncode, done.stderr) == (130, f"cardgen: interrupted; {UNCHANGED}\n")


def test_a_ctrl_c_while_click_reads_the_command_line_is_the_commands_interruption():
    """Before a command's handler is in place click turns a Ctrl-C into "Aborted!", exit 1."""
    from click.testing import CliRunner

    from cardgen.cli_common import CommandLine

    def stopped(_ctx, _param, value):
        raise KeyboardInterrupt

    @click.group(cls=CommandLine)
    def group() -> None:
        pass

    @group.command()
    @click.option("--lang", callback=stopped)
    def build(lang) -> None:
        pass

    result = CliRunner().invoke(group, ["build", "--lang", "en"])
    assert (result.exit_code, result.output) == (130, f"cardgen: interrupted; {UNCHANGED}\n")


#: A Ctrl-C that Python drops: raised in a finaliser (as in importlib's module-lock callback,
#: where a Ctrl-C landed in a CI-like run), when the command's process first imports a module.
_DROPPED_AT_IMPORT = """
import importlib.abc, os, sys

module, kind, command = sys.argv[1], sys.argv[2], os.getpid()

class Dropped:
    def __del__(self):
        if kind == "ctrl-c":
            raise KeyboardInterrupt
        from cardgen.interrupts import Terminated
        raise Terminated

class Drop(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == module and os.getpid() == command:
            sys.meta_path.remove(self)
            Dropped()   # its finaliser runs at once, and what it raises Python cannot raise here
        return None

sys.meta_path.insert(0, Drop())
from cardgen import cli
cli.main(sys.argv[3:])
"""


@pytest.mark.parametrize("kind, code, how", [("ctrl-c", 130, "interrupted"), ("sigterm", 143, "terminated")])
@pytest.mark.parametrize("module, command", [("cardgen.build.plan", "build"), ("cardgen.check", "check")])
def test_a_ctrl_c_python_drops_still_stops_the_command(tmp_path, kind, code, how, module, command):
    """Python prints "Exception ignored" and drops a KeyboardInterrupt raised where it calls
    Python from C without a caller to raise to (importlib's module-lock callback): the build
    ran on, wrote every file and exited 0 (found when the tests ran while cardgen's modules
    compiled, and imports took longer)."""
    out = tmp_path / "out"
    args = ["build", "particle-builder", "--no-cache", "--out", str(out)] if command == "build" else ["check", "qcd"]
    done = subprocess.run([sys.executable, "-c", _DROPPED_AT_IMPORT, module, kind, *args], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, CARDGEN_DAEMON="off"))
    assert (done.returncode, done.stderr) == (code, f"cardgen: {how}; {UNCHANGED}\n")
    assert not outputs_in(out)


def test_a_ctrl_c_while_harfbuzz_draws_a_glyph_reaches_the_command():
    """HarfBuzz calls the pen from C, which printed the KeyboardInterrupt ("Exception ignored
    in 'uharfbuzz._harfbuzz._pen_quadratic_to_func'") and went on: a render interrupted while
    drawing text ran to the end. It is raised once the glyph's drawing returns."""
    from fontTools.pens.recordingPen import RecordingPen

    from cardgen.text.fonts import BOLD_CHAIN, REGULAR_CHAIN, FontChain

    face = FontChain({"regular": REGULAR_CHAIN, "bold": BOLD_CHAIN}).faces[0]
    gid = face.hb_font.get_nominal_glyph(ord("B"))

    class Interrupted(RecordingPen):
        def lineTo(self, pt):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        face.draw_glyph(gid, Interrupted())
    recorded = RecordingPen()
    face.draw_glyph(gid, recorded)   # and the face draws as before afterwards
    assert recorded.value and recorded.value[-1][0] == "closePath"


def test_an_error_a_ctrl_c_turned_into_ends_the_command_as_an_interruption(capsys):
    """A Ctrl-C that lands inside a library's C code comes back as that library's error:
    pikepdf imported at that moment raised "ImportError: ... failed to import", and the build
    ended in an internal error (exit 70) instead of as interrupted (130)."""
    from cardgen.cli_common import handle_errors

    @handle_errors
    def command() -> None:
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)
        except KeyboardInterrupt:
            raise ImportError("pikepdf's extension library (pikepdf._core) failed to import") from None

    previous = signal.getsignal(signal.SIGINT)
    try:
        with pytest.raises(SystemExit) as ended:
            command()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert ended.value.code == 130
    assert capsys.readouterr().err.strip() == "cardgen: interrupted; outputs from before this run are unchanged"


def test_a_command_run_in_process_leaves_pythons_ctrl_c_handler_as_it_was():
    from click.testing import CliRunner

    from cardgen.cli import main

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert CliRunner().invoke(main, ["list"]).exit_code == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


#: Raises a Ctrl-C inside pikepdf's native module while it starts: nanobind calls Python's enum
#: module to create its enumerations, and the first one it creates sends the signal, which
#: Python then raises in that call, the moment a terminal's Ctrl-C landed in CI.
_CTRL_C_INSIDE_PIKEPDFS_START = """
import enum, importlib.abc, importlib.machinery, os, signal, sys

real_call = enum.EnumType.__call__

def first_enumeration_interrupted(cls, *args, **kwargs):
    if args and isinstance(args[0], str) and cls in (enum.Enum, enum.IntEnum, enum.Flag, enum.IntFlag):
        enum.EnumType.__call__ = real_call
        os.kill(os.getpid(), signal.SIGINT)
    return real_call(cls, *args, **kwargs)

class NativeStart(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "pikepdf._core":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        real = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                enum.EnumType.__call__ = first_enumeration_interrupted
                return real.create_module(spec)

            def exec_module(self, module):
                real.exec_module(module)

        spec.loader = Loader()
        return spec

sys.meta_path.insert(0, NativeStart())
try:
    import {module}
except KeyboardInterrupt:
    print("interrupted after the import;", "whole" if hasattr(sys.modules.get("pikepdf"), "Pdf") else "broken")
"""


@pytest.mark.parametrize("module", ["cardgen.pdflib", "cardgen.pdfdoc", "cardgen.relocatable"])
def test_a_ctrl_c_while_pikepdf_starts_is_raised_once_it_has_started(module):
    """nanobind, which pikepdf's native module is built with, aborts the process when a Ctrl-C
    is raised while it registers its types ("Critical nanobind error", exit 134: a CI run of the
    test above, no clean-up, the lock left): cardgen imports pikepdf with the signal held back."""
    done = subprocess.run([sys.executable, "-c", _CTRL_C_INSIDE_PIKEPDFS_START.replace("{module}", module)],
                          capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "interrupted after the import; whole", "")


def test_the_reproduction_above_does_reach_pikepdfs_start():
    """The same signal, pikepdf imported as it is: the process is aborted (or the import broken),
    so the test above exercises the moment it claims to."""
    done = subprocess.run([sys.executable, "-c", _CTRL_C_INSIDE_PIKEPDFS_START.replace("{module}", "pikepdf")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 or "broken" in done.stdout, (done.returncode, done.stdout, done.stderr[-300:])
    assert "nanobind" in done.stderr or "broken" in done.stdout or "failed to import" in done.stderr


def test_pikepdf_is_imported_only_through_cardgen_pdflib():
    import ast
    from pathlib import Path

    package = Path(interrupts.__file__).parent
    elsewhere = []
    for source in sorted(package.rglob("*.py")):
        if source.name == "pdflib.py":
            continue
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(name == "pikepdf" or name.startswith("pikepdf.") for name in names):
                elsewhere.append(f"{source.relative_to(package)}:{node.lineno}")
    assert not elsewhere
