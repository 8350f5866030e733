"""Player names (app.rooms.names, docs/api.md "Names"): one normal form, per-field
refusals, grapheme clusters counted, no two seats of a room with one name (on
both databases, racing joins included)."""

import asyncio

import httpx
import pytest

from app.rooms.errors import DomainError
from app.rooms.names import MAX_GRAPHEMES, graphemes, normalize_name

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one grapheme, five code points


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("  Ana  ", "Ana"),
        ("Ana\n\tMaria", "Ana Maria"),
        ("Ana\u00a0\u3000 B", "Ana B"),  # no-break and ideographic spaces are whitespace
        ("e\u0301", "\u00e9"),  # NFC
        (f"{FAMILY} Ana", f"{FAMILY} Ana"),
        ("x" * MAX_GRAPHEMES, "x" * MAX_GRAPHEMES),
        ("\u0a95\u0acd\u0ab7" * 10, "\u0a95\u0acd\u0ab7" * 10),  # Gujarati conjuncts: one cluster each
        ("Ana\u200cB", "Ana\u200cB"),  # a joiner inside a name stays
    ],
)
def test_names_are_normalized(raw: str, name: str) -> None:
    assert normalize_name(raw) == name


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "name_empty"),
        ("   \n ", "name_empty"),
        ("\u0301\u0301", "name_empty"),  # marks only: nothing to see
        ("x" * (MAX_GRAPHEMES + 1), "name_too_long"),
        ("x" * 300, "name_too_long"),
        (FAMILY * 13, "name_too_long"),  # 13 clusters, but 65 code points: more than the column holds
        ("\u200b", "name_invalid"),  # zero-width space
        ("Ana\u200bB", "name_invalid"),
        ("Ana\u202eB", "name_invalid"),  # a bidirectional override
        ("Ana\x00", "name_invalid"),
        ("Ana\x07B", "name_invalid"),
        ("\u3164", "name_invalid"),  # Hangul filler, a letter that draws nothing
        ("\u200dAna", "name_invalid"),
        ("Ana\ue000", "name_invalid"),  # private use
    ],
)
def test_bad_names_are_refused_with_their_code(raw: str, code: str) -> None:
    with pytest.raises(DomainError) as refused:
        normalize_name(raw)
    assert refused.value.code == code and refused.value.status == 422
    assert refused.value.errors[0]["loc"] == ["body", "name"]  # type: ignore[attr-defined]


def test_a_family_emoji_counts_once() -> None:
    assert graphemes(FAMILY) == 1
    assert normalize_name(FAMILY * 12) == FAMILY * 12  # 12 clusters, 60 code points


async def test_the_api_refuses_per_field_and_stores_the_normal_form(client: httpx.AsyncClient) -> None:
    for raw, code in [("   ", "name_empty"), ("a\u200bb", "name_invalid"), ("y" * 40, "name_too_long")]:
        response = await client.post("/api/rooms", json={"ruleset": "yacht", "name": raw})
        assert response.status_code == 422, response.text
        body = response.json()
        assert body["code"] == code and body["errors"][0]["loc"] == ["body", "name"]
    created = await client.post("/api/rooms", json={"ruleset": "yacht", "name": " Ana\n  Maria ", "max_players": 4})
    assert created.status_code == 201
    code = created.json()["room"]["code"]
    assert created.json()["player"]["name"] == "Ana Maria"
    for name in ("Ana Maria", "ANA  maria", "ana maria\t"):
        taken = await client.post(f"/api/rooms/{code}/players", json={"name": name})
        assert taken.status_code == 409 and taken.json()["code"] == "name_taken", taken.text
    joined = await client.post(f"/api/rooms/{code}/players", json={"name": "Beginner bot"})
    assert joined.status_code == 201
    bot = await client.post(
        f"/api/rooms/{code}/bots",
        json={"level": "beginner"},
        headers={"authorization": f"Bearer {created.json()['token']}"},
    )
    assert bot.status_code == 201, bot.text
    names = [p["name"] for p in (await client.get(f"/api/rooms/{code}")).json()["players"]]
    assert names == ["Ana Maria", "Beginner bot", "Beginner bot 2"]


