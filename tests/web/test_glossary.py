"""One word for each game term in each language (issue 30): every text a
player reads (the web client's catalogs, the rules pages built from them, the
server's labels and the turn notifications) is searched for the alternates
each language's glossary (docs/glossary/<lang>.json) rejects, for digits other
than 0-9 where the glossary's policy is Latin digits, and, where the language
has case endings (Mongolian), for an ending glued to a {placeholder}.
docs/translations.md says how to read and extend a glossary."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from app.locales import DATA, Language, push_text
from app.rules import RULESETS

ROOT = Path(__file__).resolve().parents[2]
GLOSSARIES = ROOT / "docs" / "glossary"
CATALOGS = ROOT / "app" / "web" / "static" / "i18n"
HOWTO = ROOT / "app" / "web" / "static" / "js" / "howto.js"
LANGS = [language.value for language in Language]
PLACEHOLDER_ENDING = re.compile(r"\{(\w+)\}(-?[^\W\d_]+)")
WORD_JOINER = "\u2060"
"""Kept inside Burmese loanwords where a line must not break (docs/translations.md)."""

Text = tuple[str, str, str]
"""(where, key, text): where a player reads it, its key there, and the text."""


def glossary(lang: str) -> dict[str, Any]:
    data = json.loads((GLOSSARIES / f"{lang}.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def catalog(lang: str) -> dict[str, str]:
    data = json.loads((CATALOGS / f"{lang}.json").read_text(encoding="utf-8"))
    return {key: value for key, value in data.items() if not key.startswith("_")}


def rules_page_keys() -> set[str]:
    """The catalog keys js/howto.js puts on a rules page (/rules/<rule set>)."""
    source = HOWTO.read_text(encoding="utf-8")
    keys = set(re.findall(r"\bt\('([\w.]+)'", source))
    shared = dict(re.findall(r"'(\w+\.\w+)': '(howto\.[\w.]+)'", source))
    keys |= set(shared.values()) | set(re.findall(r"'(howto\.\w+\.\w+)'", source))
    for name, rules in RULESETS.items():
        keys |= {f"ruleset.{name}", f"rules.{name}"}
        for box in rules.boxes:
            keys.add(f"box.{name}.{box}")
            if box not in rules.upper_boxes:
                keys.add(shared.get(f"{name}.{box}", f"howto.{name}.{box}"))
    return keys


def labels(node: Any, path: str = "") -> list[tuple[str, str]]:
    if isinstance(node, str):
        return [(path, node)]
    if isinstance(node, dict):
        return [item for key, value in node.items() for item in labels(value, f"{path}.{key}".strip("."))]
    return []


def texts(lang: str) -> list[Text]:
    """Every text of the language, by where a player reads it."""
    messages = catalog(lang)
    shown = [("catalog", key, text) for key, text in messages.items()]
    shown += [("rules page", key, messages[key]) for key in sorted(rules_page_keys())]
    server = json.loads((DATA / f"{lang}.json").read_text(encoding="utf-8"))
    shown += [("server label", key, text) for key, text in labels(server)]
    title, body = push_text(Language(lang), "K7QXRP", 12)
    shown += [("push", "title", title), ("push", "body", body)]
    return shown


def violations(lang: str, shown: list[Text]) -> list[str]:
    """What the glossary of ``lang`` refuses in ``shown``: rejected alternates,
    non-Latin digits (where the policy is Latin), endings glued to placeholders."""
    rules = glossary(lang)
    found = []
    for term in rules["terms"]:
        for rejected in term["rejected"]:
            pattern, keys = re.compile(rejected["pattern"]), rejected.get("keys")
            for where, key, text in shown:
                if keys and not (where in ("catalog", "rules page") and re.search(keys, key)):
                    continue
                if match := pattern.search(text):
                    context = text[max(0, match.start() - 30) : match.end() + 30]
                    found.append(f"{where} {key}: {term['term']}: {rejected['pattern']!r} in {context!r}")
    if rules["digits"] == "latin":
        for where, key, text in shown:
            digits = {c for c in text if unicodedata.category(c) == "Nd" and not "0" <= c <= "9"}
            if digits:
                found.append(f"{where} {key}: digits {''.join(sorted(digits))} (policy: 0-9) in {text!r}")
    endings = rules.get("endings_after_placeholders")
    if endings is not None:
        for where, key, text in shown:
            for name, ending in PLACEHOLDER_ENDING.findall(text):
                if name not in endings.get(ending, []):
                    found.append(f"{where} {key}: ending {ending!r} glued to {{{name}}} in {text!r}")
    return found


CORE = {
    "dice",
    "roll (verb)",
    "roll (noun)",
    "keep",
    "points",
    "scorecard",
    "box",
    "upper section",
    "bonus",
    "turn",
    "round",
    "player",
    "upper boxes",
    "three/four of a kind",
    "full house",
    "straights",
    "chance",
}
"""The game's terms every glossary settles (more where a language needs them)."""


