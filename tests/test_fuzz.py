"""Fuzzing the loaders and the checker: whatever a data file holds, cardgen answers with a
one-line :class:`~cardgen.errors.CardgenError` (or loads and reports findings) — never a traceback.

Four generators feed the same property:

* *structural* mutations of the shipped files: parse a shipped YAML file, then set random keys
  to values of the wrong type, edge numbers (1e308, 10**100, 0, -1), odd Unicode, known ids in
  the wrong place, or delete/add/duplicate keys and list items, and write it back;
* *textual* mutations of the shipped files: delete/duplicate/swap lines, insert YAML syntax
  (anchors, aliases, tags, tabs, document markers, brackets), replace tokens, flip bytes
  (non-UTF-8), truncate;
* *raw* documents: generated YAML with alias bombs, ``!!python/object`` tags, duplicate keys,
  deep nesting, multiple documents, BOMs, NULs and random bytes, replacing a whole file;
* ``parse_yaml`` alone on arbitrary text.

The fast subset (a few hundred examples, derandomized so CI is reproducible) runs in CI; the
``slow`` tests run 10,000+ examples: ``pytest -m slow tests/test_fuzz.py``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cardgen
import cardgen.rules
from cardgen.errors import CardgenError
from cardgen import yamlsrc
from cardgen.yamlsrc import YMap, YSeq, parse_yaml

from .conftest import GAMES, ROOT, GameCopy

GAME_IDS = sorted(p.name for p in GAMES.iterdir() if (p / "game.yaml").is_file())
#: (game id, file relative to the game folder) for every shipped YAML file.
SHIPPED = [(gid, str(f.relative_to(GAMES / gid))) for gid in GAME_IDS for f in sorted((GAMES / gid).rglob("*.yaml"))]


def _harvest() -> tuple[list[str], list[str]]:
    """Every key and every scalar word of the shipped data: mutations that reuse them reach
    deeper than random text (a real particle id in a colour field, 'kind' in a card...)."""
    keys: set[str] = set()
    words: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                keys.add(str(k))
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, str) and len(node) < 40:
            words.add(node)
    for gid, rel in SHIPPED:
        walk(yaml.safe_load((GAMES / gid / rel).read_text(encoding="utf-8")))
    return sorted(keys), sorted(words)


KEYS, WORDS = _harvest()

ODD_TEXT = [
    "", " ", "\u200f", "\u202e\u05d0\u05d1", "e\u0301\u0301\u0301", "\U0001F600", "\U00010348", "\ufeff", "\x00",
    "a\x00b", "\t", "\u2028", "\x1b[31m", "x" * 5000, "ü", "−1", "{", "}", "{particle}", "{particle.__class__}",
    "{0}", "{particle:>999999999}", "{particle[0]}", "{{", "%s", "..", "../x.yaml", "../../../../etc/passwd",
    "/etc/passwd", "C:\\x", "components", "tables/../tables/flavours.yaml", "a\nb", "3-6", "6-3", "0-9", "7",
    "1-999999999999", "2001-13-45", "1e999", "nan", "inf", "1/0", "2/3", "true", "null", "<<", "=",
]
EDGE_NUMBERS = [0, -1, -5, 1, 2, 3, 6, 7, 99, 100, 101, 10_000, 10_001, 2**31, 2**63, 10**100, -(10**100),
                10**4000, 1e308, -1e308, float("inf"), float("-inf"), float("nan"), 0.5, 2.5, -0.0, 1e-320]

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.sampled_from(EDGE_NUMBERS),
    st.text(max_size=20), st.sampled_from(ODD_TEXT), st.sampled_from(WORDS), st.sampled_from(KEYS),
)
yaml_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8),
                                                                  inner, max_size=4),
    max_leaves=10,
)

# --- structural mutations ---------------------------------------------------------------------


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    """Every position in a parsed document (the root is ())."""
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_paths(v, prefix + (i,)))
    return out


def _mutate_tree(data: st.DataObject, doc: Any) -> Any:
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        path = data.draw(st.sampled_from(_paths(doc)), label="path")
        op = data.draw(st.sampled_from(["replace", "replace", "replace", "delete", "add", "duplicate", "nest"]),
                       label="op")
        if not path:
            if op in ("replace", "nest"):
                doc = data.draw(yaml_values, label="root")
            continue
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        if op == "replace":
            parent[last] = data.draw(yaml_values, label="value")
        elif op == "nest":  # deep nesting at this spot
            value: Any = parent[last]
            for _ in range(data.draw(st.integers(1, 80), label="depth")):
                value = [value] if data.draw(st.booleans()) else {"k": value}
            parent[last] = value
        elif op == "delete":
            del parent[last]
        elif op == "add":
            if isinstance(parent, dict):
                parent[data.draw(st.sampled_from(KEYS) | st.text(max_size=8), label="key")] = data.draw(yaml_values)
            else:
                parent.insert(last, data.draw(yaml_values, label="item"))
        elif op == "duplicate" and isinstance(parent, list):
            parent.insert(last, parent[last])
    return doc


@st.composite
def structural(draw: Any) -> tuple[str, str, bytes]:
    gid, rel = draw(st.sampled_from(SHIPPED))
    doc = yaml.safe_load((GAMES / gid / rel).read_text(encoding="utf-8"))
    doc = _mutate_tree(draw(st.data()), doc)
    text = yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000)
    return gid, rel, text.encode("utf-8")


# --- textual mutations ------------------------------------------------------------------------

SNIPPETS = [
    "&a ", "*a", "*nope", "&x [1, 2]", "!!python/object:os.system ", "!!python/object/apply:os.system [ls]",
    "!!python/name:os.system", "!!binary ", "!!set ", "!!omap ", "!!int ", "!!float ", "!!timestamp ", "!foo ",
    "<<: *a", "---\n", "...\n", "\t", "  ", "{", "}", "[", "]", ":", ": ", "- ", "? ", "#", "'", '"', "|\n", ">\n",
    "%YAML 1.1\n", "\x00", "\ufeff", "\u202e", "\u0301", "\U0001F600", "1e308", "1.0e+308", "-1", "0", "2.5",
    "1" + "0" * 100, "null", "~", "true", "2001-13-45", "0x1F", "0o17", "1_000", "1:30", ".nan", ".inf", "=", "<<",
    "x" * 300, "../../etc/passwd", "/etc/passwd", "\n", "\r", "\r\n", "\u2028", "\\", "\\x", "\"\\q\"",
]


@st.composite
def textual(draw: Any) -> tuple[str, str, bytes]:
    gid, rel = draw(st.sampled_from(SHIPPED))
    raw = (GAMES / gid / rel).read_bytes()
    for _ in range(draw(st.integers(1, 4), label="mutations")):
        op = draw(st.sampled_from(["insert", "insert", "token", "token", "delete-line", "dup-line", "swap-lines",
                                   "byte", "truncate", "indent"]), label="op")
        lines = raw.split(b"\n")
        n = len(lines)
        if op == "insert":
            pos = draw(st.integers(0, len(raw)))
            piece = draw(st.sampled_from(SNIPPETS) | st.sampled_from(WORDS) | st.text(max_size=6)).encode("utf-8")
            raw = raw[:pos] + piece + raw[pos:]
        elif op == "token":
            tokens = [m.span() for m in re.finditer(rb"[A-Za-z0-9_+\-./]+", raw)]
            if tokens:
                a, b = draw(st.sampled_from(tokens))
                piece = draw(st.sampled_from(SNIPPETS) | st.sampled_from(WORDS) | st.sampled_from(KEYS)
                             | st.sampled_from(ODD_TEXT)).encode("utf-8")
                raw = raw[:a] + piece + raw[b:]
        elif op == "delete-line" and n > 1:
            del lines[draw(st.integers(0, n - 1))]
            raw = b"\n".join(lines)
        elif op == "dup-line":
            i = draw(st.integers(0, n - 1))
            lines.insert(i, lines[i])
            raw = b"\n".join(lines)
        elif op == "swap-lines" and n > 1:
            i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            lines[i], lines[j] = lines[j], lines[i]
            raw = b"\n".join(lines)
        elif op == "byte" and raw:
            pos = draw(st.integers(0, len(raw) - 1))
            raw = raw[:pos] + bytes([draw(st.integers(0, 255))]) + raw[pos + 1:]
        elif op == "truncate":
            raw = raw[: draw(st.integers(0, len(raw)))]
        elif op == "indent":
            i = draw(st.integers(0, n - 1))
            lines[i] = draw(st.sampled_from([b"\t", b" ", b"  ", b"    "])) + lines[i]
            raw = b"\n".join(lines)
    return gid, rel, raw


# --- declared checks ----------------------------------------------------------------------------

RULES = sorted(cardgen.rules.DECLARED)
PARAM_KEYS = sorted({k for gid in GAME_IDS for check in yaml.safe_load((GAMES / gid / "game.yaml").read_text(
    encoding="utf-8")).get("checks") or [] for k in check} | {"field", "deck_field", "colour_field", "requires", "kind",
                                                             "points", "quantities", "slots", "by", "counts"})


@st.composite
def checks(draw: Any) -> tuple[str, str, bytes]:
    """A shipped game's checks with parameters pointed at other fields, components and tables:
    rules must reject a field of the wrong type instead of tripping over its values."""
    gid = draw(st.sampled_from(GAME_IDS))
    doc = yaml.safe_load((GAMES / gid / "game.yaml").read_text(encoding="utf-8"))
    specs = doc.get("checks") or []
    if not specs:
        return gid, "game.yaml", yaml.safe_dump(doc).encode("utf-8")
    for _ in range(draw(st.integers(1, 3), label="changes")):
        spec = specs[draw(st.integers(0, len(specs) - 1))]
        if draw(st.integers(0, 4)) == 0:
            spec["rule"] = draw(st.sampled_from(RULES))
        else:
            spec[draw(st.sampled_from(PARAM_KEYS))] = draw(st.sampled_from(KEYS) | st.sampled_from(WORDS) | yaml_values)
    return gid, "game.yaml", yaml.safe_dump(doc, allow_unicode=True, sort_keys=False).encode("utf-8")


# --- raw documents ----------------------------------------------------------------------------

def _bomb(levels: int, width: int) -> str:
    out = ["a0: &a0 [lol]"]
    for i in range(1, levels):
        out.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    out.append(f"cards: *a{levels - 1}")
    return "\n".join(out) + "\n"


FIXED_DOCS = [
    "", "\n", "# only a comment\n", "~\n", "- a\n- b\n", "just text\n", "42\n", "[]\n", "{}\n", "\ufeffid: x\n",
    "!!python/object:os.system {}\n", "!!python/object/apply:os.system ['true']\n", "id: !!python/name:os.system\n",
    "id: a\nid: b\n", "id: a\n---\nid: b\n", "id: a\n\tname: b\n", "a: &a [*a]\n", "a: &a {b: *a}\n",
    "<<: {id: x}\n", "? [a, b]\n: c\n", "? {a: b}\n: c\n", "id: 'unterminated\n", "id: \"\\q\"\n",
    "[" * 2000 + "]" * 2000, "{a: " * 500 + "1" + "}" * 500, "- " * 300 + "x\n", _bomb(9, 9), _bomb(4, 50),
    "%YAML 2.0\n---\na: 1\n", "%TAG ! tag:example.com,2000:\n--- !x\na: 1\n", "id: 2001-13-45\n", "2001-02-30: x\n",
    "id: !!timestamp nope\n", "id: !!int abc\n", "=: 1\n", "id: =\n", "id: x\x00\n", "id: \x1b\n",
]


@st.composite
def raw_docs(draw: Any) -> tuple[str, str, bytes]:
    gid, rel = draw(st.sampled_from(SHIPPED))
    kind = draw(st.sampled_from(["fixed", "fixed", "values", "bytes", "prefix", "encoding"]))
    if kind == "fixed":
        return gid, rel, draw(st.sampled_from(FIXED_DOCS)).encode("utf-8")
    if kind == "values":
        doc = draw(yaml_values)
        return gid, rel, yaml.safe_dump(doc, allow_unicode=draw(st.booleans())).encode("utf-8")
    if kind == "bytes":
        return gid, rel, draw(st.binary(max_size=200))
    shipped = (GAMES / gid / rel).read_bytes()
    if kind == "prefix":
        return gid, rel, draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\x00", b"---\n",
                                               b"%YAML 1.1\n---\n", b"\t", b"\xc3\x28"])) + shipped
    enc = draw(st.sampled_from(["utf-16", "utf-32", "latin-1", "cp1252"]))
    return gid, rel, shipped.decode("utf-8").encode(enc, "replace")


# --- the property -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fuzz_games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, GameCopy]:
    base = tmp_path_factory.mktemp("fuzz")
    return {gid: GameCopy(base, gid) for gid in GAME_IDS}


def _one_line(text: str) -> None:
    assert "\n" not in text and "\r" not in text, f"message spans several lines: {text!r}"
    assert len(text) < 4000, f"message of {len(text)} characters: {text[:300]!r}…"


def load_and_check(game_dir: Path) -> str:
    """Load and check a game; return 'ok', 'findings' or 'error'. Any other exception escapes and
    fails the calling test — that is a cardgen bug."""
    try:
        report = cardgen.check(cardgen.load_game(game_dir), render=False)
    except CardgenError as err:
        _one_line(str(err))
        assert err.location is not None and err.location.file, f"error without a location: {err}"
        assert err.fix, f"error without a fix: {err}"
        return "error"
    for finding in report.findings:
        _one_line(str(finding))
    return "ok" if report.ok else "findings"


def run_case(games: dict[str, GameCopy], case: tuple[str, str, bytes]) -> str:
    gid, rel, content = case
    path = games[gid].path / rel
    original = path.read_bytes()
    try:
        path.write_bytes(content)
        return load_and_check(games[gid].path)
    finally:
        path.write_bytes(original)


GENERATORS = {"structural": structural(), "textual": textual(), "raw": raw_docs(), "checks": checks()}
FAST = {"structural": 150, "textual": 150, "raw": 80, "checks": 100}
SLOW = {"structural": 4000, "textual": 3000, "raw": 1500, "checks": 1500}
COMMON = dict(deadline=None, database=None, print_blob=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])


@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_fuzz_fast(fuzz_games: dict[str, GameCopy], kind: str) -> None:
    @settings(max_examples=FAST[kind], derandomize=True, **COMMON)
    @given(GENERATORS[kind])
    def run(case: tuple[str, str, bytes]) -> None:
        run_case(fuzz_games, case)
    run()


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(GENERATORS))
def test_fuzz_slow(fuzz_games: dict[str, GameCopy], kind: str) -> None:
    @settings(max_examples=SLOW[kind], **COMMON)
    @given(GENERATORS[kind])
    def run(case: tuple[str, str, bytes]) -> None:
        run_case(fuzz_games, case)
    run()


yaml_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(SNIPPETS) | st.sampled_from(KEYS) | st.text(max_size=5), max_size=40).map("".join),
    yaml_values.map(lambda v: yaml.safe_dump(v, allow_unicode=True)),
)


def _parse_property(text: str) -> None:
    try:
        parse_yaml(text, "fuzz.yaml")
    except CardgenError as err:
        _one_line(str(err))
        assert err.location is not None and err.location.file == "fuzz.yaml"


@settings(max_examples=300, derandomize=True, **COMMON)
@given(yaml_text)
def test_parse_yaml_fast(text: str) -> None:
    _parse_property(text)


@pytest.mark.slow
@settings(max_examples=5000, **COMMON)
@given(yaml_text)
def test_parse_yaml_slow(text: str) -> None:
    _parse_property(text)


# --- libyaml against the pure-Python parser -------------------------------------------------

def described(v: Any) -> Any:
    """All a parsed value says: its type and text, its positions, each scalar's raw text, and
    those of everything in it (tests/test_yamlcache.py compares kept parses with it too)."""
    if isinstance(v, YMap):
        return ("map", v.loc, [(k, v.key_locs[k], v.value_locs[k], v.raw.get(k), described(x)) for k, x in v.items()],
                sorted(v.raw))
    if isinstance(v, YSeq):
        assert len(v.item_locs) == len(v.raw) == len(v)
        return ("seq", v.loc, [(loc, raw, described(x)) for loc, raw, x in zip(v.item_locs, v.raw, v)])
    return (type(v).__name__, repr(v))


def _seen(text: str) -> Any:
    """All that parse_yaml answers (see :func:`described`), or the error's one line."""
    try:
        return described(parse_yaml(text, "f.yaml"))
    except CardgenError as err:
        return str(err)


