"""``cardgen serve``: a live preview for designers.

A local web page shows every card of a game as an image (``<img>`` of the face's SVG: a
browser never runs script in an SVG loaded as an image, so nothing a game's templates wrote
can run in the designer's browser), a sheet preview per component and the checker's findings;
an index lists the games with their components and each language's check, and each card has
a page of its own (the pages are built in :mod:`cardgen.serve_pages`). A watcher re-loads and
re-renders a game, in each language viewed, whenever one of its files (YAML, templates,
fonts, catalogs) changes, compares each face's content hash with the last render and pushes
the ids of the faces that changed over Server-Sent Events; the page then fetches only those
faces. Errors in half-typed files are shown in a banner instead of stopping
the server, and the page recovers by itself once the file is fixed.

Only the standard library serves HTTP (no framework to install), and only on 127.0.0.1. Every
answer carries a strict Content-Security-Policy (the page's own script is the only script
allowed), connections are capped and idle or slow ones closed.

This module is the server and the state it keeps (snapshots per game and language, the
watcher, the event hub); the HTML is in :mod:`cardgen.serve_pages`. It stays over 400
lines because the state and the requests that read it change together.
"""

from __future__ import annotations

import hashlib
import json
import queue
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from .check import check
from .errors import CardgenError, InputError, Report, did_you_mean
from .fitcheck import rendering_findings
from .build.plan import card_geometry
from .i18n import SOURCE_LANG, available_languages, translator
from .imposition import GridPlan, ImpositionError, plan_grid
from .loader import (
    DATA_DIR,
    SHIPPED_GAMES,
    SHARED_TEMPLATES,
    SHIPPED_TEMPLATES,
    GameSource,
    discover_games,
    load_game,
)
from .model import Game
from .paper import parse_paper
from .proof import Proof
from .proofreport import Section, sections, verdict
from .render import Face, Rendered as RenderResult, Renderer
from .rendercheck import RULE as RENDER_RULE, Rendered, claim
from .serve_pages import (
    DATA_POLICY,
    FACE_POLICY,
    SHEET_PAPER,
    card_html,
    face_id,
    game_html,
    index_html,
    page_policy,
)
from .text import TextEngine
from .text.fonts import BOLD_CHAIN, FONT_DIR, REGULAR_CHAIN, FontChain

HOST = "127.0.0.1"
PING_SECONDS = 15.0
WATCH_STEP_MS = 30        # quiet time that ends a batch of file changes: low, so edits show at once
MAX_CONNECTIONS = 64      # open connections at once; more are answered 503 and closed
MAX_STREAMS = 16          # of which live-refresh event streams (a few browser tabs)
IDLE_SECONDS = 15.0       # a connection that sends or takes nothing this long is closed
MAX_QUERY_FIELDS = 8      # ?lang=..&side=..&k=..: a page asks for no more


