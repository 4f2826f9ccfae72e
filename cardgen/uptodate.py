"""Up-to-date builds: a stamp of everything a build's output follows from, read before anything
heavy is imported, so that ``cardgen build`` with nothing changed ends after a few
milliseconds of ``stat`` calls.

Why a stamp when the face cache already makes a no-change rebuild render nothing: to ask the
cache, a build must load every game (YAML, the physics data), run the check gate, fingerprint
every face and import the renderer, cairo, Jinja and pikepdf — most of a second before it
learns that there is nothing to do. The stamp answers the whole question from file metadata.

What a successful build records in ``OUT/.cache/uptodate-<request>.stamp`` (JSON, compressed):

* the request, as its key: the games as named, the folders searched (``--games-dir``,
  ``--font-dir``), every option that changes a file or whether the build may succeed (not
  ``--jobs``: the files are the same for any), the working folder, ``SOURCE_DATE_EPOCH``,
  Python's and cardgen's versions and where the libraries are installed;
* every input, found by walking folders rather than listed: every file of the cardgen
  package (its code, the bundled fonts, cairo's declarations), the shipped data (games,
  physics data, catalogs) and templates, each ``--games-dir``, each game folder named by
  path and each ``--font-dir``; the names in the site-packages folders (each installed
  library's version, as the face cache keys them: the ``particle`` package included); the
  cairo library file; the printer settings file when the back offset comes from it;
* every build product in each folder the build wrote (an edited, deleted or extra PDF means
  a rebuild), and what the build reported (its results, and the lines the command printed).

A file is compared by its stat signature (size, mtime, ctime, inode) and, when that differs,
by the sha256 of its bytes, so a file touched but unchanged still counts as unchanged (the
stamp then takes the new signature). A file whose times fall within :data:`RACY_NS` of the
stamp is always hashed: a change within the clock's granularity keeps the time (Git's
"racily clean" files). Inputs are walked before the games are loaded and again when the
build ends; a file that changed in between leaves the build without a stamp. Any doubt —
no stamp, another format, a damaged or oversized one, a folder that cannot be read or holds
more than :data:`MAX_FILES` files — means a normal build, never an error.

The check gate is skipped with the rest, and that keeps its promise: its result depends only
on the games' files, the shared physics data, cardgen's code and the installed libraries,
all in the stamp, which a build writes only after its gate passed. When a stamp exists for
the same request but some inputs changed, only the games those files belong to go through
the gate again (:meth:`Verdict.to_check`); a changed file shared by all games (the physics
data, a shared template, cardgen's code) sends every game through it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from . import __version__
from .filedigest import sha256_file
from .installed import open_cairo, site_folders

FORMAT = "cardgen-uptodate/3"
#: The folder under ``--out`` that holds one stamp per request, ``uptodate-<request>.stamp``: the
#: cache folder, which is disposable and no build product (deleting it makes the next build run,
#: and fill it again).
FOLDER = ".cache"
PREFIX = "uptodate-"
#: A stamp's file name ends so: its first line is the HMAC of the rest, the rest its JSON
#: compressed with zlib. A stamp lists every input with its digest, 55–67 KB of JSON for one
#: request (18–20 KB stored), and an output folder keeps up to MAX_STAMPS of them.
SUFFIX = ".stamp"
#: Files walked for one request at most: beyond that, no stamp (a --games-dir that is a home folder).
MAX_FILES = 20_000
#: Stamps kept per output folder (one per request: other games, languages or papers); the oldest go.
MAX_STAMPS = 16
#: A stamp larger than this, stored or inflated, is not read.
MAX_STAMP_BYTES = 32 << 20
#: A file whose mtime or ctime lies this close to the stamp's time is hashed whatever its signature.
RACY_NS = 2_000_000_000
PACKAGE = Path(__file__).resolve().parent
PACKAGE_REAL = os.path.realpath(PACKAGE)
#: Where the shipped games, physics data, catalogs and templates are (see cardgen.loader; a game
#: loaded from outside the folders a request names leaves its build without a stamp).
SHIPPED = (PACKAGE.parent / "data", PACKAGE.parent / "templates")
#: The environment that decides where the printer settings file is (see cardgen.userconfig).
CONFIG_ENV = ("HOME", "XDG_CONFIG_HOME", "APPDATA", "LOCALAPPDATA", "USERPROFILE")

#: (size, mtime_ns, ctime_ns, inode)
Signature = tuple[int, int, int, int]
#: A file as recorded: its signature and sha256.
Entry = tuple[int, int, int, int, str]


def _signature(st: os.stat_result) -> Signature:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class Doubt(Exception):
    """Something the stamp cannot vouch for: the build runs normally (never shown)."""


#: What reading a stamp of the right format but damaged content raises.
_DAMAGED = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def walk(root: Path, budget: list[int]) -> dict[str, Signature]:
    """Every file under ``root`` (cardgen's ``__pycache__`` left out: Python's own copies of
    its code; a game's folder named so is read like any other), by path relative to it;
    symbolic links followed, loops cut. An absent root is empty; a folder or file that cannot
    be read, or a broken link, is a :class:`Doubt`."""
    found: dict[str, Signature] = {}
    seen: set[tuple[int, int]] = set()
    todo = [("", str(root))]
    while todo:
        rel, folder = todo.pop()
        try:
            st = os.stat(folder)
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
            with os.scandir(folder) as entries:
                for entry in entries:
                    name = f"{rel}{entry.name}"
                    if entry.is_dir():
                        if entry.name != "__pycache__" or not _under(os.path.realpath(entry.path), PACKAGE_REAL):
                            todo.append((name + "/", entry.path))
                        continue
                    budget[0] -= 1
                    if budget[0] < 0:
                        raise Doubt(f"more than {MAX_FILES} files")
                    found[name] = _signature(entry.stat())
        except FileNotFoundError:
            if rel or os.path.lexists(folder):   # a folder gone while walked, or a broken link
                raise Doubt(f"{folder}: not found") from None
        except OSError as exc:
            raise Doubt(str(exc)) from None
    return found


def _listing(folder: str) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []


@dataclass(frozen=True)
class Request:
    """What a build was asked to do, as the key of its stamp, and the folders it reads."""

    out: Path
    key: str
    roots: tuple[Path, ...]

    @property
    def path(self) -> Path:
        return self.out / FOLDER / f"{PREFIX}{self.key}{SUFFIX}"


def request(out: Path, games: Iterable[str | Path], games_dirs: Iterable[Path], font_dirs: Iterable[Path],
            options: Mapping[str, Any]) -> Request:
    """The request of a build of ``games`` (ids or folders as given; none: every game) with
    ``options`` (the :class:`~cardgen.build.BuildOptions` fields but ``out``, ``games_dirs``
    and ``cache``, as given: a back offset of None is read from the printer settings)."""
    games, games_dirs, font_dirs = [str(g) for g in games], [Path(d) for d in games_dirs], [Path(d) for d in font_dirs]
    cwd = os.getcwd()
    described = {
        "format": FORMAT, "cardgen": __version__, "python": sys.version, "site": site_folders(),
        "package": str(PACKAGE), "cwd": cwd, "games": games, "out": os.path.abspath(out),
        "games_dirs": [os.path.abspath(d) for d in games_dirs], "font_dirs": [os.path.abspath(d) for d in font_dirs],
        "options": {k: list(v) if isinstance(v, tuple) else v for k, v in sorted(options.items())},
        "epoch": os.environ.get("SOURCE_DATE_EPOCH"),
        "config_env": {v: os.environ.get(v) for v in CONFIG_ENV} if options.get("back_offset") is None else None,
    }
    key = hashlib.sha256(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:32]
    folders = [*(Path(g) for g in games if os.path.isdir(g)), *games_dirs, *font_dirs]
    return Request(Path(out), key, _outermost([PACKAGE, *SHIPPED, *(Path(os.path.abspath(f)) for f in folders)]))


def options_of(options: Any) -> dict[str, Any]:
    """The fields of a :class:`~cardgen.build.BuildOptions` a stamp's request names (all but
    the output folder, the games folders and the cache switch, named apart)."""
    from dataclasses import fields

    return {f.name: getattr(options, f.name) for f in fields(options)
            if f.name not in ("out", "games_dirs", "cache", "paper_size")}


def _outermost(roots: Iterable[Path]) -> tuple[Path, ...]:
    """Each folder once, none inside another (walked once)."""
    kept: list[Path] = []
    for root in sorted({Path(os.path.realpath(r)) for r in roots}, key=lambda p: len(p.parts)):
        if not any(root.is_relative_to(k) for k in kept):
            kept.append(root)
    return tuple(sorted(kept))


@dataclass
class Snapshot:
    """The inputs at one moment: every file under the request's roots with its signature
    and sha256 (taken from the previous stamp where the signature vouches for it)."""

    taken_ns: int
    files: dict[str, Entry]
    hashed: int = 0      # files whose signature did not vouch for them


@dataclass
class Verdict:
    """What a stamp says of a request now: ``fresh`` (nothing to do), or which inputs changed."""

    request: Request
    stamp: dict | None = None            # the last stamp of this request, if readable
    snapshot: Snapshot | None = None     # the inputs now (None: could not be taken)
    changed: set[str] | None = None      # input files changed since the stamp (None: unknown)
    outputs_changed: bool = True
    refresh: bool = False                # fresh, but signatures moved on: the stamp is rewritten

    @property
    def fresh(self) -> bool:
        return self.stamp is not None and self.changed == set() and not self.outputs_changed

    def lines(self) -> list[tuple[bool, str]] | None:
        """What the command printed after the stamped build ((to stderr, text) each), if it did."""
        try:
            lines = self.stamp.get("lines") if self.stamp else None
            return None if lines is None else [(bool(err), str(text)) for err, text in lines]
        except _DAMAGED:
            return None

    def results(self) -> list | None:
        """The stamped build's results (:class:`~cardgen.build.GameBuild` each)."""
        return _results(self.stamp["results"]) if self.stamp else None

    def to_check(self, games: list) -> list:
        """The games the check gate must see: those whose own folders hold a changed file; all
        of them when a changed file is shared (or what changed is unknown)."""
        try:
            return self._to_check(games)
        except _DAMAGED:
            return list(games)

    def _to_check(self, games: list) -> list:
        if self.stamp is None or self.changed is None or not self.stamp.get("checked"):
            return list(games)
        stamped = self.stamp.get("games", {})
        own = {g.id: [str(g.data_dir.resolve()), str(g.templates_dir.resolve())] for g in games}
        if any(stamped.get(gid) != roots for gid, roots in own.items()):
            return list(games)
        hit = set()
        for path in self.changed:
            owners = [gid for gid, roots in own.items() if any(_under(path, r) for r in roots)]
            if not owners:
                return list(games)
            hit.update(owners)
        return [g for g in games if g.id in hit]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _read(req: Request) -> dict | None:
    """The stamp of a request, if this user's cardgen wrote it: its first line is the HMAC of
    the rest with the user's key (:mod:`cardgen.userkey`). A stamp copied in with someone
    else's output folder, or edited, proves nothing and is no stamp: a stamp vouches for
    the files beside it, and whoever can replace a PDF can rewrite a stamp's digest of it.
    The rest is inflated only once its HMAC is proved, and no further than MAX_STAMP_BYTES."""
    import hmac

    from .userkey import sign

    try:
        with open(req.path, "rb") as fh:
            data = fh.read(MAX_STAMP_BYTES + 1)
        if len(data) > MAX_STAMP_BYTES:
            return None
        mac, _, packed = data.partition(b"\n")
        if not hmac.compare_digest(mac, sign(packed).encode()):
            return None
        inflate = zlib.decompressobj()
        body = inflate.decompress(packed, MAX_STAMP_BYTES)
        if inflate.unconsumed_tail or not inflate.eof:
            return None
        stamp = json.loads(body)
    except (OSError, ValueError, zlib.error):
        return None
    if not isinstance(stamp, dict) or stamp.get("format") != FORMAT or stamp.get("key") != req.key:
        return None
    return stamp


