"""Tutti Quantum rules the mutation sweep found unchecked: an expert sub-diagram must be one
connected diagram with the external lines game.yaml states for it (not just a list of valid
vertices), and the cooperative results table must give every score exactly one result.

Each test breaks a copy of the shipped game the way a typo would and runs the real checker on
it: the finding must name the file, line and column of the broken value, say what is wrong and
how to fix it. The unbroken game must check clean."""

from __future__ import annotations

from collections import Counter

import pytest

import cardgen
from cardgen.rules.tutti_scoring import join_diagram

EXPERT = "tables/expert.yaml"
RESULTS = "tables/coop-results.yaml"
#: What game.yaml declares for these rules (added to a copy that lacks it): the external lines
#: of each expert process, and the check of the results table.
EXTERNAL = ("    external:\n      atoms: [e, e, q, q]\n      blue-sky: [e, e, gamma, gamma]\n"
            "      nobel-2004: [q, q, g, g]\n      higgs-discovery: [H, gamma, gamma]\n")
RANGES_CHECK = "  - rule: result-ranges\n    table: coop-results\n"


def value_at(g, rel: str, text: str, value: str) -> tuple[str, int, int]:
    """file, line and column of ``value`` on the first line of the copy's ``rel`` holding ``text``."""
    line = g.line_of(rel, text)
    body = (g.path / rel).read_text(encoding="utf-8").splitlines()[line - 1]
    return str(g.path / rel), line, body.index(value, body.index(text)) + 1


def broken(cli, g, rel: str, old: str, new: str, value: str) -> tuple[str, str]:
    """Replace ``old`` by ``new`` in the copy, run ``cardgen check`` on it (it must fail) and
    return its output and the 'file:line:column' of ``value`` in the new text."""
    g.edit(rel, old, new)
    file, line, col = value_at(g, rel, new, value)
    res = cli("check", str(g.path))
    assert res.returncode == 1, res.stdout + res.stderr
    return res.stdout + res.stderr, f"{file}:{line}:{col}"


def declared(g):
    """The copy, its game.yaml stating the expert processes' external lines and checking the
    results table (each once)."""
    text = (g.path / "game.yaml").read_text(encoding="utf-8")
    for block in (RANGES_CHECK, EXTERNAL):   # each goes right under the sub-diagrams check
        if block not in text:
            g.edit("game.yaml", "    vertices: vertices\n", "    vertices: vertices\n" + block)
    text = (g.path / "game.yaml").read_text(encoding="utf-8")
    assert text.count("rule: result-ranges") == 1 and text.count("higgs-discovery: [H, gamma, gamma]") == 1
    return g


def proof(g, rule: str):
    report = cardgen.check(g.load(), render=False)
    assert report.findings == []
    [found] = [p for p in report.proofs if p.rule == rule]
    return found


# -- the unbroken game ----------------------------------------------------------------------------

def test_the_shipped_game_checks_clean(cli):
    res = cli("check", "tutti-quantum")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "all rules pass" in res.stdout


def test_each_expert_sub_diagram_is_proved_one_diagram_with_its_structure(game_copy):
    p = proof(declared(game_copy("tutti-quantum")), "sub-diagrams")
    assert p.count == 4
    assert ("atoms: 2 vertices joined by 1 internal line (1 gamma), 0 loops, external q, q, e, e" in p.claim)
    assert ("blue-sky: 2 vertices joined by 1 internal line (1 e), 0 loops, external e, e, gamma, gamma"
            in p.claim)
    assert "nobel-2004: 2 vertices joined by 1 internal line (1 g), 0 loops, external q, q, g, g" in p.claim
    assert ("higgs-discovery: 3 vertices joined by 3 internal lines (3 q), 1 loop, external gamma, gamma, H"
            in p.claim)


def test_the_results_table_is_proved_to_give_every_score_one_result(game_copy):
    p = proof(declared(game_copy("tutti-quantum")), "result-ranges")
    assert p.count == 6
    assert p.claim == ("coop-results: its 6 ranges of 'points_from' to 'points_to' give every score exactly one "
                       "result, in order (≥ 39, 35–38, 32–34, 29–31, 26–28, ≤ 25)")


# -- 1. a sub-diagram is one connected diagram -----------------------------------------------------

def test_h_to_two_photons_with_an_electron_vertex_is_not_the_quark_loop(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), EXPERT, "vertices: [qqh, qqa, qqa]",
                     "vertices: [qqh, eea, qqa]", "[")
    assert (f"{at}: error[sub-diagrams]: expert: 'higgs-discovery': vertices qqh, eea, qqa do not join into one "
            f"connected diagram with external lines H, gamma, gamma: the two e ends left to join are both on "
            f"'eea', and a line joins two different vertices. Fix: name the vertices of one process: each internal "
            f"line joins two of them with the same line type, leaving exactly the lines the check's 'external' "
            f"states for it.") in out


