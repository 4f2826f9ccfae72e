"""Errors and findings: every problem cardgen reports points at a file, line and column.

Two kinds of problem exist and they map to different exit codes:

* :class:`InputError` — the input cannot be used at all (YAML syntax, unknown keys, wrong types,
  missing files, dangling references). Loading stops; the CLI exits with 2.
* :class:`Finding` — the input loads, but a game rule is broken (a target that cannot be built,
  a decay that does not conserve charge). The checker collects all of them; the CLI exits with 1.

:class:`FileSystemError` (exit 2) names a file or folder the system refused and what to do;
:class:`InternalError` (exit 70) is kept for what cardgen did not foresee. Every error pickles
whole, so it crosses from a build worker to the main process unchanged.
"""

from __future__ import annotations

import difflib
import errno
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping


@dataclass(frozen=True, slots=True)
class Location:
    """A place in a source file, 1-based like editors show it. A spreadsheet cell also keeps
    the name spreadsheets give it (``Cards!C7``), which is how it is shown."""

    file: str
    line: int = 0
    column: int = 0
    cell: str = ""

    def __str__(self) -> str:
        if self.cell:
            return f"{self.file}:{self.cell}"
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file

    @classmethod
    def of_file(cls, path: Path | str) -> "Location":
        return cls(display_path(path))

    @classmethod
    def of_byte(cls, file: str, data: bytes, offset: int) -> "Location":
        """The line and column of byte ``offset`` of a file's ``data`` (``file``: as shown),
        where a text cannot be decoded."""
        return cls(file, data.count(b"\n", 0, offset) + 1, offset - (data.rfind(b"\n", 0, offset) + 1) + 1)


def display_path(path: Path | str) -> str:
    """Show paths relative to the working directory when possible: shorter and clickable."""
    p = Path(path)
    try:
        return str(p.resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):   # RuntimeError: a loop of symbolic links (Python < 3.13)
        return str(p)


class CardgenError(Exception):
    """Base class of every error cardgen raises on purpose (never shown as a traceback)."""

    exit_code = 2

    def __init__(self, message: str, location: Location | None = None, fix: str | None = None,
                 code: str = "input") -> None:
        super().__init__(message)
        self.message = message
        self.location = location
        self.fix = fix
        self.code = code

    def __reduce__(self) -> tuple:
        """Cross a process boundary (parallel builds) whole, whatever a subclass's constructor
        takes: the copy is made without calling ``__init__`` and gets every attribute back."""
        return (_rebuild, (self.__class__, self.args, self.__dict__))

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        if "\n" in self.message.rstrip() and self.fix:
            # a message that lists findings, each ending with its own fix: this error's fix gets a
            # line of its own, so it does not read as the last finding's second fix
            return f"{where}error[{self.code}]: {self.message.rstrip()}\nFix: {sentence(self.fix)}"
        return f"{where}error[{self.code}]: {sentence(self.message)}" + (f" Fix: {sentence(self.fix)}" if self.fix else "")

    def as_dict(self) -> dict[str, object]:
        return {
            "severity": "error",
            "rule": self.code,
            "message": self.message,
            "fix": self.fix,
            "file": self.location.file if self.location else None,
            "line": self.location.line if self.location else None,
            "column": self.location.column if self.location else None,
        }


def _rebuild(cls: type[CardgenError], args: tuple, state: dict[str, object]) -> CardgenError:
    """The other half of :meth:`CardgenError.__reduce__`."""
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class InputError(CardgenError):
    """The input files cannot be loaded as they are."""


def each_error(error: CardgenError) -> tuple[CardgenError, ...]:
    """The errors ``error`` stands for: those an :class:`InputErrors` holds, else itself."""
    return getattr(error, "errors", ()) or (error,)


class InputErrors(InputError):
    """Several input errors found in one reading — one in each broken file of a game, one in
    each game that cannot be read — reported together, so that a user fixes them in one round
    instead of meeting them one run at a time. ``errors`` holds each, in the order found;
    each is shown on its own line."""

    errors: tuple[CardgenError, ...] = ()

    def __init__(self, errors: Iterable[CardgenError]) -> None:
        flat = tuple(e for error in errors for e in each_error(error))
        first = flat[0]
        super().__init__(first.message, first.location, first.fix, first.code)
        self.errors = flat
        self.exit_code = max(e.exit_code for e in flat)   # an internal error among them stays one

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors) if self.errors else super().__str__()


