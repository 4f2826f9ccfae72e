"""Checks that need the cards rendered: does every string of a language fit its box, is every
character covered by a bundled font, is every string translated? (``cardgen check --lang``)."""

from __future__ import annotations

from . import i18n
from .errors import Finding, Location, display_path
from .model import Game
from .render import Renderer


def language_findings(game: Game, lang: str, strict: bool = False) -> list[Finding]:
    """Render every face of ``game`` in ``lang`` and report what does not fit or is missing."""
    tr = i18n.translator(game, lang)
    renderer = Renderer(game, lang, translate=tr)
    for comp in game.components.values():
        for _face in renderer.faces(comp):
            pass
    findings: list[Finding] = []
    for issue in renderer.issues:
        card = game.components[issue.component].card(issue.card)
        loc = card.location if card else game.components[issue.component].location
        if issue.kind == "overflow":
            findings.append(Finding("text-fit", f"[{lang}] card '{issue.card}' ({issue.side}) field '{issue.field}': "
                                    f"{issue.text!r} is {issue.detail}", loc,
                                    "shorten the translation, or give the template box more room or a smaller "
                                    "min_size", game.id))
        else:
            findings.append(Finding("glyph-coverage", f"[{lang}] card '{issue.card}' field '{issue.field}': "
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
