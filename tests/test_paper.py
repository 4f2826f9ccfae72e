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