def _racy(sig: Signature | list, since_ns: int) -> bool:
    return max(sig[1], sig[2]) >= since_ns - RACY_NS


def snapshot(req: Request, previous: dict | None) -> Snapshot:
    """Every input file now, hashed only where the previous stamp's signature does not vouch
    for it (raises :class:`Doubt`)."""
    taken = time.time_ns()
    known: dict[str, list] = previous.get("inputs", {}) if previous else {}
    since = int(previous["recorded_ns"]) if previous else 0
    budget = [MAX_FILES]
    files: dict[str, Entry] = {}
    hashed = 0
    for root in req.roots:
        for rel, sig in walk(root, budget).items():
            path = os.path.join(root, rel)
            old = known.get(path)
            if old is not None and tuple(old[:4]) == sig and not _racy(sig, since):
                files[path] = (*sig, str(old[4]))
            else:
                hashed += 1
                try:
                    files[path] = (*sig, sha256_file(path))
                except OSError as exc:
                    raise Doubt(str(exc)) from None
    return Snapshot(taken, files, hashed)


def verdict(req: Request) -> Verdict:
    """Compare the request's stamp with the files now. Never raises: a stamp that cannot be
    read or trusted is no stamp."""
    stamp = _read(req)
    try:
        try:
            snap = snapshot(req, stamp)
        except _DAMAGED:   # the stamp's format, but not its content: no stamp
            stamp, snap = None, snapshot(req, None)
    except Doubt:
        return Verdict(req)
    if stamp is None:
        return Verdict(req, None, snap)
    try:
        return _compare(req, stamp, snap)
    except (Doubt, *_DAMAGED):
        return Verdict(req, None, snap)


