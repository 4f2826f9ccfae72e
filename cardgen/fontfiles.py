"""Which font files a game brings: its own ``fonts/`` folder and every ``--font-dir``.

Loading only finds and bounds the files (no font library is imported here, so commands that
never draw text stay quick); the text engine opens them, after the bundled fonts, in the order
found (see :func:`cardgen.text.fonts.chains_with`).
"""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

from .errors import InputError, Location, display_path

#: Font files cardgen reads: TrueType and OpenType, WOFF and WOFF2 (unpacked in memory; WOFF2
#: needs the brotli package), and collections (.ttc/.otc) that hold one font.
SUFFIXES = (".ttf", ".otf", ".woff", ".woff2", ".ttc", ".otc")
#: Font files it cannot read: reported by name, never passed over (a user who put one in
#: fonts/ would otherwise be told to add a font to fonts/).
UNREAD_SUFFIXES = {".pfb": "a PostScript Type 1 font", ".pfa": "a PostScript Type 1 font",
                   ".pfm": "PostScript Type 1 font metrics", ".afm": "PostScript font metrics",
                   ".fon": "a Windows bitmap font", ".fnt": "a bitmap font", ".bdf": "a bitmap font",
                   ".pcf": "a bitmap font", ".otb": "a bitmap font", ".dfont": "a Mac resource-fork font",
                   ".eot": "an Embedded OpenType web font"}
CONVERT = "convert it to a .ttf or .otf file (e.g. with FontForge), or take it out of the folder"
MAX_FONTS = 32
MAX_FONT_BYTES = 64 * 1024 * 1024


def user_fonts(folder: Path) -> tuple[Path, ...]:
    """The font files of a folder, by name, bounded in number and size."""
    where = Location(display_path(folder))
    if not folder.is_dir():
        raise InputError("font folder not found", where, "give a folder that holds .ttf, .otf, .woff or .ttc files")
    entries = sorted(p for p in folder.iterdir() if p.is_file())
    for path in entries:
        kind = UNREAD_SUFFIXES.get(path.suffix.lower())
        if kind is not None:
            raise InputError(f"cardgen cannot read this font file: it is {kind}", Location(display_path(path)), CONVERT)
    files = [p for p in entries if p.suffix.lower() in SUFFIXES]
    if len(files) > MAX_FONTS:
        raise InputError(f"{len(files)} font files, more than {MAX_FONTS}", where, "keep only the fonts you use")
    for path in files:
        if path.stat().st_size > MAX_FONT_BYTES:
            raise InputError(f"font file is larger than {MAX_FONT_BYTES // (1024 * 1024)} MB",
                             Location(display_path(path)), "use a subset of the font")
        _readable(path)
    return tuple(path.resolve() for path in files)


def _readable(path: Path) -> None:
    """Refuse, by name, a font file that is read only with what is missing: a collection of
    several fonts (which one?), a WOFF2 file without the brotli package."""
    where = Location(display_path(path))
    suffix = path.suffix.lower()
    if suffix in (".ttc", ".otc"):
        with open(path, "rb") as f:
            head = f.read(12)
        count = struct.unpack(">I", head[8:12])[0] if len(head) == 12 and head[:4] == b"ttcf" else 0
        if count != 1:
            raise InputError(f"a font collection of {count} fonts: cardgen reads one font per file", where,
                             f"extract the font you want into a .ttf/.otf file of its own, e.g. 'fonttools ttLib -y 0 "
                             f"{path.name} -o {path.stem}-0{'.otf' if suffix == '.otc' else '.ttf'}' (0 is the first "
                             "font; -y 1 the second...), and take the collection out of the folder")
    elif suffix == ".woff2" and importlib.util.find_spec("brotli") is None:
        raise InputError("reading a WOFF2 font needs the 'brotli' Python package, which is not installed", where,
                         "convert the font to .ttf or .otf, or install brotli")
