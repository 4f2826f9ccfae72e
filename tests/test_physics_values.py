"""`cardgen check` proves every printed physical value and every target's identity.

Each test breaks a copy of the shipped data the way a typo would — a mass ×10, a spin of ½ on
the photon, a proton of u d d, an up quark at 500 MeV — and asserts that the command a user runs
rejects it with exit 1 and the exact finding at the file:line:column of the broken value.
Physics values live in the install's data/particles.yaml, so those tests run the command on a
copy of the product whose particles.yaml is broken.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from particle import Particle

import cardgen
from cardgen import loader
from cardgen.check import check, check_records
from cardgen.cli import main
from cardgen.errors import InputError
from tests.conftest import GAMES, ROOT, run_cli

PARTICLES_YAML = ROOT / "data" / "particles.yaml"
SHIPPED = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")


# --- helpers -------------------------------------------------------------------------------

def particle_block(text: str, pid: str) -> tuple[int, int]:
    """(first, end) line indexes of one particle's entry in particles.yaml."""
    lines = text.splitlines()
    first = lines.index(f"  - id: {pid}")
    end = next((i for i in range(first + 1, len(lines)) if lines[i].startswith("  - id: ")), len(lines))
    return first, end


def mutate_particle(text: str, pid: str, key: str, old: str, new: str) -> tuple[str, int, int]:
    """Replace ``old`` by ``new`` on the ``key:`` line of particle ``pid``; returns the new text
    and the 1-based line and column of the value ``new`` writes (its ``value:``, else what
    follows its last ``key: ``): where the checker must point."""
    lines = text.splitlines()
    first, end = particle_block(text, pid)
    i = next(i for i in range(first, end) if lines[i].startswith(f"    {key}:"))
    column = lines[i].index(old)
    lines[i] = lines[i][:column] + new + lines[i][column + len(old):]
    inner = new.index("value: ") + 7 if "value: " in new else new.rindex(": ") + 2 if ": " in new else 0
    return "\n".join(lines) + "\n", i + 1, column + inner + 1


def product_copy(base: Path) -> Path:
    """A copy of the product whose data/particles.yaml can be broken: the package and the data
    files are copied (the package finds its data next to itself), fonts, games and templates
    linked."""
    root = base / "product"
    shutil.copytree(ROOT / "cardgen", root / "cardgen", ignore=shutil.ignore_patterns("fonts", "__pycache__"))
    (root / "cardgen" / "fonts").symlink_to(ROOT / "cardgen" / "fonts")
    (root / "data").mkdir()
    for name in ("particles.yaml", "colours.yaml"):
        shutil.copy(ROOT / "data" / name, root / "data" / name)
    for name in ("games", "locale"):
        (root / "data" / name).symlink_to(ROOT / "data" / name)
    (root / "templates").symlink_to(ROOT / "templates")
    return root


@pytest.fixture
def broken_physics(tmp_path, monkeypatch):
    """In-process: point the loader at a data folder whose particles.yaml (or ``name``, the
    other shared file) is ``text``."""
    def use(text: str, name: str = "particles.yaml") -> Path:
        data = tmp_path / "data"
        data.mkdir(exist_ok=True)
        for shared in ("particles.yaml", "colours.yaml"):
            shutil.copy(ROOT / "data" / shared, data / shared)
        (data / name).write_text(text, encoding="utf-8")
        monkeypatch.setattr(loader, "DATA_DIR", data)
        loader._physics.cache_clear()
        return data / name
    yield use
    loader._physics.cache_clear()


def test_a_process_that_lives_on_reads_the_physics_again_when_it_changes(broken_physics):
    """cardgen serve, the daemon and programs keep their process: an edit of particles.yaml
    is seen by the next load, and an unchanged file is not parsed again."""
    shipped = (ROOT / "data" / "particles.yaml").read_text(encoding="utf-8")
    path = broken_physics(shipped)
    first = loader.shipped_physics()
    assert loader.shipped_physics() is first
    assert first.particles["mu-"].name == "muon"
    path.write_text(shipped.replace("name: muon\n", "name: heavy electron\n", 1), encoding="utf-8")
    assert loader.shipped_physics().particles["mu-"].name == "heavy electron"
    path.write_text(shipped.replace("name: muon\n", "name: muon:\n  - broken\n", 1), encoding="utf-8")
    with pytest.raises(InputError):
        loader.shipped_physics()
    path.write_text(shipped, encoding="utf-8")
    assert loader.shipped_physics() is first   # the same bytes again: the copy kept


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args])
    return result.exit_code, result.output


def game_copy_at(tmp_path: Path, game: str, rel: str, old: str, new: str) -> tuple[Path, int, int]:
    """A copy of a shipped game with ``old`` replaced by ``new`` once in ``rel``; returns the
    game folder and the 1-based line and column of ``new``."""
    path = tmp_path / "games" / game
    shutil.copytree(GAMES / game, path)
    f = path / rel
    text = f.read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    at = text.index(old)
    f.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = text.count("\n", 0, at) + 1
    return path, line, at - text.rfind("\n", 0, at)


# --- PDG values: the four mutations the checker used to pass --------------------------------

