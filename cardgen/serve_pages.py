"""The pages of ``cardgen serve``: the index of games, a game's page and one card's page.

Every page is HTML built here from a :class:`~cardgen.serve.Snapshot`, with every value
escaped; a face is always an ``<img>`` of its SVG (a browser runs no script in an image), and
the only script is the one in ``serve_page.html``, which the Content-Security-Policy allows by
its hash (:func:`page_policy`). Its behaviour (live refresh, the card page's flip and overlay
switches) is wired with event listeners, never inline handlers, which the policy forbids.

A card's large view is drawn at an exact scale (:func:`view_scale`, CSS px per mm) so that the
bleed, trim and safe outlines laid over it sit where the data puts them.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources
from typing import TYPE_CHECKING, Callable, Iterable
from urllib.parse import quote, urlencode

from .build.options import BuildOptions

if TYPE_CHECKING:   # the state module imports this one
    from .serve import ComponentOutline, PreviewState, ProofReport, Snapshot

SHEET_PAPER = BuildOptions().paper   # the sheet preview shows the first page of a default build
LARGE_VIEW_PX = 720.0       # the longer side of a card's large view (bleed box), CSS px
LARGE_VIEW_MAX_SCALE = 8.0  # px per mm: a small token is not blown up beyond this


def face_id(component: str, card: str, side: str) -> str:
    return f"{component}/{card}/{side}"


def view_scale(comp: ComponentOutline) -> float:
    """CSS px per mm of a component's large view: its bleed box's longer side fills
    :data:`LARGE_VIEW_PX`, to 3 decimals so every position on the page is an exact product."""
    longest = max(comp.width, comp.height) + 2 * comp.bleed
    return min(LARGE_VIEW_MAX_SCALE, int(LARGE_VIEW_PX / longest * 1000) / 1000)


# --- addresses ----------------------------------------------------------------------------------

def face_url(snap: Snapshot, fid: str, key: str) -> str:
    """A face's address; the key busts the browser's cache when the face changes."""
    lang = "" if snap.primary else f"&lang={quote(snap.lang)}"
    return f"/face/{quote(snap.game)}/{quote(fid)}.svg?k={key}{lang}"


def game_url(gid: str, lang: str | None = None) -> str:
    return f"/game/{quote(gid)}" + (f"?{urlencode({'lang': lang})}" if lang else "")


def card_url(gid: str, component: str, card: str, lang: str | None = None, side: str | None = None) -> str:
    query = urlencode({k: v for k, v in (("lang", lang), ("side", side)) if v})
    return f"/game/{quote(gid)}/card/{quote(component)}/{quote(card)}" + (f"?{query}" if query else "")


def _lang(snap: Snapshot) -> str | None:
    """The ``lang`` a link from this snapshot's page carries (none in the server's language)."""
    return None if snap.primary else snap.lang


# --- the frame ----------------------------------------------------------------------------------

def _page_template() -> str:
    return resources.files("cardgen").joinpath("serve_page.html").read_text(encoding="utf-8")


def page_policy() -> str:
    """The Content-Security-Policy of the preview's pages: no script but the page's own (by its
    hash), no plug-ins, frames or forms; images (faces) and fetches from the preview only."""
    script = re.search(r"<script>(.*?)</script>", _page_template(), re.S)
    digest = base64.b64encode(hashlib.sha256(script[1].encode("utf-8")).digest()).decode() if script else ""
    return (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; img-src 'self'; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


#: For a face's SVG opened by itself (not as an image): nothing in it may run or load, but
#: its embedded artwork (data: URLs) and styles show.
FACE_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; sandbox"
#: For data answers (JSON, events, text): nothing at all.
DATA_POLICY = "default-src 'none'; frame-ancestors 'none'; sandbox"


def _page(title: str, body: str, **data: str) -> str:
    template = _page_template()
    attrs = " ".join(f'data-{k}="{html.escape(v)}"' for k, v in data.items())
    return (template.replace("<!--title-->", html.escape(title)).replace("<!--body-attrs-->", attrs)
            .replace("<!--body-->", body))


def _snapshot_page(snap: Snapshot, title: str, body: str) -> str:
    """A page the live refresh keeps up to date with one game in one language."""
    lang_query = "" if snap.primary else f"&lang={quote(snap.lang)}"   # what face addresses carry
    return _page(title, body, game=snap.game, lang=snap.lang, langquery=lang_query, version=str(snap.version),
                 outline=snap.outline_key)


def _banner(error: str | None) -> str:
    hidden = "" if error else " hidden"
    return f'<pre id="error" class="banner"{hidden}>{html.escape(error or "")}</pre>'


def _languages_html(snap: Snapshot, href: Callable[[str], str]) -> str:
    """Links to the same page in each language the game has a catalog for."""
    links = [f'<strong lang="{html.escape(lang)}" aria-current="page">{html.escape(lang)}</strong>' if lang == snap.lang
             else f'<a href="{html.escape(href(lang))}" hreflang="{html.escape(lang)}">{html.escape(lang)}</a>'
             for lang in snap.languages or (snap.lang,)]
    return f'<nav class="languages">Language: {" · ".join(links)}</nav>'


# --- the index ----------------------------------------------------------------------------------

def index_html(state: PreviewState) -> str:
    """Every served game: its name, components with their card counts, and per language
    whether the checker passes (each language is checked once, then kept up to date)."""
    games = []
    for gid in state.game_ids:
        snap = state.snapshot(gid)
        if snap is not None:
            games.append(_index_entry(state, snap))
    body = (f"<h1>cardgen preview</h1>{_banner(state.discovery_error)}"
            + ("".join(games) or '<p class="games">no games found</p>'))
    return _page("cardgen preview", body, game="", lang="", langquery="", version="0", outline="")


def _index_entry(state: PreviewState, snap: Snapshot) -> str:
    components = "".join(
        f'<li data-component="{html.escape(c.id)}">{html.escape(c.name)} <small>{html.escape(c.id)} · '
        f'{html.escape(c.kind)}</small>: <span class="count">{_count(c.copies, "card")}, '
        f'{_count(len(c.cards), "design")}</span></li>' for c in snap.outline)
    rows = []
    for lang in snap.languages or (snap.lang,):
        view = state.snapshot(snap.game, lang) or snap
        kind, text = _status(view)
        rows.append(f'<tr data-lang="{html.escape(lang)}"><th scope="row">{html.escape(lang)}</th>'
                    f'<td class="status {kind}"><a href="{html.escape(game_url(snap.game, _lang(view)))}#report">'
                    f"{html.escape(text)}</a></td></tr>")
    error = f'<pre class="banner">{html.escape(snap.error)}</pre>' if snap.error else ""
    return (f'<section class="game" data-game="{html.escape(snap.game)}"><h2><a href="{game_url(snap.game)}">'
            f"{html.escape(snap.name or snap.game)}</a> <small>{html.escape(snap.game)}</small></h2>{error}"
            f'<ul class="components">{components}</ul>'
            f'<table class="languages"><tr><th scope="col">Language</th><th scope="col">Check</th></tr>'
            f'{"".join(rows)}</table></section>')


def _status(snap: Snapshot) -> tuple[str, str]:
    """(css class, text) of one game's check in one language."""
    if snap.error:
        return "error", "does not load or render: see the report"
    errors = sum(1 for severity, _ in snap.findings if severity == "error")
    if not snap.findings:
        return "ok", "pass"
    return ("error" if errors else "warning"), _count(len(snap.findings), "finding") + (
        f" ({_count(errors, 'error')})" if errors else "")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# --- a game -------------------------------------------------------------------------------------