def _compare(req: Request, stamp: dict, snap: Snapshot) -> Verdict:
    since = int(stamp["recorded_ns"])
    inputs: dict[str, list] = stamp["inputs"]
    changed = {p for p in inputs.keys() ^ snap.files.keys()}
    changed |= {p for p, e in snap.files.items() if p in inputs and inputs[p][4] != e[4]}
    refresh = snap.hashed > 0   # a signature moved, or was too recent to trust: the next no-op need not hash
    for path, old in stamp["files"].items():   # single files: the cairo library, the printer settings
        now = _file_entry(path, old, since)
        refresh |= now is not None and old is not None and tuple(now[:4]) != tuple(old[:4])
        if (now is None) != (old is None) or (now is not None and now[4] != old[4]):
            changed.add(path)
    for folder, names in stamp["listings"].items():
        if _listing(folder) != names:
            changed.add(folder)
    outputs_changed, hashed = _outputs_changed(stamp["outputs"], since)
    refresh |= hashed
    return Verdict(req, stamp, snap, changed, outputs_changed, refresh)


def _file_entry(path: str, old: list | None, since: int) -> Entry | None:
    """A single file's entry now (None: absent), hashed only if its signature moved."""
    try:
        sig = _signature(os.stat(path))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Doubt(str(exc)) from None
    if old is not None and tuple(old[:4]) == sig and not _racy(sig, since):
        return (*sig, str(old[4]))
    try:
        return (*sig, sha256_file(path))
    except OSError as exc:
        raise Doubt(str(exc)) from None


