"""Translation catalogs (gettext .po via Babel): extract, init, update, status, and lookup.

Translators never touch YAML or templates. ``cardgen i18n extract`` collects every string a card
can print — names and text fields from the data, ``_("...")`` literals from templates, and the
printing instructions — into one ``.pot`` per *domain*: ``common`` (particles, colours, shared
templates, instructions) and one per game. Each message carries its context (which game,
component or table, which field) and a translator comment with the box it must fit in.

Catalogs live in ``data/locale/<lang>/LC_MESSAGES/<domain>.po`` (a game from ``--games-dir``
keeps its own in ``<game>/locale/``). Builds read the .po files directly: nothing to compile.

Why ~500 lines: lookup, extraction, catalog writing and status share the catalog paths,
domains and message keys; extraction alone walks every kind of game data that can print text.
"""

from __future__ import annotations

import io
import re
import stat
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from .errors import InputError, Location, display_path
from .loader import DATA_DIR, SHARED_TEMPLATES, SHIPPED_GAMES
from .model import Component, Game, Table
from .output import atomic_write, source_date_epoch
from .yamlsrc import BAD_CHARS

if TYPE_CHECKING:   # Babel is imported where catalogs are read or written: an English build needs none
    from babel.messages.catalog import Catalog

SOURCE_LANG = "en"
COMMON = "common"
SHIPPED_LOCALE = DATA_DIR / "locale"
#: cardgen's own modules that print words on sheets, each string written ``_("...")`` in
#: them, and what translators are told about those strings. Their source is read, not
#: imported: a catalog never depends on the build being importable (nor the build on i18n
#: through it).
PRINTED_SOURCES = (
    (Path(__file__).with_name("build") / "report.py", "printing instructions; keep {placeholders} as they are"),
    (Path(__file__).with_name("build") / "impose.py", "printing instructions: a file's layout; keep {placeholders}"),
    (Path(__file__).with_name("imposition") / "plan.py", "printing instructions: a file's layout; keep {placeholders}"),
    (Path(__file__).with_name("imposition") / "tiling.py", "printing instructions: a file's layout; keep {placeholders}"),
    (Path(__file__).with_name("imposition") / "words.py", "printing instructions: a sheet's orientation"),
    (Path(__file__).with_name("sheets.py"), "rule sheet or answer key (rules.pdf, answers.pdf)"),
    (Path(__file__).with_name("tts_text.py"), "Tabletop Simulator tooltip: a printed value's label"),
)


def locale_dir(game: Game | None) -> Path:
    """Where a domain's catalogs live: shipped games and ``common`` under data/locale, a
    designer's game inside its own folder."""
    if game is None or _shipped(game):
        return SHIPPED_LOCALE
    return game.data_dir / "locale"


def _shipped(game: Game) -> bool:
    """One of the games cardgen ships (its catalogs are cardgen's, its id names it anywhere)."""
    return game.data_dir.resolve().parent == SHIPPED_GAMES.resolve()


#: A language code as BCP 47 writes it (de, pt-BR, zh-Hant, sr_Latn): letters, digits and
#: separators only, so a code can never name a folder outside the catalogs ('../../etc').
_LANG_CODE = re.compile(r"[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,3}")


def check_language(lang: str) -> str:
    """``lang`` if it has the form of a language code; an error saying what to type otherwise."""
    if not isinstance(lang, str) or not _LANG_CODE.fullmatch(lang):
        shown = repr(lang) if len(str(lang)) <= 40 else repr(str(lang)[:40] + "…")
        raise InputError(f"{shown} is not a language code", None,
                         "use a code such as en, de, fr, pt-BR or zh-Hant ('all' with build and check)")
    written = _canonical(lang)
    if written != lang:   # one spelling per language: 'DE' beside 'de' would be a second catalog
        raise InputError(f"language code {lang!r} is written {written!r}", None,
                         f"use {written} (the language in lower case, a region in capitals after '-', as in pt-BR)")
    return lang


def _canonical(lang: str) -> str:
    """A language code as BCP 47 writes it: de, pt-BR, zh-Hant, es-419."""
    first, *rest = re.split(r"[-_]", lang)
    parts = [first.lower()]
    for sub in rest:
        if len(sub) == 4 and sub.isalpha():
            parts.append(sub.title())
        elif (len(sub) == 2 and sub.isalpha()) or (len(sub) == 3 and sub.isdigit()):
            parts.append(sub.upper())
        else:
            parts.append(sub.lower())
    return "-".join(parts)


def command_name(game: Game) -> str:
    """How a command names the game: a shipped game by its id, any other by its folder (a
    designer's game is found by id only with --games-dir)."""
    return game.id if _shipped(game) else display_path(game.data_dir)


def po_path(game: Game | None, lang: str) -> Path:
    check_language(lang)
    domain = game.id if game else COMMON
    return locale_dir(game) / lang / "LC_MESSAGES" / f"{domain}.po"


def pot_path(game: Game | None) -> Path:
    return locale_dir(game) / f"{game.id if game else COMMON}.pot"


