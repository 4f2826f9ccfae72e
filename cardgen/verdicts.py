"""The rules' passes kept once per machine, so that a build does not prove again what a
check or another build of the same inputs proved (part of the check stage).

Every build runs the check gate before it writes (:func:`cardgen.build.gates.check_rules`):
about a second of CPU for the shipped games (the PDG tables loaded, every template scanned for
the values it prints, QCD's faces rendered for its energies rule), paid again by a build into
a new folder, in another language, or right after ``cardgen check`` proved the same deck.
Whether a game's rules pass depends only on its files (data, templates, catalogs, fonts),
the shared templates, the physics data, cardgen's own code and the libraries installed; the
output folder and the language built play no part. So a game whose rules passed is
remembered in the user's cache folder (beside the compiled templates, see
:mod:`cardgen.templatecache`) under a digest of all of those, and a gate asked about the
same digest takes the pass as proved.

Only passes are kept: a game whose rules fail is checked again, to report its findings.
An entry is a file named by the digest, holding an HMAC of that name with this user's key
(:func:`cardgen.userkey.user_key`); one that does not verify (damaged, or written by someone
else to skip the gate) is no pass. The folder is bounded (:data:`LIMIT` entries, the least
recently used removed first) and disposable: a read that fails is a miss, a write that
fails is skipped.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import tempfile
from pathlib import Path
from typing import Iterable

from .model import Game

#: The most passes kept (each file is 32 bytes).
LIMIT = 512
#: What kind of pass an entry records: the gate's rules (every rule; those that measure
#: rendered faces only say they did not: a build measures its own faces).
GATE = "gate-rules"
#: A file modified this close before its game was loaded (nanoseconds) may have changed
#: after the loader read it (file systems keep times as coarse as 2 s): its game is not
#: taken as proved, nor kept.
RACY_NS = 2_000_000_000


def default_folder() -> Path:
    """Where this user's passes are kept (the platform's cache folder)."""
    from .machinefiles import cache_folder

    return cache_folder("verdicts")


def game_digests(games: Iterable[Game], loaded_ns: int, kind: str = GATE) -> list[str | None]:
    """For each game, a digest of everything its rules may read: every file of its data and
    templates folders, its catalogs, fonts and physics data, the shared templates, cardgen's
    code (fonts and declarations included) and the versions of the libraries it uses (those
    shared by all games found once). None for a game one of whose files changed at or after
    ``loaded_ns`` (less :data:`RACY_NS`): the game in memory may then not be what the files
    say, and nothing may be taken or kept for it."""
    from . import __version__
    from .cache import code_digest, files_under, library_versions
    from .loader import SHARED_TEMPLATES

    common = f"{kind}\0{__version__}\0{code_digest()}\0{library_versions()}".encode()
    shared = files_under(SHARED_TEMPLATES)
    return [_game_digest(game, common, shared, loaded_ns) for game in games]


def _game_digest(game: Game, common: bytes, shared: list[Path], loaded_ns: int) -> str | None:
    from .cache import file_digest, files_under
    from .i18n import locale_dir

    files = {*game.files, *game.physics.source_files, *game.fonts, *files_under(game.data_dir),
             *files_under(game.templates_dir), *shared, *files_under(locale_dir(game))}
    h = hashlib.sha256(common + f"\0{game.id}".encode())
    for path in sorted(files):
        try:
            if path.stat().st_mtime_ns >= loaded_ns - RACY_NS:
                return None
        except OSError:
            pass   # a file gone: its digest below is empty, which no pass was kept under
        h.update(f"\n{path.resolve()}\0{file_digest(path)}".encode())
    return h.hexdigest()


class Verdicts:
    """Passes in ``folder`` (default: :func:`default_folder`), by :func:`game_digests`."""

    def __init__(self, folder: Path | None = None, limit: int = LIMIT) -> None:
        self.folder = folder or default_folder()
        self.limit = limit

    @staticmethod
    def _tag(name: str) -> bytes:
        from .userkey import user_key

        return hmac.new(user_key(), name.encode(), hashlib.sha256).digest()

    def passed(self, digest: str) -> bool:
        """Whether a pass is kept for ``digest`` (and verifies)."""
        path = self.folder / digest
        try:
            tag = path.read_bytes()
        except OSError:
            return False
        if not hmac.compare_digest(tag, self._tag(digest)):
            return False
        try:
            os.utime(path)   # recently used: removed last
        except OSError:
            pass
        return True

    def remember(self, digests: Iterable[str]) -> None:
        """Keep a pass for each of ``digests`` (skipped where the folder cannot be written)."""
        wrote = False
        for digest in digests:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".", suffix=".part")
                try:
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(self._tag(digest))
                    os.replace(tmp, self.folder / digest)   # whole or not at all
                except BaseException:
                    Path(tmp).unlink(missing_ok=True)
                    raise
            except OSError:
                return
            wrote = True
        if wrote:
            self._bound()

    def _bound(self) -> None:
        """Remove the least recently used passes while more than the limit are kept."""
        try:
            with os.scandir(self.folder) as entries:
                kept = sorted((e.stat().st_mtime_ns, e.path) for e in entries if not e.name.startswith("."))
        except OSError:
            return
        for _mtime, path in kept[:max(0, len(kept) - self.limit)]:
            try:
                os.unlink(path)
            except OSError:
                continue


def keep_passes(games: Iterable[Game], loaded_ns: int) -> None:
    """Keep the pass of games whose rules all passed (``cardgen check`` found nothing wrong;
    its rules are the gate's, with the faces measured too), loaded from their files after
    ``loaded_ns``."""
    Verdicts().remember(d for d in game_digests(games, loaded_ns) if d is not None)
