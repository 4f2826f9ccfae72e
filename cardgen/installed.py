"""What is installed on this machine that every printed face depends on: the folders the
libraries are installed in (their ``*.dist-info`` names carry the versions), the libraries
cardgen uses among them, and cairo's C library. The face cache keys faces by them and the
up-to-date stamp records them; both ask here, without importing a drawing library (a
no-change rebuild imports none)."""

from __future__ import annotations

import os
import re
import site
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

#: cairo's C library by its usual names (Linux, macOS, Windows).
CAIRO_NAMES = ("libcairo.so.2", "libcairo.2.dylib", "libcairo-2.dll")


def site_folders() -> list[str]:
    """Where the installed libraries are."""
    return sorted({*site.getsitepackages(), site.getusersitepackages()})


def open_cairo(search: bool = False) -> ctypes.CDLL | None:
    """cairo's C library, opened by its usual names; with ``search``, then wherever
    :func:`ctypes.util.find_library` finds it (it runs ldconfig: tens of milliseconds).
    None when it is not found."""
    import ctypes   # here: a no-change rebuild asks only for the folders
    import ctypes.util

    for name in CAIRO_NAMES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    if search:
        try:
            return ctypes.CDLL(ctypes.util.find_library("cairo") or "cairo")
        except OSError:
            pass
    return None


# (patterns, compiled by :mod:`re` on first use: a no-change rebuild imports this module and
# never needs them)
#: A distribution's metadata folder: its name and version, and (an egg's) the Python it is for.
_METADATA_FOLDER = r"^(?P<name>[^-]+)-(?P<version>[^-]+?)(?:-py[^-]*)?\.(?:dist|egg)-info$"
#: A requirement: the distribution's name and the extras asked of it (PEP 508's start).
_REQUIREMENT = r"\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[(?P<extras>[^\]]*)\])?"
#: An extra a requirement's marker makes it depend on.
_EXTRA = r"""\bextra\s*==\s*['"]([^'"]*)['"]"""
#: cardgen's own declaration, beside the package in a source tree (no installed metadata there).
_PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"


def used_distributions() -> list[str]:
    """The metadata folders (``name-version.dist-info``) of the installed distributions
    cardgen's output can depend on: those cardgen requires, what they require in turn, and so
    on, as installed in :func:`site_folders` — sorted; every distribution when cardgen's own
    requirements cannot be found.

    Why not every installed distribution: then installing or upgrading anything in the same
    environment — the test suite's tools, pip itself — changed every face's key and every
    game's fingerprint, so the next build drew every face again and wrote manifests and rule
    sheets of other bytes from the same inputs. A requirement is followed whatever its
    environment marker says (one installed where it is not needed only costs a rebuild when it
    changes), except one that only an extra nobody asked for needs (cardgen's ``test``
    tools). Read from the metadata files themselves, without :mod:`importlib.metadata`
    (60–70 ms for these 34 distributions, against 2–3 ms), and once per process while no
    folder's entries and no ``pyproject.toml`` change (a daemon's commands inherit it)."""
    state = tuple(_modified(Path(f)) for f in (*site_folders(), _PYPROJECT))
    if _USED.get("state") == state:
        return list(_USED["used"])   # type: ignore[call-overload]
    used = _used_distributions()
    # a folder changed within the last second may change again within its clock's tick
    # without its time moving: then it is read again (as git treats a "racily clean" file)
    if all(ns < time.time_ns() - 1_000_000_000 for _f, ns in state):
        _USED.update(state=state, used=used)
    return used


#: :func:`used_distributions`' answer, and the folders' (and pyproject's) state it was found in.
_USED: dict[str, object] = {}


def _modified(path: Path) -> tuple[str, int]:
    """A file's or folder's modification time (a folder's changes when an entry comes, goes or
    is renamed: a library installed, removed or upgraded)."""
    try:
        return str(path), os.stat(path).st_mtime_ns
    except OSError:
        return str(path), -1


def _used_distributions() -> list[str]:
    """:func:`used_distributions`, found again."""
    folders: dict[str, list[Path]] = {}
    for site_folder in site_folders():
        try:
            names = os.listdir(site_folder)
        except OSError:
            continue
        for name in names:
            match = re.match(_METADATA_FOLDER, name)
            if match:
                folders.setdefault(_normal(match["name"]), []).append(Path(site_folder, name))
    roots = _own_requirements(folders.get("cardgen", []))
    if roots is None:
        return sorted(path.name for paths in folders.values() for path in paths)
    used: dict[str, set[str]] = {}   # a distribution and the extras asked of it
    todo = [(requirement, frozenset[str]()) for requirement in roots]
    while todo:
        requirement, asked = todo.pop()
        wanted = _wanted(requirement, asked)
        if wanted is None or wanted[0] not in folders:
            continue
        name, extras = wanted
        if name in used and extras <= used[name]:
            continue
        used[name] = used.get(name, set()) | extras
        for path in folders[name]:
            todo += [(r, frozenset(used[name])) for r in _requirements(path)]
    return sorted(path.name for name in used if name != "cardgen" for path in folders[name])


def _normal(name: str) -> str:
    """A distribution's name as PEP 503 compares names."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _wanted(requirement: str, asked: frozenset[str]) -> tuple[str, frozenset[str]] | None:
    """The distribution a requirement names and the extras it asks of it; None when only an
    extra its dependent was not asked for (``asked``, names as :func:`_normal` writes them)
    needs it."""
    spec, _, marker = requirement.partition(";")
    extras = {_normal(e) for e in re.findall(_EXTRA, marker)}
    if extras and not extras & asked:
        return None
    match = re.match(_REQUIREMENT, spec)
    if match is None:
        return None
    return _normal(match["name"]), frozenset(_normal(e) for e in (match["extras"] or "").split(",") if e.strip())


def _own_requirements(own: list[Path]) -> list[str] | None:
    """cardgen's requirements: from its installed metadata, else from ``pyproject.toml`` beside
    the package; None when neither says."""
    for path in own:
        found = _requirements(path)
        if found:
            return found
    try:
        import tomllib

        with open(_PYPROJECT, "rb") as fh:
            project = tomllib.load(fh).get("project", {})
    except (OSError, ValueError):
        return None
    if project.get("name") != "cardgen" or not isinstance(project.get("dependencies"), list):
        return None
    return [str(r) for r in project["dependencies"]]


def _requirements(folder: Path) -> list[str]:
    """What an installed distribution requires (``Requires-Dist`` of a wheel's metadata, an
    egg's ``requires.txt`` with each section's extra written as a marker)."""
    try:
        if folder.name.endswith(".dist-info"):
            head = (folder / "METADATA").read_text("utf-8", errors="replace").split("\n\n", 1)[0]
            return [line.split(":", 1)[1].strip() for line in head.splitlines() if line.startswith("Requires-Dist:")]
        text = (folder / "requires.txt").read_text("utf-8", errors="replace")
    except OSError:
        return []
    found, extra = [], ""
    for line in (line.strip() for line in text.splitlines()):
        if line.startswith("[") and line.endswith("]"):
            extra = line[1:-1].partition(":")[0]
        elif line:
            found.append(f'{line}; extra == "{extra}"' if extra else line)
    return found
