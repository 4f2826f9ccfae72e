"""What cardgen remembers about the user's printer between runs: the measured back offset.

A duplex printer shifts backs by a fixed amount; `cardgen calibrate` prints a page that
measures it, and `cardgen calibrate --read X,Y` stores what the user read there so that every
later `cardgen build` applies it without being told. The file lives in the user's config folder
(platformdirs: ``~/.config/cardgen/printer.json`` on Linux, honouring ``XDG_CONFIG_HOME``), never
in a project or output folder, because it describes a machine, not a game.

It is plain JSON, one offset per duplex edge (flipping on the short edge moves backs
differently), read with bounds and a clear error when damaged.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from .errors import InputError, Location
from .output import atomic_write

#: The calibration page's scales run from −6 to +6 mm.
SCALE_MM = 6.0
#: The largest back offset a build accepts.
MAX_OFFSET_MM = 20.0
_MAX_FILE_BYTES = 64 * 1024
#: cardgen's own file nests three deep ({"back_offset_mm": {"long": [x, y]}}); a few more levels
#: are allowed so that a hand-edited file may keep extra data of its own.
_MAX_DEPTH = 16
#: The longest number text an offset is written with ('-19.999999999999996').
_MAX_NUMBER_CHARS = 32
_EDGES = ("long", "short")


def config_path() -> Path:
    """The per-user file the printer settings are kept in."""
    import platformdirs

    return platformdirs.user_config_path("cardgen") / "printer.json"


def _read(path: Path) -> dict:
    """The saved settings, checked: the file is cardgen's, but anything may have written it
    (an editor, a sync tool, a damaged disk), and a build must not shift every back by what
    a damaged value happens to read as (``true`` is not 1 mm)."""
    if not path.is_file():
        return {}
    where = Location(str(path))
    fix = f"delete {path}, then measure again with 'cardgen calibrate' and 'cardgen calibrate --read X,Y'"
    if path.stat().st_size > _MAX_FILE_BYTES:
        raise InputError("the saved printer settings file is too large to be cardgen's", where, fix)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("the saved printer settings are not UTF-8 text", where, fix) from None
    depth = _nesting(text)
    if depth > _MAX_DEPTH:   # json's parser recurses once per level: thousands of '[' exhaust the stack
        raise InputError(f"the saved printer settings nest {depth} levels deep, not the layout cardgen writes",
                         where, fix)
    try:
        data = json.loads(text, parse_int=_number, parse_float=_number, parse_constant=_not_a_number)
    except json.JSONDecodeError as exc:
        raise InputError(f"the saved printer settings are not valid JSON ({exc.msg})",
                         Location(str(path), exc.lineno, exc.colno), fix) from None
    except ValueError as exc:   # from _number or _not_a_number
        raise InputError(f"the saved printer settings hold {exc}", where, fix) from None
    if not isinstance(data, dict) or not isinstance(data.get("back_offset_mm", {}), dict):
        raise InputError("the saved printer settings do not have the layout cardgen writes", where, fix)
    for edge, value in data.get("back_offset_mm", {}).items():
        if (edge not in _EDGES or not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, float) and abs(v) <= MAX_OFFSET_MM for v in value)):
            raise InputError(f"the saved back offset for {json.dumps(edge[:20])} is not two numbers within "
                             f"±{MAX_OFFSET_MM:g} mm", where, fix)
    return data


def _nesting(text: str) -> int:
    """How deep the JSON ``text``'s arrays and objects nest (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif in_string:
            escaped, in_string = char == "\\", char != '"'
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _number(text: str) -> float:
    """A JSON number as a float, refused when its text is longer than any offset's (Python
    refuses to convert an integer of over 4,300 digits, with an error naming no file)."""
    if len(text) > _MAX_NUMBER_CHARS:
        raise ValueError(f"a number of {len(text):,} characters")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"a number too large to be an offset ({text[:20]})")
    return value


def _not_a_number(text: str) -> float:
    """JSON's NaN and Infinity, which Python's parser accepts and an offset must not be."""
    raise ValueError(f"'{text}', not a number")


def saved_back_offset(duplex: str) -> tuple[float, float] | None:
    """The back offset measured for this duplex edge, or None when none was saved."""
    value = _read(config_path()).get("back_offset_mm", {}).get(duplex)
    return None if value is None else (float(value[0]), float(value[1]))


def offset_from_readings(readings: list[tuple[float, float]]) -> tuple[float, float]:
    """The back offset to use from what was read at the calibration page's targets: their
    average. The scales are labelled with the correction itself, sign included, so a reading
    is typed as seen. A reading beyond the scales means the page was misread or printed with
    the other duplex edge."""
    if not readings:
        raise InputError("no reading given", None, "type what the scales show, e.g. --read 1.5,-0.5")
    for x, y in readings:
        if not (math.isfinite(x) and math.isfinite(y)) or abs(x) > SCALE_MM or abs(y) > SCALE_MM:
            raise InputError(f"reading {x:g},{y:g} is beyond the page's scales (±{SCALE_MM:g} mm)", None,
                             "read the number where the back's line crosses the scale; if it misses the "
                             "scales, check that the printer flipped on the edge given with --duplex")
    n = len(readings)
    return (round(sum(x for x, _ in readings) / n, 2), round(sum(y for _, y in readings) / n, 2))


def save_back_offset(duplex: str, offset: tuple[float, float]) -> Path:
    """Remember the back offset for one duplex edge (the other edge's value is kept)."""
    if duplex not in _EDGES:
        raise InputError(f"a back offset belongs to a duplex edge, not '{duplex}'", None,
                         "use --duplex long or --duplex short")
    path = config_path()
    data = _read(path)
    data.setdefault("back_offset_mm", {})[duplex] = [offset[0], offset[1]]
    try:
        atomic_write(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    except OSError as exc:
        raise InputError(f"cannot save the printer settings: {exc.strerror or exc}", Location(str(path)),
                         "check that your config folder is writable, or pass --back-offset to every build") from None
    return path