def _outputs_changed(outputs: dict[str, dict[str, list | None]], since: int) -> tuple[bool, bool]:
    """(whether an output folder differs from the stamp's — a build product edited, deleted
    or added, or any other entry come or gone —, whether any product had to be hashed).
    Entries that are no build products (a render's faces/, a user's notes) are known by name
    only: the build keeps them, but one more or less is a doubt, and a build settles it."""
    hashed = False
    for folder, files in outputs.items():
        try:
            names = {e.name: e for e in os.scandir(folder)}
        except OSError:
            return True, hashed
        if names.keys() != files.keys():
            return True, hashed
        for name, old in files.items():
            if old is None:
                continue
            try:
                sig = _signature(names[name].stat())
            except OSError:
                return True, hashed
            if tuple(old[:4]) == sig and not _racy(sig, since):
                continue
            hashed = True
            try:
                if sha256_file(names[name].path) != old[4]:
                    return True, hashed
            except OSError:
                return True, hashed
    return False, hashed


class Recorder:
    """A build's stamp in the making: the old one is dropped when the build starts (a build
    that fails leaves none), the new one written when it has succeeded, under the build's
    lock (:meth:`record`, called by :func:`cardgen.build.build`). ``report``: what the
    command prints for the results, kept so that a no-op prints it again."""

    def __init__(self, verdict: Verdict, report: Callable[[list], list[tuple[bool, str]]] | None = None,
                 back_offset_saved: bool = False) -> None:
        self.verdict = verdict
        self.report = report
        self.lines: list[tuple[bool, str]] | None = None
        self.back_offset_saved = back_offset_saved

    @property
    def request(self) -> Request:
        return self.verdict.request

    def forget(self) -> None:
        """The build starts: whatever happens next, the old stamp no longer speaks for it."""
        try:
            self.request.path.unlink(missing_ok=True)
        except OSError:
            pass

    def to_check(self, games: list) -> list:
        return self.verdict.to_check(games)

    @property
    def loaded_ns(self) -> int | None:
        """A time before the build's games were loaded from their files (the snapshot's), or
        None when no snapshot could be taken."""
        return self.verdict.snapshot.taken_ns if self.verdict.snapshot is not None else None

    def record(self, games: list, results: list, checked: bool) -> None:
        """Write the stamp of a build that has just succeeded (inputs unchanged since the build
        began, every product in place); without one if anything is in doubt."""
        self.lines = self.report(results) if self.report else None
        before = self.verdict.snapshot
        if before is None:
            return
        try:
            stamp = self._stamp(games, results, checked, before)
        except (Doubt, OSError):
            return
        write(self.request, stamp)

    def _stamp(self, games: list, results: list, checked: bool, before: Snapshot) -> dict:
        from .loader import SHARED_TEMPLATES

        req = self.request
        after = snapshot(req, {"inputs": {p: list(e) for p, e in before.files.items()},
                               "recorded_ns": before.taken_ns})
        if after.files.keys() != before.files.keys() or any(
                after.files[p] != e for p, e in before.files.items()):
            raise Doubt("an input changed while the build ran")
        covered = [str(r) for r in req.roots]
        read = [SHARED_TEMPLATES, *(f for g in games for f in (g.data_dir, g.templates_dir, *g.files, *g.fonts,
                                                               *g.physics.source_files))]
        if not all(any(_under(os.path.realpath(p), r) for r in covered) for p in read):
            raise Doubt("a game reads files outside the folders its request names")
        singles = {}
        for path in [*_cairo_libraries(), *([_config_file()] if self.back_offset_saved else [])]:
            entry = _file_entry(path, None, 0)
            singles[path] = None if entry is None else list(entry)
        from .output import is_build_product

        outputs: dict[str, dict[str, list | None]] = {}
        for folder in dict.fromkeys(str(r.folder) for r in results):
            outputs[folder] = {e.name: [*_signature(e.stat()), sha256_file(e.path)] if is_build_product(e.name) else None
                               for e in os.scandir(folder)}
        return {
            "format": FORMAT, "key": req.key, "recorded_ns": before.taken_ns, "checked": checked,
            "inputs": {p: list(e) for p, e in before.files.items()}, "files": singles,
            "listings": {f: _listing(f) for f in site_folders()}, "outputs": outputs,
            "games": {g.id: [str(g.data_dir.resolve()), str(g.templates_dir.resolve())] for g in games},
            "results": _results_json(results), "lines": None if self.lines is None else [list(x) for x in self.lines],
        }


