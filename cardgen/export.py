"""Digital exports: a PNG of every face, and Tabletop Simulator (TTS) decks.

Print needs bleed; screens do not. Each face is therefore written twice: with bleed (the whole
rendered face, for print services that take images) and trimmed (exactly ``bleed`` mm cut off
each edge, for screens, web pages and virtual tabletops).

TTS imports a deck from one image holding a grid of faces (at most 10 × 7, read row by row)
plus a back image, and loads a deck from a JSON save that points at those images. The bottom-
right cell of every sheet holds the "hidden" face (the back, or a plain placeholder): TTS shows
that cell when "Back is hidden" is switched off, so the sheet is right whichever way the user
sets it. Boards and pieces of outlines TTS cannot cut a card to get images of their own; which
object each component becomes, its shape and its size are :mod:`cardgen.tts_pieces`' business,
its name and tooltip :mod:`cardgen.tts_text`'s, and :mod:`cardgen.tts_validate` checks the save
before it is written. The image URLs written are local ``file://`` URIs — placeholders that work
on the machine that exported; to share a save, upload the images and replace the URLs.

Every file is a pure function of the game data: no dates, no random ids, PNGs without metadata.
Both exports are all or nothing: their files are staged and replace the previous export's only
once all are written (a template error or Ctrl-C halfway leaves the folder as it was), and no
face is drawn larger than :data:`cardgen.preview.MAX_FACE_PIXELS` or than TTS takes.
"""

from __future__ import annotations

import io
import json
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from PIL import Image

from . import interrupts
from ._callable import make_callable
from .errors import InputError, did_you_mean
from .i18n import translator
from .model import Card, Component, Game
from .output import commit, stage, staged_file
from .preview import (MM_PER_INCH, RenderedFace, check_dpi, check_drawable, check_pixels, contact_sheet, draw_png,
                      face_px, png_with_dpi, staged_run)
from .render import Face, Rendered, Renderer, TextIssue
from .tts_pieces import Guids, Table, custom_image_object, deck_type, outline_alpha
from .tts_text import card_text
from .tts_validate import MAX_COLS as TTS_MAX_COLS, MAX_IMAGE_SIDE as TTS_MAX_SIDE, MAX_ROWS as TTS_MAX_ROWS
from .tts_validate import check_save

#: Faces per sheet: the full grid minus the hidden cell.
TTS_FACES_PER_SHEET = TTS_MAX_COLS * TTS_MAX_ROWS - 1
#: TTS's deck importer takes no grid narrower or shorter than this.
TTS_MIN_CELLS = 2
#: The plain back of single-sided pieces and the hidden face when backs differ per card.
PLACEHOLDER_COLOUR = "#5b6770"


# --- pixels -----------------------------------------------------------------------------------

def bleed_px(bleed: float, dpi: float) -> int:
    """Pixels that ``bleed`` mm take at ``dpi``: where trimming starts, from the left and top."""
    return round(bleed * dpi / MM_PER_INCH)


def trim(image: Image.Image, bleed: float, dpi: float, size: tuple[float, float]) -> Image.Image:
    """The image without its bleed: the piece's trim ``size`` (mm) in the nearest whole number
    of pixels, from ``bleed_px`` on. Cropping the same pixels off every edge instead would make
    the image up to two pixels off its size (0.17 mm at 300 dpi), as each edge's rounding adds up."""
    cut = bleed_px(bleed, dpi)
    w, h = (round(v * dpi / MM_PER_INCH) for v in size)
    width, height = image.size
    if w < 1 or h < 1 or cut + w > width or cut + h > height:
        raise ValueError(f"a {size[0]:g} × {size[1]:g} mm piece with {bleed:g} mm bleed ({w}×{h} px from {cut} px) "
                         f"is not inside a {width}×{height} px image")
    return image.crop((cut, cut, cut + w, cut + h))


def encode_png(image: Image.Image) -> bytes:
    """PNG bytes with no metadata chunks, so identical pixels give identical files."""
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


