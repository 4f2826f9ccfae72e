"""The levels rule: each level of Particle Builder's levels table names what it brings into play
(``adds``), and every component's and table's ``level:`` agrees with it. A level-5 kit without
the W cards its transformations need, or the decay table handed out at level 2, passed before."""

from __future__ import annotations

import pytest

import cardgen
from cardgen.errors import InputError


def _levels(g) -> list:
    return [f for f in g.findings("levels")]


def test_the_shipped_levels_agree_and_are_proved(game_copy):
    g = game_copy("particle-builder")
    assert _levels(g) == []
    report = cardgen.check(g.load(), render=False)
    [proof] = [p for p in report.proofs if p.rule == "levels"]
    assert "levels 1–7, each once" in proof.claim


@pytest.mark.parametrize("rel, old, new, kind, name, wrote, want", [
    ("components/level5-extra.yaml", "level: 5", "level: 7", "component", "level5-extra", 7, 5),
    ("components/colour-tokens.yaml", "level: 3", "level: 6", "component", "colour-tokens", 6, 3),
    ("tables/decays.yaml", "\nlevel: 7", "\nlevel: 2", "table", "decays", 2, 7),
    ("tables/transformations.yaml", "level: 5", "level: 7", "table", "transformations", 7, 5),
])
def test_a_piece_at_another_level_than_the_one_adding_it_is_a_finding(game_copy, rel, old, new, kind, name,
                                                                      wrote, want):
    g = game_copy("particle-builder")
    g.edit(rel, old, new)
    found = _levels(g)
    assert [f.message for f in found] == [
        f"{kind} '{name}' comes into play at level {wrote}, but the levels table's 'level-{want}' adds it at "
        f"level {want}"], found
    assert found[0].location.line == g.line_of(rel, new.strip()) and found[0].location.file.endswith(rel)
    assert found[0].fix.startswith(f"set level: {want} on '{name}'")


def test_levels_numbered_twice_or_skipped_are_findings(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/levels.yaml", "  - id: level-6\n    level: 6", "  - id: level-6\n    level: 5")
    messages = [f.message for f in _levels(g)]
    assert "levels: 'level-6' is level 5, as 'level-5' is" in messages
    assert "levels: there is no level 6, yet level 7 is" in messages


def test_a_piece_above_level_one_that_no_level_adds_is_a_finding(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/levels.yaml", "adds: [oscillation]", "adds: []")
    [found] = _levels(g)
    assert found.message == "table 'oscillation' comes into play at level 6, but no level of 'levels' adds it"
    assert found.location.file.endswith("tables/oscillation.yaml") and found.location.line == \
        g.line_of("tables/oscillation.yaml", "level: 6")


def test_adding_what_the_game_does_not_have_is_an_input_error(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/levels.yaml", "adds: [oscillation]", "adds: [oscilation]")
    with pytest.raises(InputError, match="adds 'oscilation', which is no component or table"):
        g.findings("levels")


def test_what_a_level_adds_is_not_printed_on_the_rule_sheet(tmp_path):
    from tests.sheettext import open_text

    cardgen.build("particle-builder", cardgen.BuildOptions(out=tmp_path))
    with open_text(tmp_path / "particle-builder/en/rules.pdf") as pdf:
        text = "\n".join(page.extract_text() or "" for page in pdf.pages)
    assert "Levels of play" in text and "colour-tokens" not in text and "level5-extra" not in text


def test_a_level_row_without_its_level_is_a_finding_and_proves_nothing(game_copy):
    g = game_copy("particle-builder")
    g.edit("tables/levels.yaml", "  - id: level-6\n    level: 6\n", "  - id: level-6\n")
    found = _levels(g)
    assert "levels: 'level-6' has no 'level', so what it adds comes in at no level" in [f.message for f in found]
    assert not [p for p in cardgen.check(g.load(), render=False).proofs if p.rule == "levels"]


def test_only_the_tables_the_check_names_are_held_to_the_levels(game_copy):
    """A table with an int field 'level' of another meaning (an atom's energy levels) is not a
    table of play levels unless the check names it in 'levelled'."""
    g = game_copy("particle-builder")
    g.write("tables/atom.yaml", "id: atom\nkind: records\ntitle: Hydrogen levels\nfields:\n  level: {type: int}\n"
            "rows:\n  - {id: n1, level: 1}\n  - {id: n8, level: 8}\n")
    g.edit("game.yaml", "  - tables/levels.yaml\n", "  - tables/levels.yaml\n  - tables/atom.yaml\n")
    assert _levels(g) == []
    g.edit("game.yaml", "levelled: [level-rules]", "levelled: [level-rules, atom]")
    assert [f.message for f in _levels(g)] == ["atom: 'n8' is for level 8, which 'levels' does not have (levels 1–7)"]


def test_a_levelled_table_needs_an_int_level_field(game_copy):
    g = game_copy("particle-builder")
    g.edit("game.yaml", "levelled: [level-rules]", "levelled: [levels-rules]")
    with pytest.raises(InputError, match="unknown table 'levels-rules'"):
        g.findings("levels")
