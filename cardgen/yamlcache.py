"""Parsed data files kept once per machine, so that loading a game parses only the files
that changed since any command of this user last read them.

Loading Particle Builder parses 18 YAML files: 30 ms of the 45 ms a command spends
loading it, on the path of every build after an edit (the edited file is one of the 18).
What parsing a file gives (:func:`cardgen.yamlsrc.parse_yaml`: mappings and lists that
know where each key and value stands, the text of each scalar) depends only on the file's
text, the name it is shown by, the code that parses it and the PyYAML release. So the
result is kept in the user's cache folder (``~/.cache/cardgen/yaml``) under a digest of
all of those, as plain data — tuples, strings and numbers written with :mod:`marshal` — and
a later load of the same text builds the same objects from it: 10 ms instead of 30.

Only documents that parsed are kept: a file with a mistake is parsed again, to report it.
A document holding a value marshal cannot write (a date) is not kept. The files are signed
and the folder bounded (:mod:`cardgen.machinefiles`): an entry damaged or written by anyone
else is parsed afresh, never believed. ``--no-cache`` (:func:`cardgen.machinefiles.switch`)
takes and keeps nothing. :func:`cardgen.yamlsrc.parse_yaml` stays the reference:
``tests/test_yamlcache.py`` checks that every shipped data file and the fuzz corpus come back
from here exactly as they parse, positions and scalars' text included.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .errors import Location
from .machinefiles import TaggedFiles, cache_folder, enabled
from . import yamlsrc
from .yamlsrc import YMap, YSeq

#: The folder's size bound in bytes; the shipped games' parsed files take about 0.3 MB.
LIMIT = 16 * 1024 * 1024
#: The suffix of an entry.
SUFFIX = ".doc"
#: Kinds of kept node (a scalar is kept as itself: never a tuple).
_MAP, _SEQ = 0, 1
#: The types a scalar may be kept as.
_PLAIN = (str, int, float, bool, type(None))


def default_folder() -> Path:
    """Where this user's parsed files are kept (the platform's cache folder)."""
    return cache_folder("yaml")


@functools.cache
def parser_digest() -> str:
    """Everything besides a file's text and name that its parse depends on: the parsing code
    and the PyYAML release (and whether its C parser is there), Python's (marshal's format)."""
    import yaml

    h = hashlib.sha256(f"{yaml.__version__}\0{getattr(yaml, '__with_libyaml__', False)}\0{sys.version}".encode())
    for module in (yamlsrc, sys.modules[__name__]):
        h.update(b"\0" + Path(str(module.__file__)).read_bytes())
    return h.hexdigest()


def load_yaml(path: Path) -> Any:
    """Read and parse a YAML file as :func:`cardgen.yamlsrc.load_yaml` does, its parse taken
    from this machine's folder when the same text was parsed before."""
    return yamlsrc.load_yaml(path, functools.partial(parsed, parse=yamlsrc.parse_yaml))


def parsed(text: str, file: str, parse: Callable[[str, str], Any], folder: Path | None = None) -> Any:
    """``parse(text, file)``, or what it gave for the same text and name before."""
    if not enabled():
        return parse(text, file)
    files = TaggedFiles(folder or default_folder(), LIMIT, (SUFFIX,))
    key = hashlib.sha256(f"{parser_digest()}\0{file}\0".encode() + text.encode("utf-8", "surrogatepass"))
    path = files.folder / f"{key.hexdigest()[:40]}{SUFFIX}"
    data = files.read(path)
    if data is not None:
        try:
            return _built(marshal.loads(data), file)
        except (ValueError, EOFError, TypeError, IndexError, KeyError):
            pass   # not what this module writes: parsed afresh below
    doc = parse(text, file)
    try:
        files.write(path, marshal.dumps(_kept(doc)))
    except (TypeError, ValueError, RecursionError):
        pass   # a value kept as no plain data (a date): parsed each time
    return doc


def _kept(value: Any) -> Any:
    """A parsed value as plain data: a mapping or list as a tuple of its kind, its place,
    its items and theirs; a scalar as itself."""
    if isinstance(value, YMap):
        keys = tuple(value)
        places = tuple(n for k in keys for loc in (value.key_locs[k], value.value_locs[k])
                       for n in (loc.line, loc.column))
        return (_MAP, value.loc.line, value.loc.column, keys, tuple(_kept(value[k]) for k in keys), places,
                tuple(value.raw.get(k) for k in keys))
    if isinstance(value, YSeq):
        return (_SEQ, value.loc.line, value.loc.column, tuple(_kept(v) for v in value),
                tuple(n for loc in value.item_locs for n in (loc.line, loc.column)), tuple(value.raw))
    if type(value) not in _PLAIN:
        raise TypeError(f"not kept: {type(value).__name__}")
    return value


def _built(kept: Any, file: str) -> Any:
    """The parsed value :func:`_kept` wrote, every place in ``file``."""
    if type(kept) is not tuple:
        if type(kept) not in _PLAIN:
            raise TypeError(f"not a parsed value: {type(kept).__name__}")
        return kept
    if kept[0] == _MAP:
        _kind, line, column, keys, values, places, raw = kept
        out = YMap(zip(keys, [_built(v, file) for v in values], strict=True))
        out.loc = Location(file, line, column)
        out.key_locs = {k: Location(file, places[4 * i], places[4 * i + 1]) for i, k in enumerate(keys)}
        out.value_locs = {k: Location(file, places[4 * i + 2], places[4 * i + 3]) for i, k in enumerate(keys)}
        out.raw = {k: r for k, r in zip(keys, raw, strict=True) if r is not None}
        return out
    _kind, line, column, items, places, raw = kept
    seq = YSeq(_built(v, file) for v in items)
    seq.loc = Location(file, line, column)
    seq.item_locs = [Location(file, places[2 * i], places[2 * i + 1]) for i in range(len(items))]
    seq.raw = list(raw)
    if len(seq.raw) != len(seq):
        raise ValueError("items and their texts differ in number")
    return seq