# --- state ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    """The last good render of one game, and what is wrong with it now.

    Faces are kept from the last render that worked, so a broken file leaves the cards on the
    page as they were (with the error above them) rather than blanking them.
    """

    game: str
    name: str = ""                                            # translated into ``lang``
    version: int = 0
    faces: dict[str, Face] = field(default_factory=dict)      # "component/card/side" -> face
    outline: tuple[ComponentOutline, ...] = ()                # what the page is laid out from
    findings: tuple[tuple[str, str], ...] = ()                # (severity, one-line text)
    error: str | None = None
    locations: dict[str, str] = field(default_factory=dict)   # "component/card" -> where it is defined
    report: ProofReport | None = None                         # the proof report of the last good render
    lang: str = SOURCE_LANG
    languages: tuple[str, ...] = ()                           # every language the game has a catalog for
    primary: bool = True                                      # in the language the server was started with

    @property
    def outline_key(self) -> str:
        """Changes when cards or components are added, removed or resized: the page re-lays itself out."""
        return hashlib.sha256(repr(self.outline).encode("utf-8")).hexdigest()[:16]

    def keys(self) -> dict[str, str]:
        return {fid: face.key for fid, face in self.faces.items()}

    def component(self, cid: str) -> ComponentOutline | None:
        return next((c for c in self.outline if c.id == cid), None)

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "lang": self.lang, "version": self.version, "error": self.error,
                "outline": self.outline_key,
                "findings": [{"severity": s, "text": t} for s, t in self.findings], "faces": self.keys(),
                "report": self.report.as_json() if self.report else None}


@dataclass(frozen=True)
class ProofReport:
    """One game's proof report as the page shows it (see :mod:`cardgen.proofreport`): the
    verdict, then what was checked, chosen, assumed and found wrong."""

    verdict: str
    sections: tuple[Section, ...]

    @classmethod
    def of(cls, report: Report, game: str) -> ProofReport:
        return cls(verdict(report, game), tuple(sections(report, game)))

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "sections": [
            {"title": sec.title, "empty": sec.empty,
             "items": [{"kind": i.kind, "text": i.text, "where": i.where} for i in sec.items]}
            for sec in self.sections]}


def view_key(game: str, lang: str) -> str:
    """One game in one language, as versions and events name it (ids and codes hold no '/')."""
    return f"{game}/{lang}"


@dataclass(frozen=True)
class ComponentOutline:
    """One component as the page lays it out; when this changes the page reloads instead of
    swapping faces."""

    id: str
    name: str                            # translated
    kind: str
    width: float                         # trim size, mm
    height: float
    bleed: float
    safe: float                          # margin inside the trim that text and symbols keep clear of
    cut: str                             # the cut line as SVG path data, mm from the trim's top-left
    sides: tuple[str, ...]
    cards: tuple[tuple[str, int], ...]   # (card id, copies)
    sheet: GridPlan | None               # the first sheet of a default build; None when tiled

    @property
    def copies(self) -> int:
        return sum(count for _, count in self.cards)


def _outline(game: Game, translate: Callable[[str, str], str]) -> tuple[ComponentOutline, ...]:
    paper = parse_paper(SHEET_PAPER)
    out = []
    for c in game.components.values():
        geometry = card_geometry(c)
        try:
            sheet = plan_grid(paper.width, paper.height, geometry, paper_label=paper.label, count=c.total)
        except ImpositionError:
            sheet = None
        out.append(ComponentOutline(c.id, translate(c.name, "component"), c.kind, c.width, c.height, c.bleed,
                                    c.safe, geometry.cut_path, c.sides,
                                    tuple((card.id, card.count) for card in c.cards), sheet))
    return tuple(out)


class PreviewState:
    """Which games are served and their latest snapshots, one per game and language; safe to
    use from several threads.

    A game is rendered in a language on first view and from then on re-rendered after each
    change to its files. Snapshots are bounded by the games served times the languages they
    have catalogs for (a language without one is refused before anything is rendered).
    """

    def __init__(self, games_dirs: Iterable[Path] = (), game: str | None = None, lang: str = "en") -> None:
        self.games_dirs = tuple(Path(d) for d in games_dirs)
        self.only = game
        self.lang = lang
        self.engine = TextEngine.default()
        self.discovery_error: str | None = None
        self._lock = threading.RLock()
        self._snapshots: dict[tuple[str, str], Snapshot] = {}
        self._sources: dict[str, GameSource] = {}
        self.discover()
        if game is not None and game not in self._sources:
            raise InputError(f"unknown game '{game}'{did_you_mean(game, self._sources)}", None,
                             f"use one of: {', '.join(self._sources) or '(none found)'}")

    # -- games -------------------------------------------------------------------------------

    def discover(self) -> bool:
        """Find the served games again; True when the list changed (a game folder came or went).

        With ``--games-dir`` only those games are served: a designer's copy of a shipped game
        keeps its id, and showing both would be a clash rather than a help."""
        try:
            found = discover_games(self.games_dirs, include_shipped=not self.games_dirs)
            error = None
        except CardgenError as exc:
            found, error = self._sources, str(exc)
        if self.only is not None:
            found = {gid: src for gid, src in found.items() if gid == self.only}
        with self._lock:
            changed = list(found) != list(self._sources) or error != self.discovery_error
            self._sources, self.discovery_error = dict(found), error
        return changed

    @property
    def game_ids(self) -> list[str]:
        return list(self._sources)

    def watch_paths(self) -> list[Path]:
        """Every folder whose files can change a served card."""
        roots = [*self.games_dirs, DATA_DIR, SHIPPED_TEMPLATES, SHARED_TEMPLATES, FONT_DIR]
        roots += [src.templates_dir for src in self._sources.values()]
        existing = sorted({p.resolve() for p in roots if p.is_dir()})
        return [p for p in existing if not any(q != p and q in p.parents for q in existing)]

    def snapshot(self, gid: str, lang: str | None = None) -> Snapshot | None:
        """The game's latest snapshot in ``lang`` (default: the server's language), rendering
        it now if nobody has looked at it yet; None for a game not served, or a language the
        game has no catalog for."""
        with self._lock:
            if gid not in self._sources:
                return None
            if lang is None or lang == self.lang:
                return self._cached(gid, self.lang)
            if lang not in self._cached(gid, self.lang).languages:
                return None
            return self._cached(gid, lang)

    def _cached(self, gid: str, lang: str) -> Snapshot:
        key = (gid, lang)
        if key not in self._snapshots:
            self._snapshots[key] = self._render(gid, Snapshot(gid, lang=lang, primary=lang == self.lang))
        return self._snapshots[key]

    # -- changes -----------------------------------------------------------------------------

    def affected(self, paths: Iterable[Path]) -> list[tuple[str, str]]:
        """The rendered (game, language) snapshots a batch of changed files can affect.

        A file of one game affects that game; shared templates, fonts, particle data and
        catalogs affect them all (re-rendering costs a fraction of a second per game)."""
        paths = [p.resolve() for p in paths]
        if any(_under(p, FONT_DIR) for p in paths):
            self.engine = TextEngine(FontChain({"regular": REGULAR_CHAIN, "bold": BOLD_CHAIN}))
        shared = any(_under(p, SHARED_TEMPLATES) or _under(p, FONT_DIR) or
                     (_under(p, DATA_DIR) and not _under(p, SHIPPED_GAMES)) for p in paths)
        with self._lock:
            sources = {key: self._sources.get(key[0]) for key in self._snapshots}
        return [key for key, src in sources.items()
                if shared or src is None or any(_under(p, src.data_dir) or _under(p, src.templates_dir) for p in paths)]

    def versions(self) -> dict[str, int]:
        """Version of each rendered game and language (by :func:`view_key`): a page that
        reconnects compares its own with them."""
        with self._lock:
            return {view_key(*key): snap.version for key, snap in self._snapshots.items()}

    def refresh(self, key: tuple[str, str]) -> tuple[Snapshot, Snapshot] | None:
        """Re-render one game in one language; (before, after), or None when it was never rendered."""
        gid = key[0]
        with self._lock:
            before = self._snapshots.get(key)
            if before is None:
                return None
            if gid not in self._sources:
                after = replace(before, error=f"game '{gid}' is no longer in the games folder")
            else:
                after = self._render(gid, before)
            if after != before:
                after = replace(after, version=before.version + 1)
            self._snapshots[key] = after
            return before, after

    def _render(self, gid: str, last: Snapshot) -> Snapshot:
        """Load, check and render a game in the snapshot's language; on any error keep the
        last good faces and say why."""
        lang = last.lang
        languages = last.languages
        try:
            game = load_game(self._sources[gid].data_dir)
            languages = tuple(available_languages(game))
            tr = translator(game, lang)
            renderer = Renderer(game, lang, translate=tr, engine=self.engine)
            results = [r for comp in game.components.values() for r in renderer.faces(comp)]
            faces = {face_id(r.face.component, r.face.card, r.face.side): r.face for r in results}
            report = check(game, render=False)   # the faces were just rendered, above
            _measure(report, game, results)
            proof = _report_with_render(report, game, renderer, results)
            findings = tuple(("warning" if f.severity != "error" else "error", str(f))
                             for f in report.findings)   # the rules', then the rendering's
            translate = tr or (lambda text, context=None: text)
            outline = _outline(game, translate)
        except CardgenError as exc:
            return replace(last, error=str(exc), languages=languages)
        except Exception as exc:  # noqa: BLE001 a bug must not take the preview down while the designer types
            return replace(last, error=f"internal error: {type(exc).__name__}: {exc}", languages=languages)
        locations = {f"{comp.id}/{card.id}": card.origin for comp in game.components.values() for card in comp.cards}
        return Snapshot(gid, translate(game.name, "game"), last.version, faces, outline, findings, None,
                        locations, proof, lang, languages, last.primary)


#: Printed texts by face key (a face's key is its content): what the preview measured so far.
_MEASURED: dict[str, tuple] = {}
_MEASURED_LIMIT = 20_000


def _measure(report: Report, game: Game, faces: list[RenderResult]) -> None:
    """The rules that read what faces print (text size and place, contrast, turned indices),
    run on the faces the preview just rendered: the rules alone leave them "not measured", and
    the preview said "pass" of a deck ``cardgen check`` fails. Each distinct face is measured
    once, as a check measures it."""
    from .check import measuring_records
    from .legibility import FaceRef, FaceTally, printed_texts
    from .model import MEASURING_RULES

    def texts(face: Face) -> tuple:
        if face.key not in _MEASURED:   # measured once while the preview runs: an edit measures what it changed
            if len(_MEASURED) >= _MEASURED_LIMIT:
                _MEASURED.clear()
            _MEASURED[face.key] = tuple(printed_texts(face))
        return _MEASURED[face.key]

    tally = FaceTally()
    for r in faces:
        tally.add(FaceRef.of(r.face), lambda face=r.face: texts(face))
    findings, proofs, _choices = measuring_records(game, tally.faces())
    report.proofs = [p for p in report.proofs if p.rule not in MEASURING_RULES] + proofs
    report.extend(findings)


def _report_with_render(report: Report, game: Game, renderer: Renderer, faces: list[RenderResult]) -> ProofReport:
    """The proof report of a game, with what the preview's rendering of its faces proved
    (the preview renders and shows them; it does not draw them as print would)."""
    found = rendering_findings(game, renderer.lang, [i for r in faces for i in r.issues],
                               [w for r in faces for w in r.wraps], renderer.translate, [])   # type: ignore[arg-type]
    drawings = len({r.face.key for r in faces})
    report.extend(found)
    report.rendered.append(Rendered(game.id, renderer.lang, len(faces), drawings))
    report.proofs.append(Proof(RENDER_RULE, claim(renderer.lang, len(faces), drawings, 0, found, drawn=False),
                               len(faces), game.id, game.location))
    return ProofReport.of(report, game.id)


def _under(path: Path, root: Path) -> bool:
    root = root.resolve()
    return path == root or root in path.parents


def change_event(before: Snapshot, after: Snapshot) -> dict[str, Any] | None:
    """What the page needs to catch up: the faces whose content hash changed, the error and
    findings; None when nothing it shows changed."""
    if after.version == before.version:
        return None
    old = before.keys()
    changed = [{"id": fid, "key": key} for fid, key in after.keys().items() if old.get(fid) != key]
    return {"game": after.game, "lang": after.lang, "version": after.version, "outline": after.outline_key,
            "error": after.error,
            "findings": [{"severity": s, "text": t} for s, t in after.findings], "changed": changed,
            "cards": sorted({c["id"].split("/")[1] for c in changed}),
            "report": after.report.as_json() if after.report else None}


# --- events -------------------------------------------------------------------------------------

class EventHub:
    """Fans events out to every open Server-Sent Events stream (one queue per client)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: set[queue.Queue[str | None]] = set()

    def subscribe(self) -> queue.Queue[str | None]:
        q: queue.Queue[str | None] = queue.Queue()
        with self._lock:
            self._queues.add(q)
        return q

    def unsubscribe(self, q: queue.Queue[str | None]) -> None:
        with self._lock:
            self._queues.discard(q)

    def publish(self, event: str, data: dict[str, Any]) -> None:
        message = sse_message(event, data)
        with self._lock:
            for q in self._queues:
                q.put(message)

    def close(self) -> None:
        """End every stream (the server is stopping)."""
        with self._lock:
            for q in self._queues:
                q.put(None)


