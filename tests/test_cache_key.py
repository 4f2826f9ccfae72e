"""A face's cache key covers everything the face reads: change any input and the face is
rendered again (and only the faces that read it)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

import cardgen
from cardgen import cache, installed, render
from cardgen.build import BuildOptions, build, card_keys

def _png(colour: str) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def renders(monkeypatch):
    """(card, side) of every face rendered from now on."""
    calls: list[tuple[str, str]] = []
    real = render.Renderer.face

    def counting(self, component, card, side="front", mark=None):
        if component.id == "cards":   # the deck's faces, not the rule sheet's or answer key's pages
            calls.append((card.id, side))
        return real(self, component, card, side, mark)

    monkeypatch.setattr(render.Renderer, "face", counting)
    return calls


def _rebuild(g, out: Path, renders: list, lang: str = "en") -> tuple[set[tuple[str, str]], bytes]:
    """Build the copy again; which faces were rendered, and the new PDF."""
    renders.clear()
    build([g.load()], BuildOptions(out=out, lang=lang), jobs=1)
    return set(renders), (out / f"qcd/{lang}/cards.pdf").read_bytes()


def test_artwork_a_face_placed_is_part_of_its_key(game_copy, tmp_path, renders):
    g = game_copy("qcd")
    (g.path / "art").mkdir()
    (g.path / "art/a.png").write_bytes(_png("black"))
    g.edit("templates/card-back.svg.j2", '<circle cx="{{ cx }}"',
           '{{ image("art/a.png", 1, 1, 8, 8) }}<circle cx="{{ cx }}"')
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    before = (out / "qcd/en/cards.pdf").read_bytes()
    (g.path / "art/a.png").write_bytes(_png("white"))          # same name, other picture
    rendered, after = _rebuild(g, out, renders)
    assert rendered and {side for _card, side in rendered} == {"back"}   # the faces that read it, only
    assert len(rendered) == 25 and after != before
    assert _rebuild(g, out, renders)[0] == set()         # and then they are cached again


def test_a_face_cache_looks_at_each_read_once_and_a_new_one_sees_it_changed(game_copy, tmp_path, monkeypatch):
    """Taking faces from the cache, a FaceCache (one build's, one task's) looks at each file
    the faces read once — a deck's faces read the same fonts and artwork — and the next
    FaceCache sees the file changed: the faces that read it are no longer taken."""
    g = game_copy("qcd")
    (g.path / "art").mkdir()
    (g.path / "art/a.png").write_bytes(_png("black"))
    g.edit("templates/card-back.svg.j2", '<circle cx="{{ cx }}"',
           '{{ image("art/a.png", 1, 1, 8, 8) }}<circle cx="{{ cx }}"')
    game, out = g.load(), tmp_path / "out"
    build([game], BuildOptions(out=out), jobs=1)
    keys = [k for comp in game.components.values() if comp.id == "cards"
            for _card, _n, front, back, _mark in build_plan_keys(game, comp) for k in (front, back) if k]
    looked: list[tuple[str, str, str]] = []
    real = cache._reads_unchanged
    monkeypatch.setattr(cache, "_reads_unchanged", lambda reads, roots: looked.extend(reads) or real(reads, roots))
    faces = cache.FaceCache(out / ".cache")
    hits = [faces.get(k, roots=game.artwork_roots) for k in keys]
    assert all(hits) and len(looked) == len(set(looked)) and any("a.png" in r[0] for r in looked)
    (g.path / "art/a.png").write_bytes(_png("white"))
    assert all(faces.get(k, roots=game.artwork_roots) for k in keys)   # this one has looked already
    again = cache.FaceCache(out / ".cache")
    backs = [k for k in keys if any("a.png" in r[0] for r in (faces.get(k, roots=game.artwork_roots).reads))]
    assert backs and all(again.get(k, roots=game.artwork_roots) is None for k in backs)


def build_plan_keys(game, comp):
    from cardgen.build import marked_keys

    return marked_keys(card_keys(game, comp, "en"), [None])


def test_an_included_template_is_part_of_every_key(game_copy, tmp_path, renders):
    g = game_copy("qcd")
    g.write("templates/extra.svg.j2", '<rect x="1" y="1" width="3" height="3" fill="#f00"/>\n')
    g.edit("templates/card-front.svg.j2", "{% block artwork %}", '{% block artwork %}{% include "extra.svg.j2" %}')
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    before = (out / "qcd/en/cards.pdf").read_bytes()
    g.edit("templates/extra.svg.j2", "#f00", "#00f")
    rendered, after = _rebuild(g, out, renders)
    assert len({card for card, side in rendered if side == "front"}) == 25 and after != before


def test_a_catalog_is_part_of_the_keys_of_its_language(game_copy, tmp_path, renders):
    g = game_copy("qcd")
    catalogs = g.path / "locale/de/LC_MESSAGES"
    catalogs.mkdir(parents=True)
    shipped = Path(cardgen.__file__).parent.parent / "data/locale/de/LC_MESSAGES"
    shutil.copy(shipped / "qcd.po", catalogs / "qcd.po")
    shutil.copy(shipped / "common.po", catalogs / "common.po")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out, lang="de"), jobs=1)
    before = (out / "qcd/de/cards.pdf").read_bytes()
    g.edit("locale/de/LC_MESSAGES/qcd.po", 'msgid "QCD the Game"\nmsgstr "QCD the Game"',
           'msgid "QCD the Game"\nmsgstr "QCD, das Spiel"')
    rendered, after = _rebuild(g, out, renders, "de")
    assert ("u-red", "back") in rendered and after != before


def test_a_data_file_is_part_of_every_key(game_copy, tmp_path, renders):
    g = game_copy("qcd")
    out = tmp_path / "out"
    build([g.load()], BuildOptions(out=out), jobs=1)
    g.edit("game.yaml", "name: QCD the Game", "name: QCD, the Game")
    assert len(_rebuild(g, out, renders)[0]) == 50


@pytest.fixture
def package_copy(tmp_path, monkeypatch):
    """A copy of the cardgen package that the key is derived from (edited in place of the real one)."""
    copy = tmp_path / "package"
    shutil.copytree(cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache, "PACKAGE", copy)
    return copy


def _keys() -> list:
    game = cardgen.load_game("qcd")
    return card_keys(game, game.components["cards"], "en")


@pytest.mark.parametrize("module", ["images.py", "shapes.py", "particles.py", "tables.py", "text/layout.py",
                                    "cairoffi/_cairo.py"])
def test_every_module_of_the_package_is_part_of_every_key(package_copy, module):
    before = _keys()
    with open(package_copy / module, "a", encoding="utf-8") as f:
        f.write("\n# edited\n")
    after = _keys()
    assert all(a[2] != b[2] and a[3] != b[3] for a, b in zip(after, before))


def test_a_font_is_part_of_every_key(package_copy):
    before = _keys()
    font = sorted((package_copy / "fonts").glob("*.ttf"))[0]
    data = bytearray(font.read_bytes())
    data[-1] ^= 1      # same size, one bit
    font.write_bytes(bytes(data))
    assert all(a[2] != b[2] for a, b in zip(_keys(), before))


def test_library_versions_are_part_of_every_key(site_packages, monkeypatch):
    (site_packages / "cairosvg-2.9.1.dist-info").mkdir()
    (site_packages / "Jinja2-3.1.6.dist-info").mkdir()
    before = _keys()
    (site_packages / "cairosvg-2.9.1.dist-info").rename(site_packages / "cairosvg-2.9.2.dist-info")
    upgraded = _keys()
    assert all(a[2] != b[2] for a, b in zip(upgraded, before))
    monkeypatch.setattr(cache, "_cairo_version", lambda: "1.99.0")     # cairo itself
    assert all(a[2] != b[2] for a, b in zip(_keys(), upgraded))


def test_the_library_versions_name_the_drawing_libraries():
    versions = cache.library_versions()
    for name in ("cairosvg", "cairocffi", "uharfbuzz", "jinja2", "pillow",
                 "markupsafe", "cssselect2", "tinycss2", "hepunits"):   # the last four: what those use
        assert any(line.lower().startswith(name + "-") for line in versions.splitlines()), name
    assert f"cairo {cache._cairo_version()}" in versions.splitlines()
    for name in ("pytest", "hypothesis", "pip"):   # installed here, and no face depends on them
        assert not any(line.lower().startswith(name + "-") for line in versions.splitlines()), name


def _dist(site: Path, folder: str, *requires: str) -> None:
    """A distribution's metadata folder as a wheel installs it (``name-version.dist-info``)."""
    (site / folder).mkdir(parents=True)
    name, version = folder.removesuffix(".dist-info").split("-")
    head = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", *(f"Requires-Dist: {r}" for r in requires)]
    # the description after the headers may quote anything
    (site / folder / "METADATA").write_text("\n".join(head) + "\n\nRequires-Dist: quoted-in-the-description\n")


