"""What a build hands back and leaves behind: one :class:`BuiltFile` per written PDF (a row
of the manifest), one :class:`GameBuild` per game and language, and the reading of the last
build's manifest that lets an unchanged file be kept."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from ..render import TextIssue, said_once


@dataclass(frozen=True)
class BuiltFile:
    """One written PDF and what is in it (the manifest's row)."""

    path: str
    component: str
    paper: str
    layout: str
    pages: int
    cards_per_sheet: int
    cards: int
    distinct_faces: int
    sha256: str
    inputs: str = ""      # digest of the faces and options it was made from (incremental builds)
    sheets: int = 0       # sheets of paper to print (a double-sided sheet counts once)
    double_sided: bool = False   # pages alternate front, back (odd pages fronts, even pages backs)
    cuts: int = 0         # straight cuts (or outlines cut out) to separate every piece
    sets: int = 1         # class sets in the file (each marked, see cardgen.setmark)
    spare_of: str = ""    # a spare set of this component, needed from level `level_mark` on
    level_mark: int | None = None   # the level printed on the pieces ("5+"), if any
    bleed_note: str = ""  # why the cards are edge to edge rather than each with its bleed
    members: tuple[str, ...] = ()   # components sharing this file's sheet (small pieces)
    bleed_mm: float | None = None   # bleed printed around each piece on sheets (at most its artwork's own)
    printed_layout: str = ""        # ``layout`` in the deck's language (PRINTING.txt says it so)


@dataclass
class GameBuild:
    """One game built in one language: its folder, files, and what a translator must see."""

    game: str
    name: str
    lang: str
    folder: Path
    files: list[BuiltFile] = field(default_factory=list)
    issues: list[TextIssue] = field(default_factory=list)
    untranslated: list[tuple[str, str]] = field(default_factory=list)

    def note(self, issues: tuple[TextIssue, ...] | list[TextIssue], missing: tuple[tuple[str, str], ...] | list) -> None:
        """Add what rendering reported (each issue and untranslated string once)."""
        self.issues.extend(issues)
        self.untranslated.extend(missing)

    def settle(self) -> None:
        """Each issue once (:func:`cardgen.render.said_once`); untranslated strings sorted."""
        self.issues = said_once(self.issues)
        self.untranslated = sorted(set(self.untranslated))


def previous_files(folder: Path) -> dict[str, BuiltFile]:
    """The files the last build wrote into this folder, from its manifest (if readable)."""
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        return {f["component"]: BuiltFile(**{**f, "members": tuple(f.get("members", ()))})
                for f in manifest.get("files", [])}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def intact(path: Path, built: BuiltFile) -> bool:
    """The file is still the one the manifest describes (not edited, truncated or deleted)."""
    return intact_bytes(path, built) is not None


def intact_bytes(path: Path, built: BuiltFile) -> bytes | None:
    """The file's bytes when it is still the one the manifest describes, else None."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if hashlib.sha256(data).hexdigest() == built.sha256 else None