def test_an_external_line_no_vertex_has_is_rejected(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), "game.yaml", "blue-sky: [e, e, gamma, gamma]",
                     "blue-sky: [e, e, gamma, H]", "[")
    assert (f"{at}: error[sub-diagrams]: expert: 'blue-sky': vertices eea, eea do not join into one connected "
            f"diagram with external lines e, e, gamma, H: it states 1 external H line, but its vertices have 0 H "
            f"ends.") in out


def test_an_odd_number_of_ends_to_join_is_rejected(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), "game.yaml", "nobel-2004: [q, q, g, g]",
                     "nobel-2004: [q, q, g]", "[")
    assert (f"{at}: error[sub-diagrams]: expert: 'nobel-2004': vertices qqg, ggg do not join into one connected "
            f"diagram with external lines q, q, g: 3 g ends are left to join, an odd number, so one stays loose."
            ) in out


def test_an_external_line_that_is_no_line_type_is_rejected(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), "game.yaml", "higgs-discovery: [H, gamma, gamma]",
                     "higgs-discovery: [H, photon, gamma]", "photon")
    assert (f"{at}: error[sub-diagrams]: expert: the external lines of 'higgs-discovery' name 'photon', which is "
            f"not a line type of 'line-types'. Fix: use one of: q, e, g, gamma, H.") in out


def test_without_external_lines_the_vertices_must_still_link(cli, game_copy):
    g = declared(game_copy("tutti-quantum"))
    g.edit("game.yaml", "      atoms: [e, e, q, q]\n", "")
    out, at = broken(cli, g, EXPERT, "vertices: [eea, qqa]", "vertices: [eea, ggg]", "[")
    assert (f"{at}: error[sub-diagrams]: expert: 'atoms': vertices eea, ggg do not join into one connected "
            f"diagram: no line type links eea with ggg. Fix: name the vertices of one process: each internal "
            f"line joins two of them with the same line type.") in out


def test_external_lines_for_a_row_the_table_lacks_are_an_input_error(cli, game_copy):
    g = declared(game_copy("tutti-quantum"))
    g.edit("game.yaml", "      atoms: [e, e, q, q]", "      atomz: [e, e, q, q]")
    file, line, col = value_at(g, "game.yaml", "atomz:", "atomz")
    res = cli("check", str(g.path))
    assert res.returncode != 0
    assert (f"{file}:{line}:{col}: error[input]: 'external' names 'atomz', which is not a row of 'expert' — did "
            f"you mean 'atoms'?") in res.stdout + res.stderr


@pytest.mark.parametrize("ends, external, inner", [
    # Compton scattering (the blue sky): the electron line is internal
    ([("e", "e", "gamma")] * 2, Counter(["e", "e", "gamma", "gamma"]), Counter(["e"])),
    # Møller scattering from the same two vertices: the photon is internal
    ([("e", "e", "gamma")] * 2, Counter(["e", "e", "e", "e"]), Counter(["gamma"])),
    # a photon's self-energy: an electron loop between two photons
    ([("e", "e", "gamma")] * 2, Counter(["gamma", "gamma"]), Counter(["e", "e"])),
    # H → γγ: a triangle of quark lines
    ([("q", "q", "H"), ("q", "q", "gamma"), ("q", "q", "gamma")], Counter(["H", "gamma", "gamma"]),
     Counter(["q", "q", "q"])),
])
def test_the_joining_follows_the_stated_external_lines(ends, external, inner):
    joints = join_diagram(ends, external)
    assert joints is not None
    assert Counter(t for _, _, t in joints) == inner
    assert all(v != w for v, w, _ in joints)   # no line joins a vertex to itself


@pytest.mark.parametrize("ends, external", [
    ([("q", "q", "H"), ("e", "e", "gamma"), ("q", "q", "gamma")], Counter(["H", "gamma", "gamma"])),
    ([("e", "e", "gamma"), ("g", "g", "g")], None),                    # nothing links them
    ([("g", "g", "g")] * 3, Counter(["g"] * 7)),                       # one line cannot reach three vertices
    ([("H", "H", "H")], Counter(["H"])),                               # two ends of one vertex: a tadpole
])
def test_vertices_that_cannot_make_one_diagram_are_not_joined(ends, external):
    assert join_diagram(ends, external) is None


# -- 2. the results table partitions the scores -----------------------------------------------------

def test_overlapping_results_are_rejected(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), RESULTS, "{id: phd, points_from: 35,",
                     "{id: phd, points_from: 33,", "33")
    assert (f"{at}: error[result-ranges]: coop-results: 'phd' starts at 33 but 'team' runs to 34: scores 33–34 "
            f"read two results. Fix: start 'phd' at 35, one above where 'team' ends (or end 'team' at 32).") in out


def test_a_score_without_a_result_is_rejected(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), RESULTS, "{id: nobel, points_from: 39,",
                     "{id: nobel, points_from: 40,", "40")
    assert (f"{at}: error[result-ranges]: coop-results: 'nobel' starts at 40 but 'phd' ends at 38: score 39 reads "
            f"no result. Fix: start 'nobel' at 39, one above where 'phd' ends (or end 'phd' at 39).") in out


