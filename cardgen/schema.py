"""Small declarative readers for YAML mappings: typed fields, defaults and unknown-key detection.

Every reader reports problems as :class:`InputError` at the exact position of the offending key
or value, with a did-you-mean for misspelt keys — the point is that a designer who types
``colur:`` hears about it immediately instead of getting a silently blank card.
"""

from __future__ import annotations

import difflib
import re
from fractions import Fraction
from typing import Any, Callable, Iterable, TypeVar

from .errors import InputError, Location, did_you_mean
from .paper import MM_PER_UNIT
from .yamlsrc import LONGEST_NUMBER, YMap, YSeq, shown

__all__ = ["shown"]  # re-exported: messages quote user values through it

T = TypeVar("T")
#: A converter turns a YAML value (with its location and raw text) into a Python value or raises.
Converter = Callable[[Any, Location, "str | None"], Any]

_MISSING = object()
ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_+\-~.]*")
MAX_ID_LENGTH = 100
#: Text that is a whole number too long to convert (see :data:`cardgen.yamlsrc.LONGEST_NUMBER`).
_DIGITS = re.compile(rf"\s*[-+]?[0-9]{{{LONGEST_NUMBER},}}\s*")


def one_of(options: Iterable[Any], limit: int = 20) -> str:
    """'a, b, c' for a fix hint, shortened when the list is long."""
    items = [shown(o, 40) for o in options]
    return ", ".join(items[:limit]) + (f", … ({len(items) - limit} more)" if len(items) > limit else "")


def _num(value: int | float) -> str:
    """A number for a message: big ones in short scientific form."""
    if isinstance(value, int) and abs(value) >= 10**15:
        return f"{float(value):.3g}" if abs(value) < 10**300 else "a number with more than 300 digits"
    return f"{value:g}" if isinstance(value, float) else str(value)


def type_name(value: Any) -> str:
    if isinstance(value, YMap) or isinstance(value, dict):
        return "a mapping"
    if isinstance(value, YSeq) or isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"a whole number ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    return f"text ({str(value)[:40]!r})"


class Fields:
    """Reads one YAML mapping; :meth:`finish` rejects the keys nobody read."""

    def __init__(self, mapping: Any, what: str, loc: Location) -> None:
        if not isinstance(mapping, YMap):
            raise InputError(f"{what} must be a mapping of 'key: value' lines, found {type_name(mapping)}",
                             getattr(mapping, "loc", loc), f"write {what} as indented 'key: value' lines")
        self.map = mapping
        self.what = what
        self.seen: set[str] = set()

    @property
    def loc(self) -> Location:
        return self.map.loc

    def has(self, key: str) -> bool:
        return key in self.map

    def get(self, key: str, conv: Converter, default: Any = _MISSING) -> Any:
        self.seen.add(key)
        if key not in self.map:
            if default is _MISSING:
                self._misspelt(key)
                raise InputError(f"{self.what} is missing the required key '{key}'", self.map.loc,
                                 f"add '{key}: ...' to {self.what}")
            return default
        return conv(self.map[key], self.map.where(key), self.map.raw.get(key))

    def _misspelt(self, key: str) -> None:
        """A required key missing beside a key spelt like it (``widht:`` for ``width:``) is
        reported at that key's line, naming both: the fix is most likely a rename. (The key
        may still be one the mapping takes, read later: the message only asks.)"""
        unread = [k for k in self.map if k not in self.seen and isinstance(k, str)]
        close = difflib.get_close_matches(key, unread, n=1, cutoff=0.75)
        if close:
            raise InputError(f"{self.what} is missing the required key '{key}' — is '{shown(close[0])}' meant "
                             f"to be it?", self.map.key_where(close[0]),
                             f"rename '{shown(close[0])}' to '{key}', or add '{key}: ...' to {self.what}")

    def finish(self, also_allowed: Iterable[str] = ()) -> None:
        allowed = self.seen | set(also_allowed)
        for key in self.map:
            if key not in allowed:
                raise InputError(f"unknown key '{shown(key)}' in {self.what}{did_you_mean(key, allowed)}",
                                 self.map.key_where(key),
                                 f"remove it or use one of: {one_of(sorted(allowed), 40)}")


# --- converters -----------------------------------------------------------------------------

def text(value: Any, loc: Location, raw: str | None = None) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, (YMap, YSeq)):
        raise InputError(f"expected text, found {type_name(value)}", loc,
                         "put the text in quotes" if isinstance(value, bool) else "write a text value")
    return str(value)


#: Longest name or title (a game's, a component's, a table's): it is set in one line on a box,
#: a sheet header or a menu. The longest shipped one has under 100 characters.
MAX_TITLE_CHARS = 200