def trimmed_px(comp: Component, dpi: float) -> tuple[int, int]:
    """The size in px of a component's trimmed face at ``dpi`` (what :func:`trim` cuts out)."""
    return face_px(comp.width, comp.height, dpi)


class _Rasteriser:
    """Rasterises each distinct face of one component once, at one dpi: a shared back is drawn
    for the first card and reused for the other 24 (faces are keyed by their SVG's content
    hash). It keeps the trimmed faces, which a TTS sheet needs together, never the full PNGs."""

    def __init__(self, comp: Component, dpi: float) -> None:
        self.comp, self.dpi = comp, dpi
        self._trimmed: dict[str, Image.Image] = {}

    def trimmed(self, face: Face) -> Image.Image:
        """The face without bleed, in RGB (TTS sheets and screens have no use for alpha)."""
        if face.key not in self._trimmed:
            self._trimmed[face.key] = trimmed_image(draw_png(face, self.dpi), self.comp, self.dpi)
        return self._trimmed[face.key]


def trimmed_image(png: bytes, comp: Component, dpi: float) -> Image.Image:
    """The face drawn as ``png`` without its bleed, in RGB."""
    with Image.open(io.BytesIO(png)) as im:
        return trim(im.convert("RGB"), comp.bleed, dpi, (comp.width, comp.height))


class _Reporting:
    """The game's renderer in ``lang``, telling ``on_issue`` what rendering each face reported
    (text that does not fit its box, characters no font covers): an export writes such faces,
    as ``cardgen render`` does, but says so — it wrote them without a word."""

    def __init__(self, game: Game, lang: str, on_issue: Callable[[TextIssue], None] | None) -> None:
        self.renderer = Renderer(game, lang, translate=translator(game, lang))
        self.on_issue = on_issue

    def face(self, comp: Component, card: Card, side: str) -> Rendered:
        result = self.renderer.face(comp, card, side)
        for issue in result.issues if self.on_issue is not None else ():
            self.on_issue(issue)
        return result


def _components(game: Game, ids: Iterable[str] | None) -> list[Component]:
    """The named components (all when ``ids`` is empty), or a one-line error for a typo."""
    wanted = list(ids or game.components)
    for cid in wanted:
        if cid not in game.components:
            raise InputError(f"unknown component '{cid}' in game '{game.id}'{did_you_mean(cid, game.components)}",
                             None, f"use one of: {', '.join(game.components)}")
    return [game.components[cid] for cid in wanted]


# --- PNG per face -----------------------------------------------------------------------------

def export_png(game: Game, lang: str, dpi: float, out: Path, components: Iterable[str] | None = None,
               on_progress: Callable[[str], None] | None = None,
               on_issue: Callable[[TextIssue], None] | None = None) -> list[Path]:
    """Write every side of every distinct card with bleed to ``OUT/<game>/<lang>/png/<component>/
    <card>.<side>.png`` and trimmed to the same path under ``png-trim``; returns the paths written.
    All or nothing: every component's size is checked against the pixel limit
    (:data:`cardgen.preview.MAX_FACE_PIXELS`) before anything is drawn, and the files are staged
    and replace the previous export's only once every face is drawn. One face's pixels are in
    memory at a time. ``on_progress(label)`` is told about each card done (see :func:`card_count`),
    ``on_issue(issue)`` what rendering a face reported (the face is written all the same)."""
    from .output import BuildLock

    comps = _components(game, components)
    for comp in comps:
        check_pixels(comp, dpi)
    renderer = _Reporting(game, lang, on_issue)
    root = out / game.id / lang
    folders = [root / kind / comp.id for comp in comps for kind in ("png", "png-trim")]
    # a build or another export into the same folder waits its turn
    with BuildLock(out), staged_run(folders) as staged:
        for comp in comps:
            _stage_component(renderer, comp, dpi, root, staged, on_progress)
        with interrupts.deferred():   # swapped in and cleaned up as one step
            commit(staged)
            for comp in comps:
                _drop_stale(root, comp.id, staged)
    return staged