LISTED = [
    ("e-", "mass", "value: 0.5110", "value: 5.110",
     "electron (e-) prints mass 5.11 MeV/c² but PDG 2026 gives 0.51099895069 ± 1.6e-10 MeV/c² "
     "(0.511 MeV/c² at the precision printed). Fix: write value: 0.5110 (PDG's mass in MeV)."),
    ("t", "mass", "value: 172.6", "value: 17.26",
     "top quark (t) prints mass 17.3 GeV/c² but PDG 2026 gives 172.6 ± 0.27 GeV/c² "
     "(173 GeV/c² at the precision printed). Fix: write value: 172.6 (PDG's mass in GeV)."),
    ("mu-", "lifetime", "value: 0.000002197", "value: 0.002197",
     "muon (mu-) prints lifetime 2.20 × 10⁻³ s but PDG 2026 gives 2.1969811749e-06 ± 2.2e-12 s "
     "(2.20 × 10⁻⁶ s at the precision printed). Fix: write value: 2.197e-6 (PDG's lifetime in s)."),
    ("gamma", "spin", "1", "1/2", "photon (gamma) prints spin 1/2 but PDG 2026 gives 1 (exact). Fix: write spin: 1."),
]


@pytest.mark.parametrize("pid, key, old, new, message", LISTED, ids=[f"{m[0]}-{m[1]}" for m in LISTED])
def test_cardgen_check_of_a_product_with_a_broken_value_fails(tmp_path, pid, key, old, new, message):
    """The command a user runs, on an install whose particles.yaml is broken."""
    root = product_copy(tmp_path)
    text, line, column = mutate_particle(PARTICLES_YAML.read_text(encoding="utf-8"), pid, key, old, new)
    (root / "data" / "particles.yaml").write_text(text, encoding="utf-8")
    done = run_cli("check", "particle-builder", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"data/particles.yaml:{line}:{column}: error[pdg-values]: {message}" in done.stdout.splitlines()


# --- PDG values: other mutations of the same kinds ------------------------------------------

OTHERS = [
    ("tau-", "mass", "value: 1.777", "value: 1.877", "tau (tau-) prints mass 1.88 GeV/c² but PDG 2026 gives"),
    ("W+", "mass", "value: 80.36", "value: 80.46", "W⁺ boson (W+) prints mass 80.5 GeV/c² but PDG 2026 gives"),
    ("H", "mass", "value: 125.1", "value: 152.1", "Higgs boson (H) prints mass 152 GeV/c² but PDG 2026 gives"),
    ("c", "mass", "unit: GeV", "unit: MeV", "charm quark (c) prints mass 1.27 MeV/c² but PDG 2026 gives"),
    ("gamma", "mass", "value: 0", "value: 1", "photon (gamma) prints mass 1 eV/c² but PDG 2026 gives 0"),
    ("Z0", "lifetime", "value: 2.638e-25", "value: 2.638e-24",
     "Z boson (Z0) prints lifetime 2.64 × 10⁻²⁴ s but PDG 2026 gives"),
    ("tau+", "lifetime", "{value: 0.0000000000002903, unit: s}", "stable",
     "antitau (tau+) prints lifetime stable but PDG 2026 gives 2.90344930283e-13 s"),
    ("e-", "lifetime", "stable", "{value: 1, unit: s}", "electron (e-) prints lifetime 1 s but PDG 2026 gives stable"),
    ("W-", "lifetime", "width: {value: 2.14", "width: {value: 2.41",
     "W⁻ boson (W-) gives its lifetime from a width of 2.41 GeV but PDG 2026 gives 2.14 ± 0.05 GeV"),
    ("H", "lifetime", "value: 2.194e-22", "value: 2.914e-22", "Higgs boson (H) prints lifetime 2.91 × 10⁻²² s but"),
    ("d", "charge", "-1/3", "2/3", "down quark (d) prints charge +2/3 but PDG 2026 gives −1/3 (exact)"),
    ("nubar_mu", "charge", "0", "-1", "muon antineutrino (nubar_mu) prints charge −1 but PDG 2026 gives 0 (exact)"),
    ("W+", "spin", "1", "0", "W⁺ boson (W+) prints spin 0 but PDG 2026 gives 1 (exact)"),
    ("H", "spin", "0", "1", "Higgs boson (H) prints spin 1 but PDG 2026 gives 0 (exact)"),
    ("tau-", "spin", "1/2", "3/2", "tau (tau-) prints spin 3/2 but PDG 2026 gives 1/2 (exact)"),
    ("u", "mass", "plus: 0.070", "plus: 0.090", "up quark (u) gives its mass a 'plus' uncertainty of 0.090 MeV but PDG"),
    # choices that still name a PDG quantity are verified
    ("s", "lifetime", "proxy_pdg_id: 321", "proxy_pdg_id: 411",
     "stand-in hadron D+ (411) for the lifetime of strange quark does not contain a s quark"),
    ("b", "lifetime", "value: 1.637e-12", "value: 1.537e-12",
     "bottom quark (b) prints lifetime 1.54 × 10⁻¹² s, declared as that of B+, but PDG 2026 gives B+"),
    ("nu_tau", "mass", "upper_limit: 0.8", "value: 0.8",
     "tau neutrino (nu_tau) prints the mass 0.8 eV/c² as a value but PDG 2026 knows only limits on it"),
]


@pytest.mark.parametrize("pid, key, old, new, start", OTHERS, ids=[f"{m[0]}-{m[1]}-{m[3]}" for m in OTHERS])
def test_any_printed_value_off_pdg_is_a_finding_at_its_line(broken_physics, pid, key, old, new, start):
    text, line, column = mutate_particle(PARTICLES_YAML.read_text(encoding="utf-8"), pid, key, old, new)
    path = broken_physics(text)
    code, out = cli("particle-builder")
    assert code == 1, out
    found = [ln for ln in out.splitlines() if "error[pdg-values]" in ln]
    here = [ln for ln in found if ln.startswith(f"{cardgen.errors.display_path(path)}:{line}:")]
    assert any(start in ln for ln in here), found
    if not new.startswith(("proxy_pdg_id", "unit")):  # those break the value beside them
        assert any(ln.startswith(f"{cardgen.errors.display_path(path)}:{line}:{column}:") for ln in here), here


def test_a_value_pdg_does_not_give_must_be_declared(broken_physics):
    """Removing the design declaration of a neutrino bound makes it an undeclared non-PDG value."""
    text = PARTICLES_YAML.read_text(encoding="utf-8")
    first, end = particle_block(text, "nu_e")
    lines = text.splitlines()
    i = next(i for i in range(first, end) if lines[i].startswith("    mass:"))
    lines[i] = "    mass: {upper_limit: 0.8, unit: eV}"
    path = broken_physics("\n".join(lines) + "\n")
    code, out = cli("particle-builder")
    assert code == 1
    assert (f"{cardgen.errors.display_path(path)}:{i + 1}:25: error[pdg-values]: electron neutrino (nu_e) prints a "
            f"mass of < 0.8 eV/c² but PDG 2026 gives no mass, only limits. Fix: declare the value a design choice "
            f"with its reason: design: {{reason: ...}}.") in out.splitlines()


@pytest.mark.parametrize("old, new, message", [
    ('design: {reason: "PDG gives no neutrino mass', 'note: {reason: "PDG gives no neutrino mass',
     "'note' is not read here: a value that deliberately differs from PDG is declared as a design choice"),
    ('design: {reason: "PDG gives no lifetime for a confined quark; cardgen prints the mean lifetime of the lightest '
     'charged hadron carrying it (K±)"}', 'design: because', "a design choice must say why, found text ('because')"),
    ('design: {reason: "PDG gives no lifetime for a confined quark; cardgen prints the mean lifetime of the lightest '
     'charged hadron carrying it (K±)"}', 'design: {reason: " "}', "the reason of a design choice is empty"),
    (', design: {reason: "PDG gives no lifetime for a confined quark; cardgen prints the mean lifetime of the '
     'lightest charged hadron carrying it (K±)"}', '', "a stand-in hadron's lifetime is a design choice and needs its reason"),
])
def test_misused_design_declarations_are_clear_input_errors(broken_physics, old, new, message):
    text = PARTICLES_YAML.read_text(encoding="utf-8")
    assert old in text
    broken = text.replace(old, new, 1)
    line = broken[:broken.index(new or "proxy_pdg_id: 321")].count("\n") + 1
    path = broken_physics(broken)
    code, out = cli("particle-builder")
    assert code == 2, out
    assert f"{cardgen.errors.display_path(path)}:{line}:" in out and message in out, out
    assert "Traceback" not in out


# --- PDG values: what the report proves and lists ---------------------------------------------

def expected_counts(game: str, component: str) -> tuple[int, int, int, int]:
    """(cards, distinct particles, printed values, declared choices) computed from the YAML
    itself: cards of the component (with copies and matrices), the particles on them, four
    printed quantities each, and the particles' masses and lifetimes marked ``design:``."""
    doc = yaml.safe_load((GAMES / game / "components" / f"{component}.yaml").read_text(encoding="utf-8"))
    particles: dict[str, None] = {}
    cards = 0
    for entry in doc["cards"]:
        combos = 1
        for values in (entry.get("matrix") or {}).values():
            combos *= len(values)
        ids = (entry.get("matrix") or {}).get("particle") or [entry["particle"]]
        particles.update(dict.fromkeys(ids))
        cards += combos * entry.get("count", 1)
    data = {p["id"]: p for p in yaml.safe_load(PARTICLES_YAML.read_text(encoding="utf-8"))["particles"]}
    choices = sum(1 for pid in particles for key in ("mass", "lifetime")
                  if isinstance(data[pid][key], dict) and "design" in data[pid][key])
    return cards, len(particles), 4 * len(particles), choices


def test_the_proof_counts_every_printed_value_and_lists_every_choice():
    report = check(cardgen.load_game("particle-builder"))
    cards, n, values, choices = expected_counts("particle-builder", "particles")
    proof = next(p for p in report.proofs if p.rule == "pdg-values" and p.claim.startswith("particles:"))
    assert proof.count == values == 120
    assert proof.claim.startswith(
        f"particles: {cards} cards print {values} values (charge, spin, mass, lifetime of {n} particles); "
        f"{values - choices} equal PDG 2026 at printed precision; {choices} are declared design choices")
    listed = [c for c in report.choices if c.rule == "pdg-values"]
    assert len(listed) == choices == 16
    assert {c.subject for c in listed} >= {"lifetime of up quark (u) printed stable",
                                           "lifetime of strange quark (s) printed 1.24 × 10⁻⁸ s",
                                           "mass of electron neutrino (nu_e) printed < 0.8 eV/c²"}
    assert all(c.reason and c.location.file.endswith("particles.yaml") for c in listed)


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_games_check_clean(game):
    code, out = cli(game)
    assert code == 0, out
    assert out.strip().startswith("checked 1 game(s): all rules pass")


@pytest.mark.parametrize("game", ["tutti-quantum", "particles-in-circle", "qcd"])
def test_games_printing_no_particle_values_say_so(game):
    """Their templates print names, colours and energies, no mass, lifetime, charge or spin."""
    proofs = [p for p in check(cardgen.load_game(game)).proofs if p.rule == "pdg-values"]
    assert [(p.count, p.claim) for p in proofs] == [
        (0, "no card prints a particle's charge, spin, mass or lifetime: nothing to compare with PDG 2026")]


def test_a_template_that_starts_printing_a_mass_is_checked(tmp_path, broken_physics):
    """What is compared follows the templates: Particles in Circle printing a mass gets it checked."""
    path, _, _ = game_copy_at(tmp_path, "particles-in-circle", "components/cards.yaml", "id: cards", "id: cards")
    shutil.copytree(ROOT / "templates" / "particles-in-circle", path / "templates")
    front = path / "templates" / "card-front.svg.j2"
    front.write_text(front.read_text(encoding="utf-8").replace("{% endblock %}", "<text>{{ p.mass|mass }}</text>"
                                                                "{% endblock %}"), encoding="utf-8")
    text, line, column = mutate_particle(PARTICLES_YAML.read_text(encoding="utf-8"), "s", "mass", "value: 92.90",
                                         "value: 9.290")
    broken_physics(text)
    code, out = cli(str(path))
    assert code == 1
    assert f":{line}:{column}: error[pdg-values]: strange quark (s) prints mass 9.29 MeV/c²" in out


# --- hadron identity of targets ----------------------------------------------------------------

TARGETS = GAMES / "particle-builder" / "components" / "targets.yaml"


def test_a_proton_of_u_d_d_is_rejected_at_its_requires_line(tmp_path):
    path, line, column = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml",
                                      "requires: [u, u, d],      points: 10", "requires: [u, d, d],      points: 10")
    done = run_cli("check", str(path))
    assert done.returncode == 1
    where = f"{cardgen.errors.display_path(path / 'components' / 'targets.yaml')}:{line}:{column + 10}"
    assert (f"{where}: error[targets]: target 'proton' requires u d d for p but PDG's p is u u d (charge +1, "
            f"baryon number 1); these cards give charge 0, baryon number 1. Fix: require u u d.") in done.stdout


