"""Tutti Quantum's cards must lay the diagrams its rules score, and a wrong line type is blamed
where it is written.

* Three cards meet at a vertex (a Feynman vertex has three lines) only if the corners where a
  card's line ends are 360°/3 = 120°: square lozenges pass every size check yet meet four at a
  point, so the shape-geometry rule derives the angle from the vertex table.
* A line type whose particles couple differently (a neutrino on the electron line) is reported
  once, at the particle's entry, with why it differs; the correct vertices that follow from it
  are not blamed, and a genuinely wrong vertex still is.
"""

from __future__ import annotations

import cardgen

SQUARE = ("size: {width: 50, height: 86.603}", "size: {width: 70.711, height: 70.711}")
RIGHT_ANGLE = ("shape: {type: lozenge, angle: 120}", "shape: {type: lozenge, angle: 90}")
ELECTRON_ROW = "particles: [e-],  "


def _column(g, rel: str, line: int, text: str) -> int:
    """The 1-based column where ``text`` starts on ``line`` of the copy's file ``rel``."""
    return (g.path / rel).read_text(encoding="utf-8").splitlines()[line - 1].index(text) + 1


def test_square_lozenges_cannot_meet_three_at_a_vertex(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", *SQUARE)
    g.edit("components/particles.yaml", *RIGHT_ANGLE)
    found = g.findings("shape-geometry")
    assert len(found) == 1, found
    f = found[0]
    assert f.location.file.endswith("components/particles.yaml")
    assert (f.location.line, f.location.column) == (g.line_of("components/particles.yaml", "shape:"), 8)
    assert "90° corners, where 4 cards meet (4 × 90° = 360°)" in f.message
    assert "a vertex of 'vertices' joins 3 lines" in f.message and "360°/3 = 120°" in f.message
    assert f.fix.startswith("set angle: 120 and size: {width: 50, height: 86.603}"), f.fix


def test_corners_that_leave_a_gap_are_reported(game_copy):
    """A lozenge consistent with its own box (so the trim-size check passes) whose corners do
    not close a turn at all: 100° corners leave a gap between three cards."""
    g = game_copy("tutti-quantum")
    g.edit("components/particles.yaml", SQUARE[0], "size: {width: 70.711, height: 84.27}")
    g.edit("components/particles.yaml", RIGHT_ANGLE[0], "shape: {type: lozenge, angle: 100}")
    found = g.findings("shape-geometry")
    assert [f.message for f in found] == [
        "the line of a 'particles' card ends at its 100° corners, where 3 cards leave a 60° gap and 4 overlap; but a "
        "vertex of 'vertices' joins 3 lines, and 3 cards meet at a vertex only if those corners are 360°/3 = 120°"]


def test_the_shipped_lozenges_meet_three_at_a_vertex_and_six_in_a_loop():
    report = cardgen.check(cardgen.load_game("tutti-quantum"), render=False)
    claims = [p.claim for p in report.proofs if p.rule == "shape-geometry"]
    assert any("3 'particles' cards meet at each vertex of 'vertices' (3 × 120° = 360°) and 6 close a loop "
               "around their 60° corners" in c for c in claims), claims


def test_a_neutrino_on_the_electron_line_is_blamed_once_where_it_is_written(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("tables/line-types.yaml", ELECTRON_ROW, "particles: [e-, nu_e],")
    found = g.findings()
    assert len(found) == 1, [str(f) for f in found]
    f = found[0]
    line = g.line_of("tables/line-types.yaml", "nu_e")
    assert f.rule == "vertices-derived" and f.location.file.endswith("tables/line-types.yaml")
    assert (f.location.line, f.location.column) == (line, _column(g, "tables/line-types.yaml", line, "nu_e"))
    assert f.message == ("line type 'e' (electron) stands for particles that couple differently: e⁻ meets at "
                         "e-e-gamma, e-e-H, νₑ does not (νₑ has no electric charge, which γ couples to; νₑ has only "
                         "an upper limit on its mass, and H couples to mass)")
    assert f.fix.startswith("take nu_e out of line type 'e'")


def test_the_odd_particle_is_the_one_the_vertex_table_disagrees_with(game_copy):
    """Listed first, the neutrino would name the line; the vertex table lists the electron's
    vertices, so the neutrino is still the odd one, and still no vertex is blamed."""
    g = game_copy("tutti-quantum")
    g.edit("tables/line-types.yaml", ELECTRON_ROW, "particles: [nu_e, e-],")
    found = g.findings()
    assert len(found) == 1, [str(f) for f in found]
    line = g.line_of("tables/line-types.yaml", "nu_e")
    assert (found[0].location.line, found[0].location.column) == (line, _column(g, "tables/line-types.yaml", line,
                                                                               "nu_e"))
    assert found[0].fix.startswith("take nu_e out")


def test_a_wrong_vertex_is_still_blamed_beside_an_odd_line_type(game_copy):
    g = game_copy("tutti-quantum")
    g.edit("tables/line-types.yaml", ELECTRON_ROW, "particles: [e-, nu_e],")
    g.edit("tables/vertices.yaml", "lines: [q, q, g]", "lines: [e, e, g]")
    found = g.findings("vertices-derived")
    messages = [f.message for f in found]
    assert any(m.startswith("line type 'e' (electron) stands for particles that couple differently")
               for m in messages)
    assert "vertex 'qqg' (e-e-g) is not a tree-level Standard Model vertex" in messages
    assert "the Standard Model has the vertex q-q-g but table 'vertices' does not list it" in messages
    assert not any("'eea'" in f.message or "'eeh'" in f.message for f in g.findings()), messages


def test_a_line_standing_for_w_plus_and_w_minus_meets_as_a_pair(game_copy):
    """The Higgs line made to stand for W⁺ and W⁻: each meets γ only with the other, which no
    single odd particle explains. Two ends of one charged boson's line are a particle and its
    antiparticle, so the line type is not blamed; the vertex table is, for lacking γ W⁺ W⁻."""
    g = game_copy("tutti-quantum")
    g.edit("tables/line-types.yaml", "particles: [H],                style: scalar",
           "particles: [W+, W-],            style: boson")
    messages = [f.message for f in g.findings("vertices-derived")]
    assert not [m for m in messages if "drawn together" in m], messages
    assert any(_names_vertex(m, {"gamma", "H"}) and "does not list it" in m for m in messages), messages


def _names_vertex(message: str, lines: set[str]) -> bool:
    """Whether the message names a vertex of exactly these line types (in any order)."""
    return any(set(word.split("-")) == lines for word in message.split() if word.count("-") == 2)


def test_a_charged_boson_line_meets_as_a_particle_and_its_antiparticle(game_copy):
    """A line type W standing for W⁺ and W⁻ was told to split ('whether the lines meet depends on
    which of its particles are drawn together'): like a fermion's, a charged boson's line carries
    its charge, so two of its ends at a vertex are W⁺ and W⁻ — H W⁺ W⁻ and γ W⁺ W⁻ exist, and the
    table must list them."""
    g = game_copy("tutti-quantum")
    g.edit("tables/line-types.yaml", "  - {id: H,", "  - {id: W, name: W boson, particles: [W+, W-], style: boson}\n"
                                                  "  - {id: H,")
    messages = [f.message for f in g.findings("vertices-derived")]
    assert not [m for m in messages if "depends on which of its particles" in m], messages
    assert any(_names_vertex(m, {"H", "W"}) and "does not list it" in m for m in messages), messages
    assert any(_names_vertex(m, {"gamma", "W"}) and "does not list it" in m for m in messages), messages