def sse_message(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


# --- HTTP -------------------------------------------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    """Routes: ``/`` index, ``/game/ID`` page, ``/game/ID/card/COMPONENT/CARD`` one card
    (``?side=back``), ``/face/ID/COMPONENT/CARD/SIDE.svg``, ``/api/game/ID`` (JSON state),
    ``/events`` (Server-Sent Events). A game's pages, faces and state take ``?lang=CODE``, one
    of the languages the game has a catalog for."""

    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    timeout = IDLE_SECONDS   # per read or write: an idle keep-alive or a slow client is let go

    def do_GET(self) -> None:
        try:
            self._route()
        except OSError:  # the browser went away mid-answer
            pass
        except Exception as exc:  # noqa: BLE001 a bug in a page must not leave the browser with an empty answer
            message = f"cardgen: internal error: {type(exc).__name__}: {exc} (please report it)"
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", message.encode("utf-8"))

    def _route(self) -> None:
        if not self._host_ok():
            return self._send(HTTPStatus.FORBIDDEN, "text/plain", b"only localhost may use the preview")
        url = urlsplit(self.path)
        parts = [unquote(p) for p in url.path.strip("/").split("/")] if url.path != "/" else []
        try:
            query = dict(parse_qsl(url.query, max_num_fields=MAX_QUERY_FIELDS))
        except ValueError:
            return self._send(HTTPStatus.BAD_REQUEST, "text/plain", b"too many query parameters")
        state = self.server.preview.state
        lang = query.get("lang")
        if not parts:
            if state.only is not None:
                return self._redirect(f"/game/{quote(state.only)}")
            return self._html(index_html(state))
        if parts == ["events"]:
            return self._events()
        if len(parts) in (2, 5) and parts[0] == "game":
            snap = state.snapshot(parts[1], lang)
            if snap is None:
                return self._not_found()
            if len(parts) == 2:
                return self._html(game_html(snap))
            return self._card(snap, parts[2:], query.get("side", "front"))
        if len(parts) == 3 and parts[:2] == ["api", "game"]:
            snap = state.snapshot(parts[2], lang)
            return self._json(snap.as_json()) if snap else self._not_found()
        if len(parts) == 5 and parts[0] == "face" and parts[4].endswith(".svg"):
            return self._face(parts[1], face_id(parts[2], parts[3], parts[4][:-4]), lang)
        return self._not_found()

    def _card(self, snap: Snapshot, parts: list[str], side: str) -> None:
        """``card/COMPONENT/CARD``: one card's page, if the game has it (and that side)."""
        kind, component, card = parts
        comp = snap.component(component)
        if kind != "card" or comp is None or card not in dict(comp.cards) or side not in comp.sides:
            return self._not_found()
        self._html(card_html(snap, comp, card, side))

    def _host_ok(self) -> bool:
        """Refuse other Host names: a web page elsewhere cannot read the preview by DNS rebinding."""
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        return host in ("127.0.0.1", "localhost", "")

    def _face(self, gid: str, fid: str, lang: str | None) -> None:
        snap = self.server.preview.state.snapshot(gid, lang)
        face = snap.faces.get(fid) if snap else None
        if face is None:
            return self._not_found()
        self._send(HTTPStatus.OK, "image/svg+xml; charset=utf-8", face.svg.encode("utf-8"),
                   {"X-Face-Key": face.key, "Content-Security-Policy": FACE_POLICY})

    def _events(self) -> None:
        """A long-lived event stream: ``hello`` with every game's version, then ``update``s,
        with ``: ping`` comments in between so proxies and browsers keep it open."""
        preview = self.server.preview
        if not self.server.streams.acquire(blocking=False):
            self.close_connection = True
            return self._send(HTTPStatus.SERVICE_UNAVAILABLE, "text/plain; charset=utf-8",
                              b"too many live-refresh streams are open; close some preview tabs", {"Retry-After": "5"})
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "keep-alive")
        self._security_headers(DATA_POLICY)
        self.end_headers()
        self.close_connection = True
        q = preview.hub.subscribe()
        try:
            self._write(sse_message("hello", {"versions": preview.state.versions()}))
            while True:
                try:
                    message = q.get(timeout=preview.ping_seconds)
                except queue.Empty:
                    message = ": ping\n\n"
                if message is None:
                    break
                self._write(message)
        except OSError:  # the page was closed or reloaded, or stopped reading
            pass
        finally:
            preview.hub.unsubscribe(q)
            self.server.streams.release()

    def _write(self, text: str) -> None:
        self.wfile.write(text.encode("utf-8"))
        self.wfile.flush()

    def _html(self, text: str) -> None:
        self._send(HTTPStatus.OK, "text/html; charset=utf-8", text.encode("utf-8"),
                   {"Content-Security-Policy": self.server.page_policy})

    def _json(self, data: dict[str, Any]) -> None:
        self._send(HTTPStatus.OK, "application/json", json.dumps(data, ensure_ascii=False).encode("utf-8"))

    def _redirect(self, location: str) -> None:
        self._send(HTTPStatus.FOUND, "text/plain", b"", {"Location": location})

    def _not_found(self) -> None:
        self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found")

    def _send(self, status: HTTPStatus, content_type: str, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        headers = dict(headers or {})
        self._security_headers(headers.pop("Content-Security-Policy", DATA_POLICY))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _security_headers(self, policy: str) -> None:
        self.send_header("Content-Security-Policy", policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a page load is dozens of requests, and the terminal is for errors."""


class _HTTPServer(ThreadingHTTPServer):
    """One thread per connection, at most ``max_connections`` at once: beyond that a
    connection gets a short 503 answer and is closed without a thread of its own (800 slow
    clients made 800 threads before)."""

    daemon_threads = True
    block_on_close = False   # idle keep-alive connections must not hold up Ctrl-C
    request_queue_size = 128   # connections beyond the cap wait here briefly for their 503
    preview: PreviewServer

    def __init__(self, address: tuple[str, int], handler: type[_Handler], max_connections: int,
                 max_streams: int) -> None:
        super().__init__(address, handler)
        self.slots = threading.BoundedSemaphore(max_connections)
        self.streams = threading.BoundedSemaphore(max_streams)
        self.page_policy = page_policy()

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def _refuse(self, request: socket.socket) -> None:
        body = b"the preview has too many open connections; try again in a moment"
        try:
            request.settimeout(1.0)
            request.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                            b"Retry-After: 2\r\nConnection: close\r\nX-Content-Type-Options: nosniff\r\n"
                            b"Content-Security-Policy: " + DATA_POLICY.encode() +
                            b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        except OSError:
            pass
        self.shutdown_request(request)


# --- the server -------------------------------------------------------------------------------

class PreviewServer:
    """The preview as a library: ``start()`` serves in background threads, ``url`` says where,
    ``stop()`` ends streams, watcher and server. ``log`` is told about changes and errors."""

    def __init__(self, games_dirs: Iterable[Path] = (), game: str | None = None, port: int = 8000,
                 lang: str = "en", ping_seconds: float = PING_SECONDS,
                 log: Callable[[str], None] | None = None, max_connections: int = MAX_CONNECTIONS,
                 max_streams: int = MAX_STREAMS, idle_seconds: float = IDLE_SECONDS) -> None:
        self.state = PreviewState(games_dirs, game, lang)
        self.limits = (max_connections, max_streams, idle_seconds)
        self.port = port
        self.ping_seconds = ping_seconds
        self.log = log or (lambda message: None)
        self.hub = EventHub()
        self._stop = threading.Event()
        self._watching = threading.Event()
        self._threads: list[threading.Thread] = []
        self._httpd: _HTTPServer | None = None

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the preview server is not started")
        return f"http://{HOST}:{self._httpd.server_address[1]}/"

    def start(self) -> PreviewServer:
        """Bind, start serving and watching; returns once both are ready."""
        try:
            max_connections, max_streams, idle_seconds = self.limits
            handler = type("_Handler", (_Handler,), {"timeout": idle_seconds})
            self._httpd = _HTTPServer((HOST, self.port), handler, max_connections, max_streams)
        except OSError as exc:
            raise InputError(f"cannot listen on {HOST}:{self.port}: {exc.strerror}", None,
                             "pick another --port, or --port 0 for any free one") from None
        self._httpd.preview = self
        if self.state.only is not None:
            self.state.snapshot(self.state.only)  # warm: the first page load is then instant
        self._spawn(self._httpd.serve_forever, "cardgen-serve-http")
        self._spawn(self._watch, "cardgen-serve-watch")
        if not self._watching.wait(10):
            self.stop()
            raise RuntimeError("the file watcher did not start")
        return self

    def wait(self) -> None:
        """Block until stopped; wakes often so Ctrl-C reaches the main thread at once."""
        while not self._stop.wait(0.25):
            pass

    def stop(self) -> None:
        """End the event streams first (their threads would otherwise wait for the next ping),
        then the watcher and the server; calling it twice is harmless."""
        self._stop.set()
        self.hub.close()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        for t in self._threads:
            t.join(5)
        self._threads.clear()

    def _spawn(self, target: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=target, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    def _watch(self) -> None:
        """Turn batches of changed files into page updates until stopped."""
        import watchfiles

        try:
            for changes in watchfiles.watch(*self.state.watch_paths(), step=WATCH_STEP_MS, stop_event=self._stop,
                                            rust_timeout=200, yield_on_timeout=True, raise_interrupt=False):
                self._watching.set()  # the first (empty) batch proves the watcher is armed
                if changes:
                    self._apply_safely(Path(p) for _, p in changes)
        except Exception as exc:  # noqa: BLE001 e.g. a watched folder was deleted: keep serving what we have
            self.log(f"cardgen: file watching stopped ({type(exc).__name__}: {exc}); restart 'cardgen serve'")

    def _apply_safely(self, paths: Iterable[Path]) -> None:
        """One bad batch (a folder vanishing mid-scan) must not end the watching."""
        try:
            self.apply_changes(paths)
        except Exception as exc:  # noqa: BLE001
            self.log(f"cardgen: internal error while refreshing: {type(exc).__name__}: {exc}")

    def apply_changes(self, paths: Iterable[Path]) -> None:
        """Re-render what the changed files affect and tell the pages."""
        paths = list(paths)
        if self.state.discover():
            self.hub.publish("update", {"game": None, "error": self.state.discovery_error})
        for key in self.state.affected(paths):
            result = self.state.refresh(key)
            event = change_event(*result) if result else None
            if event is None:
                continue
            self.hub.publish("update", event)
            if event["error"]:
                self.log(f"{view_key(*key)}: {event['error']}")
            else:
                self.log(f"{view_key(*key)}: {len(event['changed'])} face(s) changed, "
                         f"{len(event['findings'])} finding(s)")


def serve(games_dirs: Iterable[Path], game: str | None, port: int, lang: str,
          echo: Callable[[str], None] = print) -> None:
    """Run the preview until Ctrl-C (what the ``cardgen serve`` command does). ``game`` may
    also be the path of a game folder, as in the other commands."""
    if game is not None and (Path(game) / "game.yaml").is_file():
        games_dirs, game = (*games_dirs, Path(game)), Path(game).resolve().name
    server = PreviewServer(games_dirs=games_dirs, game=game, port=port, lang=lang, log=echo).start()
    try:   # from the moment it serves: a Ctrl-C while the address is being printed stops it too
        echo(f"cardgen: preview at {server.url}  (Ctrl-C stops)")
        server.wait()
    except KeyboardInterrupt:
        echo("cardgen: stopped")
    finally:
        server.stop()
