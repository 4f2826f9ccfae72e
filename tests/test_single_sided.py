"""``--duplex none``, a single-sided printer: a deck back (one back hiding which piece is
which) is left out; a back that belongs to its piece — a score token's other vertex, a
reference card's rules — is printed on a page of its own after its fronts, laid out as for
turning the stack over on the long edge."""

from __future__ import annotations

import re

import pikepdf
import pytest

import cardgen
from cardgen.build import BuildOptions, build
from cardgen.build.impose import single_sided
from cardgen.imposition import Placement


def test_a_deck_back_is_left_out():
    deck = [Placement(f"front-{i}", "back") for i in range(10)]
    assert single_sided(deck, sets=1) == [Placement(f"front-{i}", None) for i in range(10)]


def test_backs_that_differ_from_piece_to_piece_are_kept():
    tokens = [Placement(f"front-{i}", f"back-{i % 3}") for i in range(6)]
    assert single_sided(tokens, sets=1) == tokens


def test_the_back_of_a_one_design_piece_is_kept():
    reference = [Placement("reference", "rules")] * 4
    assert single_sided(reference, sets=1) == reference


def test_class_sets_each_have_their_own_deck_back():
    """Set marks make one back per set: still a deck back, left out."""
    deck = [Placement(f"front-{s}-{i}", f"back-{s}") for s in range(3) for i in range(5)]
    assert all(p.back is None for p in single_sided(deck, sets=3))


@pytest.fixture(scope="module")
def tutti(tmp_path_factory):
    """Tutti Quantum built for a duplex printer and for a single-sided one."""
    out = tmp_path_factory.mktemp("single")
    game = cardgen.load_game("tutti-quantum")
    for duplex in ("long", "none"):
        build([game], BuildOptions(out=out / duplex, duplex=duplex), jobs=1)
    return out


def _pages(path) -> list[bytes]:
    """Each page's drawing without its footer text and with its forms unnamed (font codes and
    form names depend on what the whole document holds): where every piece, mark and outline goes."""
    with pikepdf.open(path) as pdf:
        return [re.sub(rb"/Fx\d+", b"/Fx", re.sub(rb"BT .*? ET", b"", page.Contents.read_bytes(), flags=re.S))
                for page in pdf.pages]


def test_tokens_print_their_backs_and_a_deck_prints_fronts_only(tutti):
    for name in ("score-tokens.pdf", "reference+pawn.pdf"):   # backs that belong to the piece: as long-edge duplex
        single, double = _pages(tutti / "none/tutti-quantum/en" / name), _pages(tutti / "long/tutti-quantum/en" / name)
        assert len(single) == len(double) == 2 and single == double, name
    single, double = _pages(tutti / "none/tutti-quantum/en/particles.pdf"), _pages(tutti / "long/tutti-quantum/en/particles.pdf")
    assert len(double) == 2 * len(single) and single == double[::2]   # the deck's fronts, its back left out


def test_the_printing_notes_say_how_to_print_the_kept_backs(tutti):
    notes = (tutti / "none/tutti-quantum/en/PRINTING.txt").read_text(encoding="utf-8")
    assert "Single-sided printing: deck backs are left out." in notes and "turn the printed stack over" in notes
    assert "Double-sided files: flip" not in notes
    lines = notes.splitlines()
    tokens = next(i for i, ln in enumerate(lines) if ln.startswith("score-tokens.pdf"))
    assert "Double-sided: odd pages (1, 3, …) are fronts" in lines[tokens + 1]
    particles = next(i for i, ln in enumerate(lines) if ln.startswith("particles.pdf"))
    assert lines[particles + 1].strip() == "Single-sided: every page is a front."


def test_one_piece_per_page_for_a_single_sided_printer_leaves_the_deck_back_out(tmp_path):
    """``--mode single --duplex none``: each card one page, its deck back left out, as the
    printing notes say; a back that belongs to its piece keeps its page after its front."""
    game = cardgen.load_game("tutti-quantum")
    for duplex in ("long", "none"):
        build([game], BuildOptions(out=tmp_path / duplex, duplex=duplex, mode="single"), jobs=1)
    folder = {duplex: tmp_path / duplex / "tutti-quantum/en" for duplex in ("long", "none")}
    single, double = _pages(folder["none"] / "particles.pdf"), _pages(folder["long"] / "particles.pdf")
    assert len(double) == 2 * len(single) and single == double[::2]
    for name in ("score-tokens.pdf", "reference.pdf"):
        assert _pages(folder["none"] / name) == _pages(folder["long"] / name), name
    notes = (folder["none"] / "PRINTING.txt").read_text(encoding="utf-8")
    lines = notes.splitlines()
    particles = next(i for i, ln in enumerate(lines) if ln.startswith("particles.pdf"))
    assert lines[particles + 1].strip() == "Single-sided: every page is a front."
    assert f"{len(single)} page(s)" in lines[particles]
