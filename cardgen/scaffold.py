"""``cardgen new``: start a game folder that checks and builds immediately.

A new game is data and templates only. Starting blank gives the smallest complete game (one
component, two sample cards, a front and a back template, two declared checks); ``--from``
copies a shipped game's data, templates and translation catalogs under the new id and name, to
adapt rather than start over. Either way every declared check gets a comment saying what it
enforces and how to change it (:mod:`cardgen.rules.guide`), because the first card a designer
adds is otherwise refused by a check they did not write.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import textwrap
from pathlib import Path

from .errors import InputError, Location, display_path, file_system_error
from .i18n import SHIPPED_LOCALE
from .loader import DATA_DIR, SHIPPED_GAMES, SHIPPED_TEMPLATES
from .output import folder_mode
from .rules.guide import describe
from .schema import ident
from .yamlsrc import shown

#: A game id ``new`` accepts: the loader's id (:func:`cardgen.schema.ident`) narrowed to what
#: makes a portable folder name and translation domain.
_GAME_ID = re.compile(r"[a-z0-9][a-z0-9-]*")
#: Where messages about the command line's GAME-ID say the mistake is, as they name a file.
_ARGUMENT = Location("GAME-ID")
_CHECK_LINE = re.compile(r"^(?P<indent>\s*)- \{?rule: (?P<rule>[A-Za-z0-9_-]+)", re.M)

GAME_YAML = """\
# {name}: made with `cardgen new`. Check it with `cardgen check {folder}` and
# build it with `cardgen build {folder}`. The format is described in docs/data-format.md.
id: {id}
name: {name}
summary: A new deck made with cardgen.
rulebook: Write where your rules come from.
assumptions:
  - id: card-size
    text: Standard 63 × 88 mm cards.
components:
  - components/cards.yaml
checks:
  - {{rule: deck-size, component: cards, total: 4}}
  - {{rule: antiparticles-present, component: cards}}
"""

CARDS_YAML = """\
# The deck: one entry per distinct card, with how many copies to print.
id: cards
name: Cards
kind: card
size: {width: 63, height: 88}
shape: {type: rounded-rect, radius: 3}
bleed: 3
safe: 4
front: front.svg.j2
back: back.svg.j2
print_note: One deck per group.

fields:
  particle: {type: particle, required: true}
  title: {type: text}

cards:
  - {id: electron, particle: e-, title: The electron, count: 2}
  - {id: positron, particle: e+, title: Its antiparticle, count: 2}