def _seen_by_python(text: str) -> Any:
    saved = yamlsrc._compose_fast
    yamlsrc._compose_fast = lambda _text: yamlsrc._UNSURE
    try:
        return _seen(text)
    finally:
        yamlsrc._compose_fast = saved


def _differential(text: str) -> None:
    assert _seen(text) == _seen_by_python(text)


mutated_text = textual().map(lambda case: case[2].decode("utf-8", "replace"))


@settings(max_examples=400, derandomize=True, **COMMON)
@given(yaml_text | mutated_text)
def test_libyaml_and_python_parser_answer_alike_fast(text: str) -> None:
    """parse_yaml takes libyaml's tree only where it is the Python parser's: same values,
    raw texts, positions and errors, whichever parser ran."""
    _differential(text)


@pytest.mark.slow
@settings(max_examples=20000, **COMMON)
@given(yaml_text | mutated_text)
def test_libyaml_and_python_parser_answer_alike_slow(text: str) -> None:
    _differential(text)


@pytest.mark.parametrize("text", [
    "a:\t1\n", "a: 1\t\n", "a: [1,\t2]\n", "[x%?, y]\n", "a: !@!str 1\n", "{a: , b: 1}\n", "-\ufeffa: 1\n",
    "a:\n  - 1\n  -\n", "a: 'x\n  y'\n", "a: \"x\\ty\"\n", "\ufeffa: 1\r\nb: [c, 😀]\r\n", "? a\n: b\n",
])
def test_constructs_where_the_parsers_differ_answer_as_python_does(text: str) -> None:
    _differential(text)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    """libyaml composes recursively in C: 50,000 nested brackets would overflow the stack and
    kill the interpreter. Nesting is measured first, so this is the usual input error."""
    for text in ("[" * 50_000 + "]" * 50_000, "{a: " * 30_000 + "1" + "}" * 30_000):
        with pytest.raises(CardgenError, match="nesting deeper than 64"):
            parse_yaml(text, "deep.yaml")


