"""Room for a class set's mark on a crowded piece: the texts the piece's faces print.

A set mark sits in the band between the cut and the safe area, where templates keep nothing
that must be read. On a small piece (a 20 mm token) that band is narrower than a mark still
legible at 100 %, so the mark reaches into the safe area: its spot is then chosen along the
outline where it covers none of the texts the faces print, measured on the faces rendered
without a mark in the language being built (:func:`cardgen.setmark.place`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from . import i18n
from .errors import InputError
from .model import Component, Game
from .setmark import Box, NoRoom, SetMark, covered, crowded, place

if TYPE_CHECKING:
    from .legibility import Printed

#: The fields the shared frame's marks print their texts in (templates/_shared/marks.svg.j2).
MARK_FIELDS = ("set mark", "level mark")

#: (id(game), component, language) → (game, the texts' boxes): measured once per process.
_MEASURED: dict[tuple[int, str, str], tuple[Game, list[Box]]] = {}


def text_boxes(game: Game, comp: Component, lang: str) -> list[Box]:
    """The ink boxes (trim mm) of every text the component's faces print in ``lang``."""
    key = (id(game), comp.id, lang)
    hit = _MEASURED.get(key)
    if hit is not None and hit[0] is game:
        return hit[1]
    from .legibility import printed_texts
    from .render import Renderer

    renderer = Renderer(game, lang, translate=i18n.translator(game, lang))
    boxes: dict[Box, None] = {}
    seen: set[str] = set()
    for card in comp.cards:
        for side in comp.sides:
            face = renderer.face(comp, card, side).face
            if face.key in seen:
                continue
            seen.add(face.key)
            for t in printed_texts(face):
                boxes[_trim_box(t, comp)] = None
    if len(_MEASURED) >= 64:
        _MEASURED.pop(next(iter(_MEASURED)))
    _MEASURED[key] = (game, list(boxes))
    return _MEASURED[key][1]


def placed(game: Game, comp: Component, set_number: int | None, level: int | None, lang: str) -> SetMark | None:
    """The mark of one set of a component's pieces, clear of what its faces print."""
    if set_number is None and level is None:
        return None
    # a level mark alone keeps its first spot (measuring a whole deck's faces here would cost a
    # default build half a second); every marked face is measured as it is drawn (see uncovered)
    avoid = text_boxes(game, comp, lang) if set_number is not None and crowded(comp) else []
    try:
        return place(comp, set_number, level, avoid)
    except NoRoom as exc:
        need = exc.first.size + 1.0
        raise InputError(f"component '{comp.id}' has no room for its set mark: every spot along its edge would "
                         f"cover a text its faces print ({lang})", comp.location,
                         f"widen its safe margin ('safe: {need:g}') or keep part of its edge free of text") from None


def uncovered(comp: Component, card: str, side: str, mark: SetMark, texts: Iterable[Printed], lang: str) -> None:
    """Refuse a face whose mark covers a text it prints (measured on the face as drawn, with
    its mark): whatever chose the spot, no set or level mark hides what a player reads."""
    for t in texts:
        if t.field in MARK_FIELDS:
            continue
        if covered(mark, _trim_box(t, comp), gap=0.0):
            what = "set mark" if mark.set is not None else "level mark"
            raise InputError(f"the {what} covers {t.text!r} on card '{card}' of component '{comp.id}' ({side}, "
                             f"{lang})", comp.location,
                             f"widen the component's safe margin ('safe: {mark.size + 1.0:g}'), or keep the "
                             "bottom edge of the piece free of text")


def _trim_box(text: Printed, comp: Component) -> Box:
    """A measured text's ink box in trim millimetres (it is measured on the bleed box)."""
    b = comp.bleed
    return text.x0 - b, text.y0 - b, text.x1 - b, text.y1 - b