def title(value: Any, loc: Location, raw: str | None = None) -> str:
    """A name or title: text of one line, at most :data:`MAX_TITLE_CHARS` characters (a
    longer one is refused here, at its line, rather than overflowing cardgen's own sheet
    templates where it is shown)."""
    s = text(value, loc, raw)
    if len(s) > MAX_TITLE_CHARS:
        raise InputError(f"the name is {len(s):,} characters long, more than the {MAX_TITLE_CHARS} allowed", loc,
                         "shorten it; put longer text in 'description' or 'summary'")
    if "\n" in s or "\t" in s:
        raise InputError("the name holds a line break or a tab", loc, "write the name on one line")
    return s


def reason(value: Any, loc: Location, raw: str | None = None) -> str:
    """Why the data does something on purpose (a loop, an energy source, a deviation, a looser
    limit): the checker's report shows it beside the choice, so it must say something; blank
    text is refused like a missing reason, not listed as an empty one."""
    said = text(value, loc, raw).strip()
    if not said:
        raise InputError("the reason is blank", loc, "say in words why the data does this (the check report shows it)")
    return said


def ident(value: Any, loc: Location, raw: str | None = None) -> str:
    s = text(value, loc, raw)
    if not ID_PATTERN.fullmatch(s):
        raise InputError(f"'{shown(s)}' is not a valid id", loc,
                         "use letters, digits and - _ + ~ . only, starting with a letter or digit")
    if len(s) > MAX_ID_LENGTH:
        raise InputError(f"id '{shown(s, 40)}' is longer than {MAX_ID_LENGTH} characters", loc, "use a shorter id")
    return s


def integer(minimum: int | None = None, maximum: int | None = None) -> Converter:
    def conv(value: Any, loc: Location, raw: str | None = None) -> int:
        if isinstance(value, str) and _DIGITS.fullmatch(value):
            # a whole number too long to convert, kept as its digits (a spreadsheet cell, or a
            # YAML value: see yamlsrc.LONGEST_NUMBER): too large for the range, not text
            digits = len(value.strip().lstrip("+-"))
            allowed = (f"{minimum} to {maximum}" if minimum is not None and maximum is not None
                       else f"at most {maximum}" if maximum is not None else f"at least {minimum}"
                       if minimum is not None else f"fewer than {LONGEST_NUMBER:,} digits")
            raise InputError(f"a whole number of {digits:,} digits is too large (allowed: {allowed})", loc,
                             "use a whole number of the allowed size")
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"expected a whole number, found {type_name(value)}", loc, "write a whole number like 3")
        # the number as written (a spreadsheet cell's 12345678901234567890, not 1.23e+19)
        said = raw.strip() if raw and raw.strip() and len(raw.strip()) <= 40 else _num(value)
        if minimum is not None and value < minimum:
            raise InputError(f"{said} is too small (minimum {minimum})", loc, f"use a number ≥ {minimum}")
        if maximum is not None and value > maximum:
            raise InputError(f"{said} is too large (maximum {maximum})", loc, f"use a number ≤ {maximum}")
        return value
    return conv


def number(minimum: float | None = None, maximum: float | None = None, positive: bool = False) -> Converter:
    """A real number. YAML 1.1 reads '1e-25' as text, so numeric-looking text is accepted too."""
    def conv(value: Any, loc: Location, raw: str | None = None) -> float:
        if isinstance(value, bool) or value is None or isinstance(value, (YMap, YSeq)):
            raise InputError(f"expected a number, found {type_name(value)}", loc, "write a number like 63.5")
        try:
            out = float(value)
        except OverflowError:
            raise InputError(f"{_num(value)} is too large to be a number here", loc,
                             "write a number of reasonable size like 63.5") from None
        except (TypeError, ValueError):
            raise InputError(f"expected a number, found {type_name(value)}", loc, _number_fix(value)) from None
        if out != out or out in (float("inf"), float("-inf")):
            raise InputError("number must be finite", loc, "write a finite number")
        if positive and out <= 0:
            raise InputError(f"{out:g} must be greater than 0", loc, "use a positive number")
        if minimum is not None and out < minimum:
            raise InputError(f"{out:g} is too small (minimum {minimum:g})", loc, f"use a number ≥ {minimum:g}")
        if maximum is not None and out > maximum:
            raise InputError(f"{out:g} is too large (maximum {maximum:g})", loc, f"use a number ≤ {maximum:g}")
        return out
    return conv


