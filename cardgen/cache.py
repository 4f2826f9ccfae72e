"""Incremental builds: a content-addressed cache of rendered faces.

A face's key hashes everything that can change how it looks, derived rather than listed:

* the files the game was loaded from that every face can see (``game.yaml``, its tables,
  the shared physics data) and the language's catalogs;
* every file of the game's and the shared template folders (a template may include or
  import any other);
* every file of the cardgen package by content — its code, cairo declarations and bundled
  fonts;
* the libraries it runs on: the name and version of every distribution cardgen uses (what
  it requires, and what those require: installing anything else changes no key), cairo's
  own version and Python's;
* the component's settings, the card's own data and the side.

A face may also read files of its own — artwork placed with ``image(...)`` — which only
rendering it reveals: the renderer records them, the entry keeps each file's digest, and an
entry whose files have changed since is a miss (:meth:`FaceCache.get`). Editing one card
changes only that card's keys, so a rebuild re-renders just its faces; a rebuild with nothing
changed renders nothing and, when a component's inputs are unchanged and its PDF is intact,
does not even re-impose it (see ``inputs_digest``).

Entries live in one SQLite file (see :mod:`cardgen.store`), authenticated with the user's
own key: the face PDF and a small JSON record of what rendering it reported — plain data
that is parsed only once its authenticity is proven, never pickles or code.
"""

from __future__ import annotations

import ctypes
import dataclasses
import functools
import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from . import __version__
from .errors import Location
from .model import Card, Component, Game
from .filedigest import sha256_file
from .installed import open_cairo, used_distributions
from .loader import SHARED_TEMPLATES, file_name_in_game
from .store import open_store

if TYPE_CHECKING:   # the renderer (Jinja, the text engine) is imported when a face is read back
    from .render import TextIssue

PACKAGE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=4096)
def _file_digest(path: Path, size: int, mtime_ns: int, inode: int) -> str:
    """A file's sha256, read once per process while its size, time and inode are unchanged
    (see :func:`cardgen.filedigest.sha256_file`: a pipe or device is not read)."""
    return sha256_file(path)


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes ("" if it cannot be read, or is no regular file: then any
    later change shows)."""
    try:
        st = path.stat()
        return _file_digest(path, st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        return ""


#: A font a face is drawn with that is larger than this is recognised by its size and
#: modification time, not by its bytes, when the face cache checks that a face may be taken
#: (the bundled Chinese fonts are 3 MB each). Nothing printed depends on such a stamp: the
#: digest of cardgen's own files hashes every byte (see :func:`_content_digest`).
LARGE = 1 << 20


def _stamp(path: Path) -> str:
    """A file's digest, or for a large one its size and modification time (see :data:`LARGE`)."""
    try:
        st = path.stat()
    except OSError:
        return ""
    if st.st_size > LARGE:
        return f"{st.st_size}:{st.st_mtime_ns}"
    return _file_digest(path, st.st_size, st.st_mtime_ns, st.st_ino)


def _content_digest(paths: Iterable[Path], root: Path) -> str:
    """One digest of files' names (relative to ``root``) and contents: every byte, large
    files too. It is part of every game's fingerprint, which the manifests and the rule
    sheets carry: a large file known by its modification time made two installations of the
    same cardgen (a clone, a copy, a checkout that touched the fonts) write other bytes. Once
    per process while a file's size, time and inode stay the same (the bundled fonts: 7–14 ms)."""
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(f"{p.relative_to(root).as_posix()}\0{file_digest(p)}\n".encode())
    return h.hexdigest()


def files_under(folder: Path, code: bool = False) -> list[Path]:
    """Every file under ``folder``; of cardgen's own code (``code``), Python's byte-compiled
    copies left out (a game's folder named ``__pycache__`` holds the game's files)."""
    found = []
    for parent, dirs, files in os.walk(folder):
        if code:
            dirs[:] = [d for d in dirs if d != "__pycache__"]
        found += [Path(parent, f) for f in files]
    return found


def code_digest() -> str:
    """Every file of the cardgen package: code, fonts, declarations (found, not listed)."""
    if _held_code is not None:
        return _held_code
    return _content_digest(files_under(PACKAGE, code=True), PACKAGE)


#: :func:`code_digest` as found once by a process that vouches for the package's files (see
#: :func:`hold_code_digest`); None: found anew on each call.
_held_code: str | None = None


