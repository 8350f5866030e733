"""GET /api/rulesets in every language (issue 15): ?lang=, Accept-Language,
English fallback, the same ids in every language, and labels that agree with
the web client's catalogs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.locales import DATA, Language, message, negotiate, push_text
from app.rules import RULESETS

CATALOGS = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "i18n"


@pytest.mark.parametrize(
    ("asked", "header", "expected"),
    [
        (None, None, "en"),
        (None, "", "en"),
        (None, "sw", "sw"),
        (None, "sw-KE,sw;q=0.9,en;q=0.8", "sw"),
        (None, "fr-FR, ar;q=0.5, en;q=0.4", "ar"),
        (None, "en;q=0.2, gu;q=0.9", "gu"),
        (None, "mn;q=0, my", "my"),
        (None, "de, fr", "en"),
        (None, "*;q=1", "en"),
        (None, "x;q=zzz, mn;q=1.5, ;;;,,", "en"),
        (Language.AR, "sw", "ar"),
    ],
)
def test_negotiate(asked: Language | None, header: str | None, expected: str) -> None:
    assert negotiate(asked, header).value == expected


def test_a_data_file_per_language() -> None:
    assert sorted(path.stem for path in DATA.glob("*.json")) == sorted(language.value for language in Language)
    assert sorted(path.stem for path in CATALOGS.glob("*.json")) == sorted(language.value for language in Language)


@pytest.mark.parametrize("language", [language for language in Language if language != Language.EN])
def test_server_labels_agree_with_the_client_catalogs(language: Language) -> None:
    data = json.loads((DATA / f"{language.value}.json").read_text(encoding="utf-8"))
    catalog = json.loads((CATALOGS / f"{language.value}.json").read_text(encoding="utf-8"))
    assert set(data["sections"]) == {"upper", "lower"} and all(data["sections"].values())
    for name, rules in RULESETS.items():
        assert data["rulesets"][name]["label"] == catalog[f"ruleset.{name}"]
        assert set(data["rulesets"][name]["boxes"]) == set(rules.boxes), name
        for box in rules.boxes:
            assert data["rulesets"][name]["boxes"][box] == catalog[f"box.{name}.{box}"]


@pytest.mark.parametrize("language", list(Language))
def test_push_texts_are_the_client_catalogs_sentences(language: Language) -> None:
    """One source per sentence (issue 30): a turn notification says the catalog's
    "Your turn" and push.turn_body, filled as the client fills them; the label
    files hold labels only."""
    catalog = json.loads((CATALOGS / f"{language.value}.json").read_text(encoding="utf-8"))
    code = "\u2068K7QXRP\u2069" if catalog["_meta"]["dir"] == "rtl" else "K7QXRP"
    body = catalog["push.turn_body"].replace("{code}", code).replace("{round}", "12")
    assert push_text(language, "K7QXRP", 12) == (catalog["game.your_turn"], body)
    assert "{" not in body and "K7QXRP" in body and "12" in body
    data = json.loads((DATA / f"{language.value}.json").read_text(encoding="utf-8"))
    assert set(data) <= {"name", "sections", "rulesets"}


def test_a_placeholder_not_given_stays_as_it_is() -> None:
    assert message(Language.SW, "push.turn_body", code="AB") == "Chumba AB, raundi {round}: kete zinakusubiri."


async def test_rulesets_in_every_language(client) -> None:
    english = (await client.get("/api/rulesets")).json()
    for language in Language:
        r = await client.get("/api/rulesets", params={"lang": language.value})
        assert r.status_code == 200
        assert r.headers["content-language"] == language.value
        assert "accept-language" in r.headers["vary"].lower()
        sets = r.json()
        # ids, sections, rounds and options never change with the language
        assert [(s["name"], s["rounds"], s["options"]) for s in sets] == [
            (s["name"], s["rounds"], s["options"]) for s in english
        ]
        for ours, theirs in zip(sets, english, strict=True):
            assert [(b["id"], b["section"]) for b in ours["boxes"]] == [
                (b["id"], b["section"]) for b in theirs["boxes"]
            ]
            assert [s["id"] for s in ours["sections"]] == [s["id"] for s in theirs["sections"]]
            assert all(b["label"] for b in ours["boxes"]) and all(s["label"] for s in ours["sections"])


async def test_rulesets_labels_by_header_and_parameter(client) -> None:
    r = await client.get("/api/rulesets", headers={"accept-language": "ar-EG,ar;q=0.9"})
    yahtzee = {s["name"]: s for s in r.json()}["yahtzee"]
    assert r.headers["content-language"] == "ar"
    assert yahtzee["label"] == "ياتزي"
    assert yahtzee["boxes"][8] == {"id": "full_house", "label": "البيت الكامل", "section": "lower"}
    assert yahtzee["sections"] == [{"id": "upper", "label": "القسم العلوي"}, {"id": "lower", "label": "القسم السفلي"}]
    # ?lang= wins over the header
    r = await client.get("/api/rulesets?lang=mn", headers={"accept-language": "ar"})
    yacht = {s["name"]: s for s in r.json()}["yacht"]
    assert yacht["boxes"][0]["label"] == "Дарвуулт онгоц"
    assert yacht["sections"][0] == {"id": "lower", "label": "Доод хэсэг"}
    # English keeps the rule sets' own labels
    r = await client.get("/api/rulesets", headers={"accept-language": "fr"})
    assert r.headers["content-language"] == "en"
    assert {s["name"]: s for s in r.json()}["yahtzee"]["boxes"][0]["label"] == "Aces"


async def test_an_unknown_lang_is_a_422_with_the_stable_code(client) -> None:
    r = await client.get("/api/rulesets?lang=xx")
    assert r.status_code == 422
    assert r.json()["code"] == "invalid_request"


async def test_lang_is_a_documented_enum(client) -> None:
    document = (await client.get("/openapi.json")).json()
    operation = document["paths"]["/api/rulesets"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    schema = json.dumps(parameters["lang"]["schema"])
    for name, component in document["components"]["schemas"].items():  # follow $refs
        if f"#/components/schemas/{name}" in schema:
            schema += json.dumps(component)
    assert all(f'"{language.value}"' in schema for language in Language)
    assert parameters["accept-language"]["in"] == "header"
    assert "Content-Language" in operation["responses"]["200"]["headers"]
