"""Untrusted games at the edges the earlier rounds missed: SVG nested thousands deep, strings
grown with Jinja's ``~``, images a template embeds itself, links out of the game folder for
its fonts and templates, and an output folder whose cache is not cardgen's own. Each ends in
one clear error (exit 2) before anything is written, or is made harmless."""

from __future__ import annotations

import base64
import io
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

import cardgen.images
from cardgen.cli import main

BACK = "templates/card-back.svg.j2"


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def _artwork(game_copy, svg: str):
    g = game_copy("qcd")
    g.edit(BACK, "{% block artwork %}", "{% block artwork %}" + svg)
    return g


def _one_error(result, *said: str) -> str:
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert len(line.splitlines()) == 1 and "internal error" not in line and "Traceback" not in line, line
    for words in said:
        assert words in line, line
    return line


def test_groups_nested_thousands_deep_are_refused_by_check_as_by_build(game_copy, tmp_path):
    """Measuring the face for the legibility rules walked it recursively: RecursionError, exit 70."""
    g = _artwork(game_copy, "{% for i in range(3000) %}<g>{% endfor %}{% for i in range(3000) %}</g>{% endfor %}")
    _one_error(run("check", str(g.path), "--no-cache"), "nests too deeply", "nest fewer elements")
    _one_error(run("build", str(g.path), "--out", str(tmp_path / "out")), "nests too deeply")


@pytest.mark.parametrize("svg, said", [
    ('{% set ns = namespace(s="a") %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}'
     '<text>{{ ns.s|length }}</text>', "the text joined with '~' would be 1,048,576 long"),
    ('<desc>{{ (("a" ~ "\\n") * 1000) | indent(10**6) }}</desc>', "the filter 'indent' would be 1,001,00"),
    # a filter, formatting or serialising that makes one long string of many items
    ('{% set s = "x" * 10000 %}<desc>{{ s|replace("x", s) }}</desc>', "the filter 'replace' would be 100,000,000"),
    ('<desc>{{ "%s" % (["x" * 100000] * 100) }}</desc>', "the '%' formatting would be 10,000,"),
    ('<desc>{{ (["x" * 100000] * 100)|string }}</desc>', "the filter 'string' would be 10,000,"),
    ('<desc>{{ (["x" * 100000] * 100)|tojson }}</desc>', "the filter 'tojson' would be 10,000,"),
    ('<desc>{{ (["x" * 100000] * 100)|map("upper")|join }}</desc>', "the filter 'join' would be 1,100,000"),
    ('<desc>{{ "{}{}{}{}{}{}{}{}{}{}{}{}".format(*(["x" * 100000] * 12)) }}</desc>', "format() would be 1,200,"),
])
def test_a_string_grown_past_the_limit_is_refused_before_it_takes_the_memory(game_copy, svg, said):
    """Doubling a string forty times with '~' took 12 GB before the face's clock stopped it;
    an indent of a million spaces on every line, 2 GB."""
    g = _artwork(game_copy, svg)
    _one_error(run("render", str(g.path), "--component", "cards", "--card", "u-red", "--dpi", "10",
                   "--out", str(g.path.parent / "out")), said)


def _png(size: int) -> str:
    buf = io.BytesIO()
    Image.new("L", (size, size), 128).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def test_an_image_the_template_embeds_itself_is_held_to_the_artwork_limits(game_copy, monkeypatch):
    """A data: URI skipped the pixel limit of image(): 400 Mpx drawn in 1.6 GB, more ended in
    cairo's out-of-memory error."""
    monkeypatch.setattr(cardgen.images, "MAX_IMAGE_PIXELS", 30_000)
    g = _artwork(game_copy, f'<image href="data:image/png;base64,{_png(200)}" width="10" height="10"/>')
    line = _one_error(run("check", str(g.path), "--no-cache"), "200 × 200 px", "card-back.svg.j2:")
    assert "u-red" in line


@pytest.mark.parametrize("uri, said", [
    ("data:image/gif;base64,R0lGODlhAQABAAAAACw=", "'data:image/gif;base64', which is not PNG, JPEG or SVG"),
    ("data:image/jpeg;base64," + _png(4), "says it is image/jpeg but holds image/png"),
    ("data:image/svg+xml;utf8,%3Csvg%20xmlns%3D%22http%3A//www.w3.org/2000/svg%22%3E%3C!DOCTYPE%20x%3E%3C/svg%3E",
     "may not declare a DOCTYPE"),
])
def test_an_embedded_image_cardgen_would_not_accept_as_a_file_is_refused(game_copy, uri, said):
    g = _artwork(game_copy, f'<image href="{uri}" width="10" height="10"/>')
    _one_error(run("check", str(g.path), "--no-cache"), said)


def test_a_small_embedded_image_is_drawn(game_copy, tmp_path):
    g = _artwork(game_copy, f'<image href="data:image/png;base64,{_png(8)}" width="10" height="10"/>')
    assert run("build", str(g.path), "--out", str(tmp_path / "out")).exit_code == 0