def shipped_targets() -> list[dict]:
    return yaml.safe_load(TARGETS.read_text(encoding="utf-8"))["cards"]


SWAP = {"u": "c", "d": "s", "s": "d", "c": "u", "ubar": "cbar", "dbar": "sbar", "sbar": "dbar", "cbar": "ubar"}


@pytest.mark.parametrize("target", shipped_targets(), ids=lambda t: t["id"])
def test_every_target_with_a_wrong_flavour_is_rejected_naming_pdgs_content(tmp_path, target):
    """Change one quark of each target to another flavour of the same charge class: charge
    stays whole for most, only PDG's quark content can tell."""
    requires = target["requires"]
    i = next(i for i, q in enumerate(requires) if q in SWAP)
    wrong = [SWAP[q] if j == i else q for j, q in enumerate(requires)]
    old, new = f"{{id: {target['id']},", f"{{id: {target['id']},"
    path, line, _ = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml", old, new)
    f = path / "components" / "targets.yaml"
    lines = f.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = lines[line - 1].replace(f"requires: [{', '.join(requires)}]", f"requires: [{', '.join(wrong)}]")
    f.write_text("\n".join(lines) + "\n", encoding="utf-8")
    column = lines[line - 1].index("requires: [") + len("requires: ") + 1
    code, out = cli(str(path))
    assert code == 1
    mine = [ln for ln in out.splitlines() if f"targets.yaml:{line}:{column}: error[targets]: target '{target['id']}' "
            f"requires" in ln and "but PDG's" in ln]
    assert len(mine) == 1, out
    pdg_quarks = Particle.from_name(target["identity"][0]).quarks  # 'uud', 'uD' (upper case = antiquark)
    fix = mine[0].split("Fix: require ")[1].rstrip(".").split()
    assert Counter(fix) == Counter(q if q.islower() else q.lower() + "\u0305" for q in pdg_quarks), mine[0]


