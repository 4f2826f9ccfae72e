"""Checks that need the cards rendered: does every string of a language fit its box, is every
character covered by a bundled font, is every string translated? (``cardgen check --lang``)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from . import i18n, sheets
from .errors import Finding, Location
from .model import Game
from .render import Renderer, TextIssue, said_once

Wrap = tuple[str, str, str, str, int]


def language_findings(game: Game, lang: str, strict: bool = False) -> list[Finding]:
    """Render every face of ``game`` in ``lang`` (cards, rule sheet and answer key) and report
    what does not fit or is missing."""
    tr = i18n.translator(game, lang)
    renderer = Renderer(game, lang, translate=tr)
    source = Renderer(game, i18n.SOURCE_LANG)
    results = [r for comp in game.components.values() for r in renderer.faces(comp)]
    english_wraps = [w for comp in game.components.values() for r in source.faces(comp) for w in r.wraps]
    for kind in sheets.SHEETS:   # the rule sheet and answer key, on the default A4 pages
        results += sheets.sheet_faces(game, kind, renderer)
    return rendering_findings(game, lang, [i for r in results for i in r.issues], [w for r in results for w in r.wraps],
                              tr, english_wraps, strict)


def rendering_findings(game: Game, lang: str, issues: Iterable[TextIssue], wraps: list[Wrap],
                       tr: i18n.Translator | None, english_wraps: list[Wrap], strict: bool = False) -> list[Finding]:
    """What rendering every face of ``game`` in ``lang`` reported (``issues``, ``wraps``), as
    findings: text that does not fit (or, in a box without height, wraps onto more lines than
    ``english_wraps`` say English does), characters no bundled font covers and strings
    without translation."""
    locator = i18n.MessageLocator(game, lang)   # the game's strings collected once, if asked for at all
    findings: list[Finding] = list(_extra_wraps(game, lang, english_wraps, wraps))
    findings.extend(issue_finding(game, issue, locator) for issue in said_once(issues))
    if tr is not None:
        for msgid, context in sorted(tr.missing):
            where, used = locator.locate(msgid, context)
            findings.append(Finding("untranslated", f"[{lang}] no translation for {msgid!r}"
                                    + (f" (context {context})" if context else "")
                                    + (f", used at {used}" if used else ""), where,
                                    "translate it in the catalog (English is printed meanwhile)"
                                    if where.line else f"run 'cardgen i18n extract {i18n.command_name(game)}' and "
                                    f"'cardgen i18n update --lang {lang} {i18n.command_name(game)}' to add it to "
                                    "this catalog, then translate it", game.id,
                                    severity="error" if strict else "warning"))
    return list(dict.fromkeys(findings))


def issue_finding(game: Game, issue: TextIssue, locator: i18n.MessageLocator | None = None) -> Finding:
    """A renderer's text issue as the finding ``check`` reports and ``build`` refuses: text that
    does not fit (at its catalog entry when it is a translation) or characters no font covers.
    ``locator``: the game's strings, for a caller with several issues to place (collecting
    them reads every file of the game)."""
    lang = issue.lang
    comp = game.components.get(issue.component)
    card = comp.card(issue.card) if comp else None
    # the card's own value when the field is one (its YAML line, its spreadsheet cell), else the
    # card; on a rule sheet or answer key, where the game's data writes the text
    loc = card.where(issue.field) if card else comp.location if comp else \
        _written_at(game, issue.text, locator or i18n.MessageLocator(game, lang))
    what = f"card '{issue.card}'" if comp else f"{issue.component}.pdf {issue.card}"
    # a translation is fixed in the catalog: point at its entry, and name where the text is used
    entry = i18n.catalog_entry_of(game, lang, issue.text)
    source = f" (msgid {entry[1]!r}, {what} at {loc})" if entry else ""
    if issue.kind == "overflow":
        return Finding("text-fit", f"[{lang}] {what} ({issue.side}) field '{issue.field}': "
                       f"{issue.text!r} is {issue.detail}{source}", entry[0] if entry else loc,
                       f"shorten the {'translation' if entry else 'text'}, or give the template box more room or a "
                       "smaller min_size", game.id)
    if issue.kind == "low-resolution":
        return Finding("artwork-resolution", f"[{lang}] {what} ({issue.side}): image '{issue.text}': {issue.detail}",
                       loc, "use a larger image, or print it smaller", game.id, severity="warning")
    return Finding("glyph-coverage", f"[{lang}] {what} field '{issue.field}': {issue.detail}{source}",
                   entry[0] if entry else loc,
                   "use characters the fonts cover, or bring a font that draws them (a fonts/ folder in the game, "
                   "or --font-dir)", game.id)


def _written_at(game: Game, text: str, locator: i18n.MessageLocator) -> Location:
    """Where the game's data writes a text a sheet prints: a records table's value where it is
    written; any other (a table's title, a roll's note, an assumption) as the catalog's
    extraction finds it, at the line and column where the text starts at or after the line
    of the entry that holds it (``text`` may be its start and "…", as a long text is
    reported). The game's own entry when the text is cardgen's (a column header) or made up
    of several values. ``locator``: the game's strings, collected once for all its issues
    (0.1 s for Particle Builder)."""
    shown = text.removesuffix("…")   # a long text is reported by its start

    def matches(value: object) -> bool:
        return isinstance(value, str) and (value == text or (shown != text and value.startswith(shown)))

    for table in game.tables.values():   # a records table knows where each value is written
        for row in table.rows:
            for name, value in (getattr(row, "values", None) or {}).items():
                if matches(value):
                    return row.where.get(name, row.location)
    entry = next((e for (_ctx, msgid), e in locator.own.items() if e.locations and matches(msgid)), None)
    if entry is None:
        return game.location
    path, line = entry.locations[0]
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return Location(path, line, 1)
    for n in range(max(line, 1), len(lines) + 1):   # the entry's line is where its table or row begins
        at = lines[n - 1].find(shown[:40])
        if at >= 0:
            return Location(path, n, at + 1)
    return Location(path, line, 1)


def _extra_wraps(game: Game, lang: str, english: list[tuple[str, str, str, str, int]],
                 translated: list[tuple[str, str, str, str, int]]) -> list[Finding]:
    """Boxes without a height cannot overflow, but a translation that wraps onto more lines
    than English may run into whatever is drawn below it: report those as warnings."""
    def numbered(rows: list[tuple[str, str, str, str, int]]) -> dict[tuple, int]:
        seen: dict[tuple, int] = {}
        out = {}
        for comp, card, side, fld, lines in rows:
            k = (comp, card, side, fld)
            seen[k] = seen.get(k, 0) + 1
            out[(*k, seen[k])] = lines
        return out

    base = numbered(english)
    findings = []
    for key, lines in numbered(translated).items():
        if key in base and lines > base[key]:
            comp, card_id, side, fld, _n = key
            card = game.components[comp].card(card_id)
            findings.append(Finding("text-fit", f"[{lang}] card '{card_id}' ({side}) field '{fld}' wraps onto "
                                    f"{lines} lines where English uses {base[key]}, in a box with no height",
                                    card.location if card else game.components[comp].location,
                                    "shorten the translation or give the template box a height", game.id,
                                    severity="warning"))
    return findings