def test_a_glossary_per_language_settles_the_game_terms() -> None:
    assert sorted(path.stem for path in GLOSSARIES.glob("*.json")) == sorted(LANGS)
    for lang in LANGS:
        terms = [term["term"] for term in glossary(lang)["terms"]]
        assert len(terms) == len(set(terms)), f"{lang}: a term twice"
        assert set(terms) >= CORE, f"{lang}: no entry for {sorted(CORE - set(terms))}"


@pytest.mark.parametrize("lang", LANGS)
def test_each_term_is_the_word_the_catalog_uses(lang: str) -> None:
    """Each entry is complete, its patterns compile, a word that departs from the
    rule book says why, and the word is the one the catalog uses (the glossary
    is not a list of wishes)."""
    rules = glossary(lang)
    assert rules["language"] == lang and rules["digits"] in ("latin", "native")
    every = "\n".join(catalog(lang).values()).replace(WORD_JOINER, "").casefold()
    problems = []
    for term in rules["terms"]:
        assert {"term", "en", "word", "seed", "rejected"} <= set(term), term
        for rejected in term["rejected"]:
            re.compile(rejected["pattern"])
            assert rejected.get("why"), (lang, term["term"], rejected)
        word, seed = term["word"].casefold(), term["seed"].casefold()
        first = re.split(r" ?[,(/;]", seed)[0].strip()
        if not seed.startswith("(none") and word not in seed and first not in word and not term.get("why"):
            problems.append(f"{term['term']}: {term['word']} departs from the rule book's {term['seed']} without a why")
        forms = [form.replace(WORD_JOINER, "").casefold() for form in [term["word"], *term.get("forms", [])]]
        if not any(form in every for form in forms):
            problems.append(f"{term['term']}: the catalog never says {term['word']}")
    assert not problems, f"docs/glossary/{lang}.json:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_no_rejected_alternate_anywhere_a_player_reads(lang: str) -> None:
    found = violations(lang, texts(lang))
    assert not found, f"{lang}: " + "\n".join(found)


def test_every_place_a_player_reads_is_searched() -> None:
    shown = texts("mn")
    kinds = {where for where, _, _ in shown}
    assert kinds == {"catalog", "rules page", "server label", "push"}
    page = {key for where, key, _ in shown if where == "rules page"}
    assert {"howto.turn", "howto.yacht.example_turn", "box.yacht.choice", "howto.four_sum", "card.box"} <= page
    server = {key for where, key, _ in shown if where == "server label"}
    assert {"rulesets.yacht.boxes.choice", "sections.upper"} <= server


# The review's defects (translations-2026-12-04), as the catalogs had them: each must be refused.
DEFECTS = {
    "my": [
        ("catalog", "box.yahtzee.fives", "ငါးများ"),
        ("catalog", "lc.clock_30s", "တစ်အလှည့်လျှင် ၃၀ စက္ကန့်"),
        ("catalog", "rp.moves", "အကွက်များ"),
        ("catalog", "pf.default_name", "ကစားသူ"),
        ("catalog", "ps.scorecard", "အမှတ်ကတ်"),
        ("catalog", "card.yahtzee_bonus", "Yahtzee ဘောနပ်စ်"),
        ("push", "body", "အခန်း K7QXRP၊ အကြိမ် {round}: အန်စာတုံးတွေက သင့်ကို စောင့်နေပါတယ်။"),
    ],
    "sw": [
        ("catalog", "game.rolls_left.other", "Mizunguko {count} imebaki"),
        ("catalog", "home.code", "Nambari ya chumba"),
        ("catalog", "pf.leaderboards", "Bao za viongozi"),
    ],
    "gu": [
        ("catalog", "lc.resign", "રાજીનામું આપો"),
        ("catalog", "room.away", "દૂર"),
        ("catalog", "feel.five", "{name}ને {box} મળ્યો: {points} પોઇન્ટ!"),
        ("server label", "rulesets.yahtzee.boxes.three_of_a_kind", "એક સરખા ત્રણ"),
        ("push", "body", "રૂમ K7QXRP, રાઉન્ડ 12: પાસા તમારી રાહ જુએ છે."),
    ],
    "ar": [
        ("catalog", "end.winners", "{names} يتقاسمون الفوز!"),
        ("catalog", "room.seats_taken", "{count} من {max} مقاعد مشغولة"),
        ("catalog", "pf.games.one", "لعبة واحدة ({count})"),
        ("catalog", "pf.games.zero", "{count} لعبة"),
        ("catalog", "sr.pad", "ورقة النقاط"),
    ],
    "mn": [
        ("catalog", "game.round", "{rounds}-с {round}-р тойрог"),  # noqa: RUF001
        ("catalog", "game.turn_of", "{name}-н ээлж"),
        ("catalog", "card.score_in", "{box}-д {points} бичих"),
        ("catalog", "pf.place", "{seats}-аас {place}"),  # noqa: RUF001
        ("catalog", "rp.fail.roll", "{roll}-р шидэлтэд шалгалт амжилтгүй ({name}, {round}-р үе)"),  # noqa: RUF001
        ("catalog", "log.rolled", "{name} {dice} буулгалаа"),
    ],
}


