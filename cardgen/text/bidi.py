"""The parts of the Unicode Bidirectional Algorithm (UAX #9) that card text needs.

python-bidi only returns a reordered *string*, but shaping needs embedding *levels*
(to split text into directional runs before HarfBuzz sees it) and reordering has to
happen per line, after line breaking. So levels are resolved here from
``unicodedata.bidirectional``:

* P2/P3 paragraph direction from the first strong character;
* weak types W1-W7, neutrals N1-N2, implicit levels I1-I2;
* L2 reordering of whole runs.

Explicit embedding/override/isolate controls (LRE, RLO, LRI, ... ) are treated as
invisible and do not open embeddings; LRM/RLM/ALM marks work, which is what translators
use in practice. Bracket pairing (N0) is not implemented; HarfBuzz still mirrors
brackets inside right-to-left runs.
"""

from __future__ import annotations

from unicodedata import bidirectional

# Removed by rule X9; they take the level of the preceding character.
_REMOVED = frozenset({"BN", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_NEUTRAL = frozenset({"B", "S", "WS", "ON"})


def paragraph_level(text: str) -> int | None:
    """Rules P2/P3: 1 if the first strong character is right-to-left, 0 if left-to-right,
    None if the text has no strong character at all."""
    for char in text:
        kind = bidirectional(char)
        if kind == "L":
            return 0
        if kind in ("R", "AL"):
            return 1
    return None


def _strong_direction(kind: str) -> str:
    """Direction a resolved type counts as for rule N1 (numbers count as R)."""
    return "L" if kind == "L" else "R"


def resolve_levels(text: str, base_level: int) -> list[int]:
    """Embedding level of every character of one paragraph (rules W1-W7, N1-N2, I1-I2)."""
    all_types = [bidirectional(c) for c in text]
    kept = [i for i, kind in enumerate(all_types) if kind not in _REMOVED]
    types = [all_types[i] for i in kept]
    n = len(types)
    sos = "R" if base_level % 2 else "L"

    prev = sos
    for k in range(n):  # W1: non-spacing marks take the type of what precedes them
        if types[k] == "NSM":
            types[k] = prev
        prev = types[k]

    last_strong = sos
    for k in range(n):  # W2 (European digits after Arabic letters are Arabic numbers), W3
        kind = types[k]
        if kind in ("L", "R", "AL"):
            last_strong = kind
            if kind == "AL":
                types[k] = "R"
        elif kind == "EN" and last_strong == "AL":
            types[k] = "AN"

    for k in range(1, n - 1):  # W4: single separators between numbers join them
        kind, before, after = types[k], types[k - 1], types[k + 1]
        if kind == "ES" and before == after == "EN":
            types[k] = "EN"
        elif kind == "CS" and before == after and before in ("EN", "AN"):
            types[k] = before

    k = 0
    while k < n:  # W5: terminators (%, $, ...) next to European numbers become numbers
        if types[k] != "ET":
            k += 1
            continue
        j = k
        while j < n and types[j] == "ET":
            j += 1
        if (k > 0 and types[k - 1] == "EN") or (j < n and types[j] == "EN"):
            types[k:j] = ["EN"] * (j - k)
        k = j

    last_strong = sos
    for k in range(n):  # W6: leftover separators are neutral; W7: EN after L is L
        kind = types[k]
        if kind in ("ES", "ET", "CS"):
            types[k] = "ON"
        elif kind in ("L", "R"):
            last_strong = kind
        elif kind == "EN" and last_strong == "L":
            types[k] = "L"

    embedding = "R" if base_level % 2 else "L"
    k = 0
    while k < n:  # N1/N2: neutrals between same-direction text take it, else the embedding's
        if types[k] not in _NEUTRAL:
            k += 1
            continue
        j = k
        while j < n and types[j] in _NEUTRAL:
            j += 1
        before = sos if k == 0 else _strong_direction(types[k - 1])
        after = sos if j == n else _strong_direction(types[j])
        types[k:j] = [before if before == after else embedding] * (j - k)
        k = j

    levels = [base_level] * len(text)
    for k, i in enumerate(kept):  # I1/I2
        kind = types[k]
        if base_level % 2 == 0:
            levels[i] = base_level + (1 if kind == "R" else 2 if kind in ("AN", "EN") else 0)
        else:
            levels[i] = base_level + (1 if kind in ("L", "EN", "AN") else 0)
    for i in range(1, len(text)):  # X9 leftovers sit at their predecessor's level
        if all_types[i] in _REMOVED:
            levels[i] = levels[i - 1]
    return levels


def visual_order(levels: list[int]) -> list[int]:
    """Rule L2: indices of items (characters or uniform-level runs) in display order.

    From the highest level down to the lowest odd level, every maximal sequence at that
    level or higher is reversed.
    """
    order = list(range(len(levels)))
    if not levels:
        return order
    highest = max(levels)
    lowest_odd = min(levels) | 1
    for level in range(highest, lowest_odd - 1, -1):
        k = 0
        while k < len(order):
            if levels[order[k]] < level:
                k += 1
                continue
            j = k
            while j < len(order) and levels[order[j]] >= level:
                j += 1
            order[k:j] = order[k:j][::-1]
            k = j
    return order
