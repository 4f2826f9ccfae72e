"""Nobody misreads a card: three rules measured on the rendered faces (:mod:`cardgen.legibility`).

* ``rotated-index`` — a text turned upside down (the corner index a fanned hand shows) must
  not read as another symbol the other way up ('u' as 'n', 'd' as 'p', 'q' as 'b', '6' as
  '9', 'M' as 'W'), unless a mark under it shows which way is up, as playing cards underline
  6 and 9;
* ``text-size`` — no text is printed smaller than ``min_pt`` points at 100 % (default 6);
  The same rule holds every text on the piece: a text whose ink runs past the trim is cut off
  (and prints on the neighbouring card of a sheet): an error, always. Ink inside the trim but
  beyond the component's safe margin is a warning: it is printed on the piece, and a cut
  drifting inwards may shave it, which a label printed in the margin on purpose (the pawn's
  "glue" on its glue tab) may accept;
* ``text-contrast`` — every text stands out from what is painted behind it by at least
  ``min_ratio`` (default 4.5 : 1, WCAG 2 level AA), as it is seen: a shape painted after it,
  over it, veils its ink and its background alike, and an opaque one hides it.

A game loosens a limit only with a ``reason``, which the report lists as a choice. One text
drawn by one template line on many faces is one finding, at that line, naming the first card
that shows it. The rules measure only when the check renders faces (:func:`rendering`, set by
:func:`cardgen.check.check`): ``--no-render`` and a build's own rule check stay rules alone.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Iterator

from .. import schema as S
from ..errors import Finding, InputError, Location
from ..model import Game
from ..proof import Choice, Proof
from ..markroom import MARK_FIELDS
from . import declared

if TYPE_CHECKING:
    from ..legibility import FaceTexts, Printed

DEFAULT_MIN_PT = 6.0
DEFAULT_MIN_RATIO = 4.5

_RENDERING: ContextVar[bool] = ContextVar("cardgen_rules_render_faces", default=False)


@contextmanager
def rendering(on: bool) -> Iterator[None]:
    """Within this block the legibility rules render and measure the faces (``on``), as
    ``cardgen check`` does; outside it they say the faces were not rendered."""
    token = _RENDERING.set(on)
    try:
        yield
    finally:
        _RENDERING.reset(token)

Records = Iterator[Finding | Proof | Choice]


def rendered_faces(game: Game) -> list[FaceTexts] | None:
    """The game's faces with their measured texts (rendered here, in English; see
    :func:`cardgen.legibility.game_faces`), or none when faces are not rendered or one fails to."""
    if not _RENDERING.get():
        return None
    from ..legibility import Unrendered, game_faces   # rendering is needed only when these rules run
    try:
        return game_faces(game)
    except Unrendered:
        return None


def unrendered(rule: str, game: Game, params: S.Fields) -> Proof:
    """What the rule says when it could not measure: the check renders no faces (``--no-render``),
    or a face fails to render (the render pass and a build report the template error itself)."""
    why = ("a face fails to render (the render pass reports the template error)" if _RENDERING.get()
           else "faces not rendered (--no-render)")
    return Proof(rule, f"not measured: {why}", 0, game.id, params.loc)


def _calls(faces: list[FaceTexts]) -> Iterator[tuple[FaceTexts, list[Printed]]]:
    """Each (face, texts of one text() or symbol() call) of the faces, the call's texts in order."""
    for face in faces:
        groups: dict[int, list] = {}
        for printed in face.texts:
            groups.setdefault(printed.group, []).append(printed)
        for texts in groups.values():
            yield face, texts


def _limit(rule: str, game: Game, params: S.Fields, key: str, default: float, what: str) -> tuple[float, list[Choice]]:
    """The rule's limit from its check (``key``, or ``default``). A lower, looser limit needs a
    ``reason`` and is listed as a choice; a stricter one needs none."""
    value = params.get(key, S.number(positive=True), default)
    reason = params.get("reason", S.reason, None)
    if value >= default:
        return value, []
    if reason is None:
        raise InputError(f"check '{rule}' lowers {key} to {value:g} (the default is {default:g}) without a reason",
                         params.map.where(key), f"add 'reason: ...' saying why this game prints below {default:g}, "
                         f"or remove {key}")
    return value, [Choice(rule, f"{what} {value:g} instead of {default:g}", reason, params.map.where(key), game.id)]