def _stage_component(renderer: _Reporting, comp: Component, dpi: float, root: Path, staged: list[Path],
                     on_progress: Callable[[str], None] | None) -> None:
    """Stage the PNGs of a component's faces, appending their paths to ``staged``. Each distinct
    face is drawn once: a shared back's files are copied from those staged for the first card."""
    first: dict[str, tuple[Path, Path]] = {}   # face key → the paths it was staged for first
    for card in comp.cards:
        for side in comp.sides:
            face = renderer.face(comp, card, side).face
            name = f"{card.id}.{side}.png"
            paths = (root / "png" / comp.id / name, root / "png-trim" / comp.id / name)
            staged += _stage_face(face, comp, dpi, paths, first.get(face.key))
            first.setdefault(face.key, paths)
        if on_progress is not None:
            on_progress(f"{comp.id}/{card.id}")


def _stage_face(face: Face, comp: Component, dpi: float, paths: tuple[Path, Path],
                drawn: tuple[Path, Path] | None) -> list[Path]:
    """Stage a face with bleed and trimmed at ``paths``: drawn now, or copied from the files
    staged for ``drawn`` when the same face was drawn before."""
    if drawn is not None:
        data = [staged_file(path).read_bytes() for path in drawn]
    else:
        png = draw_png(face, dpi)
        data = [png, png_with_dpi(encode_png(trimmed_image(png, comp, dpi)), dpi)]
    return [stage(path, content) for path, content in zip(paths, data)]


def _drop_stale(root: Path, comp_id: str, written: list[Path]) -> None:
    """Remove a component's PNGs this export did not write: those of a card renamed or removed
    since the last export (a 50-face deck had left 52 images)."""
    kept = set(written)
    for kind in ("png", "png-trim"):
        for old in (root / kind / comp_id).glob("*.png"):
            if old not in kept:
                old.unlink(missing_ok=True)


def card_count(game: Game, components: Iterable[str] | None = None) -> int:
    """Distinct cards an export goes through: the total its progress reports count up to."""
    return sum(len(comp.cards) for comp in _components(game, components))


# --- Tabletop Simulator -----------------------------------------------------------------------

@dataclass(frozen=True)
class Grid:
    """A deck sheet's layout in cells; the last cell (bottom-right) is the hidden face."""

    cols: int
    rows: int

    @property
    def hidden(self) -> int:
        return self.cols * self.rows - 1


def tts_grid(faces: int, cell: tuple[int, int]) -> Grid:
    """The grid for ``faces`` card faces plus the hidden cell: the fewest cells (least wasted
    texture), then the shortest longest side for cells of size ``cell`` (least down-scaling
    to fit 4096 px), then the widest."""
    if not 1 <= faces <= TTS_FACES_PER_SHEET:
        raise ValueError(f"a TTS sheet holds 1 to {TTS_FACES_PER_SHEET} faces, not {faces}")
    fits = [Grid(c, r) for c in range(TTS_MIN_CELLS, TTS_MAX_COLS + 1) for r in range(TTS_MIN_CELLS, TTS_MAX_ROWS + 1)
            if c * r >= faces + 1]
    return min(fits, key=lambda g: (g.cols * g.rows, max(g.cols * cell[0], g.rows * cell[1]), -g.cols))


def tts_cell(card: tuple[int, int], grids: Iterable[Grid]) -> tuple[int, int]:
    """Cell size in px: the card's size at the export dpi, scaled down (never up) just enough
    that every one of ``grids`` fits in TTS_MAX_SIDE px; one size for all of a component's sheets."""
    scale = _cell_scale(card, grids)
    return max(1, math.floor(card[0] * scale)), max(1, math.floor(card[1] * scale))


def _cell_scale(card: tuple[int, int], grids: Iterable[Grid]) -> float:
    """How much cells of ``card`` px shrink (never grow) for every one of ``grids`` to fit TTS_MAX_SIDE px."""
    width, height = card
    return min([1.0] + [TTS_MAX_SIDE / max(g.cols * width, g.rows * height) for g in grids])


