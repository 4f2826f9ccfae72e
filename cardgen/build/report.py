"""What a build writes beside the PDFs, and every word it prints on them.

The manifest (``manifest.json``: each file, its layout, counts and digests), the printing
instructions (``PRINTING.txt``, for the teacher at the copier), the text report (what a
translator must look at), the summary lines ``cardgen build`` shows, and the words printed on
sheets (footers, tile labels). Every printed string is written here as ``_("...")``:
``cardgen i18n extract`` reads this file's source for them (see
:func:`cardgen.i18n.collect_common`), so a string added here is offered to translators.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

from .. import i18n, setmark
from ..model import Component, Game
from ..output import stage
from ..pdfwrite import TileLabels
from .options import BuildOptions
from .results import BuiltFile, GameBuild

Say = Callable[..., str]


def translating(tr: i18n.Translator | None) -> Say:
    """``_(msgid, context)``: a printed string in the build's language (English without a
    translator); named ``_`` where it is used, so ``cardgen i18n extract`` finds the strings."""
    return lambda msgid, context=None: tr(msgid, context) if tr else msgid


@dataclass(frozen=True)
class Footer:
    """The line under each sheet: "<game> · <component> · <lang> · sheet 2/4 · fronts",
    its words from the catalogs (pdfwrite calls it with the sheet number, count and side)."""

    prefix: str
    sheet: str
    fronts: str
    backs: str

    def __call__(self, number: int, count: int, side: str) -> str:
        which = self.fronts if side == "fronts" else self.backs
        return f"{self.prefix} · {self.sheet.format(sheet=number, sheets=count)} · {which}"


def footer(_: Say, game: Game, names: str, lang: str) -> Footer:
    """The footer of a file printing the components ``names`` (already in the language)."""
    return Footer(f"{_(game.name, 'game')} · {names} · {lang}", _("sheet {sheet}/{sheets}"), _("fronts"), _("backs"))


def job_name(_: Say, comp: Component, spare: bool) -> str:
    """A component's name as printed, "…, spare set" for a spare set."""
    name = _(comp.name, "component")
    return _("{name}, spare set").format(name=name) if spare else name


def footer_words(tr: i18n.Translator, game: Game, options: BuildOptions, jobs: Iterable[Any]) -> None:
    """Say the words the print files carry besides the faces (footers, tile labels) to ``tr``,
    which notes the ones it has no translation for: a component named in no catalog printed its
    English name in a German footer, unreported. (PRINTING.txt's words it hears when the build
    makes that text with the same translator.)"""
    _ = translating(tr)
    for job in jobs:
        names = [job_name(_, comp, job.spare_level is not None) for comp in job.components]
        footer(_, game, " + ".join(names), options.lang)
    tile_labels(_, "")


def tile_labels(_: Say, prefix: str) -> TileLabels:
    """The words printed on tiled pages, in the build's language."""
    return TileLabels(tile=_("tile {name} of {cols}×{rows}"), right=_("{name} goes on the right"),
                      below=_("{name} goes below"), glue=_("glue here"), prefix=prefix)


