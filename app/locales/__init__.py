"""The languages of the API's labels: rule-set, box and section names for
``GET /api/rulesets`` in English, Burmese, Swahili, Gujarati, Arabic and
Mongolian (``docs/translations.md``), and the sentences the server itself
sends people (turn notifications).

One data file of labels per language (``<code>.json`` beside this module);
English labels come from the rule sets themselves (:mod:`app.rules` knows
nothing of translations). Sentences come from the web client's catalogs
(``app/web/static/i18n/<code>.json``, :func:`message`), the one source of
every sentence a player reads, so a push says what the client says. A
language is chosen by ``?lang=`` (one of :class:`Language`), else by the
``Accept-Language`` header, else English.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from app.rules.ruleset import RuleSet

DATA = Path(__file__).parent
CATALOGS = DATA.parent / "web" / "static" / "i18n"
"""The web client's message catalogs (shipped in the package with the client)."""


class Language(StrEnum):
    """Every language the labels are in (a new one: its data file and a member here)."""

    EN = "en"
    MY = "my"
    SW = "sw"
    GU = "gu"
    AR = "ar"
    MN = "mn"


DEFAULT = Language.EN
_CODES = {language.value: language for language in Language}


@cache
def _data(language: Language) -> dict[str, Any]:
    data = json.loads((DATA / f"{language.value}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def negotiate(asked: Language | None, accept_language: str | None) -> Language:
    """``?lang=`` if given, else the best language of an ``Accept-Language``
    header (RFC 9110 weights; ``sw-KE`` counts as ``sw``), else English.
    A malformed header counts as absent."""
    if asked is not None:
        return asked
    best: tuple[float, int, Language] | None = None
    for position, item in enumerate((accept_language or "")[:1000].split(",")[:50]):
        tag, _, params = item.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if not 0.0 < quality <= 1.0:
            continue
        language = _CODES.get(tag.strip().lower().replace("_", "-").split("-")[0])
        if language is not None and (best is None or (quality, -position) > (best[0], best[1])):
            best = (quality, -position, language)
    return best[2] if best else DEFAULT


def ruleset_label(language: Language, rules: RuleSet) -> str:
    label = _data(language).get("rulesets", {}).get(rules.name, {}).get("label")
    return label if isinstance(label, str) and label else rules.label


def box_label(language: Language, rules: RuleSet, box: str) -> str:
    label = _data(language).get("rulesets", {}).get(rules.name, {}).get("boxes", {}).get(box)
    return label if isinstance(label, str) and label else rules.box_labels.get(box, box)


def section_label(language: Language, section: str) -> str:
    label = _data(language).get("sections", {}).get(section)
    return label if isinstance(label, str) and label else _data(DEFAULT)["sections"][section]


@cache
def _catalog(language: Language) -> dict[str, Any]:
    data = json.loads((CATALOGS / f"{language.value}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_ISOLATE = "\u2068{}\u2069"


def message(language: Language, key: str, **params: str | int) -> str:
    """The catalog's message ``key`` in ``language`` (English where it has none),
    its ``{placeholders}`` filled as the client's ``t()`` fills them
    (``js/i18n.js``): numbers in Latin digits, and in a right-to-left language
    every text (a room code, a name) isolated (FSI ... PDI) so its letters
    cannot reorder the sentence around it."""
    catalog = _catalog(language)
    text = catalog.get(key) or _catalog(DEFAULT)[key]
    rtl = catalog.get("_meta", {}).get("dir") == "rtl"

    def fill(match: re.Match[str]) -> str:
        if match.group(1) not in params:
            return match.group(0)
        value = params[match.group(1)]
        if isinstance(value, int):
            return str(value)
        return _ISOLATE.format(value) if rtl else value

    return _PLACEHOLDER.sub(fill, str(text))


def push_text(language: Language, code: str, round_number: int) -> tuple[str, str]:
    """A turn notification's title and body (``app.notify``) in ``language``:
    the client's own "Your turn" and ``push.turn_body``."""
    return message(language, "game.your_turn"), message(language, "push.turn_body", code=code, round=round_number)
