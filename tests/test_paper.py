"""Paper names, custom sizes and the mm -> pt conversion."""

import pytest

from cardgen.paper import PaperError, label_for_size, mm_to_pt, name_for_size, parse_paper


def test_a4_points_are_exact_to_four_decimals():
    a4 = parse_paper("a4")
    assert (a4.width, a4.height) == (210.0, 297.0)
    assert round(mm_to_pt(a4.width), 4) == 595.2756
    assert round(mm_to_pt(a4.height), 4) == 841.8898


@pytest.mark.parametrize(
    "spec,size",
    [
        ("a3", (297, 420)),
        ("A5", (148, 210)),
        ("Letter", (215.9, 279.4)),
        ("legal", (215.9, 355.6)),
        ("TABLOID", (279.4, 431.8)),
        ("300x450mm", (300, 450)),
        (" 300 X 450 mm ", (300, 450)),
        ("297.5x420mm", (297.5, 420)),
    ],
)
def test_parse_known_and_custom(spec, size):
    paper = parse_paper(spec)
    assert (paper.width, paper.height) == pytest.approx(size)


def test_letter_is_612_by_792_points():
    letter = parse_paper("letter")
    assert round(mm_to_pt(letter.width), 4) == 612
    assert round(mm_to_pt(letter.height), 4) == 792


@pytest.mark.parametrize(
    "spec", ["a9", "300x450", "300x450cm", "x450mm", "", "  ", "0x10mm", "10x0mm", "9000x10mm"]
)
def test_bad_paper_raises_value_error_with_hint(spec):
    with pytest.raises(PaperError) as info:
        parse_paper(spec)
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "\n" not in message
    assert "mm" in message


def test_labels():
    assert parse_paper("a4").label == "A4"
    assert parse_paper("letter").label == "Letter"
    assert parse_paper("300x450mm").label == "300×450 mm"
    assert name_for_size(297, 210) == "a4"
    assert label_for_size(420, 297) == "A3"
    assert name_for_size(211, 297) is None


@pytest.mark.parametrize("spec, fix", [
    ("210x297", "written with their unit: --paper 210x297mm"),
    ("8.5x11in", "8.5x11in is --paper 215.9x279.4mm"),
    ('11x17"', '11x17" is --paper 279.4x431.8mm'),
    ("21 x 29.7 cm", "is --paper 210x297mm"),
    ("612x792pt", "is --paper 215.9x279.4mm"),
    ("a4 landscape", "give the size alone, --paper a4: each deck's sheet is turned"),
    ("Letter-Portrait", "give the size alone, --paper letter"),
    ("300x450mm_landscape", "give the size alone, --paper 300x450mm"),
    ("leter", "did you mean --paper letter?"),
    ("A44", "did you mean --paper a4?"),
])
def test_a_size_written_otherwise_gets_the_fix_it_most_likely_needs(spec, fix):
    """A size without its unit or in another unit is said in millimetres, an orientation is
    dropped (each deck's sheet is turned to hold the most pieces), a misspelt name named."""
    with pytest.raises(PaperError) as info:
        parse_paper(spec)
    assert info.value.likely and fix in info.value.hint


@pytest.mark.parametrize("spec", ["foo", "x450mm", "a9x"])
def test_a_size_like_no_other_gets_the_list(spec):
    with pytest.raises(PaperError) as info:
        parse_paper(spec)
    assert not info.value.likely and "letter, legal, tabloid or WxHmm" in info.value.hint


def test_the_command_line_says_the_likely_fix(tmp_path):
    from click.testing import CliRunner

    from cardgen.cli import main

    result = CliRunner().invoke(main, ["build", "qcd", "--paper", "8.5x11in", "--out", str(tmp_path)],
                                env={"CARDGEN_DAEMON": "off"})
    assert result.exit_code == 2
    assert "unknown paper size '8.5x11in'. Fix: sizes are in millimetres: 8.5x11in is --paper 215.9x279.4mm" \
        in result.output
    assert not any(tmp_path.iterdir())
