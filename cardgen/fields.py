"""Typed card fields declared in data, so a new game needs no Python to get its cards validated.

A component (or a ``records`` table) declares ``fields:``; each card's keys are then checked
against that declaration: unknown keys get a did-you-mean, particle ids must exist, numbers
must be numbers. References to other tables or components are resolved after every file of the
game has been read (see :func:`resolve_refs`).
"""

from __future__ import annotations

from typing import Any, Mapping

from . import schema as S
from .errors import InputError, Location, did_you_mean
from .model import FieldSpec
from .particles import PhysicsData
from .yamlsrc import YMap, YSeq

FIELD_TYPES = ("text", "int", "number", "bool", "enum", "particle", "colour", "ref", "list")
SCALAR_TYPES = tuple(t for t in FIELD_TYPES if t != "list")
#: What spreadsheets, programming languages and other card tools call some field types.
TYPE_NAMES_ELSEWHERE = {"string": "text", "str": "text", "integer": "int", "float": "number", "double": "number",
                        "decimal": "number", "real": "number", "boolean": "bool", "color": "colour", "choice": "enum",
                        "array": "list"}


def parse_field_specs(value: Any, loc: Location, what: str) -> dict[str, FieldSpec]:
    """Read a ``fields:`` mapping: ``name: type`` or ``name: {type: ..., required: true, ...}``."""
    m = S.mapping(value, loc)
    specs: dict[str, FieldSpec] = {}
    for name, spec in m.items():
        where = m.where(name)
        S.ident(name, m.key_where(name))
        if name in ("id", "count", "matrix", "places"):
            raise InputError(f"'{name}' is reserved and cannot be declared as a field", m.key_where(name),
                             "choose another field name")
        if isinstance(spec, str):
            specs[name] = FieldSpec(name, S.choice(FIELD_TYPES, TYPE_NAMES_ELSEWHERE)(spec, where), location=where)
            if spec in ("enum", "ref", "list"):
                raise InputError(f"field type '{spec}' needs more settings", where,
                                 f"write {name}: {{type: {spec}, ...}} (see docs/data-format.md)")
            continue
        f = S.Fields(spec, f"field '{name}' of {what}", where)
        ftype = f.get("type", S.choice(FIELD_TYPES, TYPE_NAMES_ELSEWHERE))
        fs = FieldSpec(
            name=name, type=ftype,
            required=f.get("required", S.boolean, False),
            choices=tuple(f.get("choices", S.seq_of(S.text, min_items=1, what="list of choices"), ())),
            of=f.get("of", S.choice(SCALAR_TYPES, TYPE_NAMES_ELSEWHERE), None),
            table=f.get("table", S.ident, None),
            component=f.get("component", S.ident, None),
            translatable=f.get("translatable", S.boolean, ftype == "text"),
            minimum=f.get("min", S.number(), None),
            maximum=f.get("max", S.number(), None),
            doc=f.get("doc", S.text, ""),
            label=f.get("label", S.text, ""),
            location=where,
            printed=f.get("printed", S.boolean, True),
        )
        f.finish()
        element = fs.of if ftype == "list" else ftype
        if ftype == "list" and fs.of is None:
            raise InputError(f"list field '{name}' needs 'of'", where, "add e.g. 'of: particle'")
        if element == "enum" and not fs.choices:
            raise InputError(f"enum field '{name}' needs 'choices'", where, "add 'choices: [a, b]'")
        if element == "ref" and not (fs.table or fs.component):
            raise InputError(f"ref field '{name}' needs 'table' or 'component'", where,
                             "add 'table: <table id>' or 'component: <component id>'")
        specs[name] = fs
    return specs


def _scalar(spec: FieldSpec, kind: str, value: Any, loc: Location, raw: str | None, physics: PhysicsData) -> Any:
    if kind == "text":
        return S.text(value, loc, raw)
    if kind == "int":
        return S.integer(None if spec.minimum is None else int(spec.minimum),
                         None if spec.maximum is None else int(spec.maximum))(value, loc, raw)
    if kind == "number":
        return S.number(spec.minimum, spec.maximum)(value, loc, raw)
    if kind == "bool":
        return S.boolean(value, loc, raw)
    if kind == "enum":
        return S.choice(spec.choices)(value, loc, raw)
    if kind == "particle":
        return physics.particle(S.ident(value, loc, raw), loc)
    if kind == "colour":
        return physics.colour(S.ident(value, loc, raw), loc)
    if kind == "ref":
        return S.ident(value, loc, raw)  # resolved later, when every table and component is known
    raise AssertionError(kind)


def convert_field(spec: FieldSpec, value: Any, loc: Location, raw: str | None, physics: PhysicsData) -> Any:
    """Convert one card value according to its declared type."""
    if spec.type == "list":
        if not isinstance(value, YSeq):
            raise InputError(f"field '{spec.name}' must be a list, found {S.type_name(value)}", loc,
                             "write [a, b, c]")
        return tuple(_scalar(spec, spec.of or "text", v, value.where(i), value.raw[i], physics)
                     for i, v in enumerate(value))
    return _scalar(spec, spec.type, value, loc, raw, physics)


def read_record_fields(m: YMap, specs: Mapping[str, FieldSpec], what: str, physics: PhysicsData,
                       reserved: tuple[str, ...], defaults: Mapping[str, Any] | None = None,
                       complete: bool = True) -> tuple[dict[str, Any], dict[str, Any], dict[str, Location]]:
    """Convert the declared fields of one card/row. Returns (values, raw values, locations).

    With ``complete`` (the default) every declared field gets a value: the default, or None;
    a missing required field is an error. ``defaults:`` blocks are read with complete=False."""
    values: dict[str, Any] = {}
    raws: dict[str, Any] = {}
    locs: dict[str, Location] = {}
    for key in m:
        if key in reserved:
            continue
        if key not in specs:
            raise InputError(f"unknown field '{S.shown(key)}' in {what}{did_you_mean(key, list(specs) + list(reserved))}",
                             m.key_where(key),
                             f"declare it under 'fields:' or use one of: {S.one_of(sorted(specs), 40) or '(none declared)'}")
        values[key] = convert_field(specs[key], m[key], m.where(key), m.raw.get(key), physics)
        raws[key] = m[key]
        locs[key] = m.where(key)
    for name, spec in specs.items():
        if name in values or not complete:
            continue
        if defaults and name in defaults:
            values[name], raws[name], locs[name] = defaults[name]
        elif spec.required:
            raise InputError(f"{what} is missing the required field '{name}'", m.loc, f"add '{name}: ...'")
        else:
            values[name], raws[name] = None, None  # declared but unset: templates test 'is none'
    return values, raws, locs