@pytest.mark.parametrize("old, new, message", [
    ("requires: [u, u, d, e-]", "requires: [u, u, d, mu-]",
     "target 'hydrogen' requires μ⁻ for e- but PDG's e- is one fundamental particle (PDG id 11)"),
    ("requires: [d, sbar]", "requires: [d, s]",
     "target 'k-zero' requires d s for K0 but PDG's K0 is d s\u0305 (charge 0, baryon number 0, strangeness +1); "
     "these cards give charge -2/3, baryon number 2/3, strangeness -1"),
    ("requires: [d, ubar]", "requires: [u, dbar]",
     "target 'pi-minus' requires u d\u0305 for pi- but PDG's pi- is d u\u0305 (charge -1, baryon number 0)"),
    ('requires: [u, u, d],      points: 10, description: "Found in every atomic nucleus.", identity: [p]',
     'requires: [u, u, d],      points: 10, description: "Found in every atomic nucleus.", identity: [D2]',
     "target 'proton' requires u u d for D2 but PDG's D2 is u u u d d d (charge +1, baryon number 2); "
     "these cards give charge +1, baryon number 1"),
])
def test_identity_findings_name_pdgs_content(tmp_path, old, new, message):
    path, line, column = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml", old, new)
    code, out = cli(str(path))
    assert code == 1
    assert any(f":{line}:{column + 10}: error[targets]: {message}" in ln for ln in out.splitlines()), out


