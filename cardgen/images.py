"""User artwork (PNG, JPEG, SVG) placed on cards, treated as untrusted input.

Decks and templates are shared between teachers, so an image path or file must not be able
to read outside its game, fetch from the network, expand XML entities or exhaust memory:

* paths are relative and must resolve (symlinks included) inside the game's data or template
  folder;
* files are limited in bytes and raster images in pixels, checked before decoding;
* SVG artwork may not declare a DOCTYPE or entities and may only reference itself
  (``#id``) or embedded ``data:`` URIs;
* the artwork is embedded in the face as a ``data:`` URI, and cairosvg renders faces in its
  safe mode (no file or network access, no entities).
"""

from __future__ import annotations

import base64
import io
import math
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath

from .errors import InputError, Location, display_path

MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_PIXELS = 40_000_000          # e.g. 8000 × 5000; a 300 dpi A3 sheet is ~17.4 Mpx
#: Elements an SVG artwork file may hold: each is a node of the drawing's tree (250,000
#: rectangles in a 17.6 MB file took 3 GB to draw); detailed illustrations have thousands.
MAX_SVG_ELEMENTS = 50_000
KINDS = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".svg": "image/svg+xml"}
_EXTERNAL = re.compile(rb"""(?:href|src)\s*=\s*["'](?!#|data:)""", re.I)


@dataclass(frozen=True)
class Artwork:
    """An embeddable image: its data URI and natural size in pixels (SVG: user units)."""

    uri: str
    width: float
    height: float


#: Below this, raster artwork prints visibly blocky at its printed size (print-and-play
#: guides ask for 300 dpi; 150 is where pixels start to show on a card at arm's length).
MIN_PRINT_DPI = 150


def print_resolution(art: Artwork, width_mm: float, height_mm: float, fit: str) -> str | None:
    """What is wrong with raster artwork drawn in a ``width_mm`` × ``height_mm`` box (``fit``
    'meet' or 'slice', as the image() helper draws it), or None: its pixels per inch on paper
    below :data:`MIN_PRINT_DPI` (a 12 px image stretched over 35 mm printed at 9 dpi, without
    a word). Vector artwork has no resolution."""
    if art.uri.startswith("data:image/svg+xml") or art.width <= 0 or art.height <= 0:
        return None
    scale = (max if fit == "slice" else min)(width_mm / art.width, height_mm / art.height)   # mm per pixel
    if scale <= 0:
        return None
    dpi = 25.4 / scale
    if dpi >= MIN_PRINT_DPI:
        return None
    return (f"{art.width:.0f} × {art.height:.0f} px printed at {art.width * scale:.1f} × {art.height * scale:.1f} mm "
            f"is {dpi:.0f} dpi, below {MIN_PRINT_DPI}: it prints blocky (use an image of at least "
            f"{math.ceil(art.width * MIN_PRINT_DPI / dpi)} px across, 300 dpi is best)")


def resolve(rel: str, roots: tuple[Path, ...], what: str) -> Path:
    """The file ``rel`` names inside one of ``roots``; refuses anything that leaves them."""
    if not isinstance(rel, str) or not rel.strip():
        raise InputError(f"{what}: image path is empty", None, "give a path relative to the game folder")
    pure = PurePosixPath(rel.replace("\\", "/"))
    if pure.is_absolute() or re.match(r"^[A-Za-z]:", rel) or ".." in pure.parts or rel.startswith("~"):
        raise InputError(f"{what}: image path '{rel}' leaves the game folder", None,
                         "use a path inside the game folder, e.g. art/electron.png")
    for root in roots:
        candidate = root / pure
        if candidate.exists():
            real, base = candidate.resolve(), root.resolve()
            if base != real and base not in real.parents:
                raise InputError(f"{what}: image path '{rel}' leaves the game folder (through a symbolic link)",
                                 Location(display_path(candidate)), "copy the file into the game folder")
            return candidate   # named as the game names it (a link inside the folder, read through)
    raise InputError(f"{what}: image '{rel}' not found", Location(display_path(roots[0] / pure)),
                     "put the file in the game folder or fix the path")


def load(path: Path, what: str) -> Artwork:
    """Check and embed one artwork file (cached while the file is unchanged)."""
    st = path.stat()
    return _load(path, st.st_size, st.st_mtime_ns, what)


@lru_cache(maxsize=256)
def _load(path: Path, size: int, mtime_ns: int, what: str) -> Artwork:
    where = Location(display_path(path))
    kind = KINDS.get(path.suffix.lower())
    if kind is None:
        raise InputError(f"{what}: '{path.name}' is not PNG, JPEG or SVG", where, "convert the artwork to PNG or SVG")
    if size > MAX_IMAGE_BYTES:
        raise InputError(f"{what}: image is {size / 1e6:.0f} MB; the limit is {MAX_IMAGE_BYTES // 2**20} MiB", where,
                         "scale it down (300 dpi at the printed size is plenty)")
    data = path.read_bytes()
    if kind == "image/svg+xml":
        width, height = _check_svg(data, where, what)
    else:
        width, height = _check_raster(data, kind, where, what)
    art = Artwork(f"data:{kind};base64,{base64.b64encode(data).decode('ascii')}", width, height)
    _MADE.add(art.uri)
    return art


#: The data URIs :func:`load` made (artwork already checked): a face's body holds them again.
_MADE: set[str] = set()


