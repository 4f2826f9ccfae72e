"""Checks that need the cards rendered: does every string of a language fit its box, is every
character covered by a bundled font, is every string translated? (``cardgen check --lang``)."""

from __future__ import annotations

from . import i18n, sheets
from .errors import Finding, Location, display_path
from .model import Game
from .render import Renderer


def language_findings(game: Game, lang: str, strict: bool = False) -> list[Finding]:
    """Render every face of ``game`` in ``lang`` (cards, rule sheet and answer key) and report
    what does not fit or is missing."""
    tr = i18n.translator(game, lang)
    renderer = Renderer(game, lang, translate=tr, wraps=[])
    source = Renderer(game, i18n.SOURCE_LANG, wraps=[])
    for comp in game.components.values():
        for _face in renderer.faces(comp):
            pass
        for _face in source.faces(comp):
            pass
    for kind in sheets.SHEETS:   # the rule sheet and answer key, on the default A4 pages
        sheets.sheet_faces(game, kind, renderer)
    findings: list[Finding] = list(_extra_wraps(game, lang, source.wraps or [], renderer.wraps or []))
    for issue in renderer.issues:
        comp = game.components.get(issue.component)
        card = comp.card(issue.card) if comp else None
        loc = card.location if card else comp.location if comp else game.location
        what = f"card '{issue.card}'" if comp else f"{issue.component}.pdf {issue.card}"
        if issue.kind == "overflow":
            findings.append(Finding("text-fit", f"[{lang}] {what} ({issue.side}) field '{issue.field}': "
                                    f"{issue.text!r} is {issue.detail}", loc,
                                    "shorten the translation, or give the template box more room or a smaller "
                                    "min_size", game.id))
        else:
            findings.append(Finding("glyph-coverage", f"[{lang}] {what} field '{issue.field}': "
                                    f"{issue.detail}", loc,
                                    "use characters the bundled Noto fonts cover, or add a font", game.id))
    if tr is not None:
        where = Location(display_path(i18n.po_path(game, lang)))
        for msgid, context in sorted(tr.missing):
            findings.append(Finding("untranslated", f"[{lang}] no translation for {msgid!r}"
                                    + (f" (context {context})" if context else ""), where,
                                    "translate it in the catalog (English is printed meanwhile)", game.id,
                                    severity="error" if strict else "warning"))
    return list(dict.fromkeys(findings))


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