def hold_code_digest() -> None:
    """Find :func:`code_digest` once and keep it for this process and every process it
    forks. For the daemon alone (:mod:`cardgen.daemon.server`): it forks no command once any
    file of the package has changed since it started, so walking and stat'ing the package
    again cost each command 10 ms of its planning (and its check gate as much) for nothing."""
    global _held_code
    _held_code = None
    _held_code = code_digest()


@functools.cache
def _cairo_version() -> str:
    """The cairo C library's version, asked of the library itself without importing
    cairocffi (a no-change rebuild never needs it); cairocffi is the fallback."""
    lib = open_cairo(search=True)
    if lib is not None:
        lib.cairo_version_string.restype = ctypes.c_char_p
        return lib.cairo_version_string().decode()
    from . import cairoffi

    return cairoffi.import_cairocffi().cairo_version_string()


def library_versions() -> str:
    """The software faces are drawn with: every distribution cardgen uses (name and version,
    as its ``*.dist-info`` folder is named — cairosvg, cairocffi, uharfbuzz, Jinja2, Pillow
    …, and what they use: see :func:`cardgen.installed.used_distributions`), cairo's own
    version and Python's. Upgrading any of them makes every face new; installing anything
    else changes nothing."""
    return "\n".join([sys.version, f"cairo {_cairo_version()}", *used_distributions()])


def game_files(game: Game, lang: str) -> list[Path]:
    """The files of a game every face can read: what the loader read except the components
    (a card's own data is in its key; spreadsheets of cards are kept), the physics data, the
    catalogs, the templates and the fonts the game brings."""
    from . import i18n

    cards = {c.file for c in game.components.values()}
    catalogs = [i18n.po_path(game, lang), i18n.po_path(None, lang)] if lang != i18n.SOURCE_LANG else []
    return [*(f for f in game.files if f not in cards), *game.physics.source_files,
            *(p for p in catalogs if p.is_file()), *files_under(game.templates_dir), *files_under(SHARED_TEMPLATES),
            *game.fonts]


def software_digest() -> str:
    """What every game's fingerprint shares: cardgen's version and files, the libraries'
    versions. A build finds it once for all its games (walking the package and the site
    folders is most of a fingerprint's cost)."""
    return "\n".join([__version__, code_digest(), library_versions()])


def game_fingerprint(game: Game, lang: str, software: str | None = None) -> str:
    """Everything shared by all faces of a game in one language (``software``: what
    :func:`software_digest` says now, when the caller has it). Files are named where they
    stand among the game's own (:func:`cardgen.loader.file_name_in_game`): the same game built
    from another folder, or moved, has the same fingerprint, so its files are byte for byte the
    same."""
    # the fonts in the order they are tried (a character two of them cover is drawn by the first)
    fonts = "\n".join(f"font {n}: {file_name_in_game(p, game)}\0{file_digest(p)}" for n, p in enumerate(game.fonts))
    parts = [software if software is not None else software_digest(), _named_digests(game, game_files(game, lang)),
             fonts, lang]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _named_digests(game: Game, files: Iterable[Path]) -> str:
    """One line per file, sorted: its name within the game and the digest of its bytes."""
    return "\n".join(sorted({f"{file_name_in_game(p, game)}\0{file_digest(p)}" for p in files}))


def _plain(value: Any) -> Any:
    """A value as JSON-ready data for a key: a card's raw fields, the print options, a
    component's settings — these last without where they were written (a dataclass's
    ``Location`` fields left out), so moving a line of ``fields:`` or building from another
    folder changes no face. (Plain values are tried first: a deck's keys are mostly them.)"""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if not isinstance(getattr(value, f.name), Location)}
    return repr(value)


def component_fingerprint(comp: Component) -> str:
    """The component's own settings (not its cards): size, shape, bleed, templates, fields and the
    places drawn on its faces (a card's own places are included here too: they are not fields)."""
    meta = {"id": comp.id, "name": comp.name, "kind": comp.kind, "size": [comp.width, comp.height],
            "shape": _plain(comp.shape), "bleed": comp.bleed, "safe": comp.safe, "front": comp.front,
            "back": comp.back, "level": comp.level, "total": comp.total,   # a template may print it
            "fields": [_plain(f) for f in comp.fields.values()],
            "places": _plain(comp.places),
            "card_places": [_plain(c.places) for c in comp.cards if c.places is not None]}
    return hashlib.sha256(json.dumps(meta, sort_keys=True).encode()).hexdigest()


