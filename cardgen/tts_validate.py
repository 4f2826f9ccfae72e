"""Checks a Tabletop Simulator save against the fields and limits TTS reads, before it is written.

TTS loads a broken save without a word: a card whose id points past its sheet shows another
card, a ``Type`` out of range falls back to a rounded rectangle, a sheet wider than 10 cells
or larger than its texture limit comes out blurred or blank. :func:`save_problems` finds
those mistakes in the JSON (and in the images it points at, for local ``file://`` URLs);
:func:`check_save` turns them into one error, so the exporter never writes a save TTS would
load wrongly. Tests call the same functions on every save they export.

The fields and ranges follow the save format as TTS writes it: the card shapes from the TTS API
reference ("Custom Game Objects", api.tabletopsimulator.com: 0 Rectangle (Rounded), 1 Rectangle,
2 Hex (Rounded), 3 Hex, 4 Circle), sheets and image sizes from the Knowledge Base ("Custom Deck":
the last cell is the hidden face; "Asset Creation": keep images under 4096 × 4096), the keys of
decks, cards and custom images as saves hold them (the typings of typed-tabletop-simulator's
data package list the same).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping
from urllib.parse import urlparse
from urllib.request import url2pathname

from PIL import Image, UnidentifiedImageError

from .errors import InputError

#: ``CustomDeck.Type``: 0 rounded rectangle, 1 rectangle, 2 rounded hexagon, 3 hexagon, 4 circle.
DECK_TYPES = range(0, 5)
#: A deck sheet has 1 to 10 columns and 1 to 7 rows (the Deck Builder's and importer's limits).
MAX_COLS, MAX_ROWS = 10, 7
#: Longest side of any image TTS is given: larger textures are refused or down-sampled by the GPU.
MAX_IMAGE_SIDE = 4096
#: A card id is deck key × 100 + cell index, so a cell index is at most 99 and keys start at 1.
CARD_ID_BASE = 100
TRANSFORM_KEYS = ("posX", "posY", "posZ", "rotX", "rotY", "rotZ", "scaleX", "scaleY", "scaleZ")
DECK_KEYS = {"FaceURL": str, "BackURL": str, "NumWidth": int, "NumHeight": int, "BackIsHidden": bool,
             "UniqueBack": bool, "Type": int}
OBJECT_NAMES = ("Card", "DeckCustom", "Custom_Board", "Custom_Token", "Bag")
_GUID = re.compile(r"[0-9a-f]{6}")
#: Problems reported in one error at most: the first few are enough to find the bug.
SHOWN_PROBLEMS = 8


def check_save(save: Mapping[str, Any], path: Path, locate: Callable[[Path], Path] | None = None) -> None:
    """Raise an error naming every problem (up to :data:`SHOWN_PROBLEMS`) of a save about to be
    written to ``path``; return quietly when TTS will load it as meant. ``locate`` is as for
    :func:`save_problems`."""
    problems = list(save_problems(save, locate))
    if problems:
        more = f" (and {len(problems) - SHOWN_PROBLEMS} more)" if len(problems) > SHOWN_PROBLEMS else ""
        raise InputError(f"the Tabletop Simulator save would not load as meant: "
                         f"{'; '.join(problems[:SHOWN_PROBLEMS])}{more}", None,
                         f"nothing was written to {path.name}; fix the component sizes or report this as a bug")


def save_problems(save: Mapping[str, Any], locate: Callable[[Path], Path] | None = None) -> Iterator[str]:
    """Every way ``save`` breaks the format, each as 'where: what' (where is a JSON path).
    ``locate(path)`` is where the image a ``file://`` URL names is read from until the save is
    written: an export stages its images and swaps them in only after the check."""
    if not isinstance(save.get("SaveName"), str):
        yield "SaveName: missing or not text"
    objects = save.get("ObjectStates")
    if not isinstance(objects, list) or not objects:
        yield "ObjectStates: missing or empty"
        return
    guids: dict[str, str] = {}
    images = _Headers(locate or (lambda path: path))
    for n, obj in enumerate(objects):
        yield from _object(obj, f"ObjectStates[{n}]", guids, images)


def _object(obj: Any, where: str, guids: dict[str, str], images: dict[str, Any]) -> Iterator[str]:
    if not isinstance(obj, Mapping):
        yield f"{where}: not an object"
        return
    name = obj.get("Name")
    if name not in OBJECT_NAMES:
        yield f"{where}.Name: {name!r} is not one of {', '.join(OBJECT_NAMES)}"
        return
    yield from _common(obj, where, guids)
    if name == "Card":
        yield from _card(obj, where, images)
    elif name == "DeckCustom":
        yield from _deck(obj, where, guids, images)
    elif name == "Bag":
        contained = obj.get("ContainedObjects")
        if not isinstance(contained, list) or not contained:
            yield f"{where}.ContainedObjects: a bag of nothing"
            return
        for n, inner in enumerate(contained):
            yield from _object(inner, f"{where}.ContainedObjects[{n}]", guids, images)
    else:
        yield from _custom_image(obj, where, name, images)


def _common(obj: Mapping[str, Any], where: str, guids: dict[str, str]) -> Iterator[str]:
    """GUID, Nickname, Description and Transform: what every object has."""
    guid = obj.get("GUID")
    if not isinstance(guid, str) or not _GUID.fullmatch(guid):
        yield f"{where}.GUID: {guid!r} is not 6 lower-case hex digits"
    elif guid in guids:
        yield f"{where}.GUID: {guid} is already used by {guids[guid]}"
    else:
        guids[guid] = where
    for key in ("Nickname", "Description"):
        if not isinstance(obj.get(key), str):
            yield f"{where}.{key}: missing or not text"
    transform = obj.get("Transform")
    if not isinstance(transform, Mapping):
        yield f"{where}.Transform: missing"
        return
    for key in TRANSFORM_KEYS:
        value = transform.get(key)
        if not _is_number(value):
            yield f"{where}.Transform.{key}: {value!r} is not a number"
        elif key.startswith("scale") and value <= 0:
            yield f"{where}.Transform.{key}: {value} is not positive"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def _card(obj: Mapping[str, Any], where: str, images: dict[str, Any]) -> Iterator[str]:
    """A card names its sheet by the hundreds of its id and its cell by the rest."""
    card_id = obj.get("CardID")
    decks = obj.get("CustomDeck")
    if not isinstance(card_id, int) or isinstance(card_id, bool) or card_id < CARD_ID_BASE:
        yield f"{where}.CardID: {card_id!r} is not deck key × 100 + cell index"
        return
    if not isinstance(decks, Mapping):
        yield f"{where}.CustomDeck: missing"
        return
    key, cell = divmod(card_id, CARD_ID_BASE)
    deck = decks.get(str(key))
    if deck is None:
        yield f"{where}.CardID: {card_id} names sheet {key}, which its CustomDeck does not hold"
        return
    yield from _sheet(deck, f"{where}.CustomDeck.{key}", images)
    cols, rows = deck.get("NumWidth"), deck.get("NumHeight")
    if isinstance(cols, int) and isinstance(rows, int) and cell >= cols * rows - 1:
        yield (f"{where}.CardID: {card_id} is cell {cell} of a {cols} × {rows} sheet, whose last cell "
               f"({cols * rows - 1}) is the hidden face")


def _deck(obj: Mapping[str, Any], where: str, guids: dict[str, str], images: dict[str, Any]) -> Iterator[str]:
    decks, ids, contained = obj.get("CustomDeck"), obj.get("DeckIDs"), obj.get("ContainedObjects")
    if not isinstance(decks, Mapping) or not decks:
        yield f"{where}.CustomDeck: missing or empty"
        return
    if not isinstance(ids, list) or not isinstance(contained, list) or len(contained) < 2:
        yield f"{where}: a deck needs DeckIDs and at least two ContainedObjects"
        return
    for key, deck in decks.items():
        if not str(key).isdigit() or int(key) < 1:
            yield f"{where}.CustomDeck: key {key!r} is not a positive whole number"
        yield from _sheet(deck, f"{where}.CustomDeck.{key}", images)
    if ids != [c.get("CardID") if isinstance(c, Mapping) else None for c in contained]:
        yield f"{where}.DeckIDs: not the CardIDs of ContainedObjects, in order"
    for n, card in enumerate(contained):
        yield from _contained(card, f"{where}.ContainedObjects[{n}]", decks, guids, images)


def _contained(card: Any, where: str, decks: Mapping[str, Any], guids: dict[str, str],
               images: dict[str, Any]) -> Iterator[str]:
    """A card inside a deck: a whole card, from one of the deck's own sheets."""
    if not isinstance(card, Mapping) or card.get("Name") != "Card":
        yield f"{where}: a deck holds only cards"
        return
    yield from _common(card, where, guids)
    yield from _card(card, where, images)
    card_id = card.get("CardID")
    if isinstance(card_id, int) and str(card_id // CARD_ID_BASE) not in decks:
        yield f"{where}.CardID: sheet {card_id // CARD_ID_BASE} is not in the deck's CustomDeck"


def _sheet(deck: Any, where: str, images: dict[str, Any]) -> Iterator[str]:
    """One CustomDeck entry: its keys and types, grid limits, shape type and sheet images."""
    if not isinstance(deck, Mapping):
        yield f"{where}: not an object"
        return
    for key, kind in DECK_KEYS.items():
        value = deck.get(key)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            yield f"{where}.{key}: {value!r} is not {kind.__name__}"
            return
    cols, rows = deck["NumWidth"], deck["NumHeight"]
    if not (1 <= cols <= MAX_COLS and 1 <= rows <= MAX_ROWS) or cols * rows < 2:
        yield f"{where}: a {cols} × {rows} sheet is outside TTS's 1–{MAX_COLS} × 1–{MAX_ROWS} cells (2 at least)"
    if deck["Type"] not in DECK_TYPES:
        yield f"{where}.Type: {deck['Type']} is not a TTS card shape (0–{DECK_TYPES[-1]})"
    yield from _image(deck["FaceURL"], f"{where}.FaceURL", images, (cols, rows))
    yield from _image(deck["BackURL"], f"{where}.BackURL", images, (cols, rows) if deck["UniqueBack"] else None)


def _custom_image(obj: Mapping[str, Any], where: str, name: str, images: dict[str, Any]) -> Iterator[str]:
    """Custom_Board and Custom_Token: one image; a token also its cut-out settings."""
    custom = obj.get("CustomImage")
    if not isinstance(custom, Mapping) or not isinstance(custom.get("ImageURL"), str):
        yield f"{where}.CustomImage.ImageURL: missing"
        return
    yield from _image(custom["ImageURL"], f"{where}.CustomImage.ImageURL", images, None,
                      alpha=name == "Custom_Token")
    if name == "Custom_Token":
        token = custom.get("CustomToken")
        if not isinstance(token, Mapping):
            yield f"{where}.CustomImage.CustomToken: missing"
            return
        for key in ("Thickness", "MergeDistancePixels"):
            if not _is_number(token.get(key)) or token[key] <= 0:
                yield f"{where}.CustomImage.CustomToken.{key}: {token.get(key)!r} is not a positive number"


def _image(url: str, where: str, images: dict[str, Any], grid: tuple[int, int] | None,
           alpha: bool = False) -> Iterator[str]:
    """A non-empty URL; a local file must exist, be a PNG or JPEG within the size limit, split
    into whole cells when it is a sheet, and (a token) have an alpha channel to cut along."""
    if not url:
        yield f"{where}: empty"
        return
    parsed = urlparse(url)
    if parsed.scheme in ("http", "https"):
        return
    if parsed.scheme != "file":
        yield f"{where}: {url!r} is neither a file:// nor a web address"
        return
    found = images[url]
    if isinstance(found, str):
        yield f"{where}: {found}"
        return
    (width, height), mode = found
    if max(width, height) > MAX_IMAGE_SIDE:
        yield f"{where}: {width} × {height} px is larger than {MAX_IMAGE_SIDE} px"
    if grid is not None and (width % grid[0] or height % grid[1]):
        yield f"{where}: {width} × {height} px does not split into {grid[0]} × {grid[1]} whole cells"
    if alpha and "A" not in mode:
        yield f"{where}: a token image needs transparency outside the piece's outline"


class _Headers(dict):
    """Size and mode of the images a save points at, by ``file://`` URL, each read once, from
    where ``locate`` says the file is (or why it cannot be read)."""

    def __init__(self, locate: Callable[[Path], Path]) -> None:
        super().__init__()
        self.locate = locate

    def __missing__(self, url: str) -> tuple[tuple[int, int], str] | str:
        self[url] = _read_header(self.locate(Path(url2pathname(urlparse(url).path))))
        return self[url]


def _read_header(path: Path) -> tuple[tuple[int, int], str] | str:
    try:
        with Image.open(path) as im:
            if im.format not in ("PNG", "JPEG"):
                return f"{path.name} is {im.format}, not PNG or JPEG"
            return im.size, im.mode
    except FileNotFoundError:
        return f"{path} does not exist"
    except (OSError, UnidentifiedImageError):
        return f"{path.name} is not an image"
