"""Compiled templates kept once per machine, outside every output folder (used by
:class:`cardgen.render.CompiledTemplates`), and beside them what the checker read from each
template (:func:`cardgen.rules.pdg_values.printed_quantities`).

A cold build — a new output folder, so an empty face cache — used to compile every template
again (Jinja parses the source and generates Python, Python compiles that: ~1 s of CPU for
the shipped games, once in each worker process). The compiled code does not depend on the
output folder, only on the template's source, the Jinja release, the Python release (the
format of marshalled code) and the cardgen code that configures the environment and parses
templates. So it is kept in the user's cache folder (``platformdirs.user_cache_dir``, e.g.
``~/.cache/cardgen/templates``), one file per template and all of that, and every build
and check of the machine loads it: one ``marshal.loads``, no parsing, no compiling.

The checker scans every template a component prints with for the particle quantities it
reads (0.09 s of Jinja parsing for Particle Builder's, in every check gate of a build whose
game changed — after a one-card edit, on the path to the first file written). What the scan
finds depends on the same things as the compiled code, and on the scan: it is kept here too
(:meth:`MachineTemplates.facts`), one small file per template source.

It is code, or what decides which printed values the checker compares with PDG, so each file
carries an HMAC with this user's key (:func:`cardgen.userkey.user_key`) and one whose tag does
not verify — damaged, truncated, written by anyone else — is ignored and compiled (or
scanned) afresh, never unmarshalled or believed. The folder is bounded (:data:`LIMIT` bytes: the
least recently used files go first) and disposable: a read that fails is a miss, a write
that fails is skipped.
"""

from __future__ import annotations

import functools
import hashlib
import marshal
import sys
from pathlib import Path
from types import CodeType

import jinja2

from .machinefiles import TaggedFiles, cache_folder

#: The folder's size bound in bytes; the shipped games' templates take about 1 MB.
LIMIT = 32 * 1024 * 1024
#: The modules whose code decides what a template compiles to: the environment's options and
#: its sandbox (render, budget) and the parse (templatetrees).
_COMPILER_MODULES = ("render.py", "budget.py", "templatetrees.py")


def default_folder() -> Path:
    """Where this user's compiled templates are kept (the platform's cache folder)."""
    return cache_folder("templates")


@functools.cache
def compiler_digest() -> str:
    """Everything besides the template source that the compiled code depends on."""
    h = hashlib.sha256(f"{jinja2.__version__}\0{sys.implementation.cache_tag}\0{sys.version}".encode())
    package = Path(__file__).resolve().parent
    for name in _COMPILER_MODULES:
        h.update(b"\0" + (package / name).read_bytes())
    return h.hexdigest()


class MachineTemplates:
    """Compiled templates in ``folder`` (default: :func:`default_folder`), by Jinja's bucket
    key (template name and file) and source checksum."""

    def __init__(self, folder: Path | None = None, limit: int = LIMIT) -> None:
        self.folder = folder or default_folder()
        self._files = TaggedFiles(self.folder, limit, (".code", ".facts"))

    def _path(self, key: str, checksum: str) -> Path:
        name = hashlib.sha256(f"{key}\0{checksum}\0{compiler_digest()}".encode()).hexdigest()[:40]
        return self.folder / f"{name}.code"

    def _facts_path(self, key: str) -> Path:
        name = hashlib.sha256(f"facts\0{key}\0{compiler_digest()}".encode()).hexdigest()[:40]
        return self.folder / f"{name}.facts"

    def get(self, key: str, checksum: str) -> CodeType | None:
        """The code compiled for this template source, or None (absent, damaged or foreign)."""
        data = self._files.read(self._path(key, checksum))
        if data is None:
            return None
        try:
            code = marshal.loads(data)
        except (ValueError, EOFError, TypeError):
            return None
        return code if isinstance(code, CodeType) else None

    def put(self, key: str, checksum: str, code: CodeType) -> bool:
        """Keep ``code``; False when it could not be written (the folder is read-only...)."""
        return self._files.write(self._path(key, checksum), marshal.dumps(code))

    def facts(self, key: str) -> bytes | None:
        """What the checker's scan found in a template source, kept under ``key`` (a digest of
        the source and of the scan), or None (absent, damaged or foreign)."""
        return self._files.read(self._facts_path(key))

    def keep_facts(self, key: str, data: bytes) -> bool:
        """Keep a scan's findings under ``key``; False when they could not be written."""
        return self._files.write(self._facts_path(key), data)