def face_key(game_fp: str, comp_fp: str, card: Card, side: str) -> str:
    """The cache key of one card side."""
    return _side_key(game_fp, comp_fp, _card_data(card), side)


def card_face_keys(game_fp: str, comp_fp: str, card: Card, back: bool) -> tuple[str, str | None]:
    """The cache keys of a card's front and (``back``: when its component has one) back,
    as :func:`face_key` makes them, the card's data written out once for both."""
    data = _card_data(card)
    return _side_key(game_fp, comp_fp, data, "front"), _side_key(game_fp, comp_fp, data, "back") if back else None


def _card_data(card: Card) -> str:
    return json.dumps({"id": card.id, "count": card.count, "fields": _plain(dict(card.raw))}, sort_keys=True,
                      ensure_ascii=False)


def _side_key(game_fp: str, comp_fp: str, data: str, side: str) -> str:
    return hashlib.sha256(f"{game_fp}\n{comp_fp}\n{side}\n{data}".encode()).hexdigest()


@dataclass(frozen=True)
class CachedFace:
    """What a build needs of a rendered face without rendering it again."""

    svg_key: str
    pdf: bytes
    issues: tuple[TextIssue, ...]
    missing: tuple[tuple[str, str], ...]
    #: (name the template gave, path, sha256) of each file the face read of its own accord
    #: (see :attr:`Face.reads`), and ("", path, sha256) of each font its text is drawn with
    reads: tuple[tuple[str, str, str], ...] = ()
    #: The face's template as messages show it, and its printed texts as the legibility rules
    #: measure them (plain data, see :func:`cardgen.legibility.texts_as_data`): a build's
    #: legibility gate reads them without rendering the face again. None: not measured (the
    #: build that rendered it ran no rule that reads them).
    template: str = ""
    texts: tuple[dict[str, Any], ...] | None = ()


def _row_text(row: dict[str, Any]) -> str:
    """A manifest row as one canonical text (tuples and lists alike)."""
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def _reads_unchanged(reads: Iterable[tuple[str, str, str]], roots: tuple[Path, ...] | None) -> bool:
    """Whether each file a face read is as it was, and — given where the game looks for
    artwork now (``roots``) — still the file its name names: a file added to the game folder
    that shadows one of its templates folder, or the same game read from another folder,
    names other bytes under the same name. A read without a name is a font the face is
    drawn with, named by its path alone (see :func:`cardgen.build.faces._font_reads`)."""
    from . import images
    from .errors import InputError

    for name, path, digest in reads:
        if not name:
            if _stamp(Path(path)) != digest:
                return False
            continue
        if roots is not None:
            try:
                if os.path.abspath(images.resolve(name, roots, "")) != os.path.abspath(path):
                    return False
            except InputError:
                return False
        if file_digest(Path(path)) != digest:
            return False
    return True


def font_read(path: Path) -> tuple[str, str, str]:
    """A font a face is drawn with, as one of its reads (:attr:`CachedFace.reads`): no name,
    its path and its stamp (a large font known by size and time, as in the keys)."""
    return "", str(path), _stamp(path)