def available_languages(game: Game) -> list[str]:
    """English plus every language with a catalog for this game."""
    root = locale_dir(game)
    langs = {p.parent.parent.name for p in root.glob(f"*/LC_MESSAGES/{game.id}.po")} if root.is_dir() else set()
    return [SOURCE_LANG] + sorted(langs - {SOURCE_LANG})


def codes(spec: str | Iterable[str]) -> list[str]:
    """The codes a language option names, as given: one, a list, or codes separated by commas
    ('all' among them)."""
    return [code.strip() for part in ([spec] if isinstance(spec, str) else spec) for code in part.split(",")
            if code.strip()]


def language_games(spec: str | Iterable[str], games: Iterable[Game]) -> list[tuple[str, list[Game]]]:
    """Each language ``spec`` asks for, with the games built in it: every game for a language
    named, the games with a catalog for it for one 'all' brought in."""
    games = list(games)
    named = set(codes(spec)) - {"all"}
    return [(lang, [g for g in games if lang in named or lang in available_languages(g)])
            for lang in languages(spec, games)]


def languages(spec: str | Iterable[str], games: Iterable[Game]) -> list[str]:
    """The languages a command was asked for: ``spec`` is one code or several (a list, or
    codes separated by commas), and 'all' stands for every language any of ``games`` has a catalog for (English included). Codes
    are checked (see :func:`check_language`); the result is sorted, each language once."""
    out: set[str] = set()
    for code in codes(spec):
        if code != "all":
            out.add(check_language(code))
            continue
        for g in games:
            for lng in available_languages(g):
                try:
                    out.add(check_language(lng))
                except InputError:   # a folder 'all' found, misnamed: named by its path
                    raise InputError(f"catalog folder '{lng}' is not named by a language code",
                                     Location(display_path(locale_dir(g) / lng)),
                                     "rename it to a code such as de, pt-BR or zh-Hant, or remove it") from None
    return sorted(out)


_PO_FIX = "fix the .po file (msgfmt --check or Poedit show the problem)"
#: A line of a .po file: a keyword and its quoted string, or a quoted string continuing it.
_PO_LINE = re.compile(r'(?:(?P<key>msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?"(?:[^"\\]|\\.)*"\s*')
#: Catalogs bigger than this are refused before they are read: the largest shipped catalog is
#: about 50 KB, a game at the data-file bound (:data:`cardgen.yamlsrc.MAX_BYTES`) gives a few
#: MiB with its translations and comments, and parsing takes about half a second and 8 bytes
#: of memory per byte of catalog (a 212 MB catalog took 111 s and 1.7 GB).
MAX_CATALOG_BYTES = 8 * 2**20
_BOM = b"\xef\xbb\xbf"
#: The charset a catalog's header declares (``"Content-Type: text/plain; charset=UTF-8\n"``).
_CHARSET = re.compile(r"charset=([^\s\\\";]*)", re.IGNORECASE)
_UTF8_NAMES = {"utf-8", "utf8"}
#: ASCII is UTF-8's first 128 characters: a catalog that declares it and holds only those is read alike.
_ASCII_NAMES = {"us-ascii", "ascii", "ansi_x3.4-1968"}


def _present(path: Path) -> bool:
    """Whether a catalog (or template) file is at ``path``: False when nothing is; an error when
    something else stands there. A folder of the catalog's name once read as a missing catalog
    to one command, an existing one to another, and as nothing to do to a third."""
    shown = display_path(path)
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return False
    except NotADirectoryError:   # locale/de is a file: the catalog's folder cannot exist
        blocker = next((p for p in path.parents if p.is_file()), path.parent)
        raise InputError("a file stands where a folder of the catalogs should be", Location(display_path(blocker)),
                         f"remove or rename that file (the catalogs go in {display_path(blocker)}/)") from None
    except OSError as exc:
        raise InputError(f"cannot read the catalog: {exc.strerror}", Location(shown),
                         "check the file's permissions") from None
    if stat.S_ISDIR(mode):
        raise InputError("a folder stands where a catalog file should be", Location(shown),
                         f"remove or rename the folder: the catalog is a file named {path.name}")
    if not stat.S_ISREG(mode):   # a named pipe or device would block or never end
        raise InputError("not a regular file where a catalog file should be", Location(shown),
                         f"replace it with the catalog file {path.name}")
    return True


def _catalog_text(path: Path) -> str:
    """A catalog's text as cardgen reads every catalog, or an error at its line and column.

    Bounded by :data:`MAX_CATALOG_BYTES` before anything is parsed. A UTF-8 byte-order mark is
    dropped and CRLF or CR-only line ends read as LF: Babel splits lines at LF only, so a CR-only
    catalog was one long line of which it read nothing (0 translations, and an update that wrote
    a broken catalog). Then :func:`_checked_charset` and :func:`_checked_po`. The caller checks
    with :func:`_present` that a file is there."""
    shown = display_path(path)
    try:
        size = path.stat().st_size
        if size > MAX_CATALOG_BYTES:   # refused by its size, before anything is read
            raise InputError(f"the catalog is {size / 2**20:.1f} MiB; catalogs may be at most "
                             f"{MAX_CATALOG_BYTES // 2**20} MiB", Location(shown), _TOO_BIG)
        with path.open("rb") as fh:
            data = fh.read(MAX_CATALOG_BYTES + 1)   # bounded even if it grew since
    except OSError as exc:
        raise InputError(f"cannot read the catalog: {exc.strerror}", Location(shown),
                         "check the file's permissions") from None
    if len(data) > MAX_CATALOG_BYTES:
        raise InputError(f"the catalog is more than {MAX_CATALOG_BYTES // 2**20} MiB", Location(shown), _TOO_BIG)
    data = data.removeprefix(_BOM).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        # a header declaring another charset explains the byte better than the byte does
        _checked_charset(data.decode("utf-8", "replace"), path)
        raise InputError(f"the catalog is not UTF-8 text: byte 0x{data[exc.start]:02x} cannot be read",
                         Location.of_byte(shown, data, exc.start), "save the catalog as UTF-8") from None
    _checked_charset(text, path)
    _checked_po(text, path)
    return text