def raise_all(errors: list[CardgenError]) -> None:
    """Raise the errors collected (one as itself, several as :class:`InputErrors`); none: return."""
    if len(errors) == 1:
        raise errors[0]
    if errors:
        raise InputErrors(errors)


class FileSystemError(CardgenError):
    """A file or folder cannot be read or written (full disk, read-only or missing folder,
    permissions, a loop of symbolic links): which one, why, and what to do."""


#: What to do about an operating-system error, by errno name.
_OS_FIXES = {
    "ENOSPC": "free some disk space, or write to another disk with --out",
    "EDQUOT": "free some of your disk quota, or write to another disk with --out",
    "EROFS": "the disk is read-only: choose a folder on a writable disk with --out",
    "EACCES": "choose a folder you may write to with --out, or change its permissions",
    "EPERM": "choose a folder you may write to with --out, or change its permissions",
    "ENOTDIR": "a file stands where a folder is needed: remove it or choose another --out",
    "EISDIR": "a folder stands where a file is needed: remove it or choose another --out",
    "ELOOP": "remove the loop of symbolic links",
    "ENAMETOOLONG": "use a shorter path",
    "EMFILE": "close other programs, or raise the limit on open files (ulimit -n)",
    "EFBIG": "the file is larger than this process may write: raise the file-size limit (ulimit -f), or write "
             "to a disk whose file system allows larger files with --out",
}


def file_system_error(exc: OSError, doing: str = "use", path: Path | str | None = None) -> FileSystemError:
    """An :class:`OSError` as one clear line: ``cannot write 'out/qcd/en/cards.pdf': No space
    left on device. Fix: free some disk space ...``."""
    target = path if path is not None else exc.filename
    name = errno.errorcode.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc)
    where = f" '{display_path(target)}'" if target is not None else ""
    return FileSystemError(f"cannot {doing}{where}: {reason}", None, _OS_FIXES.get(name, "check that path"),
                           code="io")


class InternalError(CardgenError):
    """A failure cardgen did not foresee (a bug, or a resource the system ran out of), turned
    into a plain one-line error where it happened — inside a build worker too — so it reaches
    the user the same way for every ``--jobs``."""

    exit_code = 70

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        fix = f" {sentence(self.fix)}" if self.fix else ""
        return f"{where}internal error: {sentence(self.message)}{fix} (set CARDGEN_DEBUG=1 for details and please report it)"


@dataclass(frozen=True)
class Finding:
    """One broken rule, found by the checker in data that otherwise loaded fine."""

    rule: str
    message: str
    location: Location
    fix: str
    game: str = ""
    severity: str = "error"
    #: the other games whose check found it too (data they share, said once: see cardgen.check.once)
    also: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.location}: {self.severity}[{self.rule}]: {sentence(self.message)} Fix: {sentence(self.fix)}"

    def concerns(self, game: str) -> bool:
        """Whether the finding is about ``game``: found in its check, or in another's in data they share."""
        return game == self.game or game in self.also

    def as_dict(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "rule": self.rule,
            "game": self.game,
            "games": [self.game, *self.also],
            "message": self.message,
            "fix": self.fix,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
        }


@dataclass
class Report:
    """The checker's result for one or more games: what is wrong (``findings``), what was
    proved (``proofs``), which deviations the data declares on purpose (``choices``) and the
    game's stated assumptions (``assumptions``, as (game, id, text, location)); ``rendered``
    holds what the check rendered (:class:`cardgen.rendercheck.Rendered`, one per game and
    language; empty when it did not render)."""

    findings: list[Finding] = field(default_factory=list)
    games: list[str] = field(default_factory=list)
    proofs: list = field(default_factory=list)
    choices: list = field(default_factory=list)
    assumptions: list = field(default_factory=list)
    rendered: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def extend(self, findings: Iterable[Finding]) -> None:
        self.findings.extend(findings)


def sentence(text: str) -> str:
    """End a message with exactly one full stop (unless it ends with ? or !)."""
    text = text.rstrip()
    return text if text.endswith((".", "?", "!", "…")) else text + "."


def did_you_mean(word: str, choices: Iterable[str], others: Mapping[str, str] | None = None) -> str:
    """A ' — did you mean X?' suffix for typos, or '' when nothing is close; ``others``: what
    other tools call some of the choices (``string`` for ``text``), matched as the choice
    each stands for where spelling alone would not find it."""
    names = {**(others or {}), **{str(c): str(c) for c in choices}}   # a name, and the choice it stands for
    close = difflib.get_close_matches(str(word), list(names), n=1, cutoff=0.6)
    return f" — did you mean '{names[close[0]]}'?" if close else ""