@pytest.fixture
def site_packages(tmp_path, monkeypatch):
    """An empty folder as the only place libraries are installed."""
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(installed.site, "getsitepackages", lambda: [str(site)])
    monkeypatch.setattr(installed.site, "getusersitepackages", lambda: str(tmp_path / "no-user-site"))
    return site


def _installed_cardgen(site: Path) -> None:
    """cardgen and some of what it uses, and what a test environment adds beside them."""
    _dist(site, "cardgen-0.1.0.dist-info", "cairosvg<2.10,>=2.7", "jinja2[i18n]<3.2,>=3.1",
          'isal>=1.6; platform_machine == "x86_64" or platform_machine == "arm64"', 'pytest>=8.0; extra == "test"')
    _dist(site, "cairosvg-2.9.1.dist-info", "cssselect2", 'pytest; extra == "test"')
    _dist(site, "cssselect2-0.10.1.dist-info", "tinycss2>=1.0", "webencodings")   # webencodings: not installed
    _dist(site, "tinycss2-1.5.1.dist-info")
    _dist(site, "Jinja2-3.1.6.dist-info", "MarkupSafe>=2.0", 'Babel>=2.7; extra == "i18n"', 'sphinx; extra == "docs"')
    _dist(site, "markupsafe-3.0.4.dist-info")
    _dist(site, "babel-2.19.0.dist-info")
    _dist(site, "sphinx-8.0.0.dist-info")
    _dist(site, "isal-1.9.1.dist-info")
    _dist(site, "pytest-8.4.0.dist-info", "pluggy")
    _dist(site, "pluggy-1.6.0.dist-info")
    _dist(site, "pip-25.3.dist-info")