async def test_two_joins_racing_for_one_name_one_wins(client: httpx.AsyncClient) -> None:
    created = await client.post("/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 8})
    code = created.json()["room"]["code"]
    answers = await asyncio.gather(*(client.post(f"/api/rooms/{code}/players", json={"name": "Ben"}) for _ in range(6)))
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5
    assert {a.json()["code"] for a in answers if a.status_code == 409} == {"name_taken"}
    names = [p["name"] for p in (await client.get(f"/api/rooms/{code}")).json()["players"]]
    assert names == ["Ana", "Ben"]


# -- look-alikes, invisible tags, stacked marks (issue 27.5) ---------------------------------------

ANA_LOOKALIKES = [
    "\u0410na",  # Cyrillic capital A
    "A\u200dna",  # a zero-width joiner inside
    "Ana\U000e0041\U000e007f",  # tag characters after it (invisible)
    "\uff21\uff4e\uff41",  # fullwidth
    "\U0001d400\U0001d427\U0001d41a",  # mathematical bold
    "ANA",
]


def test_look_alike_names_compare_equal_and_others_do_not() -> None:
    from app.rooms.names import same_name

    for other in ANA_LOOKALIKES:
        assert same_name("Ana", other), other
    for other in ("Anna", "Ben", "Ama", "\u0905\u0928\u093e"):
        assert not same_name("Ana", other), other
    assert same_name("Bob", "B0b") and same_name("Sam", "Sarn")  # 0 looks like O, m like rn


async def test_five_look_alike_anas_cannot_share_a_room(client: httpx.AsyncClient) -> None:
    created = await client.post("/api/rooms", json={"ruleset": "yacht", "name": "Ana", "max_players": 8})
    code = created.json()["room"]["code"]
    for name in ANA_LOOKALIKES:
        r = await client.post(f"/api/rooms/{code}/players", json={"name": name})
        if r.status_code == 422:
            assert r.json()["code"] == "name_invalid", (name, r.text)  # tags outside a flag: refused outright
        else:
            assert (r.status_code, r.json()["code"]) == (409, "name_taken"), (name, r.text)
    room = (await client.get(f"/api/rooms/{code}")).json()
    assert [p["name"] for p in room["players"]] == ["Ana"]


@pytest.mark.parametrize(
    "raw",
    [
        "Ana\U000e0041\U000e007f",  # tags that spell nothing
        "\U000e0067\U000e0062Ana",
        "Ana\U000e007f",
        "Z" + "\u0300\u0301\u0302\u0303\u0304\u0305",  # six marks on one letter
        "Zal" + "\u0336" * 30 + "go",
    ],
)
def test_invisible_tags_and_stacked_marks_are_refused(raw: str) -> None:
    with pytest.raises(DomainError) as refused:
        normalize_name(raw)
    assert refused.value.code == "name_invalid"


@pytest.mark.parametrize(
    "name",
    [
        "Ana \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # the flag of Scotland
        "Vi\u1ec7t",  # two marks on one letter (Vietnamese)
        "\u1019\u1031\u102c\u1004\u103a",  # Burmese
        "\u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f",  # Arabic with its vowel marks
    ],
)
def test_names_that_need_tags_or_marks_are_fine(name: str) -> None:
    import unicodedata

    assert normalize_name(name) == unicodedata.normalize("NFC", name)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("Thr\u202eoller", "name_invalid"),  # the bidi override that read "Throller Rank: 1" backwards
        ("A\u200bna", "name_invalid"),
        ("\u3164", "name_invalid"),  # Hangul filler: a blank row on the board
        ("Ana\U000e0041\U000e007f", "name_invalid"),
        ("Z" + "\u0301" * 64, "name_invalid"),
        ("   ", "name_empty"),
    ],
)
async def test_profile_names_follow_the_seat_name_rules(client: httpx.AsyncClient, raw: str, code: str) -> None:
    r = await client.post("/api/profiles", json={"name": raw})
    assert (r.status_code, r.json()["code"]) == (422, code), r.text
    assert r.json()["errors"][0]["loc"] == ["body", "name"]
    made = await client.post("/api/profiles", json={"name": "  Ana\n Maria "})
    assert made.status_code == 201 and made.json()["profile"]["name"] == "Ana Maria"
    auth = {"authorization": f"Bearer {made.json()['token']}"}
    r = await client.patch("/api/profiles/me", json={"name": raw}, headers=auth)
    assert (r.status_code, r.json()["code"]) == (422, code), r.text