def _findings_html(findings: Iterable[tuple[str, str]]) -> str:
    rows = "".join(f'<li class="{s}">{html.escape(t)}</li>' for s, t in findings)
    return f'<ul id="findings">{rows or "<li class=ok>all rules pass</li>"}</ul>'


_REPORT_MARKS = {"proved": "✓", "ran": "✓", "choice": "•", "assumption": "•", "error": "✗", "warning": "!"}


def _report_html(report: ProofReport | None) -> str:
    """The proof report section; the page's script rebuilds it the same way after each change."""
    if report is None:
        return '<section id="report"></section>'
    parts = [f'<p class="verdict">{html.escape(report.verdict)}</p>']
    for sec in report.sections:
        items = "".join(f'<li class="{html.escape(i.kind)}">{_REPORT_MARKS.get(i.kind, "•")} {html.escape(i.text)}'
                        + (f" <small>{html.escape(i.where)}</small>" if i.where else "") + "</li>"
                        for i in sec.items)
        parts.append(f"<h3>{html.escape(sec.title)}</h3><ul>{items or f'<li class=empty>{html.escape(sec.empty)}</li>'}</ul>")
    return f'<section id="report">{"".join(parts)}</section>'


def game_html(snap: Snapshot) -> str:
    """The whole page of one game: banner, findings, the proof report, then per component its
    cards (each a link to its own page) and a sheet."""
    parts = [f'<p><a href="/">all games</a></p><h1>{html.escape(snap.name or snap.game)}</h1>',
             _languages_html(snap, lambda lang: game_url(snap.game, lang)),
             _banner(snap.error), "<h2>Findings</h2>", _findings_html(snap.findings),
             "<details open><summary><h2>Proof report: is this deck right?</h2></summary>",
             _report_html(snap.report), "</details>"]
    for comp in snap.outline:
        parts.append(f'<section class="component"><h2>{html.escape(comp.name)} <small>{html.escape(comp.id)} · '
                     f'{comp.width:g} × {comp.height:g} mm {html.escape(comp.kind)}</small></h2><div class="cards">')
        for card_id, count in comp.cards:
            faces = "".join(_face_html(snap, face_id(comp.id, card_id, side), comp.width + 2 * comp.bleed)
                            for side in comp.sides)
            where = html.escape(snap.locations.get(f"{comp.id}/{card_id}", ""))
            href = html.escape(card_url(snap.game, comp.id, card_id, _lang(snap)))
            parts.append(f'<figure class="card" data-card="{html.escape(card_id)}">'
                         f'<a class="sides" href="{href}">{faces}</a>'
                         f'<figcaption><a href="{href}">{html.escape(card_id)}</a> ×{count}<br>'
                         f'<small class="source">{where}</small></figcaption></figure>')
        parts.append(f"</div>{_sheet_html(snap, comp)}</section>")
    return _snapshot_page(snap, f"{snap.name or snap.game} — cardgen preview", "".join(parts))