def test_the_libraries_keyed_are_what_cardgen_requires_and_what_they_require(site_packages):
    _installed_cardgen(site_packages)
    assert installed.used_distributions() == [
        "Jinja2-3.1.6.dist-info", "babel-2.19.0.dist-info",   # Babel: jinja2's extra that cardgen asks for
        "cairosvg-2.9.1.dist-info", "cssselect2-0.10.1.dist-info", "isal-1.9.1.dist-info",
        "markupsafe-3.0.4.dist-info", "tinycss2-1.5.1.dist-info"]   # not sphinx (an extra nobody asked for)


def test_installing_anything_else_changes_no_key_and_upgrading_what_cardgen_uses_changes_every_key(site_packages):
    _installed_cardgen(site_packages)
    before = _keys()
    _dist(site_packages, "requests-2.32.0.dist-info", "idna")
    _dist(site_packages, "idna-3.20.dist-info")
    (site_packages / "pip-25.3.dist-info").rename(site_packages / "pip-25.4.dist-info")
    (site_packages / "pytest-8.4.0.dist-info").rename(site_packages / "pytest-8.5.0.dist-info")
    assert _keys() == before
    (site_packages / "tinycss2-1.5.1.dist-info").rename(site_packages / "tinycss2-1.5.2.dist-info")   # used by a use
    assert all(a[2] != b[2] for a, b in zip(_keys(), before))


def test_an_egg_s_requirements_are_read_section_by_section(site_packages):
    _dist(site_packages, "cardgen-0.1.0.dist-info", "oldlib[fast]")
    egg = site_packages / "oldlib-1.0-py3.11.egg-info"
    egg.mkdir()
    (egg / "requires.txt").write_text("six\n\n[fast]\nspeedups\n\n[docs]\nsphinx\n\n"
                                      "[:sys_platform == 'win32']\ncolorama\n")
    for name in ("six-1.17.0", "speedups-1.0", "sphinx-8.0.0", "colorama-0.4.6"):
        _dist(site_packages, f"{name}.dist-info")
    # a requirement is followed whatever its platform marker says: one too many only costs a rebuild
    assert installed.used_distributions() == ["colorama-0.4.6.dist-info", "oldlib-1.0-py3.11.egg-info",
                                              "six-1.17.0.dist-info", "speedups-1.0.dist-info"]


def test_without_installed_metadata_cardgen_s_requirements_come_from_its_pyproject(site_packages):
    """A source tree on the path (no ``pip install``): its pyproject.toml says what it needs."""
    for name in ("cairosvg-2.9.1", "pytest-8.4.0", "pdfimpose-2.10.0", "zzfake-1.0"):
        _dist(site_packages, f"{name}.dist-info")
    assert installed.used_distributions() == ["cairosvg-2.9.1.dist-info"]


def test_with_no_requirements_to_follow_every_installed_distribution_is_keyed(site_packages, monkeypatch):
    monkeypatch.setattr(installed, "_PYPROJECT", site_packages / "missing.toml")
    for name in ("cairosvg-2.9.1", "zzfake-1.0"):
        _dist(site_packages, f"{name}.dist-info")
    assert installed.used_distributions() == ["cairosvg-2.9.1.dist-info", "zzfake-1.0.dist-info"]


def _planned_fingerprints(tmp_path: Path) -> dict[str, str]:
    from cardgen.build.plan import plan

    options = BuildOptions(out=tmp_path / "out").validated()
    return plan(cardgen.load_games(), options, 2, cache.FaceCache(options.cache_root), frozenset()).fingerprints


def test_a_build_fingerprints_its_games_as_each_alone_and_sees_the_package_change(package_copy, tmp_path):
    """A build finds what the games share (cardgen's files, the libraries) once for all of
    them: each game's fingerprint must still be the one it has alone, and an edited module
    must still change them all."""
    planned = _planned_fingerprints(tmp_path)
    assert planned == {g.id: cache.game_fingerprint(g, "en") for g in cardgen.load_games()}
    with open(package_copy / "shapes.py", "a", encoding="utf-8") as f:
        f.write("\n# edited\n")
    edited = _planned_fingerprints(tmp_path)
    assert len(planned) == 4 and all(edited[gid] != fp for gid, fp in planned.items())
