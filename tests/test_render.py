"""The render stage: strict, sandboxed, escaped templates; shaped text; reports naming the card."""

from __future__ import annotations

import io
import re
import textwrap
from pathlib import Path

import jinja2
import pytest
from PIL import Image

import cardgen
from cardgen.draw import render_png
from cardgen.render import Renderer, TemplateError


def make_game(root: Path, template: str, card_yaml: str = "  - {id: one, title: Hello}",
              fields: str = "  title: {type: text}") -> Path:
    """A minimal designer game: data + one template, no Python."""
    g = root / "mini"
    (g / "templates").mkdir(parents=True)
    (g / "game.yaml").write_text("id: mini\nname: Mini\ncomponents: [cards.yaml]\n", encoding="utf-8")
    (g / "cards.yaml").write_text(textwrap.dedent("""\
        id: cards
        name: Cards
        size: {width: 50, height: 70}
        bleed: 2
        front: front.svg.j2
        fields:
        """) + fields + "\ncards:\n" + card_yaml + "\n", encoding="utf-8")
    (g / "templates" / "front.svg.j2").write_text(template, encoding="utf-8")
    return g


HELLO = """{% extends "base.svg.j2" %}
{% block artwork %}
<rect x="0" y="0" width="50" height="10" fill="#123456"/>
{{ text(card.title, 2, 20, size=5, width=46, align="middle", field="title") }}
{% endblock %}
"""


def face_of(path: Path, card: str = "one", lang: str = "en"):
    game = cardgen.load_game(path)
    r = Renderer(game, lang)
    comp = game.components["cards"]
    result = r.face(comp, comp.card(card))
    return result.face, result   # the face, and what its rendering reported


def test_face_is_an_svg_the_size_of_the_bleed_box(tmp_path):
    face, r = face_of(make_game(tmp_path, HELLO))
    assert 'width="54.0mm"' in face.svg and 'height="74.0mm"' in face.svg
    assert 'viewBox="-2.0 -2.0 54.0 74.0"' in face.svg
    assert "<text" not in face.svg          # text is glyph outlines, never <text>
    assert 'aria-label="Hello"' in face.svg
    assert not r.issues


def test_png_has_the_exact_pixel_size_and_the_artwork(tmp_path):
    face, _ = face_of(make_game(tmp_path, HELLO))
    im = Image.open(io.BytesIO(render_png(face, dpi=254)))   # 10 px per mm
    assert im.size == (540, 740)
    assert im.convert("RGB").getpixel((270, 70)) == (0x12, 0x34, 0x56)  # the rect at y 0–10 mm (+2 bleed)


def test_glyph_outlines_inline_by_default_or_defined_once(tmp_path):
    path = make_game(tmp_path, HELLO, "  - {id: one, title: aaaa bbbb}")
    face, _ = face_of(path)
    assert "<use" not in face.svg
    assert len(re.findall(r'<path d="[^"]+" transform="translate', face.svg)) == 8
    game = cardgen.load_game(path)
    comp = game.components["cards"]
    shared = Renderer(game, inline_glyphs=False).face(comp, comp.card("one")).face
    defs = re.findall(r'<path id="([^"]+)"', shared.svg)
    uses = re.findall(r'<use href="#([^"]+)"', shared.svg)
    assert len(set(defs)) == len(defs) == 2 and len(uses) == 8


def test_markup_in_data_is_escaped_not_injected(tmp_path):
    template = HELLO.replace("{% endblock %}", '<desc>{{ card.title }}</desc>\n{% endblock %}')
    path = make_game(tmp_path, template, '  - {id: one, title: "<script>alert(1)</script> & Co"}')
    face, _ = face_of(path)
    assert "<script>" not in face.svg and "&lt;script&gt;" in face.svg and "&amp; Co" in face.svg
    import xml.dom.minidom
    xml.dom.minidom.parseString(face.svg)   # still well-formed


def test_undefined_field_names_template_line_and_card(tmp_path):
    template = HELLO.replace("card.title, 2, 20", "card.titel, 2, 20")
    with pytest.raises(TemplateError) as info:
        face_of(make_game(tmp_path, template))
    err = info.value
    assert err.location.file.endswith("front.svg.j2") and err.location.line == 4
    assert "titel" in err.message and "card 'one' of component 'cards', front" in err.message


