"""The parts of the Unicode Bidirectional Algorithm (UAX #9) that card text needs.

python-bidi only returns a reordered *string*, but shaping needs embedding *levels*
(to split text into directional runs before HarfBuzz sees it) and reordering has to
happen per line, after line breaking. So levels are resolved here from
``unicodedata.bidirectional``:

* P2/P3 paragraph direction from the first strong character;
* weak types W1-W7, bracket pairs N0, neutrals N1-N2, implicit levels I1-I2;
* L2 reordering of whole runs.

Explicit embedding/override/isolate controls (LRE, RLO, LRI, ... ) are treated as
invisible and do not open embeddings; LRM/RLM/ALM marks work, which is what translators
use in practice. Mirroring of brackets in right-to-left runs is left to HarfBuzz.
"""

from __future__ import annotations

from unicodedata import bidirectional

# Removed by rule X9; they take the level of the preceding character.
_REMOVED = frozenset({"BN", "LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})
_NEUTRAL = frozenset({"B", "S", "WS", "ON"})
# Bidi_Paired_Bracket pairs (BidiBrackets.txt) that card text can plausibly contain.
_PAIRS = "()[]{}⁅⁆⁽⁾₍₎⌈⌉⌊⌋〈〉⟦⟧⟨⟩⟪⟫⦃⦄⦅⦆〈〉《》「」『』【】〔〕〖〗〘〙〚〛（）［］｛｝｟｠｢｣"
_CLOSING_OF = {_PAIRS[i]: _PAIRS[i + 1] for i in range(0, len(_PAIRS), 2)}
_CLOSERS = frozenset(_CLOSING_OF.values())
_MAX_BRACKET_DEPTH = 63  # BD16


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


def _bracket_pairs(chars: list[str], types: list[str]) -> list[tuple[int, int]]:
    """BD16: positions of matching bracket pairs, sorted by opening position."""
    stack: list[tuple[str, int]] = []
    pairs = []
    for k, char in enumerate(chars):
        if types[k] != "ON":
            continue
        if char in _CLOSING_OF:
            if len(stack) == _MAX_BRACKET_DEPTH:
                break
            stack.append((_CLOSING_OF[char], k))
        elif char in _CLOSERS:
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == char:
                    pairs.append((stack[depth][1], k))
                    del stack[depth:]
                    break
    return sorted(pairs)


def _resolve_brackets(chars: list[str], types: list[str], original: list[str], sos: str,
                      embedding: str) -> None:
    """N0: a bracket pair takes the embedding direction if that direction occurs inside it,
    else the opposite direction when it occurs inside and also before the pair; so
    ``(up)`` inside Hebrew stays a right-to-left parenthesis around a Latin word."""
    for open_at, close_at in _bracket_pairs(chars, types):
        inside = {_strong_direction(t) for t in types[open_at + 1:close_at]
                  if t in ("L", "R", "EN", "AN")}
        if not inside:
            continue
        if embedding in inside:
            direction = embedding
        else:
            before = next((_strong_direction(t) for t in reversed(types[:open_at])
                           if t in ("L", "R", "EN", "AN")), sos)
            direction = before  # the opposite direction if it also precedes the pair
        for k in (open_at, close_at):
            types[k] = direction
            j = k + 1
            while j < len(types) and original[j] == "NSM":  # marks follow their bracket
                types[j] = direction
                j += 1


def resolve_levels(text: str, base_level: int) -> list[int]:
    """Embedding level of every character of one paragraph (rules W1-W7, N0-N2, I1-I2)."""
    all_types = [bidirectional(c) for c in text]
    kept = [i for i, kind in enumerate(all_types) if kind not in _REMOVED]
    types = [all_types[i] for i in kept]
    original = list(types)
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
    _resolve_brackets([text[i] for i in kept], types, original, sos, embedding)
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