def test_a_closed_top_range_leaves_higher_scores_without_a_result(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), RESULTS, "{id: nobel, points_from: 39,",
                     "{id: nobel, points_from: 39, points_to: 44,", "44")
    assert (f"{at}: error[result-ranges]: coop-results: scores above 44 read no result: the highest range 'nobel' "
            f"ends at 44. Fix: leave out 'points_to' on 'nobel', so it takes every higher score.") in out


def test_an_inverted_range_is_rejected_alone(cli, game_copy):
    out, at = broken(cli, declared(game_copy("tutti-quantum")), RESULTS,
                     "points_from: 26, points_to: 28", "points_from: 28, points_to: 26", "28")
    assert (f"{at}: error[result-ranges]: coop-results: 'study' runs from 28 down to 26, so it holds no score. "
            f"Fix: swap 'points_from' and 'points_to'.") in out
    assert out.count("error[result-ranges]") == 1, out


def test_ranges_out_of_order_are_rejected(cli, game_copy):
    g = declared(game_copy("tutti-quantum"))
    team = next(line for line in (g.path / RESULTS).read_text(encoding="utf-8").splitlines() if "id: team" in line)
    g.edit(RESULTS, team + "\n", "")
    g.edit(RESULTS, "  - {id: careful,", team + "\n  - {id: careful,")
    file, line, col = str(g.path / RESULTS), g.line_of(RESULTS, "id: team"), 5
    res = cli("check", str(g.path))
    assert res.returncode == 1
    out = res.stdout + res.stderr
    assert (f"{file}:{line}:{col}: error[result-ranges]: coop-results: 'team' (32–34) comes after 'study' "
            f"(26–28), against the order of the others. Fix: list the ranges from the highest score to the lowest."
            ) in out
    assert out.count("error[result-ranges]") == 1, out   # the ranges themselves still meet


# -- 3. a sub-diagram's external lines are a process physics allows ----------------------------------

@pytest.mark.parametrize("vertices, external, words", [
    ("[qqh, qqa]", "[H, gamma]", "one particle cannot become a single particle of another mass (a massive one "
     "cannot become one massless particle)"),
    ("[qqh, qqg]", "[H, g]", "colour is conserved: a colourless state cannot become a single colour-charged "
                             "particle (one gluon or one quark), not even through a loop"),
    ("[qqa, qqa, qqa]", "[gamma, gamma, gamma]", "lines of odd charge-conjugation parity altogether (an odd "
                                                 "number of photons"),
    # a photon and two gluons: the quark triangle's colour factor is symmetric, so C forbids it too
    ("[qqg, qqg, qqa]", "[g, g, gamma]", "lines of odd charge-conjugation parity altogether"),
    ("[qqh, qqh, qqa]", "[H, H, gamma]", "lines of odd charge-conjugation parity altogether"),
    ("[qqg, qqg, qqg]", "[g, g, g]", None),   # three gluons through a quark loop: colour lets them meet
    ("[qqh, qqg, qqg]", "[H, g, g]", None),   # H → g g through a quark loop
])
def test_a_sub_diagram_whose_external_lines_are_no_process_is_rejected(cli, game_copy, vertices, external, words):
    g = declared(game_copy("tutti-quantum"))
    g.edit(EXPERT, "vertices: [qqh, qqa, qqa]", f"vertices: {vertices}")
    if words is None:
        g.edit("game.yaml", "higgs-discovery: [H, gamma, gamma]", f"higgs-discovery: {external}")
        assert g.findings() == []
        return
    out, at = broken(cli, g, "game.yaml", "higgs-discovery: [H, gamma, gamma]", f"higgs-discovery: {external}", "[")
    assert (f"{at}: error[sub-diagrams]: expert: 'higgs-discovery': vertices {vertices[1:-1]} join into one "
            f"diagram with external lines {external[1:-1]}, but no process has them: {words}") in out, out


def test_never_meet_reads_the_particles_properties():
    from cardgen.loader import shipped_physics
    from cardgen.rules.standard_model import never_meet

    P = shipped_physics().particles.__getitem__
    assert never_meet((P("Z0"), P("gamma"), P("gamma"))) == "landau-yang"
    assert never_meet((P("Z0"), P("g"), P("g"))) == "landau-yang"
    assert never_meet((P("H"), P("gamma"), P("gamma"))) is None
    assert never_meet((P("H"), P("g"))) == "colour"
    assert never_meet((P("H"), P("gamma"))) == "mass"
    assert never_meet((P("gamma"),) * 3) == "furry"
    assert never_meet((P("gamma"),) * 4) is None
    assert never_meet((P("e-"), P("e-"), P("gamma"))) == "charge"
    assert never_meet((P("mu-"), P("e+"), P("gamma"))) == "lepton_e"