def test_a_hadron_pdg_gives_no_content_for_is_said_so_in_words(tmp_path):
    """f0(500)'s PDG listing has no quark content ('Maybe non-qQ'): the finding says that in
    words, and never offers the listing's text as cards to require."""
    path, line, _column = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml", "identity: [K0]",
                                       "identity: ['f(0)(500)']")
    code, out = cli(str(path), "--no-render")
    assert code == 1
    assert ("error[targets]: target 'k-zero' names f(0)(500), for which PDG gives no definite quark content (its "
            "listing says 'Maybe non-qQ'), so no cards can be shown to make it. Fix: name a hadron whose quark "
            "content PDG gives (p, n, pi+, K0, Lambda, …).") in out
    assert "require Maybe" not in out


def test_a_target_naming_a_fundamental_particle_is_not_told_it_is_an_atom(tmp_path):
    path, line, column = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml", "identity: [K0]",
                                      "identity: [gamma]")
    code, out = cli(str(path), "--no-render")
    assert code == 1
    assert (f":{line}:{column + 10}: error[targets]: target 'k-zero' is a meson but names gamma, a fundamental "
            f"particle: no hadron or atom. Fix: name in 'identity' the hadron or the atom's parts it is.") in out
    assert "makes an atom" not in out and "set hadron: atom" not in out


def test_cards_split_wrongly_among_an_atoms_parts_point_at_the_shares(tmp_path):
    path, line, column = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml", "shares: [3, 1]",
                                      "shares: [2, 2]")
    code, out = cli(str(path), "--no-render")
    assert code == 1
    found = [ln for ln in out.splitlines() if "error[targets]" in ln]
    assert len(found) == 2 and all(f":{line}:{column + 8}: " in ln and ln.endswith(
        "Fix: set shares: [3, 1]: PDG's p + e- take that many of its cards each.") for ln in found), out


def test_the_kind_printed_must_be_the_one_pdg_implies(tmp_path):
    path, line, column = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml",
                                      "hadron: baryon, requires: [u, d, s]", "hadron: meson,  requires: [u, d, s]")
    code, out = cli(str(path))
    assert code == 1
    assert (f":{line}:{column + 8}: error[targets]: target 'lambda' is a meson but Lambda makes a baryon. "
            f"Fix: set hadron: baryon.") in out


@pytest.mark.parametrize("old, new, message", [
    ("identity: [K0]", "identity: [Kzero]", "target 'k-zero' names 'Kzero', which is no particle PDG knows"),
    ("identity: [p, e-], shares: [3, 1]", "identity: [p, e-]",
     "target 'hydrogen' has 2 parts but does not say which required cards belong to which"),
    ("shares: [3, 1]", "shares: [3, 2]", "target 'hydrogen': 'shares' [3, 2] must give each of its 2 parts a share"),
])
def test_bad_identity_declarations_are_input_errors(tmp_path, old, new, message):
    path, line, _ = game_copy_at(tmp_path, "particle-builder", "components/targets.yaml", old, new)
    code, out = cli(str(path))
    assert code == 2 and f"targets.yaml:{line}:" in out and message in out, out


def test_every_shipped_target_is_its_pdg_particle():
    """The proof counts one part per named particle, computed here from the YAML."""
    parts = sum(len(t.get("identity") or []) for t in shipped_targets())
    proof = next(p for p in check(cardgen.load_game("particle-builder")).proofs if p.rule == "targets")
    assert proof.count == parts == 11
    assert proof.claim == ("targets: 10 targets name their particles; 11 parts have PDG 2026's quark content, charge, "
                           "baryon number, strangeness, charm, bottomness and topness")


# --- QCD energies ---------------------------------------------------------------------------

FLAVOURS = "tables/flavours.yaml"


