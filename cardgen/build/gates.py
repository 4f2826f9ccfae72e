"""What stops a build before it replaces any file: rule findings (the check gate, as
``cardgen check`` finds them), untranslated strings under ``--strict``, and text that would
print cut off or as boxes. Each is an error with exit code 1, like findings: the deck is
wrong, not the command."""

from __future__ import annotations

from .. import i18n
from ..errors import CardgenError, Location, display_path
from ..model import Game
from .options import BuildOptions
from .results import GameBuild


class RuleFindingsError(CardgenError):
    """The rules found the deck wrong: a build of it would print a wrong game (exit 1)."""

    exit_code = 1

    def __init__(self, findings: list) -> None:
        self.findings = findings
        super().__init__(f"not building: {len(findings)} rule finding(s); run 'cardgen check'",
                         findings[0].location if findings else None, "fix the findings 'cardgen check' lists")


class TextProblemsError(CardgenError):
    """Text that would print cut off or as boxes: the deck is not right (exit 1, like findings)."""

    exit_code = 1


class UntranslatedError(CardgenError):
    """--strict and a string without translation: the deck is incomplete (exit 1, like findings)."""

    exit_code = 1


def check_rules(games: list[Game]) -> None:
    """The check gate: every rule of ``cardgen check`` (not its render pass: the build renders
    every face itself, and fails as the check would)."""
    from ..check import check

    report = check(games, render=False)
    if not report.ok:
        raise RuleFindingsError(list(report.findings))


def check_strict(game: Game, result: GameBuild, options: BuildOptions) -> None:
    """With --strict an untranslated string stops the build before anything is written."""
    if options.strict and result.untranslated:
        listing = "; ".join(f"{m!r}" + (f" ({c})" if c else "") for m, c in result.untranslated[:10])
        raise UntranslatedError(f"{game.id}: {len(result.untranslated)} string(s) have no '{options.lang}' "
                                f"translation: {listing}", Location(display_path(i18n.po_path(game, options.lang))),
                                "translate them (cardgen i18n status) or build without --strict")


def check_text(game: Game, result: GameBuild, options: BuildOptions) -> None:
    """Text that does not fit its box, or characters no font covers, stop the build before
    anything is written, with the findings ``cardgen check`` gives for them, unless the user
    allows them (the PDF then shows the overflowing text, and each missing character as a box
    with its code point)."""
    from ..fitcheck import issue_finding

    refused = [i for i in result.issues
               if (i.kind == "overflow" and not options.allow_overflow)
               or (i.kind == "missing-glyphs" and not options.allow_missing_glyphs)]
    if refused:
        findings = list(dict.fromkeys(issue_finding(game, issue) for issue in refused))
        listing = "\n".join(f"  {f}" for f in findings)
        raise TextProblemsError(f"{game.id} ({options.lang}): {len(findings)} text problem(s) would print badly; "
                                f"nothing was written:\n{listing}", findings[0].location,
                                "fix them (cardgen check --lang " + options.lang + " lists them), or print them anyway "
                                "with --allow-overflow / --allow-missing-glyphs", "text")
