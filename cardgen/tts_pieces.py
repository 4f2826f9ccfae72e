"""How a printed piece becomes a Tabletop Simulator object: which object, which shape, how big.

**Object.** A board (``kind: board``) is a ``Custom_Board``: one image, laid flat and locked.
Every other piece is a card of a ``DeckCustom`` when TTS has a card shape for its outline
(:func:`deck_type`), so it can be shuffled, dealt and flipped to its back. TTS cuts cards only
as rectangles, hexagons and circles; a piece of any other outline (a lozenge) becomes one
``Custom_Token`` per copy — TTS cuts a token along the alpha channel of its image, so the piece
keeps its exact outline — and the copies go into a ``Bag``, drawn at random like a shuffled
deck. A token has a single image, so such a piece shows its front on both sides in TTS.

**Size.** A save carries no millimetres, only a scale per object. TTS draws an object of scale 1
at the height of its standard card, a poker card 3.5 in (88.9 mm) tall, and takes the width
from the image's aspect ratio; this holds for cards, tiles, tokens and boards alike (measured
against real pieces in published mods: frankieliu/tts-tools, docs/TTS_UNIFIED_SCALING_SYSTEM.md,
"display_height = BASE × scaleZ, display_width = display_height × aspect"; the Knowledge Base's
"Custom Board": "the dimensions of the board will be based off the dimensions of the image").
So every object gets ``scale = height / 88.9 mm``: a 63 × 88 mm card is 0.990, a 400 × 277 mm mat
3.116, and the mat lies on the table 277 / 88 = 3.15 cards tall, as on a real table.
"""

from __future__ import annotations

import hashlib
from typing import Any

from PIL import Image, ImageDraw

from .shapes import Shape

#: Height of a TTS object of scale 1: the poker card TTS models its cards on (3.5 in).
TTS_UNIT_HEIGHT_MM = 88.9
#: TTS's world unit is about an inch (Knowledge Base, "Custom Tile": thickness "in in-game units
#: (about an inch)"); used only to space objects apart on the table.
MM_PER_TTS_UNIT = 25.4

#: Thickness of a cardboard token in TTS units (about 2.5 mm: punchboard, or card glued on card).
TOKEN_THICKNESS = 0.1
#: How far apart (px) TTS may merge outline points when cutting a token: a few pixels keeps
#: a lozenge's corners sharp at export resolutions.
TOKEN_MERGE_PX = 5.0
#: Gap between neighbouring components on the table, in TTS units.
GAP = 1.0

#: ``CustomDeck.Type`` for each outline TTS can cut a card to.
DECK_TYPE_ROUNDED_RECT, DECK_TYPE_RECT, DECK_TYPE_HEX, DECK_TYPE_CIRCLE = 0, 1, 3, 4


def deck_type(shape: Shape) -> int | None:
    """The TTS card shape of an outline, or None when TTS has none (the piece becomes a token).
    A rounded rectangle of radius 0 is a plain rectangle, as its cut path is."""
    if shape.type == "rounded-rect":
        return DECK_TYPE_ROUNDED_RECT if shape.radius > 0 else DECK_TYPE_RECT
    return {"rect": DECK_TYPE_RECT, "hexagon": DECK_TYPE_HEX, "circle": DECK_TYPE_CIRCLE}.get(shape.type)


def tts_scale(height_mm: float) -> float:
    """The Transform scale that gives an object its printed height next to every other one."""
    if height_mm <= 0:
        raise ValueError(f"a piece {height_mm:g} mm tall has no size")
    return round(height_mm / TTS_UNIT_HEIGHT_MM, 4)


def outline_alpha(image: Image.Image, shape: Shape, width_mm: float) -> Image.Image:
    """``image`` (the trimmed face, ``width_mm`` across) in RGBA, transparent outside ``shape``'s
    outline, for a Custom_Token to be cut along."""
    width, height = image.size
    mask = Image.new("L", image.size, 0)
    draw = ImageDraw.Draw(mask)
    if shape.type == "circle":
        draw.ellipse((0, 0, width - 1, height - 1), fill=255)
    elif shape.type == "rounded-rect" and shape.radius > 0:
        r = shape.radius * width / width_mm
        draw.rounded_rectangle((0, 0, width - 1, height - 1), radius=r, fill=255)
    else:
        draw.polygon([(x * (width - 1), y * (height - 1)) for x, y in shape.vertices(1.0, 1.0)], fill=255)
    out = image.convert("RGBA")
    out.putalpha(mask)
    return out



class Guids:
    """GUIDs for a save: six hex digits from a hash of each object's label (so a save is the
    same every time it is exported), made unique by rehashing on the rare clash."""

    def __init__(self) -> None:
        self._used: set[str] = set()

    def __call__(self, label: str) -> str:
        n = 0
        while True:
            guid = hashlib.sha1(f"{label}#{n}".encode("utf-8")).hexdigest()[:6]
            if guid not in self._used:
                self._used.add(guid)
                return guid
            n += 1


class Table:
    """Where components lie: side by side from left to right, each as wide as it prints."""

    def __init__(self) -> None:
        self._left = 0.0

    def transform(self, width_mm: float, height_mm: float, face_down: bool) -> dict[str, float]:
        """The next component's Transform: placed right of the last one, scaled to its height,
        face down (a deck, its backs up) or face up (a board, tokens)."""
        width = width_mm / MM_PER_TTS_UNIT
        centre = self._left + width / 2
        self._left += width + GAP
        scale = tts_scale(height_mm)
        return {"posX": round(centre, 3), "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0,
                "rotZ": 180.0 if face_down else 0.0, "scaleX": scale, "scaleY": 1.0, "scaleZ": scale}


def custom_image_object(name: str, guid: str, nickname: str, description: str, transform: dict[str, float],
                        url: str, **extra: Any) -> dict[str, Any]:
    """A ``Custom_Board`` (locked, as TTS places boards) or ``Custom_Token`` showing one image."""
    custom: dict[str, Any] = {"ImageURL": url, "ImageSecondaryURL": "", "ImageScalar": 1.0, "WidthScale": 0.0}
    if name == "Custom_Token":
        custom["CustomToken"] = {"Thickness": TOKEN_THICKNESS, "MergeDistancePixels": TOKEN_MERGE_PX,
                                 "StandUp": False, "Stackable": False}
    return {"GUID": guid, "Name": name, "Nickname": nickname, "Description": description,
            "Transform": transform, "Locked": name == "Custom_Board", "CustomImage": custom, **extra}