def test_template_syntax_error_names_the_line(tmp_path):
    template = HELLO.replace("{% endblock %}", "{% if %}\n{% endblock %}")
    with pytest.raises(TemplateError) as info:
        face_of(make_game(tmp_path, template))
    assert info.value.location.line == 5


def test_templates_cannot_reach_python_internals(tmp_path):
    template = HELLO.replace("{% endblock %}", "{{ card.__class__.__mro__ }}\n{% endblock %}")
    with pytest.raises(TemplateError) as info:
        face_of(make_game(tmp_path, template))
    assert "unsafe" in info.value.message or "undefined" in info.value.message


def _attribute_cases():
    """Objects a template may meet, and attribute names, safe and not, of each kind Jinja tells apart."""
    import collections
    import dataclasses
    import types

    import markupsafe

    def gen():
        yield 1

    async def coro():
        return 1

    async def agen():
        yield 1

    @dataclasses.dataclass
    class Record:
        name: str = "x"

    class Claims:   # objects of one type naming other classes than it: isinstance believes them
        def __init__(self, claimed):
            self.claimed = claimed

        __class__ = property(lambda self: self.claimed)   # type: ignore[assignment]

    try:
        raise ValueError
    except ValueError as exc:
        traceback = exc.__traceback__
        frame = traceback.tb_frame
    started = coro()
    objects = [["a"], {"k": 1}, {1}, collections.deque(), "text", markupsafe.Markup("m"), 3, 2.5, Record(), Record,
               gen(), started, agen(), (lambda: 1), Record.__init__, Record().__repr__, "s".upper, traceback, frame,
               (lambda: 1).__code__, Claims(object), Claims(list), types.MappingProxyType({}), jinja2.Undefined()]
    names = ["append", "pop", "clear", "keys", "items", "update", "add", "discard", "upper", "format", "name", "mro",
             "gi_frame", "gi_code", "cr_frame", "ag_code", "f_locals", "tb_frame", "co_code", "func_code",
             "__globals__", "__class__", "_private", "real", "extend", "setdefault", "popleft", "im_func"]
    try:
        yield from ((obj, name) for obj in objects for name in names)
    finally:
        started.close()


def test_the_sandbox_answers_attribute_safety_as_jinja_does_when_it_keeps_its_answers():
    """The environment keeps its answers by type and name: each one, asked twice, must be
    Jinja's own, for every kind of object Jinja treats apart (mutable containers, functions,
    methods, generators, frames, code, a type, an object claiming another class)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from cardgen.budget import BudgetedEnvironment

    env = BudgetedEnvironment()
    for obj, name in _attribute_cases():
        try:
            value = getattr(obj, name, None)
        except jinja2.UndefinedError:
            value = None
        expected = ImmutableSandboxedEnvironment.is_safe_attribute(env, obj, name, value)
        assert env.is_safe_attribute(obj, name, value) is expected, (type(obj), name)
        assert env.is_safe_attribute(obj, name, value) is expected, (type(obj), name)   # the kept answer


def test_the_sandbox_forgets_its_answers_when_an_abstract_class_gains_a_member():
    """A type registered as a mutable sequence after its attribute was judged safe: the kept
    answer is dropped, and its ``append`` is refused as a list's is."""
    from collections.abc import MutableSequence

    from cardgen.budget import BudgetedEnvironment

    class Stack:
        def append(self, item):
            pass

    env = BudgetedEnvironment()
    assert env.is_safe_attribute(Stack(), "append", Stack().append)
    MutableSequence.register(Stack)
    assert not env.is_safe_attribute(Stack(), "append", Stack().append)


def test_templates_cannot_include_files_outside_their_folders(tmp_path):
    template = HELLO.replace("{% endblock %}", '{% include "../../../../etc/passwd" %}\n{% endblock %}')
    with pytest.raises(TemplateError):
        face_of(make_game(tmp_path, template))


def test_overflow_is_reported_with_game_card_field_and_language(tmp_path):
    long = "Supercalifragilisticexpialidocious " * 6
    template = HELLO.replace('width=46, align="middle"', 'width=46, height=8, min_size=3, align="middle"')
    face, r = face_of(make_game(tmp_path, template, f"  - {{id: one, title: {long.strip()}}}"))
    assert len(r.issues) == 1
    issue = r.issues[0]
    assert (issue.game, issue.card, issue.field, issue.lang, issue.kind) == ("mini", "one", "title", "en", "overflow")
    assert "mm too long" in issue.detail