def _results_json(results: list) -> list[dict]:
    from dataclasses import asdict

    return [{"game": r.game, "name": r.name, "lang": r.lang, "folder": str(r.folder),
             "files": [asdict(f) for f in r.files], "issues": [asdict(i) for i in r.issues],
             "untranslated": [list(u) for u in r.untranslated]} for r in results]


def _results(data: list[dict]) -> list:
    """The results :func:`_results_json` wrote, as the build returned them."""
    from .build.results import BuiltFile, GameBuild
    from .render import TextIssue

    return [GameBuild(r["game"], r["name"], r["lang"], Path(r["folder"]),
                      [BuiltFile(**{**f, "members": tuple(f["members"])}) for f in r["files"]],
                      [TextIssue(**i) for i in r["issues"]], [(m, c) for m, c in r["untranslated"]])
            for r in data]


def _cairo_libraries() -> list[str]:
    """The cairo library files this process draws with (an upgrade of cairo changes every
    face, as the face cache's keys say); none found is a doubt."""
    open_cairo()   # loaded into this process, to be found among its mapped files
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            found = sorted({line.split(None, 5)[5].strip() for line in fh
                            if len(line.split(None, 5)) == 6 and "/libcairo." in line})
    except OSError:
        found = []
    if not found:
        raise Doubt("the cairo library's file was not found")
    return found


