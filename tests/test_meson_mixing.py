"""Neutral light mesons PDG writes as mixtures (ω, φ, η, f₂, …): a target naming one must hold
the term that dominates it where its nonet is near ideal mixing (φ(1020) is s s̄, ω(782) is
(u ū + d d̄)/√2), and may hold any term where it is strongly mixed (η, η′).

The package writes all of them as 'x(uU+dD)+y(sS)', so before cardgen declared the mixing
angles a φ of d d̄ passed: each test below inserts a target into a copy of Particle Builder."""

from __future__ import annotations

from cardgen import pdg
from cardgen.rules import meson_mixing

TARGETS = "components/targets.yaml"
#: The shipped row the new targets go before (the last one: hydrogen).
BEFORE = "  - {id: hydrogen,"


def _row(target: str, quarks: str, identity: str) -> str:
    """A meson target row of Particle Builder's format. Its s and s̄ cards are rarer than u and
    d, so a target of them scores 20, above the shipped mesons' 12, as the targets rule's
    harder-scores-more check wants (a finding of that kind would hide the ones tested here)."""
    points = 20 if "s" in quarks.split(", ") else 12
    return (f"{{id: {target}, name: {target} target, hadron: meson, requires: [{quarks}], points: {points}, "
            f"identity: [\"{identity}\"]}}")


def _with_targets(game_copy, *rows: str):
    """A Particle Builder copy with ``rows`` added before the hydrogen target."""
    g = game_copy("particle-builder")
    g.edit(TARGETS, BEFORE, "".join(f"  - {row}\n" for row in rows) + BEFORE)
    return g


def _at_requires(g, row: str) -> tuple[int, int]:
    """Line and column of the row's 'requires' list (its '['), where a finding about it points."""
    line = g.line_of(TARGETS, row)
    text = (g.path / TARGETS).read_text(encoding="utf-8").splitlines()[line - 1]
    return line, text.index("requires: [") + len("requires: ") + 1


def _said(g) -> list[tuple[int, int, str, str]]:
    """Every finding of the copy's check, as (line, column, message, fix), targets.yaml's only."""
    found = g.findings()
    assert all(f.location.file.endswith(TARGETS.split("/")[-1]) for f in found), found
    return [(f.location.line, f.location.column, f.message, f.fix) for f in found]


IDEAL_VECTOR = "ideal mixing of the 1³S₁ nonet: θ = 36.5° vs ideal 35.3°, PDG quark-model review"
SS, UU, DD = "s s\u0305", "u u\u0305", "d d\u0305"


def test_phi_is_s_sbar_and_d_dbar_is_caught_at_its_requires(game_copy):
    right, wrong = _row("phi-s", "s, sbar", "phi(1020)"), _row("phi-d", "d, dbar", "phi(1020)")
    g = _with_targets(game_copy, right, wrong)
    assert _said(g) == [(*_at_requires(g, wrong),
                         f"target 'phi-d' requires {DD} for phi(1020), but phi(1020) is almost pure {SS} "
                         f"({IDEAL_VECTOR}): {DD} makes a state like omega(782), its nonet partner",
                         f"require {SS} for phi(1020), or name omega(782) for these cards")]


def test_omega_is_u_ubar_or_d_dbar_and_s_sbar_is_caught(game_copy):
    rows = (_row("omega-u", "u, ubar", "omega(782)"), _row("omega-d", "d, dbar", "omega(782)"),
            _row("omega-s", "s, sbar", "omega(782)"))
    g = _with_targets(game_copy, *rows)
    assert _said(g) == [(*_at_requires(g, rows[2]),
                         f"target 'omega-s' requires {SS} for omega(782), but omega(782) is almost pure "
                         f"({UU} + {DD})/√2 ({IDEAL_VECTOR}): {SS} makes a state like phi(1020), its nonet partner",
                         f"require {UU} or {DD} for omega(782), or name phi(1020) for these cards")]


def test_the_tensor_nonet_is_near_ideal_too(game_copy):
    right, wrong = _row("f2p-s", "s, sbar", "f(2)'(1525)"), _row("f2p-u", "u, ubar", "f(2)'(1525)")
    g = _with_targets(game_copy, right, wrong)
    assert _said(g) == [(*_at_requires(g, wrong),
                         f"target 'f2p-u' requires {UU} for f(2)'(1525), but f(2)'(1525) is almost pure {SS} "
                         f"(ideal mixing of the 1³P₂ nonet: θ = 28.0° vs ideal 35.3°, PDG quark-model review): "
                         f"{UU} makes a state like f(2)(1270), its nonet partner",
                         f"require {SS} for f(2)'(1525), or name f(2)(1270) for these cards")]


def test_eta_and_eta_prime_take_any_term_where_phi_does_not(game_copy):
    """η and η′ are strongly mixed (θ_P = −24.5°, far from ideal): u ū and s s̄ both make each.
    The φ of d d̄ beside them shows the same check tells a near-ideal nonet apart."""
    mixed = (_row("eta-u", "u, ubar", "eta"), _row("eta-s", "s, sbar", "eta"),
             _row("etap-d", "d, dbar", "eta'(958)"), _row("etap-s", "s, sbar", "eta'(958)"))
    phi = _row("phi-d", "d, dbar", "phi(1020)")
    g = _with_targets(game_copy, *mixed, phi)
    assert [(line, column) for line, column, _, _ in _said(g)] == [_at_requires(g, phi)]


def test_a_neutral_pion_of_s_sbar_is_still_caught_in_its_own_words(game_copy):
    """π⁰ is an equal mixture of u ū and d d̄ with no s s̄ term at all: PDG's content says so,
    and the mixing reason is kept for the ω of s s̄ beside it."""
    pion, omega = _row("pi-zero", "s, sbar", "pi0"), _row("omega-s", "s, sbar", "omega(782)")
    g = _with_targets(game_copy, pion, omega)
    said = _said(g)
    assert [(line, column, fix) for line, column, _, fix in said] == [
        (*_at_requires(g, pion), f"require {UU} or {DD}"),
        (*_at_requires(g, omega), f"require {UU} or {DD} for omega(782), or name phi(1020) for these cards")]
    assert said[0][2].startswith(f"target 'pi-zero' requires {SS} for pi0 but PDG's pi0 is {UU} or {DD} ")


def test_only_the_near_ideal_nonets_declare_a_dominant_term():
    """Each mixture the package writes is decided: the ω/φ, f₂/f₂′ and ω₃/φ₃ pairs have a
    dominant term, the s s̄ one the heavier; every other isoscalar (η, η′ included) none."""
    mixtures = [p for p in pdg.particles() if len(pdg.contents(p)) > 1]
    declared = {p.name: meson_mixing.dominant(p).text for p in mixtures if meson_mixing.dominant(p)}
    nn = f"({UU} + {DD})/√2"
    assert declared == {"omega(782)": nn, "phi(1020)": SS, "f(2)(1270)": nn, "f(2)'(1525)": SS,
                        "omega(3)(1670)": nn, "phi(3)(1850)": SS}
    assert meson_mixing.nonet_term(pdg.lookup("eta")) in meson_mixing.MIXING_ANGLES
    assert meson_mixing.dominant(pdg.lookup("eta")) is None
