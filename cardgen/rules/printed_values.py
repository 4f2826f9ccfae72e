"""What a card prints is its particle's value: the text rendered in each declared field.

``pdg-values`` proves the data's values equal PDG's; this rule closes the gap between the data
and the paper. A template that prints another quantity under a label (the charge where the
spin belongs), a value typed into it, or a field drawn from the wrong particle would print a
wrong number from right data: the text each face prints in a declared field must be the
card's particle's value, formatted as the template filter of that quantity formats it in the
face's language. It reads the faces as measured for the legibility rules — in a check, the
faces it renders; in a build, the faces the workers measured — so it renders nothing more.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Callable, Iterator

from .. import format as fmt
from .. import i18n
from .. import pdg
from .. import schema as S
from ..errors import Finding, InputError
from ..model import Game
from ..particles import Particle
from ..proof import Proof
from . import declared
from .common import component_param, particle_field
from .legibility import rendered_faces, unrendered
from .pdg_values import QUANTITIES

RULE = "printed-values"



def _plain(text: str) -> str:
    """A text as compared: without direction marks, with its spaces as one."""
    kept = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(kept.split())


def _fields(value: object, loc, raw=None) -> dict[str, str]:
    f = S.Fields(value, "the printed fields", loc)
    out = {q: f.get(q, S.text) for q in QUANTITIES if f.has(q)}
    f.finish()
    if not out:
        raise InputError("no printed field is declared", loc,
                         f"name the text field of at least one of: {', '.join(QUANTITIES)}")
    return out


@declared(RULE, reads_faces=True)
def printed_values(game: Game, params: S.Fields) -> Iterator[Finding | Proof]:
    """Each face of ``component`` prints, in each field of ``fields`` (quantity → text field),
    its card's particle's value of that quantity, as the template filters format it."""
    comp = component_param(game, params)
    field = particle_field(comp, params)
    fields = params.get("fields", _fields)
    faces = rendered_faces(game)
    if faces is None:
        yield unrendered(RULE, game, params)
        return
    from ..legibility import source_of   # measuring is needed only once faces are rendered
    cards = {c.id: c for c in comp.cards}
    filters: dict[str, dict[str, Callable[[Any], str]]] = {}   # by language: the templates' own
    compared = 0
    for face in faces:
        if face.face.component != comp.id or face.face.side != "front" or face.face.card not in cards:
            continue
        p = cards[face.face.card].fields.get(field)
        if not isinstance(p, Particle):
            continue
        lang = face.face.lang
        if lang not in filters:
            tr = i18n.translator(game, lang)
            filters[lang] = fmt.quantity_filters(lang, lambda tr=tr: tr("stable", "lifetime") if tr else "stable")
        printed = {t.field: t for t in face.texts}
        for quantity, name in fields.items():
            want = filters[lang][quantity](getattr(p, quantity))
            got = printed.get(name)
            compared += 1
            if got is None or _plain(got.text) != _plain(want):
                shown = f"'{_plain(got.text)}'" if got is not None else "nothing"
                where = (source_of(game, face.face, got.n) if got is not None else None) or comp.where("front")
                yield Finding(RULE, f"{face.where}: field '{name}' prints {shown}, but the {quantity} of "
                              f"{p.name} is {want} (the data, equal to {pdg.EDITION})", where,
                              f"print {{{{ p.{quantity}|{quantity} }}}} of the card's particle in field '{name}' "
                              f"of {comp.front}", game.id)
    yield Proof(RULE, f"{comp.id}: {compared} printed values read from the rendered faces "
                f"({', '.join(fields)}) are their cards' particles' values", compared, game.id, params.loc)