def test_uncovered_characters_are_reported_never_drawn(tmp_path):
    face, r = face_of(make_game(tmp_path, HELLO, "  - {id: one, title: \"Quark \U0001F9EA\"}"))
    assert [i.kind for i in r.issues] == ["missing-glyphs"] and "\U0001F9EA" in r.issues[0].detail


def test_same_input_same_svg(tmp_path):
    path = make_game(tmp_path, HELLO)
    assert face_of(path)[0].svg == face_of(path)[0].svg


# --- QCD, the shipped example -----------------------------------------------------------------

QCD = cardgen.load_game("qcd")


def qcd_face(card: str, side: str = "front"):
    r = Renderer(QCD)
    comp = QCD.components["cards"]
    result = r.face(comp, comp.card(card), side)
    return result.face, result


@pytest.mark.parametrize("card", [c.id for c in QCD.components["cards"].cards])
def test_every_qcd_face_renders_without_text_issues(card):
    face, r = qcd_face(card)
    assert not r.issues
    labels = re.findall(r'aria-label="([^"]*)"', face.svg)
    c = QCD.components["cards"].card(card)
    p = c.fields["particle"]
    if c.fields["wild"]:
        assert "Wild card" in labels and "c → s" in labels
    else:
        assert p.symbol.unicode() in labels and p.name in labels
        energy = next(r["energy_mev"] for r in (x.values for x in QCD.tables["flavours"].rows) if p in r["particles"])
        assert f"{energy} MeV" in labels
        assert c.fields["colour"].letter in labels


def test_qcd_shared_back_is_one_face():
    keys = {qcd_face(c.id, "back")[0].key for c in QCD.components["cards"].cards}
    assert len(keys) == 1