def _config_file() -> str:
    from .userconfig import config_path

    return str(config_path())


def write(req: Request, stamp: dict) -> bool:
    """Write a stamp, compressed (see :data:`SUFFIX`), atomically (a temporary file renamed
    into place); keep the newest :data:`MAX_STAMPS`. Best effort: a stamp that cannot be written is simply not there."""
    from .userkey import sign

    folder = req.path.parent
    temp = folder / f".{PREFIX}{req.key}.{os.getpid()}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        packed = zlib.compress(json.dumps(stamp, separators=(",", ":")).encode("utf-8"))
        temp.write_bytes(sign(packed).encode() + b"\n" + packed)
        os.replace(temp, req.path)
    except OSError:
        temp.unlink(missing_ok=True)
        return False
    try:
        stamps = sorted(folder.glob(f"{PREFIX}*"), key=lambda p: p.stat().st_mtime_ns)
        current = [p for p in stamps if p.name.endswith(SUFFIX)]
        for old in [p for p in stamps if not p.name.endswith(SUFFIX)] + current[:-MAX_STAMPS]:
            old.unlink(missing_ok=True)   # the oldest, and any an earlier cardgen wrote in another layout
    except OSError:
        pass
    return True


def refresh(verdict: Verdict) -> None:
    """After a no-op that had to hash files (touched, or too recent to trust by signature):
    rewrite the stamp with the signatures now, so the next no-op compares them alone."""
    if not (verdict.fresh and verdict.refresh and verdict.snapshot and verdict.stamp):
        return
    stamp = dict(verdict.stamp)
    since = int(stamp["recorded_ns"])
    try:
        stamp["files"] = {p: None if (e := _file_entry(p, old, since)) is None else list(e)
                          for p, old in stamp["files"].items()}
        stamp["outputs"] = {folder: {name: None if old is None else [*_signature(os.stat(os.path.join(folder, name))),
                                                                     old[4]]
                                     for name, old in files.items()} for folder, files in stamp["outputs"].items()}
    except (Doubt, OSError, *_DAMAGED):
        return
    stamp["inputs"] = {p: list(e) for p, e in verdict.snapshot.files.items()}
    stamp["recorded_ns"] = verdict.snapshot.taken_ns
    write(verdict.request, stamp)
