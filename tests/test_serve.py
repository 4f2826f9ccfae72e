"""``cardgen serve``: the live preview over HTTP and Server-Sent Events, and in a real browser.

The browser test drives Debian's chromium through Playwright and fails (does not skip) when
either is missing: CI installs both, and a skipped test would hide a broken preview.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardgen.render import Face
from cardgen.serve import PreviewServer, scoped_svg

from .conftest import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
STRANGE = "  - {id: strange, name: Strange, particles: [s, sbar], energy_mev: 500,  rulebook_mev: 500}"
HALF_TYPED = "  - {id: strange, name: Strange, particles: [s, sb"


class EventStream:
    """A minimal SSE client: a thread reads ``event:``/``data:`` blocks into a queue."""

    def __init__(self, url: str) -> None:
        host, port = url.split("//")[1].strip("/").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=30)
        self.conn.request("GET", "/events")
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type").startswith("text/event-stream")
        self.events: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        name, data = "", ""
        try:
            for raw in self.response.fp:
                line = raw.decode("utf-8").rstrip("\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif not line and name:
                    self.events.put((name, json.loads(data)))
                    name, data = "", ""
        except (OSError, ValueError):
            pass

    def next_update(self, timeout: float = 5.0) -> dict[str, Any]:
        """The next ``update`` event, or a test failure after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                name, data = self.events.get(timeout=left)
            except queue.Empty:
                break
            if name == "update":
                return data
        pytest.fail(f"no update event within {timeout} s")

    def close(self) -> None:
        self.conn.close()


def get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode("utf-8")


@pytest.fixture
def qcd(game_copy):
    return game_copy("qcd")


@pytest.fixture
def server(qcd) -> Iterator[PreviewServer]:
    srv = PreviewServer(games_dirs=[qcd.games_dir], game="qcd", port=0, ping_seconds=0.5).start()
    yield srv
    srv.stop()


def test_page_lists_cards_and_edits_reach_the_stream(server, qcd):
    status, page = get(server.url)  # redirects to the one served game
    assert status == 200 and "QCD the Game" in page
    assert 'data-face="cards/s-red/front"' in page and 'data-face="cards/wild-w/back"' in page
    assert 'aria-label="500 MeV"' in page and 'class="sheet"' in page
    face_url = server.url + "face/qcd/cards/s-red/front.svg"
    _, before = get(face_url)
    assert before.startswith("<svg") and 'aria-label="500 MeV"' in before

    stream = EventStream(server.url)
    try:
        assert stream.events.get(timeout=5)[0] == "hello"
        qcd.edit("tables/flavours.yaml", "energy_mev: 500", "energy_mev: 600")
        event = stream.next_update()
        assert "s-red" in event["cards"] and "u-red" not in event["cards"]
        assert {"id": "cards/s-red/front"} .items() <= next(c for c in event["changed"]
                                                           if c["id"] == "cards/s-red/front").items()
        _, after = get(face_url)
        assert after != before and 'aria-label="600 MeV"' in after
    finally:
        stream.close()


def line_of(path: Path, text: str) -> int:
    """Where ``text`` is in a file (the shipped files change; the expected line must follow)."""
    content = path.read_text(encoding="utf-8")
    assert text in content, f"{text!r} not in {path}"
    return content[:content.index(text)].count("\n") + 1


def error_line(error: str | None, file_name: str) -> int:
    """The line a one-line CardgenError text points at in ``file_name`` (``path:line:col: error[...]``)."""
    match = re.search(rf"{re.escape(file_name)}:(\d+):\d+: error\[", error or "")
    assert match, f"no {file_name}:line:column in {error!r}"
    return int(match[1])


@pytest.mark.parametrize("rel, old, new", [
    ("tables/flavours.yaml", STRANGE, HALF_TYPED),
    ("templates/card-front.svg.j2", '~ " MeV",', '~ " MeV"'),
])
def test_a_broken_file_is_reported_and_the_preview_recovers(server, qcd, rel, old, new):
    line = line_of(qcd.path / rel, old)
    stream = EventStream(server.url)
    try:
        qcd.edit(rel, old, new)
        broken = stream.next_update()
        where = error_line(broken["error"], Path(rel).name)
        assert where in (line, line + 1), broken["error"]  # YAML may only notice at the next line
        assert len(broken["error"].splitlines()) == 1 and not broken["error"].startswith("internal error")
        status, page = get(server.url + "game/qcd")
        assert status == 200 and f"{Path(rel).name}:{where}:" in page and 'id="error" class="banner">' in page
        assert json.loads(get(server.url + "api/game/qcd")[1])["error"] == broken["error"]
        assert 'aria-label="500 MeV"' in get(server.url + "face/qcd/cards/s-red/front.svg")[1]  # last good face

        qcd.edit(rel, new, old)
        fixed = stream.next_update()
        assert fixed["error"] is None and fixed["version"] > broken["version"]
        status, page = get(server.url + "game/qcd")
        assert 'id="error" class="banner" hidden>' in page
    finally:
        stream.close()


def test_faces_inline_in_one_page_keep_their_ids_apart():
    svg = ('<svg><defs><clipPath id="trim"/></defs><g clip-path="url(#trim)" data-id="x">'
           '<use xlink:href="#trim"/></g></svg>')
    a, b = (scoped_svg(Face("g", "c", card, "front", "en", svg.replace("x", card), (), 1, 1)) for card in ("a", "b"))
    assert 'id="trim"' not in a and a.count(a.split('id="')[1].split('"')[0]) == 3
    assert a.split('id="')[1] != b.split('id="')[1] and 'data-id="a"' in a


def test_cli_serves_on_a_free_port_and_stops_on_ctrl_c(qcd):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "serve", "qcd", "--port", "0",
                             "--games-dir", str(qcd.games_dir)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, line + proc.stderr.read()
        url = line.split()[line.split().index("at") + 1]
        assert "QCD the Game" in get(url)[1]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


def test_browser_page_updates_the_changed_card_by_itself(server, qcd):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's browser with 'apt-get install -y chromium'")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright is not installed: pip install 'playwright>=1.40' (no 'playwright install' needed)")
    card = '.face[data-face="cards/s-red/front"]'
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(server.url + "game/qcd")
            page.wait_for_selector(f'{card} [aria-label="500 MeV"]', state="attached", timeout=10_000)
            untouched = page.inner_html('.face[data-face="cards/u-red/front"]')

            qcd.edit("tables/flavours.yaml", "energy_mev: 500", "energy_mev: 600")
            page.wait_for_selector(f'{card} [aria-label="600 MeV"]', state="attached", timeout=10_000)
            assert page.inner_html('.face[data-face="cards/u-red/front"]') == untouched
            assert page.locator("#error").is_hidden()

            qcd.edit("tables/flavours.yaml", STRANGE.replace("energy_mev: 500", "energy_mev: 600"), HALF_TYPED)
            page.wait_for_selector("#error:not([hidden])", timeout=10_000)
            assert error_line(page.inner_text("#error"), "flavours.yaml") > 0

            qcd.edit("tables/flavours.yaml", HALF_TYPED, STRANGE.replace("500", "700"))
            page.wait_for_selector(f'{card} [aria-label="700 MeV"]', state="attached", timeout=10_000)
            assert page.locator("#error").is_hidden()
        finally:
            browser.close()