def test_qcd_quark_card_wears_its_colour():
    face, _ = qcd_face("u-blue")
    im = Image.open(io.BytesIO(render_png(face, dpi=72))).convert("RGB")
    blue = (0x00, 0x72, 0xB2)
    assert im.getpixel((3, 3)) == blue             # bleed/background
    assert im.getpixel((im.width // 2, int(im.height * 0.41))) == blue   # the big colour disc


def test_qcd_golden_faces():
    from tests.golden import assert_matches_golden

    assert_matches_golden(qcd_face("sbar-anti-green")[0], "qcd/sbar-anti-green-front")
    assert_matches_golden(qcd_face("wild-w")[0], "qcd/wild-w-front")


def test_shared_templates_compile_once_per_process(compiled, tmp_path):
    """The shared frame and macros are compiled once for all games; an edited template is
    compiled again (entries are checked against the source)."""
    for gid in ("qcd", "particles-in-circle"):
        game = cardgen.load_game(gid)
        comp = game.components["cards"]
        Renderer(game).face(comp, comp.cards[0])
    assert compiled.count("base.svg.j2") == 1 and compiled.count("macros.svg.j2") == 1
    assert compiled.count("card-front.svg.j2") == 2, "each game's own front"
    path = make_game(tmp_path, HELLO)
    face_of(path)
    (path / "templates" / "front.svg.j2").write_text(HELLO.replace("#123456", "#654321"), encoding="utf-8")
    face, _ = face_of(path)
    assert compiled.count("front.svg.j2") == 2 and "#654321" in face.svg


def with_back(g: Path, back: str, **templates: str) -> Path:
    """Give the mini game's cards a back (and other templates, e.g. a macro module)."""
    cards = g / "cards.yaml"
    cards.write_text(cards.read_text().replace("front: front.svg.j2\n", "front: front.svg.j2\nback: back.svg.j2\n"))
    (g / "templates" / "back.svg.j2").write_text(back, encoding="utf-8")
    for name, text in templates.items():
        (g / "templates" / name.replace("_", ".")).write_text(text, encoding="utf-8")
    return g


THREE = "  - {id: one, title: Hello}\n  - {id: two, title: Quark}\n  - {id: three, title: Gluon}"
OVERFLOWING_BACK = """{% extends "base.svg.j2" %}
{% block artwork %}
{{ text(_("A back title far too long for its box"), 2, 20, size=6, width=20, height=7, field="title") }}
{{ text(_("Unbounded"), 2, 40, size=4, width=40, field="motto") }}
{% endblock %}
"""


@pytest.fixture
def renders(monkeypatch):
    """Names of the templates rendered (not faces handed out)."""
    names: list[str] = []
    real = jinja2.Template.generate   # what a face is rendered with (piece by piece, within its budget)

    def generate(self, *args, **kwargs):
        names.append(self.name)
        return real(self, *args, **kwargs)
    monkeypatch.setattr(jinja2.Template, "generate", generate)
    return names


def test_a_side_that_does_not_read_the_card_is_rendered_once_and_reported_for_every_card(tmp_path, renders):
    game = cardgen.load_game(with_back(make_game(tmp_path, HELLO, THREE), OVERFLOWING_BACK))
    comp = game.components["cards"]
    told, asked = [], []
    r = Renderer(game, "en", translate=lambda m, c: (asked.append(m), m)[1],
                 on_text=lambda *args: told.append(args[0]))
    results = [r.face(comp, card, "back") for card in comp.cards]
    backs = [result.face for result in results]
    assert renders.count("back.svg.j2") == 1
    assert [f.card for f in backs] == ["one", "two", "three"]
    assert len({f.key for f in backs}) == 1 and len({f.svg for f in backs}) == 1
    assert [(i.card, i.field, i.kind) for x in results for i in x.issues] == \
        [(c, "title", "overflow") for c in ("one", "two", "three")]
    assert [(w[1], w[3]) for x in results for w in x.wraps] == [(c, "motto") for c in ("one", "two", "three")]
    assert asked.count("Unbounded") == 3 and told.count("Unbounded") == 3
    assert {"Hello", "Quark", "Gluon"} <= set(asked)   # each card's own text fields, as in every render


def test_a_side_that_reads_the_card_anywhere_is_rendered_for_each_card(tmp_path, renders):
    """Read in a macro module imported with context: still per card."""
    back = ('{% extends "base.svg.j2" %}{% import "m.svg.j2" as m with context %}'
            '{% block artwork %}{{ m.title() }}{% endblock %}')
    macros = '{% macro title() %}{{ text(card.title, 2, 20, size=5, field="title") }}{% endmacro %}'
    game = cardgen.load_game(with_back(make_game(tmp_path, HELLO, THREE), back, m_svg_j2=macros))
    comp = game.components["cards"]
    r = Renderer(game)
    backs = [r.face(comp, card, "back").face for card in comp.cards]
    assert renders.count("back.svg.j2") == 3
    assert len({f.key for f in backs}) == 3


def test_a_card_named_on_a_branch_not_taken_counts_as_read(tmp_path, renders):
    """Jinja looks up every name a block uses when the block starts: the card counts as
    read even where only a branch no card takes names it. Sharing errs on the safe side."""
    back = ('{% extends "base.svg.j2" %}{% block artwork %}'
            '{% if component.width > 100 %}{{ card.title }}{% else %}<rect width="5" height="5"/>{% endif %}'
            '{% endblock %}')
    game = cardgen.load_game(with_back(make_game(tmp_path, HELLO, THREE), back))
    comp = game.components["cards"]
    r = Renderer(game)
    backs = [r.face(comp, card, "back").face for card in comp.cards]
    assert renders.count("back.svg.j2") == 3
    assert len({f.svg for f in backs}) == 1


def test_a_colour_cannot_break_out_of_its_attribute(tmp_path):
    """fill= reaches the SVG as an attribute value: quotes and brackets in it are escaped."""
    template = ('{% extends "base.svg.j2" %}{% block artwork %}'
                '{{ text("x", 5, 20, size=5, fill=card.title) }}{{ feynman("fermion", 1, 1, 9, 9, stroke=card.title) }}'
                '{% endblock %}')
    face, _ = face_of(make_game(tmp_path, template, "  - {id: one, title: '\"/><script>alert(1)</script>'}"))
    assert "<script>" not in face.svg and "&#34;/&gt;&lt;script&gt;" in face.svg


class _CountedCards(tuple):
    """A component's cards that count how often they are gone through."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


def test_rendering_a_face_does_not_go_through_the_whole_deck(tmp_path):
    """What a face needs of its component (its card by id, the piece count templates read)
    is found once per component (:class:`cardgen.model.Component` keeps both), not once per
    face: a 10,000-card deck summed 10,000 counts and searched thousands of cards for every
    face it rendered."""
    import dataclasses

    lines = "\n".join(f"  - {{id: c{i}, title: 'Card {i}'}}" for i in range(60))
    game = cardgen.load_game(make_game(tmp_path, HELLO.replace("{% block artwork %}", '{% block artwork %}<g data-total="{{ component.total }}"/>'), lines))
    comp = dataclasses.replace(game.components["cards"], cards=_CountedCards(game.components["cards"].cards))
    renderer = Renderer(game)
    _CountedCards.walks = 0
    for i in range(60):
        result = renderer.face(comp, comp.card(f"c{i}"), "front")
        assert result.face.card == f"c{i}" and 'data-total="60"' in result.face.svg
    assert _CountedCards.walks <= 2, _CountedCards.walks


#: A template that draws a circle when ``card.FIELD`` passes ``TEST``.
TESTED = ('{% extends "base.svg.j2" %}{% block artwork %}{% if card.FIELD TEST %}<circle r="1"/>{% endif %}'
          '{% endblock %}')


@pytest.mark.parametrize("test, shown", [("is not none", True), ("is none", False), ("is string", True),
                                         ("is sameas(card.title)", True), ("is in ['Hello']", True)])
def test_a_test_on_a_misspelt_field_is_the_undefined_error(tmp_path, test, shown):
    """A test looks only at what it is given: on a misspelt field it would be always true (or
    false), and every face print without what it meant to keep out. It is the undefined
    error instead, with its did-you-mean; spelt right, it tests as it always did."""
    template = TESTED.replace("TEST", test)
    with pytest.raises(TemplateError) as info:
        face_of(make_game(tmp_path / "wrong", template.replace("FIELD", "titel")))
    assert "'titel'" in info.value.message and "did you mean 'title'?" in info.value.message
    face, _ = face_of(make_game(tmp_path / "right", template.replace("FIELD", "title")))
    assert ("<circle" in face.svg) is shown


def test_asking_whether_a_field_is_there_stays_allowed(tmp_path):
    """``defined`` and ``undefined`` ask exactly that; Jinja's own tests that take the
    environment (``is filter``) still get it."""
    test = "is undefined and card.title is defined and 'upper' is filter and 'even' is test"
    face, _ = face_of(make_game(tmp_path, TESTED.replace("FIELD", "titel").replace("TEST", test)))
    assert "<circle" in face.svg


def _bound_check(helper, *args, **kwargs):
    """What a checked helper did before its fast path: Signature.bind, then the number check."""
    import inspect

    from cardgen.render import _coordinates

    numbers = inspect.signature(helper).bind(*args, **kwargs).arguments
    _coordinates(**{k: v for k, v in numbers.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
    return helper(*args, **kwargs)


def _outcome(fn, args, kwargs):
    try:
        return "returned", fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 any error, compared by kind and message
        return type(exc).__name__, getattr(exc, "message", str(exc))


from hypothesis import example, given, settings, strategies as st  # noqa: E402

_VALUES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.booleans(),
                    st.sampled_from(["fermion", "photon", "gluon", "scalar", "#123456", "x"]), st.none())


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.sampled_from(sorted(__import__("cardgen.artwork", fromlist=["TEMPLATE_HELPERS"]).TEMPLATE_HELPERS)),
       st.lists(_VALUES, max_size=10),
       st.dictionaries(st.sampled_from(["x1", "y1", "x2", "y2", "size", "at", "r", "sides", "cx", "cy", "degrees",
                                        "style", "width", "stroke", "amplitude", "radius", "sise", "rotation",
                                        "colour", "background", "arrow_size", "pitch", "wavelength"]),
                       _VALUES, max_size=4))
@example("arrow", [0, 0, 1, 1], {"at": float("inf"), "size": float("nan")})   # two bad: the first in order is named
def test_a_checked_helper_answers_every_call_as_binding_its_arguments_did(name, args, kwargs):
    """The helpers templates call check their numbers after naming the arguments; a call that
    plainly fits is named without Signature.bind. Any call — too many or too few arguments,
    a name twice or unknown, numbers out of range, wrong types — gets what binding gave it:
    the same value, or the same error with the same message."""
    from cardgen.artwork import TEMPLATE_HELPERS
    from cardgen.render import _HELPERS

    assert _outcome(_HELPERS[name], args, kwargs) == _outcome(
        lambda *a, **k: _bound_check(TEMPLATE_HELPERS[name], *a, **k), args, kwargs)
