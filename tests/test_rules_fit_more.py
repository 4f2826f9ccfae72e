"""What the places and tokens of a game must hold, beyond the held deck's own cards.

Each test breaks a copy of a shipped game the way a mutation sweep found the checker blind to
(other decks laid on the mat's places, a duplicated mat place, quarks stacked on one place,
tokens too large for what they lie on) and asserts the finding, with the file and line of the
data to fix. The shipped games themselves must still check clean through the real command."""

from __future__ import annotations

import os

import pytest

import cardgen

PB = "particle-builder"
TQ = "tutti-quantum"


def where(finding) -> tuple[str, int, int]:
    """(the file's last two path parts, line, column) of a finding."""
    loc = finding.location
    return "/".join(loc.file.replace("\\", "/").split("/")[-2:]), loc.line, loc.column


def at(g, rel: str, text: str, column_of: str) -> tuple[str, int, int]:
    """(file, line, column) of ``column_of`` on the first line of a copied file holding ``text``."""
    line = g.line_of(rel, text)
    return rel, line, (g.path / rel).read_text(encoding="utf-8").splitlines()[line - 1].index(column_of) + 1


def found(g, rule: str) -> list[tuple[tuple[str, int, int], str]]:
    return [(where(f), f.message) for f in g.findings(rule)]


# --- 1. other decks laid on a board's places ----------------------------------------------------

@pytest.mark.parametrize("extra, places", [
    ("level5-extra", "place 'gamma' (69 × 94 mm), place 'g' (69 × 94 mm), place 'Z0' (69 × 94 mm), "
                     "place 'W+' (69 × 94 mm), place 'W-' (69 × 94 mm)"),
    ("level7-extra", "place 'W+' (69 × 94 mm), place 'W-' (69 × 94 mm)"),
])
def test_extra_cards_must_fit_the_mat_places_their_particles_go_on(game_copy, extra, places):
    g = game_copy(PB)
    rel = f"components/{extra}.yaml"
    g.edit(rel, "size: {width: 63, height: 88}", "size: {width: 75, height: 100}")
    assert found(g, "places-fit") == [(at(g, rel, "size:", "{"), (
        f"cards of '{extra}' (75 × 100 mm) show particles the places of 'mat' take, but do not fit {places} "
        "with 2 mm to spare on every side"))]
    (finding,) = g.findings("places-fit")
    assert finding.fix == (f"make the cards of '{extra}' at most 65 × 90 mm (the 'particles' cards they join are "
                           "63 × 88 mm), or the places larger")


def test_extra_cards_that_still_fit_pass(game_copy):
    g = game_copy(PB)
    g.edit("components/level7-extra.yaml", "size: {width: 63, height: 88}", "size: {width: 65, height: 90}")
    assert found(g, "places-fit") == []


# --- 2. a place duplicating another ------------------------------------------------------------

def test_a_duplicated_mat_place_is_found(game_copy):
    """Two W⁺ places and none for W⁻: W⁻ hid behind the antiparticle stacking rule."""
    g = game_copy(PB)
    g.edit("components/mat.yaml", "{id: W-,     takes: W-,", "{id: W-,     takes: W+,")
    (finding,) = g.findings("places-cover-deck")
    assert (where(finding), finding.message) == (at(g, "components/mat.yaml", "{id: W-, ", "{"), (
        "place 'W-' of 'mat' takes W⁺, whose cards of 'particles' all have a place already (place 'W+'): "
        "it duplicates it and no card is left for it"))
    assert finding.fix == ("make it take the particle it is meant for (W⁻, of the same kind, has no place of its own), "
                           "or remove it")
    report = cardgen.check(g.load(), render=False)
    assert not any(p.rule == "places-cover-deck" for p in report.proofs)


# --- 3. quarks and leptons are never stacked ----------------------------------------------------

def test_a_pile_of_quarks_breaks_pauli_exclusion(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "  stacking:\n",
           "  stacking:\n    - {stack: pile, category: quark, reason: The spare quarks pile up.}\n")
    assert found(g, "places-cover-deck") == [(at(g, "components/mat.yaml", "{stack: pile", "{"), (
        "a stacking rule of 'mat' piles u, d (half-integer spin) on one place: quarks and leptons are never "
        "stacked, not even on a copy of themselves (Pauli exclusion principle)"))]


def test_a_pile_of_bosons_is_fine(game_copy):
    g = game_copy(PB)
    g.edit("components/mat.yaml", "  stacking:\n",
           "  stacking:\n    - {stack: pile, category: boson, reason: Bosons stack (integer spin).}\n")
    assert found(g, "places-cover-deck") == []


def test_fermions_share_a_place_one_at_a_time_and_bosons_stack():
    report = cardgen.check(cardgen.load_game(PB), render=False)
    choices = [c.subject for c in report.choices if c.rule == "places-cover-deck"]
    assert choices == ["'mat': 12 antiparticles of half-integer spin share their particle's place, one card at a time",
                       "'mat': 4 copies of half-integer spin share their first copy's place, one card at a time",
                       "'mat': 2 copies stack on their first copy's place"]


# --- 5. tokens and what they lie on -------------------------------------------------------------

def test_colour_tokens_must_lie_within_a_quark_card(game_copy):
    g = game_copy(PB)
    rel = "components/colour-tokens.yaml"
    g.edit(rel, "size: {width: 20, height: 20}", "size: {width: 80, height: 80}")
    (finding,) = g.findings("places-fit")
    assert (where(finding), finding.message) == (at(g, rel, "size:", "{"), (
        "'colour-tokens' tokens (80 × 80 mm) name a colour charge and are laid on quark cards ('particles'), "
        "but do not fit within a 63 × 88 mm card of 'particles'"))
    assert finding.fix == "make the tokens at most 63 mm across so one lies within the card it marks"


def test_score_tokens_on_neighbouring_vertices_must_not_overlap(game_copy):
    g = game_copy(TQ)
    rel = "components/score-tokens.yaml"
    g.edit(rel, "size: {width: 25, height: 21.651}", "size: {width: 60, height: 51.96}")
    (finding,) = g.findings("places-fit")
    assert (where(finding), finding.message) == (at(g, rel, "size:", "{"), (
        "'score-tokens' tokens (60 × 51.96 mm, 60 mm across) are laid on vertices, which lie 50 mm apart "
        "(the particle line of a 'particles' card): tokens on neighbouring vertices overlap by 10 mm"))


def test_token_proofs_state_what_was_measured():
    claims = {p.claim for game in (PB, TQ) for p in cardgen.check(cardgen.load_game(game), render=False).proofs
              if p.rule == "places-fit"}
    assert "colour-tokens: 20 × 20 mm tokens lie within the 63 × 88 mm quark cards they mark ('particles')" in claims
    assert ("score-tokens: tokens 25 mm across on vertices 50 mm apart (the particle line of a 'particles' card): "
            "tokens on neighbouring vertices never overlap") in claims


# --- the shipped games ---------------------------------------------------------------------------

def test_the_shipped_games_check_clean(cli):
    result = cli("check", env={**os.environ, "CARDGEN_DAEMON": "off"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "checked 4 game(s): all rules pass" in result.stdout + result.stderr