#: What to do about a catalog over :data:`MAX_CATALOG_BYTES`.
_TOO_BIG = ("check that it is the right file: a game's catalog is well under 1 MiB, and 'cardgen i18n extract' "
            "then 'cardgen i18n update' write it anew from the game")


def _checked_charset(text: str, path: Path) -> None:
    """Refuse a header that declares any charset but UTF-8 (missing, it is UTF-8 to Babel and
    gettext alike). cardgen's catalogs are UTF-8, and it reads them as UTF-8 whatever they
    declare: read as declared, a catalog that an editor saved as UTF-8 but still declares
    latin-1 turned 'Quärk' into 'QuÃ¤rk' without a word. A catalog really saved in the declared
    charset is refused too, though its bytes may happen to be valid UTF-8: which of the two the
    bytes mean cannot be told from them, so the error asks to save as UTF-8 and declare it. ASCII
    alone is the exception: a catalog of ASCII characters reads the same in both."""
    entries = 0
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if line.startswith(("msgid ", "msgctxt ")):
            entries += 1
            if entries > 1 or line.startswith("msgctxt"):   # past the header (the first, context-less entry)
                return
        if entries and not line.startswith("#"):
            m = _CHARSET.search(raw)
            if m and m[1].lower() not in _UTF8_NAMES and not (m[1].lower() in _ASCII_NAMES and text.isascii()):
                raise InputError(f"the catalog declares charset={m[1]}, but cardgen reads catalogs as UTF-8 only",
                                 Location(display_path(path), n, m.start() + 1),
                                 "save the file as UTF-8 and write charset=UTF-8 in its Content-Type line "
                                 "(Poedit: Catalog > Properties)")


def _checked_po(text: str, path: Path) -> None:
    """What Babel reads leniently, refused at its line: a line that is no keyword with a quoted
    string (an unclosed quote loses its last letter in Babel), and a message listed twice
    (msgfmt refuses both). ``text`` has LF line ends only (:func:`_catalog_text`): lines are
    split where Babel splits them, so a U+2028 inside a string is no line end here either."""
    seen: dict[tuple[str, str], int] = {}
    entry: dict[str, Any] = {}   # the message being read: its context, msgid, first line
    current, after_str = "", False

    def finish() -> None:
        if "msgid" in entry:
            key = (entry.get("msgctxt", ""), entry["msgid"])
            if key in seen:
                raise InputError(f"message {key[1][:60]!r} is listed twice (first at line {seen[key]})",
                                 Location(display_path(path), entry["line"], 1), "remove one of the two entries")
            seen[key] = entry["line"]
        entry.clear()

    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = _PO_LINE.fullmatch(line)
        if m is None:
            raise InputError(f"line {n} is not a keyword with a quoted string (an unclosed quote?)",
                             Location(display_path(path), n, 1), _PO_FIX)
        key, string = m["key"], line[line.index('"') + 1:line.rindex('"')]
        if key in ("msgctxt", "msgid") and after_str:
            finish()
            after_str = False
        if key in ("msgctxt", "msgid"):
            entry.setdefault("line", n)
            entry[key], current = string, key
        elif key is not None:   # msgid_plural, msgstr, msgstr[n]
            after_str, current = after_str or key.startswith("msgstr"), key
        elif current in ("msgctxt", "msgid"):
            entry[current] += string
    finish()


def _parsed(path: Path, lang: str | None) -> Catalog:
    """A catalog (``lang``) or template (None) read from ``path`` with Babel, from the text
    :func:`_catalog_text` checked: Babel is given text, never bytes, so the charset the header
    declares never re-decodes it. A file must be there (:func:`_present`)."""
    from babel.messages.pofile import PoFileError, read_po

    text = _catalog_text(path)
    try:
        return read_po(io.StringIO(text), locale=_babel_locale(lang) if lang else None, abort_invalid=True)
    except PoFileError as exc:   # its text ends " on N", N counted from 0: the location says it
        reason = re.sub(r" on \d+$", "", str(exc))
        raise InputError(f"cannot read catalog: {reason}", Location(display_path(path), exc.lineno + 1, 1),
                         _PO_FIX) from None
    except Exception as exc:  # Babel raises PoFileError / ValueError with a line number in the text
        raise InputError(f"cannot read catalog: {exc}", Location(display_path(path)), _PO_FIX) from None