def _sheet_cards(comp: Component) -> list[tuple[Card, ...]]:
    """A deck's distinct cards, sheet by sheet."""
    return [tuple(comp.cards[i:i + TTS_FACES_PER_SHEET]) for i in range(0, len(comp.cards), TTS_FACES_PER_SHEET)]


def _deck_grids(comp: Component, card: tuple[int, int]) -> list[Grid]:
    """The grid of each of a deck's sheets, for cards of ``card`` px."""
    return [tts_grid(len(cards), card) for cards in _sheet_cards(comp)]


def tts_dpi(comp: Component, dpi: float) -> float:
    """The dpi a component's faces are drawn at for TTS: ``dpi``, lowered (never raised) so that
    the largest image TTS is given of them, a deck's sheet or a board's or token's own image,
    is at most TTS_MAX_SIDE px. Drawn at that size rather than drawn at ``dpi`` and scaled down:
    a 560 × 380 mm board at 1200 dpi was 475 Mpx, and memory ran out, before it was cut to 4096 px."""
    card = trimmed_px(comp, dpi)
    if comp.kind == "board" or deck_type(comp.shape) is None:
        return dpi * min(1.0, TTS_MAX_SIDE / max(*card, 1))
    return dpi * _cell_scale(card, _deck_grids(comp, card))


@dataclass(frozen=True)
class _Sheet:
    """One sheet of a component: its CustomDeck key and the distinct cards in its cells."""

    key: int
    cards: tuple[Card, ...]
    grid: Grid