def _where(game: Game, face: FaceTexts, printed: Printed) -> Location:
    """The template line of the text's call, or the face's template."""
    from ..legibility import source_of

    source = source_of(game, face.face, printed.n)
    if source is not None:
        return source
    return Location(face.face.template) if face.face.template else game.location


def _what(printed: Printed) -> str:
    field = f" (field '{printed.field}')" if printed.field else ""
    return f"{printed.text!r}{field}"


@declared("rotated-index", reads_faces=True)
def rotated_index(game: Game, params: S.Fields) -> Records:
    """No text turned upside down reads as another symbol, unless a mark under it shows which way is up."""
    faces = rendered_faces(game)
    if faces is None:
        yield unrendered("rotated-index", game, params)
        return
    findings: dict[tuple, Finding] = {}   # one per template line and text: the first face showing it
    turned = marked = 0
    for face, texts in _calls(faces):
        first = texts[0]
        if not first.upside_down:
            continue
        turned += 1
        if not first.turned_reading:
            continue
        if first.marked:
            marked += 1
            continue
        loc = _where(game, face, first)
        findings.setdefault((loc, first.text), Finding(
            "rotated-index", f"{face.where}: the text {_what(first)} is printed upside down and reads as "
            f"{first.turned_reading!r} the other way up, with no mark to tell which way is up", loc,
            f"draw a short rule or dot under {first.text!r} (as playing cards underline 6 and 9), or leave the "
            "turned copy out", game.id))
    yield from findings.values()
    if not findings:
        with_mark = f" ({marked} with a mark under {'it' if marked == 1 else 'them'})" if marked else ""
        yield Proof("rotated-index", f"{len(faces)} different faces: {turned} texts printed upside down, none reads "
                    f"as another symbol the other way up{with_mark}", turned, game.id, params.loc)


@declared("text-size", reads_faces=True)
def text_size(game: Game, params: S.Fields) -> Records:
    """No text is printed smaller than `min_pt` points at 100 % (default 6 pt)."""
    min_pt, choices = _limit("text-size", game, params, "min_pt", DEFAULT_MIN_PT, "smallest text size (pt)")
    yield from choices
    faces = rendered_faces(game)
    if faces is None:
        yield unrendered("text-size", game, params)
        return
    findings: dict[tuple, Finding] = {}
    count, smallest = 0, float("inf")
    for face, texts in _calls(faces):
        size = max(t.size_pt for t in texts)   # a symbol's sub- and superscripts go with its base
        count += 1
        smallest = min(smallest, size)
        if size < min_pt - 0.005:
            first = texts[0]
            loc = _where(game, face, first)
            mm = min_pt * 25.4 / 72
            findings.setdefault((loc, first.text, round(size, 1)), Finding(
                "text-size", f"{face.where}: the text {_what(first)} is printed at {size:.2f} pt, below the "
                f"{min_pt:g} pt minimum (at 100 % print scale)", loc,
                f"give it size and min_size of at least {mm:.2f} mm ({min_pt:g} pt), with room to fit", game.id))
    placed = dict(_outside_safe(game, faces))
    yield from findings.values()
    yield from placed.values()
    if not findings and not any(f.severity == "error" for f in placed.values()):
        held = (f"all {count} texts are at least {min_pt:g} pt at 100 % (the smallest {smallest:.1f} pt)"
                if count else "no text")
        yield Proof("text-size", f"{len(faces)} different faces: {held}", count, game.id, params.loc)


#: Ink this little past a line is float noise (mm).
_SLACK = 0.01
_EDGES = ("left", "top", "right", "bottom")