def check_data_uri(uri: str, where: Location, what: str) -> None:
    """Hold an image a template embeds itself (``<image href="data:…">``) to the limits of an
    artwork file: it was drawn unchecked — a 20,000 × 20,000 px PNG in 518 KB of base64 took
    1.6 GB, and 28,000 px ended in cairo's out-of-memory error."""
    if uri in _MADE:
        return
    head, comma, payload = uri.partition(",")
    if comma and not payload.strip():   # no data: nothing is drawn, nothing to hold to a limit
        return
    kind, _, encoding = head[len("data:"):].partition(";")
    kind = kind.strip().lower()
    fix = "place artwork with the image() helper (a PNG, JPEG or SVG file in the game folder)"
    if not comma or kind not in KINDS.values():
        raise InputError(f"{what}: the template embeds '{head[:60]}', which is not PNG, JPEG or SVG data", where, fix)
    if len(payload) > MAX_IMAGE_BYTES * 4 // 3 + 4:   # base64 or percent-encoded, it is at least this long
        raise InputError(f"{what}: an embedded image is more than the {MAX_IMAGE_BYTES // 2**20} MiB limit", where, fix)
    try:
        if encoding.strip().lower() == "base64":
            data = base64.b64decode(payload, validate=False)
        else:
            from urllib.parse import unquote_to_bytes

            data = unquote_to_bytes(payload)
    except ValueError as exc:
        raise InputError(f"{what}: an embedded image's data cannot be read ({exc})", where, fix) from None
    if kind == "image/svg+xml":
        _check_svg(data, where, what)
    else:
        held = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg" if data.startswith(b"\xff\xd8") else None
        if held != kind:
            raise InputError(f"{what}: an embedded image says it is {kind} but holds {held or 'no PNG or JPEG'}",
                             where, fix)
        _check_raster(data, kind, where, what)
    if len(_MADE) >= 512:   # a long preview session: forget, and check again
        _MADE.clear()
    _MADE.add(uri)


def _check_raster(data: bytes, kind: str, where: Location, what: str) -> tuple[float, float]:
    from PIL import Image

    try:
        # Pillow warns (on stderr, before cardgen's own message) of an image above its limit of
        # ~89 Mpx, which is over cardgen's: such an image is refused below in any case, so the
        # warning is raised as the error it announces (the filter is restored on leaving)
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im = Image.open(io.BytesIO(data))
        with im:
            width, height = im.size
            if width * height > MAX_IMAGE_PIXELS:
                raise InputError(f"{what}: image is {width} × {height} px, more than the {MAX_IMAGE_PIXELS // 10**6} "
                                 f"megapixel limit", where, "scale it down to the printed size at 300 dpi")
            actual = Image.MIME.get(im.format or "")
            im.verify()
    except InputError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):   # Pillow's own, larger limits
        raise InputError(f"{what}: image has far more pixels than the {MAX_IMAGE_PIXELS // 10**6} megapixel limit",
                         where, "scale it down to the printed size at 300 dpi") from None
    except Exception as exc:  # Pillow raises many types for broken files
        # Pillow names the in-memory copy it was given ('<_io.BytesIO object at 0x…>'): name the file
        reason = re.sub(r"<_io\.BytesIO object at 0x[0-9a-fA-F]+>", f"'{Path(where.file).name}'", str(exc))
        raise InputError(f"{what}: cannot read image {where.file}: {reason}", where,
                         "the file is damaged or not really an image: re-export it as PNG or JPEG") from None
    if actual != kind:
        raise InputError(f"{what}: file is {actual or 'not an image'} but named {where.file}", where,
                         "fix the file extension")
    return float(width), float(height)


def _check_svg(data: bytes, where: Location, what: str) -> tuple[float, float]:
    head = data[:4096].lower()
    if b"<!doctype" in head or b"<!entity" in data.lower():
        raise InputError(f"{what}: SVG artwork may not declare a DOCTYPE or entities", where,
                         "save it as plain SVG (Inkscape: Save as → Plain SVG)")
    if _EXTERNAL.search(data):
        raise InputError(f"{what}: SVG artwork refers to outside files or URLs", where,
                         "embed images in the SVG or keep everything in one file")
    import defusedxml.ElementTree as SafeET

    try:
        root = SafeET.fromstring(data)
    except Exception as exc:
        raise InputError(f"{what}: invalid SVG: {exc}", where, "re-save the file from your editor") from None
    if not root.tag.endswith("svg"):
        raise InputError(f"{what}: not an SVG document", where, "use an .svg file")
    elements = sum(1 for _ in root.iter())
    if elements > MAX_SVG_ELEMENTS:
        raise InputError(f"{what}: SVG artwork has {elements:,} elements, more than the {MAX_SVG_ELEMENTS:,} a "
                         "piece of artwork may have", where,
                         "simplify it in your editor (Inkscape: Path → Simplify, or combine paths), or export it as PNG")
    box = (root.get("viewBox") or "").replace(",", " ").split()
    try:
        if len(box) == 4:
            return float(box[2]), float(box[3])
        return float(re.sub(r"[a-z%]+$", "", root.get("width", "100"))), \
            float(re.sub(r"[a-z%]+$", "", root.get("height", "100")))
    except ValueError:
        return 100.0, 100.0
