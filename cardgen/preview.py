"""PNG previews: every face of a component, and a contact sheet that shows them all at a glance
(what a designer checks after an edit, and what a translator checks for overflow).

Also what every command that writes PNG faces shares (``cardgen render`` here, ``cardgen
export`` in :mod:`cardgen.export`): the pixel limit checked before a face is drawn, the drawing
itself, and staging, so that a run that fails or is interrupted leaves the output folders as
they were.
"""

from __future__ import annotations

import io
import math
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .draw import render_png
from .errors import InputError
from .model import Component
from .output import discard, stage
from .render import Face, Renderer, TextIssue

FONT = Path(__file__).resolve().parent / "fonts" / "NotoSans-Regular.ttf"
MM_PER_INCH = 25.4
#: Pixels one PNG face may have (its bleed box at the dpi asked), checked before it is drawn.
#: cairo draws a face at 4 bytes a pixel and Pillow decodes and trims it again, so a face
#: costs several times its pixel count in memory (a 560 × 380 mm mat at 1200 dpi, 475 Mpx,
#: took 1.9 GB before Pillow refused it as a "decompression bomb" above 179 Mpx). 50 Mpx
#: (7071 px square) holds that mat at 300 dpi (30 Mpx) and stays under Pillow's 89 Mpx warning.
MAX_FACE_PIXELS = 50_000_000


@dataclass(frozen=True)
class RenderedFace:
    """A face written as SVG and PNG, with the text issues its rendering reported."""

    face: Face
    svg_path: Path
    png_path: Path
    issues: tuple[TextIssue, ...] = ()


def write_faces(renderer: Renderer, component_ids: Iterable[str], card_ids: set[str] | None, svg_dir: Path,
                png_dir: Path, dpi: float, staged: list[Path],
                on_progress: Callable[[str], None] | None = None) -> dict[str, list[RenderedFace]]:
    """Stage SVG + PNG for each face, appending the paths to ``staged`` (see :func:`staged_run`);
    returns the faces per component (for contact sheets), their paths the ones they will have.
    Every component's size is checked against MAX_FACE_PIXELS before anything is drawn.
    ``on_progress(label)`` is told about each face written."""
    game = renderer.game
    comps = [game.components[cid] for cid in component_ids]
    for comp in comps:
        check_pixels(comp, dpi)
    out: dict[str, list[RenderedFace]] = {}
    for comp in comps:
        faces = []
        for result in renderer.faces(comp, card_ids):
            face = result.face
            stem = f"{face.card}.{face.side}"
            svg_path = stage(svg_dir / comp.id / f"{stem}.svg", face.svg.encode("utf-8"))
            png_path = stage(png_dir / comp.id / f"{stem}.png", draw_png(face, dpi))
            staged += [svg_path, png_path]
            faces.append(RenderedFace(face, svg_path, png_path, result.issues))
            if on_progress is not None:
                on_progress(f"{comp.id}/{stem}")
        out[comp.id] = faces
    return out


# --- what every command that writes PNG faces shares ------------------------------------------

def face_px(width_mm: float, height_mm: float, dpi: float) -> tuple[int, int]:
    """The pixels of a ``width_mm`` × ``height_mm`` face drawn at ``dpi``, rounded as cairosvg
    rounds the size of the surface it draws on."""
    return round(width_mm * dpi / MM_PER_INCH), round(height_mm * dpi / MM_PER_INCH)


def check_dpi(dpi: float) -> None:
    """Refuse a resolution no face can be drawn at. The command line's range check lets NaN
    through (it compares false with both bounds), and cairo then failed on the first face with
    an error that blamed the template; library callers have no range check at all."""
    if not (math.isfinite(dpi) and dpi > 0):
        raise InputError(f"the resolution {dpi} dpi is not a positive number", None,
                         "give the dots per inch as a number such as 300")


def check_pixels(comp: Component, dpi: float) -> None:
    """Refuse, before anything is drawn, a component whose faces (bleed box) would have more
    than MAX_FACE_PIXELS pixels at ``dpi``: too large a face exhausted memory, or ended in
    Pillow's "decompression bomb" error or a cairo size error that blamed the template."""
    check_drawable(comp, dpi)
    limit = MAX_FACE_PIXELS
    width, height = comp.width + 2 * comp.bleed, comp.height + 2 * comp.bleed
    w, h = face_px(width, height, dpi)
    if w * h <= limit:
        return
    raise InputError(f"the faces of component '{comp.id}' ({width:g} × {height:g} mm with bleed) would be "
                     f"{w:,} × {h:,} = {w * h:,} px at {dpi:g} dpi; one PNG face may have at most {limit:,}", None,
                     f"use --dpi {fitting_dpi(width, height, limit)} or lower")


def check_drawable(comp: Component, dpi: float) -> None:
    """Refuse a resolution at which a component's trimmed face is less than a pixel wide or
    high: cairo cannot make a surface of no pixels, and the error it gave blamed the template
    (and a Tabletop Simulator export's layout divided by zero)."""
    check_dpi(dpi)
    if min(face_px(comp.width, comp.height, dpi)) >= 1:
        return
    least = math.ceil(MM_PER_INCH / 2 / min(comp.width, comp.height))
    while min(face_px(comp.width, comp.height, least)) < 1:
        least += 1
    w, h = face_px(comp.width, comp.height, dpi)
    raise InputError(f"the faces of component '{comp.id}' ({comp.width:g} × {comp.height:g} mm) would be "
                     f"{w} × {h} px at {dpi:g} dpi: too small to draw", None, f"use --dpi {least} or higher")


