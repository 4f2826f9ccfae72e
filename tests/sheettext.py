"""A rule sheet's text as pdfplumber reads it, without reading the sheet's drawing.

A sheet's pages are drawn as forms whose letters are outlines (a glyph form for each letter a
page shows: thousands of them), and its text is an invisible layer on the page itself (see
:mod:`cardgen.textlayer`). pdfplumber interprets every form it meets though none holds a
character: nine tenths of the time of a test that reads a sheet (a Particle Builder rule
sheet: 8–10 s read whole, under 2 s without its drawing). A test that reads a sheet's text
opens it here, with every form emptied: pdfplumber finds the same characters, words, places,
fonts and sizes, which ``tests/test_rule_sheets.py`` checks on sheets of three games in three
languages against the sheet read whole.
"""

from __future__ import annotations

import io
from pathlib import Path

import pdfplumber
import pikepdf


def without_drawing(source: bytes | Path) -> bytes:
    """The sheet PDF ``source`` with each form its pages draw emptied (its text layer kept)."""
    data = source if isinstance(source, bytes) else Path(source).read_bytes()
    with pikepdf.open(io.BytesIO(data)) as doc:
        for page in doc.pages:
            for _name, xobject in page.Resources.get("/XObject", {}).items():
                if xobject.get("/Subtype") == "/Form":
                    xobject.write(b"")
        out = io.BytesIO()
        doc.save(out)
    return out.getvalue()


def open_text(source: bytes | Path) -> pdfplumber.PDF:
    """The sheet opened with pdfplumber for its text (use it as a context manager)."""
    return pdfplumber.open(io.BytesIO(without_drawing(source)))