def stage_manifest(game: Game, result: GameBuild, options: BuildOptions, printing: str) -> list[Path]:
    """PRINTING.txt (``printing``, see :func:`printing_instructions`), the text report (when
    there is something to report) and the manifest, staged; the manifest goes last: it
    describes files that are already in place."""
    manifest = {
        "game": game.id, "name": game.name, "lang": options.lang,
        "options": {"paper": options.paper, "duplex": options.duplex, "marks": options.marks, "mode": options.mode,
                    "margin_mm": options.margin, "bleed_mm": options.bleed, "gutter_mm": options.gutter,
                    "back_offset_mm": list(options.back_offset), "level": options.level},
        "files": [asdict(f) for f in result.files],
    }
    staged = [stage(result.folder / "PRINTING.txt", printing.encode("utf-8"))]
    report = text_report(result)
    if report:   # without one, the folder's next version simply has none
        staged.append(stage(result.folder / "text-report.txt", report.encode("utf-8")))
    staged.append(stage(result.folder / "manifest.json",
                        (json.dumps(manifest, indent=2, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")))
    return staged


def text_report(result: GameBuild) -> str:
    """What a translator must look at: overflowing text, uncovered characters, untranslated strings."""
    lines = [str(i) for i in result.issues]
    lines += [f"untranslated ({result.lang}): {m!r}" + (f" [{c}]" if c else "") for m, c in result.untranslated]
    return "\n".join(lines) + "\n" if lines else ""


def summary(result: GameBuild) -> list[str]:
    """The lines ``cardgen build`` shows for one built game: its folder, then one per file."""
    return [f"{result.game} ({result.lang}) → {result.folder}"] + [
        f"    {Path(f.path).name:<22} {f.pages:>3} page(s)  {f.sheets:>3} sheet(s)  "
        f"{f.cards:>4} piece(s)  {f.cuts:>4} cut(s)  {f.layout}" for f in result.files]


def printing_instructions(game: Game, result: GameBuild, options: BuildOptions,
                          tr: i18n.Translator | None = None) -> str:
    """Plain-language instructions that travel with the PDFs (for the teacher at the copier):
    per file single- or double-sided and which pages are fronts and backs, sheets for the
    class sets asked for, how to cut each shape; why cards are edge to edge is said once."""
    _ = translating(tr)
    lines = _general(_, game, result, options) + [""]
    for f in result.files:
        lines += _file_lines(_, game, f, options)
    return "\n".join(lines) + "\n"


def _general(_: Say, game: Game, result: GameBuild, options: BuildOptions) -> list[str]:
    """The paragraph about the whole print run: paper, sheets, duplex, sets, shared sheets."""
    flip = {"long": _("flip on the LONG edge"), "short": _("flip on the SHORT edge"),
            "none": _("single-sided")}[options.duplex]
    sheets = sum(f.sheets for f in result.files)
    lines = [_("{game} — printing instructions ({lang})").format(game=_(game.name, "game"), lang=options.lang), "",
             _("Paper: {paper}. Print at 100 % / actual size, never 'fit to page': the cards must measure what "
               "the files say.").format(paper=options.sheet().label),
             _("Sheets of paper: {sheets} in all, for {sets} set(s) of the game.").format(sheets=sheets,
                                                                                        sets=options.sets)]
    if any(f.double_sided for f in result.files) and options.duplex == "none":
        lines.append(_("Single-sided printing: deck backs are left out. Pieces whose backs belong to them have each "
                       "backs page after its fronts page: print the fronts (odd pages), turn the printed stack over "
                       "on its LONG edge, feed it in again and print the backs (even pages); or glue each backs page "
                       "behind its fronts page before cutting."))
    elif any(f.double_sided for f in result.files):
        lines.append(_("Double-sided files: {flip}. If backs drift, measure with 'cardgen calibrate --paper {paper}' "
                       "and rebuild with --back-offset X,Y.").format(flip=flip, paper=options.paper))
    if options.sets > 1:
        glyphs = ", ".join(f"{n} {setmark.GLYPH_NAMES[setmark.glyph_for(n)[0]]}" + (" ●" if setmark.glyph_for(n)[1] else "")
                           for n in range(1, options.sets + 1))
        lines.append(_("Class sets: every piece carries its set's mark on both sides, the set number inside a shape "
                       "({marks}); after a lesson, sort mixed pieces back into sets by that mark.").format(marks=glyphs))
    if any(f.bleed_note for f in result.files):
        lines.append(_("Cards edge to edge with shared cuts: one cut separates two neighbours and saves paper, but "
                       "each card has no bleed of its own. For a bleed around every card, ask for space between "
                       "the cards with --gutter 1 (fewer cards per sheet)."))
    if any(f.members for f in result.files):
        lines.append(_("Small pieces share sheets: a file named after several components (a+b.pdf) prints the "
                       "pieces of all of them on one sheet."))
    if not options.prints_sheets():
        lines.append(_("The rule sheet and answer key are not printed on {paper} paper, which is too small for "
                       "them: build them with --paper a4 (or letter).").format(paper=options.sheet().label))
    return lines


def _file_lines(_: Say, game: Game, f: BuiltFile, options: BuildOptions) -> list[str]:
    """The lines about one file: what it holds, how to print it, how to cut it."""
    from ..sheets import SHEETS

    if f.component in SHEETS and not f.members:   # a rule sheet or answer key (cardgen.sheets)
        what = _("rule sheet") if f.component == "rules" else _("answer key")
        return [_("{file}: {name} — {pages} page(s); print single-sided at 100 %.").format(
            file=Path(f.path).name, name=what, pages=f.pages)]
    members = [game.components[m] for m in f.members]
    comp = members[0] if members else game.components[f.spare_of or f.component]
    name = " + ".join(_(m.name, "component") for m in members) if members else _(comp.name, "component")
    if f.spare_of:
        name = _("{name}, spare set").format(name=name)
    lines = [_("{file}: {name} — {cards} piece(s) on {sheets} sheet(s), {pages} page(s); {layout}.").format(
        file=Path(f.path).name, name=name, cards=f.cards, sheets=f.sheets, pages=f.pages,
        layout=f.printed_layout or f.layout)]
    if f.double_sided:
        lines.append("    " + _("Double-sided: odd pages (1, 3, …) are fronts, even pages (2, 4, …) are their "
                                "backs."))
    else:
        lines.append("    " + _("Single-sided: every page is a front."))
    if members:
        lines.append("    " + {
            "ticks": _("Cut: {cuts} cuts in all, straight ones from tick to tick, shaped pieces along their grey "
                       "outline."),
            "lines": _("Cut: {cuts} cuts in all, straight ones along the printed lines, shaped pieces along their "
                       "grey outline."),
            "none": _("Cut: {cuts} cuts in all, straight ones along the pieces' edges (no cut marks are printed: "
                      "--marks none), shaped pieces along their grey outline.")}[options.marks].format(cuts=f.cuts))
    else:
        lines.append("    " + _cutting(comp, f, _, options))
    if f.level_mark:
        lines.append("    " + _("Marked \"{level}+\": needed from level {level} on; keep these apart from the "
                                "base set.").format(level=f.level_mark))
    elif comp.level > 1:
        lines.append("    " + _("Needed from level {level} on.").format(level=comp.level))
    lines += ["    " + _(part.print_note, "component.print_note")
              for part in members or [comp] if part.print_note and not f.spare_of]
    return lines


def _cutting(comp: Component, built: BuiltFile, _: Say, options: BuildOptions) -> str:
    """How to cut one file's pieces, in one sentence, by what the file prints to cut along:
    ticks, full lines (``--marks lines``), nothing (``--marks none``), or one piece per page
    for a print service (``--mode single``)."""
    if options.mode == "single":
        return _("One piece per page, for a print service: the PDF's trim box is the cut ({width} × {height} mm; "
                 "the artwork runs on beyond it as bleed).").format(width=f"{comp.width:g}", height=f"{comp.height:g}")
    if built.cards_per_sheet == 0:
        return _("Tiled: first lay the pages out as the label under each page says (the labels are cut off with "
                 "the margins), then trim each page at its corner ticks ({cuts} cuts) and glue each page over the "
                 "strip marked 'glue here' of its neighbour.").format(cuts=built.cuts)
    if "interlocking" in built.layout:
        if options.marks == "ticks":
            return _("Cut: {cuts} straight cuts along the grey lines, each line from tick to tick across the sheet; "
                     "neighbouring pieces share every cut.").format(cuts=built.cuts)
        return _("Cut: {cuts} straight cuts along the grey lines, each line across the sheet; neighbouring pieces "
                 "share every cut.").format(cuts=built.cuts)
    if comp.shape.is_rectangular:
        return {"ticks": _("Cut: {cuts} straight cuts (guillotine or ruler) from tick to tick."),
                "lines": _("Cut: {cuts} straight cuts (guillotine or ruler) along the printed lines."),
                "none": _("Cut: {cuts} straight cuts (guillotine or ruler) along the pieces' edges: no cut marks are "
                          "printed (--marks none).")}[options.marks].format(cuts=built.cuts)
    return _("Cut out each piece along its grey outline with scissors ({cuts} cuts).").format(cuts=built.cuts)
