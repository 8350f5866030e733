"""The languages of the API's labels: rule-set, box and section names for
``GET /api/rulesets`` in English, Burmese, Swahili, Gujarati, Arabic and
Mongolian (``docs/translations.md``).

One data file per language (``<code>.json`` beside this module); English
labels come from the rule sets themselves (:mod:`app.rules` knows nothing of
translations). A language is chosen by ``?lang=`` (one of :class:`Language`),
else by the ``Accept-Language`` header, else English.
"""

from __future__ import annotations

import json
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from app.rules.ruleset import RuleSet

DATA = Path(__file__).parent


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


def push_text(language: Language, code: str, round_number: int) -> tuple[str, str]:
    """A turn notification's title and body (``app.notify``) in ``language``."""
    push = _data(language).get("push") or _data(DEFAULT)["push"]
    return str(push["title"]), str(push["body"]).format(code=code, round=round_number)
