"""Names that look alike compare equal: the confusable skeleton of Unicode
Technical Standard #39 (Unicode Security Mechanisms, section 4), with the
default-ignorable code points removed, as docs/api.md's Names describes.

``skeleton(X)``: X in NFD, its default-ignorable code points (zero-width
characters, joiners, bidirectional controls, variation selectors, tag
characters, Hangul fillers...) removed, each remaining character replaced
by its prototype in the Unicode Consortium's confusables data
(``data/confusables.txt``, Version 13.0.0, vendored unmodified with its
licence, ``data/LICENSE-unicode.txt``), and the result in NFD again. So
Cyrillic capital A (U+0410) is Latin ``A``, mathematical bold A (U+1D400)
and fullwidth A (U+FF21) are ``A``, ``0`` is ``O``.

:func:`name_key` is what two names are compared by: the skeleton of the
name without case (NFKC, case folded) and case folded again (a prototype may
be a capital: ``0`` is ``O``). Pure: the data is read once, on first use."""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

DATA = Path(__file__).parent / "data" / "confusables.txt"

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.0): unicodedata does not expose it.
_IGNORABLE = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def default_ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in _IGNORABLE)


@cache
def _prototypes() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in DATA.read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        source, target, *_ = (field.strip() for field in data.split(";"))
        table[chr(int(source, 16))] = "".join(chr(int(point, 16)) for point in target.split())
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``, default-ignorable code points removed."""
    table = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(table.get(char, char) for char in decomposed if not default_ignorable(char))
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """What names are compared by: equal keys, names a reader takes for each other."""
    return skeleton(skeleton(unicodedata.normalize("NFKC", name).casefold()).casefold())
