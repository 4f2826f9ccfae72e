"""PNG previews: every face of a component, and a contact sheet that shows them all at a glance
(what a designer checks after an edit, and what a translator checks for overflow)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from .output import atomic_write
from .draw import render_png
from .render import Face, Renderer, TextIssue

FONT = Path(__file__).resolve().parent / "fonts" / "NotoSans-Regular.ttf"


@dataclass(frozen=True)
class RenderedFace:
    """A face written as SVG and PNG, with the text issues its rendering reported."""

    face: Face
    svg_path: Path
    png_path: Path
    issues: tuple[TextIssue, ...] = ()


def write_faces(renderer: Renderer, component_ids: Iterable[str], card_ids: set[str] | None, svg_dir: Path,
                png_dir: Path, dpi: float,
                on_progress: Callable[[str], None] | None = None) -> dict[str, list[RenderedFace]]:
    """Write SVG + PNG for each face; returns the faces per component (for contact sheets).
    ``on_progress(label)`` is told about each face written."""
    out: dict[str, list[RenderedFace]] = {}
    game = renderer.game
    for cid in component_ids:
        comp = game.components[cid]
        faces = []
        for result in renderer.faces(comp, card_ids):
            face = result.face
            stem = f"{face.card}.{face.side}"
            svg_path = svg_dir / comp.id / f"{stem}.svg"
            png_path = png_dir / comp.id / f"{stem}.png"
            atomic_write(svg_path, face.svg.encode("utf-8"))
            atomic_write(png_path, render_png(face, dpi))
            faces.append(RenderedFace(face, svg_path, png_path, result.issues))
            if on_progress is not None:
                on_progress(f"{comp.id}/{stem}")
        out[cid] = faces
    return out


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