"""

FRONT = """\
{#- Card front: the particle's symbol, its name and the card's title. Coordinates are
    millimetres from the trim's top-left corner; text is shaped and drawn as outlines. -#}
{% extends "base.svg.j2" %}
{% set bg = "#f4f1ea" %}
{% block artwork %}
{% set w = component.width %}{% set h = component.height %}
<rect x="4" y="4" width="{{ w - 8 }}" height="{{ h - 8 }}" rx="3" fill="#ffffff" stroke="#1f2a44" stroke-width="0.6"/>
{{ symbol(card.particle.symbol, w / 2, 40, size=24, fill="#1f2a44") }}
{{ text(_(card.particle.name)|capfirst, 6, 50, size=5, width=w - 12, height=7, align="middle", weight="bold", min_size=3, field="name") }}
{% if card.title is not none %}
{{ text(card.title, 6, 60, size=3.6, width=w - 12, height=10, align="middle", min_size=2.4, field="title") }}
{% endif %}
{{ text(_("Charge") ~ " " ~ (card.particle.charge|charge), 6, 74, size=3.4, width=w - 12, height=5, align="middle", min_size=2.4, field="charge") }}
{% endblock %}
"""

BACK = """\
{#- Card back: the same for every card, so it is stored once in the PDF. -#}
{% extends "base.svg.j2" %}
{% set bg = "#1f2a44" %}
{% block artwork %}
{{ text(_(game.name), 6, component.height / 2 - 6, size=6, width=component.width - 12, height=12, align="middle", valign="middle", weight="bold", min_size=3.5, fill="#ffffff", field="title") }}
{% endblock %}
"""


def new_game(game_id: str, parent: Path, template: str | None = None) -> Path:
    """Create ``parent/game_id`` (blank, or a copy of shipped game ``template``); returns it."""
    try:
        folder = _create(game_id, parent, template)
    except OSError as exc:
        # the file-system error names the path the system refused; its fix speaks of the
        # option that chooses where files go, which for `new` is --dir, not a build's --out
        err = file_system_error(exc, "create")
        err.fix = (err.fix or "").replace("--out", "--dir")
        raise err from None
    return folder


def title_of(game_id: str) -> str:
    """The name a new game starts with: its id in words ('lepton-snap' → 'Lepton Snap')."""
    return game_id.replace("-", " ").title()


def explain_checks(text: str) -> str:
    """``game.yaml`` text with a comment above each declared check: what it enforces, how to change it."""
    def comment(m: re.Match[str]) -> str:
        enforces, change = describe(m["rule"])
        lines = textwrap.wrap(f"{m['rule']}: checks that {enforces}; {change}.", 96 - len(m["indent"]))
        return "".join(f"{m['indent']}# {line}\n" for line in lines) + m[0]
    return _CHECK_LINE.sub(comment, text)


def _create(game_id: str, parent: Path, template: str | None) -> Path:
    _check_id(game_id)
    _check_parent(parent)
    if (SHIPPED_GAMES / game_id / "game.yaml").is_file():
        raise InputError(f"'{game_id}' is the id of a game cardgen ships", _ARGUMENT,
                         f"choose another id, e.g. my-{game_id} (with --games-dir, two games of one id clash)")
    folder = parent / game_id
    if folder.exists():
        raise InputError("folder already exists", Location(display_path(folder)),
                         "choose another id or remove the folder")
    source = SHIPPED_GAMES / template if template is not None else None
    if source is not None and not (source / "game.yaml").is_file():
        shipped = sorted(p.name for p in SHIPPED_GAMES.iterdir() if (p / "game.yaml").is_file())
        raise InputError(f"no shipped game '{template}'", None, f"use one of: {', '.join(shipped)}")
    # written in a folder of its own beside it and renamed into place whole: a game that cannot
    # be written in full (a full disk) leaves nothing that would block the next try
    parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{game_id}.", suffix=".new", dir=parent))
    try:
        os.chmod(staging, folder_mode())
        _fill(staging, game_id, folder, template)
        game_yaml = staging / "game.yaml"
        game_yaml.write_text(explain_checks(game_yaml.read_text(encoding="utf-8")), encoding="utf-8")
        os.rename(staging, folder)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return folder


def _fill(staging: Path, game_id: str, folder: Path, template: str | None) -> None:
    """Write the new game's files into ``staging`` (``folder``: where it will stand)."""
    if template is None:
        _write(staging / "game.yaml", GAME_YAML.format(id=game_id, name=title_of(game_id), folder=display_path(folder)))
        _write(staging / "components" / "cards.yaml", CARDS_YAML)
        _write(staging / "templates" / "front.svg.j2", FRONT)
        _write(staging / "templates" / "back.svg.j2", BACK)
        return
    shutil.copytree(SHIPPED_GAMES / template, staging, dirs_exist_ok=True)
    shutil.copytree(SHIPPED_TEMPLATES / template, staging / "templates")
    game_yaml = staging / "game.yaml"
    text = re.sub(r"(?m)^id: .*$", f"id: {game_id}", game_yaml.read_text(encoding="utf-8"), count=1)
    text = re.sub(r"(?m)^name: .*$", f"name: {title_of(game_id)}", text, count=1)
    game_yaml.write_text(text, encoding="utf-8")
    _copy_catalogs(template, game_id, staging)


def _check_id(game_id: str) -> None:
    """Refuse, before anything is written, an id the loader would refuse in the new game.yaml
    (the same check: too long, or not an id) or that makes a poor folder and domain name
    (upper case, dots, underscores); the game would otherwise be created only for its first
    ``cardgen check`` to fail, and a file-system error about an over-long name would come first."""
    if not _GAME_ID.fullmatch(game_id):
        raise InputError(f"'{shown(game_id, 40)}' is not a good game id", _ARGUMENT,
                         "use lower-case letters, digits and hyphens, e.g. lepton-snap")
    ident(game_id, _ARGUMENT)


def _check_parent(parent: Path) -> None:
    """Refuse a games folder inside cardgen's own data or templates: a new game there is mixed
    with the shipped ones (the loader then finds two sets of games) and is lost or overwritten
    when cardgen is updated; it belongs in a folder of the user's."""
    try:
        target = parent.resolve()
    except RuntimeError:   # a loop of symbolic links (Python < 3.13)
        raise InputError("the folder is reached through a loop of symbolic links", Location(str(parent)),
                         "give --dir a folder that exists or can be created") from None
    for shipped in (DATA_DIR, SHIPPED_TEMPLATES):
        if target == shipped or shipped in target.parents:
            raise InputError("this folder is part of cardgen's own shipped data, not a place for a game of yours",
                             Location(display_path(parent)),
                             "create the game in a folder of your own, e.g. --dir games (the default)")


def _copy_catalogs(template: str, game_id: str, folder: Path) -> None:
    """The shipped game's translations, renamed to the new game's domain, so a copy keeps its
    languages; the title's entry is renamed too and, as the shipped games' titles are, kept
    as it is written in every language. Copied as they were, the catalogs still named the old
    title: ``i18n status --strict`` called them complete while ``check --strict`` found the new
    title untranslated."""
    old = re.search(r"(?m)^name: *(.*?) *$", (SHIPPED_GAMES / template / "game.yaml").read_text(encoding="utf-8"))
    for po in sorted(SHIPPED_LOCALE.glob(f"*/LC_MESSAGES/{template}.po")):
        lang = po.parent.parent.name
        target = folder / "locale" / lang / "LC_MESSAGES" / f"{game_id}.po"
        target.parent.mkdir(parents=True, exist_ok=True)
        _write(target, _retitled(po.read_text(encoding="utf-8"), old and old[1], title_of(game_id), True))
    pot = SHIPPED_LOCALE / f"{template}.pot"
    if pot.is_file():
        _write(folder / "locale" / f"{game_id}.pot",
               _retitled(pot.read_text(encoding="utf-8"), old and old[1], title_of(game_id), False))


def _retitled(catalog: str, old: str | None, new: str, translated: bool) -> str:
    """A catalog's text with the game title's entry (context ``game``) naming ``new``."""
    if not old:
        return catalog
    quoted = old.strip("'\"").replace("\\", "\\\\").replace('"', '\\"')
    entry = re.compile(r'(?m)^(msgctxt "game"\nmsgid )"' + re.escape(quoted) + r'"(\nmsgstr )"[^\n]*"$')
    return entry.sub(lambda m: f'{m[1]}"{new}"{m[2]}"{new if translated else ""}"', catalog)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