def _outside_safe(game: Game, faces: list[FaceTexts]) -> Iterator[tuple[tuple, Finding]]:
    """Texts printed where the cut may take them: ``(key, finding)`` for each template line,
    text and edge, naming the first card that shows it (see the module's docstring)."""
    for face, texts in _calls(faces):
        comp = game.components.get(face.face.component)
        if comp is None:
            continue
        x0, y0 = min(t.x0 for t in texts), min(t.y0 for t in texts)
        x1, y1 = max(t.x1 for t in texts), max(t.y1 for t in texts)
        b = comp.bleed
        # how far the ink reaches past each trim edge (positive: beyond it), mm
        past = (b - x0, b - y0, x1 - (b + comp.width), y1 - (b + comp.height))
        edge = max(range(4), key=lambda k: past[k])
        beyond = past[edge]
        # a glyph's ink may overhang its box by a little (a J's tail, an italic's slant): a text
        # set inside the safe area is not faulted for that, up to a tenth of its em
        overhang = 0.1 * max(t.size_pt for t in texts) * 25.4 / 72
        if beyond <= _SLACK and (beyond + comp.safe <= max(overhang, _SLACK) or texts[0].field in MARK_FIELDS):
            continue   # (a class set's or level's mark sits by the edge on purpose: only past the trim is it wrong)
        first = texts[0]
        loc = _where(game, face, first)
        fix = (f"move it, or give it a box (width, height) inside the safe area, {comp.safe:g} mm inside the trim "
               f"of the {comp.width:g} × {comp.height:g} mm {comp.kind}")
        if beyond > _SLACK:
            what, severity = (f"runs {beyond:.1f} mm past the {_EDGES[edge]} trim edge: the cut takes it off (and a "
                              "sheet prints it on the neighbouring piece)"), "error"
        else:
            what, severity = (f"crosses the {comp.safe:g} mm safe margin at the {_EDGES[edge]} edge, {-beyond:.1f} mm "
                              "inside the trim: a cut drifting inwards may shave it"), "warning"
        yield (loc, first.text, edge, severity), Finding(
            "text-size", f"{face.where}: the text {_what(first)} {what}", loc, fix, game.id, severity=severity)


def _low_contrast(text: Printed, min_ratio: float) -> tuple[str, str]:
    """What is wrong with a text below ``min_ratio`` and how to mend it: drawn without ink,
    painted over by a later shape, or too close in colour to what lies behind it."""
    below = f"below {min_ratio:g} : 1"
    if text.inkless:
        return (f"prints no ink: its fill is '{text.colour}' (a contrast of 1.00 : 1, {below})",
                "give it a fill colour (ink_on(fill) picks the dark or white ink that reads better on a fill)")
    if text.covered:
        return (f"is painted over by a shape the template draws after it ({text.background} where it shows least): "
                f"a contrast of {text.contrast:.2f} : 1, {below}",
                "draw the shape before the text (earlier in the template), or move one of them so they do not overlap")
    return (f"in {text.colour} on {text.background} has a contrast of {text.contrast:.2f} : 1, {below}",
            "darken or lighten the text or what lies behind it (ink_on(fill) picks the dark or white ink that reads "
            "better on a fill)")


@declared("text-contrast", reads_faces=True)
def text_contrast(game: Game, params: S.Fields) -> Records:
    """Every text contrasts with what is painted behind it by at least `min_ratio` (default 4.5 : 1, WCAG AA)."""
    min_ratio, choices = _limit("text-contrast", game, params, "min_ratio", DEFAULT_MIN_RATIO,
                                "lowest text contrast")
    yield from choices
    faces = rendered_faces(game)
    if faces is None:
        yield unrendered("text-contrast", game, params)
        return
    findings: dict[tuple, Finding] = {}
    count, lowest = 0, float("inf")
    for face, texts in _calls(faces):
        worst = min(texts, key=lambda t: t.contrast)
        count += 1
        lowest = min(lowest, worst.contrast)
        if worst.contrast < min_ratio - 0.005:
            loc = _where(game, face, worst)
            said, fix = _low_contrast(worst, min_ratio)
            findings.setdefault((loc, worst.text, worst.colour.lower(), worst.background), Finding(
                "text-contrast", f"{face.where}: the text {_what(worst)} {said}", loc, fix, game.id))
    yield from findings.values()
    if not findings:
        held = (f"all {count} texts contrast with their background by at least {min_ratio:g} : 1 (the lowest "
                f"{lowest:.1f} : 1)" if count else "no text")
        yield Proof("text-contrast", f"{len(faces)} different faces: {held}", count, game.id, params.loc)
