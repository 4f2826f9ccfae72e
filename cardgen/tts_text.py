"""The name and description TTS shows for a piece, in the export's language.

TTS shows an object's Nickname when it is hovered and its Description in the tooltip and the
Notebook; a player who cannot read the face at table distance reads these. They say what the
face says, from the card's fields through the same catalogs the faces use:

* Nickname: the card's title — a particle's name and symbol ("up quark u"), else its
  translatable text title ("Proton"), else the name of the table row it refers to
  ("quark–gluon"); a colour field adds the colour ("up quark u (red)"), or is the name of a
  piece that has nothing else. A piece whose data has no words at all is called by its
  component's name (with its card id when the component holds several designs).
* Description: the other printed values, "label value" joined by " · ": a particle's charge,
  spin, mass and mean lifetime, numbers with their field's name ("points 1"), texts as written.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from . import format as fmt
from .model import Card, Component, FieldSpec, Game
from .i18n import field_label
from .particles import ColourCharge, Particle

Translate = Callable[..., str]
SEPARATOR = " · "


def _identity(msgid: str, context: str | None = None) -> str:
    return msgid


def card_text(game: Game, comp: Component, card: Card, lang: str,
              translate: Translate | None = None) -> tuple[str, str]:
    """(Nickname, Description) of one card in ``lang``; ``translate`` is the game's translator
    (None for English)."""
    _ = translate or _identity
    title, colour, details = "", "", []
    for name, spec in comp.fields.items():
        value = card.fields.get(name)
        if value is None or value is False or value == () or not spec.printed:
            continue   # nothing to say, or data for the checker alone (a target's PDG identity)
        if isinstance(value, ColourCharge):
            colour = _(value.name, "colour")
            continue
        words = None if title else _as_title(game, comp, name, spec, value, _)
        if words is None:
            details.append(_as_detail(game, comp, name, spec, value, _))
            continue
        title = words
        if isinstance(value, Particle):
            details += _particle_values(value, lang, _)
    if title and colour:
        title = f"{title} ({colour})"
    return title or colour or _fallback(comp, card, _), SEPARATOR.join(details)


def _context(owner: str, name: str) -> str:
    """The catalog context of a field's text ('cards.name'). Built here, not written as an
    f-string in the call: the string extractor reads this module and warns about each one."""
    return f"{owner}.{name}"


def _as_title(game: Game, comp: Component, name: str, spec: FieldSpec, value: Any, _: Translate) -> str | None:
    """The value as the card's title, or None when it is no name: a particle, a translatable
    text, a table row that has a name."""
    if isinstance(value, Particle):
        return _particle_name(value, _)
    if spec.type == "text" and spec.translatable:
        return _(value, _context(comp.id, name))
    if spec.type == "ref":
        shown = _shown(game, spec.table, value, _)
        return shown if shown != value else None
    return None


def _as_detail(game: Game, comp: Component, name: str, spec: FieldSpec, value: Any, _: Translate) -> str:
    """The value as one item of the description: texts as printed, the rest after their field's name."""
    if spec.type == "text":
        return _(value, _context(comp.id, name)) if spec.translatable else value
    label = _(field_label(name, spec), _context(comp.id, "field"))
    if value is True:
        return label
    if isinstance(value, Particle):
        shown = _particle_name(value, _)
    else:
        shown = _(value) if spec.type == "enum" else _shown(game, spec.table, value, _)
    return f"{label} {shown}"


def _particle_name(p: Particle, _: Translate) -> str:
    """The translated name followed by the symbol, unless the name already holds it ("W⁺ boson")."""
    name, symbol = _(p.name, "particle"), p.symbol.unicode()
    return name if re.search(rf"(?<!\w){re.escape(symbol)}(?!\w)", name) else f"{name} {symbol}"


def _fallback(comp: Component, card: Card, _: Translate) -> str:
    """A piece whose data has no words: the component's name, and the card id when the
    component holds more than one design."""
    name = _(comp.name, "component")
    return name if len(comp.cards) == 1 else f"{name} ({card.id})"


#: The word printed for an infinite lifetime, looked up where the faces look it up.
STABLE = ("stable", "lifetime")


def _particle_values(p: Particle, lang: str, _: Translate) -> list[str]:
    labels = (_("charge"), _("spin"), _("mass"), _("mean lifetime"))
    values = (fmt.charge(p.charge), fmt.spin(p.spin), fmt.mass(p.mass, lang),
              fmt.lifetime(p.lifetime, lang, stable_word=_(*STABLE)))
    return [f"{label} {value}" for label, value in zip(labels, values)]


def _shown(game: Game, table_id: str | None, value: Any, _: Translate) -> str:
    """A value as words: a table row by its translated name, a list item by item, a particle by
    its symbol, a number in the export's notation."""
    if isinstance(value, (tuple, list)):
        return " ".join(_shown(game, table_id, v, _) for v in value)
    if isinstance(value, Particle):
        return value.symbol.unicode()
    if isinstance(value, ColourCharge):
        return _(value.name, "colour")
    if table_id is not None and table_id in game.tables:
        row = next((r for r in game.tables[table_id].rows if getattr(r, "id", None) == value), None)
        if row is not None and getattr(row, "name", ""):
            return _(row.name, _context(table_id, "name"))
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
