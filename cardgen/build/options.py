"""What a build is told: :class:`BuildOptions`, checked once, up front.

Every value a user types is validated here, before anything is loaded or rendered, with a
message that says what to type instead; the paper is parsed here once into a
:class:`~cardgen.paper.Paper` that every later step reads (``options.sheet()``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path

from .. import i18n
from ..errors import InputError
from ..paper import Paper, PaperError, parse_paper
from ..setmark import MAX_SETS
from ..userconfig import MAX_OFFSET_MM, saved_back_offset

DUPLEX = ("long", "short", "none")
MARKS = ("ticks", "lines", "none")
MODES = ("sheets", "single")
PAPER_HINT = "use a4, a3, a5, letter, legal, tabloid or WxHmm such as 300x450mm"


@dataclass(frozen=True)
class BuildOptions:
    """Everything ``cardgen build`` can be told. Lengths in mm."""

    lang: str = "en"                 # a language code, several separated by commas, or 'all' (see cardgen.languages)
    paper: str = "a4"                # as typed; parsed once into ``paper_size`` by validated()
    duplex: str = "long"
    bleed: float | None = None       # printed bleed; None = each component's own
    gutter: float | None = None
    margin: float = 5.0
    marks: str = "ticks"
    back_offset: tuple[float, float] | None = (0.0, 0.0)  # None: the one saved by 'calibrate --read'
    mode: str = "sheets"
    level: int | None = None         # highest game level to include; None = all
    cut_file: bool = False
    out: Path = Path("output")
    games_dirs: tuple[Path, ...] = ()
    strict: bool = False             # untranslated strings are errors
    cache: bool = True               # reuse rendered faces from <out>/.cache (--no-cache: off)
    allow_overflow: bool = False     # print text that does not fit its box (otherwise the build stops)
    allow_missing_glyphs: bool = False   # print characters no font covers as boxes (otherwise it stops)
    sets: int = 1                    # class sets: every component printed this many times, each set marked
    #: ``paper`` parsed, filled in by :meth:`validated` (not compared: it follows from ``paper``)
    paper_size: Paper | None = field(default=None, compare=False, repr=False)

    @property
    def cache_root(self) -> Path | None:
        return self.out / ".cache" if self.cache else None

    def validated(self) -> "BuildOptions":
        """Check option values once, up front, with messages that say what to type."""
        for name, value, allowed in (("duplex", self.duplex, DUPLEX), ("marks", self.marks, MARKS),
                                     ("mode", self.mode, MODES)):
            if value not in allowed:
                raise InputError(f"--{name} {value!r} is not one of {', '.join(allowed)}", None,
                                 f"use --{name} {allowed[0]}")
        paper = _parsed(self.paper)
        for code in i18n.codes(self.lang):
            if code != "all":
                i18n.check_language(code)
        for name, value in (("bleed", self.bleed), ("gutter", self.gutter), ("margin", self.margin)):
            if value is not None and not 0 <= value <= 50:
                raise InputError(f"--{name} {value:g} mm is out of range", None, f"give --{name} between 0 and 50 mm")
        if not isinstance(self.sets, int) or not 1 <= self.sets <= MAX_SETS:
            raise InputError(f"--sets {self.sets} is out of range", None,
                             f"give --sets between 1 and {MAX_SETS} (one mark shape per set)")
        return replace(self, paper_size=paper, back_offset=self._back_offset())

    def _back_offset(self) -> tuple[float, float]:
        """The offset given, or the one saved for this duplex mode; within reach either way."""
        offset = self.back_offset
        if offset is None:
            offset = (saved_back_offset(self.duplex) if self.duplex != "none" else None) or (0.0, 0.0)
        if not all(math.isfinite(v) and abs(v) <= MAX_OFFSET_MM for v in offset):
            raise InputError(f"--back-offset {offset[0]:g},{offset[1]:g} is not within "
                             f"±{MAX_OFFSET_MM:g} mm", None, "measure it with 'cardgen calibrate'")
        return offset

    def sheet(self) -> Paper:
        """The paper: parsed once by :meth:`validated` (parsed here for options never validated)."""
        return self.paper_size or _parsed(self.paper)

    def prints_sheets(self) -> bool:
        """Whether the paper holds the rule sheet and answer key; on card-sized stock the build
        prints the pieces alone and says so (see :func:`cardgen.sheetlayout.holds_sheets`)."""
        from ..sheetlayout import holds_sheets   # the sheets' layout, imported by a build anyway

        paper = self.sheet()
        return holds_sheets(paper.width, paper.height)


def _parsed(paper: str) -> Paper:
    try:
        return parse_paper(paper)
    except PaperError as exc:   # the likely fix where one is known, else every size there is
        raise InputError(exc.reason, None, exc.hint if exc.likely else PAPER_HINT) from None
