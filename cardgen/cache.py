"""Incremental builds: a content-addressed cache of rendered faces.

A face's key hashes everything that can change how it looks — the game's templates, the
bundled fonts, the shared physics data, the game's tables and catalog for the language, the
component's settings, the card's own data and the side — plus cardgen's version and rendering
code. Editing one card changes only that card's keys, so a rebuild re-renders just its faces;
a rebuild with nothing changed renders nothing and, when a component's inputs are unchanged
and its PDF is intact, does not even re-impose it (see ``inputs_digest``).

Entries live in one SQLite file (see :mod:`cardgen.store`): the face PDF and a small JSON
record of what rendering it reported, never pickles — a cache shared between users is data,
not code.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from . import __version__
from .model import Card, Component, Game
from .loader import SHARED_TEMPLATES
from .render import TextIssue
from .store import open_store

PACKAGE = Path(__file__).resolve().parent
#: Code whose change alters rendered faces (the cache must not outlive it).
RENDER_CODE = ("render.py", "draw.py", "format.py", "artwork.py", "text")


def _stat_digest(paths: Iterable[Path]) -> str:
    """Cheap fingerprint of files by name, size and modification time (fonts are megabytes)."""
    h = hashlib.sha256()
    for p in sorted(paths):
        st = p.stat()
        h.update(f"{p.name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _content_digest(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(str(p.name).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def _files(folder: Path, pattern: str = "*") -> list[Path]:
    return [p for p in folder.rglob(pattern) if p.is_file()] if folder.is_dir() else []


def game_fingerprint(game: Game, lang: str) -> str:
    """Everything shared by all faces of a game in one language."""
    from . import i18n

    code = [p for name in RENDER_CODE for p in ([PACKAGE / name] if name.endswith(".py") else _files(PACKAGE / name, "*.py"))]
    catalogs = [i18n.po_path(game, lang), i18n.po_path(None, lang)] if lang != i18n.SOURCE_LANG else []
    parts = [
        __version__,
        _stat_digest(code),
        _stat_digest(_files(PACKAGE / "fonts") + list(game.fonts)),
        _content_digest(_files(game.templates_dir) + _files(SHARED_TEMPLATES)),
        _content_digest(game.physics.source_files),
        _content_digest([t.file for t in game.tables.values()]),
        _content_digest([game.data_dir / "game.yaml"]),
        _content_digest([p for p in catalogs if p.is_file()]),
        lang,
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def component_fingerprint(comp: Component) -> str:
    """The component's own settings (not its cards): size, shape, bleed, templates, fields and the
    places drawn on its faces (a card's own places are included here too: they are not fields)."""
    meta = {"id": comp.id, "name": comp.name, "kind": comp.kind, "size": [comp.width, comp.height],
            "shape": repr(comp.shape), "bleed": comp.bleed, "safe": comp.safe, "front": comp.front,
            "back": comp.back, "level": comp.level, "fields": [repr(f) for f in comp.fields.values()],
            "places": repr(comp.places), "card_places": [repr(c.places) for c in comp.cards if c.places is not None]}
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()


def face_key(game_fp: str, comp_fp: str, card: Card, side: str) -> str:
    """The cache key of one card side."""
    data = json.dumps({"id": card.id, "fields": _jsonable(dict(card.raw))}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"{game_fp}\n{comp_fp}\n{side}\n{data}".encode()).hexdigest()


@dataclass(frozen=True)
class CachedFace:
    """What a build needs of a rendered face without rendering it again."""

    svg_key: str
    pdf: bytes
    issues: tuple[TextIssue, ...]
    missing: tuple[tuple[str, str], ...]


class FaceCache:
    """Face PDFs in ``<root>/cache.sqlite`` (``root`` is usually ``<out>/.cache``);
    ``root=None`` disables it."""

    def __init__(self, root: Path | None) -> None:
        self.store = open_store(cache_file(root)) if root is not None else None

    def present(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are cached, in one query: what is left is what must be rendered
        (and whether starting worker processes pays off)."""
        return self.store.present("faces", keys) if self.store is not None else set()

    def get(self, key: str) -> CachedFace | None:
        entry = self.store.get("faces", key) if self.store is not None else None
        if entry is None:
            return None
        text, pdf = entry   # the store checked the PDF's checksum: a damaged entry is a miss
        try:
            meta = json.loads(text)
            issues = tuple(TextIssue(**i) for i in meta["issues"])
            missing = tuple((m, c) for m, c in meta["missing"])
            return CachedFace(meta["svg_key"], pdf, issues, missing)
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, faces: Iterable[tuple[str, CachedFace]]) -> None:
        """Store rendered faces under their keys, in one transaction."""
        if self.store is None:
            return
        self.store.put("faces", ((key, json.dumps({
            "svg_key": face.svg_key, "issues": [i.__dict__ for i in face.issues],
            "missing": [list(m) for m in face.missing]}, sort_keys=True), face.pdf) for key, face in faces))


def cache_file(root: Path) -> Path:
    """The SQLite file of a cache folder (faces and compiled templates)."""
    return root / "cache.sqlite"


def inputs_digest(face_keys: Iterable[str], settings: Any) -> str:
    """Everything a component's PDF depends on: its faces in deck order and the print options."""
    h = hashlib.sha256(json.dumps(_jsonable(settings), sort_keys=True).encode())
    for k in face_keys:
        h.update(k.encode())
    return h.hexdigest()