def test_an_up_quark_at_500_mev_is_rejected(tmp_path):
    old = "energy_mev: 300,  rulebook_mev: 300}\n  - {id: down"
    path, line, column = game_copy_at(tmp_path, "qcd", FLAVOURS, old, old.replace("energy_mev: 300", "energy_mev: 500"))
    done = run_cli("check", str(path))
    assert done.returncode == 1
    where = f"{cardgen.errors.display_path(path / FLAVOURS)}:{line}:{column + 12}"
    assert done.stdout.splitlines()[:3] == [
        f"{where}: error[flavour-energies]: Up prints 500 MeV but the rulebook gives 300 MeV. Fix: print 300 MeV or "
        f"declare the deviation with its reason in 'deviation'.",
        f"{where}: error[flavour-energies]: down quark (300 MeV) must carry at least as much energy as up quark "
        f"(500 MeV): PDG 2026 gives them 4.7 MeV and 2.16 MeV (an isospin doublet: equal allowed). Fix: order the "
        f"energies as PDG orders the masses.",
        f"{where}: error[flavour-energies]: strange quark (500 MeV) must carry more energy than up quark (500 MeV): "
        f"PDG 2026 gives them 92.9 MeV and 2.16 MeV. Fix: order the energies as PDG orders the masses."]


@pytest.mark.parametrize("row, energy, expect", [
    ("down", 200, "down quark (200 MeV) must carry at least as much energy as up quark (300 MeV)"),
    ("strange", 200, "strange quark (200 MeV) must carry more energy than down quark (300 MeV)"),
    ("strange", 300, "strange quark (300 MeV) must carry more energy than down quark (300 MeV)"),
    ("charm", 1200, "Charm (c) prints 1200 MeV, less than its PDG 2026 mass of 1273 MeV"),
    ("up", 1, "Up (u) prints 1 MeV, less than its PDG 2026 mass of 2.16 MeV"),
])
def test_energies_off_physics_are_rejected_even_when_the_rulebook_value_moves_too(tmp_path, row, energy, expect):
    """The rulebook value is changed along with the energy, so only the physics rules can object."""
    text = (GAMES / "qcd" / FLAVOURS).read_text(encoding="utf-8")
    old = next(ln for ln in text.splitlines() if ln.startswith(f"  - {{id: {row},"))
    value = re.search(r"energy_mev: (\d+),\s+rulebook_mev: \d+", old)
    new = old[:value.start()] + f"energy_mev: {energy}, rulebook_mev: {energy}" + old[value.end():]
    path, line, column = game_copy_at(tmp_path, "qcd", FLAVOURS, old, new)
    column += value.start()
    code, out = cli(str(path))
    assert code == 1
    assert f"flavours.yaml:{line}:{column + 12}: error[flavour-energies]: {expect}" in out, out


def test_a_card_prints_the_first_row_naming_its_quark(tmp_path):
    """Split the anti-up into its own row at another energy: the anti-up cards would print it."""
    old = "particles: [u, ubar], energy_mev: 300,  rulebook_mev: 300}"
    path, line, _ = game_copy_at(tmp_path, "qcd", FLAVOURS, old, "particles: [u], energy_mev: 300,  rulebook_mev: 300}\n"
                                 "  - {id: antiup, name: Anti-up, particles: [ubar], energy_mev: 350}")
    code, out = cli(str(path))
    assert code == 1
    column = (path / FLAVOURS).read_text(encoding="utf-8").splitlines()[line].index("energy_mev: 350") + 13
    assert (f"flavours.yaml:{line + 1}:{column}: error[flavour-energies]: anti-up quark prints 350 MeV but up quark prints "
            f"300 MeV: a quark and its antiquark have the same mass. Fix: give ubar 300 MeV.") in out


def test_every_flavour_on_a_card_has_an_energy(tmp_path):
    path, _, _ = game_copy_at(tmp_path, "qcd", FLAVOURS, "  - {id: charm,", "  - {id: charm, ")
    f = path / FLAVOURS
    f.write_text("\n".join(ln for ln in f.read_text(encoding="utf-8").splitlines() if "id: charm" not in ln) + "\n")
    code, out = cli(str(path))
    assert code == 1
    missing = [ln for ln in out.splitlines() if "no row of table 'flavours' gives its energy" in ln]
    assert len(missing) == 6 and all("cards.yaml:" in ln for ln in missing)


def test_a_declared_deviation_from_the_rulebook_is_a_choice(tmp_path):
    old = "energy_mev: 300,  rulebook_mev: 300}\n  - {id: down"
    path, line, column = game_copy_at(tmp_path, "qcd", FLAVOURS, old, old.replace(
        "rulebook_mev: 300}", "rulebook_mev: 250, deviation: \"the isospin doublet shares one energy\"}"))
    report = check(cardgen.load_game(path))
    assert report.ok
    assert [(str(c.location).split("flavours.yaml")[1], c.subject, c.reason) for c in report.choices
            if "rulebook's" in c.subject] == [
        (f":{line}:{column + 12}", "energy of Up printed 300 MeV, the rulebook's is 250 MeV",
         "the isospin doublet shares one energy")]


def test_qcd_energies_are_listed_as_design_choices_and_proved():
    report = check(cardgen.load_game("qcd"))
    doc = yaml.safe_load((GAMES / "qcd" / "components" / "cards.yaml").read_text(encoding="utf-8"))
    quark_cards = sum(2 * 4 * 3 for e in doc["cards"] if "matrix" in e)
    proof = next(p for p in report.proofs if p.rule == "flavour-energies")
    assert proof.count == quark_cards == 48
    choices = [c for c in report.choices if c.rule == "flavour-energies"]
    assert [c.subject for c in choices] == ["energy of Up (u u̅) printed 300 MeV", "energy of Down (d d̅) printed 300 MeV",
                                            "energy of Strange (s s̅) printed 500 MeV",
                                            "energy of Charm (c c̅) printed 1500 MeV"]
    assert all("constituent quark masses" in c.reason for c in choices)
    rows = Counter(c.location.line for c in choices)
    assert len(rows) == 4


