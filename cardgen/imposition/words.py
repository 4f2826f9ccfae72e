"""The words imposition uses to describe a layout: each plan's ``describe(_)`` takes the
caller's ``_(msgid, context)`` — the build passes the deck's catalog, so PRINTING.txt says
"A4 Hochformat, 3×3 = 9 Karten pro Bogen" for a German deck — and writes English without one.
The strings are written ``_("...")`` here, in :mod:`.plan` and in :mod:`.tiling`, where
``cardgen i18n extract`` reads them (see ``cardgen.i18n.PRINTED_SOURCES``)."""

from __future__ import annotations

from typing import Callable

#: ``_(msgid, context=None)``: a string in the reader's language.
Say = Callable[..., str]


def english(msgid: str, context: str | None = None) -> str:
    """The string as written (English)."""
    return msgid


def orientation(_: Say, which: str) -> str:
    """"portrait" or "landscape" in the reader's language."""
    return {"portrait": _("portrait"), "landscape": _("landscape")}[which]