def fitting_dpi(width_mm: float, height_mm: float, limit: int) -> int:
    """The highest whole dpi at which a ``width_mm`` × ``height_mm`` face has at most ``limit``
    pixels (the square-root estimate, lowered past its rounding)."""
    dpi = math.floor(MM_PER_INCH * math.sqrt(limit / (width_mm * height_mm)))
    while dpi > 1 and math.prod(face_px(width_mm, height_mm, dpi)) > limit:
        dpi -= 1
    return dpi


def png_with_dpi(png: bytes, dpi: float) -> bytes:
    """``png`` stating its resolution (a pHYs chunk, in pixels per metre, right after the
    header): without one, image programs and print dialogs assume 72 or 96 dpi, and a face
    drawn at 300 dpi printed three to four times its size."""
    import struct
    import zlib

    per_metre = round(dpi / MM_PER_INCH * 1000)
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    header_end = 8 + 8 + 13 + 4   # signature, IHDR's length and type, its 13 bytes, its CRC
    if png[12:16] != b"IHDR" or b"pHYs" in png[header_end:header_end + 8]:
        return png
    return png[:header_end] + chunk + png[header_end:]


def draw_png(face: Face, dpi: float) -> bytes:
    """The face as PNG (:func:`~cardgen.draw.render_png`), failing with what cairo's write
    callback raised. cffi cannot pass an exception out of a callback: it reports it ("Exception
    ignored from cffi callback") and cairo fails with a write error, so a Ctrl-C that landed
    while the PNG was written ended as an I/O error ("cannot use: 11", exit 2). The callback
    writes to memory, so what it raised is the real cause: a Ctrl-C ends the command as one."""
    swallowed: list[BaseException] = []
    previous = sys.unraisablehook

    def note(unraisable: Any) -> None:
        if "cffi callback" in (unraisable.err_msg or "") and unraisable.exc_value is not None:
            swallowed.append(unraisable.exc_value)
        else:
            previous(unraisable)

    sys.unraisablehook = note
    try:
        return png_with_dpi(render_png(face, dpi), dpi)
    except OSError:
        if swallowed:
            raise swallowed[0] from None
        raise
    finally:
        sys.unraisablehook = previous


@contextmanager
def staged_run(folders: Iterable[Path]) -> Iterator[list[Path]]:
    """A run whose files are staged (:func:`cardgen.output.stage`) and collected in the list
    this yields, for the block to swap in at its end (:func:`cardgen.output.commit`): a block
    that fails or is interrupted drops them, leaving every folder as it was. ``folders`` are those files may be
    staged for: what a killed run left staged there is dropped first, as it would otherwise be
    swapped in with this run's files (the build's own sweep only looks at build folders)."""
    folders = list(folders)
    markers = [folder / "staged" for folder in folders]   # discard() finds the folders from files in them
    discard(markers)
    new = _missing_folders(folders)
    try:
        yield []
    except BaseException:
        discard(markers)
        for folder in new:   # deepest first: a game's or language's folder this run made for nothing
            try:
                folder.rmdir()   # only if empty
            except OSError:
                pass
        raise


def _missing_folders(folders: list[Path]) -> list[Path]:
    """The folders on the way to ``folders`` (themselves included) that do not exist yet,
    deepest first: what staging a run's files will create, and a failed run removes again."""
    missing: set[Path] = set()
    for folder in folders:
        for path in (folder, *folder.parents):
            if path.exists():
                break
            missing.add(path)
    return sorted(missing, key=lambda p: len(p.parts), reverse=True)


def contact_sheet(faces: list[RenderedFace], title: str, thumb_height: int = 260) -> bytes:
    """One PNG with every face as a labelled thumbnail, fronts and backs side by side."""
    from PIL import Image, ImageDraw, ImageFont

    thumbs = []
    for rf in faces:
        with Image.open(rf.png_path) as im:
            im = im.convert("RGB")
            scale = thumb_height / im.height
            thumbs.append((rf, im.resize((max(1, round(im.width * scale)), thumb_height), Image.LANCZOS)))
    if not thumbs:
        raise ValueError("no faces to show")
    font = ImageFont.truetype(str(FONT), 16)
    title_font = ImageFont.truetype(str(FONT), 24)
    cell_w = max(t.width for _, t in thumbs) + 16
    cell_h = thumb_height + 34
    cols = max(1, min(len(thumbs), 2400 // cell_w))
    rows = -(-len(thumbs) // cols)
    sheet = Image.new("RGB", (cols * cell_w + 16, rows * cell_h + 56), "#e9e9e9")
    draw = ImageDraw.Draw(sheet)
    draw.text((16, 12), title, fill="#222222", font=title_font)
    for i, (rf, thumb) in enumerate(thumbs):
        x, y = 16 + (i % cols) * cell_w, 56 + (i // cols) * cell_h
        sheet.paste(thumb, (x, y))
        label = f"{rf.face.card} · {rf.face.side}"
        draw.text((x, y + thumb_height + 6), label, fill="#333333", font=font)
    buf = io.BytesIO()
    sheet.save(buf, format="PNG", optimize=False)
    return buf.getvalue()
