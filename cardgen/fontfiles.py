"""Which font files a game brings: its own ``fonts/`` folder and every ``--font-dir``.

Loading only finds and bounds the files (no font library is imported here, so commands that
never draw text stay quick); the text engine opens them, after the bundled fonts, in the order
found (see :func:`cardgen.text.fonts.chains_with`).
"""

from __future__ import annotations

from pathlib import Path

from .errors import InputError, Location, display_path

SUFFIXES = (".ttf", ".otf")
MAX_FONTS = 32
MAX_FONT_BYTES = 64 * 1024 * 1024


def user_fonts(folder: Path) -> tuple[Path, ...]:
    """The font files of a folder, by name, bounded in number and size."""
    where = Location(display_path(folder))
    if not folder.is_dir():
        raise InputError("font folder not found", where, "give a folder that holds .ttf or .otf files")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES and p.is_file())
    if len(files) > MAX_FONTS:
        raise InputError(f"{len(files)} font files, more than {MAX_FONTS}", where, "keep only the fonts you use")
    for path in files:
        if path.stat().st_size > MAX_FONT_BYTES:
            raise InputError(f"font file is larger than {MAX_FONT_BYTES // (1024 * 1024)} MB",
                             Location(display_path(path)), "use a subset of the font")
    return tuple(path.resolve() for path in files)