def _read(path: Path, lang: str) -> Catalog:
    """A language's catalog, each translation checked (:func:`_checked_translation`)."""
    if not _present(path):
        raise InputError(f"no catalog for language '{lang}'", Location(display_path(path)),
                         f"create it with 'cardgen i18n init --lang {lang}'")
    catalog = _parsed(path, lang)
    for message in catalog:
        _checked_translation(message, path)
    return catalog


def _checked_translation(message: Any, path: Path) -> None:
    """A translation a card would print wrongly, refused at its entry: one of spaces only (the
    card would print nothing where English prints a word), and one whose placeholders
    (``{points}``) are not those of its source: a name the source does not have, or a broken
    brace, fails the template that formats it; a placeholder left out drops a value."""
    if not message.id:
        return
    sources = message.id if isinstance(message.id, tuple) else (message.id,)
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    where = Location(display_path(path), message.lineno or None, 1 if message.lineno else None)
    shown = sources[0][:60]
    wanted = set().union(*(_placeholders(s) or set() for s in sources))
    formatted = "python-brace-format" in message.flags or bool(wanted)
    for string in strings:
        if not string:
            continue
        if not string.strip():
            raise InputError(f"the translation of {shown!r} is only spaces: the card would print nothing there",
                             where, "translate it, or leave msgstr \"\" to print the English text")
        bad = BAD_CHARS.search(string)   # what no text of the data may hold either
        if bad:
            kind = "control character" if ord(bad[0]) < 0xD800 else "character"
            raise InputError(f"the translation of {shown!r} holds the {kind} U+{ord(bad[0]):04X}, which a "
                             "card cannot print (SVG, as XML, refuses it)", where,
                             "delete it: write the text with letters, spaces and line breaks only")
        if not formatted:
            continue
        used = _placeholders(string)
        if used is None:
            raise InputError(f"the translation of {shown!r} has a brace that opens or closes nothing",
                             where, "write each placeholder as in the English text ({name}), and a brace "
                             "meant to print as {{ or }}")
        allowed = set().union(*(_placeholders(s, whole=True) or set() for s in sources))
        odd = (_placeholders(string, whole=True) or set()) - allowed
        if odd and not used - wanted:   # a known name, written with an attribute, index, conversion or format
            raise InputError(f"the translation of {shown!r} writes {_listed(odd)}, which the English text does not "
                             f"(it writes {_listed(allowed) or 'none'})", where,
                             "write each placeholder exactly as the English text does: no attribute, index, '!' "
                             "or ':' of your own")
        if used - wanted:
            raise InputError(f"the translation of {shown!r} uses {_listed(used - wanted)}, which the English text "
                             f"does not have (it has {_listed(wanted) or 'none'})", where,
                             "use the placeholders of the English text, spelled as it spells them")
        if wanted - used and not isinstance(message.id, tuple):
            raise InputError(f"the translation of {shown!r} leaves out {_listed(wanted - used)}: the card would "
                             "print without that value", where, "put every placeholder of the English text into "
                             "the translation")


