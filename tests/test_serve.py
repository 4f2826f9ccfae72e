"""``cardgen serve``: the live preview over HTTP and Server-Sent Events, and in a real browser.

The browser test drives Debian's chromium through Playwright and fails (does not skip) when
either is missing: CI installs both, and a skipped test would hide a broken preview.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import html
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cardgen.serve import FACE_POLICY, PreviewServer

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


def headers(url: str) -> dict[str, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return {k.lower(): v for k, v in response.headers.items()}


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
    assert 'class="sheet"' in page
    # faces are images of their SVG, never markup pasted into the page
    assert "<svg" not in page and "aria-label" not in page
    assert re.search(r'<div class="face" data-face="cards/s-red/front" data-key="(\w+)"[^>]*>'
                     r'<img src="/face/qcd/cards/s-red/front\.svg\?k=\1"', page)
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


def test_every_answer_forbids_script_and_sniffing(server):
    page = headers(server.url + "game/qcd")
    policy = page["content-security-policy"]
    assert re.fullmatch(r"default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+=*'; .*", policy), policy
    assert "unsafe-inline" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy and "img-src 'self'" in policy
    face = headers(server.url + "face/qcd/cards/s-red/front.svg")
    assert face["content-security-policy"] == FACE_POLICY and "script" not in FACE_POLICY
    assert FACE_POLICY.startswith("default-src 'none'") and FACE_POLICY.endswith("sandbox")
    for url in ("game/qcd", "face/qcd/cards/s-red/front.svg", "api/game/qcd"):
        assert headers(server.url + url)["x-content-type-options"] == "nosniff"
    try:
        urllib.request.urlopen(server.url + "nothing", timeout=10)
    except urllib.error.HTTPError as err:
        assert err.code == 404 and err.headers["X-Content-Type-Options"] == "nosniff"
        assert err.headers["Content-Security-Policy"].startswith("default-src 'none'")


def test_connections_are_capped_and_idle_ones_closed(qcd):
    srv = PreviewServer(games_dirs=[qcd.games_dir], game="qcd", port=0, max_connections=4, max_streams=2,
                        idle_seconds=1.0).start()
    host, port = srv.url.split("//")[1].strip("/").split(":")
    threads = threading.active_count()
    try:
        idle = [socket.create_connection((host, int(port)), timeout=5) for _ in range(30)]
        time.sleep(0.3)
        refused = 0
        for sock in idle[4:]:   # beyond the cap: a polite answer, then closed, without a thread
            answer = sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 503 ") and b"too many open connections" in answer
            refused += 1
        assert refused == 26 and threading.active_count() <= threads + 4
        for sock in idle[:4]:   # the idle ones inside the cap are let go after idle_seconds
            sock.settimeout(5)
            assert sock.recv(4096) == b""
        streams = [EventStream(srv.url) for _ in range(2)]
        try:
            with pytest.raises(urllib.error.HTTPError) as info:   # a third stream is refused, politely
                urllib.request.urlopen(srv.url + "events", timeout=5)
            assert info.value.code == 503
        finally:
            for stream in streams:
                stream.close()
        assert get(srv.url + "game/qcd")[0] == 200
        for sock in idle:
            sock.close()
    finally:
        srv.stop()


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


def test_a_ctrl_c_while_the_address_is_printed_stops_the_preview_as_any_other(qcd):
    """The preview serves from the moment it says where: a Ctrl-C that lands while the line
    is still being printed (on a busy machine a browser, or a test, can have its page by then)
    stops it as one while it waits does ("stopped", exit 0), not as a command interrupted."""
    from cardgen.serve import serve

    said: list[str] = []
    urls: list[str] = []

    def echo(line: str) -> None:
        said.append(line)
        if "preview at" in line:
            urls.append(line.split()[line.split().index("at") + 1])
            assert "QCD the Game" in get(urls[0])[1]   # already serving
            raise KeyboardInterrupt

    serve([qcd.games_dir], "qcd", 0, "en", echo=echo)
    assert said[-1] == "cardgen: stopped"
    with pytest.raises(OSError):   # and it stopped serving
        urllib.request.urlopen(urls[0], timeout=5)


def test_browser_page_updates_the_changed_card_by_itself(server, qcd):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's browser with 'apt-get install -y chromium'")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright is not installed: pip install 'playwright>=1.40' (no 'playwright install' needed)")
    card = '.face[data-face="cards/s-red/front"]'

    def shown(page) -> str:
        """The SVG behind the image the page shows for s-red (once it has loaded)."""
        page.wait_for_function(f"() => document.querySelector('{card} img')?.complete", timeout=10_000)
        return get(page.eval_on_selector(f"{card} img", "img => img.src"))[1]

    def shows(page, text: str) -> None:
        deadline = time.monotonic() + 10
        while text not in shown(page):
            assert time.monotonic() < deadline, f"the page never showed {text!r}"
            time.sleep(0.1)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(server.url + "game/qcd")
            shows(page, 'aria-label="500 MeV"')
            untouched = page.inner_html('.face[data-face="cards/u-red/front"]')
            assert page.eval_on_selector(f"{card} img", "img => img.naturalWidth") > 0

            qcd.edit("tables/flavours.yaml", "energy_mev: 500", "energy_mev: 600")
            shows(page, 'aria-label="600 MeV"')
            assert page.inner_html('.face[data-face="cards/u-red/front"]') == untouched
            page.wait_for_selector("#error", state="hidden", timeout=10_000)

            qcd.edit("tables/flavours.yaml", STRANGE.replace("energy_mev: 500", "energy_mev: 600"), HALF_TYPED)
            page.wait_for_selector("#error:not([hidden])", timeout=10_000)
            assert error_line(page.inner_text("#error"), "flavours.yaml") > 0

            qcd.edit("tables/flavours.yaml", HALF_TYPED, STRANGE.replace("500", "700"))
            shows(page, 'aria-label="700 MeV"')   # the server has it: the page follows its event
            page.wait_for_selector("#error", state="hidden", timeout=10_000)
        finally:
            browser.close()


#: Markup a template could write to run script in whoever views it.
HOSTILE = ('<script>top.marker = "script"; parent.marker = "script"</script>'
           '<image href="data:," width="1" height="1" onerror="top.marker = \'onerror\'"/>'
           '<svg onload="top.marker = \'onload\'"><rect width="1" height="1"/></svg>'
           '<a href="javascript:top.marker = \'href\'"><rect id="hostile-link" width="60" height="80" '
           'fill-opacity="0.01"/></a>'
           '<foreignObject width="10" height="10"><iframe xmlns="http://www.w3.org/1999/xhtml" '
           'src="javascript:top.marker = \'iframe\'"></iframe></foreignObject>')


def test_browser_runs_no_markup_a_template_writes(server, qcd):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's browser with 'apt-get install -y chromium'")
    from playwright.sync_api import sync_playwright

    qcd.edit("templates/card-front.svg.j2", "{% block artwork %}", "{% block artwork %}" + HOSTILE)
    card = '.face[data-face="cards/s-red/front"]'
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(server.url + "game/qcd")
            page.wait_for_function(f"() => document.querySelector('{card} img')?.naturalWidth > 0", timeout=20_000)
            src = page.eval_on_selector(f"{card} img", "img => img.src")
            assert "<script>" in get(src)[1]            # the face does carry the markup...
            page.click(f"{card} img")                    # ...and clicking it follows none of its links:
            page.wait_for_url("**/card/**", timeout=10_000)   # only the page's own, to the card's page
            time.sleep(0.5)
            assert page.evaluate("window.marker") is None and page.url == server.url + "game/qcd/card/cards/s-red"
            assert page.evaluate("document.querySelectorAll('script').length") == 1   # the page's own

            page.goto(src)                               # the face opened by itself: its policy forbids script
            time.sleep(0.5)
            assert page.evaluate("window.marker") is None
        finally:
            browser.close()


BLOCK_MATRIX = """  - matrix:
      particle: [u, d, s, c]
      colour:
        - red
        - green
        - blue
