"""Rebuild the bundled Simplified-Chinese font subsets from Debian's Noto Sans CJK.

Why a subset: the full Noto Sans CJK collection is ~20 MB per weight, too big to
commit, while card text only needs the GB 2312 repertoire (all 6,763 common hanzi
plus its punctuation, kana, Greek/Cyrillic and box-drawing rows), the CJK
Symbols and Punctuation block and the full-width/half-width forms. Covering the
whole of GB 2312 (not just the characters used today) lets translators add new
Chinese strings without rebuilding fonts.

Usage (needs the Debian package ``fonts-noto-cjk`` and fontTools)::

    apt-get install -y fonts-noto-cjk
    python cardgen/fonts/build_cjk_subset.py [--src-dir /usr/share/fonts/opentype/noto]

The output is deterministic for a given source font and fontTools version.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

HERE = Path(__file__).resolve().parent
SC_FAMILY = "Noto Sans CJK SC"
WEIGHTS = {"Regular": "NotoSansCJK-Regular.ttc", "Bold": "NotoSansCJK-Bold.ttc"}


def gb2312_characters() -> set[int]:
    """Every character encoded by GB 2312 (EUC-CN rows 0xA1-0xF7, cells 0xA1-0xFE)."""
    chars: set[int] = set()
    for row in range(0xA1, 0xF8):
        for cell in range(0xA1, 0xFF):
            try:
                chars.add(ord(bytes((row, cell)).decode("gb2312")))
            except UnicodeDecodeError:
                continue
    return chars


def wanted_codepoints() -> set[int]:
    """GB 2312 plus the blocks Chinese text mixes in: ASCII/Latin-1 punctuation,
    general punctuation, CJK Symbols and Punctuation, and full/half-width forms."""
    cps = gb2312_characters()
    cps.update(range(0x20, 0x7F))
    cps.update(range(0xA0, 0x100))
    cps.update(range(0x2000, 0x2070))
    cps.update(range(0x3000, 0x3040))
    cps.update(range(0xFF00, 0xFFF0))
    return cps


def build(src_dir: Path, out_dir: Path) -> list[Path]:
    """Subset the SC face of each weight's collection into ``NotoSansSC-<Weight>-GB2312.otf``."""
    written = []
    cps = sorted(wanted_codepoints())
    for weight, filename in WEIGHTS.items():
        collection = TTCollection(str(src_dir / filename))
        font = next(f for f in collection.fonts if f["name"].getDebugName(1) == SC_FAMILY)
        options = subset.Options()
        options.layout_features = ["*"]  # keep locl, vert, palt... for future use
        options.name_IDs = ["*"]  # keep copyright/licence records
        options.name_languages = ["*"]
        options.hinting = False  # outlines only: we never rasterise with hints
        options.notdef_outline = True
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=cps)
        subsetter.subset(font)
        out = out_dir / f"NotoSansSC-{weight}-GB2312.otf"
        font.recalcTimestamp = False  # keep the source's date: byte-identical rebuilds
        font.save(str(out))
        written.append(out)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src-dir", type=Path, default=Path("/usr/share/fonts/opentype/noto"))
    parser.add_argument("--out-dir", type=Path, default=HERE)
    args = parser.parse_args()
    for path in build(args.src_dir, args.out_dir):
        print(f"{path.name}: {path.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