class FaceCache:
    """Face PDFs in ``<root>/cache.sqlite`` (``root`` is usually ``<out>/.cache``);
    ``root=None`` disables it."""

    def __init__(self, root: Path | None) -> None:
        self.store = open_store(cache_file(root)) if root is not None else None
        #: reads (with the artwork roots) :meth:`get` found unchanged, each looked at once per
        #: FaceCache — one task's or one build's: a deck's faces read the same fonts and
        #: artwork, and a one-card edit's piece of 35 cached faces checked them 140 times
        self._unchanged: set[tuple[tuple[str, str, str], tuple[Path, ...] | None]] = set()

    def vouch(self, folders: dict[str, Iterable[Any]]) -> None:
        """Note the files this user's build wrote into each folder (one game in one language),
        each by its sha256 with its manifest row (a :class:`cardgen.build.results.BuiltFile`;
        authenticated like every entry): a file of the last build is kept without being made
        again only if it is one of them, and then with that row — a manifest proves nothing,
        whoever replaces a file or edits its row (pages, cards) can rewrite it. ``folders``:
        every file of each folder's manifest; the files a folder no longer holds are forgotten."""
        import dataclasses

        if self.store is not None:
            self.store.put_only("drawn", {f"written:{folder}": [
                (f"written:{r.sha256}", _row_text(dataclasses.asdict(r)), b"") for r in rows]
                for folder, rows in folders.items()})

    def vouched(self, row: Any) -> bool:
        """Whether this user's build wrote a file with the bytes ``row`` (a manifest's
        :class:`~cardgen.build.results.BuiltFile`) names, and described it with that very row."""
        import dataclasses

        entry = self.store.get("drawn", f"written:{row.sha256}", read=False) if self.store is not None else None
        return entry is not None and entry[0] == _row_text(dataclasses.asdict(row))

    def present(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are cached, in one query: what is left is what must be rendered
        (and whether starting worker processes pays off)."""
        return self.store.present("faces", keys) if self.store is not None else set()

    def get(self, key: str, pdf: bool = True, roots: tuple[Path, ...] | None = None) -> CachedFace | None:
        """The face stored under ``key`` — if this user stored it (see :mod:`cardgen.store`)
        and the files it read are unchanged (and, given the game's artwork ``roots``, still the
        files their names name) — else None. ``pdf=False``: what rendering it reported, without
        reading the PDF (for a component whose file is kept as it is)."""
        entry = self.store.get("faces", key, read=pdf) if self.store is not None else None
        if entry is None:
            return None
        text, pdf = entry   # authenticated by the store: data this user's builds wrote
        try:
            meta = json.loads(text)
            from .render import TextIssue

            issues = tuple(TextIssue(**i) for i in meta["issues"])
            missing = tuple((m, c) for m, c in meta["missing"])
            reads = tuple((str(n), str(p), str(d)) for n, p, d in meta["reads"])
            texts = None if meta["texts"] is None else tuple(dict(t) for t in meta["texts"])
            face = CachedFace(meta["svg_key"], pdf, issues, missing, reads, str(meta["template"]), texts)
        except (ValueError, KeyError, TypeError):
            return None
        return face if self._reads_hold(face.reads, roots) else None

    def _reads_hold(self, reads: tuple[tuple[str, str, str], ...], roots: tuple[Path, ...] | None) -> bool:
        """:func:`_reads_unchanged`, each read looked at once by this FaceCache."""
        for read in reads:
            if (read, roots) not in self._unchanged:
                if not _reads_unchanged((read,), roots):
                    return False
                self._unchanged.add((read, roots))
        return True

    def put(self, faces: Iterable[tuple[str, CachedFace]], scope: str = "") -> None:
        """Store rendered faces under their keys, in one transaction; ``scope`` names what
        they belong to (one component in one language, see :meth:`keep_only`)."""
        if self.store is None:
            return
        self.store.put("faces", ((key, json.dumps({
            "svg_key": face.svg_key, "issues": [i.__dict__ for i in face.issues],
            "missing": [list(m) for m in face.missing], "reads": [list(r) for r in face.reads],
            "template": face.template, "texts": None if face.texts is None else list(face.texts)},
            sort_keys=True), face.pdf) for key, face in faces), scope)

    def keep_only(self, scopes: dict[str, Iterable[str]], games: dict[str, Iterable[str]] | None = None) -> None:
        """Evict the faces of each scope that the latest build of it did not use, and with
        ``games`` (every component scope of each game and language built, by
        :func:`games_scope`) those of components the games no longer have."""
        if self.store is not None:
            self.store.keep_only("faces", scopes, games)

    def finish(self) -> None:
        """Fold the write-ahead log into the file (see :meth:`cardgen.store.Store.finish`)."""
        if self.store is not None:
            self.store.finish()


def face_scope(game: Game, lang: str, comp: Component) -> str:
    """What a build keeps or evicts faces by: one component of one game in one language."""
    return f"{games_scope(game, lang)}{comp.id}"


def games_scope(game: Game, lang: str) -> str:
    """What the face scopes of one game in one language begin with (:func:`face_scope`)."""
    return f"{game.id}/{lang}/"


def cache_file(root: Path) -> Path:
    """The SQLite file of a cache folder (faces and compiled templates)."""
    return root / "cache.sqlite"


def inputs_digest(face_keys: Iterable[str], settings: Any) -> str:
    """Everything a component's PDF depends on: its faces in deck order and the print options."""
    h = hashlib.sha256(json.dumps(_plain(settings), sort_keys=True).encode())
    for k in face_keys:
        h.update(k.encode())
    return h.hexdigest()