# --- links out of the game folder ---------------------------------------------------------------

def test_a_font_linked_from_outside_the_game_is_refused_by_name(game_copy):
    """fonts/evil.ttf → /etc/passwd was opened and parsed as a font."""
    g = game_copy("qcd")
    (g.path / "fonts").mkdir()
    os.symlink("/etc/passwd", g.path / "fonts" / "evil.ttf")
    _one_error(run("check", str(g.path), "--no-render"), "fonts/evil.ttf", "leaves the game folder through a symbolic link")


@pytest.mark.parametrize("folder", ["templates", "fonts"])
def test_a_templates_or_fonts_folder_linked_from_elsewhere_is_refused(game_copy, tmp_path, folder):
    """A templates folder linked elsewhere drew the game from outside it, with exit 0."""
    g = game_copy("qcd")
    outside = tmp_path / f"elsewhere-{folder}"
    if folder == "templates":
        (g.path / "templates").rename(outside)
    else:
        outside.mkdir()
    os.symlink(outside, g.path / folder)
    line = _one_error(run("check", str(g.path), "--no-render"), f"path '{folder}' leaves the game folder")
    assert "elsewhere" not in line   # named as the game names it


# --- the output folder's cache ------------------------------------------------------------------

def _database(path: Path) -> bytes:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE bookmarks (url TEXT)")
    conn.execute("INSERT INTO bookmarks VALUES ('https://example.org')")
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("link", [os.symlink, os.link])
def test_a_cache_file_linked_to_another_database_is_replaced_not_written_through(tmp_path, link):
    """A symbolic link at .cache/cache.sqlite to another program's database got cardgen's tables."""
    out = tmp_path / "out"
    assert run("build", "qcd", "--out", str(out)).exit_code == 0
    for stale in (out / ".cache").iterdir():
        stale.unlink()
    other = tmp_path / "other.sqlite"
    before = _database(other)
    link(other, out / ".cache" / "cache.sqlite")
    assert run("build", "qcd", "--out", str(out)).exit_code == 0
    assert other.read_bytes() == before
    cache = out / ".cache" / "cache.sqlite"
    assert not cache.is_symlink() and cache.stat().st_nlink == 1 and cache.stat().st_size > 0


def test_a_file_where_the_cache_folder_goes_stops_the_build_before_any_pdf(tmp_path):
    """It failed at the very end, naming an internal temporary file, after writing every PDF."""
    out = tmp_path / "out"
    out.mkdir()
    (out / ".cache").write_text("x")
    _one_error(run("build", "qcd", "--out", str(out)), f"{out / '.cache'} is a file", "remove it")
    assert sorted(p.name for p in out.rglob("*")) == [".cache"]


@pytest.mark.parametrize("how", ["a name with '..'", "an include by absolute path", "a symbolic link",
                                 "a template too large to render"])
def test_what_a_template_prints_is_never_read_from_a_file_the_renderer_would_refuse(game_copy, tmp_path,
                                                                                    monkeypatch, how):
    """The pdg-values rule reads what each template prints before anything is rendered. It
    joined the template's name to the folder itself: a name with '..', an absolute one in an
    include, or a link out of the folder had it read any file (a test's /etc/passwd was
    scanned), and a template of gigabytes was read whole. It now finds the file as the renderer does; a template it may
    not read counts as printing every quantity (every value is checked)."""
    from dataclasses import replace

    from cardgen.rules import pdg_values
    from cardgen.templatefiles import MAX_TEMPLATE_BYTES

    g = game_copy("qcd")
    outside = tmp_path / "outside.svg.j2"
    outside.write_text("{{ particle.mass }}", encoding="utf-8")
    name = "card-front.svg.j2"
    if how == "a name with '..'":
        name = os.path.relpath(outside, g.path / "templates")
    elif how == "an include by absolute path":   # a template's own names are not checked when the game loads
        (g.path / "templates" / name).write_text(f'{{% include "{outside}" %}}', encoding="utf-8")
    elif how == "a symbolic link":
        (g.path / "templates" / name).unlink()
        (g.path / "templates" / name).symlink_to(outside)
    else:
        (g.path / "templates" / name).write_text("{{ particle.mass }}" + " " * MAX_TEMPLATE_BYTES, encoding="utf-8")
    game = g.load()
    comp = replace(game.components["cards"], front=name, back=None)
    read: list[Path] = []
    real = pdg_values._template_facts
    monkeypatch.setattr(pdg_values, "_FACTS", {})
    monkeypatch.setattr(pdg_values, "_template_facts", lambda game, path: read.append(path) or real(game, path))
    printed = pdg_values.printed_quantities(game, comp)
    assert printed == frozenset(pdg_values.QUANTITIES) and printed != {"mass"}
    assert all(p.resolve() != outside for p in read)