"""


def test_each_card_a_matrix_makes_carries_its_own_origin(qcd):
    """A matrix's cards share its entry; each names the axis values that made it, so a designer
    finds the line that made *this* card (and a finding about it is told apart from its siblings)."""
    cards = qcd.path / "components/cards.yaml"
    entry = line_of(cards, "  - matrix: {particle: [u, d, s, c]")
    text = cards.read_text(encoding="utf-8").splitlines()[entry - 1]

    def col(token: str) -> int:
        return text.index(token) + 1

    deck = qcd.load().components["cards"]
    where = f"{deck.card('u-red').location.file}:{entry}"
    assert deck.card("u-red").origin == (f"{where}:5 (matrix: particle u at {entry}:{col('u,')}, "
                                         f"colour red at {entry}:{col('red')})")
    assert deck.card("d-green").origin == (f"{where}:5 (matrix: particle d at {entry}:{col('d,')}, "
                                           f"colour green at {entry}:{col('green')})")
    assert deck.card("wild-w").origin == str(deck.card("wild-w").location)   # written out: its own entry
    assert deck.card("wild-w").matrix == () and deck.card("s-blue").matrix == ("particle", "colour")

    qcd.edit("components/cards.yaml", "  - matrix: {particle: [u, d, s, c], colour: [red, green, blue]}\n",
             BLOCK_MATRIX)
    deck = qcd.load().components["cards"]
    green = line_of(cards, "        - green")
    assert deck.card("u-green").origin == (f"{where}:5 (matrix: particle u at {entry + 1}:18, "
                                           f"colour green at {green}:11)")
    assert deck.card("c-blue").origin.endswith(f"colour blue at {green + 1}:11)")
    assert len({card.origin for card in deck.cards}) == len(deck.cards)


# --- the index and a card's page ----------------------------------------------------------------

def with_catalog(game, lang: str) -> Path:
    """Give a copied game its shipped catalog for ``lang`` (a designer's game keeps its own)."""
    po = game.path / "locale" / lang / "LC_MESSAGES" / f"{game.path.name}.po"
    po.parent.mkdir(parents=True)
    shutil.copy(ROOT / "data" / "locale" / lang / "LC_MESSAGES" / po.name, po)
    return po


@pytest.fixture
def two_games(game_copy):
    """qcd with its German catalog, and particles-in-circle in English only."""
    qcd, pic = game_copy("qcd"), game_copy("particles-in-circle")
    with_catalog(qcd, "de")
    return qcd, pic


def component_line(page: str, gid: str, cid: str) -> str:
    """One component's line in one game's part of the index, as text."""
    section = re.search(rf'<section class="game" data-game="{gid}">(.*?)</section>', page)
    assert section, f"game {gid} not on the index"
    match = re.search(rf'<li data-component="{cid}">(.*?)</li>', section[1])
    assert match, f"component {cid} not on the index"
    return re.sub(r"<[^>]+>", "", match[1])


def test_index_shows_games_components_languages_and_each_check(two_games):
    qcd, pic = two_games
    po = qcd.path / "locale/de/LC_MESSAGES/qcd.po"
    untranslated = line_of(po, 'msgid "Wild card"')
    qcd.edit("locale/de/LC_MESSAGES/qcd.po", 'msgid "Wild card"\nmsgstr "Joker"', 'msgid "Wild card"\nmsgstr ""')
    deck = qcd.load().components["cards"]
    srv = PreviewServer(games_dirs=[qcd.games_dir], port=0).start()
    try:
        status, page = get(srv.url)
        assert status == 200
        assert re.search(r'<h2><a href="/game/qcd">QCD the Game</a> <small>qcd</small></h2>', page)
        assert '<a href="/game/particles-in-circle">Particles in Circle</a>' in page
        assert component_line(page, "qcd", "cards") == f"QCD deck cards · card: 52 cards, {len(deck.cards)} designs"
        assert sum(c.count for c in deck.cards) == 52 and len(deck.cards) == 25
        circle = pic.load().components["cards"]
        assert component_line(page, "particles-in-circle", "cards") == (
            f"Particle cards cards · card: {sum(c.count for c in circle.cards)} cards, {len(circle.cards)} designs")
        rows = re.findall(r'<tr data-lang="(\w+)"><th scope="row">\1</th><td class="status (\w+)">'
                          r'<a href="([^"]+)">([^<]+)</a>', page)
        assert rows == [("en", "ok", "/game/particles-in-circle#report", "pass"),   # games in folder order
                        ("en", "ok", "/game/qcd#report", "pass"),
                        ("de", "warning", "/game/qcd?lang=de#report", "1 finding")]

        _, german = get(srv.url + "game/qcd?lang=de")   # where the index's link leads: that language's report
        assert (f"qcd.po:{untranslated}:1: warning[untranslated]: [de] no translation for &#x27;Wild card&#x27;"
                in german)
        assert "1 warning to look at" in german and "QCD-Kartendeck" in german
        assert '<strong lang="de" aria-current="page">de</strong>' in german
        assert 'href="/game/qcd/card/cards/u-red?lang=de"' in german
        assert re.search(r'<img src="/face/qcd/cards/u-red/front\.svg\?k=\w+&amp;lang=de"', german)
        for missing in ("game/qcd?lang=fr", "game/particles-in-circle?lang=de", "game/qcd/card/cards/x-red",
                        "game/qcd/card/nothing/u-red", "game/qcd/card/cards/u-red?side=edge",
                        "face/qcd/cards/u-red/front.svg?lang=xx"):
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(srv.url + missing, timeout=10)
            assert info.value.code == 404, missing
        with pytest.raises(urllib.error.HTTPError) as info:   # a page asks for three parameters at most
            urllib.request.urlopen(srv.url + "game/qcd?" + "&".join(f"p{i}=1" for i in range(9)), timeout=10)
        assert info.value.code == 400
    finally:
        srv.stop()


def test_card_page_draws_outlines_from_the_data_and_names_the_cards_own_source(two_games):
    qcd, _ = two_games
    deck = qcd.load().components["cards"]
    srv = PreviewServer(games_dirs=[qcd.games_dir], game="qcd", port=0).start()
    try:
        status, page = get(srv.url + "game/qcd/card/cards/u-red?side=back")
        assert status == 200 and '<h1 id="title">QCD the Game — QCD deck: u-red</h1>' in page
        assert f"<code>{html.escape(deck.card('u-red').origin)}</code>" in page
        scale = float(re.search(r'data-px-per-mm="([\d.]+)"', page)[1])
        assert scale == int(720 / 94 * 1000) / 1000              # the 94 mm bleed box fills 720 px
        assert re.search(rf'<img id="face" data-face="cards/u-red/back" data-key="\w+" alt="cards/u-red/back" '
                         rf'src="/face/qcd/cards/u-red/back\.svg\?k=\w+" width="{69 * scale:.3f}" '
                         rf'height="{94 * scale:.3f}">', page)
        assert 'viewBox="-3 -3 69 94"' in page and '<rect id="overlay-safe" class="safe" x="4" y="4" width="55" ' \
               'height="80"/>' in page
        assert '<path id="overlay-trim" class="trim" d="M3 0H60A3 3 0 0 1 63 3V85' in page
        assert "Show the front" in page and '<span id="side">back</span>' in page
        german = get(srv.url + "game/qcd/card/cards/u-red?lang=de")[1]
        assert '<h1 id="title">QCD the Game — QCD-Kartendeck: u-red</h1>' in german
        assert 'href="/game/qcd/card/cards/u-red?lang=en&amp;side=front" hreflang="en"' in german
    finally:
        srv.stop()


def test_browser_index_and_card_page(two_games):
    """One browser session: the index, a click to a card, its large view and outlines measured
    against the data in mm, the flip, the language switch and each card's own source."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's browser with 'apt-get install -y chromium'")
    from playwright.sync_api import sync_playwright

    qcd, _ = two_games
    deck = qcd.load().components["cards"]
    w, h, b, s = deck.width, deck.height, deck.bleed, deck.safe
    srv = PreviewServer(games_dirs=[qcd.games_dir], port=0, ping_seconds=0.5).start()
    # a function, not an expression: Playwright evaluates a function's text once and calls it at
    # each poll, but an expression again at each poll, which the page's policy forbids (no
    # 'unsafe-eval'): an image not loaded at the first look failed the test on a loaded machine
    loaded = "() => { const img = document.getElementById('face'); return img.complete && img.naturalWidth > 0; }"

    def box(page, selector: str) -> dict[str, float]:
        return page.eval_on_selector(selector, "el => { const r = el.getBoundingClientRect(); "
                                               "return {x: r.x, y: r.y, w: r.width, h: r.height}; }")

    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page()
                page.goto(srv.url)
                games = page.inner_text("body")
                assert "QCD the Game qcd" in games and "Particles in Circle particles-in-circle" in games
                assert page.inner_text('section[data-game="qcd"] li[data-component="cards"]') == \
                    "QCD deck cards · card: 52 cards, 25 designs"
                assert page.inner_text('section[data-game="qcd"] tr[data-lang="de"]') == "de\tpass"
                assert page.inner_text('section[data-game="qcd"] tr[data-lang="en"]') == "en\tpass"
                assert page.locator('section[data-game="particles-in-circle"] tr[data-lang]').count() == 1

                page.click("text=QCD the Game")
                page.wait_for_url("**/game/qcd")
                page.click('.card[data-card="u-red"] .face[data-face="cards/u-red/front"] img')
                page.wait_for_url("**/game/qcd/card/cards/u-red")
                page.wait_for_function(loaded, timeout=10_000)
                assert page.inner_text("#title") == "QCD the Game — QCD deck: u-red"

                scale = float(page.get_attribute("#large", "data-px-per-mm"))
                face = box(page, "#face")
                assert face["w"] == pytest.approx((w + 2 * b) * scale, abs=0.5)
                assert face["h"] == pytest.approx((h + 2 * b) * scale, abs=0.5)
                expected = {"bleed": (0, 0, w + 2 * b, h + 2 * b), "trim": (b, b, w, h),
                            "safe": (b + s, b + s, w - 2 * s, h - 2 * s)}
                for name, mm in expected.items():
                    shape, switch = f"#overlay-{name}", f'input[data-overlay="{name}"]'
                    assert page.is_visible(shape)
                    page.uncheck(switch)
                    assert page.is_hidden(shape)
                    page.check(switch)
                    assert page.is_visible(shape)
                    got = box(page, shape)
                    px = (got["x"] - face["x"], got["y"] - face["y"], got["w"], got["h"])
                    assert px == pytest.approx(tuple(v * scale for v in mm), abs=0.5), name

                front = page.get_attribute("#face", "src")
                page.click("#flip")
                page.wait_for_function(loaded, timeout=10_000)
                back = page.get_attribute("#face", "src")
                assert back != front and "/face/qcd/cards/u-red/back.svg?k=" in back
                assert page.inner_text("#side") == "back" and page.inner_text("#flip") == "Show the front"

                page.click('nav.languages a[hreflang="de"]')
                page.wait_for_url("**/game/qcd/card/cards/u-red?lang=de&side=back")
                page.wait_for_function(loaded, timeout=10_000)
                assert page.inner_text("#title") == "QCD the Game — QCD-Kartendeck: u-red"
                assert page.get_attribute("#face", "src").endswith("&lang=de") and "/back.svg" in back

                sources = {}
                for card in ("u-red", "d-green"):
                    page.goto(srv.url + f"game/qcd/card/cards/{card}?lang=de")
                    sources[card] = page.inner_text("#source")
                    assert sources[card] == f"Defined at {deck.card(card).origin}"
                assert sources["u-red"] != sources["d-green"]
            finally:
                browser.close()
    finally:
        srv.stop()


def test_the_preview_finds_what_check_finds_on_the_faces_it_shows(game_copy):
    """Text too faint and too small: `cardgen check` failed the deck, while the preview listed
    no finding and its proof report said the legibility rules were "not measured"."""
    import cardgen
    from cardgen.serve import PreviewState

    g = game_copy("qcd")
    g.edit("templates/card-front.svg.j2", "{% block artwork %}",
           '{% block artwork %}<rect x="5" y="40" width="50" height="10" fill="#4d4d4d"/>'
           '{{ text("faint", 6, 41, size=3, width=40, height=6, fill="#555555") }}'
           '{{ text("tiny", 6, 60, size=1.2, width=20, height=3, fill="#000000") }}')
    checked = sorted(str(f) for f in cardgen.check(g.load()).findings)
    assert checked and any("text-contrast" in f for f in checked) and any("text-size" in f for f in checked)
    snap = PreviewState([g.games_dir]).snapshot("qcd")
    assert sorted(text for _severity, text in snap.findings) == checked
    assert "Is this deck right? No" in snap.report.verdict
    assert "not measured" not in repr(snap.report)
