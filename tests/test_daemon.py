"""The daemon (cardgen daemon start): a command it runs prints, writes and exits exactly as the
same command run without it, and the daemon never serves what it should not — a stale
installation, a command allowed more than the daemon, a request it cannot read."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from cardgen.daemon.channel import Channel, ProtocolError
from tests.conftest import installation_copy

ROOT = Path(__file__).resolve().parent.parent
EPOCH = {"SOURCE_DATE_EPOCH": "1700000000"}


def cardgen(*args: str, cwd: Path = ROOT, env: dict | None = None, exe: list[str] | None = None,
            **popen) -> subprocess.CompletedProcess:
    return subprocess.run([*(exe or [sys.executable, "-m", "cardgen"]), *args], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, **(env or {})}, timeout=300, **popen)


def commands_run(env: dict | None = None, cwd: Path = ROOT) -> int | None:
    """How many commands the daemon has run; None when none runs."""
    res = cardgen("daemon", "status", env=env, cwd=cwd)
    if res.returncode != 0:
        return None
    return int(re.search(r"(\d+) commands run", res.stdout).group(1))


@pytest.fixture
def daemon(monkeypatch: pytest.MonkeyPatch):
    """A daemon of its own (in a folder of its own), started; stopped at the end."""
    folder = Path(tempfile.mkdtemp(prefix="cgd-"))
    monkeypatch.setenv("CARDGEN_DAEMON_DIR", str(folder))
    res = cardgen("daemon", "start", "--idle-minutes", "1")   # gone within a minute should the test process die
    assert res.returncode == 0, res.stderr
    assert "daemon started" in res.stdout
    yield folder
    cardgen("daemon", "stop")
    shutil.rmtree(folder, ignore_errors=True)


def pdfs(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*.pdf"))}


def test_a_build_through_the_daemon_writes_prints_and_exits_as_one_run_here(daemon: Path, tmp_path: Path) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    here = cardgen("build", "qcd", "--out", "out", "--no-cache", cwd=tmp_path / "here",
                   env={**EPOCH, "CARDGEN_DAEMON": "off"})
    assert commands_run() == 0
    there = cardgen("build", "qcd", "--out", "out", "--no-cache", cwd=tmp_path / "there", env=EPOCH)
    assert commands_run() == 1   # the daemon ran it
    assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
    assert there.returncode == 0
    made_here, made_there = pdfs(tmp_path / "here" / "out"), pdfs(tmp_path / "there" / "out")
    assert made_here and made_here == made_there   # the same bytes: the epoch came from the environment sent


def test_a_command_run_from_the_repository_says_where_shipped_data_is_as_one_run_here(daemon: Path,
                                                                                        tmp_path: Path) -> None:
    """The daemon reads the shared physics data in the folder it starts in: a command that
    took it from there showed each entry's place from that folder (the whole path of
    data/particles.yaml in a check's report) and wrote other bytes for the rule sheets that
    print colour charges. From the repository's folder, where those places are short, the
    daemon's command must read and write as one run here."""
    check = ("check", "particle-builder", "--json")
    there, here = cardgen(*check), cardgen(*check, env={"CARDGEN_DAEMON": "off"})
    assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr)
    assert '"file": "data/particles.yaml"' in there.stdout   # a choice PDG's data made, where it is written
    for out, env in (("there", EPOCH), ("here", {**EPOCH, "CARDGEN_DAEMON": "off"})):
        assert cardgen("build", "qcd", "--out", str(tmp_path / out), "--no-cache", env=env).returncode == 0
    assert commands_run() == 2
    made = pdfs(tmp_path / "there")
    assert "qcd/en/rules.pdf" in made and made == pdfs(tmp_path / "here")