def test_libyaml_reads_the_shipped_data() -> None:
    """The fast path is not silently lost: every shipped YAML file takes it."""
    files = [p for p in ROOT.joinpath("data").rglob("*.yaml")]
    assert len(files) > 20
    for path in files:
        assert yamlsrc._compose_fast(path.read_text(encoding="utf-8")) is not yamlsrc._UNSURE, path


# --- known offenders, kept as regression examples -----------------------------------------------

REGRESSIONS = [
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: 2001-13-45"),
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: !!timestamp nope"),
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: !!int abc"),
    ("qcd", "components/cards.yaml", "bleed: 3", "!!python/name:os.system bleed: 3"),
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: !!python/object:os.system {a: 1}"),
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: !!set {a, b}"),
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: \x00"),
    ("qcd", "components/cards.yaml", "bleed: 3", "bleed: " + "[" * 3000 + "]" * 3000),
    ("qcd", "components/cards.yaml", "width: 63", "width: 1" + "0" * 400),
    ("qcd", "components/cards.yaml", 'id: "{particle}-{colour}"', 'id: "{particle:>999999999}"'),
    ("qcd", "components/cards.yaml", 'id: "{particle}-{colour}"', 'id: "{particle.foo}"'),
    ("qcd", "components/cards.yaml", 'id: "{particle}-{colour}"', 'id: "{particle"'),
    ("qcd", "components/cards.yaml", "id: cards", 'id: "cards\\n"'),
    ("qcd", "components/cards.yaml", "front: card-front.svg.j2", "front: ../../../../etc/passwd"),
    ("qcd", "components/cards.yaml", "matrix: {particle: [u, d, s, c], colour: [red, green, blue]}",
     "matrix: {particle: [u, d, s, c], colour: [red, green, blue], a: [" + ", ".join(map(str, range(99))) + "], "
     "b: [" + ", ".join(map(str, range(99))) + "], c: [" + ", ".join(map(str, range(99))) + "]}"),
    ("qcd", "game.yaml", "  - tables/flavours.yaml", '  - "tables/a\\0b"'),
    ("qcd", "game.yaml", "  - rule: colour-balance\n    component: cards",
     "  - rule: colour-balance\n    component: cards\n    colour_field: wild"),
    ("qcd", "game.yaml", "  - rule: colour-wheel\n    component: cards",
     "  - rule: colour-wheel\n    component: cards\n    colour_field: particle"),
    ("qcd", "game.yaml", "    by: particle.category", '    by: "particle\\ncategory"'),
    ("particle-builder", "game.yaml", "  - rule: targets\n    component: targets",
     "  - rule: targets\n    component: targets\n    points: name"),
    ("particle-builder", "game.yaml", "  - rule: targets\n    component: targets",
     "  - rule: targets\n    component: targets\n    requires: points"),
    ("particle-builder", "tables/decays.yaml", "faces: 1-3", "faces: 1-999999999"),
]


@pytest.mark.parametrize("gid, rel, old, new", REGRESSIONS)
def test_regressions_are_input_errors(fuzz_games: dict[str, GameCopy], gid: str, rel: str, old: str,
                                      new: str) -> None:
    text = (GAMES / gid / rel).read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {gid}/{rel}"
    assert run_case(fuzz_games, (gid, rel, text.replace(old, new, 1).encode("utf-8"))) == "error"


def test_cli_on_a_mutated_game_prints_no_traceback(tmp_path: Path) -> None:
    g = GameCopy(tmp_path, "particle-builder")
    g.edit("components/particles.yaml", "front: particle-front.svg.j2",
           "front: particle-front.svg.j2\nborn: 2001-13-45\nlabel: !!python/object:os.system {a: 1}")
    res = subprocess.run([sys.executable, "-m", "cardgen", "check", str(g.path)], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr, res.stderr
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "cannot read date '2001-13-45'" in res.stderr and "Fix:" in res.stderr