def _sheet_html(snap: Snapshot, comp: ComponentOutline) -> str:
    """The fronts on the first sheet as a default build places them: each face is cropped to
    what is printed of it (its slot's clip) and turned where the plan turns cards."""
    plan = comp.sheet
    if plan is None:
        return f"<p>{comp.width:g} × {comp.height:g} mm does not fit one {SHEET_PAPER.upper()} sheet: a build tiles it.</p>"
    copies = [card_id for card_id, count in comp.cards for _ in range(count)]
    art_w, art_h = comp.width + 2 * comp.bleed, comp.height + 2 * comp.bleed
    cells = []
    for slot, card_id in zip(plan.slots, copies):
        fid = face_id(comp.id, card_id, "front")
        face = snap.faces.get(fid)
        if face is None:
            continue
        art, clip = plan.art_rect(slot), slot.clip
        cx, cy = art.x + art.w / 2 - clip.x, art.y + art.h / 2 - clip.y
        turn = "transform:rotate(-90deg);" if slot.rotated else ""
        cells.append(f'<div class="slot" style="{_mm_box(clip.x, clip.y, clip.w, clip.h)}">'
                     f'<img data-face="{html.escape(fid)}" src="{html.escape(face_url(snap, fid, face.key))}" '
                     f'alt="{html.escape(card_id)}" style="{_mm_box(cx - art_w / 2, cy - art_h / 2, art_w, art_h)}{turn}">'
                     f"</div>")
    return (f"<h3>First sheet: {html.escape(plan.describe())}</h3>"
            f'<div class="sheet" style="{_mm_box(0, 0, plan.paper_w, plan.paper_h, "relative")}">{"".join(cells)}</div>')


def _mm_box(x: float, y: float, width: float, height: float, position: str = "absolute") -> str:
    return (f"position:{position};left:calc({x:.2f} * var(--mm));top:calc({y:.2f} * var(--mm));"
            f"width:calc({width:.2f} * var(--mm));height:calc({height:.2f} * var(--mm));")


def _face_html(snap: Snapshot, fid: str, width_mm: float) -> str:
    """One face as an image of its SVG: markup a template wrote cannot run in an image."""
    face = snap.faces.get(fid)
    key = face.key if face is not None else ""
    img = (f'<img src="{html.escape(face_url(snap, fid, key))}" alt="{html.escape(fid)}">' if face is not None else "")
    return (f'<div class="face" data-face="{html.escape(fid)}" data-key="{key}" '
            f'style="width:calc({width_mm:g} * var(--mm))">{img}</div>')