def test_shipped_data_is_parsed_again_only_where_its_places_are_shown_otherwise(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's parse of the shared physics data (whole paths, from its own folder) serves
    a command in any folder outside the data's; in the repository's folder it is parsed again
    and each entry shows its short path."""
    from cardgen import loader

    monkeypatch.chdir(tmp_path)
    outside = loader.shipped_physics()
    (tmp_path / "deeper").mkdir()
    monkeypatch.chdir(tmp_path / "deeper")
    assert loader.shipped_physics() is outside
    assert outside.particles["u"].location.file == str(ROOT / "data" / "particles.yaml")
    monkeypatch.chdir(ROOT)
    here = loader.shipped_physics()
    assert here is not outside and here.particles["u"].location.file == "data/particles.yaml"


def test_errors_and_usage_read_as_here_for_the_executable_and_python_m(daemon: Path, tmp_path: Path) -> None:
    executable = shutil.which("cardgen", path=str(Path(sys.executable).parent))
    assert executable is not None
    for exe in ([executable], [sys.executable, "-m", "cardgen"]):
        for args in (("check", "no-such-game"), ("build", "--paper"), ("build", "--no-such-option"), ("build", "--jobs", "0"),
                     ("--version",)):
            before = commands_run()
            there = cardgen(*args, exe=exe, cwd=tmp_path)
            assert commands_run() == before + 1
            here = cardgen(*args, exe=exe, cwd=tmp_path, env={"CARDGEN_DAEMON": "off"})
            assert (there.returncode, there.stdout, there.stderr) == (here.returncode, here.stdout, here.stderr), args
    assert "Usage: python -m cardgen build" in cardgen("build", "--no-such-option").stderr
    assert "Usage: cardgen build" in cardgen("build", "--no-such-option", exe=[executable]).stderr


def test_a_changed_installation_stops_the_daemon_and_the_command_runs_here(daemon: Path, tmp_path: Path) -> None:
    # an installation of its own (a copy of the tree first on the path), so that changing it
    # disturbs no other test's daemon
    src = installation_copy(tmp_path / "src")
    env = {**EPOCH, "PYTHONPATH": str(src)}
    started = cardgen("daemon", "start", "--idle-minutes", "1", env=env, cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    assert cardgen("check", "qcd", env=env, cwd=tmp_path).returncode == 0
    assert commands_run(env, tmp_path) == 1
    watched = src / "cardgen" / "serve_page.html"   # any file of the package, code or not
    watched.write_text(watched.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    res = cardgen("build", "qcd", "--out", "out", cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    assert pdfs(tmp_path / "out")
    assert _wait_for(lambda: commands_run(env, tmp_path) is None, 10)   # stopped instead of running the old code
    assert commands_run() == 0   # the installation's own daemon was never asked


def test_a_command_allowed_more_than_the_daemon_runs_here(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cgd-"))
    monkeypatch.setenv("CARDGEN_DAEMON_DIR", str(folder))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lower = min(hard, 512) if hard != resource.RLIM_INFINITY else 512
    if lower >= hard:
        pytest.skip("the open-files limit is already at its lowest here")

    def lowered() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, lower), lower))

    try:
        assert cardgen("daemon", "start", "--idle-minutes", "1", preexec_fn=lowered).returncode == 0
        res = cardgen("check", "qcd")
        assert res.returncode == 0, res.stderr
        assert commands_run() == 0   # refused: the command ran in its own executable
        res = cardgen("check", "qcd", preexec_fn=lowered)   # allowed no more than the daemon: served
        assert res.returncode == 0, res.stderr
        assert commands_run() == 1
    finally:
        cardgen("daemon", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def test_the_command_is_hung_up_on_when_its_executable_is_killed(daemon: Path, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "build", "--out", "out", "--no-cache", "--jobs", "1"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **EPOCH})
    running = _wait_for(lambda: _running() == 1, 20)
    proc.kill()
    proc.wait()
    assert running
    assert _wait_for(lambda: _running() == 0, 20)   # the build stopped with its executable
    assert not list((tmp_path / "out").rglob("*.pdf"))   # and, stopped mid-way, wrote no file


def test_ctrl_c_reaches_the_command(daemon: Path, tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "build", "--out", "out", "--no-cache", "--jobs", "1"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **EPOCH})
    assert _wait_for(lambda: _running() == 1, 20)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "cardgen: interrupted; outputs from before this run are unchanged" in err


def test_two_starts_at_once_leave_one_daemon(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cgd-"))
    monkeypatch.setenv("CARDGEN_DAEMON_DIR", str(folder))
    try:
        starts = [subprocess.Popen([sys.executable, "-m", "cardgen", "daemon", "start", "--idle-minutes", "1"],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for _ in range(2)]
        said = [p.communicate(timeout=120) for p in starts]
        assert [p.returncode for p in starts] == [0, 0], said
        pids = {re.search(r"pid (\d+)", out).group(1) for out, _err in said}
        assert len(pids) == 1   # both name the one daemon that runs
        assert commands_run() == 0
    finally:
        cardgen("daemon", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def test_a_daemon_without_commands_stops_by_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cgd-"))
    monkeypatch.setenv("CARDGEN_DAEMON_DIR", str(folder))
    proc = subprocess.Popen([sys.executable, "-c", "from cardgen.daemon.server import main; main()",
                             "--idle-minutes", "0.02"], cwd=folder, env=os.environ)
    try:
        assert proc.wait(timeout=60) == 0
        assert not list(folder.glob("*.sock"))   # its socket went with it
    finally:
        proc.kill()
        shutil.rmtree(folder, ignore_errors=True)


def test_a_folder_others_may_enter_is_refused_and_ignored(daemon: Path, tmp_path: Path) -> None:
    os.chmod(daemon, 0o755)
    try:
        res = cardgen("check", "qcd")
        assert res.returncode == 0
        start = cardgen("daemon", "start")
        assert start.returncode == 2
        assert "is not yours alone" in start.stderr and "chmod 700" in start.stderr
    finally:
        os.chmod(daemon, 0o700)
    assert commands_run() == 0   # the check ran in its own executable


def test_a_socket_path_too_long_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cgd-"))
    deep = folder / ("d" * 100)
    monkeypatch.setenv("CARDGEN_DAEMON_DIR", str(deep))
    try:
        res = cardgen("daemon", "start")
        assert res.returncode == 2
        assert "CARDGEN_DAEMON_DIR to a shorter folder" in res.stderr
        assert "Traceback" not in res.stderr
        assert cardgen("check", "qcd").returncode == 0   # and commands run here
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_garbage_on_the_socket_leaves_the_daemon_serving(daemon: Path, tmp_path: Path) -> None:
    sock_path = next(daemon.glob("*.sock"))
    for garbage in (b"", b"\x00\x00", struct.pack(">I", 1 << 30), struct.pack(">I", 5) + b"[1,2]",
                    struct.pack(">I", 9) + b'{"run": 1', struct.pack(">I", 11) + b'{"run": {}}'):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(str(sock_path))
            s.sendall(garbage)
            s.shutdown(socket.SHUT_WR)
            s.settimeout(10)
            while s.recv(4096):
                pass
    res = cardgen("check", "qcd")
    assert res.returncode == 0
    assert commands_run() == 1


def test_a_system_without_fork_runs_every_command_itself(daemon: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import cardgen.daemon as shared
    from cardgen.daemon import client, control

    sock = next(daemon.glob("*.sock"))   # this process's import path differs from the commands'
    monkeypatch.setattr(control, "socket_path", lambda: sock)
    monkeypatch.setattr(client, "socket_path", lambda: sock)
    assert control.status() is not None
    monkeypatch.setattr(shared, "SUPPORTED", False)
    assert client.through_daemon(["cardgen", "check", "qcd"]) is None
    assert control.status() is None
    with pytest.raises(control.DaemonError, match="needs fork"):
        control.start()
    assert commands_run() == 0


def test_the_daemon_imports_what_a_build_and_a_check_import(tmp_path: Path) -> None:
    """Each command's process starts with what the daemon imported: a module of cardgen or
    fontTools first imported by a command would cost every command (fontTools' font builder
    and tables: 0.03 s)."""
    script = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from cardgen.daemon.server import _preload\n"
        "_preload()\n"
        "before = set(sys.modules)\n"
        "import cardgen\n"
        f"cardgen.build(cardgen.load_games(), cardgen.BuildOptions(out=Path({str(tmp_path / 'out')!r})), jobs=1)\n"
        "cardgen.check(cardgen.load_games())\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    late = [m for m in json.loads(res.stdout.splitlines()[-1]) if m.split(".")[0] in ("cardgen", "fontTools")]
    assert late == []


def test_a_command_of_the_daemon_works_out_nothing_from_the_whole_particle_table_again(tmp_path: Path) -> None:
    """The tables derived from every particle PDG lists (the lightest meson of each quark
    content, the hadron an answer key names for a set of quarks: 10 ms in all) are worked
    out by the daemon before any command: a check and a build forked from it read the whole
    table no more."""
    script = (
        "import json\n"
        "from pathlib import Path\n"
        "from cardgen.daemon.server import _preload\n"
        "from cardgen import pdg\n"
        "_preload()\n"
        "tables = [t.__wrapped__.__qualname__ for t in pdg._WHOLE_TABLE if t.cache_info().currsize]\n"
        "scans = []\n"
        "real = pdg.particles\n"
        "pdg.particles = lambda: scans.append(1) or real()\n"
        "import cardgen\n"
        "games = [cardgen.load_game(g) for g in ('particle-builder', 'qcd')]\n"
        "assert cardgen.check(games, render=False).ok\n"
        f"cardgen.build(games, cardgen.BuildOptions(out=Path({str(tmp_path)!r})), jobs=1)\n"
        "print(json.dumps([sorted(tables), len(scans)]))\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    tables, scans = json.loads(res.stdout.splitlines()[-1])
    assert tables == ["_hadrons_by_content", "_mixtures_by_term", "lightest_mesons"] and scans == 0


def test_a_command_of_the_daemon_reads_no_bundled_font_again(tmp_path: Path) -> None:
    """The daemon draws a line of text in the bundled fonts and reads it back as the print
    stage does: a build forked from it opens none of their files again (without the daemon,
    the same build reads each font it prints with twice, for its text and for its glyph
    forms)."""
    script = (
        "import functools, json, sys\n"
        "from pathlib import Path\n"
        "from cardgen.daemon.server import _preload\n"
        "if sys.argv[1] == 'daemon':\n"
        "    _preload()\n"
        "import cardgen\n"
        "from cardgen.text import fonts\n"
        "read = []\n"
        "real = fonts.Face._data.func\n"
        "spied = functools.cached_property(lambda self: read.append(self.path.name) or real(self))\n"
        "spied.__set_name__(fonts.Face, '_data')\n"
        "fonts.Face._data = spied\n"
        "cardgen.build('qcd', cardgen.BuildOptions(out=Path(sys.argv[2])), jobs=1)\n"
        "print(json.dumps(read))\n")
    read = {}
    for how in ("daemon", "here"):
        res = subprocess.run([sys.executable, "-c", script, how, str(tmp_path / how)], capture_output=True, text=True,
                             cwd=ROOT, timeout=600)
        assert res.returncode == 0, res.stderr
        read[how] = json.loads(res.stdout.splitlines()[-1])
    assert read["daemon"] == [] and "NotoSans-Regular.ttf" in read["here"], read


def test_a_command_of_the_daemon_hashes_none_of_cardgens_files_again(tmp_path: Path) -> None:
    """The daemon hashes cardgen's files and the shared templates once: a build forked from it
    reads no byte of them to fingerprint a game, and still sees one that changed."""
    script = (
        "import json, os\n"
        "from pathlib import Path\n"
        "from cardgen.daemon.server import _preload\n"
        "_preload()\n"
        "import cardgen, cardgen.cache as cache\n"
        "hashed = []\n"
        "real = cache.sha256_file\n"
        "cache.sha256_file = lambda path: hashed.append(str(path)) or real(path)\n"
        f"out = Path({str(tmp_path / 'out')!r})\n"
        "cardgen.build('qcd', cardgen.BuildOptions(out=out), jobs=1)\n"
        "first = list(hashed)\n"
        "shared = cache.SHARED_TEMPLATES / 'base.svg.j2'\n"
        "st = shared.stat()\n"
        "os.utime(shared, ns=(st.st_atime_ns, st.st_mtime_ns + 1))\n"
        "try:\n"
        "    cache.software_digest(); cache.file_digest(shared)\n"
        "finally:\n"
        "    os.utime(shared, ns=(st.st_atime_ns, st.st_mtime_ns))\n"
        "print(json.dumps([first, hashed[len(first):]]))\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    first, after_touch = json.loads(res.stdout.splitlines()[-1])
    ours = (str(ROOT / "cardgen"), str(ROOT / "templates" / "_shared"))
    assert first and not [p for p in first if p.startswith(ours)]   # the game's own files only
    assert after_touch == [str(ROOT / "templates" / "_shared" / "base.svg.j2")]


def test_a_command_of_the_daemon_walks_no_file_of_the_package(tmp_path: Path) -> None:
    """The daemon finds the digest of cardgen's files once, after it took the signature of the
    files it watches: a build forked from it fingerprints its games without walking cardgen's package
    (a process that is no daemon walks it on every build), and prints the same files."""
    script = (
        "import json, os, sys\n"
        "from pathlib import Path\n"
        "import cardgen, cardgen.cache as cache\n"
        "walked = []\n"
        "real = cache.files_under\n"
        "cache.files_under = lambda folder, code=False: walked.append(str(folder)) or real(folder, code)\n"
        "if sys.argv[1] == 'daemon':\n"
        "    from cardgen.daemon.server import Daemon\n"
        "    daemon = Daemon.open(60)\n"
        "    walked.clear()\n"
        "out = Path(sys.argv[2])\n"
        "cardgen.build('qcd', cardgen.BuildOptions(out=out), jobs=1)\n"
        "if sys.argv[1] == 'daemon':\n"
        "    daemon.close()\n"
        "print(json.dumps(walked))\n")
    walked, files = {}, {}
    sockets = Path(tempfile.mkdtemp(prefix="cgd-"))   # short: a socket's name is at most 107 bytes
    for how in ("daemon", "here"):
        env = {**os.environ, "CARDGEN_DAEMON_DIR": str(sockets)}
        res = subprocess.run([sys.executable, "-c", script, how, str(tmp_path / how)], capture_output=True, text=True,
                             cwd=ROOT, env=env, timeout=600)
        assert res.returncode == 0, res.stderr
        walked[how] = json.loads(res.stdout.splitlines()[-1])
        files[how] = pdfs(tmp_path / how / "qcd" / "en")
    shutil.rmtree(sockets, ignore_errors=True)
    package = str(ROOT / "cardgen")
    assert package in walked["here"] and package not in walked["daemon"], walked
    assert files["daemon"] == files["here"] and files["here"]

def test_messages_survive_any_split_and_refuse_what_is_too_big() -> None:
    a, b = socket.socketpair()
    with a, b:
        sender, receiver = Channel(a), Channel(b)
        sender.send({"x": "é" * 1000})
        sender.send({"y": [1, 2]})
        assert receiver.receive() == ({"x": "é" * 1000}, [])
        assert receiver.receive() == ({"y": [1, 2]}, [])
        framed = struct.pack(">I", 8) + b'{"z": 3}'
        for byte in framed:   # one byte at a time
            a.sendall(bytes([byte]))
        assert receiver.receive() == ({"z": 3}, [])
        a.sendall(struct.pack(">I", 1 << 30))
        with pytest.raises(ProtocolError):
            receiver.receive()
    a, b = socket.socketpair()
    with a, b:
        a.sendall(struct.pack(">I", 10) + b"{}")
        a.shutdown(socket.SHUT_WR)
        with pytest.raises(ProtocolError):
            Channel(b).receive()


def _running() -> int | None:
    res = cardgen("daemon", "status")
    if res.returncode != 0:
        return None
    return int(re.search(r"(\d+) running", res.stdout).group(1))


def _wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
