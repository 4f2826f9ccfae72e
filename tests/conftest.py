"""Shared test helpers: broken copies of the shipped games, and running the CLI."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# Builds apply the printer calibration saved in the user's config folder (platformdirs follows
# XDG_CONFIG_HOME): the tests, and the commands they start, never see the developer's own.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="cardgen-test-config-")
# Templates are compiled once per machine into the user's cache folder (XDG_CACHE_HOME, see
# cardgen.templatecache): the tests use their own, and each test a fresh one (own_template_cache).
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="cardgen-test-cache-")
# A daemon the developer started (cardgen daemon start) would run the commands the tests start:
# they look for daemons in a folder of their own, where only tests/test_daemon.py starts any.
os.environ["CARDGEN_DAEMON_DIR"] = tempfile.mkdtemp(prefix="cgd-")
# The tests of Ctrl-C send SIGINT as a terminal does, to commands that take it as a terminal's
# do: a shell that starts the tests in the background has them ignore it, and every process
# they start would inherit that (it would then finish, exit 0, whatever the test sent).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# All go when this test process ends (each xdist worker made its own).
for _folder in (os.environ["XDG_CONFIG_HOME"], os.environ["XDG_CACHE_HOME"], os.environ["CARDGEN_DAEMON_DIR"]):
    atexit.register(shutil.rmtree, _folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def own_template_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test (and every command it starts) compiles templates into a machine cache of its
    own: what one test compiled never hides from another what a cold machine does."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache-home")))


ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "data" / "games"
TEMPLATES = ROOT / "templates"


def installation_copy(dest: Path) -> Path:
    """An installation of cardgen of its own in ``dest`` (first on ``PYTHONPATH`` it runs
    instead of this tree's): a copy of the package, which a test may change, and links to the
    shipped data and templates. Returns ``dest``."""
    shutil.copytree(ROOT / "cardgen", dest / "cardgen", ignore=shutil.ignore_patterns("__pycache__"))
    for shared in ("data", "templates"):
        (dest / shared).symlink_to(ROOT / shared)
    return dest


class GameCopy:
    """A writable copy of a shipped game (data + templates) in a temporary games folder."""

    def __init__(self, base: Path, game_id: str) -> None:
        self.games_dir = base / "games"
        self.path = self.games_dir / game_id
        shutil.copytree(GAMES / game_id, self.path)
        if (TEMPLATES / game_id).is_dir():
            shutil.copytree(TEMPLATES / game_id, self.path / "templates")
        else:
            (self.path / "templates").mkdir()

    def edit(self, rel: str, old: str, new: str, count: int = 1) -> None:
        """Replace text in one of the copy's files; fails loudly if ``old`` is not there."""
        f = self.path / rel
        text = f.read_text(encoding="utf-8")
        assert text.count(old) >= count, f"{old!r} not found in {rel}"
        f.write_text(text.replace(old, new, count), encoding="utf-8")

    def write(self, rel: str, text: str) -> None:
        (self.path / rel).write_text(text, encoding="utf-8")

    def line_of(self, rel: str, text: str) -> int:
        """The 1-based line of the copy's file ``rel`` that first holds ``text``."""
        return next(n for n, line in enumerate((self.path / rel).read_text(encoding="utf-8").splitlines(), 1)
                    if text in line)

    def load(self):
        import cardgen

        return cardgen.load_game(self.path)

    def findings(self, rule: str | None = None):
        import cardgen

        found = cardgen.check(self.load(), render=False).findings   # the rules alone: fast
        return [f for f in found if rule is None or f.rule == rule]


@pytest.fixture
def game_copy(tmp_path: Path):
    """``game_copy("qcd")`` → a GameCopy of the shipped game to break on purpose."""
    return lambda game_id: GameCopy(tmp_path, game_id)


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """Run the real ``cardgen`` command in a subprocess (exit codes and stderr as users see them)."""
    return subprocess.run([sys.executable, "-m", "cardgen", *args], capture_output=True, text=True,
                          cwd=cwd or ROOT, env=env, timeout=600)


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def compiled(monkeypatch) -> list[str]:
    """The templates Jinja compiles from now on, by name, in a process with nothing compiled yet."""
    import jinja2

    from cardgen import render

    names: list[str] = []
    original = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):
        names.append(name)
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    monkeypatch.setattr(render, "_COMPILED", {})
    return names
