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


@pytest.mark.parametrize("old, new, cue", [
    ("letter: G,  anti: anti-green", "letter: R,  anti: anti-green", "letter 'R' of 'red'"),
    ('print: "#009E73", pattern: dots', 'print: "#009E73", pattern: stripes', "pattern 'stripes' of 'red'"),
    ('print: "#CC79A7", pattern: rings', 'print: "#d55e00", pattern: rings', "print '#d55e00' of 'red'"),
    ("letter: B̄,  anti: blue", "letter: R̄,  anti: blue", "letter 'R̄' of 'anti-red'"),
])
def test_a_cue_two_colours_share_is_a_finding_at_its_line(colours, old, new, cue):
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


def test_the_shipped_colours_have_cues_of_their_own(colours):
    colours(SHIPPED)
    code, out = cli("qcd", "particles-in-circle", "--no-render")
    assert code == 0, out