# The second reading's findings (issue 30, item 4; docs/translations.md) where a
# wrong word could come back, as the catalogs had them: each must be refused too.
SECOND_READING = {
    "my": [
        ("catalog", "home.join_submit", "အခန်းဖွင့်ရန်"),
        ("catalog", "lc.untimed", "နာရီမရှိ"),
        ("catalog", "lc.turn_clock", "အလှည့်နာရီ"),
        ("catalog", "chat.spectator", "ကြည့်ရှုသူများသည် စကားပြောကို ဖတ်နိုင်သည်။ စာရေးရန် နေရာယူပါ။"),
        ("catalog", "rp.fail.rolloff", "(ဦးစွာ ကစားမည့်သူ ရွေးသည့် လှိမ့်ချက်၊ {name})"),
        ("catalog", "game.rolloff_round", "သရေဖြေ {round}"),
        ("catalog", "howto.turn", "ဖြည့်ပြီးသော အကွက်သည် ဘယ်တော့မှ မပြောင်းလဲပါ။"),
        ("catalog", "error.name_taken", "ဤအခန်းတွင် ထိုအမည်ဖြင့် တစ်ယောက်ရှိပြီးဖြစ်သည်။"),
    ],
    "sw": [
        ("catalog", "howto.yacht.big_straight", "Hasa 2-3-4-5-6: pointi 30."),
        ("catalog", "lc.turn_clock", "Saa ya zamu"),
        ("catalog", "lc.untimed", "Bila saa"),
        ("catalog", "sr.solo", "{name} amepata alama {points}"),
        ("catalog", "pf.stat.upper_bonus_rate", "Bonasi ya juu"),
        ("catalog", "game.rolloff_round", "Marudio {round}"),
        ("catalog", "pf.password_rule", "Vibambo 8 hadi 128"),
        ("catalog", "home.join_submit", "Fungua"),
        ("catalog", "analysis.chose", "ulichocheza: {choice}"),
        ("catalog", "pf.stat.solo_best", "Rekodi yako (peke yako)"),
    ],
    "gu": [
        ("catalog", "log.rolled", "{name}એ {dice} રોલ કર્યા"),
        ("catalog", "card.score_in", "{box}માં {points} નોંધો"),
        ("catalog", "rules.yacht", "સીધી હારના 30 અને યૉટના 50."),
        ("catalog", "chat.spectator", "પ્રેક્ષકો ચેટ વાંચી શકે છે; લખવા માટે બેઠક લો."),
        ("catalog", "lc.turn_clock", "વારાની ઘડિયાળ"),
        ("catalog", "game.goes_first", "{name} પહેલા રમશે"),
        ("catalog", "rp.fail.rolloff", "(કોણ પહેલું તે નક્કી કરતો રોલ, {name})"),
    ],
    "ar": [
        ("catalog", "lc.turn_clock", "ساعة الدور"),
        ("catalog", "lc.untimed", "بلا ساعة"),
        ("catalog", "pf.password_rule", "من 8 إلى 128 محرفًا"),
        ("catalog", "howto.yahtzee.options", "خيارات الغرفة: مع الجوكر الحر يمكن وضع ياتزي الجوكر في أي مربع فارغ"),
        ("catalog", "rp.fail.rolloff", "(رمية تحديد البادئ، {name})"),
        ("catalog", "rules.yacht", "ارمِ حتى ثلاث مرات"),
    ],
    "mn": [
        ("catalog", "lc.away", "байхгүй: автомат тоглогч"),
        ("catalog", "room.away", "байхгүй"),
        ("catalog", "error.not_away", "Тоглоомын үеэр зөвхөн байхгүй тоглогчийг хасаж болно."),
        ("catalog", "confirm.zero", "{box} нүдэнд 0 бичих үү?"),  # noqa: RUF001
        ("catalog", "log.scored", "{name} {box} нүдэнд {points} оноо бичлээ"),
        ("catalog", "qr.caption", "Найзууд чинь утасныхаа камераар уншуулж нэгдэж болно."),
        ("catalog", "chances.method", "Одооноос тоглогч бүр төгс тоглоно гэж үзсэн"),  # noqa: RUF001
        ("catalog", "rules.yacht", "өнхрүүлэх хооронд хүссэн шоогоо үлдээж болно"),
        ("catalog", "rp.fail.rolloff", "(хэн эхлэхийг шийдэх өнхрүүлэлт, {name})"),
        ("catalog", "howto.yahtzee.joker_example", "Тавын нүд бөглөгдсөн"),
    ],
}


@pytest.mark.parametrize(("lang", "defects"), [*DEFECTS.items(), *SECOND_READING.items()])
def test_the_review_defects_are_refused(lang: str, defects: list[Text]) -> None:
    for defect in defects:
        assert violations(lang, [defect]), f"{lang}: {defect} passes the glossary"
    # and what the catalogs say now for the same keys passes
    now = catalog(lang)
    assert not violations(lang, [("catalog", key, now[key]) for where, key, _ in defects if key in now])