def _compose(cells: list[Image.Image], grid: Grid, cell: tuple[int, int], hidden: Image.Image) -> Image.Image:
    """Cells row by row from the top left, ``hidden`` in the bottom-right cell; unused cells white."""
    sheet = Image.new("RGB", (grid.cols * cell[0], grid.rows * cell[1]), "white")
    for index, image in [*enumerate(cells), (grid.hidden, hidden)]:
        sheet.paste(_fit(image, cell), ((index % grid.cols) * cell[0], (index // grid.cols) * cell[1]))
    return sheet


def _fit(image: Image.Image, cell: tuple[int, int]) -> Image.Image:
    return image if image.size == cell else image.resize(cell, Image.LANCZOS)


def export_tts(game: Game, lang: str, out: Path, dpi: float = 300, components: Iterable[str] | None = None,
               on_progress: Callable[[str], None] | None = None,
               on_issue: Callable[[TextIssue], None] | None = None) -> Path:
    """Write TTS images and a showcase per component to ``OUT/<game>/<lang>/tts/``, and the save
    that loads them all (``<game>.json``); returns the save's path. Decks, boards and tokens are
    chosen, shaped and sized as :mod:`cardgen.tts_pieces` explains; the save is checked by
    :mod:`cardgen.tts_validate` first and not written when TTS would load it wrongly.
    ``on_progress(label)`` is told about each card rasterised (see :func:`card_count`),
    ``on_issue(issue)`` what rendering a face reported, as for :func:`export_png`."""
    from .output import BuildLock

    with BuildLock(out):   # a build or another export into the same folder waits its turn
        return _export_tts(game, lang, out, dpi, components, on_progress, on_issue)


def _export_tts(game: Game, lang: str, out: Path, dpi: float, components: Iterable[str] | None,
                on_progress: Callable[[str], None] | None, on_issue: Callable[[TextIssue], None] | None) -> Path:
    """All or nothing, as :func:`export_png`: the files are staged, checked and swapped in together."""
    check_dpi(dpi)
    comps = _components(game, components)
    for comp in comps:   # tts_dpi bounds the trimmed face, not its bleed, which a library caller's dpi could make huge
        check_drawable(comp, dpi)
        check_pixels(comp, tts_dpi(comp, dpi))
    renderer = _Reporting(game, lang, on_issue)
    folder = out / game.id / lang / "tts"
    with staged_run([folder]) as staged:
        pieces = _Pieces(game, lang, folder, translator(game, lang), staged)
        for comp in comps:
            _add_component(pieces, renderer, comp, dpi, on_progress)
        path = _stage_save(game, lang, pieces)
        staged.append(path)
        earlier = _tts_products(folder, game)
        staged.append(stage(folder / TTS_RECORD, "".join(f"{p.name}\n" for p in staged).encode("utf-8")))
        with interrupts.deferred():   # swapped in and cleaned up as one step
            commit(staged)
            for name in earlier - {p.name for p in staged}:
                (folder / name).unlink(missing_ok=True)
    return path


#: The files a Tabletop Simulator export wrote into its folder, one name a line: the next export
#: removes those it does not write again (a renamed card's image, a component left out).
TTS_RECORD = ".cardgen-export"


def _tts_products(folder: Path, game: Game) -> set[str]:
    """The files an earlier export wrote into ``folder``: those its record lists, and — from an
    export older than the record — every image named after a component of the game and the
    save. A file of the user's own in the folder is neither, and stays."""
    names: set[str] = set()
    try:
        names = {n for n in (folder / TTS_RECORD).read_text(encoding="utf-8").splitlines() if n and "/" not in n
                 and n not in (".", "..")}
    except (OSError, UnicodeDecodeError):
        pass
    if folder.is_dir():
        prefixes = tuple(f"{cid}-" for cid in game.components)
        names |= {f.name for f in folder.glob("*.png") if f.name.startswith(prefixes)}
    return names


def _add_component(pieces: "_Pieces", renderer: _Reporting, comp: Component, dpi: float,
                   on_progress: Callable[[str], None] | None) -> None:
    """Draw a component's faces at the dpi TTS needs of them (:func:`tts_dpi`), and stage its
    piece's images and showcase."""
    raster = _Rasteriser(comp, tts_dpi(comp, dpi))
    front_faces = [renderer.face(comp, card, "front").face for card in comp.cards]
    back_faces = [renderer.face(comp, card, "back").face for card in comp.cards] if comp.back else []
    fronts, backs = [], []
    for n, card in enumerate(comp.cards):
        fronts.append(raster.trimmed(front_faces[n]))
        if back_faces:
            backs.append(raster.trimmed(back_faces[n]))
        if on_progress is not None:
            on_progress(f"{comp.id}/{card.id}")
    pieces.add(comp, fronts, backs, len({face.key for face in back_faces}) > 1, trimmed_px(comp, dpi))
    _write_showcase(pieces.game, comp, pieces.lang, front_faces, fronts, pieces.folder / f"{comp.id}-showcase.png",
                    pieces.write)


def _stage_save(game: Game, lang: str, pieces: "_Pieces") -> Path:
    """Stage the save that loads every piece, checked against the staged images it points at."""
    save = {
        "SaveName": f"{game.name} ({lang})", "GameMode": game.name, "Date": "", "VersionNumber": "",
        "Note": ("Written by cardgen. The image URLs are file:// paths on the computer that exported this "
                 "save; upload the PNGs next to this file and replace them with their web addresses to share it."),
        "ObjectStates": pieces.objects,
    }
    path = pieces.folder / f"{game.id}.json"
    check_save(save, path, locate=staged_file)
    return stage(path, (json.dumps(save, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))


class _Pieces:
    """The save's objects, one per component, with the images they point at staged as they are
    made (their paths appended to ``staged``): CustomDeck keys, GUIDs and table places are
    unique across the save."""

    def __init__(self, game: Game, lang: str, folder: Path, translate: Callable[..., str] | None,
                 staged: list[Path]) -> None:
        self.game, self.lang, self.folder, self.translate, self.staged = game, lang, folder, translate, staged
        self.objects: list[dict[str, Any]] = []
        self.guid = Guids()
        self.table = Table()
        self.next_key = 1   # CustomDeck keys are unique across the save, so decks can be merged in TTS

    def write(self, path: Path, data: bytes) -> None:
        """Stage one of the save's files."""
        self.staged.append(stage(path, data))

    def add(self, comp: Component, fronts: list[Image.Image], backs: list[Image.Image], unique_back: bool,
            card: tuple[int, int]) -> None:
        """The component's piece, from its trimmed faces; ``card`` is a card's size in px at the
        export's dpi, which a deck's sheets are laid out for (the faces may be drawn smaller,
        at :func:`tts_dpi`)."""
        shape = deck_type(comp.shape)
        if comp.kind == "board":
            self.objects += self._boards(comp, fronts)
        elif shape is None:
            self.objects.append(self._tokens(comp, fronts))
        else:
            self.objects.append(self._deck(comp, fronts, backs, unique_back, shape, card))

    def _text(self, comp: Component, card: Card) -> tuple[str, str]:
        return card_text(self.game, comp, card, self.lang, self.translate)

    def _name(self, comp: Component) -> str:
        return self.translate(comp.name, "component") if self.translate else comp.name

    def _deck(self, comp: Component, fronts: list[Image.Image], backs: list[Image.Image], unique_back: bool,
              shape: int, card: tuple[int, int]) -> dict[str, Any]:
        """A ``DeckCustom`` holding one ``Card`` per physical card, or a lone ``Card`` for a
        component of one piece. Card ids are deck key × 100 + cell index, as TTS numbers them."""
        sheets = [_Sheet(self.next_key + n, cards, grid)
                  for n, (cards, grid) in enumerate(zip(_sheet_cards(comp), _deck_grids(comp, card)))]
        self.next_key += len(sheets)
        cell = tts_cell(card, [s.grid for s in sheets])
        decks = _write_sheets(comp, sheets, fronts, backs, unique_back, shape, cell, self.folder, self.write)
        transform = self.table.transform(comp.width, comp.height, face_down=True)
        common = {"Transform": transform, "SidewaysCard": comp.width > comp.height, "HideWhenFaceDown": True}
        cards: list[dict[str, Any]] = []
        for sheet in sheets:
            deck = {str(sheet.key): decks[str(sheet.key)]}
            for index, card in enumerate(sheet.cards):
                nickname, description = self._text(comp, card)
                cards += [{"GUID": self.guid(f"{comp.id}/{card.id}/{n}"), "Name": "Card", "Nickname": nickname,
                           "Description": description, "CardID": sheet.key * 100 + index, "CustomDeck": deck,
                           **common} for n in range(card.count)]
        if len(cards) == 1:
            return cards[0]
        return {"GUID": self.guid(comp.id), "Name": "DeckCustom", "Nickname": self._name(comp), "Description": "",
                **common, "DeckIDs": [c["CardID"] for c in cards], "CustomDeck": decks, "ContainedObjects": cards}

    def _boards(self, comp: Component, fronts: list[Image.Image]) -> list[dict[str, Any]]:
        """One ``Custom_Board`` per board, its image no larger than TTS takes."""
        boards = []
        for card, front in zip(comp.cards, fronts):
            path = self.folder / f"{comp.id}-{card.id}.png"
            self.write(path, encode_png(_within(front, TTS_MAX_SIDE)))
            nickname, description = self._text(comp, card)
            for n in range(card.count):
                boards.append(custom_image_object(
                    "Custom_Board", self.guid(f"{comp.id}/{card.id}/{n}"), nickname, description,
                    self.table.transform(comp.width, comp.height, face_down=False), path.resolve().as_uri()))
        return boards

    def _tokens(self, comp: Component, fronts: list[Image.Image]) -> dict[str, Any]:
        """Pieces of an outline TTS cannot cut a card to: a ``Custom_Token`` per copy, cut along
        the alpha of its face, in a ``Bag`` to draw from (or alone, for a single piece)."""
        transform = self.table.transform(comp.width, comp.height, face_down=False)
        tokens = []
        for card, front in zip(comp.cards, fronts):
            path = self.folder / f"{comp.id}-{card.id}.png"
            self.write(path, encode_png(_within(outline_alpha(front, comp.shape, comp.width), TTS_MAX_SIDE)))
            nickname, description = self._text(comp, card)
            tokens += [custom_image_object("Custom_Token", self.guid(f"{comp.id}/{card.id}/{n}"), nickname,
                                           description, transform, path.resolve().as_uri())
                       for n in range(card.count)]
        if len(tokens) == 1:
            return tokens[0]
        return {"GUID": self.guid(comp.id), "Name": "Bag", "Nickname": self._name(comp), "Description": "",
                "Transform": {**transform, "scaleX": 1.0, "scaleZ": 1.0}, "ContainedObjects": tokens}


def _within(image: Image.Image, side: int) -> Image.Image:
    """``image`` scaled down (never up) so that its longer side is at most ``side`` px. Faces are
    drawn at the size TTS takes (:func:`tts_dpi`): this only takes off a pixel rounding added."""
    factor = side / max(image.size)
    if factor >= 1:
        return image
    return image.resize((max(1, math.floor(image.width * factor)), max(1, math.floor(image.height * factor))),
                        Image.LANCZOS)


def _write_sheets(comp: Component, sheets: list[_Sheet], fronts: list[Image.Image], backs: list[Image.Image],
                  unique_back: bool, shape: int, cell: tuple[int, int], folder: Path,
                  write: Callable[[Path, bytes], None]) -> dict[str, dict[str, Any]]:
    """Write the face sheets and the back (one shared image, or back sheets laid out like the
    face sheets when backs differ per card) with ``write``, each face in a ``cell`` px cell;
    returns the CustomDeck entries by key, each with the TTS card shape ``shape`` that cuts the
    piece's outline."""
    placeholder = Image.new("RGB", cell, PLACEHOLDER_COLOUR)
    hidden = _fit(backs[0], cell) if backs and not unique_back else placeholder
    shared_back_url = ""
    if not unique_back:
        back_path = folder / f"{comp.id}-back.png"
        write(back_path, encode_png(hidden))
        shared_back_url = back_path.resolve().as_uri()
    decks: dict[str, dict[str, Any]] = {}
    first = 0
    for n, sheet in enumerate(sheets, start=1):
        span = range(first, first + len(sheet.cards))
        first += len(sheet.cards)
        face_path = folder / f"{comp.id}-sheet-{n}.png"
        write(face_path, encode_png(_compose([fronts[i] for i in span], sheet.grid, cell, hidden)))
        back_url = shared_back_url
        if unique_back:
            back_path = folder / f"{comp.id}-back-sheet-{n}.png"
            write(back_path, encode_png(_compose([backs[i] for i in span], sheet.grid, cell, placeholder)))
            back_url = back_path.resolve().as_uri()
        decks[str(sheet.key)] = {
            "FaceURL": face_path.resolve().as_uri(), "BackURL": back_url,
            "NumWidth": sheet.grid.cols, "NumHeight": sheet.grid.rows,
            "BackIsHidden": True, "UniqueBack": unique_back, "Type": shape}
    return decks


def _write_showcase(game: Game, comp: Component, lang: str, faces: list[Face], fronts: list[Image.Image],
                    path: Path, write: Callable[[Path, bytes], None]) -> None:
    """Every distinct front, labelled, on one image written with ``write``: the preview's contact
    sheet, fed the trimmed fronts through scratch files because it reads faces from disk."""
    with tempfile.TemporaryDirectory(prefix="cardgen-showcase-") as tmp:
        shown = []
        for face, image in zip(faces, fronts):
            svg, png = Path(tmp) / f"{face.card}.svg", Path(tmp) / f"{face.card}.png"
            svg.write_text(face.svg, encoding="utf-8")
            png.write_bytes(encode_png(image))
            shown.append(RenderedFace(face, svg, png))
        write(path, contact_sheet(shown, f"{game.name} — {comp.name} ({lang})"))


make_callable(__name__, "export")   # cardgen.export(...) is cardgen.api.export (see cardgen._callable)
