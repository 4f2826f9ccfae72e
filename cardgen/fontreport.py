"""``cardgen fonts``: which font draws which script of a game in a language, and what no
font covers.

A translator adding Korean, or a designer adding a symbol, needs to know before printing
whether every character will be drawn and by which file. The answer is computed from the
same font chain the renderer uses (bundled fonts, then the game's ``fonts/``, then
``--font-dir``) and from the strings the game actually prints in that language: its data
and template strings through its catalog, and the particle and colour names.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .i18n import SOURCE_LANG, collect_common, collect_game, translator
from .model import Game
from .text import TextEngine
from .text.chars import describe, is_ignorable, shown, visible
from .text.fonts import FONT_DIR, Face
from .text.shaping import char_script

_NEUTRAL = ("Zyyy", "Zinh", "Zzzz")


@dataclass(frozen=True)
class FaceLine:
    """One face of the chain: where it comes from and the scripts it draws for this game."""

    face: Face
    origin: str                          # "bundled", "game" or "--font-dir"
    draws: tuple[tuple[str, int], ...]   # (script, characters of the game's text it draws)


@dataclass(frozen=True)
class Uncovered:
    """A character of the game's text that no face of the chain has, and one string using it."""

    char: str
    script: str
    example: str
    where: str
    note: str = ""   # the fonts that map it but draw nothing for it


@dataclass(frozen=True)
class FontReport:
    game: str
    lang: str
    faces: tuple[FaceLine, ...]
    uncovered: tuple[Uncovered, ...]


def _origin(face: Face, game: Game) -> str:
    if face.path.parent == FONT_DIR:
        return "bundled"
    if face.path.parent == (game.data_dir / "fonts").resolve():
        return "game"
    return "--font-dir"


def printed_strings(game: Game, lang: str) -> list[tuple[str, str]]:
    """(text, where) for everything the game prints in ``lang``: translated when a catalog
    has the string, as written otherwise."""
    tr = translator(game, lang) if lang != SOURCE_LANG else None
    out = []
    for col in (collect_game(game), collect_common([game])):
        for entry in col.entries.values():
            text = tr(entry.msgid, entry.context) if tr else entry.msgid
            where = f"{entry.locations[0][0]}:{entry.locations[0][1]}" if entry.locations else "cardgen"
            out.append((text, where))
    return out


def font_report(game: Game, lang: str = SOURCE_LANG) -> FontReport:
    """Which face draws each script of the game's text in ``lang`` (regular weight, with the
    language's preferred faces first as the renderer orders them), and what nothing covers."""
    engine = TextEngine.with_fonts(game.fonts) if game.fonts else TextEngine.default()
    chain = engine.fonts.chain("regular", lang)
    drawn: dict[int, Counter[str]] = {face.index: Counter() for face in chain}
    uncovered: dict[str, Uncovered] = {}
    seen: set[str] = set()
    for text, where in printed_strings(game, lang):
        for char in text:
            if char in seen or char.isspace() or is_ignorable(char):
                continue
            seen.add(char)
            script = char_script(char)
            face = next((f for f in chain if f.covers(char)), None)
            if face is None:
                note = "; ".join(f"{f.path.name} maps it but {reason}" for f in chain
                                 if (reason := f.blank_reason(char)) is not None)
                uncovered[char] = Uncovered(char, script, text, where, note)
            else:
                drawn[face.index][script if script not in _NEUTRAL else "Common"] += 1
    lines = tuple(FaceLine(face, _origin(face, game), tuple(sorted(drawn[face.index].items(),
                                                                   key=lambda kv: (-kv[1], kv[0]))))
                  for face in chain)
    return FontReport(game.id, lang, lines, tuple(sorted(uncovered.values(), key=lambda u: u.char)))


def format_report(report: FontReport) -> str:
    """The report as a user reads it in a terminal."""
    out = [f"{report.game} ({report.lang}): fonts in fallback order (first face that has a character draws it)"]
    for line in report.faces:
        draws = ", ".join(f"{script} {n}" for script, n in line.draws) or "nothing in this game"
        name = line.face.path.name if line.origin == "bundled" else str(line.face.path)
        out.append(f"  {name:<34} {line.origin:<10} draws: {draws}")
    if report.uncovered:
        out.append(f"  no font covers {len(report.uncovered)} character(s):")
        for u in report.uncovered:
            note = f"; {u.note}" if u.note else ""
            label = f"U+{ord(u.char):04X} {u.char}" if visible(u.char) else describe(u.char)
            out.append(f"    {label} ({u.script}{note}) in {shown(u.example[:40])} at {u.where}")
        out.append("  add a font that has them to the game's fonts/ folder, or pass --font-dir FOLDER")
    else:
        out.append("  every character the game prints is covered")
    return "\n".join(out)

