"""Every colour charge keeps cues of its own: a letter, a pattern and an ink no other colour
shares (the colour-wheel rule, cardgen/rules/decks.py)."""

from __future__ import annotations

import pytest

from cardgen.errors import display_path
from tests.test_physics_values import ROOT, broken_physics, cli  # noqa: F401


@pytest.fixture
def colours(broken_physics):
    """In-process: the loader reads ``text`` as data/colours.yaml."""
    return lambda text: broken_physics(text, "colours.yaml")


SHIPPED = (ROOT / "data" / "colours.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("old, new, cue, other", [
    ("letter: G,  anti: anti-green", "letter: R,  anti: anti-green", "and 'green' share the letter 'R'", "red"),
    ('print: "#009E73", pattern: dots', 'print: "#009E73", pattern: stripes', "and 'green' share the pattern 'stripes'",
     "red"),
    ('print: "#CC79A7", pattern: rings', 'print: "#d55e00", pattern: rings', "and 'anti-green' share the print '#d55e00'",
     "red"),
    ("letter: B̄,  anti: blue", "letter: R̄,  anti: blue", "and 'anti-blue' share the letter 'R̄'", "anti-red"),
])
def test_a_cue_two_colours_share_is_a_finding_at_its_line(colours, old, new, cue, other):
    """Green lettered R or patterned in red's stripes passed the check: colour-blind players
    could not tell the two colours apart."""
    assert old in SHIPPED
    text = SHIPPED.replace(old, new, 1)
    path = colours(text)
    line = text[:text.index(new)].count("\n") + 1
    code, out = cli("qcd", "--no-render")
    found = [ln for ln in out.splitlines() if "error[colour-wheel]" in ln and cue in ln]
    assert code == 1 and found, out
    assert found[0].startswith(f"{display_path(path)}:{line}:"), found
    assert "Fix: give" in found[0]
    # both colours are named, the other with its line: which one was edited is not known
    assert f"'{other}' (line" in found[0], found


@pytest.mark.parametrize("edits, colour, want", [
    # red and green swap letters: each letter is still unique, but each names the other colour
    ((("letter: R,  anti: anti-red", "letter: G,  anti: anti-red"),
      ("letter: G,  anti: anti-green", "letter: R,  anti: anti-green")), "red", "set letter: R on 'red'"),
    # an anti-colour lettered unlike its colour
    ((("letter: R̄, anti: red", "letter: X̄, anti: red"),), "anti-red", "set letter: R̄ on 'anti-red'"),
    # an anti-colour lettered as its colour, without the bar
    ((("letter: B̄,  anti: blue", "letter: Q,  anti: blue"),), "anti-blue", "set letter: B̄ on 'anti-blue'"),
])
def test_a_letter_names_its_own_colour(colours, edits, colour, want):
    """Red lettered G and green lettered R passed: every letter was unique, yet a colour-blind
    player reading G on a red card plays it as green."""
    text = SHIPPED
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    path = colours(text)
    line = text[:text.index(edits[0][1])].count("\n") + 1
    code, out = cli("qcd", "--no-render")
    found = [ln for ln in out.splitlines() if "error[colour-wheel]" in ln and f"'{colour}' has the letter" in ln]
    assert code == 1 and found, out
    assert found[0].startswith(f"{display_path(path)}:{line}:") and want in found[0], found


def test_the_shipped_colours_have_cues_of_their_own(colours):
    colours(SHIPPED)
    code, out = cli("qcd", "particles-in-circle", "--no-render")
    assert code == 0, out


def test_an_accented_initial_is_the_letter_of_its_name(colours):
    """Green renamed 'émeraude' and lettered É (its anti-colour É̄) was refused, the fix asking for
    the very letter written: the name's initial keeps its accent."""
    text = SHIPPED.replace("{id: green,      name: green,      letter: G,", "{id: green,      name: émeraude,   letter: É,", 1)
    text = text.replace("{id: anti-green, name: anti-green, letter: Ḡ,", '{id: anti-green, name: anti-émeraude, letter: "É\\u0304",', 1)
    assert text != SHIPPED and "É\\u0304" in text
    colours(text)
    code, out = cli("qcd", "--no-render")
    assert not [ln for ln in out.splitlines() if "has the letter" in ln], out