def _placeholders(text: str, whole: bool = False) -> set[str] | None:
    """The names of a format string's placeholders (``{name}``, ``{0}``, ``{n:.1f}``), or None
    when it is not a valid format string; ``whole``: each placeholder as written, attribute,
    index, conversion and format included (``name.__class__``, ``points:>999999999``): a
    translation may only write those of its source, or it could reach into the value or make
    the card's text as long as it likes."""
    import string

    try:
        fields = [(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None]
    except ValueError:
        return None
    if whole:
        return {name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") for name, spec, conv in fields}
    return {name.split(".")[0].split("[")[0] for name, _spec, _conv in fields}


def _listed(names: Iterable[str]) -> str:
    return ", ".join("{" + n + "}" for n in sorted(names))


@lru_cache(maxsize=64)
def _cached(path: Path, mtime_ns: int, lang: str) -> Catalog:
    return _read(path, lang)


def load_catalog(path: Path, lang: str) -> Catalog:
    """Parse a .po once per process (re-read when the file changes on disk)."""
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        return _read(path, lang)
    return _cached(path, mtime, lang)


def _babel_locale(lang: str) -> str:
    return lang.replace("-", "_")


@dataclass
class Translator:
    """Looks strings up in a game's catalog, then in ``common``; English falls back and the
    miss is recorded (a build lists them; ``--strict`` makes them errors)."""

    lang: str
    catalogs: list[Catalog]
    missing: dict[tuple[str, str], None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._exact: dict[tuple[str | None, str], str] = {}
        self._any: dict[str, str] = {}
        for cat in reversed(self.catalogs):   # earlier catalogs win
            for msg in cat:
                if not msg.id or not msg.string or msg.fuzzy or isinstance(msg.id, tuple):
                    continue
                self._exact[(msg.context, msg.id)] = msg.string
                self._any[msg.id] = msg.string

    def __call__(self, msgid: str, context: str | None = None) -> str:
        if not msgid:
            return msgid
        found = self._exact.get((context or None, msgid)) or self._exact.get((None, msgid)) or self._any.get(msgid)
        if found is None:
            self.missing[(msgid, context or "")] = None
            return msgid
        return found


def translator(game: Game, lang: str) -> Translator | None:
    """The translator for a game and language; None for the source language (English)."""
    if lang == SOURCE_LANG:
        return None
    game_po, common_po = po_path(game, lang), po_path(None, lang)
    if not _present(game_po):
        have = ", ".join(available_languages(game))
        if lang == "all":   # a command that builds one language at a time was given 'all'
            raise InputError("this command works in one language at a time, not 'all'", None,
                             f"name one of {have} with --lang")
        if not _known_language(lang):   # 'cardgen i18n init' would refuse it: advising it would not help
            raise InputError(f"game '{game.id}' has no '{lang}' translation: '{lang}' is not a known language code",
                             None, f"use one of {have}, or start a language with 'cardgen i18n init --lang CODE "
                                   f"{command_name(game)}' and a known code such as it or pt-BR")
        raise InputError(f"game '{game.id}' has no '{lang}' translation (available: {have})",
                         Location(display_path(game_po)),
                         f"run 'cardgen i18n init --lang {lang} {command_name(game)}' and translate it")
    catalogs = [load_catalog(game_po, lang)]
    if _present(common_po):
        catalogs.append(load_catalog(common_po, lang))
    return Translator(lang, catalogs)


class MessageLocator:
    """Where a translator fixes a string: the catalog it belongs to (the game's, or ``common``
    for particle names and shared text) at the line of its ``msgid`` when the catalog has it,
    and where the string is used (a card's data line or a template line). The game's and the
    common strings are collected once per locator, however many strings are looked up."""

    def __init__(self, game: Game, lang: str) -> None:
        self.game, self.lang = game, lang

    @cached_property
    def own(self) -> dict[tuple[str | None, str], Entry]:
        """The game's own strings by (context, msgid), each with where it is used."""
        return collect_game(self.game).entries

    @cached_property
    def _common(self) -> dict[tuple[str | None, str], Entry]:
        return collect_common([self.game]).entries

    def locate(self, msgid: str, context: str | None) -> tuple[Location, str]:
        """(catalog location, where the string is used, or '')."""
        key = (context or None, msgid)
        in_game = key in self.own or any(m == msgid for _, m in self.own)
        entries = self.own if in_game else self._common
        entry = entries.get(key) or next((e for (_, m), e in entries.items() if m == msgid), None)
        used = f"{entry.locations[0][0]}:{entry.locations[0][1]}" if entry and entry.locations else ""
        # a shared string is translated in cardgen's common catalog, or — in a language cardgen
        # does not ship — in the game's own catalog, which then carries it (see update)
        own = po_path(self.game, self.lang)
        paths = [own] if in_game else [po_path(None, self.lang), own]
        for path in paths:
            if path.is_file():
                cat = load_catalog(path, self.lang)
                msg = cat.get(msgid, context or None) or next((m for m in cat if m.id == msgid), None)
                if msg is not None and msg.lineno:
                    return Location(display_path(path), msg.lineno, 1), used
        return Location(display_path(next((p for p in paths if p.is_file()), own))), used


def catalog_entry_of(game: Game, lang: str, text: str) -> tuple[Location, str] | None:
    """The catalog entry whose translation is ``text`` (the game's catalog first), as
    (location of its msgid, msgid); None when ``text`` is not a translation. A text too long
    for any box is reported by its start and "…": that start is matched."""
    if lang == SOURCE_LANG:
        return None
    start = text.removesuffix("…")
    for path in (po_path(game, lang), po_path(None, lang)):
        if not path.is_file():
            continue
        for msg in load_catalog(path, lang):
            if msg.id and not isinstance(msg.id, tuple) and isinstance(msg.string, str) and (
                    msg.string == text or (start != text and msg.string.startswith(start))):
                return Location(display_path(path), msg.lineno or 0, 1 if msg.lineno else 0), msg.id
    return None


# --- extraction -----------------------------------------------------------------------------

@dataclass
class Entry:
    msgid: str
    context: str | None
    locations: list[tuple[str, int]] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)


class Collector:
    """Accumulates messages for one domain, merging repeats (one msgid+context, many places)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str | None, str], Entry] = {}

    def add(self, msgid: str, context: str | None, loc: Location | tuple[str, int] | None, comment: str = "") -> None:
        if not isinstance(msgid, str) or not msgid.strip():
            return
        e = self.entries.setdefault((context, msgid), Entry(msgid, context))
        if isinstance(loc, Location):
            loc = (loc.file, loc.line)
        if loc and loc not in e.locations:
            e.locations.append(loc)
        if comment and comment not in e.comments:
            e.comments.append(comment)

    def catalog(self, domain: str) -> Catalog:
        from babel.messages.catalog import Catalog

        cat = Catalog(domain=domain, project="cardgen", version="1", creation_date=_stamp(),
                      header_comment=f"# cardgen translations: {domain}.\n# Edit in Poedit or Weblate; "
                                     f"keep symbols, numbers and units as physics writes them.\n#",
                      fuzzy=False)
        for e in sorted(self.entries.values(), key=lambda e: (e.context or "", e.msgid)):
            cat.add(e.msgid, locations=sorted(e.locations), auto_comments=e.comments, context=e.context)
        return cat


def _stamp() -> datetime:
    """Catalog dates are part of committed files: make them reproducible."""
    return datetime.fromtimestamp(source_date_epoch() or 0, tz=timezone.utc)


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(DATA_DIR.parent.resolve()))
    except ValueError:
        return display_path(path)


def _template_messages(path: Path) -> Iterator[tuple[int, str]]:
    from jinja2.ext import babel_extract

    with path.open("rb") as fh:
        for lineno, _func, message, _comments in babel_extract(fh, ("_",), (), {}):
            if isinstance(message, str):
                yield lineno, message


def collect_common(games: Iterable[Game]) -> Collector:
    """Particles, colours and shared templates; printing instructions from cardgen itself."""
    col = Collector()
    games = list(games)
    physics = games[0].physics if games else None
    if physics is not None:
        for p in physics:
            col.add(p.name, "particle", p.location, f"particle name; symbol {p.symbol.unicode()}")
        for c in physics.colours.values():
            col.add(c.name, "colour", c.location, "colour charge")
            col.add(c.letter, "colour.letter", c.location,
                    f"one-letter cue for '{c.name}' on colour badges (keep the overline of anti-colours)")
    for tpl in sorted(SHARED_TEMPLATES.glob("*.j2")):
        for line, msg in _template_messages(tpl):
            col.add(msg, None, (_rel(tpl), line))
    for src, comment in PRINTED_SOURCES:
        for line, msg in _python_messages(src):
            col.add(msg, None, (_rel(src), line), comment)
    col.add("stable", "lifetime", None, "mean lifetime of a particle that does not decay (infinite)")
    return col


def _python_messages(path: Path) -> Iterator[tuple[int, str]]:
    from babel.messages.extract import extract_python

    with path.open("rb") as fh:
        for lineno, _func, message, _comments in extract_python(fh, ("_",), (), {}):
            if isinstance(message, str):
                yield lineno, message


def collect_game(game: Game, boxes: dict[str, set[str]] | None = None) -> Collector:
    """A game's own strings: names, text fields of cards and tables, template literals."""
    col = Collector()
    boxes = boxes or {}

    def box(msgid: str) -> str:
        return "; ".join(sorted(boxes.get(msgid, ())))

    col.add(game.name, "game", game.location, "the game's title")
    for assumption in game.assumptions:   # footnotes of rule sheets, where a row differs from the rulebook
        col.add(assumption.text, "assumption", assumption.location, f"assumption '{assumption.id}'")
    if game.summary:
        col.add(game.summary, "game.summary", game.location)
    for comp in game.components.values():
        _collect_component(col, comp, box)
    for table in game.tables.values():
        _collect_table(col, table, box)
    if game.templates_dir.is_dir():
        for tpl in sorted(game.templates_dir.glob("*.j2")):
            for line, msg in _template_messages(tpl):
                col.add(msg, None, (_rel(tpl), line), box(msg))
    return col


#: Field types a card's description shows without their field's name: a particle or a text is
#: the card's title or its own words, a colour joins the title ("up quark u (red)").
DESCRIBED_WITHOUT_LABEL = ("particle", "colour", "text")


def field_label(name: str, spec: Any) -> str:
    """A field's name as a reader sees it: its ``label``, or its name in words (see
    :func:`cardgen.sheets.column_header`)."""
    from .sheets import column_header

    return column_header(name, spec)


def _collect_component(col: Collector, comp: Component, box: Callable[[str], str]) -> None:
    """A component's name, printing note and its cards' translatable text fields."""
    col.add(comp.name, "component", comp.location, "component name, used in file footers and instructions")
    if comp.print_note:
        col.add(comp.print_note, "component.print_note", comp.where("print_note"), "printing instructions")
    for name, spec in comp.fields.items():   # the label a Tabletop Simulator description gives a value
        if spec.printed and spec.type not in DESCRIBED_WITHOUT_LABEL:
            col.add(field_label(name, spec), f"{comp.id}.field", spec.location or comp.location,
                    f"label of field '{name}' of '{comp.id}' in a Tabletop Simulator description ('points 3')")
    for card in comp.cards:
        for name, spec in comp.fields.items():
            value = card.fields.get(name)
            if spec.type == "text" and spec.translatable and isinstance(value, str):
                col.add(value, f"{comp.id}.{name}", card.where(name),
                        f"card '{card.id}', field '{name}'" + (f"; {box(value)}" if box(value) else ""))


def _collect_table(col: Collector, table: Table, box: Callable[[str], str]) -> None:
    """A table's title, its rule-sheet column headers and the text of its rows."""
    from .sheets import column_header
    from .tables import DiceEntry, LineType, Record, Vertex, every_roll

    col.add(table.title, "table.title", table.location, f"title of the '{table.id}' table, printed on reference cards")
    for name, spec in table.options.get("fields", {}).items():   # records: the rule sheet's column headers
        if not spec.printed:
            continue
        col.add(column_header(name, spec), f"{table.id}.field", table.location,
                f"column header for field '{name}' of the '{table.id}' table on the rule sheet")
    for row in table.rows:
        if isinstance(row, Record):
            _collect_record(col, table, row, box)
        elif isinstance(row, (LineType, Vertex)) and row.name:
            col.add(row.name, f"{table.id}.name", row.location, f"{table.kind} name")
        elif isinstance(row, DiceEntry):
            for roll in every_roll(row.rolls):
                if roll.note:
                    col.add(roll.note, f"{table.id}.note", roll.location, "note under a dice roll on the rule sheet")


def _collect_record(col: Collector, table: Table, row: Any, box: Callable[[str], str]) -> None:
    """A record row's translatable text fields."""
    specs = table.options.get("fields", {})
    for name, value in row.values.items():
        spec = specs.get(name)
        if spec is not None and spec.type == "text" and spec.translatable and isinstance(value, str):
            col.add(value, f"{table.id}.{name}", row.location,
                    f"table '{table.id}', row '{row.id}'" + (f"; {box(value)}" if box(value) else ""))


def measure_boxes(game: Game) -> dict[str, set[str]]:
    """Render every face in English and note the box each string is drawn in, so translators
    see how much room they have ('box 55 × 8 mm at 4 mm, may shrink to 2.6 mm')."""
    from .render import Renderer

    boxes: dict[str, set[str]] = defaultdict(set)

    def note(s: str, width: float | None, height: float | None, size: float, min_size: float | None) -> None:
        room = f"box {width:.0f} mm wide" if width else "one line"
        if height:
            room += f" × {height:.0f} mm"
        room += f", text {size:.1f} mm" + (f" (may shrink to {min_size:.1f} mm)" if min_size else "")
        boxes[s].add(room)

    r = Renderer(game, SOURCE_LANG, on_text=note)
    for comp in game.components.values():
        for _face in r.faces(comp):
            pass
    return boxes


def _write_catalog(path: Path, catalog: Catalog) -> None:
    from babel.messages.pofile import write_po

    buf = io.BytesIO()
    write_po(buf, catalog, width=0, sort_output=True, include_previous=True)
    atomic_write(path, buf.getvalue())


def is_shipped(game: Game) -> bool:
    return locale_dir(game) == SHIPPED_LOCALE


def _domains(games: list[Game]) -> list[Game | None]:
    """The catalogs a command works on: each game's own, plus ``common`` when a shipped game
    is involved (a designer's game reuses the shipped common catalogs and never writes them)."""
    return ([None] if any(is_shipped(g) for g in games) else []) + list(games)


def extract(games: list[Game]) -> list[Path]:
    """Write ``common.pot`` (for shipped games) and one ``<game>.pot`` per game. Every template
    is collected before any is written: a game that fails to collect leaves all as they were."""
    planned = []
    if any(is_shipped(g) for g in games):
        planned.append((pot_path(None), collect_common(games).catalog(COMMON)))
    for game in games:
        col = collect_game(game, measure_boxes(game))
        if not is_shipped(game):
            # a designer's game carries the shared strings it prints too (particle names, the
            # rule sheet's words): a language cardgen's own catalogs lack is translated in full
            # in the game's catalog, and one they have starts from their translations (_shared)
            for key, entry in collect_common([game]).entries.items():
                col.entries.setdefault(key, entry)
        planned.append((pot_path(game), col.catalog(game.id)))
    for path, _ in planned:
        _present(path)   # a folder in a template's place: said so, not blamed on an --out extract has not
    for path, catalog in planned:
        _write_catalog(path, catalog)
    return [path for path, _ in planned]


def _extract_command(game: Game | None) -> str:
    """The command that writes a domain's template: with its game, since 'cardgen i18n extract'
    alone writes the shipped games' templates (and ``common``, which they share)."""
    return "cardgen i18n extract" + (f" {command_name(game)}" if game is not None else "")


def _template(game: Game | None) -> Catalog:
    """A domain's template, refused when it has no messages: an empty or cut-short .pot would
    make an update turn every translation obsolete and a status count nothing missing."""
    path = pot_path(game)
    if not _present(path):
        raise InputError("no translation template", Location(display_path(path)),
                         f"run '{_extract_command(game)}' first")
    tpl = _parsed(path, None)
    if not any(msg.id for msg in tpl):
        raise InputError("the translation template has no messages (it is empty or was cut short)",
                         Location(display_path(path)), f"run '{_extract_command(game)}' to write it anew")
    return tpl


def init(games: list[Game], lang: str) -> list[Path]:
    """Start catalogs for a new language from the templates (existing ones are left alone).
    Every catalog is made before any is written: a template refused leaves all as they were."""
    from babel.messages.catalog import Catalog

    if lang == SOURCE_LANG:
        raise InputError("English is the source language and needs no catalog", None, "pick another --lang")
    _validate_lang(lang)
    planned = []
    for game in _domains(games):
        path = po_path(game, lang)
        if _present(path):
            continue
        tpl = _template(game)
        cat = Catalog(locale=_babel_locale(lang), domain=tpl.domain, project="cardgen", version="1",
                      creation_date=_stamp(), revision_date=_stamp(), fuzzy=False,
                      header_comment=tpl.header_comment)
        for msg in tpl:
            if msg.id:
                cat.add(msg.id, "", locations=msg.locations, auto_comments=msg.auto_comments, context=msg.context)
        _shared(game, lang, cat)
        planned.append((path, cat))
    for path, cat in planned:
        _write_catalog(path, cat)
    return [path for path, _ in planned]


def _known_language(lang: str) -> bool:
    """Whether Babel knows the language (its plural rules and names come from there)."""
    from babel import Locale, UnknownLocaleError

    try:
        Locale.parse(_babel_locale(lang))
    except (UnknownLocaleError, ValueError):
        return False
    return True


def _validate_lang(lang: str) -> None:
    if not _known_language(lang):
        raise InputError(f"'{lang}' is not a known language code", None, "use a code such as de, fr, es, ar, zh")


def update(games: list[Game], langs: list[str], allow_obsolete: bool = False) -> list[Path]:
    """Merge new template strings into existing catalogs: translations are kept, strings whose
    source changed become fuzzy, strings no longer used become obsolete, and obsolete ones whose
    string is back are translated again (:func:`_merged`). Every catalog is merged before any is
    written: a template or catalog refused leaves all as they were."""
    templates: dict[str, Catalog] = {}
    planned = []
    for lang in langs:
        for game in _domains(games):
            path = po_path(game, lang)
            if not _present(path):
                continue
            cat = _read(path, lang)   # a damaged catalog is reported before a missing template
            domain = game.id if game is not None else COMMON
            if domain not in templates:
                templates[domain] = _template(game)
            planned.append((path, _merged(game, lang, cat, templates[domain], allow_obsolete)))
    for path, cat in planned:
        _write_catalog(path, cat)
    return [path for path, _ in planned]


def _key(msg: Any) -> tuple[str, str | None]:
    """A message's key: its msgid (a plural's singular) and context."""
    return (msg.id[0] if isinstance(msg.id, (list, tuple)) else msg.id), msg.context


def _has_translation(msg: Any) -> bool:
    return any(msg.string) if isinstance(msg.string, (list, tuple)) else bool(msg.string)


def _merged(game: Game | None, lang: str, cat: Catalog, tpl: Catalog, allow_obsolete: bool) -> Catalog:
    """``game``'s catalog for ``lang``, ``cat`` (a private copy, which this changes), brought up to ``tpl``. Babel's update never looks at the
    obsolete entries (``#~``), so a string that leaves the template and comes back would lose
    its translation for good: those whose string is in ``tpl`` are put back first, checked as
    any translation is. Refused when more than half of the translations would become obsolete
    and ``allow_obsolete`` is not given: a stale, damaged or wrong template looks like that,
    and a catalog updated from it prints English where it printed the translations."""
    path = po_path(game, lang)
    wanted = {_key(msg) for msg in tpl if msg.id}
    for old_key, msg in list(cat.obsolete.items()):
        if _key(msg) in wanted and cat.get(msg.id, msg.context) is None:
            _checked_translation(msg, path)
            del cat.obsolete[old_key]
            cat[msg.id] = msg
    translated = {_key(msg) for msg in cat if msg.id and _has_translation(msg)}
    cat.update(tpl, update_creation_date=False)
    lost = translated & {_key(msg) for msg in cat.obsolete.values()}
    if 2 * len(lost) > len(translated) and not allow_obsolete:
        where = f" {command_name(game)}" if game is not None else ""
        raise InputError(f"the template would make {len(lost)} of the {len(translated)} translations obsolete "
                         f"(it lacks their strings)", Location(display_path(pot_path(game))),
                         f"run '{_extract_command(game)}' first; if the game's text really changed that much, run "
                         f"'cardgen i18n update{where} --lang {lang} --allow-obsolete' (obsolete translations stay in "
                         "the catalog as #~ entries and come back when their string does)")
    _shared(game, lang, cat)
    cat.revision_date = _stamp()
    return cat


def _shared(game: Game | None, lang: str, cat: Catalog) -> None:
    """In a designer's game's catalog, the shared strings still untranslated, or only guessed
    (fuzzy), take cardgen's own translation where its catalog for ``lang`` has one (see
    :func:`extract`)."""
    if game is None or is_shipped(game) or not _present(po_path(None, lang)):
        return
    common = load_catalog(po_path(None, lang), lang)
    for msg in cat:
        if msg.id and (not msg.string or "fuzzy" in msg.flags) and not isinstance(msg.id, tuple):
            known = common.get(msg.id, msg.context)
            if known is not None and known.string and "fuzzy" not in known.flags:
                msg.string = known.string
                msg.flags.discard("fuzzy")
                msg.previous_id = []


@dataclass(frozen=True)
class Status:
    lang: str
    domain: str
    translated: int
    fuzzy: int
    missing: int

    @property
    def complete(self) -> bool:
        return self.fuzzy == 0 and self.missing == 0


def status(games: list[Game], langs: list[str]) -> list[Status]:
    out = []
    for lang in langs:
        for game in _domains(games):
            tpl = _template(game)
            path = po_path(game, lang)
            cat = load_catalog(path, lang) if _present(path) else None
            translated = fuzzy = missing = 0
            for msg in tpl:
                if not msg.id:
                    continue
                have = cat.get(msg.id, msg.context) if cat else None
                if have is None or not have.string:
                    missing += 1
                elif have.fuzzy:
                    fuzzy += 1
                else:
                    translated += 1
            out.append(Status(lang, tpl.domain or (game.id if game else COMMON), translated, fuzzy, missing))
    return out