def test_what_the_card_prints_is_checked_not_only_the_table(tmp_path):
    """A template that prints something other than its flavour's energy is caught on the
    rendered faces, at the component's front template line."""
    path, _, _ = game_copy_at(tmp_path, "qcd", FLAVOURS, "id: flavours", "id: flavours")
    shutil.copytree(ROOT / "templates" / "qcd", path / "templates")
    front = path / "templates" / "card-front.svg.j2"
    source = front.read_text(encoding="utf-8")
    assert source.count('flavour.energy_mev ~ " MeV"') == 1
    front.write_text(source.replace('flavour.energy_mev ~ " MeV"', '(flavour.energy_mev + 100) ~ " MeV"'),
                     encoding="utf-8")
    cards_yaml = (path / "components" / "cards.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, ln in enumerate(cards_yaml, 1) if ln.startswith("front:"))
    code, out = cli(str(path))
    assert code == 1
    wrong = [ln for ln in out.splitlines() if "error[flavour-energies]" in ln]
    assert len(wrong) == 24  # every distinct quark card (each printed twice over in the deck)
    assert (f"cards.yaml:{line}:8: error[flavour-energies]: card 'u-red' prints '400 MeV' 'energy' text but the "
            f"energy of its flavour is 300 MeV (row 'up'). Fix: print the row's energy_mev in the 'energy' field of "
            f"card-front.svg.j2.") in out


# --- what each particle is: symbol, kind, colour, baryon and lepton numbers -------------------

IDENTITY = [  # (particle, key, old, new, words of the finding at the edited line)
    ("e-", "symbol", "base: e", "base: μ", "electron (e-, PDG id 11) has the symbol μ⁻, but PDG 2026's particle 11 "
     "is e-. Fix: write symbol: {base: e, sup: \"-\"}."),
    ("nu_e", "symbol", "sub: e", "sub: μ", "has the symbol ν_μ, but PDG 2026's particle 12 is nu(e)"),
    ("ubar", "symbol", "bar: true", "bar: false", "has the symbol u, but PDG 2026's particle -2 is u~"),
    ("tau+", "symbol", 'sup: "+"', 'sup: "-"', "has the symbol τ⁻, but PDG 2026's particle -15 is tau+"),
    ("u", "baryon_number", "1/3", "1", "up quark (u) has baryon_number: 1, but PDG 2026's particle 2 (u) has 1/3. "
     "Fix: write baryon_number: 1/3."),
    ("e-", "lepton_numbers", "e: 1", "mu: 1", "electron (e-) has lepton_numbers: {mu: 1}, but PDG 2026's particle 11 "
     "(e-) has {e: 1}"),
    ("g", "colour_charged", "true", "false", "gluon (g) has colour_charged: false, but PDG 2026's particle 21 (g) has "
     "true"),
    ("H", "kind", "scalar", "gauge boson", "Higgs boson (H) has kind: gauge boson, but PDG 2026's particle 25 (H0) has "
     "scalar"),
    # the generation a card prints ('Generation I') follows from the PDG id, antiparticles alike
    ("c", "generation", "2", "1", "charm quark (c) has generation: 1, but its PDG id 4 (c) is a particle of "
     "generation 2. Fix: write generation: 2."),
    ("cbar", "generation", "2", "1", "has generation: 1, but its PDG id -4 (c~) is a particle of generation 2"),
    ("nu_mu", "generation", "2", "1", "has generation: 1, but its PDG id 14 (nu(mu)) is a particle of generation 2"),
    ("b", "generation", "3", "2", "has generation: 2, but its PDG id 5 (b) is a particle of generation 3"),
    ("tau+", "generation", "3", "1", "has generation: 1, but its PDG id -15 (tau+) is a particle of generation 3"),
]


@pytest.mark.parametrize("pid, key, old, new, words", IDENTITY, ids=[f"{m[0]}-{m[1]}" for m in IDENTITY])
def test_a_particle_that_is_not_its_pdg_id_is_a_finding_at_its_line(broken_physics, pid, key, old, new, words):
    """The reaction rules add these numbers up: a wrong one is found where it is written in
    particles.yaml, not only as findings against the tables that use it."""
    text, line, _column = mutate_particle(PARTICLES_YAML.read_text(encoding="utf-8"), pid, key, old, new)
    path = broken_physics(text)
    code, out = cli("particle-builder", "--no-render")
    assert code == 1, out
    here = [ln for ln in out.splitlines()
            if ln.startswith(f"{cardgen.errors.display_path(path)}:{line}:") and "error[pdg-identity]" in ln]
    assert any(words in ln for ln in here), out


def test_two_particles_of_one_name_are_a_finding(broken_physics):
    text, line, column = mutate_particle(PARTICLES_YAML.read_text(encoding="utf-8"), "e-", "name", "electron", "muon")
    path = broken_physics(text)
    code, out = cli("particle-builder", "--no-render")
    assert code == 1
    assert (f"{cardgen.errors.display_path(path)}:{line}:{column}: error[pdg-identity]: e- is named 'muon', as is mu-: "
            f"a card would name two particles alike. Fix: give e- its own name (PDG: e-).") in out.splitlines()


def test_the_identity_proof_counts_every_particle():
    findings, proofs, _choices = check_records(cardgen.load_game("qcd"))
    proofs = [r for r in proofs if r.rule == "pdg-identity"]
    assert not findings
    n = len(yaml.safe_load(PARTICLES_YAML.read_text(encoding="utf-8"))["particles"])
    assert len(proofs) == 1 and proofs[0].count == n, proofs


# --- what the paper says: the rendered text is the particle's value ----------------------------

STAT_ROW = '("spin", _("Spin"), p.spin|spin)'


@pytest.mark.parametrize("new, card, printed", [
    ('("spin", _("Spin"), p.charge|spin)', "e-", "-1"),           # another quantity under the label
    ('("spin", _("Spin"), "1/2" if p.id == "W+" else p.spin|spin)', "W+", "1/2"),   # a value typed in
])
def test_a_template_printing_another_value_than_its_particles_is_a_finding(game_copy, cli, new, card, printed):
    """The data equals PDG, yet the card would print something else: the text rendered in the
    declared field is compared with the particle's value."""
    g = game_copy("particle-builder")
    g.edit("templates/particle-front.svg.j2", STAT_ROW, new)
    res = cli("check", str(g.path))
    assert res.returncode == 1, res.stdout + res.stderr
    found = [ln for ln in res.stdout.splitlines() if "error[printed-values]" in ln]
    assert any(f"card '{card}'" in ln and f"field 'stat.spin.value' prints '{printed}', but the spin of" in ln
               for ln in found), res.stdout
    assert all("pb.svg.j2:" in ln.split(": error")[0] for ln in found), found   # the line that prints it


def test_the_shipped_cards_print_their_particles_values():
    report = check(cardgen.load_game("particle-builder"))
    proof = next(p for p in report.proofs if p.rule == "printed-values")
    faces = {c.fields["particle"].id for c in cardgen.load_game("particle-builder").components["particles"].cards}
    assert report.ok and proof.count == 4 * len(faces)


def test_a_flavour_row_without_its_energy_is_a_finding_not_a_crash(tmp_path):
    path, line, column = game_copy_at(tmp_path, "qcd", "tables/flavours.yaml",
                                      "particles: [c, cbar], energy_mev: 1500, ", "particles: [c, cbar], ")
    code, out = cli(str(path), "--no-render")
    assert code == 1, out
    assert (f"flavours.yaml:{line}:5: error[flavour-energies]: row 'charm' gives no 'energy_mev' for c, cbar. "
            f"Fix: write the row's energy_mev.") in out
    assert "Traceback" not in out and "internal error" not in out


# --- a neutrino mass bound is held to the direct limits both ways ------------------------------

LOOSE_BOUNDS = [  # (new mass text, words of the finding at the bound's line)
    ("upper_limit: 2, unit: GeV", "tau neutrino (nu_tau) prints the bound < 2 GeV/c², far looser than any direct "
     "limit: the best is 0.45 eV/c²"),
    ("upper_limit: 80, unit: eV", "tau neutrino (nu_tau) prints the bound < 80 eV/c², but the reason it declares for "
     "it says 'below 0.8 eV'. Fix: write upper_limit: 0.800 (the bound the reason gives), or correct the reason."),
    ("upper_limit: 80, unit: eV", "prints the bound < 80 eV/c², far looser than any direct limit"),
]


@pytest.mark.parametrize("new, words", LOOSE_BOUNDS)
def test_a_neutrino_bound_too_loose_is_found_at_its_line_and_no_decay_is_blamed(broken_physics, new, words):
    """A bound says 'at most': kinematics weighs the neutrino at 0, so a bad bound is one
    pdg-values finding at particles.yaml, not findings against every decay that makes a ν_τ."""
    text, line, _ = mutate_particle(PARTICLES_YAML.read_text(encoding="utf-8"), "nu_tau", "mass",
                                    "upper_limit: 0.8, unit: eV", new)
    path = broken_physics(text)
    code, out = cli("particle-builder", "--no-render")
    assert code == 1, out
    here = [ln for ln in out.splitlines()
            if ln.startswith(f"{cardgen.errors.display_path(path)}:{line}:") and "error[pdg-values]" in ln]
    assert any(words in ln for ln in here), out
    assert "kinematics" not in out and "decays.yaml" not in out, out


def test_the_shipped_neutrino_bound_agrees_with_its_reason_and_the_limits():
    findings, _proofs, choices = check_records(cardgen.load_game("particle-builder"))
    assert not findings
    assert any("nu_tau" in c.subject and "< 0.8 eV" in c.subject for c in choices)


def test_a_bound_counts_as_no_mass_in_thresholds():
    """'< 2 GeV' says at most 2 GeV: the least mass a threshold may count is 0."""
    physics = loader.shipped_physics()
    nu = physics.particles["nu_tau"]
    assert nu.mass.upper_limit and nu.least_mass_mev == 0 and nu.mass_mev > 0
    assert physics.particles["tau-"].least_mass_mev == physics.particles["tau-"].mass_mev