# --- a card -------------------------------------------------------------------------------------

def card_html(snap: Snapshot, comp: ComponentOutline, card_id: str, side: str) -> str:
    """One card large, at :func:`view_scale`, with its bleed, trim and safe outlines laid over
    it (each can be switched off), a button that turns it over, links to the same card in the
    game's other languages and where the card is defined."""
    count = dict(comp.cards)[card_id]
    scale = view_scale(comp)
    fid = face_id(comp.id, card_id, side)
    keys = {face_id(comp.id, card_id, s): snap.faces[face_id(comp.id, card_id, s)].key
            for s in comp.sides if face_id(comp.id, card_id, s) in snap.faces}
    title = f"{snap.name or snap.game} — {comp.name}: {card_id}"
    width, height = (comp.width + 2 * comp.bleed) * scale, (comp.height + 2 * comp.bleed) * scale
    img = (f'<img id="face" data-face="{html.escape(fid)}" data-key="{keys[fid]}" alt="{html.escape(fid)}" '
           f'src="{html.escape(face_url(snap, fid, keys[fid]))}" width="{width:.3f}" height="{height:.3f}">'
           if fid in keys else "")   # a game that never rendered has no faces to show yet
    source = snap.locations.get(f"{comp.id}/{card_id}", "")
    other = "front" if side == "back" else "back"
    flip = (f'<button type="button" id="flip">Show the {other}</button> ' if len(comp.sides) > 1 else "")
    parts = [f'<p><a href="/">all games</a> · <a href="{html.escape(game_url(snap.game, _lang(snap)))}">'
             f"{html.escape(snap.name or snap.game)}</a></p>",
             f'<h1 id="title">{html.escape(title)}</h1>',
             _languages_html(snap, lambda lang: card_url(snap.game, comp.id, card_id, lang, side)),
             _banner(snap.error),
             f'<p class="controls">{flip}Showing the <span id="side">{html.escape(side)}</span>. Outlines: '
             f'<label><input type="checkbox" data-overlay="bleed" checked> bleed {comp.bleed:g} mm</label> '
             f'<label><input type="checkbox" data-overlay="trim" checked> trim {comp.width:g} × {comp.height:g} mm'
             f'</label> <label><input type="checkbox" data-overlay="safe" checked> safe area {comp.safe:g} mm '
             f"inside the trim</label></p>",
             f'<div id="large" class="large" data-keys="{html.escape(json.dumps(keys))}" '
             f'data-px-per-mm="{scale:g}" style="width:{width:.3f}px;height:{height:.3f}px">'
             f"{img}{_overlays_svg(comp, width, height)}</div>",
             f'<p id="source">Defined at <code>{html.escape(source)}</code></p>',
             f"<p>×{count} in the {html.escape(comp.kind)} set · {comp.width:g} × {comp.height:g} mm</p>"]
    return _snapshot_page(snap, f"{title} — cardgen preview", "".join(parts))


def _overlays_svg(comp: ComponentOutline, width_px: float, height_px: float) -> str:
    """The bleed band, the cut line and the safe area in the face's own coordinates (mm, origin
    at the trim's top-left corner), stretched over the image exactly as the face is."""
    b, w, h, s = comp.bleed, comp.width, comp.height, comp.safe
    bleed = f"M{_mm(-b)} {_mm(-b)}H{_mm(w + b)}V{_mm(h + b)}H{_mm(-b)}Z{comp.cut}"
    return (f'<svg class="overlays" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" '
            f'width="{width_px:.3f}" height="{height_px:.3f}" '
            f'viewBox="{_mm(-b)} {_mm(-b)} {_mm(w + 2 * b)} {_mm(h + 2 * b)}">'
            f'<path id="overlay-bleed" class="bleed" fill-rule="evenodd" d="{bleed}"/>'
            f'<path id="overlay-trim" class="trim" d="{comp.cut}"/>'
            f'<rect id="overlay-safe" class="safe" x="{_mm(s)}" y="{_mm(s)}" width="{_mm(max(0.0, w - 2 * s))}" '
            f'height="{_mm(max(0.0, h - 2 * s))}"/></svg>')


def _mm(value: float) -> str:
    """A length in SVG data, to the micrometre (as cut paths are written)."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
