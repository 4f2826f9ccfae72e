"""What each declared rule enforces and how a designer changes it, in a designer's words.

`cardgen new` writes these lines as comments above the checks it copies, so the first card a
designer adds or removes is not refused by a check they never wrote and cannot read. A rule
without an entry here is described by the first sentence of its docstring.
"""

from __future__ import annotations

import re

from . import DECLARED

GUIDE: dict[str, tuple[str, str]] = {
    "deck-size": ("the component has exactly `total` cards (and, with `by`/`counts`, that many of each kind)",
                  "when you add or remove cards on purpose, change `total` and `counts` to the new numbers"),
    "antiparticles-present": ("every fermion card has its antiparticle in the deck",
                              "add the missing antiparticle card, or delete this check for a deck without them"),
    "colour-balance": ("each colour charge appears as often as its anti-colour",
                       "keep colours and anti-colours in pairs when you change counts"),
    "colour-wheel": ("the colour-neutral combinations the rules score can be made from the deck",
                     "keep at least one card of each colour per flavour"),
    "targets": ("each target can be built from the deck, is colour-neutral and scores by difficulty",
                "change a target's `requires` or points, or add cards to the deck"),
    "places-cover-deck": ("every card of the deck has a place on the board, or a declared stacking rule",
                          "add a place under the board's `places:` that takes the new card, or a `stacking:` rule"),
    "couplings": ("every reaction in the table goes through Standard Model vertices",
                  "fix the row the finding names, or declare a loop process with `loop:` and its reason"),
    "kinematics": ("every decay's real products are lighter than the particle that decays",
                   "declare a product `virtual`, or a reaction that needs energy with `energy:` and its reason"),
    "weak-transitions": ("each flavour change is a charge-changing weak transition a W can make",
                         "change the row to a transition that changes the charge by one unit"),
    "printed-values": ("what each card prints in the named fields is its particle's charge, spin, mass or lifetime",
                       "print the value with its filter ({{ p.mass|mass }}) in the field the check names"),
    "vertex-points": ("rarer vertices never score fewer points than commoner ones",
                      "reorder the points when you change the deck's card counts"),
    "score-tokens": ("each score token names a valid vertex and no kind outnumbers what the deck can score",
                     "change the token split, or declare a `surplus:` with its reason"),
    "sub-diagrams": ("each expert sub-diagram names Standard-Model vertices of the table that join into one connected "
                     "diagram, leaving exactly the external lines the check states for it",
                     "fix the row's `vertices`, or the check's `external` lines for that row"),
    "levels": ("each component and table comes into play at the level the levels table adds it, and the levels run "
               "1 to N once each",
               "set the `level:` the finding names, or move the id to the `adds` of the level it belongs to"),
    "result-ranges": ("the score ranges of a results table give every score exactly one result, in order",
                      "start each range one above where the next lower one ends; leave `points_to` off the top "
                      "range and `points_from` off the bottom one"),
    "flavour-energies": ("the energy printed for each flavour follows the physics of quark masses",
                         "keep energies in PDG's mass order; record a deliberate deviation with `deviation:`"),
    "transformations": ("each transformation conserves charge, baryon and lepton numbers, and none is missing",
                        "fix the row the finding names, or add the transformation it says is missing"),
    "conservation": ("each reaction in the table conserves the listed quantities",
                     "fix the products of the row the finding names"),
    "dice-coverage": ("every die face of every roll has exactly one outcome",
                      "make the face ranges cover 1 to the die's sides once"),
    "vertices-derived": ("the vertex table is exactly the Standard Model's vertices among the line types",
                         "add or remove the vertex the finding names"),
    "rotated-index": ("no text printed upside down (a corner index) reads as another symbol the other way up",
                      "draw a short rule or dot under a turned index such as u, d, q, 6 (as playing cards underline "
                      "6 and 9), or leave the turned copy out"),
    "text-size": ("no text on any face is printed smaller than `min_pt` points at 100 % (default 6)",
                  "make the text and its min_size larger; to print smaller on purpose set `min_pt` with a `reason`"),
    "text-contrast": ("every text contrasts with what is painted behind it by at least `min_ratio` : 1 "
                      "(default 4.5, WCAG AA)",
                      "change the text's or the background's colour (ink_on(fill) picks a readable ink); a lower "
                      "`min_ratio` needs a `reason`"),
    "setup-balance": ("the setup table deals out exactly the cards in the deck",
                      "change the setup numbers so they add up to the deck size"),
}


def describe(rule: str) -> tuple[str, str]:
    """(what the rule enforces, how to change it) for a comment above a copied check."""
    if rule in GUIDE:
        return GUIDE[rule]
    doc = (DECLARED[rule].__doc__ or "").strip() if rule in DECLARED else ""
    first = re.split(r"(?<=\.)\s", " ".join(doc.split()), maxsplit=1)[0].rstrip(".").replace("``", "`")
    return (first or f"the '{rule}' rule", "see docs/data-format.md, 'Checks a game can declare'")