#: A number written with a unit: "63mm", "6.3 cm", "2.5in", "1.2 MeV".
_WITH_UNIT = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+))\s*([A-Za-zµ%\"]+)\s*")


def _number_fix(value: Any) -> str:
    """The fix for text where a number belongs: a number written with its unit is told to
    drop it (lengths in millimetres, converted from cm, inches or points); else the usual."""
    match = _WITH_UNIT.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return "write a number like 63.5"
    number, unit = float(match[1]), match[2]
    if unit.lower() == "mm":
        return f"write the number alone, {_num(number)}: lengths are in millimetres"
    if unit.lower() in MM_PER_UNIT:
        mm = round(number * MM_PER_UNIT[unit.lower()], 3)
        return f"write the number alone, in millimetres: {match[0].strip()} is {_num(mm)}"
    return f"write the number without '{unit}'"


def fraction(value: Any, loc: Location, raw: str | None = None) -> Fraction:
    """An exact rational: 1, -1, 2/3, '-1/3', 0.5 (decimals are taken as written, not as floats)."""
    if isinstance(value, bool) or value is None or isinstance(value, (YMap, YSeq)):
        raise InputError(f"expected a fraction like 2/3, found {type_name(value)}", loc, "write e.g. 2/3 or -1")
    source = str(raw if raw is not None else value).strip().replace("−", "-")
    if len(source) > 40 or re.search(r"[eE]\s*[-+]?\d{3,}", source):  # 1e999999999 would take ages
        raise InputError(f"'{shown(source)}' is out of range", loc, "use a small fraction like 2/3")
    try:
        result = Fraction(source)
    except (ValueError, ZeroDivisionError, OverflowError):
        raise InputError(f"'{shown(source)}' is not a fraction", loc, "write e.g. 2/3, -1/3, 1 or 0") from None
    if abs(result.numerator) > 10**6 or result.denominator > 10**6:
        raise InputError(f"'{shown(source)}' is out of range", loc, "use a small fraction like 2/3")
    return result


def boolean(value: Any, loc: Location, raw: str | None = None) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"expected true or false, found {type_name(value)}", loc, "write true or false")
    return value


def choice(options: Iterable[str], others: dict[str, str] | None = None) -> Converter:
    """One of ``options``; ``others``: what other tools call some of them (``string`` for
    ``text``), named in the did-you-mean where spelling alone would not find them."""
    opts = list(options)

    def conv(value: Any, loc: Location, raw: str | None = None) -> str:
        s = text(value, loc, raw)
        if s not in opts:
            raise InputError(f"'{shown(s)}' is not one of {one_of(opts)}{did_you_mean(s, opts, others)}", loc,
                             f"use one of: {one_of(opts)}")
        return s
    return conv


def seq_of(conv: Converter, *, min_items: int = 0, what: str = "list") -> Callable[[Any, Location, Any], list]:
    def read(value: Any, loc: Location, raw: str | None = None) -> list:
        if not isinstance(value, YSeq):
            raise InputError(f"expected a {what}, found {type_name(value)}", loc,
                             "write a list: [a, b] or one '- item' per line")
        if len(value) < min_items:
            raise InputError(f"{what} needs at least {min_items} item(s)", value.loc, "add items")
        return [conv(item, value.where(i), value.raw[i]) for i, item in enumerate(value)]
    return read


def mapping(value: Any, loc: Location, raw: str | None = None) -> YMap:
    if not isinstance(value, YMap):
        raise InputError(f"expected a mapping, found {type_name(value)}", loc, "write indented 'key: value' lines")
    return value


def sequence(value: Any, loc: Location, raw: str | None = None) -> YSeq:
    if not isinstance(value, YSeq):
        raise InputError(f"expected a list, found {type_name(value)}", loc,
                         "write a list: [a, b] or one '- item' per line")
    return value


def items(value: Any, loc: Location) -> list[tuple[Any, Location]]:
    """The entries of an optional list with where each one is (none when the key is absent)."""
    if value is None:
        return []
    seq = sequence(value, loc)
    return [(item, seq.where(i)) for i, item in enumerate(seq)]


def anything(value: Any, loc: Location, raw: str | None = None) -> Any:
    return value


def faces(value: Any, loc: Location, raw: str | None = None, sides: int = 6) -> tuple[int, ...]:
    """Die faces: 4, '3-6', or [1, 2] -> sorted tuple of ints in 1..sides."""
    if isinstance(value, bool):
        raise InputError("expected die faces like 3-6", loc, "write a face (4), a range (3-6) or a list ([1, 2])")

    def on_die(f: int) -> int:
        if not 1 <= f <= sides:
            raise InputError(f"face {_num(f)} is not on a {sides}-sided die", loc, f"use faces 1 to {sides}")
        return f

    items: list[int] = []
    if isinstance(value, int):
        items = [value]
    elif isinstance(value, YSeq):
        for i, v in enumerate(value):
            items.extend(faces(v, value.where(i), None, sides))
    elif isinstance(value, str) and re.fullmatch(r"\s*[0-9]{1,9}\s*[-–]\s*[0-9]{1,9}\s*", value):
        lo, hi = (int(p) for p in re.split(r"[-–]", value))
        if lo > hi:
            raise InputError(f"range '{value.strip()}' runs backwards", loc, f"write {hi}-{lo}")
        items = list(range(on_die(lo), on_die(hi) + 1))   # ends first: '1-999999999' never becomes a list
    else:
        raise InputError(f"'{shown(value)}' is not a die face or range", loc,
                         "write a face (4), a range (3-6) or a list")
    return tuple(on_die(f) for f in items)
