"""Time the text engine per card: layout + SVG emission of ~8 short strings.

A "card" here is one fresh GlyphRegistry, eight ``layout`` calls (boxes, wrapping and
auto-shrink as templates use them), eight ``to_svg`` calls and one ``defs()``. Two cases
per script:

* repeated: the same card again and again, as when labels repeat across a deck
  (layout cache hits; emission and defs still run every time);
* unique: every card has different strings (a card number is appended), so each
  paragraph is shaped and laid out anew; only fonts and glyph outlines are warm.

Prints the median milliseconds per card; no assertions.

    .venv/bin/python -m bench.bench_text [--cards 200]    # from the repository root
"""

from __future__ import annotations

import argparse
import statistics
import time

from cardgen.text import GlyphRegistry, TextEngine

CARDS = {
    "latin": ["Up quark", "Charge +2/3 e   Mass 2.2 MeV/c²", "Spin 1/2 · Generation I",
              "Combines with a down quark", "Anti-up quark ū → decays never",
              "Colour: red, green or blue", "Baryon number +1/3", "Fermion · Quark"],
    "arabic": ["كوارك علوي", "الشحنة +2/3   الكتلة 2.2 MeV", "اللف المغزلي 1/2",
               "يتحد مع كوارك سفلي", "الجيل الأول من الكواركات", "اللون: أحمر أو أخضر",
               "العدد الباريوني 1/3", "فرميون · كوارك"],
    "chinese": ["上夸克", "电荷 +2/3 e   质量 2.2 MeV", "自旋 1/2 · 第一代",
                "与下夸克结合形成质子和中子", "反上夸克", "颜色：红色、绿色或蓝色",
                "重子数 +1/3", "费米子 · 夸克"],
    "devanagari": ["अप क्वार्क", "आवेश +2/3 द्रव्यमान 2.2 MeV", "स्पिन 1/2 · पहली पीढ़ी",
                   "डाउन क्वार्क के साथ जुड़ता है", "प्रति-अप क्वार्क", "रंग: लाल, हरा या नीला",
                   "बैरियन संख्या +1/3", "फर्मिऑन · क्वार्क"],
}
LANGS = {"latin": "en", "arabic": "ar", "chinese": "zh", "devanagari": "hi"}
# (size mm, box width, box height, min_size, weight) per string slot, like a card template.
SLOTS = [(6, 50, 9, 4, "bold"), (3, 50, None, None, "regular"), (3, 50, None, None, "regular"),
         (3.2, 50, 12, 2.5, "regular"), (3, 50, None, None, "regular"),
         (3, 50, None, None, "regular"), (2.8, 24, None, None, "regular"),
         (2.8, 24, None, None, "bold")]


def render_card(engine: TextEngine, texts: list[str], lang: str) -> int:
    reg = GlyphRegistry()
    parts = []
    for k, (text, (size, width, height, min_size, weight)) in enumerate(zip(texts, SLOTS)):
        res = engine.layout(text, size=size, width=width, height=height, min_size=min_size,
                            weight=weight, lang=lang, align="middle")
        parts.append(res.to_svg(5, 5 + 10 * k, reg))
    return len(reg.defs()) + sum(map(len, parts))


def median_ms(engine: TextEngine, texts: list[str], lang: str, cards: int, unique: bool) -> float:
    times = []
    for n in range(cards):
        card = [f"{t} {n}" for t in texts] if unique else texts
        start = time.perf_counter()
        render_card(engine, card, lang)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description="text engine per-card timing")
    parser.add_argument("--cards", type=int, default=200)
    args = parser.parse_args()
    start = time.perf_counter()
    engine = TextEngine.default()
    for script, texts in CARDS.items():  # warm-up: fonts, outlines
        render_card(engine, texts, LANGS[script])
    print(f"engine start + warm-up: {(time.perf_counter() - start) * 1000:.0f} ms")
    print(f"{'script':<12}{'repeated':>12}{'unique':>12}   (median ms per card, 8 strings)")
    for script, texts in CARDS.items():
        repeated = median_ms(engine, texts, LANGS[script], args.cards, unique=False)
        unique = median_ms(engine, texts, LANGS[script], args.cards, unique=True)
        print(f"{script:<12}{repeated:>12.3f}{unique:>12.3f}")


if __name__ == "__main__":
    main()
