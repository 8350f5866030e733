"""Subset the Noto fonts the web client bundles to the scripts it shows.

Each subset keeps every letter, mark and digit of its script's blocks (a
player's name may use any of them, not only those the catalogs use: the
catalogs never write ઞ, but પ્રજ્ઞેશ is a common name), the presentation
forms and punctuation the catalogs use, and the few shared characters of
ALWAYS. Run again after a catalog brings a character outside those blocks
(docs/translations.md):

    pip install fonttools brotli            # a tool, not a dependency of Dicecup
    apt-get install fonts-noto-core         # Debian's Noto fonts (SIL OFL 1.1)
    python tools/subset_fonts.py

Writes app/web/static/fonts/<Font>.subset.woff2 for Myanmar, Gujarati and
Arabic (Latin and Cyrillic use the system's fonts). Every layout feature is
kept, so the scripts still shape (conjuncts, joining forms, stacked marks).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from fontTools import subset

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "app" / "web" / "static"
NOTO = Path("/usr/share/fonts/truetype/noto")
FONTS = {
    "NotoSansMyanmar": r"[\u1000-\u109F\uA9E0-\uA9FF\uAA60-\uAA7F]",
    "NotoSansGujarati": r"[\u0A80-\u0AFF\u0964\u0965]",
    "NotoSansArabic": r"[\u0600-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFF]",
}
"""The characters of each font the pages may show (its @font-face unicode-range)."""
WHOLE = {
    "NotoSansMyanmar": ((0x1000, 0x109F), (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F)),
    "NotoSansGujarati": ((0x0A80, 0x0AFF), (0x0964, 0x0965)),
    "NotoSansArabic": ((0x0600, 0x06FF), (0x0750, 0x077F)),
}
"""The blocks kept whole, every character the font has there (names are typed
in these; Arabic's presentation forms are not, so only those the catalogs use)."""
ALWAYS = " \u200b\u200c\u200d\u200e\u200f\u2068\u2069\u25cc.,:;!?()-\u2013\u2026"


def used_text() -> str:
    text = [path.read_text(encoding="utf-8") for path in (STATIC / "i18n").glob("*.json")]
    text.append((STATIC / "js" / "i18n.js").read_text(encoding="utf-8"))  # the languages' own names
    return "".join(text)


def main() -> int:
    text = used_text()
    out = STATIC / "fonts"
    out.mkdir(exist_ok=True)
    for family, script in FONTS.items():
        for weight in ("Regular", "Bold"):
            source = NOTO / f"{family}-{weight}.ttf"
            mapped = subset.load_font(str(source), subset.Options()).getBestCmap()
            whole = {chr(code) for code in mapped if any(low <= code <= high for low, high in WHOLE[family])}
            chars = sorted(whole | set(re.findall(script, text)) | set(ALWAYS))
            target = out / f"{family}-{weight}.subset.woff2"
            options = subset.Options()
            options.flavor = "woff2"
            options.layout_features = ["*"]
            options.name_IDs = ["*"]
            options.name_languages = ["*"]
            options.notdef_outline = True
            font = subset.load_font(str(source), options)
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=[ord(c) for c in chars])
            subsetter.subset(font)
            subset.save_font(font, str(target), options)
            print(f"{target.relative_to(ROOT)}: {len(chars)} characters, {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
